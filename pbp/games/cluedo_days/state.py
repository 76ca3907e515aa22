"""The state of a Cluedo-by-days game (rules C1–C7, D1–D8), its queries and its JSON form.

Split from :mod:`pbp.games.cluedo_days.engine` (the rules) so each module stays small;
the views built on these queries are in :mod:`pbp.games.cluedo_days.views`, the fields
and JSON both variants share in :mod:`pbp.games.cluedo.state`. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pbp.games.cluedo.state import (
    CluedoSetup,
    CluedoState,
    ending_as_json,
    ending_from_json,
    table_as_json,
    table_from_json,
)
from pbp.games.cluedo_days.shapes import AccusationJson, Sugg
from pbp.games.core.events import JsonMap, SetupError, flat_dict


@dataclass(frozen=True)
class DaysRules:
    """The *config* rules of the days variant (RULES.md D2, D6, C6), with their defaults."""

    suggestions_per_day: int = 3  # D2
    max_per_addressee_per_day: int = 3  # D2
    answer_grace_hours: float = 0.0  # D6, hours
    publish_wrong_accusations: bool = False  # C6

    def __post_init__(self) -> None:
        if self.suggestions_per_day < 0 or self.max_per_addressee_per_day < 1:
            raise SetupError(f"rule D2: bad limits in {self!r}")
        if self.answer_grace_hours < 0:
            raise SetupError(f"rule D6: answer_grace_hours must be >= 0, got {self!r}")


@dataclass(frozen=True)
class DaysSetup(CluedoSetup[DaysRules]):
    """What the config gives to :func:`~pbp.games.cluedo_days.engine.start`: the fields
    of :class:`~pbp.games.cluedo.state.CluedoSetup`, ``players`` in the configured
    order, ``rules`` the days variant's."""

    rules: DaysRules = field(default_factory=DaysRules)


@dataclass(frozen=True)
class Suggestion:
    """One suggestion (D2) and its answer (D3, D6).

    ``at``/``answered_at``: ISO 8601 UTC arrival times (D8). ``answer`` is None while
    unanswered, then ``"refuted"`` or ``"not_refuted"`` (``"voided"``: cancelled by the
    GM before any answer, as if never made); ``card`` is the shown card
    (private: the suggester and the GM only).
    """

    number: int
    day: int
    ordinal: int
    suggester: str
    addressee: str
    suspect: str
    weapon: str
    room: str
    at: str
    answer: str | None = None
    card: str | None = None
    by_gm: bool = False
    answered_at: str | None = None
    answered_day: int | None = None

    def public(self) -> Sugg:
        """The ``sugg`` fields of the event catalogue, plus ``at``."""
        return {
            "number": self.number,
            "day": self.day,
            "ordinal": self.ordinal,
            "suggester": self.suggester,
            "addressee": self.addressee,
            "suspect": self.suspect,
            "weapon": self.weapon,
            "room": self.room,
            "at": self.at,
        }


#: ``Suggestion.answer`` of a suggestion the GM voided.
VOIDED = "voided"


@dataclass(frozen=True)
class Accusation:
    """One accusation (C6, D5); ``at`` is the ISO 8601 UTC arrival time."""

    player: str
    day: int
    at: str
    suspect: str
    weapon: str
    room: str
    correct: bool

    def as_json(self) -> AccusationJson:
        """``{"player", "day", "at", "suspect", "weapon", "room", "correct"}``."""
        return {
            "player": self.player,
            "day": self.day,
            "at": self.at,
            "suspect": self.suspect,
            "weapon": self.weapon,
            "room": self.room,
            "correct": self.correct,
        }


@dataclass(frozen=True)
class DaysState(CluedoState[DaysRules, Accusation]):
    """The whole state of one game; immutable, JSON round trip by :func:`dump_state`.

    The fields both variants have (the game, seats, cards, rules, deal, seed, salt,
    accusations, out, winner, over, removed) are
    :class:`~pbp.games.cluedo.state.CluedoState`'s. ``day``: the current day (from 1);
    ``penalties``: suggestions taken off each player's allowance for the current day
    (D6, decided at the previous close); ``close_moved``: seconds by which the GM moved
    the current day's close (his extensions and pauses since the day opened; at a close
    he makes early, less the time it came before the close as stored), so that the
    grace (D6) counts from the close as it was scheduled (:func:`carried_past`,
    :func:`carried_at_close`).
    """

    day: int = 1
    suggestions: tuple[Suggestion, ...] = ()
    penalties: Mapping[str, int] = field(default_factory=dict)
    close_moved: float = 0.0

    @property
    def setup(self) -> DaysSetup:
        """The setup this game runs with (its deal being the one dealt)."""
        return DaysSetup(self.game_id, self.players, self.cards, self.rules, self.deal)


# --- queries ---


def allowance(state: DaysState, player: str) -> int:
    """D2/D6: suggestions ``player`` may make in the current day in all (0 when out)."""
    if player in state.out:
        return 0
    return max(0, state.rules.suggestions_per_day - state.penalties.get(player, 0))


def made_today(state: DaysState, player: str) -> list[Suggestion]:
    """D2: the suggestions ``player`` made today and the GM did not void, in order."""
    return [
        s
        for s in state.suggestions
        if s.suggester == player and s.day == state.day and s.answer != VOIDED
    ]


def addressed_today(state: DaysState, addressee: str) -> int:
    """D2: suggestions addressed to ``addressee`` today by all suggesters together."""
    return sum(
        s.addressee == addressee and s.day == state.day and s.answer != VOIDED
        for s in state.suggestions
    )


def suggestions_left(state: DaysState, player: str) -> int:
    """D2: suggestions ``player`` may still make today (never below 0)."""
    if state.over:
        return 0
    return max(0, allowance(state, player) - len(made_today(state, player)))


def owed(state: DaysState, player: str) -> list[Suggestion]:
    """D3: the suggestions addressed to ``player`` still unanswered, in number order."""
    return [s for s in state.suggestions if s.addressee == player and s.answer is None]


def carried_past(state: DaysState, suggestion: Suggestion, close_at: datetime) -> bool:
    """D6: True when ``suggestion`` (unanswered) is due at the close after the one at
    ``close_at`` (aware) rather than at it: it was made today, less than
    ``answer_grace_hours`` before that close as it was scheduled (``close_at`` less the
    time the GM moved it by, ``state.close_moved``: an extension or a pause does not
    take back the next day a carried suggestion's addressee was told of), by its
    arrival (D8). A suggestion is carried once at most: one of an earlier day is due at
    the current close, whatever the grace.
    """
    grace = timedelta(hours=state.rules.answer_grace_hours)
    scheduled = close_at - timedelta(seconds=state.close_moved)
    return suggestion.day == state.day and datetime.fromisoformat(suggestion.at) > scheduled - grace


def carried_at_close(state: DaysState, suggestion: Suggestion, at: datetime) -> bool:
    """D6 at the close that comes at ``at`` (aware): True when ``suggestion``
    (unanswered) is due at the next close instead: carried as scheduled
    (:func:`carried_past`), or made less than ``answer_grace_hours`` before ``at``
    itself. A GM who closes the day early (``state.close_moved`` below 0: the close
    came before its scheduled time) thus carries a suggestion made within the grace of
    the close that came, which its addressee could not foresee: a player is never
    penalised for it (its addressee, told the day's close, is told the next one).
    """
    grace = timedelta(hours=state.rules.answer_grace_hours)
    late = datetime.fromisoformat(suggestion.at) > at - grace
    return carried_past(state, suggestion, at) or (suggestion.day == state.day and late)


def per_addressee_left(state: DaysState, player: str) -> dict[str, int]:
    """D2: how many more suggestions ``player`` may address to each other player today:
    what the addressee can still receive from all suggesters, capped by what ``player``
    has left."""
    left = suggestions_left(state, player)
    limit = state.rules.max_per_addressee_per_day
    return {
        p: min(left, max(0, limit - addressed_today(state, p))) for p in state.names if p != player
    }


# --- storage ---


def dump_state(state: DaysState) -> JsonMap:
    """State → JSON-able dict; ``load_state(dump_state(s)) == s`` exactly."""
    return {
        **table_as_json(state),
        "day": state.day,
        "suggestions": [flat_dict(s) for s in state.suggestions],
        **ending_as_json(state),
        "penalties": dict(state.penalties),
        "close_moved": state.close_moved,
    }


def load_state(data: Mapping[str, Any]) -> DaysState:
    """Inverse of :func:`dump_state`. :raises KeyError, TypeError: malformed data."""
    rules = data["rules"]
    return DaysState(
        **table_from_json(data),
        rules=DaysRules(
            suggestions_per_day=int(rules["suggestions_per_day"]),
            max_per_addressee_per_day=int(rules["max_per_addressee_per_day"]),
            answer_grace_hours=float(rules["answer_grace_hours"]),
            publish_wrong_accusations=bool(rules["publish_wrong_accusations"]),
        ),
        day=int(data["day"]),
        suggestions=tuple(Suggestion(**s) for s in data["suggestions"]),
        **ending_from_json(data, Accusation),
        penalties={p: int(n) for p, n in data["penalties"].items()},
        close_moved=float(data.get("close_moved", 0.0)),
    )
