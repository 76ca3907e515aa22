"""Forum quotes pasted as text: the header a forum engine writes above a quoted post
(``Оля сказал(а):``, ``Quote from: Оля on …``, ``Сообщение от Оля``) and, where it
writes one, the line that ends the post (XenForo's ``Нажмите для раскрытия...``).

The engines Russian forums run are in one table, :data:`FORUM_QUOTES`, in Russian and
English, each entry naming where its strings come from (the engine's language file
where it is public, else the markup its pages show). :func:`forum_quote` finds a header
line, :func:`quote_end` the line that ends its post. :func:`pbp.mail.read.body.split_reply`
makes the whole quote doubtful (never executed; answered "looks quoted — not done"
when it holds a command), the sender's own lines before and after it his text.

What is told apart, and what is not (conservatively: a line that may be the quoted
post is doubtful):

- a header of an engine with an end line (XenForo) up to that line, quotes of the
  same engine inside counted (a nested quote shows its own header and end line);
- MyBB's text form (its mail notifications): the header, a line ``--``, the post, a
  line ``--``;
- a header whose post is ``>``-marked below it (a mail client quoted the pasted
  quote): the header alone; the marked lines are a quote as any;
- any other header (no end line, or its end line missing: XenForo writes it only
  under a long post): everything below it. A post copied from a web page has no mark
  where it ends, and a blank line does not end it (posts have paragraphs);
- an end line without a header above it (a quote without author): everything above
  it, back to the start of the mail or the end of the quote before.

Pure: no I/O; each line is looked at once by a regular expression of bounded work
(lines over :data:`_LINE_MAX` characters are no header).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class ForumQuote:
    """The quote headers of one forum engine in one language.

    - ``engine``: the engine and its versions (``"XenForo 2"``);
    - ``language``: ``"ru"`` or ``"en"``;
    - ``headers``: each header line as the engine writes it: ``{name}`` the author,
      ``{date}`` a date (it holds a digit), ``{user}`` a username of letters, digits,
      ``_ . -`` (Discourse), ``[…]`` an optional part; a space is any white space
      (where the page has none between two elements, copying writes none: MyBB's
      date and name). A link glyph (``↑``) or an empty ``()`` (a link image copied
      without text) may end the line;
    - ``ends``: the lines that end the quoted post (none: the engine writes none);
    - ``fence``: a line written above and below the quoted post (``--``);
    - ``text_follows``: the header counts only with the post's text below it (blank
      lines between: a page copied as text puts one under the quote's title): a header
      this plain (Discourse's ``name:``) alone at the end is the sender's own line;
    - ``source``: where the strings come from.
    """

    engine: str
    language: str
    headers: tuple[str, ...]
    source: str
    ends: tuple[str, ...] = ()
    fence: str = ""
    text_follows: bool = False


#: The quote headers of the forum engines Russian forums run, in Russian and English.
#: A line is the header of the first entry it matches: those with end lines or a fence
#: come before those without (``X said:`` is XenForo's and Invision's, ``X wrote:``
#: MyBB's and phpBB's).
FORUM_QUOTES: tuple[ForumQuote, ...] = (
    ForumQuote(
        "XenForo 2",
        "en",
        ("{name} said:",),
        "template bb_code_tag_quote as compiled with the English phrases x_said and "
        "click_to_expand (rd1571/xenforo, upload/internal_data/code_cache/templates/l1/s1/"
        "public/bb_code_tag_quote.php)",
        ends=("Click to expand...", "Click to shrink..."),
    ),
    ForumQuote(
        "XenForo 1",
        "en",
        ("{name} said:",),
        "template bb_code_tag_quote, attribution and quoteExpand (thoinv/forums, "
        "internal_data/templates/S.10,L.2,bb_code_tag_quote.php)",
        ends=("Click to expand...",),
    ),
    ForumQuote(
        "XenForo 1, 2",
        "ru",
        ("{name} сказал(а):", "{name} сказал:", "{name} сказала:"),
        "the Russian translation of x_said and click_to_expand on Russian XenForo forums "
        "(XenForo's language files are not public; the expand lines as scrapers of those "
        "forums strip them: 'Нажмите для раскрытия...', 'Нажмите, чтобы раскрыть...')",
        ends=("Нажмите для раскрытия...", "Нажмите, чтобы раскрыть...", "Нажмите для скрытия..."),
    ),
    ForumQuote(
        "MyBB 1.8",
        "en",
        ("Quote:", "[({date})]{name} Wrote:[ ({date})]"),
        "inc/languages/english/global.lang.php quote 'Quote:' and wrote 'Wrote:'; "
        "inc/class_parser.php mycode_parse_post_quotes: the date before the name on the "
        "page, and the text form '\\nNAME Wrote: (DATE)\\n--\\nMESSAGE\\n--\\n' of its "
        "mail (mybb/mybb)",
        fence="--",
    ),
    ForumQuote(
        "MyBB 1.8",
        "ru",
        ("Цитата:", "[({date})]{name} Написал:[ ({date})]", "[({date})]{name} написал(а):"),
        "inc/languages/russian/global.lang.php quote 'Цитата:' and wrote 'Написал:', the "
        "admin's 'написал(а):' (XTRO123/mybb_lang_ru)",
        fence="--",
    ),
    ForumQuote(
        "phpBB 3",
        "en",
        ("{name} wrote:[ {date}]",),
        "language/en/common.php WROTE 'wrote' in bbcode.html's quote_username_open "
        "'{USERNAME} {L_WROTE}{L_COLON}', 3.2+ with a link and the post's date "
        "(phpbb/phpbb)",
    ),
    ForumQuote(
        "phpBB 3",
        "ru",
        ("{name} писал(а):[ {date}]", "{name} писал:[ {date}]", "{name} писала:[ {date}]"),
        "language/ru/common.php WROTE 'писал(а)' (Olympusrupack/Olympusrupack, the "
        "Russian language pack)",
    ),
    ForumQuote(
        "vBulletin 3, 4, 5",
        "en",
        ("Quote:", "[Quote ]Originally Posted by {name}[ View Post]"),
        "phrases quote and originally_posted_by, the quote shown as 'Quote:' then "
        "'Originally Posted by NAME' and a 'View Post' link (vBulletin's language XML is "
        "not public; the shape as its pages show it)",
    ),
    ForumQuote(
        "vBulletin 3, 4, 5",
        "ru",
        ("Цитата:", "[Цитата ]Сообщение от {name}[ Посмотреть сообщение]"),
        "the Russian translation of quote and originally_posted_by on Russian vBulletin forums",
    ),
    ForumQuote(
        "Invision Community 4, IP.Board 2, 3",
        "en",
        (
            "{name} said:",
            "On {date}, {name} said:",
            "{name}, on {date}, said:",
            "QUOTE[ ]({name} @ {date})",
        ),
        "the editor's citation strings editorQuoteLine '{username} said:' and "
        "editorQuoteLineWithTime (ips.editor in IPS 4's JavaScript); IP.Board 3's "
        "'NAME, on DATE, said:' and 2's 'QUOTE(NAME @ DATE)'",
    ),
    ForumQuote(
        "Invision Community 4, IP.Board 2, 3",
        "ru",
        (
            "{name} сказал:",
            "{name} сказала:",
            "{name} сказал(а):",
            "{date}, {name} сказал:",
            "{name} ({date}) писал:",
            "Цитата[ ]({name} @ {date})",
        ),
        "the Russian language packs of IPS 4 (editorQuoteLine), IP.Board 3 and 2",
    ),
    ForumQuote(
        "SMF 1.1, 2.0, 2.1",
        "en",
        ("Quote from: {name} on {date}", "Quote from: {name}", "Quote"),
        "Themes/default/languages/index.english.php quote_from 'Quote from', search_on "
        "'on', quote 'Quote', in Sources/Subs.php's quote codes (realdigger/SMF-2.0-RU)",
    ),
    ForumQuote(
        "SMF 1.1, 2.0, 2.1",
        "ru",
        ("Цитата: {name} от {date}", "Цитата: {name}", "Цитировать"),
        "Themes/default/languages/index.russian-utf8.php quote_from 'Цитата', search_on "
        "'от', quote 'Цитировать' (realdigger/SMF-2.0-RU)",
    ),
    ForumQuote(
        "uCoz",
        "ru",
        ("Цитата", "Цитата {name} ()", "Цитата ({name})", "{name} пишет:"),
        'the quote markup of uCoz forums: \'<b>Цитата</b> <span class="qName">NAME</span> '
        "(<a><img alt=\"\"></a>)', older 'Цитата (NAME)', and the '[quote=\"NAME\"]' form "
        "'NAME пишет:' of its editor (reproduced by uCoz import code in public "
        "repositories)",
    ),
    ForumQuote(
        "uCoz",
        "en",
        ("Quote", "Quote {name} ()", "Quote ({name})", "{name} writes:"),
        "the same markup on English uCoz forums",
    ),
    ForumQuote(
        "rusff / mybb.ru (PunBB, FluxBB)",
        "ru",
        ("{name} написал(а):", "{name} пишет:"),
        "lang/Russian/common.php wrote 'пишет' of PunBB (CantorSystems/PunBB); mybb.ru "
        "and rusff.me, hosted PunBB forks, write 'NAME написал(а):' (not public)",
    ),
    ForumQuote(
        "rusff / mybb.ru (PunBB, FluxBB)",
        "en",
        ("{name} wrote:",),
        "lang/English/common.php wrote 'wrote' (punbb/punbb)",
    ),
    ForumQuote(
        "Discourse",
        "en",
        ("{user}:",),
        "the quote's title, its author's username and a colon (no phrase: the same in "
        "every language); the raw '[quote=\"NAME, post:N, topic:M\"]' of its mail is a "
        "forum tag (pbp.mail.read.forumtags.unquote_forum)",
        text_follows=True,
    ),
)

#: Longest line (characters) looked at as a forum quote header.
_LINE_MAX = 200
#: What may end a header line: a link glyph, or a link image copied without its text.
_LINK = r"(?:\s*(?:[↑⬆▲^→]|\(\s*\)))?"
_PLACEHOLDERS = {
    # An author: no address or angle bracket (a mail client's attribution has them),
    # no pronoun alone ("Я сказал:" is the sender's own).
    "{name}": r"(?!(?:я|мы|ты|вы|он|она|они|i|we|you|he|she|they)\s+\S+\s*:)"
    r"[^\s<>@][^<>@]{0,59}?",
    "{date}": r"[^<>@\n]{0,40}?\d[^<>@\n]{0,40}?",
    # A Discourse username: letters of any script (Discourse allows Unicode usernames
    # since 2.3), digits, "_", "." or "-", 3 to 20 characters, not written as a person
    # writes a heading: not all capitals (a command word written alone, "STATUS:"), not
    # one capitalised word ("Moves:", "Two:", "Ходы:"), not a heading word ("upd:",
    # "p.s.:", "ходы:"). Usernames are mostly lower case or hold a digit, "_", "." or
    # "-" ("tanya", "tanya_k", "Tanya88", "вася", "вася_петров"); a user named "Tanya"
    # or "Вася" is read as a heading here, and as a quote title when a seat of the game
    # has that name (pbp.mail.read.reply.Reply.with_titles).
    "{user}": r"(?-i:(?![A-ZА-ЯЁ0-9_.-]+:)(?![A-ZА-ЯЁ][a-zа-яё]+:)"
    r"(?!(?i:upd|апд|p\.?p?\.?s\.?|пс|зы|note|notes|edit|update|todo|fyi|btw|imho|moves"
    r"|votes|vote|ходы|ход|голос|голоса|голосую|итог|итоги|ответ|вопрос|план|заметки"
    r"|примечание|upd\d*|ps\d*):)"
    r"[^\W][\w.-]{2,19})",
}
#: Words one of which every header holds (lower case), or its last character: a line
#: without any is no header, found without trying each pattern.
_STEMS = (
    "said", "сказал", "wrote", "writes", "писал", "пишет", "quote", "цитат", "цитир",
    "posted", "сообщение от",
)  # fmt: skip
_TEMPLATE_PIECE = re.compile(r"\{name\}|\{date\}|\{user\}|\[|\]| +|[^\[\]{ ]+|\{")


def _pattern(header: str) -> str:
    """The regular expression of one header template (:class:`ForumQuote`)."""
    out: list[str] = []
    for piece in _TEMPLATE_PIECE.findall(header):
        if piece in _PLACEHOLDERS:
            out.append(_PLACEHOLDERS[piece])
        elif piece == "[":
            out.append("(?:")
        elif piece == "]":
            out.append(")?")
        elif piece.isspace():
            out.append(r"\s+")
        else:
            out.append(re.escape(piece))
    return "".join(out)


@dataclass(frozen=True)
class _Compiled:
    """The table read once: one pattern for every header (``any_header``), each
    entry's own (``entries``), and the end lines (normalised: :func:`_norm`)."""

    any_header: re.Pattern[str]
    entries: tuple[tuple[ForumQuote, re.Pattern[str]], ...]
    ends: frozenset[str]


@cache
def _compiled() -> _Compiled:
    """:data:`FORUM_QUOTES` compiled (once)."""
    entries: list[tuple[ForumQuote, re.Pattern[str]]] = []
    for entry in FORUM_QUOTES:
        body = "|".join(f"(?:{_pattern(header)})" for header in entry.headers)
        entries.append((entry, re.compile(rf"^\s*(?:{body}){_LINK}\s*$", re.IGNORECASE)))
    every = "|".join(entry.pattern for _, entry in entries)
    ends = frozenset(_norm(end) for entry in FORUM_QUOTES for end in entry.ends)
    return _Compiled(re.compile(every, re.IGNORECASE), tuple(entries), ends)


def _norm(line: str) -> str:
    """``line`` as end lines are compared: stripped, case-folded, ``…`` as ``...``."""
    return line.strip().replace("…", "...").casefold()


def forum_quote(line: str) -> ForumQuote | None:
    """The entry of :data:`FORUM_QUOTES` whose header ``line`` is, or None.

    >>> forum_quote("Оля сказал(а):").engine
    'XenForo 1, 2'
    >>> forum_quote("Quote from: Оля on December 01, 2026, 12:40:00 PM").engine
    'SMF 1.1, 2.0, 2.1'
    >>> forum_quote("pbp <gm@example.test> wrote:") is None, forum_quote("ГОЛОС Петя") is None
    (True, True)
    """
    if not line or len(line) > _LINE_MAX:
        return None
    lowered = line.lower()
    if not lowered.rstrip().endswith((":", ")")) and not any(s in lowered for s in _STEMS):
        return None
    table = _compiled()
    if table.any_header.match(line) is None:
        return None
    return next((entry for entry, pattern in table.entries if pattern.match(line)), None)


def forum_header(lines: list[str], i: int) -> ForumQuote | None:
    """The entry of :data:`FORUM_QUOTES` whose header ``lines[i]`` is
    (:func:`forum_quote`), its post's text below it where the entry asks for that
    (``text_follows``; blank lines between), or None.

    >>> forum_header(["tanya:", "", "ГОЛОС Таня"], 0).engine, forum_header(["tanya:", ""], 0)
    ('Discourse', None)
    >>> forum_header(["Moves:", "REFUTE 7 knife"], 0) is None
    True
    """
    entry = forum_quote(lines[i])
    if entry is None or not entry.text_follows:
        return entry
    # Linear over a body: the blank lines after one header are looked at once.
    following = next((n for n in range(i + 1, len(lines)) if lines[n].strip()), None)
    return entry if following is not None else None


def is_quote_end(line: str) -> bool:
    """True when ``line`` is a line that ends a quoted post (XenForo's ``Click to
    expand...``, ``Нажмите для раскрытия...``) of any engine of :data:`FORUM_QUOTES`.

    >>> is_quote_end("Нажмите для раскрытия..."), is_quote_end("Нажмите сюда")
    (True, False)
    """
    return len(line) <= _LINE_MAX and _norm(line) in _compiled().ends


def quote_end(lines: list[str], i: int, entry: ForumQuote) -> int | None:
    """The index of the line that ends the post quoted under the header ``lines[i]`` of
    ``entry`` (:func:`forum_quote`), or None when no line is known to (the caller takes
    the rest of the mail for the quote: module doc).

    The end is ``entry``'s end line, the headers of quotes with end lines inside it
    counted (each needs its own); for a fenced entry (MyBB's mail), the second fence
    line when the first follows the header.

    >>> quote_end(["Оля сказал(а):", "ГОЛОС Таня", "Нажмите для раскрытия...", "ГОЛОС Петя"],
    ...           0, forum_quote("Оля сказал(а):"))
    2
    """
    if entry.fence:
        following = next((n for n in range(i + 1, len(lines)) if lines[n].strip()), None)
        if following is not None and lines[following].strip() == entry.fence:
            return next(
                (n for n in range(following + 1, len(lines)) if lines[n].strip() == entry.fence),
                None,
            )
    if not entry.ends:
        return None
    depth = 1
    for n in range(i + 1, len(lines)):
        line = lines[n].strip()
        if not line:
            continue
        if is_quote_end(line):
            depth -= 1
            if depth == 0:
                return n
            continue
        inner = forum_quote(line)
        if inner is not None and inner.ends:
            depth += 1
    return None
