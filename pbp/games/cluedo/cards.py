"""Cluedo, common to both variants: cards, moves, the deal and refutations (rules C1–C7).

Pure: no I/O, no clock, no global randomness (the deal takes a seeded
``random.Random``). Variant-neutral checks live here (C1, C2, C4, C5, C6) so that
the days and the rounds variants share them; the state both have is in
:mod:`pbp.games.cluedo.state`, the steps both take (C5–C7) in
:mod:`pbp.games.cluedo.engine`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbp.games.cluedo.shapes import CardsJson, DealJson, SolutionJson
from pbp.games.core.events import IllegalMove, InvalidMove, SetupError
from pbp.games.core.yamlmarks import YamlPath, did_you_mean, show_path
from pbp.text.counted import counted

CATEGORIES = ("suspect", "weapon", "room")


@dataclass(frozen=True)
class Cards:
    """The cards in play, each deck in its configured order (after rule C1's drop).

    Example: ``Cards(suspects=("Краснова", ...), weapons=("нож", ...), rooms=("кухня", ...))``.
    """

    suspects: tuple[str, ...]
    weapons: tuple[str, ...]
    rooms: tuple[str, ...]

    def deck(self, category: str) -> tuple[str, ...]:
        """The deck of ``category`` (one of :data:`CATEGORIES`)."""
        return {"suspect": self.suspects, "weapon": self.weapons, "room": self.rooms}[category]

    def all(self) -> tuple[str, ...]:
        """Every card, suspects then weapons then rooms (the C5 order)."""
        return self.suspects + self.weapons + self.rooms

    def category_of(self, card: str) -> str:
        """``"suspect"``, ``"weapon"`` or ``"room"``; raises KeyError for an unknown card."""
        for category in CATEGORIES:
            if card in self.deck(category):
                return category
        raise KeyError(card)


class CardCountError(SetupError):
    """The configured decks cannot come to 3M+3 cards by rule C1."""


#: Rule C1: the fewest cards a deck may hold (1 gives the solution away at the start,
#: 2 after one refutation).
MIN_DECK = 3


def cards_for_players(
    suspects: Sequence[str], weapons: Sequence[str], rooms: Sequence[str], players: int
) -> Cards:
    """Rule C1: the cards for ``players`` players, dropping from the bottom of each deck.

    With M players the game uses 3M+3 cards. When the lists hold more, one card is
    dropped from the bottom of each list per missing player (seed 000: one missing
    player removes the last suspect, weapon and room).

    >>> cards_for_players(["A", "B", "C", "D"], ["x", "y", "z", "w"], list("pqrstuv"), 3).rooms
    ('p', 'q', 'r', 's', 't', 'u')

    :raises CardCountError: fewer than 3 players, too few cards, a surplus that is not
        a multiple of 3, a deck left with fewer than :data:`MIN_DECK` cards, or a card
        named twice.
    """
    if players < 3:
        raise CardCountError(f"rule C1: at least 3 players, got {players}")
    names = [*suspects, *weapons, *rooms]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise CardCountError(f"rule C1: cards named twice: {', '.join(duplicates)}")
    need = 3 * players + 3
    have = len(names)
    if have < need:
        raise CardCountError(f"rule C1: {players} players need {need} cards, the decks hold {have}")
    surplus = have - need
    if surplus % 3:
        raise CardCountError(
            f"rule C1: {players} players need {need} cards; the decks hold {have}, and "
            f"{counted(surplus, 'extra card')} cannot be dropped one per deck per missing player"
        )
    drop = surplus // 3
    decks = [tuple(d[: len(d) - drop]) for d in (suspects, weapons, rooms)]
    for category, deck in zip(CATEGORIES, decks, strict=True):
        if len(deck) < MIN_DECK:
            after = f" after dropping {drop}" if drop else ""
            raise CardCountError(
                f"rule C1: the {category} deck holds {len(deck)}{after}; each deck needs at "
                f"least {MIN_DECK} cards (with 1 the solution is known from the start, with 2 "
                "one refutation gives it away)"
            )
    return Cards(*decks)


# --- moves (what the parser produces; names already resolved to canonical names) ---


@dataclass(frozen=True)
class Suggest:
    """``SUGGEST suspect, weapon, room TO addressee`` (addressee is None in the rounds variant)."""

    suspect: str
    weapon: str
    room: str
    addressee: str | None = None


@dataclass(frozen=True)
class Refute:
    """``REFUTE [N] card``: show ``card`` for suggestion ``number`` (None: the only one waiting)."""

    card: str
    number: int | None = None


@dataclass(frozen=True)
class NoRefutation:
    """``NO REFUTATION [N]``."""

    number: int | None = None


@dataclass(frozen=True)
class Accuse:
    """``ACCUSE suspect, weapon, room`` (rule C6)."""

    suspect: str
    weapon: str
    room: str


@dataclass(frozen=True)
class Status:
    """``STATUS``: private summary for the sender."""


@dataclass(frozen=True)
class Help:
    """``HELP``: the command help."""


CluedoMove = Suggest | Refute | NoRefutation | Accuse | Status | Help


@dataclass(frozen=True)
class Deal:
    """The solution and every hand. Example:
    ``Deal(solution=("Маша", "топор", "столовая"), hands={"Кросс": ("Петя", "Ваня", "нож")})``.
    """

    solution: tuple[str, str, str]
    hands: Mapping[str, tuple[str, ...]]


# --- the deal (rule C2) ---


def deal(cards: Cards, players: Sequence[str], rng: random.Random) -> Deal:
    """Rule C2: one random card of each deck is the solution; the rest are shuffled and dealt.

    The solution is drawn with ``rng.choice`` from the suspects, then the weapons, then
    the rooms; the other cards, in :meth:`Cards.all` order, are shuffled with
    ``rng.shuffle`` and dealt one at a time in player order (card 1 to the first
    player, card 2 to the second, …), three each. The same ``rng`` state gives the
    same deal, so a stored seed replays it: pass ``random.Random(seed)``, never the
    global generator.

    Example: ``deal(cards, ["Кросс", "Дуг", "Роза"], random.Random(1234))`` →
    ``Deal(solution=(suspect, weapon, room), hands={"Кросс": (c1, c4, c7), ...})``.

    :raises CardCountError: the cards left after the solution are not 3 per player (C1).
    """
    solution = (rng.choice(cards.suspects), rng.choice(cards.weapons), rng.choice(cards.rooms))
    rest = [card for card in cards.all() if card not in solution]
    if len(rest) != 3 * len(players):
        raise CardCountError(
            f"rule C1: {len(players)} players need {3 * len(players) + 3} cards, "
            f"the decks hold {len(rest) + 3}"
        )
    rng.shuffle(rest)
    count = len(players)
    hands = {player: tuple(rest[index::count]) for index, player in enumerate(players)}
    return Deal(solution=solution, hands=hands)


def deal_problems(
    cards: Cards,
    players: Sequence[str],
    solution: Sequence[str],
    hands: Mapping[str, Sequence[str]],
) -> list[tuple[YamlPath, str]]:
    """Rule C2 for a deal given by hand (``games.yaml``'s ``deal:``, a test): every
    problem with where it is, as ``games.yaml`` has it (``("deal", "hands", "Дуг", 3)``).

    The solution is one suspect, one weapon and one room, in that order; every player
    (and nobody else) has a hand of exactly 3 cards; every card in play is in the
    solution or in one hand, once. Example: ``[(("deal", "hands", "Дуг"), "rule C2: a
    hand holds 3 cards, got 4")]``; ``[]`` for a legal deal.
    """
    found: list[tuple[YamlPath, str]] = []
    in_play = cards.all()
    seen: dict[str, str] = {}

    def place(card: str, path: YamlPath) -> bool:
        if card not in in_play:
            found.append((path, f"{card!r} is not a card in play{did_you_mean(card, in_play)}"))
            return False
        if card in seen:
            found.append((path, f"card {card!r} is dealt twice (also {seen[card]})"))
            return False
        seen[card] = show_path(path)
        return True

    for i, (card, category) in enumerate(zip(solution, CATEGORIES, strict=True)):
        path: YamlPath = ("deal", "solution", i)
        if place(card, path) and cards.category_of(card) != category:
            found.append(
                (path, f"{card!r} is not a {category}: the solution is suspect, weapon, room")
            )
    for name, hand in hands.items():
        if name not in players:
            found.append(
                (("deal", "hands", name), f"{name!r} is not a player{did_you_mean(name, players)}")
            )
            continue
        if len(hand) != 3:
            found.append(
                (("deal", "hands", name), f"rule C2: a hand holds 3 cards, got {len(hand)}")
            )
        for j, card in enumerate(hand):
            place(card, ("deal", "hands", name, j))
    missing = [p for p in players if p not in hands]
    if missing:
        found.append((("deal", "hands"), f"no hand for {', '.join(missing)}"))
    return found  # with these checks passed, every card in play is used exactly once


def check_deal(cards: Cards, players: Sequence[str], fixed: Deal) -> None:
    """Check a deal given by hand against C2 (:func:`deal_problems`).

    :raises ValueError: naming every problem, e.g. ``"rule C2: deal.hands.Дуг: a hand
        holds 3 cards, got 2"``.
    """
    found = deal_problems(cards, players, fixed.solution, fixed.hands)
    if found:
        problems = "; ".join(
            f"{show_path(path)}: {message.removeprefix('rule C2: ')}" for path, message in found
        )
        raise SetupError(f"rule C2: {problems}")


def start_deal(cards: Cards, players: Sequence[str], seed: int, fixed: Deal | None) -> Deal:
    """The deal a game starts with (C1, C2), for either variant.

    Checks that there are at least 3 players, each named once, and 3M+3 cards; then
    deals from ``random.Random(seed)`` (:func:`deal`), or checks ``fixed`` (a deal
    given in the config, :func:`check_deal`) and returns it with the hands in
    ``players`` order.

    Example: ``start_deal(cards, ["Кросс", "Дуг", "Роза"], 7, None)`` → a :class:`Deal`.

    :raises ValueError: e.g. ``"rule C1: at least 3 players, got 2"``, ``"players named
        twice: [...]"``, ``"rule C1: 4 players need 15 cards, got 12"``, or what
        :func:`check_deal` finds wrong in ``fixed``.
    """
    names = list(players)
    if len(names) < 3:
        raise SetupError(f"rule C1: at least 3 players, got {len(names)}")
    if len(set(names)) != len(names):
        raise SetupError(f"players named twice: {names}")
    if len(cards.all()) != 3 * len(names) + 3:
        raise SetupError(
            f"rule C1: {len(names)} players need {3 * len(names) + 3} cards, got {len(cards.all())}"
        )
    if fixed is None:
        return deal(cards, names, random.Random(seed))
    check_deal(cards, names, fixed)
    return Deal(fixed.solution, {p: tuple(fixed.hands[p]) for p in names})


def solution_as_json(solution: Sequence[str]) -> SolutionJson:
    """The three cards ``(suspect, weapon, room)`` as ``{"suspect", "weapon", "room"}``."""
    suspect, weapon, room = solution
    return {"suspect": suspect, "weapon": weapon, "room": room}


def deal_as_json(dealt: Deal) -> DealJson:
    """The deal as the JSON mapping of the fairness commitment (DESIGN.md;
    :class:`~pbp.games.cluedo.shapes.DealJson`).

    Example: ``{"solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
    "hands": {"Кросс": ["Петя", "Ваня", "Нож"], ...}}`` (hands in dealt order).
    """
    return {
        "solution": solution_as_json(dealt.solution),
        "hands": {player: list(hand) for player, hand in dealt.hands.items()},
    }


def deal_from_json(data: Mapping[str, Any]) -> Deal:
    """Inverse of :func:`deal_as_json` (hand order kept). :raises KeyError: a missing field."""
    solution = data["solution"]
    return Deal(
        (solution["suspect"], solution["weapon"], solution["room"]),
        {player: tuple(hand) for player, hand in data["hands"].items()},
    )


def cards_as_json(cards: Cards) -> CardsJson:
    """``{"suspects": [...], "weapons": [...], "rooms": [...]}``, each deck in order."""
    return {
        "suspects": list(cards.suspects),
        "weapons": list(cards.weapons),
        "rooms": list(cards.rooms),
    }


def cards_from_json(data: Mapping[str, Any]) -> Cards:
    """Inverse of :func:`cards_as_json`. :raises KeyError: a missing deck."""
    return Cards(tuple(data["suspects"]), tuple(data["weapons"]), tuple(data["rooms"]))


# --- checks shared by both variants (C4–C6) ---


def check_named_cards(cards: Cards, suspect: str, weapon: str, room: str) -> None:
    """A suggestion or accusation names a suspect, a weapon and a room, in that order (C6).

    :raises InvalidMove: ``wrong_category`` with params ``card``, ``category`` (the one
        expected: ``"suspect"``, ``"weapon"`` or ``"room"``) and ``allowed`` (that deck).
    """
    for category, card in zip(CATEGORIES, (suspect, weapon, room), strict=True):
        if card not in cards.deck(category):
            raise InvalidMove(
                "wrong_category", card=card, category=category, allowed=list(cards.deck(category))
            )


def held_cards(hand: Sequence[str], named: Sequence[str]) -> list[str]:
    """The named cards that ``hand`` holds, in the order named (suspect, weapon, room)."""
    return [card for card in named if card in hand]


def check_refutation(hand: Sequence[str], named: Sequence[str], card: str | None) -> None:
    """Rule C4: is showing ``card`` (``None``: no refutation) a legal answer?

    ``named`` is the suggestion's ``(suspect, weapon, room)``. A player who holds a
    named card must show one of them (any one he likes); a shown card must be named
    and held.

    >>> check_refutation(("нож", "кухня", "Белых"), ("Краснова", "нож", "кухня"), "кухня")

    :raises IllegalMove: ``must_refute`` (params ``held``: the named cards he holds,
        ``named``) for no refutation while holding one; ``card_not_named`` (``card``,
        ``named``, ``held``) for a card the suggestion does not name; ``card_not_held``
        (``card``, ``named``, ``held``) for a named card he does not hold.
    """
    held = held_cards(hand, named)
    if card is None:
        if held:
            raise IllegalMove("must_refute", held=held, named=list(named))
        return
    if card not in named:
        raise IllegalMove("card_not_named", card=card, named=list(named), held=held)
    if card not in hand:
        raise IllegalMove("card_not_held", card=card, named=list(named), held=held)


def gm_default_card(hand: Sequence[str], suspect: str, weapon: str, room: str) -> str | None:
    """Rule C5: the card the GM shows for a silent player: the first held of suspect,
    weapon, room; ``None`` when he holds none (the GM answers no refutation).

    >>> gm_default_card(("кухня", "нож"), "Белых", "нож", "кухня")
    'нож'
    """
    for card in (suspect, weapon, room):
        if card in hand:
            return card
    return None


def check_accusation(solution: Sequence[str], suspect: str, weapon: str, room: str) -> bool:
    """Rule C6: True when the accusation matches the solution on all three cards."""
    return tuple(solution) == (suspect, weapon, room)
