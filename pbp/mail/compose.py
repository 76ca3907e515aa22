"""Building the mails pbp sends (RFC 5322, RFC 3834).

Every mail gets a Message-ID chosen once, before it is stored in the outbox, so
a retry sends the very same message. Answers to a player's mail thread to it
(``In-Reply-To``/``References``, RFC 5322 §3.6.4) and carry
``Auto-Submitted: auto-replied``; mail sent unprompted (hands, reminders,
posts) carries ``auto-generated`` (RFC 3834 §5), so that well-behaved
auto-responders never answer it and no mail loop can start.

The ``To`` field holds the recipient exactly as the outbox row records it, the
address ``RCPT TO`` names (:func:`pbp.app.sending.envelope`): set as it is, never parsed
or refolded by the email package's header registry (which decoded an encoded-word in
a long address's local part and quoted a backslash), in UTF-8 (RFC 6532) when the
address is not ASCII.
"""

from __future__ import annotations

import binascii
import os
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from email import base64mime, quoprimime
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage
from email.policy import SMTP, EmailPolicy
from email.utils import format_datetime
from functools import lru_cache
from typing import Literal

from pbp.mail.read.address import address_problem, needs_smtputf8
from pbp.mail.safetext import msg_ids, one_line, strip_controls

AutoSubmitted = Literal["auto-replied", "auto-generated"]


class _AddressAsSet(EmailPolicy):
    """:data:`email.policy.SMTP`, except that a ``To`` value set as it is
    (:meth:`EmailMessage.set_raw`, one addr-spec) is written as it is on its line, never
    parsed and refolded by the header registry (RFC 5322 §2.1.1 allows 998 characters
    a line; an addr-spec has at most 254, RFC 5321 §4.5.3.1.3)."""

    def fold(self, name: str, value: str) -> str:
        if type(value) is str and name.lower() == "to":
            return f"{name}: {value}{self.linesep}"
        folded: str = super().fold(name, value)
        return folded

    def fold_binary(self, name: str, value: str) -> bytes:
        if type(value) is str and name.lower() == "to":
            return self.fold(name, value).encode("utf-8" if self.utf8 else "ascii")
        return super().fold_binary(name, value)


#: The policy of a mail :func:`compose` makes (:class:`_AddressAsSet`).
POLICY = _AddressAsSet(linesep="\r\n")
#: :data:`POLICY` with header fields in UTF-8 (RFC 6532), for a mail to an address that
#: is not ASCII: it goes by SMTPUTF8 only (RFC 6531), so nothing is lost by it.
POLICY_UTF8 = _AddressAsSet(linesep="\r\n", utf8=True)


def new_message_id(domain: str) -> str:
    """A fresh globally unique Message-ID, e.g. ``<pbp.5f0c…@example.test>``."""
    return f"<pbp.{os.urandom(16).hex()}@{domain}>"


def personal_address(address: str, token: str) -> str:
    """``gm@example.test`` + ``k3x9`` → ``gm+k3x9@example.test`` (plus-addressing)."""
    local, _, domain = address.partition("@")
    return f"{local}+{token}@{domain}"


def compose(
    *,
    sender: str,
    to: str,
    subject: str,
    body: str,
    message_id: str,
    date: datetime,
    auto_submitted: AutoSubmitted,
    reply_to: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    sender_name: str = "pbp",
) -> EmailMessage:
    """A plain-text UTF-8 mail ready for the outbox.

    ``to`` is one addr-spec (``rosa@example.test``, no display name), written in the
    ``To`` field as it is; one that is not ASCII makes the mail's header UTF-8
    (:data:`POLICY_UTF8`). ``date`` must be timezone-aware. ``references`` is the
    thread so far (oldest first); ``in_reply_to`` is appended to it when missing.

    Outside text never shapes a header (issue 12, item 7): every value is put on one
    line without control characters (:func:`pbp.mail.safetext.one_line`), and of
    ``in_reply_to`` and ``references``, echoed from a player's mail, only well-formed
    message ids are kept (RFC 5322 §3.6.4; none left: no In-Reply-To). The body
    loses its control characters but TAB and LF (:func:`pbp.mail.safetext.strip_controls`).
    The recipient is never rewritten: the outbox sends to ``to`` as given.

    :raises ValueError: ``to`` is not an address pbp sends to as it is written
        (:func:`pbp.mail.read.address.address_problem`; the reader refuses such a From).
    """
    problem = address_problem(to)
    if problem is not None:
        raise ValueError(f"not an address to send to as it is written: {to!r}: {problem}")
    subject = one_line(subject)
    reply_to = one_line(reply_to) if reply_to else None
    echoed = msg_ids(in_reply_to)
    in_reply_to = echoed[0] if echoed else None
    references = [i for r in references for i in msg_ids(r)]
    message = EmailMessage(policy=POLICY_UTF8 if needs_smtputf8(to) else POLICY)
    message.set_raw("From", _from_header(sender_name, sender))
    message.set_raw("To", to)
    if reply_to:
        _set(message, "Reply-To", reply_to)
    message.set_raw("Subject", _subject_header(subject))
    message.set_raw("Date", _date_header(date.replace(microsecond=0), date.utcoffset()))
    _set(message, "Message-ID", message_id)
    if in_reply_to:
        _set(message, "In-Reply-To", in_reply_to)
        thread = [*references]
        if in_reply_to not in thread:
            thread.append(in_reply_to)
        _set(message, "References", " ".join(thread))
    _set(message, "Auto-Submitted", auto_submitted)
    if auto_submitted == "auto-generated":
        # Not a standard, but vacation responders of common servers honour it.
        _set(message, "Precedence", "bulk")
    _set_text(message, strip_controls(body))
    return message


def _set_text(message: EmailMessage, text: str) -> None:
    """``message.set_content(text, charset="utf-8")`` on a message of :data:`SMTP`
    policy with no content yet: the same fields, values and body, set as they are
    instead of through the header registry (which parsed ``Content-Type`` three times;
    half the cost of composing, issue 18).

    The transfer encoding is chosen as the email package chooses it (its
    ``contentmanager``): lines of at most 78 bytes go as they are (``7bit``, or
    ``8bit`` when not ASCII, RFC 6152); longer ones in ``base64`` or
    ``quoted-printable`` (RFC 2045 §6), whichever is shorter over the first ten lines.
    """
    cte, payload = _encode_text(text)
    message.set_raw("Content-Type", 'text/plain; charset="utf-8"')
    message.set_raw("Content-Transfer-Encoding", cte)
    message.set_raw("MIME-Version", "1.0")
    message.set_payload(payload)


def _encode_text(text: str) -> tuple[str, str]:
    """``(cte, payload)`` of ``text`` in UTF-8 as ``email.contentmanager`` encodes it
    for :data:`SMTP` (``max_line_length`` 78, ``cte_type`` 8bit, CRLF)."""
    lines = text.encode("utf-8").splitlines()
    limit = _SHORT
    if max((len(line) for line in lines), default=0) <= limit:
        body = b"\n".join(lines) + b"\n"
        return ("7bit" if body.isascii() else "8bit"), body.decode("ascii", "surrogateescape")
    sniff = b"\r\n".join(lines[:10]) + b"\r\n"
    sniff_base64 = len(binascii.b2a_base64(sniff))
    # Quoted-printable writes each byte over 0x7f as three characters and each CRLF
    # as one (soft breaks and other escapes only add): when even that is longer than
    # base64, the choice is made without encoding the sniff (Cyrillic mail, issue 18).
    high = len(sniff) - len(sniff.translate(None, _HIGH_BYTES))
    least_qp = len(sniff) - min(len(lines), 10) + 2 * high
    if least_qp > sniff_base64:
        sniff_qp = None
    else:
        sniff_qp = quoprimime.body_encode(sniff.decode("latin-1"), limit)
    if sniff_qp is not None and len(sniff_qp) <= sniff_base64:
        if len(lines) <= 10:
            return "quoted-printable", sniff_qp
        body = b"\n".join(lines) + b"\n"
        return "quoted-printable", quoprimime.body_encode(body.decode("latin-1"), limit)
    data = b"\r\n".join(lines) + b"\r\n"
    step = limit // 4 * 3
    encoded = (binascii.b2a_base64(data[i : i + step]) for i in range(0, len(data), step))
    return "base64", b"".join(encoded).decode("ascii")


#: The bytes quoted-printable always escapes as ``=XX`` (RFC 2045 §6.7).
_HIGH_BYTES = bytes(range(0x80, 0x100))


def flatten(message: EmailMessage) -> bytes:
    """``bytes(message)`` of a message :func:`compose` made (one part, a text payload;
    any other message: ``bytes(message)`` itself), without the email generator: each
    field folded by the message's policy as the generator folds it, a blank line, and
    the payload with CRLF line ends. The generator would parse ``Content-Type`` (and
    ``Content-Transfer-Encoding``) through the header registry again to choose how to
    write the body: a third of the cost of composing (issue 18).
    """
    payload = getattr(message, "_payload", None)  # as set: what BytesGenerator writes
    policy = message.policy
    if message.is_multipart() or not isinstance(payload, str) or policy not in _POLICIES:
        return bytes(message)
    fields = b"".join(_folded(policy, name, value) for name, value in message.raw_items())
    return fields + b"\r\n" + _LINE_END.sub("\r\n", payload).encode("ascii", "surrogateescape")


#: The policies of the mails :func:`compose` makes.
_POLICIES = (POLICY, POLICY_UTF8)


def _folded(policy: EmailPolicy, name: str, value: str) -> bytes:
    """``policy.fold_binary(name, value)``: the field as the generator writes it; a
    value set as it is (a plain ``str``, not a header object of the registry) folded
    once per name and value (the From, To, Reply-To and Subject of one game recur in
    mail after mail)."""
    if type(value) is str:
        return _folded_raw(policy, name, value)
    return policy.fold_binary(name, value)


@lru_cache(maxsize=4096)
def _folded_raw(policy: EmailPolicy, name: str, value: str) -> bytes:
    return policy.fold_binary(name, value)


#: A line end of a payload as the email generator finds them (``email.generator.NLCRE``).
_LINE_END = re.compile(r"\r\n|\r|\n")


@lru_cache(maxsize=1024)
def _subject_header(subject: str) -> str:
    """The ``Subject`` value of ``subject`` (on one line): RFC 2047 encoded words of
    UTF-8 folded with ``"\\n "`` (written with CRLF), exactly as
    ``Header(subject, "utf-8", header_name="Subject").encode()`` folds them (which
    encodes every prefix of the text in turn, quadratic in its length; issue 18).

    Encoded by hand rather than by the email package's header folding, which can drop
    the space between two encoded words (CPython gh-92081), so "итоги голосования"
    arrived as one word. As ``Header`` does: the words are "Q" when that is no longer
    than "B" (base64) for the whole text (RFC 2047 §4); each takes as many characters
    as fit on its line of 78 (RFC 5322 §2.1.1) with ``=?utf-8?b?``…``?=`` around it:
    after ``Subject: `` on the first, after the folding space on the others.
    """
    if not subject or len(subject.splitlines()) != 1:
        return Header(subject, "utf-8", header_name="Subject").encode()
    whole = subject.encode("utf-8")
    quoted = quoprimime.header_length(whole) <= base64mime.header_length(whole)
    chrome = len("=?utf-8?b??=")
    first, other = _SHORT - len("Subject: ") - chrome, _SHORT - len(" ") - chrome
    words = _q_words(subject, first, other) if quoted else _b_words(whole, first, other)
    encode = quoprimime.header_encode if quoted else base64mime.header_encode
    return "\n ".join(encode(w, "utf-8") for w in words)


def _q_words(subject: str, first: int, other: int) -> list[bytes]:
    """The UTF-8 of ``subject`` cut into "Q" words of at most ``first`` encoded
    characters, then ``other``, each whole characters."""
    words: list[bytes] = []
    word, length, room = b"", 0, first  # the word so far and its encoded length
    for character in subject:
        encoded = character.encode("utf-8")
        longer = length + quoprimime.header_length(encoded)
        if longer > room:
            words.append(word)
            word, room = encoded, other
            length = quoprimime.header_length(encoded)
        else:
            word, length = word + encoded, longer
    words.append(word)
    return words


def _b_words(whole: bytes, first: int, other: int) -> list[bytes]:
    """``whole`` (UTF-8) cut into "B" words of at most ``first`` base64 characters, then
    ``other``: as many whole characters as fit in ``room // 4 * 3`` bytes (a cut never
    falls before a continuation byte, ``10xxxxxx``)."""
    words: list[bytes] = []
    start, room = 0, first
    while True:
        end = start + room // 4 * 3
        if end >= len(whole):
            words.append(whole[start:])
            return words
        while end > start and whole[end] & 0xC0 == 0x80:
            end -= 1
        words.append(whole[start:end])
        start, room = end, other


def _set(message: EmailMessage, name: str, value: str) -> None:
    """``message[name] = value``, without the header registry's parse when ``value``
    is already in its final form: printable ASCII on one line, short enough that
    the policy would not fold it (RFC 5322 §2.1.1: 78 characters). The registry
    parses (and, for an address list, refolds) anything else. Same bytes, about a
    tenth of the cost (issue 7: composing was a fifth of a move's time)."""
    if len(name) + 2 + len(value) <= _SHORT and value.isascii() and value.isprintable():
        message.set_raw(name, value)
    else:
        message[name] = value


_SHORT = 78  # RFC 5322 §2.1.1, the SMTP policy's max_line_length


@lru_cache(maxsize=64)
def _date_header(date: datetime, offset: timedelta | None) -> str:
    """The ``Date`` value of ``date`` (RFC 5322 §3.3, whole seconds), e.g. ``Tue, 01
    Dec 2026 18:00:00 +0000``, formatted once per second and offset (the mails one
    move causes share their moment). ``offset`` is ``date.utcoffset()``: two aware
    datetimes of the same instant are equal keys, but are written with their own
    offsets."""
    return format_datetime(date)


@lru_cache(maxsize=64)
def _from_header(sender_name: str, sender: str) -> str:
    """The folded ``From`` value for ``sender_name <sender>`` (RFC 2047 for a
    non-ASCII name), computed once per sender by the header registry."""
    local, _, domain = sender.partition("@")
    header = SMTP.header_factory("From", Address(sender_name, local, domain))
    folded: str = header.fold(policy=SMTP)
    return folded.split(":", 1)[1].strip()
