"""The new text of a mail body: charset guessing, HTML to text, quoted replies and
signatures removed. Used by :mod:`pbp.parse.mime`; pure string functions, each linear
in its input.

What is removed (players answer from many clients, in Russian and English):

- quoted lines starting with ``>`` (RFC 3676 §4.5 quoting);
- a reply header and everything after it when the quote is not ``>``-marked
  (top-posting): ``On Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:``,
  ``пн, 1 дек. 2026 г. в 10:00, X <x@example.test>:``, ``X пишет:``,
  Yandex's ``01.12.2026, 12:00, "X":``, Mail.ru's ``Среда, 12 марта 2025, 10:15 +03:00
  от X:`` (any line ending in ``:`` with a time and an address or a year), Zoho's
  ``---- On …, X <x@example.test> wrote ----``, ``-----Original Message-----``,
  ``-------- Пересылаемое сообщение --------``, Outlook's separator line of underscores
  and its ``From:``/``Sent:``
  (``От:``/``Отправлено:``) block; a header followed by ``>`` lines (bottom-posting)
  is dropped alone, so the text after the quote stays;
- the signature after a line ``-- `` (RFC 3676 §4.3; also ``--`` whose space a client
  stripped), and a phone or web client's footer (``Sent from my iPhone``, ``Отправлено
  с iPhone``, ``Отправлено из мобильной Яндекс Почты``, ``Get Outlook for Android``)
  or a closing ``С уважением,`` when nothing but a signature or a quote follows it;
- (separately, :func:`strip_echo`) an unmarked copy of the mail being answered;
- (separately, :func:`unquote_forum`, used by the command parsers) text in forum
  ``[quote]``/``[spoiler]`` blocks pasted from the game's forum thread;
- in HTML, before conversion (:mod:`pbp.parse.markup`): Gmail's ``<div
  class="gmail_quote">`` and ``gmail_signature``, Thunderbird's
  ``moz-cite-prefix``/``moz-signature`` and every ``<blockquote>``.
"""

from __future__ import annotations

import codecs
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pbp.parse.markup import html_to_text as html_to_text
from pbp.parse.names import INVISIBLE

#: Single-byte Cyrillic charsets whose label clients get wrong; a declared one of
#: these may be overridden by a better-scoring one (see :func:`decode_bytes`).
CYRILLIC_8BIT = ("cp1251", "koi8-r", "koi8-u", "iso8859-5", "cp866", "mac-cyrillic")

#: Western charsets (normalised codec names) that a client may declare on UTF-8 text;
#: valid UTF-8 with multi-byte sequences is read as UTF-8 despite them.
WESTERN_8BIT = frozenset({"ascii", "latin-1", "iso8859-1", "iso8859-15", "cp1252"})

#: Letter frequencies of Russian text, per cent (ё counted with е in most texts).
_RU_FREQ = {
    "о": 10.97, "е": 8.45, "а": 8.01, "и": 7.35, "н": 6.70, "т": 6.26, "с": 5.47,
    "р": 4.73, "в": 4.54, "л": 4.40, "к": 3.49, "м": 3.21, "д": 2.98, "п": 2.81,
    "у": 2.62, "я": 2.01, "ы": 1.90, "ь": 1.74, "г": 1.70, "з": 1.65, "б": 1.59,
    "ч": 1.44, "й": 1.21, "х": 0.97, "ж": 0.94, "ш": 0.73, "ю": 0.64, "ц": 0.48,
    "щ": 0.36, "э": 0.32, "ф": 0.26, "ъ": 0.04, "ё": 0.04,
}  # fmt: skip
_RU_LOGP = {c: math.log(f / 100) for c, f in _RU_FREQ.items()}
_OTHER_LOGP = math.log(0.0001)  # a non-ASCII character that is not a Russian letter
_NEUTRAL = frozenset("«»—–…№“”„‘’\u00a0\ufeff")
_MIXED_CASE_WORD = re.compile(r"[а-яё][А-ЯЁ]")
_CYR_WORD = re.compile(r"[А-Яа-яЁё]+")
#: How much better (mean log-probability per letter) another charset must score to
#: override the declared one.
_OVERRIDE_MARGIN = 0.3
_MIN_LETTERS = 3


def _codec(name: str | None) -> str | None:
    """The normalised codec name of a MIME charset label, or None when unknown; an
    unregistered ``x-`` label is looked up without its prefix (``x-mac-cyrillic``)."""
    if not name:
        return None
    label = name.strip().strip('"').lower()
    for candidate in (label, label[2:] if label.startswith("x-") else None):
        if candidate:
            try:
                return codecs.lookup(candidate).name
            except LookupError:
                continue
    return None


#: Charsets whose bytes may all be ASCII without the text being ASCII (UTF-16 and
#: UTF-32 without a byte-order mark: ``Г`` is ``13 04``; UTF-7: ``+BBM-``).
_WIDE = ("utf-16", "utf-32", "utf-7")
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _decodes(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def russian_score(text: str) -> float:
    """Mean log-probability (natural log) per non-ASCII character of ``text`` as Russian,
    less one per word with a lower-case letter followed by an upper-case one (the mark
    of KOI8-R read as windows-1251 and back: ``вЕМЩИ``). Higher is more Russian-like;
    real Russian scores about -3, mojibake below -3.3. 0.0 for text with no non-ASCII
    letters.
    """
    total = 0.0
    letters = 0
    for ch in text:
        if ord(ch) < 128 or ch in _NEUTRAL:
            continue
        total += _RU_LOGP.get(ch.lower(), _OTHER_LOGP)
        letters += 1
    if not letters:
        return 0.0
    words = _CYR_WORD.findall(text)
    mixed = sum(1 for w in words if _MIXED_CASE_WORD.search(w))
    return total / letters - mixed / max(len(words), 1)


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, str]:
    """Decode a text part; returns ``(text, codec used)``.

    Order: pure ASCII as is (unless it is declared UTF-16, UTF-32 or UTF-7 and decodes
    as such to text without control characters); UTF-8 when the declared charset is a Western one
    (:data:`WESTERN_8BIT`: us-ascii, ISO 8859-1/-15, windows-1252; clients put a Latin-1
    label on UTF-8 Cyrillic) and the bytes are valid UTF-8; a declared charset that is
    neither UTF-8 nor a Cyrillic
    single-byte one (:data:`CYRILLIC_8BIT`), when it decodes; UTF-8 when the bytes are
    valid UTF-8 (multi-byte UTF-8 almost never happens by chance in 8-bit text); else
    the declared Cyrillic charset, windows-1251 and KOI8-R, the declared one kept
    unless another scores :data:`_OVERRIDE_MARGIN` better by :func:`russian_score`
    (KOI8-R text labelled windows-1251 is read right). Never raises: the last resort is
    windows-1251 with replacement characters.

    >>> decode_bytes("нож".encode("koi8-r"), "windows-1251")
    ('нож', 'koi8-r')
    >>> decode_bytes("нож".encode("utf-8"), "iso-8859-1")
    ('нож', 'utf-8')
    """
    codec = _codec(declared)
    if data.isascii():
        # Wide text has NUL (Latin) or 0x04 (Cyrillic) bytes; ASCII text mislabelled has not.
        utf7 = codec == "utf-7"
        if (
            codec is not None
            and codec.startswith(_WIDE)
            and (utf7 or b"\x00" in data or b"\x04" in data)
        ):
            wide = _decodes(data, codec)
            if wide is not None and not _CONTROL.search(wide):
                return wide, codec
        return data.decode("ascii"), "ascii"
    if codec in WESTERN_8BIT:
        text = _decodes(data, "utf-8")
        if text is not None:
            return text, "utf-8"
    if codec is not None and codec != "utf-8" and codec not in CYRILLIC_8BIT:
        text = _decodes(data, codec)
        if text is not None:
            return text, codec
    text = _decodes(data, "utf-8")
    if text is not None:
        return text, "utf-8"
    candidates: list[tuple[str, str]] = []
    for name in (codec if codec in CYRILLIC_8BIT else None, "cp1251", "koi8-r"):
        if name is None or any(name == c for c, _ in candidates):
            continue
        decoded = _decodes(data, name)
        if decoded is not None:
            candidates.append((name, decoded))
    if not candidates:
        return data.decode("cp1251", errors="replace"), "cp1251"
    best_name, best_text = candidates[0]
    letters = sum(1 for ch in best_text if ord(ch) >= 128)
    if letters >= _MIN_LETTERS:
        base = russian_score(best_text)
        for name, decoded in candidates[1:]:
            score = russian_score(decoded)
            if score > base + _OVERRIDE_MARGIN:
                best_name, best_text, base = name, decoded, score
    return best_text, best_name


# --- format=flowed (RFC 3676) ---


def unflow(text: str, delsp: bool = False) -> str:
    """Join the soft line breaks of a ``format=flowed`` body (RFC 3676 §4.2): a line
    ending in a space continues on the next line (the space removed when ``delsp``),
    but only on a line of the same quote depth (§4.5: the count of its leading ``>``),
    so that a phone's trailing space never joins a quote and the sender's own text.
    Space-stuffing (§4.4) is undone; the signature separator ``-- `` is kept; a joined
    quoted line is written ``> `` and its text.

    >>> unflow("SUGGEST Краснова, \\nнож, кухня\\n")
    'SUGGEST Краснова, нож, кухня\\n'
    >>> unflow("ГОЛОС \\n> Оля\\n> a \\n> b\\n")
    'ГОЛОС \\n> Оля\\n> a b\\n'
    """
    out: list[str] = []
    pending: list[str] = []  # the pieces of a paragraph so far (joined once: linear)
    depth = 0  # the quote depth of the pending paragraph

    def flush() -> None:
        joined = "".join(pending)
        out.append((">" * depth + " " + joined) if depth else joined)
        pending.clear()

    for line in text.split("\n"):
        marks = len(line) - len(line.lstrip(">"))
        body = line[marks:]
        if body.startswith(" "):
            body = body[1:]
        if pending and marks != depth:
            flush()  # a change of quote depth ends a paragraph (§4.5)
        depth = marks
        if body.endswith(" ") and body != "-- ":
            pending.append(body[:-1] if delsp else body)
            continue
        pending.append(body)
        flush()
    if pending and "".join(pending):
        flush()
    return "\n".join(out)


# --- quoted replies and signatures ---

#: The word an attribution line ends in before its colon, in the languages of the
#: clients players use (``… wrote:``, ``… пишет:``, ``… писал(а):`` of a forum post
#: copied as text, ``… a écrit :``, ``… 写道：``).
_WROTE_WORDS = (
    r"\bwrote|\bwrites|\bпишет|\bпише|\bнаписала?|\bнаписал\s*\(\s*-?\s*а\s*\)|\bнаписав"
    r"|\bписали|\bписала?|\bписал\s*\(\s*а\s*\)|\bschrieb|\ba\s+écrit|\bescribió|\bescreveu"
    r"|\bscrisse|\bha\s+scritto|\bschreef|\bskrev|\bkirjoitti|\bnapsal|\bnapisał\(?a?\)?"
    r"|\bнаписа|\byazdı|写道|寫道"
)
_WROTE = re.compile(rf"(?:{_WROTE_WORDS})\s*[:：]\s*$", re.IGNORECASE)
#: The same without its colon, which some clients leave out (``On … <x@…> wrote``):
#: a header only with an address and a time on the line.
_WROTE_BARE = re.compile(rf"(?:{_WROTE_WORDS})\s*$", re.IGNORECASE)
#: A dashed separator line with a few words between the dashes, in any language
#: (``-----Ursprüngliche Nachricht-----``, ``-------- Оригінальне повідомлення --------``,
#: ``----- Messaggio originale -----``): the start of a quoted or forwarded mail.
_DASHED = re.compile(r"^[-—–=*_]{3,}[^\S\n]*[^\W\d_][^-—–=*_\n]{0,50}?[^\S\n]*[-—–=*_]{3,}$")
#: What forums and messengers write above a post copied as text: ``Цитата:``,
#: ``Quote:``, ``Цитата (Таня @ 1.12.2026, 12:40)``, ``Originally Posted by Таня``,
#: ``Сообщение от Таня``, Telegram's ``Таня, [01.12.2026 12:40]``; Lotus Notes' lone
#: ``To``/``cc``/``Subject`` labels far to the right.
_POST_HEADER = re.compile(
    r"^(?:цитата|quote)\s*:?$|^цитата\s*\(.{1,80}\)$|^(?:originally\s+posted\s+by|сообщение\s+от)"
    r"\s+\S.{0,60}$|^.{1,60},\s*\[\d{1,2}\.\d{1,2}\.\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?\]$",
    re.IGNORECASE,
)
_LOTUS_LABEL = re.compile(r"^\s{8,}(?:to|cc|bcc|subject|sent\s+by:)\s*$", re.IGNORECASE)
#: A time written with a dot (``12.40``), read only beside an address.
_DOTTED_TIME = re.compile(r"\b\d{1,2}\.\d{2}\b")
#: Zoho: ``---- On Tue, 01 Dec 2026 11:00:05 +0300 pbp <gm@example.test> wrote ----``.
_WROTE_DASHED = re.compile(
    r"^-{2,}\s.*\s(?:wrote|писал|написал|написала|пишет)\s+-{2,}$", re.IGNORECASE
)
#: Yandex without an address: ``01.12.2026, 12:00, "pbp":``.
_DATED = re.compile(r"^\d{1,2}\.\d{1,2}\.\d{2,4},?\s+\d{1,2}:\d{2}(?::\d{2})?,\s*\S.*:$")
_TIME = re.compile(r"\d{1,2}:\d{2}")
#: A year (Mail.ru writes ``Среда, 12 марта 2025, 10:15 +03:00 от Ведущий:`` when the
#: sender's address is hidden: a time and a year, no address).
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
#: What the first line of a wrapped attribution has: a time, a year or an address.
_ATTRIBUTION_START = re.compile(r"\d{1,2}:\d{2}|\b\d{4}\b|@")
#: An address; the look-behind makes a search linear on a long line without ``@``.
_EMAIL = re.compile(r"(?<![^\s<>()\"'])[^\s<>()\"'@]+@[^\s<>()\"']+")
_SEPARATOR = re.compile(
    r"^\s*-{2,}\s*(?:original message|forwarded message|исходное сообщение|"
    r"пересылаемое сообщение|пересланное сообщение|пересланное письмо|"
    r"перенаправленное сообщение)\s*-{2,}\s*$"
    r"|^\s*(?:begin forwarded message|начало переадресованного сообщения)\s*:\s*$",
    re.IGNORECASE,
)
#: The first line of a forwarded mail quoted inline (Gmail, Outlook, Apple Mail, Yandex,
#: Mail.ru, Thunderbird): its moves are another person's, never executed.
#: White space within a line only (``\s`` would let ``^\s*`` run over every following
#: blank line from each line start: quadratic on a run of blank lines).
FORWARD_SEPARATOR = re.compile(
    r"^[^\S\n]*-{2,}[^\S\n]*(?:forwarded message|original message follows|"
    r"пересылаемое сообщение|пересланное сообщение|пересланное письмо|"
    r"перенаправленное сообщение)[^\S\n]*-{2,}[^\S\n]*$"
    r"|^[^\S\n]*(?:begin forwarded message|начало переадресованного сообщения)[^\S\n]*:"
    r"[^\S\n]*$"
    r"|^[^\S\n]*-{2,}[^\S\n]*(?:forwarded message|пересылаемое сообщение)[^\S\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
#: A phone or web client's footer line, and everything after it, is not the sender's:
#: ``Sent from my iPhone``, ``Отправлено с iPhone``, ``Отправлено из мобильной Яндекс
#: Почты``, ``Отправлено из Mail.ru для Android``, ``Get Outlook for Android``.
_CLIENT_FOOTER = re.compile(
    r"^(?:sent|отправлено|получено|послано)\s+(?:from|with|via|using|on|с|со|из|через|"
    r"при\s+помощи|с\s+помощью)\s+[^,;\n]{1,70}$"
    r"|^(?:get|download|скачайте|загрузите|установите)\s+(?:outlook|яндекс|yandex|mail\.ru)\b"
    r"[^,;\n]{0,60}$"
    r"|^(?:с\s+уважением|best\s+regards|kind\s+regards|regards)\s*,?$",
    re.IGNORECASE,
)
_OUTLOOK_FROM = re.compile(r"^\s*\*?(?:from|от|von)\s*:\*?\s*\S", re.IGNORECASE)
_OUTLOOK_NEXT = re.compile(
    r"^\s*\*?(?:sent|date|to|subject|отправлено|дата|кому|тема)\s*:", re.IGNORECASE
)
_UNDERSCORES = re.compile(r"^\s*_{8,}\s*$")
#: Outlook's separator line above the quoted mail (32 underscores), alone.
_OUTLOOK_RULE = re.compile(r"^_{20,}$")
#: One field of a header block a client writes above the mail it quotes, in any
#: language (``Від: pbp <gm@example.test>``, ``*Sent:* Tuesday…``, ``Temat: Re: ход``):
#: a key of one to three words, a colon, and a value (none for an empty ``Cc:``).
_FIELD = re.compile(
    r"^\s*\*{0,2}[^\W\d_][^\s\d:：*]{0,24}(?:[ -][^\s\d:：*]{1,24}){0,2}\*{0,2}\s*[:：]\*{0,2}"
    r"(?:\s*(?P<value>\S.*))?$"
)
#: The keys of a mail header block as clients write them in many languages (lower
#: case): a block of fields without an address is a header only with two of these, so
#: that a player's own notes (``Игра: Маньяк``, ``Время: 12:40``) stay his text.
HEADER_KEYS = frozenset(
    {
        "from", "sent", "date", "to", "cc", "subject", "от", "отправлено", "дата", "кому",
        "копия", "тема", "von", "gesendet", "an", "betreff", "datum", "de", "envoyé", "à",
        "objet", "para", "enviado", "asunto", "fecha", "da", "inviato", "oggetto", "a", "od",
        "wysłano", "do", "temat", "від", "надіслано", "відправлено", "van", "verzonden",
        "aan", "onderwerp", "från", "skickat", "till", "ämne", "fra", "sendt", "til", "emne",
        "lähettäjä", "lähetetty", "vastaanottaja", "aihe", "kimden", "gönderildi", "kime",
        "konu", "发件人", "发送时间", "收件人", "主题", "寄件者", "日期", "收件者", "主旨",
        "差出人", "送信日時", "宛先", "件名", "보낸 사람", "날짜", "받는 사람", "제목", "จาก",
        "ส่ง", "ถึง", "เรื่อง", "sent by", "envoyé le", "enviado el",
    }
)  # fmt: skip
#: A colon, ASCII or full-width (Chinese and Japanese clients write ``发件人：``).
_COLON = re.compile("[:：]")
#: Most blank lines between two fields of a header block (an HTML header of one
#: ``<p>`` a field, with ``<p><br></p>`` between, reads with several).
_FIELD_GAP = 4
#: Most fields of a header block looked at.
_FIELDS_MAX = 8
#: A date as clients write it in a header block, besides a time or a year:
#: ``01.12.2026``, ``2026-12-01``, ``1/12/26``.
_NUMERIC_DATE = re.compile(r"\b\d{1,4}[./-]\d{1,2}[./-]\d{2,4}\b")
#: GroupWise's reply header, which starts like a quoted line:
#: ``>>> pbp <gm@example.test> 01.12.2026 12:40 >>>``.
_GROUPWISE = re.compile(r"^>>>\s.*\S\s+>>>$")
#: A quoted line: ``>`` (RFC 3676 §4.5), or The Bat!'s and FidoNet's initials before
#: it (``p> …``, ``ВП> …``).
_QUOTED = re.compile(r"^\s*(?:>|[^\W\d_]{1,3}>)")
_INVISIBLE = INVISIBLE | str.maketrans({"\r": None, "\u2028": "\n", "\u2029": "\n"})
#: Longest line (characters) looked at as a possible reply header.
_HEADER_MAX = 400


#: The first characters of a reply header line that does not end in ``:`` (a separator
#: of dashes or underscores, Outlook's ``*From:*``/``От:``/``Von:``).
_HEADER_FIRST = frozenset("-_*fFvVоО")


def is_quoted(line: str) -> bool:
    """True when ``line`` is marked as quoted: ``>`` (RFC 3676 §4.5) or initials and
    ``>`` (The Bat!, FidoNet: ``p> …``).

    >>> is_quoted("> ГОЛОС Оля"), is_quoted("ВП> ГОЛОС Оля"), is_quoted("ГОЛОС Оля")
    (True, True, False)
    """
    return _QUOTED.match(line) is not None


def _header_block(lines: list[str], i: int, *, need_address: bool = False) -> int:
    """How many lines (0: none) the block of header fields starting at ``lines[i]``
    spans: ``Key: value`` lines (:data:`_FIELD`; at most :data:`_FIELDS_MAX` looked at,
    up to four blank lines between two allowed, the same number all along, as an HTML
    header of one ``<div>`` a field reads), at least three of which one value holds an
    address and another a date or a time, or at least four with a date or a time and
    two keys of :data:`HEADER_KEYS` (Outlook hides the address). Found by its
    structure, so that a client writing the keys in a language pbp has no word list for
    (Ukrainian ``Від:``/``Дата:``/``Кому:``/``Тема:``, Polish ``Od:``/``Wysłano:``,
    Thai, Chinese ``发件人：``…) still marks the start of the quoted mail.
    ``need_address``: only the first kind (address and date) counts."""
    end = i
    fields = 0
    address = dated = False
    last = i  # the line after the last field
    spacing: int | None = None  # the blank lines between fields: the same all along
    keys: list[str] = []
    while end < len(lines) and fields < _FIELDS_MAX:
        line = lines[end]
        gap = 0
        if not line.strip():
            following = end + 1
            while (
                following < len(lines)
                and following - end <= _FIELD_GAP
                and not lines[following].strip()
            ):
                following += 1
            if not (following < len(lines) and lines[following].strip() and fields):
                break
            gap = following - end
            end = following  # blank lines between two fields (an HTML header's <p>s)
            line = lines[end]
        if fields:
            if spacing is None:
                spacing = gap
            elif gap != spacing:
                break  # "ГОЛОС: Петя", a blank line, then a header: not one block
        if len(line) > _HEADER_MAX or not _COLON.search(line[:40]):
            break
        if len(line) > _HEADER_MAX or not _COLON.search(line[:40]):
            break
        field = _FIELD.match(line)
        if field is None:
            break
        value = field.group("value") or ""
        keys.append(_COLON.split(line, 1)[0].strip(" *").lower())
        if not address and _EMAIL.search(value):
            address = True
        elif not dated and (
            _TIME.search(value) or _YEAR.search(value) or _NUMERIC_DATE.search(value)
        ):
            dated = True
        fields += 1
        end += 1
        last = end
    known = sum(1 for key in keys if key in HEADER_KEYS)
    found = (fields >= 3 and address and dated) or (
        fields >= 4 and dated and known >= 2 and not need_address
    )
    return last - i if found else 0


def _is_reply_header(lines: list[str], i: int) -> int:
    """How many lines (0: none) the reply header starting at ``lines[i]`` spans
    (``lines`` are right-stripped)."""
    line = lines[i].strip()
    if not line or len(line) > _HEADER_MAX:
        return 0
    if line.startswith(">>>"):
        found = _GROUPWISE.match(line) and (_EMAIL.search(line) or _TIME.search(line))
        return 1 if found else 0
    if line[0] in "-—–=*_" and _DASHED.match(line):
        return 1
    if _LOTUS_LABEL.match(lines[i]) or (len(line) < 150 and _POST_HEADER.match(line)):
        return 1
    if (
        "@" in line
        and _WROTE_BARE.search(line)
        and _EMAIL.search(line)
        and (_TIME.search(line) or _DOTTED_TIME.search(line))
    ):
        return 1
    if _COLON.search(line[:40]):
        block = _header_block(lines, i)
        if block:
            return block
    # Each pattern is tried only where it can match (its first character, or the ":"
    # that ends a line of the header): quick on the ordinary lines of a mail.
    first = line[0]
    colon = line.endswith((":", "：")) or any(s.endswith((":", "：")) for s in lines[i + 1 : i + 3])
    if not colon and first not in _HEADER_FIRST:
        return 0
    if (first in "-_" or line.endswith(":")) and (
        _SEPARATOR.match(line) or _OUTLOOK_RULE.match(line) or _WROTE_DASHED.match(line)
    ):
        return 1
    if first == "_" and _UNDERSCORES.match(line):
        following = [s for s in lines[i + 1 : i + 3] if s.strip()]
        return 1 if following and _OUTLOOK_FROM.match(following[0]) else 0
    if first in _HEADER_FIRST and _OUTLOOK_FROM.match(line):
        return 1 if any(_OUTLOOK_NEXT.match(s) for s in lines[i + 1 : i + 4]) else 0
    if not colon:
        return 0
    for span in (1, 2, 3):  # clients wrap a long attribution line
        if i + span > len(lines) or (span > 1 and not lines[i + span - 1].strip()):
            break
        if span == 2 and not _ATTRIBUTION_START.search(line):
            break  # "REFUTE 1 нож" right above "X пишет:" is not part of the header
        joined = " ".join(s.strip() for s in lines[i : i + span])
        if len(joined) > _HEADER_MAX:
            break
        if _WROTE.search(joined):
            return span
        if joined.endswith((":", "：")) and (
            (_TIME.search(joined) and (_EMAIL.search(joined) or _YEAR.search(joined)))
            or (_DOTTED_TIME.search(joined) and _EMAIL.search(joined))
            or _DATED.match(joined)
        ):
            return span
    return 0


def _next_text(lines: list[str], start: int) -> str | None:
    """The first non-blank line at or after ``start``, or None."""
    for index in range(start, len(lines)):
        if lines[index].strip():
            return lines[index]
    return None


def _footer_ends(lines: list[str], start: int) -> bool:
    """True when what follows a client footer line is no more of the sender's text:
    nothing, a ``-- `` signature, a reply header or quoted lines."""
    for index in range(start, len(lines)):
        line = lines[index]
        if not line.strip():
            continue
        return line == "--" or is_quoted(line) or bool(_is_reply_header(lines, index))
    return True


def new_text(text: str) -> str:
    """The text a sender wrote himself (:func:`split_reply`'s first part).

    >>> new_text("REFUTE 7 нож\\n\\nOn Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:\\n> old")
    'REFUTE 7 нож'
    """
    return split_reply(text).text


@dataclass(frozen=True)
class Reply:
    """A mail body read for the sender's own text (:func:`split_reply`).

    ``text``: the new text; ``doubtful``: the doubtful lines, stripped, in order;
    ``whole``: the new text with the doubtful lines in their places, and
    ``doubtful_at``: their 0-based line numbers in ``whole`` (what
    :func:`strip_echo` and :func:`strip_help_echo` look at: a pasted mail of ours
    is found by its run of lines, which a doubtful line must not break);
    ``under_header``: the line number in ``whole`` from which the text stands under a
    header block at the top of the mail (-1: none), where a line of the mail answered
    may be its unmarked quote (:meth:`own`).
    """

    text: str
    doubtful: tuple[str, ...]
    whole: str
    doubtful_at: tuple[int, ...]
    under_header: int = -1

    def own(self, whole: str, answered: str | None) -> Reply:
        """The reply once the caller cut ``whole`` (a prefix of :attr:`whole`'s lines)
        where it repeats a mail of ours (:func:`strip_echo`, :func:`strip_help_echo`),
        ``answered`` being the text of the mail of ours it answers (None: unknown).

        Below a header block at the top (:attr:`under_header`) each line of
        ``answered`` is doubtful too, and every line is when ``answered`` is unknown:
        a quote under that header is marked by nothing.

        >>> reply = split_reply("От: pbp <gm@example.test>\\nДата: 01.12.2026 12:40\\n"
        ...                     "Кому: Вася\\n\\nГОЛОС Петя\\n[b]Голосую за Олю[/b]")
        >>> reply.own(reply.whole, "Выполнено:\\n[b]Голосую за Олю[/b]").text
        'ГОЛОС Петя'
        """
        count = len(whole.split("\n")) if whole else 0
        lines = self.whole.split("\n")[:count]
        skip = {n for n in self.doubtful_at if n < count}
        if 0 <= self.under_header < count:
            ours = None if answered is None else {line.strip() for line in answered.split("\n")}
            skip |= {
                n
                for n in range(self.under_header, count)
                if lines[n].strip() and (ours is None or lines[n].strip() in ours)
            }
        text = "\n".join(line for n, line in enumerate(lines) if n not in skip).strip("\n")
        at = tuple(sorted(skip))
        return Reply(text, tuple(lines[n].strip() for n in at), "\n".join(lines), at)


def split_reply(text: str) -> Reply:
    """The new text and the doubtful lines of a mail body (:class:`Reply`).

    The new text is what the sender wrote himself: without quoted replies and
    signature (module doc), invisible characters removed and odd spaces made spaces
    (:data:`~pbp.parse.names.INVISIBLE`: BOM, zero-width spaces, no-break spaces…), CR
    removed, Unicode line separators made line breaks, trailing spaces and blank lines
    at both ends removed.

    The doubtful lines (stripped, in order) are in neither: lines the reader cannot
    tell from a quote, which a line that may be quoted must never be executed for. They
    are the unmarked lines right below a quoted line (no blank line between), up to the
    next blank or quoted line: a phone re-wrapping a long quoted line puts its
    continuation there without ``>`` (iPhone, Gmail), and a reply written there is
    told from it by nothing. The caller lists those that hold a command as "looks
    quoted — not done".

    A header block of fields (``От:``/``Кому:``/``Тема:``, in any language) at the very
    top, with nothing of the sender's above it and no ``>`` quote below it, is a reply
    written under the header of the mail answered (bottom-posting): the header is
    dropped and what follows is the sender's, but for the lines of the mail answered
    (:meth:`Reply.own`: ``under_header``).

    >>> reply = split_reply("ГОЛОС Петя\\n\\n> Чтобы изменить, напишите\\nГОЛОС Оля\\n> и всё.")
    >>> reply.text, reply.doubtful, reply.doubtful_at
    ('ГОЛОС Петя', ('ГОЛОС Оля',), (2,))
    """
    lines = [line.rstrip() for line in text.translate(_INVISIBLE).split("\n")]
    kept: list[str] = []
    doubtful: list[int] = []  # indexes in kept
    under = -1  # index in kept: the text under a header block at the top
    own = False  # a non-blank line of the sender's kept so far
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line:  # the common case, quickly (a blank line is no header or footer)
            kept.append(line)
            i += 1
            continue
        if line == "--":  # "-- " (rstripped above)
            break
        if _CLIENT_FOOTER.match(line.strip()) and _footer_ends(lines, i + 1):
            # The footer line itself may be a move run into it ("Отправлено с дачи,
            # ГОЛОС Петя"): doubtful, never run, said when it holds a command.
            doubtful.append(len(kept))
            kept.append(line)
            break
        header = _is_reply_header(lines, i)
        if header:
            following = _next_text(lines, i + header)
            if following is not None and is_quoted(following):
                i += header  # bottom-posting: drop the header, keep what follows the quote
                continue
            if not own and header > 1 and _header_block(lines, i, need_address=True) == header:
                i += header  # a reply under the header block of the mail answered
                under = len(kept)
                continue
            # The quote starts here (top-posting). Its header and first line are
            # doubtful, so that a move taken for them ("--- ГОЛОС Петя ---", "Таня
            # писала:" above one's own move) is answered "looks quoted", not missed
            # without a word.
            for n in range(i, i + header):
                doubtful.append(len(kept))
                kept.append(lines[n])
            after = next((n for n in range(i + header, len(lines)) if lines[n].strip()), None)
            if after is not None and not is_quoted(lines[after]):
                doubtful.append(len(kept))
                kept.append(lines[after])
            break
        if is_quoted(line):
            i += 1
            continue
        if i > 0 and lines[i - 1] and is_quoted(lines[i - 1]):
            # Right below a quoted line: maybe the quote's re-wrapped continuation.
            while i < len(lines) and lines[i] and not is_quoted(lines[i]):
                doubtful.append(len(kept))
                kept.append(lines[i])
                i += 1
            continue
        kept.append(line)
        own = True
        i += 1
    # Both ends without blank lines; the doubtful lines' numbers follow the cut.
    start = next((n for n, line in enumerate(kept) if line), len(kept))
    end = max((n + 1 for n, line in enumerate(kept) if line), default=start)
    whole = kept[start:end]
    at = tuple(n - start for n in doubtful)
    skip = set(at)
    text = "\n".join(line for n, line in enumerate(whole) if n not in skip).strip("\n")
    below = max(under - start, 0) if under >= 0 and whole else -1
    return Reply(text, tuple(whole[n].strip() for n in at), "\n".join(whole), at, below)


#: The start of a forum ``[quote]``/``[spoiler]`` tag (opening or closing); the tag goes
#: on to the first ``]``, at most :data:`_FORUM_ATTRS_MAX` characters after ``=`` or a
#: space (``[quote=Неташка]``, ``[quote name="…"]``).
_FORUM_QUOTE_HEAD = re.compile(r"\[(/?)(?:quote|spoiler)(?=[=\s\]])", re.IGNORECASE)
_FORUM_ATTRS_MAX = 300


def _forum_tags(line: str) -> list[tuple[int, int, bool]]:
    """``(start, end, closing)`` of each forum quote tag of ``line``, in order. Linear:
    the next ``]`` is looked up once for all the tag starts before it."""
    tags: list[tuple[int, int, bool]] = []
    bracket = -1  # the first "]" at or after the last lookup, or len(line)
    pos = 0
    for head in _FORUM_QUOTE_HEAD.finditer(line):
        if head.start() < pos:
            continue  # inside the tag found before
        after = head.end()
        if bracket < after:
            found = line.find("]", after)
            bracket = len(line) if found < 0 else found
        if bracket == len(line) or (bracket > after and bracket - after - 1 > _FORUM_ATTRS_MAX):
            continue
        tags.append((head.start(), bracket + 1, bool(head.group(1))))
        pos = bracket + 1
    return tags


def unquote_forum(lines: Sequence[str]) -> list[tuple[str, bool]]:
    """For each line: its text outside forum ``[quote]``/``[spoiler]`` blocks, and True
    when any of the line was inside one or was a tag. Tags may carry attributes
    (``[quote=Неташка]``, ``[quote name="…"]``, ``[quote author=… date=…]``,
    ``[spoiler=…]``), nest, and open or close mid-line; an unclosed block runs to the
    end, a stray closing tag is dropped. Linear.

    >>> unquote_forum(["[quote=Дуг]REFUTE 1 нож", "[/quote]STATUS", "HELP"])
    [('', True), ('STATUS', True), ('HELP', False)]
    """
    result: list[tuple[str, bool]] = []
    depth = 0
    for line in lines:
        touched = depth > 0
        pieces: list[str] = []
        pos = 0
        for start, end, closing in _forum_tags(line):
            touched = True
            if depth == 0:
                pieces.append(line[pos:start])
            depth = max(0, depth - 1) if closing else depth + 1
            pos = end
        if depth == 0:
            pieces.append(line[pos:])
        result.append(("".join(pieces), touched))
    return result


def strip_echo(text: str, sent: str) -> str:
    """``text`` cut where it starts repeating ``sent`` without quote marks.

    ``sent`` is the plain-text body of our mail that the player answers (found by
    In-Reply-To); ``text`` is his new text (:func:`new_text`). Some clients quote without
    ``>`` and some players paste our whole mail: such an echo must never be executed.
    ``text`` is cut from the first of 2 or more consecutive non-blank lines (blank lines
    between them allowed) each of which, stripped of surrounding white space, equals a
    line of ``sent`` (also stripped; a leading ``>`` is *not* removed, so ``> x`` is not
    ``x``). A single copied line (our example ``ОПРОВЕРЖЕНИЕ 1 Пистолет``) stays.
    Trailing blank lines of the kept part are removed; ``text`` comes back unchanged
    when no echo is found. Linear in the sizes of both.

    >>> strip_echo("REFUTE 1 нож\\nYour hand:\\nнож, кухня", "Your hand:\\nнож, кухня\\n")
    'REFUTE 1 нож'
    """
    ours = {line.strip() for line in sent.translate(_INVISIBLE).split("\n")}
    ours.discard("")
    lines = text.split("\n")
    run_start = -1
    run = 0
    for index, line in enumerate(lines):
        stripped = line.translate(_INVISIBLE).strip()
        if not stripped:
            continue
        if stripped not in ours:
            run = 0
            continue
        if run == 0:
            run_start = index
        run += 1
        if run >= 2:
            return "\n".join(lines[:run_start]).rstrip()
    return text


def strip_help_echo(text: str, help_text: str) -> str:
    """``text`` cut where it starts repeating our command help (``help_text``, its
    example moves indented by four spaces) without quote marks: the help pasted from a
    welcome or HELP mail into a fresh mail, or quoted unmarked in a reply that names no
    mail of ours (no In-Reply-To or References).

    The cut starts at the first of 2 or more consecutive non-blank lines of ``text``
    (blank lines between them allowed) that are lines of ``help_text`` (both stripped),
    as soon as that run holds a line of the help's prose (not an example) or two lines
    that are neighbours in the help (``ПРЕДПОЛОЖЕНИЕ …`` and its English ``SUGGEST …``).
    Example moves written alone (``ГОЛОС Петя``), or two examples that are not
    neighbours in the help, stay: they may be the player's own moves. Linear.

    >>> strip_help_echo("STATUS\\nREFUTE 7 knife\\nNO REFUTATION 7",
    ...                 "Commands:\\n    REFUTE 7 knife\\n    NO REFUTATION 7\\n")
    'STATUS'
    """
    help_lines = [line for line in help_text.translate(_INVISIBLE).split("\n") if line.strip()]
    stripped = [line.strip() for line in help_lines]
    ours = set(stripped)
    examples = {s for line, s in zip(help_lines, stripped, strict=True) if line.startswith("    ")}
    neighbours = set(itertools.pairwise(stripped))
    lines = text.split("\n")
    run: list[tuple[int, str]] = []
    prose = False
    for index, line in enumerate(lines):
        line = line.translate(_INVISIBLE).strip()
        if not line:
            continue
        if line not in ours:
            run, prose = [], False
            continue
        run.append((index, line))
        prose = prose or line not in examples
        if len(run) >= 2 and (prose or (run[-2][1], line) in neighbours):
            return "\n".join(lines[: run[0][0]]).rstrip()
    return text
