"""What the command parsers of every game share (:mod:`pbp.games.cluedo.parse`,
:mod:`pbp.games.maniac.parse`): the result of one command line, the caps against slow
input, how a line is read, how its command keyword is recognised (:class:`Keywords`),
and player names in their Russian case forms.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Generic, TypeVar

from pbp.games.core.events import AmbiguousMove, InvalidMove, MoveError
from pbp.text import keywords, morph
from pbp.text.names import (
    PREPOSITIONS,
    NameMatcher,
    clean,
    closest_keyword,
    fold_confusables,
    normalize,
    stem,
)

#: Longest command line read (characters, markup removed); longer ones are refused
#: with ``line_too_long`` before any name is matched, so that a mail cannot make the
#: parser work for long (name matching is not linear in the line length).
LINE_LIMIT = 500
#: Most command lines read from one mail; the next one is refused with
#: ``too_many_commands`` and the rest of the mail is not read.
COMMAND_LIMIT = 50
#: Most lines of a mail's text read for commands (:func:`command_lines`); the lines
#: after them are not read, and the reply lists them as ignored like any other line
#: that is no command (:func:`pbp.app.playermoves.ignored_lines`). Keeps the work on one mail
#: bounded: a line that is no command still costs some microseconds to recognise.
MAX_LINES = 2000
#: Characters of an over-long line quoted back in ``line_too_long``.
EXCERPT = 60
#: Characters stripped from the end of a name or a command's rest.
TRAILING = " .!?;:\"'»”)"

MoveT = TypeVar("MoveT")
_MoveCo = TypeVar("_MoveCo", covariant=True)


@dataclass(frozen=True)
class ParsedLine(Generic[_MoveCo]):
    """One command line of a mail: ``line_no`` (1-based, in the letter's text), ``text``
    (the line as written; several lines joined with ``"\\n"`` when a command spans them),
    and exactly one of ``move`` (names canonical) or ``error``.

    Example: ``ParsedLine(3, "REFUTE 7 ножом", Refute("нож", 7), None)``.
    """

    line_no: int
    text: str
    move: _MoveCo | None
    error: MoveError | None


#: A list item's marker before a command (phones and mail editors number or bullet the
#: lines of a list): ``1.``, ``2)``, ``а)``, ``b.``, ``•``, ``·``, a keycap ``1️⃣``, ``=>``,
#: a Markdown heading's ``#`` (html2text's ``<h2>``), and Outlook's bullets as they
#: come out of HTML (``o`` and the Wingdings ``Ø``, ``§`` before a tab or spaces).
_LIST_MARKER = re.compile(
    r"^\s*(?:(?:\d{1,2}|[a-zа-яё])[.)]|[•·▪‣◦►➢]|=>|#{1,6}|\d\ufe0f?\u20e3)\s+(?=\S)"
    r"|^\s*[oØ§](?:\t|\s{2,})(?=\S)"
)


def read_line(text: str) -> str:
    """A line as commands are read: markup and a list marker removed, look-alike letters
    folded.

    >>> read_line("[b]VОТЕ[/b]  Петя ")  # Cyrillic О, Т, Е in VOTE
    'VOTE Петя'
    >>> read_line("2) ГОЛОС Таня")
    'ГОЛОС Таня'
    """
    return clean(fold_confusables(_LIST_MARKER.sub("", text, count=1)))


def command_lines(text: str) -> list[str]:
    """The lines of ``text`` read for commands: the first :data:`MAX_LINES` (split at
    ``"\\n"``).

    >>> command_lines("STATUS\\nHELP")
    ['STATUS', 'HELP']
    """
    return text.split("\n", MAX_LINES)[:MAX_LINES]


def too_long(index: int, line: str) -> ParsedLine[MoveT]:
    """The refusal of the over-long command line ``line`` (0-based ``index``):
    ``line_too_long`` with ``line`` (its first :data:`EXCERPT` characters and ``"…"``)
    and ``limit`` (:data:`LINE_LIMIT`)."""
    excerpt = line[:EXCERPT].rstrip() + "…"
    error = InvalidMove("line_too_long", line=excerpt, limit=LINE_LIMIT)
    return ParsedLine(index + 1, excerpt, None, error)


def attempt(index: int, text: str, parse: Callable[[], MoveT]) -> ParsedLine[MoveT]:
    """``parse()`` as the line ``index`` (0-based) shown as ``text``: its move, or the
    :class:`~pbp.games.core.events.MoveError` it raised (``line`` param defaulted to ``text``
    cleaned)."""
    try:
        return ParsedLine(index + 1, text, parse(), None)
    except MoveError as error:
        error.params.setdefault("line", clean(text))
        return ParsedLine(index + 1, text, None, error)


def cap_commands(result: list[ParsedLine[MoveT]]) -> None:
    """Keep the first :data:`COMMAND_LIMIT` lines of ``result`` (in place); the next one,
    if any, becomes a ``too_many_commands`` refusal (``line``, ``limit``), and the rest
    is dropped."""
    if len(result) > COMMAND_LIMIT:
        extra = result[COMMAND_LIMIT]
        refusal = InvalidMove("too_many_commands", line=clean(extra.text), limit=COMMAND_LIMIT)
        result[COMMAND_LIMIT:] = [ParsedLine(extra.line_no, extra.text, None, refusal)]


# --- command keywords ---

#: Commands that are chat when other words follow them ("Help me out here").
ALONE = ("status", "help")


@dataclass(frozen=True)
class Lead:
    """The first two words of a line (letters only: ``"REFUTE#7"`` is ``REFUTE``):
    ``match`` (groups ``w1``, ``w2`` as written), ``first`` and ``second`` lower-cased
    with ``ё`` → ``е`` (``second`` ``""`` when there is none), ``first_stem``."""

    match: re.Match[str]
    first: str
    second: str
    first_stem: str


class Keywords:
    """The command keywords of one game: any grammatical form of one of ``words[name]``
    (Snowball stems) is command ``name``; a first word that resembles a keyword without
    being one of its forms is a misspelt command (``unknown_command``).

    ``words``: each command's words, ``{name: {locale: words}}`` (every locale's, from
    :mod:`pbp.text.keywords`); ``shown``: how each command is written in the help, ``{name:
    {locale: form}}``; a refusal suggests the form of the locale of the keyword the word
    resembles; ``separators``: what may stand between the first two words (a regex);
    ``min_stem``: shorter stems are not used (the keyword is read only as written:
    ``убить`` stems to ``уб``, which ``убили`` shares); ``params``: more params of
    ``unknown_command`` (Maniac: ``commands``).

    Example::

        keywords = Keywords(
            {"vote": {"ru": ("голос",), "en": ("vote",)}},
            {"vote": {"ru": "ГОЛОС", "en": "VOTE"}},
        )
        lead = keywords.lead("Голосую: Петя")
        keywords.command("Голосую: Петя", *keywords.single(lead))  # ("vote", "Петя")
    """

    def __init__(
        self,
        words: Mapping[str, Mapping[str, Sequence[str]]],
        shown: Mapping[str, Mapping[str, str]],
        *,
        separators: str = r"[\s:]+",
        min_stem: int = 0,
        params: Mapping[str, object] | None = None,
    ) -> None:
        self.shown = {name: dict(forms) for name, forms in shown.items()}
        every = {
            name: list(dict.fromkeys(w for forms in by_locale.values() for w in forms))
            for name, by_locale in words.items()
        }
        self.stems = {
            name: frozenset(stem(w) for w in forms if len(stem(w)) >= min_stem)
            for name, forms in every.items()
        }
        self.keyword_of = {w: name for name, forms in every.items() for w in forms}
        #: Each keyword → the first locale that has it (the refusal's language).
        self.locale_of: dict[str, str] = {}
        for by_locale in words.values():
            for locale, forms in by_locale.items():
                for w in forms:
                    self.locale_of.setdefault(w, locale)
        self.params = dict(params or {})
        self._lead = re.compile(rf"(?P<w1>[^\W\d_]+)(?:{separators}(?P<w2>[^\W\d_]+))?")

    def lead(self, line: str) -> Lead | None:
        """The first two words of ``line`` (cleaned and folded), or None."""
        match = self._lead.match(line)
        if match is None:
            return None
        first = match.group("w1").lower().replace("ё", "е")
        second = (match.group("w2") or "").lower().replace("ё", "е")
        return Lead(match, first, second, stem(first))

    def single(self, lead: Lead) -> tuple[str, int] | None:
        """``(command, end of the keyword)`` when the first word is a keyword as written
        or one of its forms, else None."""
        if lead.first in self.keyword_of:
            return self.keyword_of[lead.first], lead.match.end("w1")
        for name, stems in self.stems.items():
            if lead.first_stem in stems:
                return name, lead.match.end("w1")
        return None

    @staticmethod
    def command(line: str, name: str, end: int) -> tuple[str, str] | None:
        """``(name, rest)``: ``rest`` is what follows the keyword ending at ``end`` (and
        its colon); None when a command of :data:`ALONE` is followed by other words."""
        rest = line[end:].lstrip()
        rest = rest[1:].lstrip() if rest.startswith(":") else rest
        if name in ALONE and rest.strip(TRAILING):
            return None
        return name, rest

    def refuse(
        self, line: str, lead: Lead, two_words: str | None = None, locale: str | None = None
    ) -> None:
        """Raise ``unknown_command`` when ``line`` starts with a misspelt keyword;
        return (chat) otherwise. ``two_words``: the command whose two-word keyword the
        caller found misspelt (``Нет опровержениии``), in ``locale``: both words are
        quoted.

        :raises InvalidMove: ``unknown_command`` with ``line``, ``word`` (as written),
            ``suggestion`` (the keyword as in the help, in the locale of the keyword
            the word resembles) and :attr:`params`.
        """
        if two_words is not None:
            word, name = f"{lead.match.group('w1')} {lead.match.group('w2')}", two_words
            shown_in = locale if locale is not None else next(iter(self.shown[name]))
        else:
            close = closest_keyword(lead.first, list(self.keyword_of))
            if close is None:
                return
            word, name = lead.match.group("w1"), self.keyword_of[close]
            if name in ALONE and line[lead.match.end("w1") :].strip(TRAILING):
                return  # a word like "Статуя" in a sentence
            shown_in = self.locale_of[close]
        raise InvalidMove(
            "unknown_command",
            line=line,
            word=word,
            suggestion=self.shown[name][shown_in],
            **self.params,
        )


def new_address() -> re.Pattern[str]:
    """A player's request for a new personal address (his old one leaked), alone on its
    line, in any case: ``NEW ADDRESS``, ``НОВЫЙ АДРЕС`` (every locale's words,
    :mod:`pbp.text.keywords`; :mod:`pbp.app.gm`)."""
    return _new_address(keywords.current())


@lru_cache(maxsize=4)
def _new_address(vocabulary: keywords.Vocabulary) -> re.Pattern[str]:
    phrases = keywords.alternation(vocabulary.words("", "new_address"))
    return re.compile(rf"{phrases}[\s.!:]*", re.IGNORECASE)


def asks_new_address(text: str) -> bool:
    """True when a line of ``text`` (a mail's new text) is :func:`new_address`.

    >>> asks_new_address("Привет!\\nновый адрес\\n"), asks_new_address("my new address is x")
    (True, False)
    """
    pattern = new_address()
    return any(pattern.fullmatch(read_line(line)) for line in text.splitlines() if len(line) < 100)


def beside_new_address(text: str) -> bool:
    """True when ``text`` (a mail's own text asking :func:`asks_new_address`) has a
    line besides its NEW ADDRESS lines (those are not applied: the player is told to
    send them again).

    >>> beside_new_address("новый адрес\\n\\n"), beside_new_address("NEW ADDRESS\\nVOTE Лев")
    (False, True)
    """
    pattern = new_address()
    return any(
        read_line(line) and not pattern.fullmatch(read_line(line)) for line in text.splitlines()
    )


# --- player names in their case forms ---

#: Case endings of Russian personal names by the nominative's ending (1st and 2nd
#: declension; ``ь``/``й`` and consonants taken as masculine): nominative, genitive,
#: dative, accusative, instrumental (both forms), prepositional.
_NAME_ENDINGS = (
    ("ия", ("ия", "ии", "ию", "ией", "иею")),
    ("а", ("а", "ы", "и", "е", "у", "ой", "ою", "ей", "ею")),
    ("я", ("я", "и", "е", "ю", "ей", "ею")),
    ("ь", ("ь", "я", "ю", "ем", "е")),
    ("й", ("й", "я", "ю", "ем", "е")),
)
_CONSONANT_ENDINGS = ("", "а", "у", "ом", "е")
_CONSONANTS = frozenset("бвгджзклмнпрстфхцчшщ")


@lru_cache(maxsize=16384)
def case_forms(name: str) -> frozenset[str]:
    """The case forms of a one-word Cyrillic personal name, normalized (lower case,
    ``ё`` → ``е``); just the name itself for other names (several words, Latin letters,
    another ending).

    Snowball's stemmer, which :class:`~pbp.text.names.NameMatcher` relies on, cuts
    ``Вася`` to ``ва`` (as if ``-ся`` were reflexive), so ``Васю`` would not be read;
    the forms are exact.

    >>> sorted(case_forms("Вася"))
    ['васе', 'васей', 'васею', 'васи', 'васю', 'вася']
    """
    words = normalize(name)
    if len(words) != 1 or not words[0].isalpha() or not all("а" <= c <= "я" for c in words[0]):
        return frozenset(words[:1]) if len(words) == 1 else frozenset()
    word = words[0]
    for ending, endings in _NAME_ENDINGS:
        if word.endswith(ending) and len(word) > len(ending):
            base = word[: -len(ending)]
            return frozenset(base + e for e in endings)
    if word[-1] in _CONSONANTS:
        return frozenset(word + e for e in _CONSONANT_ENDINGS)
    return frozenset({word})


#: A double name: Cyrillic words joined by hyphens (Анна-Мария, Жан-Поль).
_DOUBLE_NAME = re.compile(r"[А-ЯЁа-яё]+(?:-[А-ЯЁа-яё]+)+")


@lru_cache(maxsize=4096)
def seat_forms(name: str) -> frozenset[str]:
    """The forms a seat's ``name`` is read in, normalized (lower case, ``ё`` → ``е``):
    what the morphology libraries give (:func:`pbp.text.morph.name_forms`: Лев → льва,
    льву, львом, льве; Любовь → любови, любовью), and for a name the dictionary does not
    know as a first name (a nickname) also the endings of :func:`case_forms`.

    >>> sorted(seat_forms("Лев")), "неташкою" in seat_forms("Неташка")
    (['лев', 'льва', 'льве', 'львом', 'льву'], True)
    """
    if morph.is_first_name(name):
        return morph.name_forms(name)
    return morph.name_forms(name) | case_forms(name) | _hyphenated_forms(name)


def _hyphenated_forms(name: str) -> frozenset[str]:
    """The case forms of a double name (``Анна-Мария``: each part in the same case and
    gender, as :func:`pbp.text.morph.inflect` writes it: анну-марию, анной-марией),
    normalized; none for another name.

    >>> sorted(_hyphenated_forms("Анна-Мария"))[:3], _hyphenated_forms("Анна")
    (['анна-мария', 'анне-марии', 'анной-марией'], frozenset())
    """
    if not _DOUBLE_NAME.fullmatch(name):
        return frozenset()
    genders: tuple[morph.Gender | None, ...] = (None, "masc", "femn")
    forms = {
        "-".join(morph.inflect(part, case, gender) for part in name.split("-"))
        for case in morph.CASES
        for gender in genders
    }
    return frozenset(form.lower().replace("ё", "е") for form in forms)


@dataclass(frozen=True)
class _Seats:
    """One player list's index of forms, built once (:func:`_seats`): ``exact``
    (normalized words → the seats so written) and ``forms`` (a one-word form → every
    seat it may be a form of), seats in configured order."""

    exact: Mapping[tuple[str, ...], tuple[str, ...]]
    forms: Mapping[str, tuple[str, ...]]


@lru_cache(maxsize=256)
def _seats(players: tuple[str, ...]) -> _Seats:
    exact: dict[tuple[str, ...], list[str]] = {}
    forms: dict[str, list[str]] = {}
    for name in players:
        exact.setdefault(tuple(normalize(name)), []).append(name)
        for form in seat_forms(name):
            forms.setdefault(form, []).append(name)
    return _Seats({k: tuple(v) for k, v in exact.items()}, {k: tuple(v) for k, v in forms.items()})


@lru_cache(maxsize=256)
def _matcher(players: tuple[str, ...]) -> NameMatcher:
    return NameMatcher(players, kind="player")


class PlayerNames:
    """Resolves what a player wrote to one of ``players``: the exact name, then one of
    the case forms (:func:`seat_forms`: the morphology libraries' forms, Льва, Павла,
    Любови, Ильи), then :class:`~pbp.text.names.NameMatcher` (stems, typos refused
    with a suggestion); leading prepositions dropped.

    A form that may be two seats' is ambiguous, never guessed: ``Нику`` when Ник and
    Ника play (the dative of one, the accusative of the other), and ``за Ника`` (Ник's
    accusative, or Ника's nominative after a preposition). Only the exact name
    without a preposition names its seat at once (``Ника``: the way out that the
    ambiguity's answer offers, "write the name in full").

    The forms of a player list are worked out on the first name read, once, and kept
    for the process (the 256 lists used last, about 15 KB each; a name's forms, about
    0.25 ms each, for the 4096 names used last): building a ``PlayerNames`` for every
    mail costs a look-up.

    Example::

        names = PlayerNames(["Вася", "Петя", "Ник", "Ника", "Лев"])
        names.match("за Васю")   # -> "Вася"
        names.match("Льва")      # -> "Лев"
        names.match("Нику")      # raises AmbiguousMove("ambiguous_name", …)
    """

    def __init__(self, players: Sequence[str], aliases: Mapping[str, str] | None = None) -> None:
        #: The seats: what :meth:`match` returns.
        self.seats: tuple[str, ...] = tuple(players)
        #: Other names of seats, ``{name: seat}``: the name of whoever plays a seat now
        #: (a substitute, ``pbp substitute``), read as the seat itself. A name that is a
        #: seat's own, or names no seat, is left out.
        self.aliases: dict[str, str] = {
            name: seat
            for name, seat in (aliases or {}).items()
            if seat in self.seats and name not in self.seats
        }
        #: Every name read: the seats', then the aliases'.
        self.players: tuple[str, ...] = (*self.seats, *self.aliases)
        self.matcher = _matcher(self.players)

    def _seats_of(self, names: Sequence[str]) -> list[str]:
        """``names`` (seats' or aliases') as the seats they name, each once, in order."""
        return list(dict.fromkeys(self.aliases.get(n, n) for n in names))

    @cached_property
    def _index(self) -> _Seats:
        """The forms, worked out on the first name read: a mail without one (``STATUS``)
        never loads the dictionary."""
        return _seats(self.players)

    def match(self, text: str, *, strict: bool = False) -> str:
        """The player ``text`` names. ``strict``: even the exact name is ambiguous when
        it is also another seat's case form (``Ника`` when Ник and Ника play: Ник's
        accusative), for an order that cannot be taken back unseen (a kill, M3).

        :raises InvalidMove: ``unknown_name`` (``word``: ``text`` cleaned, without
            leading prepositions when the longest name is shorter; ``suggestion``: the
            closest seat's or substitute's name, or None; ``allowed``: the seats, each
            once; ``kind="player"``), as
            :meth:`NameMatcher.match <pbp.text.names.NameMatcher.match>`.
        :raises AmbiguousMove: ``ambiguous_name`` (``word``, ``candidates``: seats,
            ``kind``).
        """
        text, dropped = self._trim(text)
        found = self._seats_of(self._candidates(text, dropped, strict=strict))
        if len(found) == 1:
            return found[0]
        if found:
            raise AmbiguousMove("ambiguous_name", word=text, candidates=found, kind="player")
        try:
            named = self.matcher.match(text)
        except AmbiguousMove as error:
            seats = self._seats_of(error.params["candidates"])
            if len(seats) != 1:
                # Each seat once, by its own name: the texts show it with who plays it.
                error.params["candidates"] = seats
                raise
            named = seats[0]
        except InvalidMove as error:
            # The seats, each once (a substitute's is shown «Вова (вместо Дуг)»), not
            # the seats and then their other names.
            error.params["allowed"] = list(self.seats)
            raise
        return self.aliases.get(named, named)

    def lookup(self, text: str, *, strict: bool = False) -> str | None:
        """The player ``text`` names, or None (unknown or ambiguous); as :meth:`match`
        but without working out a suggestion, for trying many pieces of a text.

        >>> PlayerNames(["Вася", "Петя"]).lookup("за Васю"), PlayerNames(["Вася"]).lookup("Ваюс")
        ('Вася', None)
        """
        found = self._seats_of(self._candidates(*self._trim(text), strict=strict))
        if len(found) == 1:
            return found[0]
        if found:
            return None
        stemmed = self.matcher.segment(text)
        if stemmed is None or len(stemmed) != 1:
            return None
        return self.aliases.get(stemmed[0], stemmed[0])

    def _candidates(
        self, text: str, after_preposition: bool = False, *, strict: bool = False
    ) -> list[str]:
        """The players ``text`` names exactly or by a case form (several: ambiguous).
        ``after_preposition``: prepositions were dropped before ``text``; ``strict``:
        as :meth:`match`."""
        words = normalize(text)
        phrasings = [words]
        while len(words) > 1 and words[0] in PREPOSITIONS:
            words = words[1:]
            phrasings.append(words)
        for i, phrasing in enumerate(phrasings):
            exact = self._index.exact.get(tuple(phrasing), ())
            # One word after a preposition may be another seat's case form ("за Ника"):
            # left to the forms below, which hold every seat's nominative too.
            bare = i == 0 and not after_preposition
            if len(exact) == 1 and (bare or len(phrasing) > 1):
                others = self._index.forms.get(phrasing[0], ()) if len(phrasing) == 1 else ()
                if strict and len(others) > 1:
                    return list(others)
                return list(exact)
        for phrasing in phrasings:
            # One word (Льва), or a name of two in its case (Ивана Петрова).
            form = " ".join(phrasing)
            if form in self._index.forms:
                return list(self._index.forms[form])
        return []

    def _trim(self, text: str) -> tuple[str, bool]:
        """``text`` cleaned, without the leading prepositions (and stray punctuation)
        that leave more words than the longest name: ``"за Ваюс"`` → ``"Ваюс"``; and
        whether a preposition was dropped. Keeps the matching linear in the length of
        ``text``."""
        words = clean(text).split()
        start = 0
        while (
            len(words) - start > self.matcher.max_words
            and set(normalize(words[start])) <= PREPOSITIONS
        ):
            start += 1
        dropped = any(normalize(w) and set(normalize(w)) <= PREPOSITIONS for w in words[:start])
        return " ".join(words[start:]), dropped
