"""Reading ``Authentication-Results`` header fields (RFC 8601) into plain records: the
fields of a message as :func:`authentication_results` keeps them, each with its place
among the ``Received`` fields (for :attr:`pbp.mail.read.mime.Letter.authentication_results`),
and the results of those a trusted server wrote (:func:`results_of`, for
:mod:`pbp.mail.read.authcheck`).

The grammar is the ``authres`` library's (RFC 5451/7001/7601/8601); this module keeps
what pbp needs of it: the authserv-id and, per result, the method, its result and
its properties (``header.from``, ``header.d``, ``smtp.mailfrom``). A field is only
parsed when its authserv-id is the one asked for (:func:`results_of`): the others
may have been written by anybody (RFC 8601 §5) and are never read further.

Pure: no I/O. Never raises for a bad field: one that does not parse is skipped.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.message import Message

import authres
import authres.dmarc

from pbp.mail.read.headers import unfolded

#: Longest field value parsed (characters); the library's parser copies the rest of
#: the text at each token, so a longer (hostile) value is skipped, not parsed.
FIELD_LIMIT = 4096

#: Most ``Authentication-Results`` fields read of one message, the topmost: a receiving
#: server adds one or two above the others (RFC 8601 §5); the rest are the sender's,
#: and each one parsed costs up to some 15 ms (a hostile mail had 25,000).
MAX_FIELDS = 16

#: The authserv-id at the start of a value (RFC 8601 §2.2: a dot-atom or a
#: quoted-string; honest servers write a host name), after white space and comments.
_AUTHSERV_ID = re.compile(r"\s*(?:\([^()]{0,200}\)\s*)*([A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+)")

_CONTEXT = authres.FeatureContext(authres.dmarc)


@dataclass(frozen=True)
class AuthResult:
    """One resinfo of an ``Authentication-Results`` field: ``method`` (``"dmarc"``,
    ``"dkim"``, ``"spf"``, …) and ``result`` (``"pass"``, ``"fail"``, ``"none"``, …),
    both lower-cased; ``properties``: ``"ptype.property"`` lower-cased → value as
    written (``{"header.from": "example.test"}``).

    >>> results_of(["mx.example.test; dmarc=pass header.from=example.test"], "MX.example.test")
    [AuthResult(method='dmarc', result='pass', properties={'header.from': 'example.test'})]
    """

    method: str
    result: str
    properties: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AuthField:
    """One ``Authentication-Results`` field where it stands in the header: ``value``,
    unfolded (:func:`~pbp.mail.read.headers.unfolded`), without the field name;
    ``received_above``: how many ``Received`` fields stand above it (0: above every
    one). Trace fields are added on top as a mail travels (RFC 5322 §3.6.7), so this
    tells the receiving side's own fields from the sender's (RFC 8601 §5, §7.1).

    >>> AuthField("mx.example.test; dmarc=pass header.from=example.test", 1).received_above
    1
    """

    value: str
    received_above: int


def authentication_results(msg: Message) -> tuple[AuthField, ...]:
    """The ``Authentication-Results`` fields of ``msg``, top down, each with the number of
    ``Received`` fields above it (:class:`AuthField`); only the topmost :data:`MAX_FIELDS`."""
    found: list[AuthField] = []
    received = 0
    for key, value in msg.raw_items():
        name = key.strip().lower()
        if name == "received":
            received += 1
        elif name == "authentication-results":
            if len(found) == MAX_FIELDS:
                break
            found.append(AuthField(unfolded(value), received))
    return tuple(found)


def authserv_id(value: str) -> str | None:
    """The authserv-id a field value starts with, lower-cased, or None.

    >>> authserv_id(" mx.example.test (Postfix); spf=pass smtp.mailfrom=example.test")
    'mx.example.test'
    """
    match = _AUTHSERV_ID.match(value)
    return match.group(1).lower() if match else None


def results_of(values: Iterable[str], trusted: str) -> list[AuthResult]:
    """Every result of the fields among ``values`` (unfolded field values, without
    the field name) whose authserv-id is ``trusted`` (case-insensitive), in order.
    A field of another authserv-id, a field longer than :data:`FIELD_LIMIT` and one
    that does not parse are skipped; of ``values`` only the first :data:`MAX_FIELDS`
    are read."""
    trusted = trusted.lower()
    found: list[AuthResult] = []
    for value in itertools.islice(values, MAX_FIELDS):
        if authserv_id(value) != trusted or len(value) > FIELD_LIMIT:
            continue
        try:
            header = _CONTEXT.parse_value(value)
        except (authres.AuthResError, RecursionError, ValueError, AttributeError, TypeError):
            continue  # unparsable: as if the server had said nothing
        if str(header.authserv_id).lower() != trusted:
            continue
        for result in header.results:
            properties = {
                f"{p.type}.{p.name}".lower(): str(p.value)
                for p in getattr(result, "properties", [])
                if p.value is not None
            }
            found.append(
                AuthResult(str(result.method).lower(), str(result.result).lower(), properties)
            )
    return found
