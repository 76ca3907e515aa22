"""A raw message parsed into its tree of MIME parts (RFC 2045, RFC 2046 §5) in time
linear in its size, whatever the nesting, and walked without recursion.

The parser is the standard library's (:mod:`email.feedparser` with
:data:`pbp.mail.read.headers.POLICY`), on a line buffer (:class:`_LineBuffer`) that tries a
line against the open multiparts' boundaries only when it starts with ``--``, and that
stops the parse past :data:`MAX_PART_DEPTH` nested parts (:class:`TooDeep`). A message
of over :data:`MAX_BOUNDARY_LINES` parts is read by the caller for its headers alone
(:func:`parse_headers`). Used by :mod:`pbp.mail.read.mime`.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from email import feedparser
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from typing import Any

from pbp.mail.base import header_section, read_head
from pbp.mail.read.headers import POLICY

#: Most lines starting with ``--`` (MIME boundaries, RFC 2046 §5.1.1) in a message whose
#: body is read; the standard parser spends ~0.3 ms per part, so a message of many
#: tiny parts is refused (``unreadable``) with its headers read alone.
MAX_BOUNDARY_LINES = 1000

#: Deepest nesting of MIME parts (multiparts and attached ``message/rfc822`` mails,
#: RFC 2046 §5) in a message whose body is read; a deeper one is ``unreadable`` with
#: code ``"too_deep"``, its headers read alone. Honest mail nests a few levels (a
#: forward of a forward); the standard parser and ``Message.walk`` recurse once per
#: level and fail near a thousand.
MAX_PART_DEPTH = 50


class TooDeep(Exception):
    """Multiparts nested over :data:`MAX_PART_DEPTH` deep: the parse stops."""


#: The standard parser's line buffer and its "no more data yet" mark (not in typeshed:
#: the buffer's class is left untyped, so that :class:`_LineBuffer` may extend it).
_BufferedSubFile: Any = vars(feedparser)["BufferedSubFile"]
_NEED_MORE_DATA: object = vars(feedparser)["NeedMoreData"]


class _LineBuffer(_BufferedSubFile):  # type: ignore[misc]
    """The standard parser's line buffer, that tries a line against the boundaries of
    the open multiparts only when it starts with ``--``, as every boundary line does
    (RFC 2046 §5.1.1). The standard one tries every line against every open boundary:
    time proportional to the lines times the nesting (49 nested multiparts and 1 MB of
    blank lines: 2.5 s)."""

    def push_eof_matcher(self, pred: Callable[[str], object]) -> None:
        """Enter a multipart (``pred`` matches its boundary lines); past
        :data:`MAX_PART_DEPTH` open ones the parse stops (:class:`TooDeep`)."""
        if len(self._eofstack) >= MAX_PART_DEPTH:
            raise TooDeep
        self._eofstack.append(pred)

    def readline(self) -> str | object:
        if not self._lines:
            return "" if self._closed else _NEED_MORE_DATA
        line: str = self._lines.popleft()
        if line.startswith("--"):
            for ateof in reversed(self._eofstack):
                if ateof(line):  # a boundary: the end of this part, read again above
                    self._lines.appendleft(line)
                    return ""
        return line


def parse(raw: bytes) -> EmailMessage:
    """``raw`` parsed as :func:`email.message_from_bytes` does (the bytes read as ASCII
    with surrogate escapes), on a :class:`_LineBuffer`.

    :raises TooDeep: parts nested over :data:`MAX_PART_DEPTH` deep.
    """
    parser = feedparser.FeedParser(EmailMessage, policy=POLICY)
    parser._input = _LineBuffer()  # type: ignore[attr-defined]  # before any data
    parser.feed(raw.decode("ascii", "surrogateescape"))
    return parser.close()


def parse_headers(raw: bytes) -> EmailMessage:
    """The header section of ``raw`` alone, parsed: linear whatever the body holds, and
    of a header section over the bounds an inbox reads (:func:`pbp.mail.base.read_head`:
    a mail kept before they were set) only what it would read of it."""
    head = read_head(raw, whole=True)
    assert head is not None  # whole
    return BytesHeaderParser(policy=POLICY).parsebytes(
        head.raw if head.long is not None else header_section(raw)
    )


def walk(msg: Message) -> Iterator[Message]:
    """``msg`` and its parts, depth first as :meth:`Message.walk`, but without recursion
    and at most :data:`MAX_PART_DEPTH` levels down."""
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        yield part
        children = part.get_payload() if part.is_multipart() else None
        if isinstance(children, list) and depth < MAX_PART_DEPTH:
            stack.extend(
                (child, depth + 1) for child in reversed(children) if isinstance(child, Message)
            )


def too_deep(msg: Message) -> bool:
    """True when ``msg`` nests parts over :data:`MAX_PART_DEPTH` levels deep."""
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, depth = stack.pop()
        children = part.get_payload() if part.is_multipart() else None
        if isinstance(children, list):
            if children and depth >= MAX_PART_DEPTH:
                return True
            stack.extend((child, depth + 1) for child in children if isinstance(child, Message))
    return False
