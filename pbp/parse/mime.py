"""One raw mail message → :class:`Letter`: who sent it, to which address, and the new
text of its body (DESIGN.md, "parse"; "Who is who in mail").

MIME and RFC 2047 decoding is the standard library's (:mod:`email` with
``policy.default``); this module adds what real players' mail needs on top:

- raw 8-bit bytes in headers (clients that ignore RFC 2047) read as UTF-8, else
  windows-1251 / KOI8-R, never a crash;
- the body's charset guessed when the declared one is missing, unknown or wrong
  (:func:`pbp.parse.charset.decode_bytes`);
- text/plain preferred; text/html when the text/plain part is empty or only a stub
  (it says "view this in HTML", or is a third as long as the HTML's text); every
  inline text part of a multipart/mixed read in order (text around an inline
  picture);
- quoted replies and signatures removed (:func:`pbp.parse.body.split_reply`);
- MIME parts nested over :data:`MAX_PART_DEPTH` deep not read past the headers
  (``unreadable_code="too_deep"``), and a line tried against the open multiparts'
  boundaries only when it starts with ``--`` (:class:`_LineBuffer`), so that the
  standard parser takes time linear in the size whatever the nesting;
- a byte-order mark or blank lines before the first header line skipped;
- RFC 3834 automatic mail recognised, so that it is never answered;
- addresses read by a small linear RFC 5322 §3.4 reader (:func:`mailboxes`) that takes
  the angle-addr when there is one: ``netashka@example.test <evil@evil.test>`` is
  ``evil@evil.test``, as mail clients show it and DMARC checks it;
- every header value is cut to :data:`HEADER_LIMIT` characters before it is parsed
  (the standard library's header parser is super-linear on long values), and a
  message of over :data:`MAX_BOUNDARY_LINES` MIME parts is not parsed past its
  headers; reading a message takes time linear in its size.

Pure: no I/O, no clock. :func:`read_letter` never raises.
"""

from __future__ import annotations

import email
import email.utils
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email import feedparser, policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from typing import Any, Literal

from pbp.mail.base import header_section
from pbp.parse.body import Reply, split_reply, unflow
from pbp.parse.charset import decode_bytes
from pbp.parse.markup import html_to_text
from pbp.parse.replyheader import FORWARD_SEPARATOR


@dataclass(frozen=True)
class Letter:
    """What the daemon needs of one incoming message.

    - ``message_id``: the Message-ID as in the header, angle brackets kept
      (``"<abc@example.test>"``), or None.
    - ``from_address``: the From addr-spec lower-cased (``"netashka@example.test"``), or
      None when there is no usable From; ``from_name``: its display name (``""`` if none).
    - ``recipients``: lower-cased addr-specs from ``Delivered-To``, ``X-Original-To``,
      ``To``, ``Cc``, in that order, each once.
    - ``subject``: decoded (RFC 2047), unfolded, stripped.
    - ``text``: the new text of the body (quotes and signature removed), lines joined
      with ``"\\n"``, no BOM; ``""`` when there is none.
    - ``in_reply_to``: the first message id of In-Reply-To; ``references``: every id of
      References, in order.
    - ``automatic``: True for mail that must never be answered (RFC 3834 §2,
      :func:`is_automatic`).
    - ``date``: the Date header, timezone-aware in the sender's offset (UTC when the
      header says ``-0000`` or has none), or None when missing or unparsable. Not the
      arrival time (rule D8 uses the mailbox's arrival time, not this).
    - ``unreadable``: None, or a short English reason why the body could not be read
      (the GM is told and the sender answered); the header fields are still filled as
      far as they could be read.
    - ``unreadable_code``: with ``unreadable``, what kind of trouble it is, for the
      player's answer (``templates/*/common/mail/unreadable.j2``): ``"empty"``,
      ``"not_mail"``, ``"too_many_parts"``, ``"encrypted"`` (S/MIME or PGP),
      ``"winmail"`` (Outlook rich text, ``winmail.dat``), ``"attachments_only"``,
      ``"no_text"``, ``"too_deep"`` (parts nested over :data:`MAX_PART_DEPTH` levels) or
      ``"body_error"``; ``""`` when the body was read.
    - ``forwarded``: True when the message carries another mail — an attached
      ``message/rfc822`` part, or a forwarded mail quoted inline
      (:data:`pbp.parse.replyheader.FORWARD_SEPARATOR`). Its text is never in ``text``: a
      move the player did not write is never executed.
    - ``from_problem``: None, or why the From names no single sender (its mail is never
      applied nor answered): ``"several From fields"``, ``"several addresses"`` (RFC
      5322 §3.6.2 allows a mailbox-list only with a Sender; pbp takes one author),
      ``"source route"`` (``<@evil.test:player@example.test>``, the obsolete route
      of RFC 5322 §4.4), ``"group"`` (``Players: a@example.test;``) or ``"no readable
      address"`` (``<a@example.test> <b@example.test>``, a NUL inside, an address
      written as an encoded-word).
    - ``doubtful``: lines of the body that may be quoted and are not in ``text``
      (:func:`pbp.parse.body.split_reply`): never executed; the answer lists those
      that hold a command as "looks quoted — not done". ``whole``: ``text`` with them
      in their places, and ``doubtful_at``: their line numbers in it (for the echo
      cutters, :meth:`pbp.parse.body.Reply.own`); ``under_header``: where in it the
      text under a header block at the top begins (-1: none).
    - ``authentication_results``: the ``Authentication-Results`` fields (RFC 8601)
      as runs of adjacent fields, topmost run first, each field's value unfolded
      (``(("mx.example.test; dmarc=pass header.from=example.test",),)``); read by
      :mod:`pbp.authcheck`.
    """

    message_id: str | None = None
    from_address: str | None = None
    from_name: str = ""
    recipients: tuple[str, ...] = ()
    subject: str = ""
    text: str = ""
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    automatic: bool = False
    date: datetime | None = None
    unreadable: str | None = None
    forwarded: bool = False
    unreadable_code: str = ""
    from_problem: str | None = None
    authentication_results: tuple[tuple[str, ...], ...] = ()
    doubtful: tuple[str, ...] = ()
    whole: str = ""
    doubtful_at: tuple[int, ...] = ()
    under_header: int = -1

    @property
    def reply(self) -> Reply:
        """The body as :func:`pbp.parse.body.split_reply` read it."""
        whole = self.whole or self.text
        return Reply(self.text, self.doubtful, whole, self.doubtful_at, self.under_header)


#: Longest header value (characters, after unfolding) that is parsed; the rest is
#: dropped (cut back to a space when there is one in the last quarter). RFC 5322 §2.1.1
#: limits a line to 998 characters; a folded header may be longer, never this long in
#: honest mail.
HEADER_LIMIT = 4096
#: The same for ``Content-*`` headers, which the standard library re-parses at each use;
#: honest ones (type, charset, boundary, format) are far shorter.
MIME_HEADER_LIMIT = 1024

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

#: Most lines of a text part read (after line breaks are made ``\n``); the rest is not
#: looked at. The quote and signature reader spends microseconds on each line, and the
#: game parsers read the first :data:`~pbp.parse.commands.MAX_LINES` lines of what is
#: left: no move is written below twenty thousand lines of one's own mail.
MAX_TEXT_LINES = 20_000

#: What some tools write before the first header line: byte-order marks (UTF-8, and
#: the UTF-8 encoding of a decoded UTF-16 one) and blank lines; the parser would take
#: the whole message for a body.
_LEADING_JUNK = re.compile(rb"\A(?:\xef\xbb\xbf|[ \t]*\r?\n)+")
#: Local parts of the addresses bounces come from (RFC 5321 §4.5.5; RFC 2142).
_DAEMONS = frozenset({"mailer-daemon", "postmaster"})
#: Headers that only automatic mail carries (RFC 2369 ``List-Id``; vacation programs).
_AUTO_HEADERS = ("list-id", "x-autoreply", "x-autorespond", "x-autogenerated", "x-autoresponder")
_REPORT_PARTS = frozenset({"message/delivery-status", "message/disposition-notification"})
#: Subjects of vacation replies (Outlook/Exchange, Gmail, Yandex, Mail.ru, Thunderbird).
_VACATION_SUBJECT = re.compile(
    r"^\s*(?:automatic\s+reply|auto(?:matic)?[\s-]*(?:reply|response)|autoreply|auto\s*:|"
    r"out\s+of\s+(?:the\s+)?office|автоответ|автоматический\s+ответ|"
    r"abwesenheitsnotiz|réponse\s+automatique)",
    re.IGNORECASE,
)
_TAG = re.compile(r"<[^<>]{0,2000}>")
_MSG_ID = re.compile(r"<[^<>\s]+>")
#: One plausible addr-spec: no white space, controls (NUL…), specials or second ``@``.
_ADDR_SPEC = re.compile(r"[^\s\x00-\x1f\x7f<>()\[\],;:\"'@]+@[^\s\x00-\x1f\x7f<>()\[\],;:\"'@]+")
_LINE_BREAKS = re.compile(r"[\r\n]")
_SURROGATE = re.compile("[\udc80-\udcff]")
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_SUBJECT_TAG = re.compile(r"\[pbp-([A-Za-z0-9]+)\]", re.IGNORECASE)


def cap(value: str, limit: int = HEADER_LIMIT) -> str:
    """``value`` cut to at most ``limit`` characters, at the last white space of the last
    quarter when there is one (so that an RFC 2047 encoded-word is not cut in two).

    >>> cap("=?utf-8?B?0J3QvtC2?= =?utf-8?B?0J3QvtC2?=", 25)
    '=?utf-8?B?0J3QvtC2?='
    """
    if len(value) <= limit:
        return value
    cut = value[:limit]
    space = max(cut.rfind(" "), cut.rfind("\t"))
    return cut[:space] if space >= limit * 3 // 4 else cut


class _CappedHeaders(HeaderRegistry):
    """The standard header factory on values cut by :func:`cap` (for every MIME part)."""

    def __call__(self, name: str, value: str) -> BaseHeader:
        limit = MIME_HEADER_LIMIT if name.lower().startswith("content-") else HEADER_LIMIT
        return super().__call__(name, cap(value, limit))


_POLICY = policy.default.clone(header_factory=_CappedHeaders())


class _TooDeep(Exception):
    """Multiparts nested over :data:`MAX_PART_DEPTH` deep: the parse stops."""


#: The standard parser's line buffer and its "no more data yet" mark (not in typeshed).
_BufferedSubFile: Any = vars(feedparser)["BufferedSubFile"]
_NEED_MORE_DATA: object = vars(feedparser)["NeedMoreData"]


class _LineBuffer(_BufferedSubFile):  # type: ignore[misc]
    """The standard parser's line buffer, that tries a line against the boundaries of
    the open multiparts only when it starts with ``--``, as every boundary line does
    (RFC 2046 §5.1.1). The standard one tries every line against every open boundary:
    time proportional to the lines times the nesting (49 nested multiparts and 1 MB of
    blank lines: 2.5 s)."""

    def push_eof_matcher(self, pred: Any) -> None:
        """Enter a multipart (``pred`` matches its boundary lines); past
        :data:`MAX_PART_DEPTH` open ones the parse stops (:class:`_TooDeep`)."""
        if len(self._eofstack) >= MAX_PART_DEPTH:
            raise _TooDeep
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


def _parse(raw: bytes) -> EmailMessage:
    """``raw`` parsed as :func:`email.message_from_bytes` does (the bytes read as ASCII
    with surrogate escapes), on a :class:`_LineBuffer`."""
    parser = feedparser.FeedParser(EmailMessage, policy=_POLICY)
    parser._input = _LineBuffer()  # type: ignore[attr-defined]  # before any data
    parser.feed(raw.decode("ascii", "surrogateescape"))
    return parser.close()


def read_letter(raw: bytes, *, body: bool = True) -> Letter:
    """Parse ``raw`` (a whole RFC 5322 message) into a :class:`Letter`. Never raises.

    ``body=False`` reads the header section alone (``text`` stays ``""``,
    ``unreadable`` None, ``forwarded`` False): who sent a mail and to which address is
    known before its body is read, so a stranger's body never reaches the body readers
    (DESIGN.md, "Who before what"); ``automatic`` then sees only the top-level
    Content-Type, not the parts.

    Example::

        letter = read_letter(b"From: Neta <Netashka@Example.test>\\r\\nTo: gm+k3x9@example.test"
                             b"\\r\\nSubject: move\\r\\n\\r\\nREFUTE 7 knife\\r\\n")
        letter.from_address   # 'netashka@example.test'
        letter.recipients     # ('gm+k3x9@example.test',)
        letter.text           # 'REFUTE 7 knife'
    """
    raw = _LEADING_JUNK.sub(b"", raw, count=1)
    if not raw.strip():
        return Letter(unreadable="empty message", unreadable_code="empty")
    too_many_parts = body and raw.count(b"\n--") > MAX_BOUNDARY_LINES
    too_deep = False
    try:
        if too_many_parts or not body:
            # The header section alone: the parser would walk every line of the body.
            msg = BytesHeaderParser(policy=_POLICY).parsebytes(header_section(raw))
        else:
            try:
                msg = _parse(raw)
            except (RecursionError, _TooDeep):  # it recurses once per nested part
                too_deep = True
                msg = BytesHeaderParser(policy=_POLICY).parsebytes(header_section(raw))
            too_deep = too_deep or _too_deep(msg)
    except Exception as exc:  # the parser is lenient; this is a safety net
        return Letter(
            unreadable=f"not a mail message ({type(exc).__name__})", unreadable_code="not_mail"
        )
    from_address, from_name, from_problem = _from(msg)
    in_reply_to = _ids(_first(msg, "in-reply-to"))
    forwarded = False
    code = ""
    reply = Reply("", (), "", ())
    unreadable: str | None = None
    try:
        if too_many_parts:
            unreadable = f"over {MAX_BOUNDARY_LINES} MIME boundary lines"
            code = "too_many_parts"
        elif too_deep:
            unreadable = f"MIME parts nested over {MAX_PART_DEPTH} deep"
            code = "too_deep"
        elif body:
            reply, unreadable, forwarded = _body(msg)
            code = _no_text_code(msg) if unreadable else ""
    except Exception as exc:  # never lose a message over a parser bug: tell the GM
        reply = Reply("", (), "", ())
        unreadable = f"body could not be read ({type(exc).__name__}: {exc})"
        code = "body_error"
    return Letter(
        message_id=_message_id(_first(msg, "message-id")),
        from_address=from_address,
        from_name=from_name,
        recipients=_recipients(msg),
        subject=_decoded("subject", _first(msg, "subject")).strip(),
        text=reply.text,
        in_reply_to=in_reply_to[0] if in_reply_to else None,
        references=tuple(_ids(_first(msg, "references"))),
        automatic=is_automatic(msg),
        date=_date(_first(msg, "date")),
        unreadable=unreadable,
        forwarded=forwarded,
        unreadable_code=code,
        from_problem=from_problem,
        authentication_results=_auth_results(msg),
        doubtful=reply.doubtful,
        whole=reply.whole if reply.whole != reply.text else "",
        doubtful_at=reply.doubtful_at,
        under_header=reply.under_header,
    )


def read_headers(raw: bytes) -> Message:
    """The header section of ``raw`` alone, each value cut to :data:`HEADER_LIMIT`
    characters (as :func:`read_letter` reads it): linear whatever the mail holds."""
    raw = _LEADING_JUNK.sub(b"", raw, count=1)
    return BytesHeaderParser(policy=_POLICY).parsebytes(header_section(raw))


def shown_text(raw: bytes) -> str:
    """The whole decoded text of ``raw`` for a person to read (``pbp mailbox``): its
    text/plain part, else its HTML one made text, quotes and signature kept, read with
    the same bounds as :func:`read_letter` (linear in the size, parts at most
    :data:`MAX_PART_DEPTH` deep, the first :data:`MAX_TEXT_LINES` lines). Never raises:
    what cannot be shown is said in brackets (``"[parts nested too deep to show]"``).
    """
    raw = _LEADING_JUNK.sub(b"", raw, count=1)
    if raw.count(b"\n--") > MAX_BOUNDARY_LINES:
        return f"[over {MAX_BOUNDARY_LINES} MIME parts: not shown]"
    try:
        msg = _parse(raw)
        if _too_deep(msg):
            return "[parts nested too deep to show]"
        part = _best_part(msg, "plain") or _best_part(msg, "html")
        if part is None:
            return f"[no text part: the mail is {msg.get_content_type()}]"
        text = _part_text(part)
        return html_to_text(text) if part.get_content_type() == "text/html" else text
    except (RecursionError, _TooDeep):
        return "[parts nested too deep to show]"
    except Exception as error:  # the parser is lenient; this is a safety net
        return f"[the text cannot be shown: {type(error).__name__}]"


def find_token(letter: Letter, address: str, mode: Literal["plus", "subject_tag"]) -> str | None:
    """The sender's personal token, lower-cased, or None (DESIGN.md, "Who is who in mail").

    ``mode="plus"``: the TOKEN of the first recipient ``local+TOKEN@domain`` whose
    ``local@domain`` equals ``address`` (case-insensitive); recipients are searched in
    the :attr:`Letter.recipients` order (envelope first). ``mode="subject_tag"``: TOKEN
    from ``[pbp-TOKEN]`` in the Subject. Tokens are ``[A-Za-z0-9]+`` and compared
    case-insensitively (mail systems may change the case of an address).

    >>> find_token(Letter(recipients=("gm+k3x9@example.test",)), "GM@example.test", "plus")
    'k3x9'

    :raises ValueError: ``mode`` is neither ``"plus"`` nor ``"subject_tag"``.
    """
    tokens = find_tokens(letter, address, mode)
    return tokens[0] if tokens else None


def find_tokens(letter: Letter, address: str, mode: Literal["plus", "subject_tag"]) -> list[str]:
    """Every personal token of the letter, lower-cased, each once, in the order
    :func:`find_token` searches them (a mail may go to two personal addresses: the
    caller picks the sender's own).

    :raises ValueError: ``mode`` is neither ``"plus"`` nor ``"subject_tag"``.
    """
    found: dict[str, None] = {}
    if mode == "plus":
        local, _, domain = address.strip().lower().rpartition("@")
        for recipient in letter.recipients:
            r_local, _, r_domain = recipient.rpartition("@")
            base, plus, token = r_local.partition("+")
            if plus and base == local and r_domain == domain and _TOKEN.fullmatch(token):
                found.setdefault(token.lower(), None)
        return list(found)
    if mode == "subject_tag":
        for match in _SUBJECT_TAG.finditer(letter.subject):
            found.setdefault(match.group(1).lower(), None)
        return list(found)
    raise ValueError(f"unknown token mode {mode!r}: use 'plus' or 'subject_tag'")


def is_automatic(msg: Message) -> bool:
    """True for mail that must not be answered (RFC 3834 §2 and §5; RFC 2369; RFC 3464;
    RFC 8098):

    ``Auto-Submitted`` other than ``no``; ``Precedence: bulk|junk|list|auto_reply``; a
    ``List-Id``; a null return path ``Return-Path: <>``; ``X-Autoreply`` /
    ``X-Autorespond`` / ``X-Autogenerated`` / ``X-Autoresponder`` (vacation programs);
    a sender ``MAILER-DAEMON@…`` or ``postmaster@…`` (bounces without a report); a
    Subject of a vacation reply (``Automatic reply:``, ``Auto:``, ``Out of Office``,
    ``Автоответ``, ``Автоматический ответ``); a ``multipart/report`` (delivery or
    disposition report) or a ``message/delivery-status`` /
    ``message/disposition-notification`` part.
    """
    try:
        sender = mailboxes(_first(msg, "from") or "")
        if any(
            addr is not None and addr.rpartition("@")[0].lower() in _DAEMONS
            for _, addr in sender[:1]
        ):
            return True
        if _VACATION_SUBJECT.match(_decoded("subject", _first(msg, "subject"))):
            return True
        auto = _first(msg, "auto-submitted")
        if auto is not None and auto.split(";")[0].split("(")[0].strip().lower() not in ("", "no"):
            return True
        precedence = (_first(msg, "precedence") or "").strip().lower()
        if precedence in ("bulk", "junk", "list", "auto_reply"):
            return True
        if any(_first(msg, name) is not None for name in _AUTO_HEADERS):
            return True
        if any(re.fullmatch(r"\s*<\s*>\s*", v) for v in _values(msg, "return-path")):
            return True
        if msg.get_content_type() == "multipart/report":
            return True
        return any(part.get_content_type() in _REPORT_PARTS for part in _parts(msg))
    except Exception:  # a header the standard library cannot read: not automatic
        return False


# --- headers ---


def _unsurrogate(value: str) -> str:
    """Raw 8-bit header bytes (kept by the parser as surrogate escapes) → text."""
    if not _SURROGATE.search(value):
        return value
    try:
        data = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return decode_bytes(data, None)[0]


def _values(msg: Message, name: str) -> list[str]:
    """Every raw value of header ``name``, unfolded, 8-bit bytes decoded."""
    return [
        _unsurrogate(cap(_LINE_BREAKS.sub("", str(value))))
        for key, value in msg.raw_items()
        if key.lower() == name
    ]


def _first(msg: Message, name: str) -> str | None:
    values = _values(msg, name)
    return values[0] if values else None


def _decoded(name: str, value: str | None) -> str:
    """``value`` with RFC 2047 encoded-words decoded (stdlib); the raw value if that fails."""
    if value is None:
        return ""
    try:
        text = str(_POLICY.header_factory(name, value))
    except Exception:
        text = value
    return _unsurrogate(text)


def _addr_spec(text: str) -> str | None:
    """``text`` stripped when it is one plausible addr-spec (``local@domain``), else None.
    A domain written as an absolute DNS name (``example.test.``) loses its final dot."""
    text = text.strip()
    if ":" in text and text.startswith("@"):  # obsolete source route (RFC 5322 §4.4)
        text = text.rsplit(":", 1)[1].strip()
    text = text.rstrip(".") if text.endswith(".") and "@" in text else text  # FQDN dot
    return text if _ADDR_SPEC.fullmatch(text) else None


def _mailbox(outside: str, angles: list[str], comments: list[str]) -> tuple[str, str | None]:
    display = " ".join(outside.split())
    comment = " ".join(" ".join(comments).split())
    if angles:
        addr = _addr_spec(angles[0]) if len(angles) == 1 else None
        name = display or comment
    elif (addr := _addr_spec(display)) is not None:
        name = comment
    else:  # "Name addr@domain" without brackets: one word with "@" is the address
        words = display.split()
        specs = [w for w in words if "@" in w]
        addr = _addr_spec(specs[0]) if len(specs) == 1 else None
        name = " ".join(w for w in words if "@" not in w) if addr else display
    return _decoded("subject", name).strip() if name else "", addr


def mailboxes(value: str) -> list[tuple[str, str | None]]:
    """``[(display name, addr-spec or None)]``, one per mailbox of an address list
    (RFC 5322 §3.4), in order; never raises; linear in ``len(value)``.

    The angle-addr ``<…>`` is the address whenever there is one, whatever the display
    name looks like; a mailbox with two angle-addrs has none (None). Without brackets
    the whole mailbox, or its only word with ``@``, is the address. Quoted strings and
    comments are honoured, group names (``Players: a@x, b@y;``) dropped, display names
    RFC 2047-decoded. Addresses are returned as written (not lower-cased).

    >>> mailboxes('netashka@example.test <evil@evil.test>, "Дуг, игрок" <dug@example.test>')
    [('netashka@example.test', 'evil@evil.test'), ('Дуг, игрок', 'dug@example.test')]
    """
    found: list[tuple[str, str | None]] = []
    outside: list[str] = []
    angles: list[str] = []
    comments: list[str] = []

    def finish() -> None:
        text = "".join(outside)
        if text.strip() or angles:
            found.append(_mailbox(text, angles, comments))
        outside.clear()
        angles.clear()
        comments.clear()

    i, n = 0, len(value)
    while i < n:
        ch = value[i]
        if ch == '"':  # quoted-string (RFC 5322 §3.2.4), kept without its quotes
            j = i + 1
            while j < n and value[j] != '"':
                if value[j] == "\\" and j + 1 < n:
                    j += 1
                outside.append(value[j])
                j += 1
            i = j + 1
        elif ch == "(":  # comment (RFC 5322 §3.2.2), may nest
            depth, j = 1, i + 1
            start = j
            while j < n and depth:
                if value[j] == "\\":
                    j += 1
                elif value[j] == "(":
                    depth += 1
                elif value[j] == ")":
                    depth -= 1
                j += 1
            comments.append(value[start : j - 1 if depth == 0 else j])
            i = j
        elif ch == "<":
            j = value.find(">", i + 1)
            j = n if j < 0 else j
            angles.append(value[i + 1 : j])
            i = j + 1
        elif ch in ",;":
            finish()
            i += 1
        elif ch == ":" and not angles:  # a group's display name ends here
            outside.clear()
            comments.clear()
            i += 1
        else:
            outside.append(ch)
            i += 1
    finish()
    return found


#: An obsolete source route (RFC 5322 §4.4 obs-route) before an addr-spec: ``<@a.test:``,
#: ``<@a.test,@b.test:``, or a bare ``@a.test:`` opening a mailbox.
_SOURCE_ROUTE = re.compile(r"(?:<|^|,)\s*@[^<>@:,;\s]*\s*:")
#: A group's display name (RFC 5322 §3.4): text then ``:`` outside angle brackets.
_GROUP = re.compile(r"^[^<>@\"]*:")


def _from(msg: Message) -> tuple[str | None, str, str | None]:
    """``(address, display name, problem)`` of the From field: the first mailbox with an
    address (lower-cased), and why the field names no single sender (see
    :attr:`Letter.from_problem`), else None."""
    values = _values(msg, "from")
    if not values:
        return None, "", None
    value = values[0]
    found = mailboxes(value)
    problem = None
    if len(values) > 1:
        problem = "several From fields"
    elif len(found) > 1:
        problem = "several addresses"
    elif _SOURCE_ROUTE.search(_QUOTED.sub('""', value)):
        problem = "source route"
    elif _GROUP.match(_QUOTED.sub('""', value)):
        problem = "group"
    for name, addr in found:
        if addr is not None:
            return addr.lower(), name, problem
    if problem is None and value.strip():
        problem = "no readable address"
    return None, "", problem


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def _auth_results(msg: Message) -> tuple[tuple[str, ...], ...]:
    """The ``Authentication-Results`` values in runs of adjacent fields, topmost first."""
    runs: list[list[str]] = []
    adjacent = False
    for key, value in msg.raw_items():
        if key.lower() != "authentication-results":
            adjacent = False
            continue
        text = _unsurrogate(cap(_LINE_BREAKS.sub("", str(value))))
        if adjacent:
            runs[-1].append(text)
        else:
            runs.append([text])
        adjacent = True
    return tuple(tuple(run) for run in runs)


def _recipients(msg: Message) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for name in ("delivered-to", "x-original-to", "to", "cc"):
        for value in _values(msg, name):
            for _, addr in mailboxes(value):
                if addr is not None:
                    seen.setdefault(addr.lower(), None)
    return tuple(seen)


def _ids(value: str | None) -> list[str]:
    return _MSG_ID.findall(value) if value else []


def _message_id(value: str | None) -> str | None:
    if value is None:
        return None
    ids = _ids(value)
    if ids:
        return ids[0]
    return value.strip() or None


def _date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


# --- body ---


def _parts(msg: Message) -> Iterator[Message]:
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


def _too_deep(msg: Message) -> bool:
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


def _best_part(msg: EmailMessage, subtype: str) -> Message | None:
    part = msg.get_body(preferencelist=(subtype,))
    if part is None and not msg.is_multipart() and msg.get_content_type() == f"text/{subtype}":
        part = msg  # a single text part marked as an attachment
    return part


#: A body that really is base64 (RFC 2045 §6.8): the alphabet, padding and white space.
_BASE64_BODY = re.compile(r"[A-Za-z0-9+/=\s]*")
#: Control bytes that no text holds (all but TAB, LF, FF, CR).
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _payload(part: Message) -> bytes:
    """The decoded body of ``part``; a body labelled base64 that is not (a client's or
    a relay's wrong ``Content-Transfer-Encoding``: letters outside the alphabet, or
    decoding to control bytes) is taken as written."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        payload = b""
    if str(part.get("content-transfer-encoding", "")).strip().lower() == "base64":
        written = part.get_payload(decode=False)
        if (
            isinstance(written, str)
            and written.strip()
            and (not _BASE64_BODY.fullmatch(written) or _CONTROL_BYTES.search(payload))
        ):
            return written.encode("utf-8", "surrogateescape")
    return payload


def _part_text(part: Message) -> str:
    payload = _payload(part)
    text, _codec = decode_bytes(payload, part.get_content_charset())
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(text.split("\n", MAX_TEXT_LINES)[:MAX_TEXT_LINES])
    if part.get_content_type() == "text/plain" and part.get_param("format") == "flowed":
        delsp = str(part.get_param("delsp") or "").lower() == "yes"
        text = unflow(text, delsp)
    return text


#: What a text/plain part says when it only stands in for the HTML one (Outlook,
#: newsletters, some phone clients): "this message needs an HTML reader", "view it in
#: a browser", «откройте письмо в программе, которая показывает HTML».
_STUB = re.compile(
    r"\bhtml\b|\bhtm\b|\bbrowser\b|\bбраузер|веб-верси|web version",
    re.IGNORECASE,
)
#: A text/plain part this short (characters of new text), beside an HTML part whose
#: whole text is :data:`_STUB_RATIO` times longer than the plain part's, or saying
#: :data:`_STUB`, is a stub.
_STUB_MAX = 300
_STUB_RATIO = 3


def _inline_texts(msg: Message) -> list[Message] | None:
    """The text parts of a multipart/mixed message read one after the other (Apple
    Mail writes text, an inline picture, more text): each inline text/plain child in
    order, and the best text of each multipart/alternative child. None when there are
    fewer than two (the usual :meth:`~email.message.EmailMessage.get_body` choice)."""
    if msg.get_content_type() != "multipart/mixed":
        return None
    children = msg.get_payload()
    if not isinstance(children, list):
        return None
    texts: list[Message] = []
    for child in children:
        if not isinstance(child, Message):
            continue
        if child.get_content_disposition() == "attachment":
            continue
        if child.get_content_type() == "text/plain" and child.get_filename() is None:
            texts.append(child)  # a named text part is a file (Apple Mail inlines .txt)
        elif child.get_content_type() == "multipart/alternative" and isinstance(
            child, EmailMessage
        ):
            best = child.get_body(preferencelist=("plain", "html"))
            if best is not None:
                texts.append(best)
    return texts if len(texts) >= 2 else None


def _read_part(part: Message) -> tuple[str, str]:
    """``(full text, text to look for quotes in)`` of one text part: HTML made text."""
    source = _part_text(part)
    if part.get_content_type() == "text/html":
        return html_to_text(source), _TAG.sub("\n", source)
    return source, source


def _body(msg: EmailMessage) -> tuple[Reply, str | None, bool]:
    """``(the body read, unreadable reason or None, forwarded)``: the body parts of the
    message itself (never those inside an attached ``message/rfc822``)."""
    attached = any(part.get_content_type() == "message/rfc822" for part in _parts(msg))
    several = _inline_texts(msg)
    if several is not None:
        read = [_read_part(part) for part in several]
        reply = split_reply("\n".join(text for text, _ in read))
        quoting = "\n".join(q for _, q in read)
        return reply, None, attached or _forwards(quoting, reply.text)
    plain = _best_part(msg, "plain")
    html = _best_part(msg, "html")
    if plain is None and html is None:
        if attached:
            return Reply("", (), "", ()), None, True
        reason = f"no text/plain or text/html part (the message is {msg.get_content_type()})"
        return Reply("", (), "", ()), reason, False
    if plain is not None:
        full = _part_text(plain)
        reply = split_reply(full)
        if html is None or len(reply.text) > _STUB_MAX:
            return reply, None, attached or _forwards(full, reply.text)
    assert html is not None
    source = _part_text(html)
    html_full = html_to_text(source)
    html_reply = split_reply(html_full)
    # A stub says so, or is far shorter than the HTML part taken whole (quotes and all:
    # the new texts are not compared, since a quote the HTML reading missed would make
    # the HTML's look longer).
    if plain is not None and reply.text:
        stub = _STUB.search(reply.text) or _STUB_RATIO * len(full.strip()) < len(html_full.strip())
        if not (html_reply.text and stub):
            # The plain part is the mail; the HTML one only says the same in markup.
            return reply, None, attached or _forwards(full, reply.text)
    # The forward header sits inside the quote block that html_to_text drops (Gmail).
    return html_reply, None, attached or _forwards(_TAG.sub("\n", source), html_reply.text)


_ENCRYPTED = frozenset(
    {
        "multipart/encrypted",  # PGP/MIME (RFC 3156)
        "application/pkcs7-mime",  # S/MIME (RFC 8551), also opaque signed
        "application/x-pkcs7-mime",
        "application/pgp-encrypted",
    }
)
_TNEF = frozenset({"application/ms-tnef", "application/vnd.ms-tnef"})


def _no_text_code(msg: Message) -> str:
    """Why a message without a text part has none (:attr:`Letter.unreadable_code`)."""
    types = {part.get_content_type() for part in _parts(msg)}
    if types & _ENCRYPTED:
        return "encrypted"
    if types & _TNEF:
        return "winmail"
    if msg.is_multipart() or msg.get_content_maintype() != "text":
        return "attachments_only"
    return "no_text"


def _forwards(full: str, text: str) -> bool:
    """True when ``full`` (a body) has an inline forwarded mail that is not in ``text``."""
    return FORWARD_SEPARATOR.search(full) is not None and FORWARD_SEPARATOR.search(text) is None
