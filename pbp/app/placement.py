"""Whether the trusted server's ``Authentication-Results`` stand where ``games.yaml``
says, read from a mail the GM sent himself (``pbp check --connect``, README, "Forged
and unauthenticated mail").

The settings (``mail.trusted_authserv_id``, ``trusted_received_above``,
``trusted_authserv_fields``: :class:`~pbp.mail.read.authcheck.TrustedServer`) say where the
receiving server writes its fields: below so many ``Received`` fields, so many of them.
One mail shows where it really writes them, but only a mail that came from outside
the way every move comes, and whose sender wrote no field of that id himself: so only
the GM's own mail is read (the caller picks it: its From is a GM address of
``games.yaml``), never a stranger's, who may have added a forged field to make pbp
advise a setting that trusts it.

What the GM's mail shows (the topmost fields of the id are the server's: it writes on
top of what it received, RFC 8601 §5):

- the settings as they are: ``ok``;
- fields of the id at another place, or more of them than set: every mail would be
  kept as unauthenticated (the game cannot be played), ``FAILED`` with the settings
  to use, named only when the server, read with them, authenticates that mail's From
  (:func:`pbp.mail.read.authcheck.verdict`): a mail whose From was forged to the GM's address
  and whose forged field would pass as the server's never makes pbp name a setting
  that trusts it;
- fewer fields of the id than set: every mail passes, but the place left over can be
  filled by a sender: ``FAILED`` with the lower number (trusting less needs no proof);
- no field of the id: ``FAILED`` with the id of the topmost field, or, with no field at
  all, to leave ``trusted_authserv_id`` unset;
- fields of the id further down besides the server's: ``WARNING`` (pbp keeps such a
  mail as forged; the settings may be right).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pbp.mail.read.auth import AuthField, authserv_id
from pbp.mail.read.authcheck import TrustedServer, unusable, verdict
from pbp.mail.read.mime import Letter
from pbp.text.counted import counted


class Mark(StrEnum):
    """How a line of ``pbp check --connect`` begins: ``FAILED`` makes it exit 1."""

    OK = "ok"
    FAILED = "FAILED"
    WARNING = "WARNING"


def _seen(fields: int, above: int) -> str:
    return f"{counted(fields, 'field')} below {counted(above, 'Received field')}"


def _server_fields(found: Sequence[AuthField], name: str) -> tuple[int, int, list[int]]:
    """Of the fields of ``found`` with the authserv-id ``name`` (at least one): the
    topmost place (``Received`` fields above), how many stand there, and the places of
    the others, further down."""
    places = [f.received_above for f in found if authserv_id(f.value) == name]
    top = min(places)
    return top, places.count(top), sorted(p for p in places if p != top)


def placement(letter: Letter, server: TrustedServer, *, resend: str) -> tuple[Mark, str]:
    """What the GM's own mail ``letter`` (its header) shows of the settings ``server``
    (module doc): the mark and the line, naming the setting and value to use when they
    do not match. ``resend``: what to tell the GM when his mail proves nothing (``"send
    one mail from gm@example.test to pbp@example.test and check again"``).

    >>> from pbp.mail.read.auth import AuthField
    >>> letter = Letter(from_address="gm@example.test", authentication_results=(
    ...     AuthField("mx.example.test; dmarc=pass header.from=example.test", 1),))
    >>> mark, line = placement(letter, TrustedServer("mx.example.test", 1, 2), resend="…")
    >>> print(mark, line)  # doctest: +NORMALIZE_WHITESPACE
    FAILED Authentication-Results from mx.example.test: 1 field below 1 Received field in
    the GM's newest mail, the settings say 1 field below 2 Received fields: set
    trusted_received_above: 1
    """
    where = f"Authentication-Results from {server.authserv_id}"
    said = f"the settings say {_seen(server.fields, server.received_above)}"
    found = letter.authentication_results
    trusted = server.authserv_id.lower()
    if not any(authserv_id(f.value) == trusted for f in found):
        return Mark.FAILED, f"{where}: none in the GM's newest mail ({_other_id(letter, resend)})"
    top, count, below = _server_fields(found, trusted)
    seen = f"{_seen(count, top)} in the GM's newest mail"
    if top == server.received_above and count == server.fields:
        if below:
            return Mark.WARNING, (
                f"{where}: {seen}, as set, and more below "
                f"{' and '.join(map(str, below))} Received fields, where the server writes "
                "none: pbp keeps such a mail as forged"
            )
        said_of_it = verdict(found, letter.from_address or "", server).reason
        return Mark.OK, f"{where}: {seen}, as set (that mail: {said_of_it})"
    changes = []
    if top != server.received_above:
        changes.append(f"trusted_received_above: {top}")
    if count != server.fields:
        changes.append(f"trusted_authserv_fields: {count}")
    advice = f"set {' and '.join(changes)}"
    if top == server.received_above and count < server.fields:
        # Trusting fewer fields needs no proof: a sender can add fields, never remove
        # the server's.
        return Mark.FAILED, (
            f"{where}: {seen}, {said}: the server writes fewer than set, which leaves a "
            f"place a sender can fill: {advice}"
        )
    proof = verdict(found, letter.from_address or "", TrustedServer(trusted, count, top))
    if not proof.authenticated:
        return Mark.FAILED, (
            f"{where}: {seen}, {said}; read so, the server did not authenticate that "
            f"mail's From ({proof.reason}), so it may be forged and pbp names no setting "
            f"from it: {resend}"
        )
    return Mark.FAILED, f"{where}: {seen}, {said}: {advice}"


def _other_id(letter: Letter, resend: str) -> str:
    """What a GM's mail without a field of the trusted id shows instead: the setting to
    use (the topmost field's authserv-id, where it stands), or to leave it unset."""
    found = letter.authentication_results
    ids = list(dict.fromkeys(authserv_id(f.value) or "?" for f in found))
    if not found or ids == ["?"]:
        return (
            "nor any other: the server writes none, so every move would be kept as "
            "unauthenticated: leave trusted_authserv_id unset"
        )
    fields = f"fields of {', '.join(sorted(ids))} only"
    name = authserv_id(found[0].value)
    if name is None:
        return f"{fields}, the topmost without a name: {resend}"
    why = unusable(name)
    if why is not None:
        return f"{fields}: {why}"
    top, count, _below = _server_fields(found, name)
    proof = verdict(found, letter.from_address or "", TrustedServer(name, count, top))
    if not proof.authenticated:
        return (
            f"{fields}; the topmost, {name}'s, did not authenticate that mail's From "
            f"({proof.reason}), so it may be forged and pbp names no setting from it: {resend}"
        )
    return (
        f"{fields}: set trusted_authserv_id: {name}, trusted_received_above: {top} and "
        f"trusted_authserv_fields: {count}"
    )
