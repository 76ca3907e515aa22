"""The state both Cluedo variants share (rules C1–C7) and its JSON form.

:class:`CluedoState` holds what either variant's state has: the game, its seats, the
cards in play (C1), the variant's rules, the deal (C2) and its fairness salt, the
accusations (C6), who is out, who the GM removed (C5), who won and whether the game is
over (C7). :class:`~pbp.games.cluedo_days.state.DaysState` and
:class:`~pbp.games.cluedo_rounds.state.RoundsState` add their own fields (the day, the
turn…); the steps on the shared fields are in :mod:`pbp.games.cluedo.engine`. Pure: no
I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import Field, asdict, dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypedDict, TypeVar

from pbp.games.cluedo.cards import (
    CATEGORIES,
    Cards,
    Deal,
    cards_from_json,
    deal_as_json,
    deal_from_json,
)
from pbp.games.core.events import JsonMap
from pbp.text.fairness import canonical_deal


class Record(Protocol):
    """A dataclass instance (what :func:`dataclasses.asdict` writes as JSON): the
    variants' rules and accusations."""

    __dataclass_fields__: ClassVar[dict[str, Field[object]]]


class CluedoRules(Record, Protocol):
    """What both variants' *config* rules have: C6's choice."""

    @property
    def publish_wrong_accusations(self) -> bool:
        """C6: a wrong accusation's three cards are public (else only that it was wrong)."""
        ...


R = TypeVar("R", bound=CluedoRules)  # the variant's rules
A = TypeVar("A")  # the variant's accusation record
# The same, in the (frozen) state: a DaysState is a CluedoState[CluedoRules, Record].
R_co = TypeVar("R_co", bound=CluedoRules, covariant=True)
A_co = TypeVar("A_co", bound=Record, covariant=True)


@dataclass(frozen=True)
class CluedoSetup(Generic[R]):
    """What the config gives to a variant's ``start``.

    ``players``: ``(name, character or None)`` in the configured order (the turn order
    by rounds, R1), e.g. ``(("Неташка", "Краснова"), ("Веталь", None), ...)``;
    ``cards`` after rule C1's drop; ``deal``: a fixed deal (checked by C2) or None to
    deal from the seed.
    """

    game_id: str
    players: tuple[tuple[str, str | None], ...]
    cards: Cards
    rules: R
    deal: Deal | None = None


@dataclass(frozen=True)
class CluedoState(Generic[R_co, A_co]):
    """The fields of either variant's state: its game, seats, cards, rules, deal, seed and
    fairness salt (hex), then (keyword-only, after the variant's own fields)
    ``accusations`` (C6), ``out`` (players out of the game, by a wrong accusation or
    removed), ``winner`` and ``over`` (C7) and ``removed`` (players the GM removed, also
    in ``out``; the GM answers for them, C5)."""

    game_id: str
    players: tuple[tuple[str, str | None], ...]
    cards: Cards
    rules: R_co
    deal: Deal
    seed: int
    salt: str
    accusations: tuple[A_co, ...] = field(default=(), kw_only=True)
    out: tuple[str, ...] = field(default=(), kw_only=True)
    winner: str | None = field(default=None, kw_only=True)
    over: bool = field(default=False, kw_only=True)
    removed: tuple[str, ...] = field(default=(), kw_only=True)

    @property
    def names(self) -> list[str]:
        """Player names in the configured order (the turn order by rounds, R1)."""
        return [name for name, _ in self.players]

    @property
    def canonical(self) -> str:
        """The fairness text of this game's deal (DESIGN.md)."""
        return canonical_deal(self.game_id, bytes.fromhex(self.salt), deal_as_json(self.deal))


#: Either variant's state, as the steps both take see it.
AnyState = CluedoState[CluedoRules, Record]


class TableFields(TypedDict):
    """The leading fields of a variant's state (keyword arguments of its class), as
    :func:`table_from_json` reads them back (``rules`` apart: each variant reads its own)
    and :func:`pbp.games.cluedo.engine.dealt` deals them (with ``rules``)."""

    game_id: str
    players: tuple[tuple[str, str | None], ...]
    cards: Cards
    deal: Deal
    seed: int
    salt: str


class EndingFields(TypedDict, Generic[A]):
    """The shared trailing fields of a variant's state (keyword arguments of its class),
    as :func:`ending_from_json` reads them back."""

    accusations: tuple[A, ...]
    out: tuple[str, ...]
    winner: str | None
    over: bool
    removed: tuple[str, ...]


def is_over(state: AnyState) -> bool:
    """True once somebody won or every player is out (C7)."""
    return state.over


# --- storage ---


def table_as_json(state: AnyState) -> JsonMap:
    """The leading fields of a state's JSON form: ``{game_id, players: [[name,
    character]...], cards: {suspects, weapons, rooms}, rules, deal: {solution: {suspect,
    weapon, room}, hands: {player: [card...]}}, seed, salt}`` (the cards and the deal
    as :func:`~pbp.games.cluedo.cards.cards_as_json` and
    :func:`~pbp.games.cluedo.cards.deal_as_json` write them)."""
    cards, dealt = state.cards, state.deal
    return {
        "game_id": state.game_id,
        "players": [[p, ch] for p, ch in state.players],
        "cards": {
            "suspects": list(cards.suspects),
            "weapons": list(cards.weapons),
            "rooms": list(cards.rooms),
        },
        "rules": asdict(state.rules),
        "deal": {
            "solution": dict(zip(CATEGORIES, dealt.solution, strict=True)),
            "hands": {player: list(hand) for player, hand in dealt.hands.items()},
        },
        "seed": state.seed,
        "salt": state.salt,
    }


def table_from_json(data: Mapping[str, Any]) -> TableFields:
    """Inverse of :func:`table_as_json` but for ``rules`` (each variant reads its own):
    the keyword arguments of the state's fields. :raises KeyError, TypeError: malformed
    data."""
    return {
        "game_id": data["game_id"],
        "players": tuple((p, ch) for p, ch in data["players"]),
        "cards": cards_from_json(data["cards"]),
        "deal": deal_from_json(data["deal"]),
        "seed": int(data["seed"]),
        "salt": data["salt"],
    }


def ending_as_json(state: AnyState) -> JsonMap:
    """The shared trailing fields of a state's JSON form: ``{accusations: [{...}],
    out, winner, over, removed}``."""
    return {
        "accusations": [asdict(a) for a in state.accusations],
        "out": list(state.out),
        "winner": state.winner,
        "over": state.over,
        "removed": list(state.removed),
    }


def ending_from_json(data: Mapping[str, Any], accusation: Callable[..., A]) -> EndingFields[A]:
    """Inverse of :func:`ending_as_json` (``accusation``: the variant's record, built
    from each stored accusation's fields): the keyword arguments of those fields. A
    state stored before the GM could remove players has no ``removed``.
    :raises KeyError, TypeError: malformed data."""
    return {
        "accusations": tuple(accusation(**a) for a in data["accusations"]),
        "out": tuple(data["out"]),
        "winner": data["winner"],
        "over": bool(data["over"]),
        "removed": tuple(data.get("removed", ())),
    }
