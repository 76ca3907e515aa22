"""One driver per Cluedo variant, for the C1–C7 conformance suite (``games/cluedo/test_rules_*``).

A driver begins a game with seed 000's worked example (3 suspects, 6 weapons, 3
rooms; the fixed deal of :data:`SOLUTION` and :data:`HANDS`) and plays it through the
variant's real engine: a suggestion by a player to a given answerer, his answer, an
accusation, and the deadline at which the GM answers for a silent player (C5). Nothing
is faked: every move is the engine's ``apply``, every deadline its ``close_day`` (days)
or ``on_deadline`` (rounds), and the state goes through its JSON form after each step
as the shell stores it.

Where the variants differ the driver says so, with the rule:

- who answers (D3 / R2): in the days variant a suggestion names its addressee; in the
  rounds variant the player after the suggester answers first, so ``suggest(by, cards,
  to)`` there checks that ``to`` sits after ``by`` and first brings ``by``'s turn round,
  skipping the turns before it at their deadlines (R1, R7);
- the GM's answer (C5): at the day's close (D6) / at the answer deadline (R7);
- who refuted, in a public event: the addressee (days) / ``by`` (rounds).

Times are aware, in UTC; each move arrives one minute after the one before.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

import pydantic
import pytest
from kits.seed_000 import EXAMPLE, HANDS, SOLUTION

from pbp.games.cluedo.cards import (
    Accuse,
    Cards,
    CluedoMove,
    Deal,
    NoRefutation,
    Refute,
    Suggest,
)
from pbp.games.cluedo.config import CluedoGame
from pbp.games.cluedo_days import engine as days
from pbp.games.cluedo_days.config import CluedoDaysGame
from pbp.games.cluedo_days.kind import CluedoDays
from pbp.games.cluedo_rounds import engine as rounds
from pbp.games.cluedo_rounds.config import CluedoRoundsGame
from pbp.games.cluedo_rounds.kind import CluedoRounds
from pbp.games.cluedo_rounds.state import AutoAnswer
from pbp.games.core.events import Event, MoveError, Step, Visibility

NAMES = ("Кросс", "Дуг", "Роза")  # the configured order: the turn order in rounds (R1)
SALT = bytes(range(32))
T0 = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # 20:00 Europe/Moscow, day 1 / turn 1
DAY_CLOSE = datetime(2026, 12, 1, 19, 30, tzinfo=UTC)  # 22:30 Europe/Moscow (days, D1)
MOVE_GAP = timedelta(minutes=1)

#: Three decks for ``games.yaml``: suspects, weapons, rooms, each in its order.
Decks = tuple[Sequence[str], Sequence[str], Sequence[str]]
EXAMPLE_DECKS: Decks = (EXAMPLE.suspects, EXAMPLE.weapons, EXAMPLE.rooms)


class Table(Protocol):
    """What the suite reads of either variant's state (``DaysState``, ``RoundsState``)."""

    @property
    def deal(self) -> Deal: ...

    @property
    def seed(self) -> int: ...

    @property
    def out(self) -> tuple[str, ...]: ...

    @property
    def over(self) -> bool: ...

    @property
    def winner(self) -> str | None: ...


def named(cards: str) -> tuple[str, str, str]:
    """``"Маша Топор Столовая"`` → ``("Маша", "Топор", "Столовая")`` (suspect, weapon, room)."""
    suspect, weapon, room = cards.split()
    return suspect, weapon, room


class Game(ABC):
    """One game of a variant in play. ``events`` holds every event so far, in order."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events: list[Event] = list(events)
        self.now = T0

    @property
    @abstractmethod
    def state(self) -> Table:
        """The current state."""

    @abstractmethod
    def suggest(self, by: str, cards: str, to: str) -> list[Event]:
        """``by`` suggests ``cards`` (``"Маша Топор Столовая"``) and ``to`` is to answer it.

        Days: addressed to ``to`` (D2, D3). Rounds: on ``by``'s turn, the turns before it
        skipped at their deadlines (R7); ``to`` must be the player after ``by`` (R2).
        Returns the events of the suggestion itself (skipped turns go to :attr:`events`).

        :raises MoveError: the engine refused the suggestion.
        :raises ValueError: rounds, ``to`` does not sit after ``by`` (the test's mistake).
        """

    @abstractmethod
    def accuse(self, by: str, cards: str) -> list[Event]:
        """``by`` accuses ``cards`` (rounds: on his turn, reached as for :meth:`suggest`).

        :raises MoveError: the engine refused the accusation.
        """

    @abstractmethod
    def answer(self, by: str, card: str | None, number: int | None = None) -> list[Event]:
        """``by`` shows ``card`` (``None``: says no refutation) for suggestion ``number``
        (``None``: the one he must answer now). :raises MoveError: refused."""

    @abstractmethod
    def pass_answer_deadline(self) -> list[Event]:
        """The deadline at which the GM answers for a silent player (C5): the day's close
        (days, D6) or the answer deadline of the player asked (rounds, R7)."""

    def public(self) -> list[Event]:
        """Every PUBLIC event so far."""
        return [e for e in self.events if e.visibility is Visibility.PUBLIC]

    def _tick(self) -> datetime:
        self.now += MOVE_GAP
        return self.now


class Variant(ABC):
    """The driver of one Cluedo variant: how to begin a game and read what differs."""

    #: ``"days"`` or ``"rounds"`` (the test ids).
    name: str
    #: The variant's ``games.yaml`` model.
    config_model: type[CluedoGame]

    @abstractmethod
    def begin(
        self, *, publish_wrong_accusations: bool | None = None, auto_answer: AutoAnswer = "none"
    ) -> Game:
        """A game of seed 000's example with its fixed deal; ``publish_wrong_accusations``
        None keeps the variant's default (C6); ``auto_answer`` (R6) is for rounds only."""

    @abstractmethod
    def start(
        self, players: Sequence[str], cards: Cards, seed: int
    ) -> Step[days.DaysState | rounds.RoundsState]:
        """The engine's ``start`` for ``players`` (no characters), dealing from ``seed`` (C2).

        :raises ValueError: what the engine refuses (C1).
        """

    @abstractmethod
    def answerer(self, event: Event) -> str:
        """Who answered, by a PUBLIC ``refuted`` / ``not_refuted`` event."""

    def configure(self, players: Sequence[str], decks: Decks, **more: object) -> CluedoGame:
        """The variant's ``games.yaml`` model of a game of ``players`` with ``decks``
        (suspects, weapons, rooms, each in order; rule C1 drops from their bottoms) and
        ``more`` keys of the entry (``rules={...}``).

        :raises pydantic.ValidationError: what ``pbp check`` refuses (see :meth:`problems`).
        """
        return self.config_model.model_validate(self._entry(players, decks, more))

    @abstractmethod
    def configured_publicity(self, rules: Mapping[str, object]) -> bool:
        """``publish_wrong_accusations`` (C6) of the engine rules that the variant's kind
        makes of a seed 000 game in ``games.yaml`` with these ``rules:``."""

    def _entry(
        self, players: Sequence[str], decks: Decks, more: Mapping[str, object]
    ) -> dict[str, object]:
        return {
            "id": "c1",
            "kind": f"cluedo_{self.name}",
            "locale": "ru",
            "timezone": "Europe/Moscow",
            "gm": "gm@example.test",
            "players": [
                {"name": p, "email": f"player{i}@example.test"} for i, p in enumerate(players)
            ],
            "cards": dict(zip(("suspects", "weapons", "rooms"), map(list, decks), strict=True)),
            **self._config_extra(),
            **more,
        }

    def problems(self, players: Sequence[str], decks: Decks) -> list[str]:
        """What ``pbp check`` says of :meth:`configure`'s game, e.g. ``["rule C1: the
        suspect deck holds 2; ..."]``; ``[]`` when the game is accepted."""
        try:
            self.configure(players, decks)
        except pydantic.ValidationError as error:
            found = [
                message
                for problem in error.errors()
                for _, message in problem.get("ctx", {}).get("problems", [])
            ]
            return found or [str(error)]
        return []

    def _config_extra(self) -> dict[str, object]:
        return {}


# --- days ---


class DaysGame(Game):
    """A days game: moves by ``days.apply``, the GM's answers by ``days.close_day``."""

    def __init__(self, step: Step[days.DaysState]) -> None:
        super().__init__(step.events)
        self._state: days.DaysState = step.state
        self._close = DAY_CLOSE

    @property
    def state(self) -> days.DaysState:
        return self._state

    def suggest(self, by: str, cards: str, to: str) -> list[Event]:
        return self._apply(by, Suggest(*named(cards), addressee=to))

    def accuse(self, by: str, cards: str) -> list[Event]:
        return self._apply(by, Accuse(*named(cards)))

    def answer(self, by: str, card: str | None, number: int | None = None) -> list[Event]:
        return self._apply(by, NoRefutation(number) if card is None else Refute(card, number))

    def pass_answer_deadline(self) -> list[Event]:
        assert self.now < self._close, "more moves than fit in the day"
        step = days.close_day(self._state, self._close)
        self.now, self._close = self._close, self._close + timedelta(days=1)
        return self._take(step)

    def _apply(self, player: str, move: CluedoMove) -> list[Event]:
        return self._take(days.apply(self._state, player, move, self._tick()))

    def _take(self, step: Step[days.DaysState]) -> list[Event]:
        stored = json.loads(json.dumps(days.dump_state(step.state), ensure_ascii=False))
        assert days.load_state(stored) == step.state
        self._state = step.state
        self.events.extend(step.events)
        return list(step.events)


class DaysVariant(Variant):
    """Cluedo by game days (seed 001)."""

    name = "days"
    config_model = CluedoDaysGame

    def begin(
        self, *, publish_wrong_accusations: bool | None = None, auto_answer: AutoAnswer = "none"
    ) -> DaysGame:
        rules = (
            days.DaysRules()
            if publish_wrong_accusations is None
            else days.DaysRules(publish_wrong_accusations=publish_wrong_accusations)
        )
        players = tuple((name, None) for name in NAMES)
        setup = days.DaysSetup("seed-000", players, EXAMPLE, rules, Deal(SOLUTION, HANDS))
        return DaysGame(days.start(setup, 7, SALT))

    def start(self, players: Sequence[str], cards: Cards, seed: int) -> Step[days.DaysState]:
        setup = days.DaysSetup("c2", tuple((p, None) for p in players), cards)
        return days.start(setup, seed, SALT)

    def answerer(self, event: Event) -> str:
        answerer: str = event.data["addressee"]  # D3: only the addressee answers
        return answerer

    def configured_publicity(self, rules: Mapping[str, object]) -> bool:
        entry = self._entry(NAMES, EXAMPLE_DECKS, {"rules": dict(rules)})
        return (
            CluedoDays().setup(CluedoDaysGame.model_validate(entry)).rules.publish_wrong_accusations
        )

    def _config_extra(self) -> dict[str, object]:
        return {"day_closes": "22:30"}


# --- rounds ---


class RoundsGame(Game):
    """A rounds game: moves by ``rounds.apply``, deadlines by ``rounds.on_deadline``."""

    def __init__(self, step: Step[rounds.RoundsState]) -> None:
        super().__init__(step.events)
        self._state: rounds.RoundsState = step.state

    @property
    def state(self) -> rounds.RoundsState:
        return self._state

    def suggest(self, by: str, cards: str, to: str) -> list[Event]:
        first = NAMES[(NAMES.index(by) + 1) % len(NAMES)]
        if to != first:  # a test asking the impossible, not the engine's fault
            raise ValueError(f"rule R2: the player after {by} answers first, {first}, not {to}")
        self._bring_turn(by)
        return self._apply(by, Suggest(*named(cards)))

    def accuse(self, by: str, cards: str) -> list[Event]:
        self._bring_turn(by)
        return self._apply(by, Accuse(*named(cards)))

    def answer(self, by: str, card: str | None, number: int | None = None) -> list[Event]:
        return self._apply(by, NoRefutation(number) if card is None else Refute(card, number))

    def pass_answer_deadline(self) -> list[Event]:
        if self._state.over:  # no deadline any more: any later time will do
            return self._deadline(self.now + timedelta(days=1))
        assert rounds.awaiting(self._state) is not None, "nobody is asked to answer"
        due = rounds.deadline(self._state)
        assert due is not None
        return self._deadline(due)

    def _bring_turn(self, player: str) -> None:
        """R1, R7: skip the turns before ``player``'s at their deadlines. Not for a
        player who is out (R4: his turn never comes; the engine refuses his move) or
        while a round runs (its answers come first)."""
        for _ in NAMES:
            state = self._state
            if state.over or player in state.out or rounds.whose_turn(state) == player:
                return
            assert state.running is None, "a suggestion is still being answered"
            due = rounds.deadline(state)
            assert due is not None
            self._deadline(due)

    def _deadline(self, at: datetime) -> list[Event]:
        self.now = max(self.now, at)
        return self._take(rounds.on_deadline(self._state, at))

    def _apply(self, player: str, move: CluedoMove) -> list[Event]:
        state = self._state
        if rounds.needs_history(state, move):  # as the shell does for an older suggestion
            state = rounds.with_history(state, self.events)
        return self._take(rounds.apply(state, player, move, self._tick()))

    def _take(self, step: Step[rounds.RoundsState]) -> list[Event]:
        stored = json.loads(json.dumps(rounds.dump_state(step.state), ensure_ascii=False))
        assert rounds.load_state(stored) == step.state
        self._state = step.state
        self.events.extend(step.events)
        return list(step.events)


class RoundsVariant(Variant):
    """Cluedo by rounds, the table game (seed 000)."""

    name = "rounds"
    config_model = CluedoRoundsGame

    def begin(
        self, *, publish_wrong_accusations: bool | None = None, auto_answer: AutoAnswer = "none"
    ) -> RoundsGame:
        rules = (
            rounds.RoundsRules(auto_answer=auto_answer)
            if publish_wrong_accusations is None
            else rounds.RoundsRules(
                auto_answer=auto_answer, publish_wrong_accusations=publish_wrong_accusations
            )
        )
        players = tuple((name, None) for name in NAMES)
        setup = rounds.RoundsSetup("seed-000", players, EXAMPLE, rules, Deal(SOLUTION, HANDS))
        return RoundsGame(rounds.start(setup, 7, SALT, T0))

    def start(self, players: Sequence[str], cards: Cards, seed: int) -> Step[rounds.RoundsState]:
        setup = rounds.RoundsSetup("c2", tuple((p, None) for p in players), cards)
        return rounds.start(setup, seed, SALT, T0)

    def answerer(self, event: Event) -> str:
        answerer: str = event.data["by"]  # R2: whoever round the table answered
        return answerer

    def configured_publicity(self, rules: Mapping[str, object]) -> bool:
        entry = self._entry(NAMES, EXAMPLE_DECKS, {"rules": dict(rules)})
        game = CluedoRoundsGame.model_validate(entry)
        return CluedoRounds().setup(game).rules.publish_wrong_accusations


DAYS = DaysVariant()
ROUNDS = RoundsVariant()
#: The two drivers, for ``pytest.mark.parametrize("variant", VARIANTS, ids=...)``.
VARIANTS: tuple[Variant, ...] = (DAYS, ROUNDS)
#: ``@each_variant``: run a test once per driver, ids ``days`` and ``rounds``.
each_variant = pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])


# --- reading the events ---


def shapes(events: Sequence[Event]) -> list[tuple[str, Visibility, str | None]]:
    """``(kind, visibility, player)`` of each event."""
    return [(e.kind, e.visibility, e.player) for e in events]


def only(events: Sequence[Event], *kinds: str) -> list[Event]:
    """The events of these kinds, in order."""
    return [e for e in events if e.kind in kinds]


def one(events: Sequence[Event], kind: str) -> Event:
    """The single event of ``kind``."""
    (found,) = only(events, kind)
    return found


def leaves(data: object, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    """Every leaf value of JSON ``data`` with the keys leading to it (list items keep the
    list's key): ``{"a": [1, {"b": 2}]}`` → ``(("a",), 1), (("a", "b"), 2)``."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            yield from leaves(value, (*path, str(key)))
    elif isinstance(data, list | tuple):
        for value in data:
            yield from leaves(value, path)
    else:
        yield path, data


def keys(events: Sequence[Event]) -> set[str]:
    """Every key anywhere in the events' data."""
    return {key for e in events for path, _ in leaves(dict(e.data)) for key in path}


def refusal(error: pytest.ExceptionInfo[MoveError]) -> tuple[str, dict[str, object]]:
    """``(code, params)`` of a caught refusal, e.g. ``("player_out", {"player": "Дуг"})``."""
    return (error.value.code, error.value.params)
