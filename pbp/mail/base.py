"""Transport-neutral shapes of incoming and outgoing mail.

Inboxes (Maildir, IMAP) hand the service :class:`RawMessage` objects in arrival
order; the service commits each message's result and only then calls
:meth:`Inbox.mark_done`. Transports (Maildir outbox, SMTP) deliver one stored
message at a time, its bytes as they are with an SMTP envelope
(:func:`submission`), and say whether a failure is worth retrying.
"""

from __future__ import annotations

import re
import socket
import ssl
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import SMTP
from email.utils import getaddresses
from typing import NamedTuple, Protocol, runtime_checkable

DEFAULT_MAX_MESSAGE_SIZE = 2_000_000
"""Bytes: the default of ``mail.max_message_size`` in ``games.yaml``; a larger incoming
message is delivered with its header section only (:attr:`RawMessage.truncated`)."""

HEADER_BYTES = 64 * 1024
"""Most bytes of a message's header section (RFC 5322 §2.1, its blank line included)
that pbp reads: an inbox never fetches more of it, and a longer one is delivered cut to
this many bytes (:attr:`RawMessage.long_header`). Honest mail has a few kilobytes of
header fields (a long ``Received`` chain and two DKIM signatures stay under 20 KB)."""

MAX_HEADER_FIELDS = 1000
"""Most header fields pbp reads of a message: a header section with more is delivered
cut after this many (:attr:`RawMessage.long_header`). Honest mail has a few dozen."""

OVER_HEADER_BYTES = f"over {HEADER_BYTES} bytes"
""":attr:`RawMessage.long_header` of a header section over :data:`HEADER_BYTES`."""
OVER_HEADER_FIELDS = f"over {MAX_HEADER_FIELDS} fields"
""":attr:`RawMessage.long_header` of a header section of more than
:data:`MAX_HEADER_FIELDS` fields (within :data:`HEADER_BYTES`)."""


@dataclass(frozen=True)
class RawMessage:
    """One message as it sits in the mailbox.

    ``key`` identifies it within its mailbox: the IMAP UID as a decimal string
    (``"42"``) or the Maildir unique name. ``uidvalidity`` is the IMAP
    UIDVALIDITY (RFC 3501 §2.3.1.1) the UID belongs to, None for Maildir.
    ``arrived`` is the IMAP INTERNALDATE or the Maildir delivery time, timezone-aware
    (UTC): rule D8 decides a move's game day by it. ``raw`` is the whole RFC 5322
    message as bytes, except in the two cases below.

    ``size`` is the whole message's size in bytes as the mailbox reports it (IMAP
    ``RFC822.SIZE``, RFC 3501 §6.4.5; the Maildir file's size), None where unknown.
    ``truncated`` is True when the message is larger than the inbox's limit
    (``mail.max_message_size``): then ``raw`` holds only its header section (RFC 5322
    §2.1, up to and including the blank line that ends it) and the body was never
    read.
    ``long_header`` is set when the header section is over the bounds pbp reads
    (:data:`HEADER_BYTES` bytes, :data:`MAX_HEADER_FIELDS` fields), whatever the
    message's size: it says how (``"over 65536 bytes"``, ``"over 1000 fields"``), and
    then ``truncated`` is True and ``raw`` holds what is read of the header section
    (:func:`cut_header`); nothing after it was ever read.
    ``defect`` is set (and ``raw`` is ``b""``) for a mailbox entry that is no message
    at all and was never read, e.g. ``"not a regular file: symlink"`` for a Maildir
    entry that is a symbolic link; :meth:`Inbox.mark_done` still moves it aside.
    """

    key: str
    uidvalidity: int | None
    arrived: datetime
    raw: bytes
    size: int | None = None
    truncated: bool = False
    defect: str | None = None
    long_header: str | None = None


def header_section(data: bytes) -> bytes:
    """The header section of a message (RFC 5322 §2.1): up to and including the empty
    line that ends it (``b"\\n"`` or ``b"\\r\\n"``); all of ``data`` when it holds none.

    >>> header_section(b"From: a@example.test\\r\\nSubject: x\\r\\n\\r\\nbody\\r\\n")
    b'From: a@example.test\\r\\nSubject: x\\r\\n\\r\\n'
    """
    if data[:1] == b"\n" or data[:2] == b"\r\n":
        return data[: data.index(b"\n") + 1]  # no header field at all
    end = _blank_line_end(data)
    return data if end is None else data[:end]


def _blank_line_end(data: bytes, start: int = 0) -> int | None:
    """Where the header section of ``data`` that starts at ``start`` ends, after the
    blank line (``\\n\\n`` or ``\\n\\r\\n``) that ends it; None when ``data`` holds none."""
    # The first "\n\n" or "\n\r\n", by two plain searches (a regular expression went
    # through the bytes one by one: issue 18); the first to start is the first to end.
    lf, crlf = data.find(b"\n\n", start), data.find(b"\n\r\n", start)
    ends = [at + length for at, length in ((lf, 2), (crlf, 3)) if at >= 0]
    return min(ends) if ends else None


#: What some tools write before the first header line (byte-order marks, blank lines),
#: which :func:`pbp.mail.read.mime.read_letter` skips: counted in the header's bytes.
_LEADING_JUNK = re.compile(rb"\A(?:\xef\xbb\xbf|[ \t]*\r?\n)+")
#: The first character of a header field's first line (not of a continuation line,
#: nor of the blank line that ends the section).
_FIELD_START = re.compile(rb"^[^ \t\r\n]", re.MULTILINE)


class Head(NamedTuple):
    """What an inbox reads of a message's header section (:func:`read_head`)."""

    raw: bytes
    """The header section (blank line included), or what is read of a long one."""
    long: str | None = None
    """None, or how the header section is over the bounds (``"over 65536 bytes"``,
    ``"over 1000 fields"``): then ``raw`` is :func:`cut_header` of it."""


def read_head(data: bytes, *, whole: bool) -> Head | None:
    """The header section at the start of ``data`` (the first bytes of a message, or
    all of it when ``whole``) within the bounds pbp reads: at most
    :data:`HEADER_BYTES` bytes, counted from the message's first byte (what
    :func:`pbp.mail.read.mime.read_letter` skips before the first field included), and
    at most :data:`MAX_HEADER_FIELDS` fields. A longer one comes :func:`cut_header`
    with ``long`` set; a ``whole`` message without a blank line is all header. None
    when ``data`` (not ``whole``, shorter than :data:`HEADER_BYTES`) ends before the
    header section does: more of the message is needed to tell.

    Linear in ``min(len(data), HEADER_BYTES)``: the rest of ``data`` is never looked at.

    >>> read_head(b"From: a@example.test\\r\\n\\r\\nbody", whole=True)
    Head(raw=b'From: a@example.test\\r\\n\\r\\n', long=None)
    >>> read_head(b"X: y\\r\\n" * 20_000, whole=True).long
    'over 65536 bytes'
    """
    first = data[:HEADER_BYTES]
    junk = _LEADING_JUNK.match(first)
    skip = junk.end() if junk else 0
    end = _blank_line_end(first, skip)
    if end is None:
        if not (whole and len(data) <= HEADER_BYTES):
            if len(data) < HEADER_BYTES:
                return None
            return Head(cut_header(data), OVER_HEADER_BYTES)
        end = len(data)
    head = first[:end]
    if _field_start(head, MAX_HEADER_FIELDS) is not None:
        return Head(cut_header(head), OVER_HEADER_FIELDS)
    return Head(head)


def cut_header(data: bytes) -> bytes:
    """What pbp reads of a header section over the bounds (:func:`read_head`): its
    first :data:`HEADER_BYTES` bytes, and of those the first
    :data:`MAX_HEADER_FIELDS` fields."""
    first = data[:HEADER_BYTES]
    over = _field_start(first, MAX_HEADER_FIELDS)
    return first if over is None else first[:over]


def _field_start(head: bytes, fields: int) -> int | None:
    """Where the field after the first ``fields`` fields of ``head`` starts, None when
    it has no more than ``fields`` fields."""
    for number, found in enumerate(_FIELD_START.finditer(head)):
        if number == fields:
            return found.start()
    return None


class WaitClock(Protocol):
    """The clock an inbox's :meth:`Inbox.wait` reads and sleeps on: the :mod:`time`
    module itself by default; in tests, a clock that only ``sleep`` moves, so that a
    wait's length is exact whatever the machine's load (issue 35, item 7)."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (``time.monotonic``)."""

    def sleep(self, seconds: float, /) -> None:
        """Block for ``seconds`` (``time.sleep``)."""


class Inbox(Protocol):
    """Where moves come from."""

    def fetch_new(self) -> list[RawMessage]:
        """Every message not yet marked done, ordered by (arrived, key).

        Never relies on or changes ``\\Seen`` (the GM may read the same mailbox).
        """

    def mark_done(self, keys: Sequence[str]) -> None:
        """Mark messages as processed on the server (after their result is committed)."""

    def keep(self, keys: Sequence[str]) -> None:
        """Put a copy of messages the store set aside into the mailbox's kept folder
        (for the GM's mail client; before :meth:`mark_done`). Idempotent."""

    def fetch_done(self, since: datetime) -> list[RawMessage]:
        """Every message already marked done that arrived at or after ``since`` (aware),
        ordered by (arrived, key), as :meth:`fetch_new` gives them: what ``pbp lost``
        compares with the store after a backup was restored. Bounded by ``since``."""

    def wait(self, timeout: float) -> None:
        """Block up to ``timeout`` seconds or until new mail may have arrived (IMAP IDLE)."""

    def has_history(self) -> str | None:
        """Evidence that pbp already processed mail from this mailbox (a message marked
        done), as a short English description naming it, or None when there is none.

        ``pbp run`` refuses to deal games into a new, empty store when there is any.
        """

    def close(self) -> None:
        """Release the connection; safe to call twice."""


class TransientSendError(Exception):
    """Delivery failed but may succeed later (connection refused, 4xx): retry with backoff."""


class PermanentSendError(Exception):
    """Delivery will never succeed (5xx for every recipient): give up and tell the GM."""


class Transport(Protocol):
    """Where outgoing mail goes."""

    def sendmail(self, envelope_from: str, recipients: Sequence[str], raw: bytes) -> None:
        """Deliver ``raw`` (a whole RFC 5322 message, CRLF line ends, sent as it is) with
        the envelope ``MAIL FROM:<envelope_from>`` and one ``RCPT TO`` per recipient
        (RFC 5321 §3.3), e.g. ``("gm@example.test", ["rosa@example.test"], b"From: …")``,
        each address exactly as given; :func:`pbp.app.sending.envelope` gives them for an
        outbox row (``RCPT TO`` its recipient as recorded).

        :raises TransientSendError: try again later.
        :raises PermanentSendError: never try again.
        """

    def close(self) -> None:
        """Release the connection; safe to call twice."""


class Submission(NamedTuple):
    """One message as a :class:`Transport` sends it: ``Transport.sendmail(*submission)``."""

    envelope_from: str
    """The reverse-path of ``MAIL FROM`` (RFC 5321 §4.1.1.2), e.g. ``"gm@example.test"``."""
    recipients: list[str]
    """The forward-paths of ``RCPT TO`` (RFC 5321 §4.1.1.3), e.g. ``["rosa@example.test"]``."""
    raw: bytes
    """The message as it goes out: the stored bytes, without any ``Bcc`` field."""


#: What became of one message handed to :func:`send_each`: None when the server took
#: it, else the error :meth:`Transport.sendmail` raised or would have raised for it.
SendOutcome = TransientSendError | PermanentSendError | None


@runtime_checkable
class PipeliningTransport(Transport, Protocol):
    """A :class:`Transport` that sends many messages faster than one by one
    (:class:`pbp.mail.smtp.SmtpTransport`: SMTP PIPELINING, RFC 2920)."""

    def send_each(self, submissions: Iterable[Submission]) -> Generator[SendOutcome, None, None]:
        """Send ``submissions`` in order; yield each one's :data:`SendOutcome` once it is
        known, exactly what :meth:`~Transport.sendmail` would have raised for it (or
        None). The caller may stop at any outcome (close the generator): no message
        whose outcome was not yielded is then delivered. An error pulling the next
        submission from ``submissions`` is raised when its outcome is asked for."""
        ...


def send_each(
    transport: Transport, submissions: Iterable[Submission]
) -> Generator[SendOutcome, None, None]:
    """The outcome of each of ``submissions`` sent through ``transport``, in order, as
    :meth:`PipeliningTransport.send_each` gives them: by the transport's own
    ``send_each`` when it has one, else one :meth:`~Transport.sendmail` after the
    other."""
    if isinstance(transport, PipeliningTransport):
        return transport.send_each(submissions)
    return _one_by_one(transport, submissions)


def _one_by_one(
    transport: Transport, submissions: Iterable[Submission]
) -> Generator[SendOutcome, None, None]:
    for submitted in submissions:
        try:
            transport.sendmail(*submitted)
        except (TransientSendError, PermanentSendError) as error:
            yield error
        else:
            yield None


_HEADERS = BytesHeaderParser(policy=SMTP)
#: A Bcc or Resent-Bcc field with its continuation lines (RFC 5322 §3.6.3, §2.2.3).
_BCC = re.compile(rb"(?im)^(?:resent-)?bcc[ \t]*:.*\n(?:[ \t].*\n)*")
_ATEXT = rb"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rb"%s(?:\.%s)*" % (_ATEXT, _ATEXT)
#: One address in its plainest form (RFC 5322 §3.4): ``a@b.c``, ``<a@b.c>`` or
#: ``pbp <a@b.c>`` (a display name of atoms, one space apart), dot-atoms only.
_PLAIN_ADDRESS = re.compile(
    rb"(?:%s(?: %s)* )?<(%s@%s)>|(%s@%s)" % ((_ATEXT,) * 2 + (_DOT_ATOM,) * 4)
)
#: A field line (RFC 5322 §2.2) as the email package reads one: its name and value.
_FIELD_LINE = re.compile(rb"([\x21-\x39\x3b-\x7e]+):[ \t]*(.*)")
#: Fields that shape the envelope or the bytes beside From and To (lower case).
_ENVELOPE_FIELDS = (b"sender", b"cc", b"bcc", b"resent-")


def submission(raw: bytes) -> Submission:
    """The envelope and bytes with which ``smtplib.SMTP.send_message`` submits the
    message ``raw``, without parsing its body or flattening it again: MAIL FROM is the
    address of ``Sender``, else of ``From``; RCPT TO the addresses of ``To``, ``Bcc``
    and ``Cc`` (the ``Resent-`` fields instead when the message has one
    ``Resent-Date``, RFC 5322 §3.6.6); ``Bcc`` and ``Resent-Bcc`` fields are removed
    from the bytes (pbp's own mails carry none: then ``raw`` is returned as it is).

    A mail as pbp composes it (one ``From`` and one ``To``, each one plain address,
    none of the other fields) is read from its header lines alone; any other goes
    through the email package's header parser as ``send_message`` reads it.

    >>> raw = b"From: pbp <gm@example.test>\\r\\nTo: rosa@example.test\\r\\n\\r\\nhi\\r\\n"
    >>> submission(raw).envelope_from, submission(raw).recipients, submission(raw).raw == raw
    ('gm@example.test', ['rosa@example.test'], True)

    :raises ValueError: the message has more than one ``Resent-Date`` (as smtplib).
    """
    return _plain_submission(raw) or _parsed_submission(raw)


def _plain_submission(raw: bytes) -> Submission | None:
    """:func:`submission` of a message whose only envelope fields are one ``From`` and
    one ``To``, each a single address in its plainest form (:data:`_PLAIN_ADDRESS`, on
    one line): the address is then the same whether read from the line or from the
    header registry's rendering of it. None for any other message."""
    found: dict[bytes, bytes] = {}
    last: bytes | None = None
    for line in header_section(raw).splitlines():
        if not line:
            break
        if line[:1] in (b" ", b"\t"):
            if last is None or last in (b"from", b"to"):
                return None  # a folded From or To, or no field to continue
            continue
        field = _FIELD_LINE.fullmatch(line)
        if field is None:
            return None
        last = field[1].lower()
        if last.startswith(_ENVELOPE_FIELDS) or last in found:
            return None
        if last in (b"from", b"to"):
            found[last] = field[2]
    sender = _PLAIN_ADDRESS.fullmatch(found.get(b"from", b""))
    recipient = _PLAIN_ADDRESS.fullmatch(found.get(b"to", b""))
    if sender is None or recipient is None:
        return None
    return Submission(_address(sender), [_address(recipient)], raw)


def _address(plain: re.Match[bytes]) -> str:
    """The addr-spec of a :data:`_PLAIN_ADDRESS` match."""
    return (plain[1] or plain[2]).decode("ascii")


def _parsed_submission(raw: bytes) -> Submission:
    """:func:`submission` through the email package's header parser (``policy.SMTP``)."""
    head = _HEADERS.parsebytes(header_section(raw))
    resent = head.get_all("Resent-Date")
    if resent is None:
        prefix = ""
    elif len(resent) == 1:
        prefix = "Resent-"
    else:
        raise ValueError("message has more than one 'Resent-' header block")
    sender = head[f"{prefix}Sender"] if f"{prefix}Sender" in head else head[f"{prefix}From"]
    envelope_from = getaddresses([sender])[0][1]
    fields = [head[f"{prefix}{name}"] for name in ("To", "Bcc", "Cc")]
    recipients = [address for _, address in getaddresses([f for f in fields if f is not None])]
    if "Bcc" in head or "Resent-Bcc" in head:
        end = len(header_section(raw))
        raw = _BCC.sub(b"", raw[:end]) + raw[end:]
    return Submission(envelope_from, recipients, raw)


def message_id_of(raw: bytes) -> str:
    """The ``Message-ID`` field of the message ``raw`` (for a log line), ``"?"`` when
    it has none."""
    head: Message = _HEADERS.parsebytes(header_section(raw))
    return str(head.get("Message-ID", "?"))


def network_fault(error: BaseException) -> str | None:
    """What went wrong reaching a mail server, in one sentence (English, no traceback),
    or None when ``error`` is no network fault (a bug: its traceback is wanted).

    >>> network_fault(ConnectionRefusedError(111, "Connection refused"))
    'the server refused the connection (is the port right, and is the server up?)'
    """
    if isinstance(error, socket.gaierror):
        return f"its name cannot be resolved ({error.strerror}): check the host name"
    if isinstance(error, ConnectionRefusedError):
        return "the server refused the connection (is the port right, and is the server up?)"
    if isinstance(error, TimeoutError):
        return "the server did not answer in time"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"its TLS certificate cannot be trusted ({error.verify_message})"
    if isinstance(error, ssl.SSLError):
        reason = error.reason or str(error)
        return (
            f"TLS failed ({reason}): tls is ssl for ports 993 and 465, starttls for 143 and "
            "587, none only for a server on this machine"
        )
    if isinstance(error, EOFError | ConnectionError):
        return "the server closed the connection"
    if isinstance(error, OSError):
        return f"a network error ({error.strerror or error})"
    return None


#: Most bytes of a mail kept in the store when no player or GM sent it (a stranger,
#: automatic mail, a forged From): a flood of them must not fill the disk. The whole
#: mail stays in the mailbox (the Maildir's ``.done``, the IMAP folder); a retried
#: one is read as far as it was kept.
STRANGER_KEPT_BYTES = 64 * 1024


def stranger_raw(raw: bytes) -> bytes:
    """``raw`` as kept of a mail no player or GM sent: its first
    :data:`STRANGER_KEPT_BYTES` bytes."""
    return raw[:STRANGER_KEPT_BYTES]
