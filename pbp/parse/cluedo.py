"""Cluedo commands in a mail body → moves (issue 2, "Fixed interface"; rules C4, C6, D2).

Reading a move is separate from playing it: this module knows only the syntax and
the names (cards, players); whether a move is allowed is the engine's business
(:mod:`pbp.engine.cluedo_days`).

Grammar: one command per line, several per mail; keywords case-insensitive, English
and Russian always both accepted, an optional colon after the keyword; bold markers
(``[b]…[/b]``, ``**…**``) ignored; lines inside ``[quote]…[/quote]`` skipped; card
and player names matched by :class:`~pbp.parse.names.NameMatcher` (inflected forms,
``ё`` = ``е``, typos refused with a suggestion)::

    SUGGEST <card>, <card>, <card> TO <player>     ПРЕДПОЛОЖЕНИЕ <…>, <…>, <…> ДЛЯ <игрок>
    REFUTE [N] <card>                              ОПРОВЕРЖЕНИЕ [N] <карта>
    NO REFUTATION [N]                              НЕТ ОПРОВЕРЖЕНИЯ [N]
    ACCUSE <card>, <card>, <card>                  ОБВИНЕНИЕ <…>, <…>, <…>
    STATUS   HELP                                  СТАТУС   ПОМОЩЬ

``STATUS``/``HELP`` followed by other words ("Help me out here") are chatter, not
commands. ``N`` may be written ``7``, ``№7``, ``#7`` or ``N7``. The three cards of a suggestion
or accusation may come in any order (each is assigned to its category); commas may be
left out when the names alone split the text (``Краснова ножом в кухне``). English
nouns ``SUGGESTION``, ``REFUTATION``, ``ACCUSATION`` are accepted as keywords too.

The seed's own form (seed 001) is accepted: a heading ``Предположение_N для <игрок>``
(or ``Предположение N для …``; N is the player's own count and is ignored) and, on
the next non-empty line (a sentence wrapped over up to three lines is joined), ``Я
думаю, что убийство совершил(а) А, орудием Б в комнате В`` with inflected names.

Without an addressee (``addressed=False``, the rounds variant) ``TO <player>`` is
refused and the sentence alone is a suggestion.

Error codes (:class:`~pbp.engine.base.InvalidMove` / ``AmbiguousMove``; each has a
text in ``templates/<locale>/errors/<code>.txt``); every one carries ``line`` (the
command as read, markup removed):

- ``unknown_name`` — ``word``, ``suggestion`` (str or None), ``allowed`` (names),
  ``kind`` (``"card"`` or ``"player"``).
- ``ambiguous_name`` — ``word``, ``candidates``, ``kind``.
- ``card_categories`` — three cards but not one of each category: ``cards`` (as
  given), ``category`` (the first category named twice), ``doubled`` (its cards),
  ``missing`` (categories not named), ``allowed`` ({``suspects``, ``weapons``,
  ``rooms``}: lists).
- ``suggest_syntax`` / ``accuse_syntax`` — not three cards: ``count`` (cards read),
  ``example`` ({``suspect``, ``weapon``, ``room``, ``player``}; ``player`` None when
  unaddressed), ``addressed`` (bool).
- ``refute_syntax`` — no card: ``example`` ({``number``, ``card``}).
- ``no_refutation_syntax`` — extra text after ``NO REFUTATION [N]``: ``example``
  ({``number``}).
- ``missing_addressee`` — a suggestion without ``TO <player>``: ``players``,
  ``example`` (as for ``suggest_syntax``).
- ``unexpected_addressee`` — ``TO <player>`` where there is no addressee
  (``addressed=False``): ``player``.

A mail with no command at all is the caller's case: template ``no_command``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbp.engine.base import InvalidMove, MoveError
from pbp.engine.cluedo import (
    CATEGORIES,
    Accuse,
    Cards,
    CluedoMove,
    Help,
    NoRefutation,
    Refute,
    Status,
    Suggest,
)
from pbp.parse.names import NameMatcher, clean, normalize

#: Every error code this module raises (see the module doc for the params).
ERROR_CODES = (
    "unknown_name",
    "ambiguous_name",
    "card_categories",
    "suggest_syntax",
    "accuse_syntax",
    "refute_syntax",
    "no_refutation_syntax",
    "missing_addressee",
    "unexpected_addressee",
)


@dataclass(frozen=True)
class ParsedLine:
    """One command line of a mail: ``line_no`` (1-based, in the letter's text), ``text``
    (the line as written, a seed-form heading and its sentence joined with ``"\\n"``),
    and exactly one of ``move`` (names canonical) or ``error``.

    Example: ``ParsedLine(3, "REFUTE 7 ножом", Refute("нож", 7), None)``.
    """

    line_no: int
    text: str
    move: CluedoMove | None
    error: MoveError | None


_KEYWORDS = (
    ("no_refutation", r"no\s+refutation|нет\s+опровержения"),
    ("refute", r"refute|refutation|опровержение"),
    ("suggest", r"suggest|suggestion|предположение"),
    ("accuse", r"accuse|accusation|обвинение"),
    ("status", r"status|статус"),
    ("help", r"help|помощь"),
)
_COMMAND = re.compile(
    r"^(?:" + "|".join(f"(?P<{name}>{rx})" for name, rx in _KEYWORDS) + r")"
    r"(?=$|[\s:_№#.,!?])\s*:?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_NUMBER = r"(?:[№#]|[nн](?=\s*\d))?\s*(?P<number>\d+)"
_REFUTE = re.compile(rf"^(?:{_NUMBER}\s*[.:,)]?(?:\s+|$))?(?P<card>.*)$", re.IGNORECASE)
_NO_REFUTATION = re.compile(rf"^(?:{_NUMBER})?\s*[.!]*$", re.IGNORECASE)
_ADDRESSEE = re.compile(r"\s+(?:to|для)\s*:?\s+", re.IGNORECASE)
_HEADING = re.compile(
    r"^предположение(?:\s*[_\s]\s*(?:[№#]\s*)?\d+)?"
    r"(?:\s+(?:для|to)\s+(?P<player>[^,]+?))?\s*[.:!]?\s*(?P<sentence>я\s+думаю\b.*)?$",
    re.IGNORECASE,
)
_SENTENCE = re.compile(
    r"^я\s+думаю\s*,?\s*что\s+убийство\s+совершил(?:а|\s*\(\s*а\s*\))?\s*[,:]?\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_SENTENCE_START = re.compile(r"^я\s+думаю\b", re.IGNORECASE)
#: Words of the seed's sentence that separate the three cards.
_SENTENCE_GLUE = re.compile(
    r"\s*(?:\bорудием\b|\bорудие\b|\bв\s+комнате\b|\bв\s+помещении\b|\bкомнате\b)\s*",
    re.IGNORECASE,
)
_LIST_SPLIT = re.compile(r"\s*[,;]\s*")
_FILLERS = frozenset({"и", "and", "орудием", "комнате"})
_TRAILING = " .!?;:\"'»”)"


class _Reader:
    """Parses the lines of one mail against one game's cards and players."""

    def __init__(self, cards: Cards, players: Sequence[str], addressed: bool) -> None:
        self.cards = cards
        self.players = list(players)
        self.addressed = addressed
        self.card_names = NameMatcher(cards.all(), kind="card")
        self.player_names = NameMatcher(players, kind="player")

    # -- examples for error params --

    def example(self) -> dict[str, str | None]:
        return {
            "suspect": self.cards.suspects[0] if self.cards.suspects else "",
            "weapon": self.cards.weapons[0] if self.cards.weapons else "",
            "room": self.cards.rooms[0] if self.cards.rooms else "",
            "player": (self.players[-1] if self.players else "") if self.addressed else None,
        }

    # -- cards --

    def three_cards(self, text: str, code: str, line: str) -> tuple[str, str, str]:
        """``(suspect, weapon, room)`` named in ``text`` in any order.

        :raises InvalidMove: ``code`` (not three cards; also for a single phrase that
            resembles no card), ``card_categories``, ``unknown_name``.
        :raises AmbiguousMove: ``ambiguous_name``.
        """
        names: list[str] = []
        parts = [p.strip(_TRAILING) for p in _LIST_SPLIT.split(text.strip(_TRAILING))]
        parts = [p for p in parts if normalize(p)]
        for part in parts:
            try:
                names.append(self.card_names.match(part))
            except MoveError as error:
                found = self.card_names.segment(part, _FILLERS)
                if found:
                    names.extend(found)
                    continue
                if len(parts) > 1 or error.params.get("suggestion") is not None:
                    error.params["line"] = line
                    raise
                names = []  # one phrase like no card at all: chatter after a keyword
        if len(names) != 3:
            raise InvalidMove(
                code, line=line, count=len(names), example=self.example(), addressed=self.addressed
            )
        by_category: dict[str, list[str]] = {c: [] for c in CATEGORIES}
        for name in names:
            by_category[self.cards.category_of(name)].append(name)
        doubled = [c for c in CATEGORIES if len(by_category[c]) > 1]
        if doubled:
            raise InvalidMove(
                "card_categories",
                line=line,
                cards=names,
                category=doubled[0],
                doubled=by_category[doubled[0]],
                missing=[c for c in CATEGORIES if not by_category[c]],
                allowed={
                    "suspects": list(self.cards.suspects),
                    "weapons": list(self.cards.weapons),
                    "rooms": list(self.cards.rooms),
                },
            )
        return by_category["suspect"][0], by_category["weapon"][0], by_category["room"][0]

    def player(self, text: str, line: str) -> str:
        try:
            return self.player_names.match(text.strip(_TRAILING))
        except MoveError as error:
            error.params["line"] = line
            raise

    # -- commands --

    def command(self, keyword: str, rest: str, line: str) -> CluedoMove:
        """The move of a keyword line; ``rest`` is what follows the keyword."""
        if keyword == "suggest":
            return self.suggest(rest, line)
        if keyword == "refute":
            return self.refute(rest, line)
        if keyword == "no_refutation":
            return self.no_refutation(rest, line)
        return Accuse(*self.three_cards(rest, "accuse_syntax", line))

    def bare_sentence(self, line: str) -> Suggest:
        """The seed's sentence without a heading: a suggestion without addressee (rounds
        variant); ``missing_addressee`` when one is needed."""
        cards = self.sentence(line, line)
        if self.addressed:
            raise InvalidMove(
                "missing_addressee", line=line, players=self.players, example=self.example()
            )
        return Suggest(*cards)

    def suggest(self, rest: str, line: str) -> Suggest:
        splits = list(_ADDRESSEE.finditer(rest))
        for split in reversed(splits):
            try:
                addressee = self.player_names.match(rest[split.end() :].strip(_TRAILING))
            except MoveError:
                continue
            if not self.addressed:
                raise InvalidMove("unexpected_addressee", line=line, player=addressee)
            cards = self.three_cards(rest[: split.start()], "suggest_syntax", line)
            return Suggest(*cards, addressee=addressee)
        if self.addressed and splits:
            self.player(rest[splits[-1].end() :], line)  # raises: not a player
        cards = self.three_cards(rest, "suggest_syntax", line)
        if self.addressed:
            raise InvalidMove(
                "missing_addressee", line=line, players=self.players, example=self.example()
            )
        return Suggest(*cards)

    def refute(self, rest: str, line: str) -> Refute:
        match = _REFUTE.match(rest)
        card = match.group("card").strip(_TRAILING) if match else ""
        if match is None or not normalize(card):
            raise InvalidMove(
                "refute_syntax", line=line, example={"number": 7, "card": self.example()["weapon"]}
            )
        number = int(match.group("number")) if match.group("number") else None
        try:
            return Refute(self.card_names.match(card), number)
        except MoveError as error:
            error.params["line"] = line
            raise

    def no_refutation(self, rest: str, line: str) -> NoRefutation:
        match = _NO_REFUTATION.match(rest)
        if match is None:
            raise InvalidMove("no_refutation_syntax", line=line, example={"number": 7})
        return NoRefutation(int(match.group("number")) if match.group("number") else None)

    def sentence(self, text: str, line: str) -> tuple[str, str, str]:
        match = _SENTENCE.match(text)
        if match is None:
            raise InvalidMove(
                "suggest_syntax",
                line=line,
                count=0,
                example=self.example(),
                addressed=self.addressed,
            )
        rest = _SENTENCE_GLUE.sub(", ", match.group("rest"))
        return self.three_cards(rest, "suggest_syntax", line)


def _quote_depths(lines: Sequence[str]) -> list[bool]:
    """For each line, True when it is inside (or opens or closes) a ``[quote]`` block."""
    inside: list[bool] = []
    depth = 0
    for line in lines:
        low = line.lower()
        opens = len(re.findall(r"\[quote(?:=[^\]]*)?\]", low))
        closes = low.count("[/quote]")
        inside.append(depth > 0 or opens > 0)
        depth = max(0, depth + opens - closes)
    return inside


def parse_cluedo(
    text: str, cards: Cards, players: Sequence[str], *, addressed: bool = True
) -> list[ParsedLine]:
    """The command lines of ``text`` (a letter's new text) in order; other lines omitted.

    ``cards``: the cards in play; ``players``: every seat (addressees are matched
    against these only; cards against cards only). ``addressed``: True for the days
    variant (``TO <player>`` required), False for rounds (refused).

    Example::

        parse_cluedo("Привет!\\nREFUTE 7 ножом\\nSTATUS", cards, ["Неташка", "Веталь"])
        # [ParsedLine(2, "REFUTE 7 ножом", Refute("нож", 7), None),
        #  ParsedLine(3, "STATUS", Status(), None)]

    Never raises for what a player wrote: each error is in its line's ``error``
    (codes in the module doc).
    """
    reader = _Reader(cards, players, addressed)
    lines = text.split("\n")
    quoted = _quote_depths(lines)
    result: list[ParsedLine] = []
    skip_until = -1
    for index, raw_line in enumerate(lines):
        if index <= skip_until or quoted[index]:
            continue
        line = clean(raw_line)
        if not line:
            continue
        heading = _HEADING.match(line)
        if heading:
            consumed, parsed = _seed_form(reader, lines, quoted, index, heading)
            skip_until = consumed
            result.append(parsed)
            continue
        command = _COMMAND.match(line)
        if command is None:
            if _SENTENCE.match(line):
                sentence = functools.partial(reader.bare_sentence, line)
                parsed = _attempt(index, raw_line.strip(), sentence)
                result.append(parsed)
            continue
        rest = command.group("rest").strip()
        keyword = next(name for name, _ in _KEYWORDS if command.group(name))
        if keyword in ("status", "help"):
            if rest.strip(_TRAILING):
                continue  # "Help me out here" is chatter, not a command
            result.append(
                ParsedLine(
                    index + 1, raw_line.strip(), Status() if keyword == "status" else Help(), None
                )
            )
            continue
        parse = functools.partial(reader.command, keyword, rest, line)
        result.append(_attempt(index, raw_line.strip(), parse))
    return result


def _attempt(index: int, text: str, parse: Callable[[], CluedoMove]) -> ParsedLine:
    try:
        return ParsedLine(index + 1, text, parse(), None)
    except MoveError as error:
        error.params.setdefault("line", clean(text))
        return ParsedLine(index + 1, text, None, error)


def _seed_form(
    reader: _Reader,
    lines: Sequence[str],
    quoted: Sequence[bool],
    index: int,
    heading: re.Match[str],
) -> tuple[int, ParsedLine]:
    """The seed-001 heading at ``lines[index]`` and its sentence → ``(last line used,
    ParsedLine)``. The sentence may follow on the heading line itself."""
    head_text = lines[index].strip()
    player_text = heading.group("player")
    sentence_lines: list[tuple[int, str]] = []
    if heading.group("sentence"):
        sentence_lines = [(index, heading.group("sentence"))]
    else:
        j = index + 1
        while j < len(lines) and not clean(lines[j]) and not quoted[j]:
            j += 1
        while j < len(lines) and len(sentence_lines) < 3 and not quoted[j]:
            text = clean(lines[j])
            if not text or _HEADING.match(text) or (_COMMAND.match(text) and sentence_lines):
                break
            if not sentence_lines and not _SENTENCE_START.match(text):
                break
            sentence_lines.append((j, text))
            j += 1
    line = clean(head_text)

    def build(sentence: str) -> Suggest:
        if reader.addressed and not player_text:
            reader.sentence(sentence, line)  # name errors first
            raise InvalidMove(
                "missing_addressee", line=line, players=reader.players, example=reader.example()
            )
        if not reader.addressed and player_text:
            try:
                named = reader.player_names.match(player_text)
            except MoveError:
                named = clean(player_text)
            raise InvalidMove("unexpected_addressee", line=line, player=named)
        addressee = reader.player(player_text, line) if player_text else None
        return Suggest(*reader.sentence(sentence, line), addressee=addressee)

    if not sentence_lines:
        parsed = _attempt(index, head_text, lambda: build(""))
        return index, parsed
    # A sentence wrapped by the client: join up to three lines, shortest that parses.
    first_error: ParsedLine | None = None
    for count in range(1, len(sentence_lines) + 1):
        used = sentence_lines[:count]
        sentence = " ".join(text for _, text in used)
        shown = "\n".join([head_text] + [lines[k].strip() for k, _ in used if k != index])
        parsed = _attempt(index, shown, functools.partial(build, sentence))
        if parsed.error is None:
            return used[-1][0], parsed
        if first_error is None:
            first_error = parsed
            first_end = used[-1][0]
    assert first_error is not None
    return first_end, first_error
