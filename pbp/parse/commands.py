"""What the command parsers of every game share (:mod:`pbp.parse.cluedo`,
:mod:`pbp.parse.maniac`): the result of one command line, the caps against slow
input, how a line is read, and player names in their Russian case forms.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

from pbp.engine.base import AmbiguousMove, InvalidMove, MoveError
from pbp.parse.names import PREPOSITIONS, NameMatcher, clean, fold_confusables, normalize

#: Longest command line read (characters, markup removed); longer ones are refused
#: with ``line_too_long`` before any name is matched, so that a mail cannot make the
#: parser work for long (name matching is not linear in the line length).
LINE_LIMIT = 500
#: Most command lines read from one mail; the next one is refused with
#: ``too_many_commands`` and the rest of the mail is not read.
COMMAND_LIMIT = 50
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


def read_line(text: str) -> str:
    """A line as commands are read: markup removed, look-alike letters folded.

    >>> read_line("[b]VОТЕ[/b]  Петя ")  # Cyrillic О, Т, Е in VOTE
    'VOTE Петя'
    """
    return clean(fold_confusables(text))


def too_long(index: int, line: str) -> ParsedLine[MoveT]:
    """The refusal of the over-long command line ``line`` (0-based ``index``):
    ``line_too_long`` with ``line`` (its first :data:`EXCERPT` characters and ``"…"``)
    and ``limit`` (:data:`LINE_LIMIT`)."""
    excerpt = line[:EXCERPT].rstrip() + "…"
    error = InvalidMove("line_too_long", line=excerpt, limit=LINE_LIMIT)
    return ParsedLine(index + 1, excerpt, None, error)


def attempt(index: int, text: str, parse: Callable[[], MoveT]) -> ParsedLine[MoveT]:
    """``parse()`` as the line ``index`` (0-based) shown as ``text``: its move, or the
    :class:`~pbp.engine.base.MoveError` it raised (``line`` param defaulted to ``text``
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

    Snowball's stemmer, which :class:`~pbp.parse.names.NameMatcher` relies on, cuts
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


class PlayerNames:
    """Resolves what a player wrote to one of ``players``: the exact name, then one of
    the case forms (:func:`case_forms`), then :class:`~pbp.parse.names.NameMatcher`
    (stems, typos refused with a suggestion); leading prepositions dropped.

    Example::

        names = PlayerNames(["Вася", "Петя", "Ник", "Ника"])
        names.match("за Васю")   # -> "Вася"
        names.match("Нику")      # raises AmbiguousMove("ambiguous_name", …)
    """

    def __init__(self, players: Sequence[str]) -> None:
        self.players: tuple[str, ...] = tuple(players)
        self.matcher = NameMatcher(players, kind="player")
        self._forms = [(name, case_forms(name)) for name in players]
        self._exact = [(name, tuple(normalize(name))) for name in players]

    def match(self, text: str) -> str:
        """The player ``text`` names.

        :raises InvalidMove: ``unknown_name`` (``word``: ``text`` cleaned, without
            leading prepositions when the longest name is shorter; ``suggestion``,
            ``allowed``, ``kind="player"``), as
            :meth:`NameMatcher.match <pbp.parse.names.NameMatcher.match>`.
        :raises AmbiguousMove: ``ambiguous_name`` (``word``, ``candidates``, ``kind``).
        """
        text = self._trim(text)
        found = self._candidates(text)
        if len(found) == 1:
            return found[0]
        if found:
            raise AmbiguousMove("ambiguous_name", word=text, candidates=found, kind="player")
        return self.matcher.match(text)

    def lookup(self, text: str) -> str | None:
        """The player ``text`` names, or None (unknown or ambiguous); as :meth:`match`
        but without working out a suggestion, for trying many pieces of a text.

        >>> PlayerNames(["Вася", "Петя"]).lookup("за Васю"), PlayerNames(["Вася"]).lookup("Ваюс")
        ('Вася', None)
        """
        found = self._candidates(self._trim(text))
        if len(found) == 1:
            return found[0]
        if found:
            return None
        stemmed = self.matcher.segment(text)
        return stemmed[0] if stemmed is not None and len(stemmed) == 1 else None

    def _candidates(self, text: str) -> list[str]:
        """The players ``text`` names exactly or by a case form (several: ambiguous)."""
        words = normalize(text)
        phrasings = [words]
        while len(words) > 1 and words[0] in PREPOSITIONS:
            words = words[1:]
            phrasings.append(words)
        for phrasing in phrasings:
            exact = [name for name, w in self._exact if w == tuple(phrasing)]
            if len(exact) == 1:
                return exact
        for phrasing in phrasings:
            if len(phrasing) != 1:
                continue
            found = [name for name, forms in self._forms if phrasing[0] in forms]
            if found:
                return found
        return []

    def _trim(self, text: str) -> str:
        """``text`` cleaned, without the leading prepositions (and stray punctuation)
        that leave more words than the longest name: ``"за Ваюс"`` → ``"Ваюс"``. Keeps
        the matching linear in the length of ``text``."""
        words = clean(text).split()
        start = 0
        while (
            len(words) - start > self.matcher.max_words
            and set(normalize(words[start])) <= PREPOSITIONS
        ):
            start += 1
        return " ".join(words[start:])
