"""One raw mail message → :class:`Letter`: who sent it, to which address, and the new
text of its body (DESIGN.md, "parse"; "Who is who in mail").

MIME and RFC 2047 decoding is the standard library's (:mod:`email` with
``policy.default``); the modules this one puts together add what real players' mail
needs on top:

- header values cut, unfolded and decoded, raw 8-bit bytes read as UTF-8, else
  windows-1251 / KOI8-R, and addresses read by a linear RFC 5322 §3.4 reader that
  takes the angle-addr when there is one (:mod:`pbp.mail.read.headers`);
- of a header section over the bounds an inbox reads (64 KB, 1,000 fields:
  :func:`pbp.mail.base.read_head`) only what it reads, and of its
  ``Authentication-Results`` fields the topmost 16, kept for :mod:`pbp.mail.read.authcheck`
  (:func:`pbp.mail.read.auth.authentication_results`);
- RFC 3834 automatic mail recognised, so that it is never answered
  (:mod:`pbp.mail.read.automatic`);
- the parse linear in the size whatever the nesting, MIME parts nested over
  :data:`~pbp.mail.read.mimetree.MAX_PART_DEPTH` deep not read past the headers
  (``unreadable_code="too_deep"``), and a message of over
  :data:`~pbp.mail.read.mimetree.MAX_BOUNDARY_LINES` MIME parts not parsed past its headers
  (:mod:`pbp.mail.read.mimetree`);
- an S/MIME opaque-signed body (``application/pkcs7-mime; smime-type=signed-data``)
  taken out of its CMS container and read as the body, nothing verified; only
  encrypted data stays unread (:mod:`pbp.mail.read.smime`);
- the body's text parts chosen and decoded, the charset guessed when the declared one
  is missing, unknown or wrong (:mod:`pbp.mail.read.textparts`,
  :mod:`pbp.mail.read.charset`), HTML made text (:mod:`pbp.mail.read.markup`), and quoted
  replies and signatures removed (:func:`pbp.mail.read.body.split_reply`);
- a byte-order mark or blank lines before the first header line skipped.

Reading a message takes time linear in its size. Pure: no I/O, no clock.
:func:`read_letter` never raises.
"""

from __future__ import annotations

import dataclasses
import re
from email.message import EmailMessage, Message
from typing import Literal, NamedTuple

from pbp.mail.base import header_section
from pbp.mail.read import headers
from pbp.mail.read.auth import authentication_results
from pbp.mail.read.automatic import is_automatic
from pbp.mail.read.letter import Letter as Letter  # re-exported: the reader's result
from pbp.mail.read.markup import html_to_text
from pbp.mail.read.mimetree import (
    MAX_BOUNDARY_LINES,
    MAX_PART_DEPTH,
    TooDeep,
    parse,
    parse_headers,
    too_deep,
)
from pbp.mail.read.reply import Reply
from pbp.mail.read.simple import read_simple
from pbp.mail.read.smime import open_signed
from pbp.mail.read.textparts import (
    best_part,
    inline_encrypted,
    no_text_code,
    part_text,
    read_body,
)

#: What some tools write before the first header line: byte-order marks (UTF-8, and
#: the UTF-8 encoding of a decoded UTF-16 one) and blank lines; the parser would take
#: the whole message for a body.
_LEADING_JUNK = re.compile(rb"\A(?:\xef\xbb\xbf|[ \t]*\r?\n)+")
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_SUBJECT_TAG = re.compile(r"\[pbp-([A-Za-z0-9]+)\]", re.IGNORECASE)


def read_letter(
    raw: bytes, *, body: bool = True, head: Letter | None = None, simple: bool = True
) -> Letter:
    """Parse ``raw`` (a whole RFC 5322 message) into a :class:`Letter`. Never raises.

    ``body=False`` reads the header section alone (``text`` stays ``""``,
    ``unreadable`` None, ``forwarded`` False): who sent a mail and to which address is
    known before its body is read, so a stranger's body never reaches the body readers
    (DESIGN.md, "Who before what"); ``automatic`` then sees only the top-level
    Content-Type, not the parts.

    ``head``: a letter read from the same ``raw`` before (``body=False``, or whole):
    its header fields are taken as they are instead of being read again from the
    header section, which the whole parse reads alike (the same letter, in less
    time: issue 18); ``automatic`` and the body are read. A simple plain-text mail is
    then read by :func:`pbp.mail.read.simple.read_simple` (the same letter, faster) unless
    ``simple`` is False.

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
    deep_field = headers.deep_comment_field(header_section(raw))
    if deep_field is not None:  # before any parse: the standard parser would recurse
        return dataclasses.replace(
            _header_fields(parse_headers(raw)) if head is None else head,
            unreadable=(
                f"its {deep_field} field nests comments (parentheses) over "
                f"{headers.MAX_COMMENT_DEPTH} deep"
            ),
            unreadable_code="deep_comments",
        )
    if body and head is not None and simple:
        fast = read_simple(raw, head)
        if fast is not None:
            return fast
    too_many_parts = body and raw.count(b"\n--") > MAX_BOUNDARY_LINES
    try:
        msg, deep = _message(raw, whole=body and not too_many_parts)
    except Exception as exc:  # the parser is lenient; this is a safety net
        return Letter(
            unreadable=f"not a mail message ({type(exc).__name__})", unreadable_code="not_mail"
        )
    read = _body_of(msg, body=body, too_many_parts=too_many_parts, deep=deep)
    reply = read.reply
    return dataclasses.replace(
        _header_fields(msg) if head is None else head,
        text=reply.text,
        automatic=is_automatic(msg),
        unreadable=read.unreadable,
        forwarded=read.forwarded,
        unreadable_code=read.code,
        doubtful=reply.doubtful,
        whole=reply.whole if reply.whole != reply.text else "",
        doubtful_at=reply.doubtful_at,
        under_header=reply.under_header,
        aside=reply.aside,
    )


def _header_fields(msg: Message) -> Letter:
    """A letter of the header fields of ``msg`` alone (the body's fields left empty)."""
    from_address, from_name, from_problem = headers.sender(msg)
    in_reply_to = headers.message_ids(headers.first_value(msg, "in-reply-to"))
    return Letter(
        message_id=headers.message_id(headers.first_value(msg, "message-id")),
        from_address=from_address,
        from_name=from_name,
        recipients=headers.recipients(msg),
        subject=headers.decoded("subject", headers.first_value(msg, "subject")).strip(),
        in_reply_to=in_reply_to[0] if in_reply_to else None,
        references=tuple(headers.message_ids(headers.first_value(msg, "references"))),
        date=headers.date(headers.first_value(msg, "date")),
        from_problem=from_problem,
        authentication_results=authentication_results(msg),
    )


def _message(raw: bytes, *, whole: bool) -> tuple[EmailMessage, bool]:
    """``(the message, True when its parts nest too deep)``: ``raw`` parsed whole when
    ``whole``, else, and when its parts nest over :data:`MAX_PART_DEPTH` deep, its
    header section alone (the parser would walk every line of the body).

    :raises Exception: whatever the lenient standard parser still raises.
    """
    if not whole:
        return parse_headers(raw), False
    try:
        msg = parse(raw)
    except (RecursionError, TooDeep):  # it recurses once per nested part
        return parse_headers(raw), True
    return msg, too_deep(msg)


#: Why a body that is an inline OpenPGP message is not read (for the GM).
INLINE_PGP = "the text is an inline PGP message (encrypted, or signed and compressed)"


class _Body(NamedTuple):
    """A body as :func:`read_letter` read it (see :class:`Letter`)."""

    reply: Reply
    unreadable: str | None = None
    code: str = ""
    forwarded: bool = False


def _body_of(msg: EmailMessage, *, body: bool, too_many_parts: bool, deep: bool) -> _Body:
    """The body of ``msg`` read (:func:`pbp.mail.read.textparts.read_body`) when ``body``
    and it can be; the reason and its code when it cannot. Never raises."""
    empty = Reply("", (), "", ())
    try:
        if too_many_parts:
            return _Body(empty, f"over {MAX_BOUNDARY_LINES} MIME boundary lines", "too_many_parts")
        if deep:
            return _Body(empty, f"MIME parts nested over {MAX_PART_DEPTH} deep", "too_deep")
        if not body:
            return _Body(empty)
        opened = open_signed(msg)  # S/MIME opaque-signed: the entity inside
        if opened.reason is not None:
            return _Body(empty, opened.reason, opened.code)
        reply, unreadable, forwarded = read_body(opened.message)
        if not reply.text and unreadable is None and inline_encrypted(opened.message):
            return _Body(empty, INLINE_PGP, "encrypted")
        code = no_text_code(opened.message) if unreadable else ""
        return _Body(reply, unreadable, code, forwarded)
    except Exception as exc:  # never lose a message over a parser bug: tell the GM
        return _Body(empty, f"body could not be read ({type(exc).__name__}: {exc})", "body_error")


def read_headers(raw: bytes) -> Message:
    """The header section of ``raw`` alone, each value cut to
    :data:`~pbp.mail.read.headers.HEADER_LIMIT` characters (as :func:`read_letter` reads
    it): linear whatever the mail holds."""
    raw = _LEADING_JUNK.sub(b"", raw, count=1)
    return parse_headers(raw)


def shown_text(raw: bytes) -> str:
    """The whole decoded text of ``raw`` for a person to read (``pbp mailbox``): its
    text/plain part, else its HTML one made text, quotes and signature kept, read with
    the same bounds as :func:`read_letter` (linear in the size, parts at most
    :data:`MAX_PART_DEPTH` deep, the first :data:`~pbp.mail.read.textparts.MAX_TEXT_LINES`
    lines). Never raises: what cannot be shown is said in brackets (``"[parts nested
    too deep to show]"``).
    """
    raw = _LEADING_JUNK.sub(b"", raw, count=1)
    if raw.count(b"\n--") > MAX_BOUNDARY_LINES:
        return f"[over {MAX_BOUNDARY_LINES} MIME parts: not shown]"
    try:
        msg = parse(raw)
        if too_deep(msg):
            return "[parts nested too deep to show]"
        opened = open_signed(msg)
        if opened.reason is not None:
            return f"[the signed text cannot be shown: {opened.reason}]"
        msg = opened.message
        part = best_part(msg, "plain") or best_part(msg, "html")
        if part is None:
            return f"[no text part: the mail is {msg.get_content_type()}]"
        text = part_text(part)
        return html_to_text(text) if part.get_content_type() == "text/html" else text
    except (RecursionError, TooDeep):
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


#: The most personal tokens :func:`find_tokens` reads from one mail. A real mail holds a
#: handful (the sender's own address, a confirmation code, a second seat's address);
#: each token read costs the caller a store lookup, and a stranger's mail may name
#: thousands of ``gm+random@`` recipients.
MAX_TOKENS = 16


def find_tokens(letter: Letter, address: str, mode: Literal["plus", "subject_tag"]) -> list[str]:
    """The personal tokens of the letter, lower-cased, each once, in the order
    :func:`find_token` searches them (a mail may go to two personal addresses: the
    caller picks the sender's own): at most the first :data:`MAX_TOKENS` (a mail naming
    more is a stranger's; the tokens after them are not read).

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
                if len(found) == MAX_TOKENS:
                    break
        return list(found)
    if mode == "subject_tag":
        for match in _SUBJECT_TAG.finditer(letter.subject):
            found.setdefault(match.group(1).lower(), None)
            if len(found) == MAX_TOKENS:
                break
        return list(found)
    raise ValueError(f"unknown token mode {mode!r}: use 'plus' or 'subject_tag'")
