"""The text of a message's body, from its MIME parts (RFC 2045, RFC 2046): which parts
are the body (:func:`read_body`) and each one's text (:func:`part_text`).

- text/plain preferred; text/html when the text/plain part is empty or only a stub
  (it says "view this in HTML", or is a third as long as the HTML's text); every
  inline text part of a multipart/mixed read in order (text around an inline
  picture);
- the charset guessed when the declared one is missing, unknown or wrong
  (:func:`pbp.mail.read.charset.decode_bytes`); a body labelled base64 that is not taken
  as written; ``format=flowed`` joined (:func:`pbp.mail.read.flowed.unflow`); at most
  :data:`MAX_TEXT_LINES` lines of a part read;
- quoted replies and signatures removed (:func:`pbp.mail.read.body.split_reply`); a mail
  forwarded inside (attached, or quoted inline under
  :data:`pbp.mail.read.replyheader.FORWARD_SEPARATOR`) noted, never read as the sender's;
- a message without a text part told apart (:func:`no_text_code`: encrypted, Outlook's
  ``winmail.dat``, attachments only), and one whose text is an inline PGP message
  (:func:`inline_encrypted`).

Used by :mod:`pbp.mail.read.mime`. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import re
from email.message import EmailMessage, Message

from pbp.mail.read.armour import pgp_message
from pbp.mail.read.body import split_reply
from pbp.mail.read.charset import decode_bytes
from pbp.mail.read.flowed import unflow
from pbp.mail.read.markup import html_to_text
from pbp.mail.read.mimetree import walk
from pbp.mail.read.quotemarks import unmark
from pbp.mail.read.reply import ASIDE_MAX, Doubt, Reply
from pbp.mail.read.replyheader import FORWARD_SEPARATOR

#: Most lines of a text part read (after line breaks are made ``\n``); the rest is not
#: looked at. The quote and signature reader spends microseconds on each line, and the
#: game parsers read the first :data:`~pbp.text.commands.MAX_LINES` lines of what is
#: left: no move is written below twenty thousand lines of one's own mail.
MAX_TEXT_LINES = 20_000

_TAG = re.compile(r"<[^<>]{0,2000}>")


def best_part(msg: EmailMessage, subtype: str) -> Message | None:
    """The ``text/<subtype>`` part that is the body of ``msg``
    (:meth:`~email.message.EmailMessage.get_body`), or ``msg`` itself when it is a single
    such part marked as an attachment, or None."""
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


def part_text(part: Message) -> str:
    """The decoded text of the text part ``part`` (:func:`decoded_text`)."""
    flowed = part.get_content_type() == "text/plain" and part.get_param("format") == "flowed"
    delsp = str(part.get_param("delsp") or "").lower() == "yes"
    return decoded_text(_payload(part), part.get_content_charset(), flowed=flowed, delsp=delsp)


def decoded_text(payload: bytes, charset: str | None, *, flowed: bool, delsp: bool) -> str:
    """The text of a part's body ``payload`` (its transfer encoding undone) declared in
    ``charset`` (lower-cased, or None; guessed when missing, unknown or wrong:
    :func:`pbp.mail.read.charset.decode_bytes`): line breaks made ``\\n``, at most
    :data:`MAX_TEXT_LINES` lines, lines joined when ``flowed`` (RFC 3676 ``format=flowed``,
    ``delsp=yes`` when ``delsp``)."""
    text, _codec = decode_bytes(payload, charset)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(text.split("\n", MAX_TEXT_LINES)[:MAX_TEXT_LINES])
    return unflow(text, delsp) if flowed else text


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


def _read_part(part: Message, quotes: list[str]) -> tuple[str, str]:
    """``(full text, text to look for quotes in)`` of one text part: HTML made text (the
    lines of its quotes appended to ``quotes``)."""
    source = part_text(part)
    if part.get_content_type() == "text/html":
        return html_to_text(source, quotes), _TAG.sub("\n", source)
    return source, source


def read_body(msg: EmailMessage) -> tuple[Reply, str | None, bool]:
    """``(the body read, unreadable reason or None, forwarded)``: the body parts of the
    message itself (never those inside an attached ``message/rfc822``)."""
    attached = any(part.get_content_type() == "message/rfc822" for part in walk(msg))
    several = _inline_texts(msg)
    if several is not None:
        quotes: list[str] = []
        read = [_read_part(part, quotes) for part in several]
        reply = with_html_quotes(split_reply("\n".join(text for text, _ in read)), quotes)
        quoting = "\n".join(q for _, q in read)
        return reply, None, attached or forwards(quoting, reply.text)
    plain = best_part(msg, "plain")
    html = best_part(msg, "html")
    if plain is None and html is None:
        if attached:
            return Reply("", (), "", ()), None, True
        reason = f"no text/plain or text/html part (the message is {msg.get_content_type()})"
        return Reply("", (), "", ()), reason, False
    if plain is not None:
        full = part_text(plain)
        reply = split_reply(full)
        if html is None or len(reply.text) > _STUB_MAX:
            return reply, None, attached or forwards(full, reply.text)
    assert html is not None
    source = part_text(html)
    quotes = []
    html_full = html_to_text(source, quotes)
    html_reply = with_html_quotes(split_reply(html_full), quotes)
    # A stub says so, or is far shorter than the HTML part taken whole (quotes and all:
    # the new texts are not compared, since a quote the HTML reading missed would make
    # the HTML's look longer).
    if plain is not None and reply.text:
        stub = _STUB.search(reply.text) or _STUB_RATIO * len(full.strip()) < len(html_full.strip())
        if not (html_reply.text and stub):
            # The plain part is the mail; the HTML one only says the same in markup.
            return reply, None, attached or forwards(full, reply.text)
    # The forward header sits inside the quote block that html_to_text drops (Gmail).
    return html_reply, None, attached or forwards(_TAG.sub("\n", source), html_reply.text)


def with_html_quotes(reply: Reply, quotes: list[str]) -> Reply:
    """``reply`` with the lines of the HTML quotes the conversion left out
    (``quotes``: :func:`pbp.mail.read.markup.html_to_text`) set aside after its own
    (:data:`pbp.mail.read.reply.Doubt.HTML_QUOTE`), at most
    :data:`~pbp.mail.read.reply.ASIDE_MAX` in all."""
    if not quotes or len(reply.aside) >= ASIDE_MAX:
        return reply
    more = tuple(unmark(line) for line in quotes[: ASIDE_MAX - len(reply.aside)])
    return dataclasses.replace(
        reply, aside=reply.aside + more, shapes=reply.shapes | {Doubt.HTML_QUOTE}
    )


_ENCRYPTED = frozenset(
    {
        "multipart/encrypted",  # PGP/MIME (RFC 3156)
        # S/MIME (RFC 8551) enveloped data; signed data is opened before
        # (pbp.mail.read.smime), unless it holds no signed data after all.
        "application/pkcs7-mime",
        "application/x-pkcs7-mime",
        "application/pgp-encrypted",
    }
)
_TNEF = frozenset({"application/ms-tnef", "application/vnd.ms-tnef"})


def no_text_code(msg: Message) -> str:
    """Why a message without a text part has none
    (:attr:`pbp.mail.read.mime.Letter.unreadable_code`)."""
    types = {part.get_content_type() for part in walk(msg)}
    if types & _ENCRYPTED:
        return "encrypted"
    if types & _TNEF:
        return "winmail"
    if msg.is_multipart() or msg.get_content_maintype() != "text":
        return "attachments_only"
    return "no_text"


def inline_encrypted(msg: EmailMessage) -> bool:
    """True when the text of ``msg``'s body (its text/plain part, else its HTML one) is
    an inline OpenPGP message (:func:`pbp.mail.read.armour.pgp_message`): encrypted, not
    a mail without commands."""
    part = best_part(msg, "plain") or best_part(msg, "html")
    if part is None:
        return False
    text, _quoting = _read_part(part, [])
    return pgp_message(text)


def forwards(full: str, text: str) -> bool:
    """True when ``full`` (a body) has an inline forwarded mail that is not in ``text``."""
    return FORWARD_SEPARATOR.search(full) is not None and FORWARD_SEPARATOR.search(text) is None
