"""Where a quoted or forwarded mail starts in a body: the reply header a client writes
above the mail it quotes (:func:`reply_header`), a header block of fields
(:func:`header_block`) and the first line of a forwarded mail (:data:`FORWARD_SEPARATOR`).
Used by :func:`pbp.mail.read.body.split_reply` and :mod:`pbp.mail.read.textparts`.

What is recognised (players answer from many clients, in Russian and English):
``On Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:``, ``пн, 1 дек. 2026 г. в
10:00, X <x@example.test>:``, ``X пишет:`` and the same in other languages, Yandex's
``01.12.2026, 12:00, "X":``, Mail.ru's ``Среда, 12 марта 2025, 10:15 +03:00 от X:`` (any
line ending in ``:`` with a time and an address or a year), clients' wrapping of it over
three lines, Zoho's ``---- On …, X <x@example.test> wrote ----``,
``-----Original Message-----`` and dashed separators whose words name a message in
any language pbp knows or above another header (a dashed line otherwise is the sender's
heading: ``----- Ходы -----``), Outlook's
separator line of underscores and its ``From:``/``Sent:`` (``От:``/``Отправлено:``)
block, header blocks of fields in any language, GroupWise's ``>>> … >>>``, Lotus Notes'
labels, and forums' and messengers' lines above a post copied as text.

Pure: no I/O; each function looks at a few lines of at most :data:`_HEADER_MAX`
characters.
"""

from __future__ import annotations

import itertools
import re

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
#: The same anywhere in a line.
_WROTE_ANYWHERE = re.compile(_WROTE_WORDS, re.IGNORECASE)
#: The same without its colon, which some clients leave out (``On … <x@…> wrote``):
#: a header only with an address and a time on the line.
_WROTE_BARE = re.compile(rf"(?:{_WROTE_WORDS})\s*$", re.IGNORECASE)
#: A dashed separator line with a few words between the dashes
#: (``-----Ursprüngliche Nachricht-----``, ``-------- Оригінальне повідомлення --------``,
#: ``----- Messaggio originale -----``): the start of a quoted or forwarded mail when
#: its words name a message (:data:`_MESSAGE_WORDS`) or a reply header follows it;
#: otherwise the sender's own heading (``----- Ходы -----``, ``=== Ход 3 ===``).
_DASHED = re.compile(r"^[-—–=*_]{3,}[^\S\n]*([^\W\d_][^-—–=*_\n]{0,50}?)[^\S\n]*[-—–=*_]{3,}$")
#: The same anywhere in a line, with anything after it: Samsung Email glues the header
#: fields onto its separator (``-------- Исходное сообщение --------От: Оля <…>
#: Дата: …``), and a reply may run into it (:func:`collapsed_header`).
_DASHED_IN = re.compile(r"[-—–=*_]{3,}[^\S\n]*([^\W\d_][^-—–=*_\n]{0,50}?)[^\S\n]*[-—–=*_]{3,}")
#: The words of a dashed separator that name the mail quoted or forwarded below it, as
#: clients write them (the start of a word, lower case): "message", "mail", "original",
#: "forwarded" in the languages of the clients players use (Outlook's, Thunderbird's,
#: Gmail's, Yahoo's, Apple Mail's, Yandex's and Mail.ru's separators), and a help desk's
#: "reply above this line".
_MESSAGE_WORDS = re.compile(
    r"(?<![^\W\d_])(?:"
    # English, German, French, Spanish, Italian, Portuguese
    r"message|e-?mail|mail\b|original|forward|reply\s+message|nachricht|ursprüngliche?"
    r"|weitergeleitet|antwort\s+nachricht|transféré|d'origine|mensaje|reenviado|messaggio"
    r"|inoltrato|mensagem|encaminhad"
    # Dutch, Danish, Norwegian, Swedish, Finnish
    r"|bericht|oorspronkelijk|doorgestuurd|meddelelse|besked|melding|oprindelig|opprinnelig"
    r"|videresendt|meddelande|ursprungligt|vidarebefordrat|viesti|alkuperäinen|välitetty"
    # Polish, Czech, Slovak, Hungarian, Turkish, Greek
    r"|wiadomo[śs][ćc]|oryginaln|przekazan|zpráv|správ|původní|pôvodn|přeposlan|üzenet"
    r"|eredeti|továbbított|mesaj|orijinal|iletil|μήνυμα"
    # Russian, Ukrainian, Belarusian, Bulgarian, Serbian
    r"|сообщени|письм|исходн|пересла|пересыла|перенаправлен|оригинальн|повідомлен"
    r"|оригінальн|переслан|вихідн|паведамлен|съобщени|порук|оригинално"
    # Chinese, Japanese, Korean
    r"|邮件|郵件|消息|訊息|メッセージ|メール|메시지|메일"
    # a help desk's line above which the reply is written
    r"|above\s+this\s+line|выше\s+этой\s+(?:строки|линии)"
    r")",
    re.IGNORECASE,
)
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
#: A label of a mail header written on one line with others (a header block a client
#: collapsed into one line or one HTML paragraph: ``From: … Sent: … To: … Subject: …``),
#: not inside a word; its group is the kind of field (:func:`collapsed_header`).
_INLINE_LABEL = re.compile(
    r"(?<![^\W_])(?:(?P<from>from|от|von)|(?P<date>date|sent|дата|отправлено|gesendet)"
    r"|(?P<to>to|кому|an)|(?P<subject>subject|тема|betreff))\s*:",
    re.IGNORECASE,
)
#: Fewest kinds of field (of from, date, to, subject) a collapsed header line names.
_INLINE_KINDS = 3
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
#: Longest line (characters) looked at as a possible reply header.
_HEADER_MAX = 400


#: The first characters of a reply header line that does not end in ``:`` (a separator
#: of dashes or underscores, Outlook's ``*From:*``/``От:``/``Von:``).
_HEADER_FIRST = frozenset("-_*fFvVоО")


def header_block(lines: list[str], i: int, *, need_address: bool = False) -> int:
    """How many lines (0: none) the block of header fields starting at ``lines[i]``
    spans: ``Key: value`` lines (:data:`_FIELD`; at most :data:`_FIELDS_MAX` looked at,
    up to four blank lines between two allowed, the same number all along, as an HTML
    header of one ``<div>`` a field reads), at least three of which one value holds an
    address and another a date or a time, or at least four with a date or a time and
    two keys of :data:`HEADER_KEYS` (Outlook hides the address). Found by its
    structure, so that a client writing the keys in a language pbp has no word list for
    (Ukrainian ``Від:``/``Дата:``/``Кому:``/``Тема:``, Polish ``Od:``/``Wysłano:``,
    Thai, Chinese ``发件人：``…) still marks the start of the quoted mail.
    ``need_address``: only the first kind (address and date) counts. ``lines`` are
    right-stripped."""
    fields, end = _fields(lines, i)
    return end - i if _is_header(fields, need_address=need_address) else 0


def header_fields(lines: list[str], i: int) -> list[tuple[str, str]]:
    """The fields ``(key lower-cased, value)`` of the block of ``Key: value`` lines
    starting at ``lines[i]``, as :func:`header_block` reads them (``[]``: none); used
    by :mod:`pbp.mail.read.quotedheader`.

    >>> header_fields(["*От:* pbp <gm@example.test>", "Тема: Re: ход", "", "ГОЛОС Петя"], 0)
    [('от', 'pbp <gm@example.test>'), ('тема', 'Re: ход')]
    """
    return _fields(lines, i)[0]


def _fields(lines: list[str], i: int) -> tuple[list[tuple[str, str]], int]:
    """``([(key lower-cased, value)], the index after the last field)`` of the run of
    ``Key: value`` lines from ``lines[i]`` (:func:`header_block`'s structure)."""
    fields: list[tuple[str, str]] = []
    end = last = i  # last: the line after the last field
    spacing: int | None = None  # the blank lines between fields: the same all along
    while end < len(lines) and len(fields) < _FIELDS_MAX:
        gap = 0
        if not lines[end].strip():
            following = _after_blanks(lines, end)
            if following is None or not fields:
                break
            gap = following - end
            end = following  # blank lines between two fields (an HTML header's <p>s)
        if fields:
            if spacing is None:
                spacing = gap
            elif gap != spacing:
                break  # "ГОЛОС: Петя", a blank line, then a header: not one block
        field = _field(lines[end])
        if field is None:
            break
        fields.append(field)
        end += 1
        last = end
    return fields, last


def _after_blanks(lines: list[str], end: int) -> int | None:
    """The index of the first non-blank line after the blank ``lines[end]``, when at most
    :data:`_FIELD_GAP` blank lines follow it, else None."""
    following = end + 1
    while following < len(lines) and following - end <= _FIELD_GAP and not lines[following].strip():
        following += 1
    return following if following < len(lines) and lines[following].strip() else None


def _field(line: str) -> tuple[str, str] | None:
    """``(key lower-cased, value)`` of a ``Key: value`` line (:data:`_FIELD`), or None."""
    if len(line) > _HEADER_MAX or not _COLON.search(line[:40]):
        return None
    field = _FIELD.match(line)
    if field is None:
        return None
    return _COLON.split(line, 1)[0].strip(" *").lower(), field.group("value") or ""


def _is_header(fields: list[tuple[str, str]], *, need_address: bool) -> bool:
    """True when ``fields`` (:func:`_fields`) make a header block: three with an address
    and a date or a time, or (unless ``need_address``) four with a date or a time and
    two keys of :data:`HEADER_KEYS`."""
    address = dated = False
    for _key, value in fields:
        if not address and _EMAIL.search(value):
            address = True
        elif not dated and (
            _TIME.search(value) or _YEAR.search(value) or _NUMERIC_DATE.search(value)
        ):
            dated = True
    known = sum(1 for key, _value in fields if key in HEADER_KEYS)
    return (len(fields) >= 3 and address and dated) or (
        len(fields) >= 4 and dated and known >= 2 and not need_address
    )


def collapsed_header(line: str) -> int | None:
    """Where a quote header collapsed into one line starts in ``line`` (its index), or
    None when the line holds none: a dashed separator naming a message
    (:data:`_MESSAGE_WORDS`) with anything after it on the line (Samsung Email's
    ``-------- Исходное сообщение --------От: Оля <olya@example.test> Дата: …``), or
    at least three kinds of header field (from, date, to, subject: ``From:``/``От:``,
    ``Sent:``/``Date:``/``Отправлено:``/``Дата:``, ``To:``/``Кому:``,
    ``Subject:``/``Тема:``) on the line, with an address after the first label
    (``From: x@example.test Sent: … To: … Subject: …``, an HTML header of one
    paragraph). The text before it on the line is the sender's (a reply run into the
    header); everything after it is the quoted mail.

    >>> line = "ГОЛОС Петя -----Исходное сообщение----- От: olya@example.test Тема: ход"
    >>> line[collapsed_header(line):]
    '-----Исходное сообщение----- От: olya@example.test Тема: ход'
    >>> collapsed_header("From: x@example.test Sent: Monday 10:30 To: y@example.test Subject: ход")
    0
    >>> collapsed_header("----- Ходы ----- ГОЛОС Петя") is None, collapsed_header("От: Оля") is None
    (True, True)
    """
    if len(line) > _HEADER_MAX:
        return None
    for dashed in itertools.islice(_DASHED_IN.finditer(line), _OPENERS_TRIED):
        if _MESSAGE_WORDS.search(dashed.group(1)):
            return dashed.start()
    if line.count(":") < _INLINE_KINDS and line.count("：") < _INLINE_KINDS:
        return None
    labels = list(itertools.islice(_INLINE_LABEL.finditer(line), _FIELDS_MAX))
    kinds = {label.lastgroup for label in labels}
    if len(kinds) < _INLINE_KINDS or not _EMAIL.search(line, labels[0].end()):
        return None
    return labels[0].start()


def reply_header(lines: list[str], i: int) -> int:
    """How many lines (0: none) the reply header starting at ``lines[i]`` spans
    (``lines`` are right-stripped): a line that marks a quote by itself, a header block
    (:func:`header_block`), a separator, Outlook's ``From:`` block, or an attribution
    (``… wrote:``) over at most three lines.

    >>> reply_header(["STATUS", "On Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:"], 1)
    1
    """
    line = lines[i].strip()
    if not line or len(line) > _HEADER_MAX:
        return 0
    if line.startswith(">>>"):
        found = _GROUPWISE.match(line) and (_EMAIL.search(line) or _TIME.search(line))
        return 1 if found else 0
    if _marks_alone(lines, i, line):
        return 1
    if collapsed_header(line) is not None:
        return 1
    if _COLON.search(line[:40]):
        block = header_block(lines, i)
        if block:
            return block
    return _separator_or_attribution(lines, i, line)


def _marks_alone(lines: list[str], i: int, line: str) -> bool:
    """True when the line (``lines[i]``, and ``line`` stripped) is a reply header by
    itself: a dashed separator (:func:`_dashed_separator`), a Lotus Notes label, a
    forum's or messenger's post header, or ``… wrote`` without its colon beside an
    address and a time."""
    raw = lines[i]
    if line[0] in "-—–=*_":
        dashed = _DASHED.match(line)
        if dashed:
            return _dashed_separator(lines, i, dashed.group(1))
    if _LOTUS_LABEL.match(raw) or (len(line) < 150 and _POST_HEADER.match(line)):
        return True
    return bool(
        "@" in line
        and _WROTE_BARE.search(line)
        and _EMAIL.search(line)
        and (_TIME.search(line) or _DOTTED_TIME.search(line))
    )


def _dashed_separator(lines: list[str], i: int, words: str) -> bool:
    """True when the dashed line ``lines[i]`` (:data:`_DASHED`, ``words`` between its
    dashes) starts a quoted or forwarded mail: its words name a message in a language
    pbp knows (:data:`_MESSAGE_WORDS`), or hold ``wrote`` or a time (an attribution
    between dashes), or a reply header other than a dashed line
    follows it (at most two blank lines between: a separator in a language pbp has no
    words for, above the quoted mail's ``Od:``/``Datum:`` block). Any other dashed line
    is the sender's heading (``----- Ходы -----``), and the lines under it his."""
    if _MESSAGE_WORDS.search(words) or _WROTE_ANYWHERE.search(words) or _TIME.search(words):
        return True  # "------On 29.12.2026 12:40, X wrote-----" is an attribution
    following = next((n for n in range(i + 1, min(i + 4, len(lines))) if lines[n].strip()), None)
    if following is None:
        return False
    below = lines[following].strip()
    if below[0] in "-—–=*_" and _DASHED.match(below):
        return False  # two headings, one under the other (and no recursion)
    return reply_header(lines, following) > 0


def _separator_or_attribution(lines: list[str], i: int, line: str) -> int:
    """:func:`reply_header` for the other kinds: a separator line, Outlook's rule or
    ``From:`` block, or an attribution ending in ``:``."""
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
    return _attribution(lines, i, line) if colon else 0


#: The first words of an attribution as clients write them (``On Tue, …``, ``Am …``,
#: ``Le …``, ``El …``, ``Il giorno …``, ``Em …``, ``Op …``, ``Den …``, ``W dniu …``,
#: ``В Вт, …``, a weekday, a date, ``2026年…``), maybe after a run of dashes (Zoho's and
#: Yahoo's ``--- On …``): where the sender's own text run into its line ends
#: (:func:`attribution_start`).
_ATTRIBUTION_OPENER = re.compile(
    r"(?:[-—–]{2,}[^\S\n]*|(?<!\S))"
    r"(?:(?:On|Am|Le|El|Il|Em|Op|Den|På|Dnia|Dne|Dňa|В|Від|У|Στις)\s"
    r"|W\s+dniu\s|In\s+data\s"
    r"|(?i:mon|tue|wed|thu|fri|sat|sun|пн|вт|ср|чт|пт|сб|вс|понедельник|четверг|пятниц"
    r"|суббот|воскресень)[^\W\d_]{0,9}\.?,"
    r"|\d{1,4}[./-]\d{1,2}[./-]\d{2,4}\b"
    r"|\d{1,2}\s+[^\W\d_]{3,9}\.?\s+\d{4}\b"
    r"|\d{4}\s*年)"
)

#: Most places in a line tried as the start of its attribution (bounded work per line).
_OPENERS_TRIED = 8


def _first_word(text: str) -> bool:
    """True when ``text`` is a short capitalised word alone (``På``, ``Kl``): an
    attribution's first word in a language pbp has no opener for, never the sender's
    text before it (his commands are written in capitals or hold two words)."""
    word = text.strip()
    return 0 < len(word) <= 5 and word.isalpha() and word[0].isupper() and word[1:].islower()


def attribution_start(lines: list[str], i: int, span: int) -> int | None:
    """Where the reply header of ``span`` lines at ``lines[i]`` (:func:`reply_header`)
    starts in its first line: 0 when it starts the line; the index in ``lines[i]`` of
    its first word when the sender's own text stands before it on that line (``ГОЛОС
    Петя On Wed, 4 Apr 2012 at 15:59, X <x@example.test> wrote:``, a reply typed at the
    start of the header line): the first of the words clients begin an attribution with
    (:data:`_ATTRIBUTION_OPENER`) from which the rest of the line is still a header of
    ``span`` lines, the text before it holding no address and no ``wrote``; None when
    it may start later in the line but where is not known (``Таня писала:``, ``X
    <x@example.test> wrote:``: text of the sender's may stand before it).

    >>> line = "ГОЛОС Петя On Wed, 4 Apr 2012 at 15:59, X <x@example.test> wrote:"
    >>> line[attribution_start([line, "> Hi"], 0, 1):]
    'On Wed, 4 Apr 2012 at 15:59, X <x@example.test> wrote:'
    >>> attribution_start(["On Wed, 4 Apr 2012 at 15:59, X <x@example.test> wrote:"], 0, 1)
    0
    >>> attribution_start(["-----Original Message-----"], 0, 1)
    0
    >>> attribution_start(["Таня писала:"], 0, 1) is None
    True
    """
    line = lines[i]
    if len(line) > _HEADER_MAX:
        return 0
    if span == 1:
        collapsed = collapsed_header(line)
        if collapsed is not None:
            return collapsed if line[:collapsed].strip() else 0
    following = lines[i + 1 : i + span]
    for opener in itertools.islice(_ATTRIBUTION_OPENER.finditer(line), _OPENERS_TRIED):
        start = opener.start()
        before = line[:start]
        if not before.strip():
            return 0  # the header starts the line
        if "@" in before or _WROTE_ANYWHERE.search(before) or _first_word(before):
            break  # "X <x@…> wrote on 01.12.2026:", "Kl 14.09.2015 …": it started before
        if reply_header([line[start:].strip(), *following], 0) == span:
            return start
    # A header found by its start (a separator, a field, a post header) starts the line:
    # a word before it makes it no header. One found by its end may start anywhere.
    return None if reply_header(["x " + line.strip(), *following], 0) == span else 0


def _attribution(lines: list[str], i: int, line: str) -> int:
    """How many lines (1 to 3, 0: none) the attribution starting at ``lines[i]`` spans:
    ``… wrote:`` (:data:`_WROTE`), or a line ending in ``:`` with a time and an address
    or a year, or a dated one (:data:`_DATED`); clients wrap a long one."""
    for span in (1, 2, 3):
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
