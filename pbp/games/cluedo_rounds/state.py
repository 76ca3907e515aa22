"""The state of a Cluedo-by-rounds game (rules C1–C7, R1–R7): its queries and JSON form.

Split from :mod:`pbp.games.cluedo_rounds.engine` (the rules: moves and deadlines) so each
module stays small; everything public here is re-exported there. Pure: no I/O, no
clock.

Times are stored as ISO 8601 strings in UTC (``"2026-12-01T17:05:00+00:00"``);
the queries below return aware :class:`~datetime.datetime` objects in UTC. The views
built on these queries are in :mod:`pbp.games.cluedo_rounds.views`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, get_args

from pbp.games.cluedo.cards import (
    NoRefutation,
    Refute,
    Status,
)
from pbp.games.cluedo.state import (
    CluedoSetup,
    CluedoState,
    ending_as_json,
    ending_from_json,
    table_as_json,
    table_from_json,
)
from pbp.games.cluedo_rounds.shapes import (
    AccusationJson,
    AnswerJson,
    SkipJson,
    Sugg,
)
from pbp.games.core.events import Event, JsonMap, SetupError, flat_dict

AutoAnswer = Literal["no_match", "none"]  # R6: no "forced" mode (it leaks, see RoundsRules)
AUTO_ANSWERS: tuple[str, ...] = get_args(AutoAnswer)


@dataclass(frozen=True)
class RoundsRules:
    """The *config* rules of the rounds variant (RULES.md R6, R7, C6), with their defaults.

    ``auto_answer`` (R6): ``"no_match"`` answers NO REFUTATION at once for a player
    holding none of the named cards; ``"none"`` waits for every answer. There is no
    mode that also shows a single matching card at once: the suggester would learn
    that a player who is *asked* holds at least two of the named cards, which no
    manual answer tells him (R6). ``turn_hours`` /
    ``answer_hours`` (R7): hours (fractions allowed) a player has for his turn / his
    answer. ``publish_wrong_accusations`` (C6): the seed's "accused aloud".

    :raises ValueError: an unknown ``auto_answer`` or hours that are not > 0.
    """

    auto_answer: AutoAnswer = "no_match"  # R6
    turn_hours: float = 24.0  # R7, hours
    answer_hours: float = 12.0  # R7, hours
    publish_wrong_accusations: bool = True  # C6 (seed 000: accused aloud)

    def __post_init__(self) -> None:
        if self.auto_answer not in AUTO_ANSWERS:
            raise SetupError(
                f"rule R6: auto_answer must be one of {', '.join(AUTO_ANSWERS)}, "
                f"got {self.auto_answer!r}"
            )
        if not (self.turn_hours > 0 and self.answer_hours > 0):
            raise SetupError(f"rule R7: turn_hours and answer_hours must be > 0 in {self!r}")


@dataclass(frozen=True)
class RoundsSetup(CluedoSetup[RoundsRules]):
    """What the config gives to ``start``: the fields of
    :class:`~pbp.games.cluedo.state.CluedoSetup`, ``players`` in turn order (R1), e.g.
    ``(("Кросс", None), ("Дуг", None), ("Роза", None))``, ``rules`` the rounds
    variant's."""

    rules: RoundsRules = field(default_factory=RoundsRules)


@dataclass(frozen=True)
class Answer:
    """One player's answer to a suggestion (R2): ``card`` shown, or None (no refutation).

    ``auto``: given by the engine because the player had no choice (R6); ``by_gm``:
    given by the GM at the answer deadline (R7, C5); ``at``: ISO 8601 UTC.
    """

    player: str
    card: str | None
    auto: bool
    by_gm: bool
    at: str

    def as_json(self) -> AnswerJson:
        """``{"player", "card", "auto", "by_gm", "at"}``."""
        return {
            "player": self.player,
            "card": self.card,
            "auto": self.auto,
            "by_gm": self.by_gm,
            "at": self.at,
        }


@dataclass(frozen=True)
class Suggestion:
    """One suggestion (R1) and its answering round (R2, R3).

    ``number``: game-wide, from 1; ``turn``: the turn it was made in; ``at``: its
    arrival (ISO UTC, D8). ``answers``: in answering order. ``asked``/``asked_at``:
    the player who must answer now and since when (None when nobody is asked);
    ``ended_at``: when the round ended (None while it runs).
    """

    number: int
    turn: int
    suggester: str
    suspect: str
    weapon: str
    room: str
    at: str
    answers: tuple[Answer, ...] = ()
    asked: str | None = None
    asked_at: str | None = None
    ended_at: str | None = None

    @property
    def named(self) -> tuple[str, str, str]:
        """``(suspect, weapon, room)``."""
        return (self.suspect, self.weapon, self.room)

    @property
    def refutation(self) -> Answer | None:
        """The answer that showed a card (at most one, R2), or None."""
        return next((a for a in self.answers if a.card is not None), None)

    @property
    def refuted_by(self) -> str | None:
        """The player who showed a card, or None."""
        refutation = self.refutation
        return None if refutation is None else refutation.player

    def public(self) -> Sugg:
        """``{number, turn, suggester, suspect, weapon, room, at}`` (the ``sugg`` fields)."""
        return {
            "number": self.number,
            "turn": self.turn,
            "suggester": self.suggester,
            "suspect": self.suspect,
            "weapon": self.weapon,
            "room": self.room,
            "at": self.at,
        }


_SUGG_FIELDS = ("number", "turn", "suggester", "suspect", "weapon", "room", "at")


@dataclass(frozen=True)
class Accusation:
    """One accusation (C6, R4); ``at`` is the ISO 8601 UTC arrival time."""

    player: str
    turn: int
    at: str
    suspect: str
    weapon: str
    room: str
    correct: bool

    def as_json(self) -> AccusationJson:
        """``{"player", "turn", "at", "suspect", "weapon", "room", "correct"}``."""
        return {
            "player": self.player,
            "turn": self.turn,
            "at": self.at,
            "suspect": self.suspect,
            "weapon": self.weapon,
            "room": self.room,
            "correct": self.correct,
        }


@dataclass(frozen=True)
class Skip:
    """A turn not taken by its deadline (R7); ``at``: when it was skipped (ISO UTC)."""

    turn: int
    player: str
    at: str

    def as_json(self) -> SkipJson:
        """``{"turn", "player", "at"}``."""
        return {"turn": self.turn, "player": self.player, "at": self.at}


@dataclass(frozen=True)
class RoundsState(CluedoState[RoundsRules, Accusation]):
    """The whole state of one game; immutable, JSON round trip by :func:`dump_state`.

    The fields both variants have (the game, seats, cards, rules, deal, seed, salt,
    accusations, out, winner, over, removed: the GM answers for a removed player at
    once, C5) are :class:`~pbp.games.cluedo.state.CluedoState`'s.
    ``turn``: the current turn's number (from 1; skipped turns count);
    ``turn_player``: whose turn it is (R1; the suggester also while his suggestion's
    round is answered); ``turn_started``: when the turn started (ISO UTC, R7).
    Once ``over``, ``turn`` and ``turn_player`` stay those of the last turn.

    The state holds what the rules need, so that its size does not grow with the
    game's length: ``suggestion_count`` (suggestions made so far), ``last_rooms``
    (``(player, room)`` of each player's previous suggestion, R5, in turn order)
    and in ``suggestions`` only the latest suggestion (the running one, R2).
    ``suggestions`` and ``skipped`` hold the whole history only in a state given
    the game's logged events by :func:`with_history` (what ``status``'s
    ``shown_to_me``/``shown_by_me``, ``gm_view`` and an answer to an older
    suggestion need, see :func:`needs_history`).
    """

    turn_player: str
    turn_started: str
    turn: int = 1
    suggestions: tuple[Suggestion, ...] = ()
    skipped: tuple[Skip, ...] = ()
    suggestion_count: int = 0
    last_rooms: tuple[tuple[str, str], ...] = ()

    @property
    def setup(self) -> RoundsSetup:
        """The setup this game runs with (its deal being the one dealt)."""
        return RoundsSetup(self.game_id, self.players, self.cards, self.rules, self.deal)

    @property
    def running(self) -> Suggestion | None:
        """The suggestion whose answering round runs now (R2), or None."""
        if self.suggestions and self.suggestions[-1].ended_at is None:
            return self.suggestions[-1]
        return None


# --- queries ---


def whose_turn(state: RoundsState) -> str | None:
    """The player whose turn it is (R1), also while his suggestion is being answered;
    None once the game is over. He may suggest or accuse only when :func:`awaiting`
    is None."""
    return None if state.over else state.turn_player


def awaiting(state: RoundsState) -> tuple[str, int] | None:
    """``(player, number)``: who must answer which suggestion now (R2), or None."""
    running = None if state.over else state.running
    if running is None or running.asked is None:
        return None
    return (running.asked, running.number)


def turns_before(state: RoundsState, player: str) -> list[str]:
    """R1, R4: the players whose turns come before ``player``'s next one, in turn order:
    from the current turn's player round the table up to ``player``, skipping the
    players who are out (as the turn passes them by); ``[]`` when the current turn is
    his or the game is over. Example: Кросс, Дуг, Роза in this order, Кросс's turn
    skipped (Дуг's turn now) → ``turns_before(state, "Кросс") == ["Дуг", "Роза"]``.
    A player who is out later (a wrong accusation, the GM's removal) drops out of it."""
    if state.over or state.turn_player == player:
        return []
    names = state.names
    start = names.index(state.turn_player)
    order = [names[(start + k) % len(names)] for k in range(len(names))]
    return [p for p in order[: order.index(player)] if p not in state.out]


def allowed_rooms(state: RoundsState, player: str) -> list[str]:
    """R5: the rooms ``player`` may name in his next suggestion: every room but the
    room of his previous suggestion, in deck order."""
    previous = dict(state.last_rooms).get(player)
    return [room for room in state.cards.rooms if room != previous]


def deadline(state: RoundsState) -> datetime | None:
    """R7: the aware UTC time of the next timeout, or None once the game is over.

    While an answer is awaited: the time the player was asked + ``answer_hours``;
    otherwise: the current turn's start + ``turn_hours``. Example: a turn started at
    ``2026-12-01T17:00:00+00:00`` with 24 turn hours → ``2026-12-02 17:00 UTC``.
    """
    if state.over:
        return None
    running = state.running
    if running is not None and running.asked_at is not None:
        return _plus_hours(running.asked_at, state.rules.answer_hours)
    return _plus_hours(state.turn_started, state.rules.turn_hours)


def _plus_hours(stamp: str, hours: float) -> datetime:
    return datetime.fromisoformat(stamp) + timedelta(hours=hours)


def find_suggestion(state: RoundsState, number: int) -> Suggestion | None:
    """Suggestion ``number`` if ``state`` holds it (the latest one always; older ones
    only in a state given its history, :func:`with_history`), else None."""
    return next((s for s in state.suggestions if s.number == number), None)


def needs_history(state: RoundsState, move: object) -> bool:
    """True when :func:`apply` (``move``) or :func:`status` (``move`` a
    :class:`~pbp.games.cluedo.cards.Status`) needs the suggestions before the latest one:
    STATUS lists the cards shown to and by the player in the whole game; an answer
    naming an older suggestion is refused with what was answered to it (R2)."""
    if isinstance(move, Status):
        return True
    if isinstance(move, Refute | NoRefutation) and move.number is not None:
        known = 1 <= move.number <= state.suggestion_count
        return known and find_suggestion(state, move.number) is None
    return False


def with_history(state: RoundsState, events: Iterable[Event]) -> RoundsState:
    """``state`` with every suggestion (answers included) and skipped turn, rebuilt
    from the game's logged ``events`` in order (``suggestion_made``, ``asked``,
    ``refuted`` + ``card_shown``, ``not_refuted``, ``round_ended``, ``turn_skipped``).
    The latest suggestion is the state's own (a pause or an extension moves its
    ``asked_at`` without an event). Pure; the snapshot never stores the result
    (:func:`dump_state` keeps the latest suggestion only).
    """
    found: dict[int, Suggestion] = {}
    skipped: list[Skip] = []
    for event in events:
        data = event.data
        kind_ = event.kind
        if kind_ == "turn_skipped":
            skipped.append(Skip(int(data["turn"]), data["player"], data["skipped_at"]))
            continue
        if kind_ not in _HISTORY_KINDS:
            continue
        number = int(data["number"])
        if kind_ == "suggestion_made":
            found[number] = Suggestion(**{name: data[name] for name in _SUGG_FIELDS})
            continue
        current = found.get(number)
        if current is None:
            continue
        if kind_ == "asked":
            found[number] = dataclasses.replace(
                current, asked=data["player"], asked_at=data["asked_at"]
            )
        elif kind_ in ("refuted", "not_refuted"):
            answer = Answer(
                data["by"], None, bool(data["auto"]), bool(data["by_gm"]), data["answered_at"]
            )
            found[number] = dataclasses.replace(
                current, answers=(*current.answers, answer), asked=None, asked_at=None
            )
        elif kind_ == "card_shown" and current.answers:
            last = dataclasses.replace(current.answers[-1], card=data["card"])
            found[number] = dataclasses.replace(current, answers=(*current.answers[:-1], last))
        elif kind_ == "round_ended":
            found[number] = dataclasses.replace(current, ended_at=data["ended_at"])
    for own in state.suggestions:
        found[own.number] = own
    return dataclasses.replace(
        state,
        suggestions=tuple(found[n] for n in sorted(found)),
        skipped=tuple(skipped),
    )


_HISTORY_KINDS = frozenset(
    ("suggestion_made", "asked", "refuted", "not_refuted", "card_shown", "round_ended")
)


# --- storage ---


def dump_state(state: RoundsState) -> JsonMap:
    """State → JSON-able dict, of a size independent of the game's length (the
    latest suggestion only, no skipped turns: the event log holds the history);
    ``load_state(dump_state(s)) == s`` exactly for a state without history (every
    state the engine returns)."""
    return {
        **table_as_json(state),
        "turn_player": state.turn_player,
        "turn_started": state.turn_started,
        "turn": state.turn,
        "suggestions": [suggestion_as_json(s) for s in state.suggestions[-1:]],
        "suggestion_count": state.suggestion_count,
        "last_rooms": [[p, room] for p, room in state.last_rooms],
        **ending_as_json(state),
    }


def suggestion_as_json(suggestion: Suggestion) -> JsonMap:
    """A :class:`Suggestion` as JSON: its fields, ``answers`` a list of dicts
    (:class:`~pbp.games.cluedo_rounds.shapes.SuggestionJson`)."""
    return {**flat_dict(suggestion), "answers": [flat_dict(a) for a in suggestion.answers]}


def _suggestion(data: Mapping[str, Any]) -> Suggestion:
    answers = tuple(Answer(**a) for a in data["answers"])
    return Suggestion(**{**data, "answers": answers})


def load_state(data: Mapping[str, Any]) -> RoundsState:
    """Inverse of :func:`dump_state`; also reads the snapshot of an older version,
    which held every suggestion and skipped turn: it keeps the latest suggestion and
    derives ``suggestion_count`` and ``last_rooms`` (R5) from the others.

    :raises KeyError, TypeError, ValueError: malformed data.
    """
    rules = data["rules"]
    suggestions = data["suggestions"]
    if "last_rooms" in data:
        last_rooms = tuple((p, room) for p, room in data["last_rooms"])
    else:  # an older snapshot: the full history
        rooms = {s["suggester"]: s["room"] for s in suggestions}
        last_rooms = tuple((p, rooms[p]) for p, _ in data["players"] if p in rooms)
    return RoundsState(
        **table_from_json(data),
        rules=RoundsRules(
            # R6: a game stored with the removed "forced" mode goes on as "no_match",
            # which answers only what a manual answer would.
            auto_answer="no_match" if rules["auto_answer"] == "forced" else rules["auto_answer"],
            turn_hours=float(rules["turn_hours"]),
            answer_hours=float(rules["answer_hours"]),
            publish_wrong_accusations=bool(rules["publish_wrong_accusations"]),
        ),
        turn_player=data["turn_player"],
        turn_started=data["turn_started"],
        turn=int(data["turn"]),
        suggestions=tuple(_suggestion(s) for s in suggestions[-1:]),
        **ending_from_json(data, Accusation),
        suggestion_count=int(data.get("suggestion_count", len(suggestions))),
        last_rooms=last_rooms,
    )
