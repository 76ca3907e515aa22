"""Cluedo by rounds, the pure engine (pbp.games.cluedo_rounds.engine): rules C1–C7, R1–R7."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast
from zoneinfo import ZoneInfo

import pytest
from kits.seed_000 import EXAMPLE, HANDS, SOLUTION

from pbp.games.cluedo.cards import (
    CATEGORIES,
    Accuse,
    CluedoMove,
    Deal,
    NoRefutation,
    Refute,
    Status,
    Suggest,
    cards_for_players,
)
from pbp.games.cluedo_days import engine as days
from pbp.games.cluedo_rounds import engine as rounds
from pbp.games.cluedo_rounds.engine import RoundsRules, RoundsSetup, RoundsState
from pbp.games.cluedo_rounds.state import AutoAnswer
from pbp.games.core.events import Event, IllegalMove, InvalidMove, Visibility
from pbp.games.core.registry import KINDS
from pbp.text.fairness import canonical_deal, commitment
from pbp.text.render import Renderer

PLAYERS: tuple[tuple[str, str | None], ...] = (("Кросс", None), ("Дуг", None), ("Роза", None))
ROOMS = ["Столовая", "Спальня", "Библиотека"]
SALT = bytes(range(32))
T0 = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # 20:00 Europe/Moscow


def begin(**rules: Any) -> RoundsState:
    setup = RoundsSetup("seed-000", PLAYERS, EXAMPLE, RoundsRules(**rules), Deal(SOLUTION, HANDS))
    state: RoundsState = rounds.start(setup, 7, SALT, T0).state
    return state


def minute(n: float) -> datetime:
    return T0 + timedelta(minutes=n)


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat()


def flat(events: Any) -> list[tuple[str, str, str | None, dict[str, Any]]]:
    return [(e.kind, e.visibility.value, e.player, dict(e.data)) for e in events]


def sugg(n: int, turn: int, by: str, cards: str, at: datetime) -> dict[str, Any]:
    suspect, weapon, room = cards.split()
    return {
        "number": n,
        "turn": turn,
        "suggester": by,
        "suspect": suspect,
        "weapon": weapon,
        "room": room,
        "at": iso(at),
    }


def answer(
    kind: str, s: dict[str, Any], by: str, at: datetime, *, auto: bool = False, gm: bool = False
) -> tuple[str, str, None, dict[str, Any]]:
    data = {**s, "by": by, "auto": auto, "by_gm": gm, "answered_at": iso(at)}
    return (kind, "public", None, data)


def shown(
    s: dict[str, Any], by: str, card: str, *, auto: bool = False, gm: bool = False
) -> tuple[str, str, str, dict[str, Any]]:
    data = {**s, "by": by, "auto": auto, "by_gm": gm, "card": card}
    return ("card_shown", "player", s["suggester"], data)


def asked(s: dict[str, Any], player: str, at: datetime, hours: float = 12.0) -> Any:
    data = {
        "number": s["number"],
        "turn": s["turn"],
        "suggester": s["suggester"],
        "player": player,
        "asked_at": iso(at),
        "deadline": iso(at + timedelta(hours=hours)),
    }
    return ("asked", "public", None, data)


def ended(s: dict[str, Any], refuted_by: str | None, at: datetime) -> Any:
    data = {
        "number": s["number"],
        "turn": s["turn"],
        "suggester": s["suggester"],
        "refuted_by": refuted_by,
        "ended_at": iso(at),
    }
    return ("round_ended", "public", None, data)


def turn(n: int, player: str, rooms: list[str], at: datetime, hours: float = 24.0) -> Any:
    data = {
        "turn": n,
        "player": player,
        "allowed_rooms": rooms,
        "started_at": iso(at),
        "deadline": iso(at + timedelta(hours=hours)),
    }
    return ("turn_started", "public", None, data)


def suggest(by: str, cards: str, to: str | None = None) -> tuple[str, Suggest]:
    suspect, weapon, room = cards.split()
    return by, Suggest(suspect, weapon, room, to)


def accuse(by: str, cards: str) -> tuple[str, Accuse]:
    suspect, weapon, room = cards.split()
    return by, Accuse(suspect, weapon, room)


class Game:
    """Plays moves and keeps every event, checking the JSON round trip after each step."""

    def __init__(self, state: RoundsState) -> None:
        self.state = state
        self.events: list[Event] = []
        self.sizes: list[int] = []  # the stored snapshot's length after each step

    @property
    def full(self) -> RoundsState:
        """The state with its history from the events, as the shell gives it."""
        return rounds.with_history(self.state, self.events)

    def _for(self, move: CluedoMove) -> RoundsState:
        return self.full if rounds.needs_history(self.state, move) else self.state

    def play(self, who_move: tuple[str, CluedoMove], at: datetime) -> list[Event]:
        step = rounds.apply(self._for(who_move[1]), who_move[0], who_move[1], at)
        return self._take(step.state, list(step.events))

    def timeout(self, at: datetime) -> list[Event]:
        step = rounds.on_deadline(self.state, at)
        return self._take(step.state, list(step.events))

    def refused(self, who_move: tuple[str, CluedoMove], at: datetime) -> IllegalMove | InvalidMove:
        with pytest.raises((IllegalMove, InvalidMove)) as caught:
            rounds.apply(self._for(who_move[1]), who_move[0], who_move[1], at)
        error = caught.value
        assert isinstance(error, IllegalMove | InvalidMove)
        return error

    def _take(self, state: RoundsState, events: list[Event]) -> list[Event]:
        text = json.dumps(rounds.dump_state(state), ensure_ascii=False)
        assert rounds.load_state(json.loads(text)) == state
        self.sizes.append(len(text))
        self.state = state
        self.events.extend(events)
        return events


def refusal(error: IllegalMove | InvalidMove) -> tuple[str, dict[str, Any]]:
    return (error.code, error.params)


# --- the seed 000 worked example, played by rounds ---

CANONICAL = canonical_deal(
    "seed-000",
    SALT,
    {
        "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
        "hands": {p: list(h) for p, h in HANDS.items()},
    },
)


def test_seed_000_worked_example_played_by_rounds() -> None:
    setup = RoundsSetup("seed-000", PLAYERS, EXAMPLE, RoundsRules(), Deal(SOLUTION, HANDS))
    step = rounds.start(setup, 7, SALT, T0)
    game = Game(step.state)
    game.events.extend(step.events)
    assert flat(step.events) == [
        (
            "deal",
            "gm",
            None,
            {
                "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
                "hands": {p: list(h) for p, h in HANDS.items()},
                "seed": 7,
                "canonical": CANONICAL,
            },
        ),
        ("hand_dealt", "player", "Кросс", {"character": None, "hand": ["Петя", "Ваня", "Нож"]}),
        (
            "hand_dealt",
            "player",
            "Дуг",
            {"character": None, "hand": ["Спальня", "Пистолет", "Молоток"]},
        ),
        (
            "hand_dealt",
            "player",
            "Роза",
            {"character": None, "hand": ["Библиотека", "Канделябр", "Веревка"]},
        ),
        (
            "game_started",
            "public",
            None,
            {
                "game": "seed-000",
                "players": [{"name": p, "character": None} for p, _ in PLAYERS],
                "turn_order": ["Кросс", "Дуг", "Роза"],
                "cards": {
                    "suspects": ["Маша", "Петя", "Ваня"],
                    "weapons": ["Топор", "Пистолет", "Канделябр", "Молоток", "Веревка", "Нож"],
                    "rooms": ["Столовая", "Спальня", "Библиотека"],
                },
                "commitment": commitment(CANONICAL),
                "auto_answer": "no_match",
                "turn_hours": 24.0,
                "answer_hours": 12.0,
                "publish_wrong_accusations": True,
            },
        ),
        turn(1, "Кросс", ROOMS, T0),
    ]

    # Turn 1: Кросс names his own Петя (C3); Дуг holds Молоток and Спальня and chooses.
    n1 = sugg(1, 1, "Кросс", "Петя Молоток Спальня", minute(5))
    assert flat(game.play(suggest("Кросс", "Петя Молоток Спальня"), minute(5))) == [
        ("suggestion_made", "public", None, n1),
        asked(n1, "Дуг", minute(5)),
    ]
    assert rounds.awaiting(game.state) == ("Дуг", 1)
    assert rounds.duties(game.state, "Дуг") == {
        "duty": "answer",
        "number": 1,
        "suggestion": n1,
        "held": ["Молоток", "Спальня"],
        "gm_card": "Молоток",  # C5: the first held in the order suspect, weapon, room
        "deadline": iso(minute(5) + timedelta(hours=12)),
    }
    assert refusal(game.refused(("Дуг", NoRefutation()), minute(10))) == (
        "must_refute",
        {
            "number": 1,
            "suggester": "Кросс",
            "held": ["Молоток", "Спальня"],
            "named": ["Петя", "Молоток", "Спальня"],
        },
    )
    assert flat(game.play(("Дуг", Refute("Молоток")), minute(11))) == [
        answer("refuted", n1, "Дуг", minute(11)),
        shown(n1, "Дуг", "Молоток"),
        ended(n1, "Дуг", minute(11)),
        turn(2, "Дуг", ROOMS, minute(11)),
    ]

    # Turn 2: Роза holds none and is answered at once (R6); Кросс shows Петя.
    before = game.state
    n2 = sugg(2, 2, "Дуг", "Петя Топор Столовая", minute(20))
    assert flat(game.play(suggest("Дуг", "Петя Топор Столовая"), minute(20))) == [
        ("suggestion_made", "public", None, n2),
        answer("not_refuted", n2, "Роза", minute(20), auto=True),
        asked(n2, "Кросс", minute(20)),
    ]
    assert flat(game.play(("Кросс", Refute("Петя")), minute(30))) == [
        answer("refuted", n2, "Кросс", minute(30)),
        shown(n2, "Кросс", "Петя"),
        ended(n2, "Кросс", minute(30)),
        turn(3, "Роза", ROOMS, minute(30)),
    ]
    # Had Дуг named Маша, nobody could have refuted: the seed's remark.
    alt = sugg(2, 2, "Дуг", "Маша Топор Столовая", minute(20))
    step = rounds.apply(before, "Дуг", Suggest("Маша", "Топор", "Столовая"), minute(20))
    assert flat(step.events) == [
        ("suggestion_made", "public", None, alt),
        answer("not_refuted", alt, "Роза", minute(20), auto=True),
        answer("not_refuted", alt, "Кросс", minute(20), auto=True),
        ended(alt, None, minute(20)),
        turn(3, "Роза", ROOMS, minute(20)),
    ]

    # Turn 3: Роза mixes in her own Канделябр; nobody refutes, the round ends at Роза.
    n3 = sugg(3, 3, "Роза", "Маша Канделябр Столовая", minute(40))
    assert flat(game.play(suggest("Роза", "Маша Канделябр Столовая"), minute(40))) == [
        ("suggestion_made", "public", None, n3),
        answer("not_refuted", n3, "Кросс", minute(40), auto=True),
        answer("not_refuted", n3, "Дуг", minute(40), auto=True),
        ended(n3, None, minute(40)),
        turn(4, "Кросс", ["Столовая", "Библиотека"], minute(40)),  # R5: not Спальня again
    ]

    # Turn 4: Кросс accuses and wins (C7).
    assert flat(game.play(accuse("Кросс", "Маша Топор Столовая"), minute(50))) == [
        (
            "accusation_made",
            "gm",
            None,
            {
                "player": "Кросс",
                "turn": 4,
                "suspect": "Маша",
                "weapon": "Топор",
                "room": "Столовая",
                "correct": True,
                "at": iso(minute(50)),
            },
        ),
        (
            "accusation_result",
            "player",
            "Кросс",
            {"suspect": "Маша", "weapon": "Топор", "room": "Столовая", "correct": True},
        ),
        (
            "game_over",
            "public",
            None,
            {
                "winner": "Кросс",
                "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
                "hands": {p: list(h) for p, h in HANDS.items()},
                "canonical": CANONICAL,
            },
        ),
    ]
    assert rounds.is_over(game.state) and rounds.deadline(game.state) is None

    # Who was asked (Роза never), and what each player received privately.
    assert [e.data["player"] for e in game.events if e.kind == "asked"] == ["Дуг", "Кросс"]
    private = {
        name: [(e.kind, e.data.get("card")) for e in game.events if e.player == name]
        for name, _ in PLAYERS
    }
    assert private == {
        "Кросс": [("hand_dealt", None), ("card_shown", "Молоток"), ("accusation_result", None)],
        "Дуг": [("hand_dealt", None), ("card_shown", "Петя")],
        "Роза": [("hand_dealt", None)],
    }
    public = [(e.kind, e.data.get("by")) for e in game.events if e.visibility is Visibility.PUBLIC]
    assert public == [
        ("game_started", None),
        ("turn_started", None),
        ("suggestion_made", None),
        ("asked", None),
        ("refuted", "Дуг"),
        ("round_ended", None),
        ("turn_started", None),
        ("suggestion_made", None),
        ("not_refuted", "Роза"),
        ("asked", None),
        ("refuted", "Кросс"),
        ("round_ended", None),
        ("turn_started", None),
        ("suggestion_made", None),
        ("not_refuted", "Кросс"),
        ("not_refuted", "Дуг"),
        ("round_ended", None),
        ("turn_started", None),
        ("game_over", None),
    ]
    assert rounds.status(game.full, "Кросс")["shown_to_me"] == [
        {"number": 1, "card": "Молоток", "by": "Дуг", "auto": False, "by_gm": False}
    ]
    assert rounds.status(game.full, "Кросс")["shown_by_me"] == [
        {"number": 2, "card": "Петя", "to": "Дуг", "auto": False, "by_gm": False}
    ]


# --- R1–R7 ---


def test_R1_turns_follow_the_configured_order_one_move_each_and_out_of_turn_is_refused() -> None:
    game = Game(begin())
    assert rounds.whose_turn(game.state) == "Кросс"
    for move in (suggest("Дуг", "Маша Топор Столовая"), accuse("Роза", "Маша Топор Столовая")):
        error = game.refused(move, minute(1))
        assert refusal(error) == ("not_your_turn", {"turn_player": "Кросс", "turn": 1})
    order = []
    for n, player in enumerate(("Кросс", "Дуг", "Роза"), start=1):
        events = game.play(suggest(player, "Маша Топор Столовая"), minute(n))  # nobody holds
        order.append(events[-1].data["player"])
    assert order == ["Дуг", "Роза", "Кросс"]
    assert (game.state.turn, rounds.whose_turn(game.state)) == (4, "Кросс")
    # exactly one suggestion per turn: a second one while the first is answered is refused
    game.play(suggest("Кросс", "Петя Топор Спальня"), minute(10))  # Дуг holds Спальня: asked
    assert rounds.awaiting(game.state) == ("Дуг", 4)
    assert rounds.whose_turn(game.state) == "Кросс"
    error = game.refused(suggest("Кросс", "Ваня Топор Библиотека"), minute(11))
    assert refusal(error) == ("one_move_per_turn", {"number": 4, "turn": 4, "asked": "Дуг"})
    error = game.refused(suggest("Роза", "Ваня Топор Библиотека"), minute(11))
    assert refusal(error) == ("not_your_turn", {"turn_player": "Кросс", "turn": 4})
    # another configured order gives another first player
    setup = RoundsSetup("g", (PLAYERS[2], PLAYERS[0], PLAYERS[1]), EXAMPLE)
    assert rounds.whose_turn(rounds.start(setup, 7, SALT, T0).state) == "Роза"


def test_R1_a_suggestion_has_no_addressee() -> None:
    game = Game(begin())
    error = game.refused(suggest("Кросс", "Маша Топор Столовая", "Дуг"), minute(1))
    assert isinstance(error, InvalidMove)
    assert refusal(error) == ("unexpected_addressee", {"player": "Дуг"})


def test_R2_answering_goes_round_the_table_and_the_first_refutation_ends_it() -> None:
    game = Game(begin(auto_answer="none"))
    n1 = sugg(1, 1, "Кросс", "Маша Канделябр Столовая", minute(1))
    assert flat(game.play(suggest("Кросс", "Маша Канделябр Столовая"), minute(1))) == [
        ("suggestion_made", "public", None, n1),
        asked(n1, "Дуг", minute(1)),
    ]
    assert refusal(game.refused(("Роза", Refute("Канделябр", 1)), minute(2))) == (
        "not_asked",
        {"number": 1, "asked": "Дуг", "waiting": []},
    )
    assert refusal(game.refused(("Роза", NoRefutation()), minute(2))) == (
        "nothing_to_answer",
        {},
    )
    assert flat(game.play(("Дуг", NoRefutation()), minute(3))) == [
        answer("not_refuted", n1, "Дуг", minute(3)),
        asked(n1, "Роза", minute(3)),
    ]
    assert refusal(game.refused(("Дуг", NoRefutation(1)), minute(4))) == (
        "already_answered",
        {"number": 1, "answer": "not_refuted", "by_gm": False, "waiting": []},
    )
    assert flat(game.play(("Роза", Refute("Канделябр", 1)), minute(5))) == [
        answer("refuted", n1, "Роза", minute(5)),
        shown(n1, "Роза", "Канделябр"),
        ended(n1, "Роза", minute(5)),
        turn(2, "Дуг", ROOMS, minute(5)),
    ]
    assert refusal(game.refused(("Роза", NoRefutation(1)), minute(6))) == (
        "already_answered",
        {"number": 1, "answer": "refuted", "by_gm": False, "waiting": []},
    )
    assert refusal(game.refused(("Роза", NoRefutation(9)), minute(6))) == (
        "unknown_suggestion",
        {"number": 9, "waiting": []},
    )


def test_R2_a_later_holder_is_never_asked_once_a_card_was_shown() -> None:
    game = Game(begin(auto_answer="none"))
    n1 = sugg(1, 1, "Кросс", "Маша Молоток Библиотека", minute(1))
    game.play(suggest("Кросс", "Маша Молоток Библиотека"), minute(1))  # Дуг and Роза hold one
    assert flat(game.play(("Дуг", Refute("Молоток")), minute(2))) == [
        answer("refuted", n1, "Дуг", minute(2)),
        shown(n1, "Дуг", "Молоток"),
        ended(n1, "Дуг", minute(2)),
        turn(2, "Дуг", ROOMS, minute(2)),
    ]
    assert refusal(game.refused(("Роза", Refute("Библиотека", 1)), minute(3))) == (
        "not_asked",
        {"number": 1, "asked": None, "waiting": []},
    )
    assert game.full.suggestions[0].refuted_by == "Дуг"


def test_R3_reaching_the_suggester_ends_the_round_and_the_turn_passes_after_him() -> None:
    game = Game(begin())
    n1 = sugg(1, 1, "Кросс", "Маша Топор Столовая", minute(1))
    assert flat(game.play(suggest("Кросс", "Маша Топор Столовая"), minute(1))) == [
        ("suggestion_made", "public", None, n1),
        answer("not_refuted", n1, "Дуг", minute(1), auto=True),
        answer("not_refuted", n1, "Роза", minute(1), auto=True),
        ended(n1, None, minute(1)),
        turn(2, "Дуг", ROOMS, minute(1)),
    ]
    # Дуг's suggestion is refuted by Кросс, two seats on: the next turn is still Роза's.
    game.play(suggest("Дуг", "Петя Топор Спальня"), minute(2))
    events = game.play(("Кросс", Refute("Петя")), minute(3))
    assert [(e.kind, e.data.get("player")) for e in events[-2:]] == [
        ("round_ended", None),
        ("turn_started", "Роза"),
    ]


def test_R4_no_accusation_during_his_own_round_only_at_the_start_of_his_turn() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Молоток Спальня"), minute(1))  # Дуг holds two: asked
    error = game.refused(accuse("Кросс", "Маша Топор Столовая"), minute(2))
    assert refusal(error) == ("one_move_per_turn", {"number": 1, "turn": 1, "asked": "Дуг"})
    game.play(("Дуг", Refute("Спальня")), minute(3))
    # Дуг accuses at the start of his turn, instead of a suggestion: allowed, but wrong.
    events = game.play(accuse("Дуг", "Петя Топор Столовая"), minute(4))
    assert flat(events)[2:] == [
        (
            "accusation_wrong",
            "public",
            None,
            {"player": "Дуг", "turn": 2, "suspect": "Петя", "weapon": "Топор", "room": "Столовая"},
        ),
        turn(3, "Роза", ROOMS, minute(4)),
    ]


def test_R4_a_player_who_is_out_is_skipped_for_turns_but_still_answers() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Топор Столовая"), minute(1))
    game.play(accuse("Дуг", "Петя Топор Столовая"), minute(2))  # out
    n2 = sugg(2, 3, "Роза", "Маша Молоток Библиотека", minute(3))
    assert flat(game.play(suggest("Роза", "Маша Молоток Библиотека"), minute(3))) == [
        ("suggestion_made", "public", None, n2),
        answer("not_refuted", n2, "Кросс", minute(3), auto=True),
        asked(n2, "Дуг", minute(3)),
    ]
    assert flat(game.play(("Дуг", Refute("Молоток")), minute(4)))[-1] == turn(
        4, "Кросс", ["Спальня", "Библиотека"], minute(4)
    )
    game.play(suggest("Кросс", "Ваня Топор Библиотека"), minute(5))  # Роза holds Библиотека
    events = game.play(("Роза", Refute("Библиотека")), minute(6))
    assert flat(events)[-1] == turn(5, "Роза", ["Столовая", "Спальня"], minute(6))  # not Дуг
    assert rounds.duties(game.state, "Дуг") is None


def test_R5_the_room_of_his_previous_suggestion_is_refused() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Топор Спальня"), minute(1))
    game.play(("Дуг", Refute("Спальня")), minute(1))
    game.play(suggest("Дуг", "Маша Топор Столовая"), minute(2))  # another player's room
    game.play(suggest("Роза", "Маша Топор Спальня"), minute(3))  # is no matter
    events = game.play(("Дуг", Refute("Спальня")), minute(3))
    assert flat(events)[-1] == turn(4, "Кросс", ["Столовая", "Библиотека"], minute(3))
    assert rounds.allowed_rooms(game.state, "Кросс") == ["Столовая", "Библиотека"]
    error = game.refused(suggest("Кросс", "Маша Топор Спальня"), minute(4))
    assert refusal(error) == (
        "same_room",
        {"room": "Спальня", "allowed": ["Столовая", "Библиотека"]},
    )
    game.play(suggest("Кросс", "Маша Топор Столовая"), minute(5))
    game.play(suggest("Дуг", "Маша Топор Спальня"), minute(6))
    events = game.play(suggest("Роза", "Маша Топор Столовая"), minute(7))
    # not in a row any more: Спальня is allowed again, Столовая is not
    assert flat(events)[-1] == turn(7, "Кросс", ["Спальня", "Библиотека"], minute(7))
    game.play(suggest("Кросс", "Маша Топор Спальня"), minute(8))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "no_match",
            lambda n1: [
                ("suggestion_made", "public", None, n1),
                answer("not_refuted", n1, "Дуг", minute(1), auto=True),
                asked(n1, "Роза", minute(1)),
            ],
        ),
        (
            "none",
            lambda n1: [("suggestion_made", "public", None, n1), asked(n1, "Дуг", minute(1))],
        ),
    ],
)
def test_R6_auto_answer_modes(mode: str, expected: Any) -> None:
    game = Game(begin(auto_answer=mode))
    n1 = sugg(1, 1, "Кросс", "Маша Канделябр Столовая", minute(1))  # Дуг: none; Роза: one
    assert flat(game.play(suggest("Кросс", "Маша Канделябр Столовая"), minute(1))) == expected(n1)


def test_R6_forced_is_not_a_mode() -> None:
    with pytest.raises(ValueError, match="rule R6: auto_answer must be one of no_match, none"):
        RoundsRules(auto_answer="forced")  # type: ignore[arg-type]


def test_R6_a_game_stored_with_forced_goes_on_as_no_match() -> None:
    stored = cast(dict[str, Any], rounds.dump_state(begin()))
    stored["rules"]["auto_answer"] = "forced"
    assert rounds.load_state(stored).rules.auto_answer == "no_match"


def visible_to(events: list[Event], player: str) -> list[tuple[str, dict[str, Any]]]:
    """What ``player`` learns from ``events``: the public ones and his own."""
    return [
        (e.kind, dict(e.data))
        for e in events
        if e.visibility is Visibility.PUBLIC or e.player == player
    ]


@pytest.mark.parametrize("mode", ["no_match", "none"])
def test_R6_seed_000_asked_tells_the_suggester_nothing_about_how_many_cards(
    mode: AutoAnswer,
) -> None:
    # The referees' scenario: Кросс, holding Петя himself, suggests Петя, Пистолет,
    # Спальня. Дуг holds both Пистолет and Спальня. Had he held Пистолет alone, Кросс
    # must see exactly the same until Дуг answers: being asked says "at least one".
    two = Game(begin(auto_answer=mode))
    # the same deal with Дуг's Спальня and Роза's Библиотека swapped
    hands = {
        **HANDS,
        "Дуг": ("Библиотека", "Пистолет", "Молоток"),
        "Роза": ("Спальня", "Канделябр", "Веревка"),
    }
    rules = RoundsRules(auto_answer=mode)
    setup = RoundsSetup("seed-000", PLAYERS, EXAMPLE, rules, Deal(SOLUTION, hands))
    one = Game(rounds.start(setup, 7, SALT, T0).state)
    move = suggest("Кросс", "Петя Пистолет Спальня")
    seen_two = visible_to(two.play(move, minute(1)), "Кросс")
    seen_one = visible_to(one.play(move, minute(1)), "Кросс")
    assert seen_two == seen_one
    assert [kind for kind, _ in seen_two] == ["suggestion_made", "asked"]
    assert seen_two[1][1]["player"] == "Дуг"
    # what Кросс learns from Дуг's answer is one card, the same as by hand
    shown = two.play(("Дуг", Refute("Спальня")), minute(2))
    cards = [d["card"] for k, d in visible_to(shown, "Кросс") if k == "card_shown"]
    assert cards == ["Спальня"]


def test_R6_an_automatic_answer_is_the_manual_public_event_with_auto_true() -> None:
    auto = Game(begin(auto_answer="no_match"))
    manual = Game(begin(auto_answer="none"))
    move = suggest("Кросс", "Маша Канделябр Столовая")
    automatic = auto.play(move, minute(1))
    automatic += auto.play(("Роза", Refute("Канделябр")), minute(1))
    manual.play(move, minute(1))
    by_hand = manual.play(("Дуг", NoRefutation()), minute(1))
    by_hand += manual.play(("Роза", Refute("Канделябр")), minute(1))
    answers = ("not_refuted", "refuted", "card_shown")
    made = [(e.kind, e.visibility, e.player, {**e.data}) for e in automatic if e.kind in answers]
    given = [(e.kind, e.visibility, e.player, {**e.data}) for e in by_hand if e.kind in answers]
    assert [m[3].pop("auto") for m in made] == [True, False, False]
    assert [g[3].pop("auto") for g in given] == [False, False, False]
    assert made == given


def test_R7_deadlines_a_missed_turn_is_skipped() -> None:
    game = Game(begin(turn_hours=1.5, answer_hours=0.25))
    assert rounds.deadline(game.state) == datetime(2026, 12, 1, 18, 30, tzinfo=UTC)
    assert game.timeout(minute(89)) == []  # early (a stale job): nothing happens
    late = minute(95)  # caught up five minutes late: the next turn starts then
    assert flat(game.timeout(late)) == [
        (
            "turn_skipped",
            "public",
            None,
            {
                "turn": 1,
                "player": "Кросс",
                "deadline": "2026-12-01T18:30:00+00:00",
                "skipped_at": iso(late),
            },
        ),
        turn(2, "Дуг", ROOMS, late, hours=1.5),
    ]
    assert rounds.deadline(game.state) == late + timedelta(hours=1.5)
    assert game.full.skipped == (rounds.Skip(1, "Кросс", iso(late)),)
    assert rounds.duties(game.state, "Дуг") == {
        "duty": "turn",
        "turn": 2,
        "deadline": iso(late + timedelta(hours=1.5)),
        "allowed_rooms": ROOMS,
    }


def test_R7_a_missed_answer_is_given_by_the_gm_and_the_round_goes_on() -> None:
    game = Game(begin(auto_answer="none", answer_hours=0.5))
    n1 = sugg(1, 1, "Кросс", "Маша Канделябр Столовая", minute(1))
    game.play(suggest("Кросс", "Маша Канделябр Столовая"), minute(1))
    assert rounds.deadline(game.state) == minute(31)
    due = minute(31)
    assert flat(game.timeout(due)) == [  # Дуг holds none: the GM says no refutation
        ("gm_refutation", "gm", None, {**n1, "player": "Дуг", "card": None}),
        answer("not_refuted", n1, "Дуг", due, gm=True),
        asked(n1, "Роза", due, hours=0.5),
    ]
    assert rounds.deadline(game.state) == minute(61)
    assert flat(game.timeout(minute(61))) == [  # Роза holds Канделябр: the GM shows it
        ("gm_refutation", "gm", None, {**n1, "player": "Роза", "card": "Канделябр"}),
        answer("refuted", n1, "Роза", minute(61), gm=True),
        shown(n1, "Роза", "Канделябр", gm=True),
        ended(n1, "Роза", minute(61)),
        turn(2, "Дуг", ROOMS, minute(61)),
    ]
    assert rounds.status(game.full, "Роза")["shown_by_me"] == [
        {"number": 1, "card": "Канделябр", "to": "Кросс", "auto": False, "by_gm": True}
    ]


def test_R7_times_are_aware_and_kept_in_utc() -> None:
    moscow = ZoneInfo("Europe/Moscow")
    game = Game(begin())
    (made, *_) = game.play(
        suggest("Кросс", "Маша Топор Столовая"), datetime(2026, 12, 1, 21, 0, tzinfo=moscow)
    )
    assert made.data["at"] == "2026-12-01T18:00:00+00:00"
    assert rounds.deadline(game.state) == datetime(2026, 12, 2, 18, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="timezone-aware"):
        rounds.apply(game.state, "Дуг", Suggest("Маша", "Топор", "Столовая"), datetime(2026, 12, 2))
    with pytest.raises(ValueError, match="timezone-aware"):
        rounds.on_deadline(game.state, datetime(2026, 12, 3))
    with pytest.raises(ValueError, match="rule R7"):
        RoundsRules(turn_hours=0)
    with pytest.raises(ValueError, match="rule R6"):
        RoundsRules(auto_answer="always")  # type: ignore[arg-type]


# --- C1–C7 where this variant differs or shares code ---


def test_C1_start_refuses_fewer_than_three_players_or_cards_not_3M_plus_3() -> None:
    with pytest.raises(ValueError, match="rule C1: at least 3 players, got 2"):
        rounds.start(RoundsSetup("g", PLAYERS[:2], EXAMPLE), 1, SALT, T0)
    four = RoundsSetup("g", (*PLAYERS, ("Моро", None)), EXAMPLE)
    with pytest.raises(ValueError, match="rule C1: 4 players need 15 cards, got 12"):
        rounds.start(four, 1, SALT, T0)
    with pytest.raises(ValueError, match="players named twice"):
        rounds.start(RoundsSetup("g", (*PLAYERS[:2], PLAYERS[0]), EXAMPLE), 1, SALT, T0)
    with pytest.raises(ValueError, match=r"rule C2: deal\.hands\.Дуг: a hand holds 3 cards, got 2"):
        hands = {**HANDS, "Дуг": ("Спальня", "Пистолет")}
        rounds.start(RoundsSetup("g", PLAYERS, EXAMPLE, deal=Deal(SOLUTION, hands)), 1, SALT, T0)


def test_C2_the_seeded_deal_is_the_days_variants_deal_and_stays_private() -> None:
    """Seed 000's six-player list with five players (C1 drop), dealt from one seed."""
    cards = cards_for_players(
        ["Краснова", "Горчичников", "Белых", "Зеленович", "Голубева", "Черниченко"],
        ["подсвечник", "нож", "труба", "топор", "веревка", "пистолет"],
        [
            *("кухня", "танцевальный зал", "терраса", "бильярдная", "библиотека"),
            *("кабинет", "холл", "гостиная", "столовая"),
        ],
        5,
    )
    assert (cards.suspects[-1], cards.weapons[-1], cards.rooms[-1]) == (
        "Голубева",
        "веревка",
        "гостиная",
    )
    players = tuple((n, None) for n in ("Неташка", "Веталь", "Дуг", "Моро", "Мария"))
    step = rounds.start(RoundsSetup("exler-2", players, cards), 1234, SALT, T0)
    by_days = days.start(days.DaysSetup("exler-2", players, cards), 1234, SALT)
    assert step.state.deal == by_days.state.deal
    assert rounds.start(RoundsSetup("exler-2", players, cards), 1234, SALT, T0) == step
    public = [e for e in step.events if e.visibility is Visibility.PUBLIC]
    assert [e.kind for e in public] == ["game_started", "turn_started"]
    text = json.dumps([dict(e.data) for e in public], ensure_ascii=False)
    assert '"hand' not in text and '"solution"' not in text


def test_C4_wrong_answers_are_refused_with_the_suggestion_named() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Петя Молоток Спальня"), minute(1))
    assert refusal(game.refused(("Дуг", Refute("Петя")), minute(2))) == (
        "card_not_held",
        {
            "number": 1,
            "suggester": "Кросс",
            "card": "Петя",
            "named": ["Петя", "Молоток", "Спальня"],
            "held": ["Молоток", "Спальня"],
        },
    )
    error = game.refused(("Дуг", Refute("Пистолет", 1)), minute(2))
    assert (error.code, error.params["card"]) == ("card_not_named", "Пистолет")


def test_C5_the_gm_shows_suspect_before_weapon_before_room() -> None:
    game = Game(begin(auto_answer="none"))
    game.play(suggest("Кросс", "Маша Молоток Спальня"), minute(1))  # Дуг: Молоток, Спальня
    gm = [e for e in game.timeout(minute(1) + timedelta(hours=12)) if e.kind == "gm_refutation"]
    assert gm[0].data["card"] == "Молоток"
    game.play(suggest("Дуг", "Петя Нож Библиотека"), minute(800))  # Роза: Библиотека
    game.play(("Роза", Refute("Библиотека")), minute(801))  # Кросс: Петя, Нож
    game.play(suggest("Роза", "Петя Нож Столовая"), minute(802))
    gm = [e for e in game.timeout(minute(802) + timedelta(hours=12)) if e.kind == "gm_refutation"]
    assert (gm[0].data["player"], gm[0].data["card"]) == ("Кросс", "Петя")


@pytest.mark.parametrize("publish", [True, False])
def test_C6_a_wrong_accusation_is_accused_aloud_by_default_and_the_player_is_out(
    publish: bool,
) -> None:
    game = Game(begin(publish_wrong_accusations=publish))
    events = game.play(accuse("Кросс", "Петя Топор Столовая"), minute(1))
    cards = ("Петя", "Топор", "Столовая") if publish else (None, None, None)
    assert flat(events)[1:] == [
        (
            "accusation_result",
            "player",
            "Кросс",
            {"suspect": "Петя", "weapon": "Топор", "room": "Столовая", "correct": False},
        ),
        (
            "accusation_wrong",
            "public",
            None,
            {
                "player": "Кросс",
                "turn": 1,
                "suspect": cards[0],
                "weapon": cards[1],
                "room": cards[2],
            },
        ),
        turn(2, "Дуг", ROOMS, minute(1)),
    ]
    assert game.state.out == ("Кросс",)
    for move in (suggest("Кросс", "Маша Топор Столовая"), accuse("Кросс", "Маша Топор Столовая")):
        assert refusal(game.refused(move, minute(2))) == ("player_out", {"player": "Кросс"})
    assert rounds.status(game.full, "Кросс")["out"] is True


def test_C7_when_every_player_is_out_the_game_ends_without_winner() -> None:
    game = Game(begin())
    game.play(accuse("Кросс", "Петя Топор Столовая"), minute(1))
    game.play(accuse("Дуг", "Ваня Топор Столовая"), minute(2))
    assert not rounds.is_over(game.state) and rounds.whose_turn(game.state) == "Роза"
    events = game.play(accuse("Роза", "Маша Нож Столовая"), minute(3))
    assert [e.kind for e in events] == [
        "accusation_made",
        "accusation_result",
        "accusation_wrong",
        "game_over",
    ]
    assert events[-1].data["winner"] is None
    assert events[-1].data["hands"]["Роза"] == ["Библиотека", "Канделябр", "Веревка"]
    assert rounds.is_over(game.state) and rounds.whose_turn(game.state) is None
    assert rounds.deadline(game.state) is None
    assert rounds.on_deadline(game.state, minute(9999)).events == []
    error = game.refused(("Роза", NoRefutation()), minute(4))
    assert refusal(error) == ("game_over", {"winner": None})
    assert rounds.duties(game.state, "Роза") is None


# --- views ---


def test_status_duties_and_gm_view() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Петя Молоток Спальня"), minute(1))
    assert rounds.status(game.full, "Дуг") == {
        "game": "seed-000",
        "turn": 1,
        "turn_player": "Кросс",
        "over": False,
        "winner": None,
        "out": False,
        "removed": False,
        "character": None,
        "hand": ["Спальня", "Пистолет", "Молоток"],
        "my_turn": False,
        "turn_deadline": None,
        "allowed_rooms": ROOMS,
        "asked": {
            **sugg(1, 1, "Кросс", "Петя Молоток Спальня", minute(1)),
            "held": ["Молоток", "Спальня"],
            "deadline": iso(minute(1) + timedelta(hours=12)),
        },
        "shown_to_me": [],
        "shown_by_me": [],
    }
    assert rounds.duties(game.state, "Кросс") is None
    assert rounds.duties(game.state, "Роза") is None
    game.play(("Дуг", Refute("Спальня")), minute(2))
    status = rounds.status(game.full, "Дуг")
    assert (status["my_turn"], status["turn_deadline"], status["asked"]) == (
        True,
        iso(minute(2) + timedelta(hours=24)),
        None,
    )
    assert rounds.status(game.full, "Кросс")["allowed_rooms"] == ["Столовая", "Библиотека"]
    view = rounds.gm_view(game.full)
    assert view["solution"] == {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"}
    assert view["suggestions"] == [
        {
            **sugg(1, 1, "Кросс", "Петя Молоток Спальня", minute(1)),
            "answers": [
                {
                    "player": "Дуг",
                    "card": "Спальня",
                    "auto": False,
                    "by_gm": False,
                    "at": iso(minute(2)),
                }
            ],
            "asked": None,
            "asked_at": None,
            "ended_at": iso(minute(2)),
            "refuted_by": "Дуг",
        }
    ]
    assert view["players"][0] == {
        "name": "Кросс",
        "character": None,
        "hand": ["Петя", "Ваня", "Нож"],
        "out": False,
        "allowed_rooms": ["Столовая", "Библиотека"],
    }
    assert (view["turn"], view["turn_player"], view["awaiting"]) == (2, "Дуг", None)
    assert view["deadline"] == iso(minute(2) + timedelta(hours=24))
    assert view["rules"] == {
        "auto_answer": "no_match",
        "turn_hours": 24.0,
        "answer_hours": 12.0,
        "publish_wrong_accusations": True,
    }
    assert view["commitment"] == commitment(view["canonical"])
    with pytest.raises(KeyError):
        rounds.status(game.full, "Моро")


def test_the_module_is_an_engine_and_status_moves_are_not_applied() -> None:
    assert rounds.kind == "cluedo_rounds"
    with pytest.raises(TypeError, match="not a move of the game"):
        rounds.apply(begin(), "Кросс", Status(), minute(1))
    assert begin().setup == RoundsSetup(
        "seed-000", PLAYERS, EXAMPLE, RoundsRules(), Deal(SOLUTION, HANDS)
    )
    error = Game(begin()).refused(suggest("Моро", "Маша Топор Столовая"), minute(1))
    assert refusal(error) == (
        "not_a_player",
        {"player": "Моро", "players": ["Кросс", "Дуг", "Роза"]},
    )


# --- random games: hidden information, round order, exact state round trip ---


def random_game(seed: int) -> Game:
    """Legal random moves with missed turns and answers, until the game ends."""
    rng = random.Random(seed)
    mode = ("no_match", "none")[seed % 2]
    game = Game(begin(auto_answer=mode, publish_wrong_accusations=bool(seed % 2)))
    clock = T0
    for _ in range(200):
        state = game.state
        if rounds.is_over(state):
            break
        due = rounds.deadline(state)
        assert due is not None
        if rng.random() < 0.1:
            game.timeout(due)
            clock = due
            continue
        clock += timedelta(minutes=rng.randint(1, 30))
        waiting = rounds.awaiting(state)
        if waiting is not None:
            answerer, number = waiting
            asked = rounds.status(state, answerer)["asked"]
            assert asked is not None
            held = asked["held"]
            move: CluedoMove = Refute(rng.choice(held), number) if held else NoRefutation()
            game.play((answerer, move), clock)
            continue
        player = rounds.whose_turn(state)
        assert player is not None
        suspect, weapon, room = (rng.choice(EXAMPLE.deck(c)) for c in CATEGORIES)
        if rng.random() < 0.05:
            game.play((player, Accuse(suspect, weapon, room)), clock)
        else:
            room = rng.choice(rounds.allowed_rooms(state, player))
            game.play((player, Suggest(suspect, weapon, room)), clock)
    return game


@pytest.mark.parametrize("seed", range(12))
def test_no_public_event_shows_a_card_and_rounds_go_round_the_table(seed: int) -> None:
    game = random_game(seed)
    assert rounds.is_over(game.state) or len(game.full.suggestions) > 20
    assert any(e.kind == "card_shown" for e in game.events), "the random game shows cards"
    names = [p for p, _ in PLAYERS]
    made = {e.data["number"]: dict(e.data) for e in game.events if e.kind == "suggestion_made"}
    for event in game.events:
        if event.visibility is not Visibility.PUBLIC or event.kind == "game_over":
            continue
        text = json.dumps(dict(event.data), ensure_ascii=False)
        assert '"card"' not in text and '"hand' not in text and '"solution"' not in text
        if event.kind in ("refuted", "not_refuted"):
            extra = {k: event.data[k] for k in ("by", "auto", "by_gm", "answered_at")}
            assert dict(event.data) == {**made[event.data["number"]], **extra}
    for event in game.events:
        if event.kind == "card_shown":  # each shown card reaches its suggester only
            s = made[event.data["number"]]
            assert event.player == s["suggester"]
            assert event.data["card"] in HANDS[event.data["by"]]
            assert event.data["card"] in (s["suspect"], s["weapon"], s["room"])
    for done in game.full.suggestions:  # R2, R3: seats in order after the suggester
        seat = names.index(done.suggester)
        seats = [names[(seat + k) % 3] for k in (1, 2)]
        assert [a.player for a in done.answers] == seats[: len(done.answers)]
        assert all(a.card is None for a in done.answers[:-1])  # a card ends the round


def test_dump_and_load_round_trip_a_whole_game_exactly() -> None:
    game = random_game(5)
    dumped = rounds.dump_state(game.state)
    assert json.loads(json.dumps(dumped)) == dumped
    assert rounds.load_state(json.loads(json.dumps(dumped))) == game.state
    assert rounds.dump_state(rounds.load_state(dumped)) == dumped


# --- every refusal has a player-facing text in both locales ---

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def refusals() -> dict[str, IllegalMove | InvalidMove]:
    """One real refusal per error code the rounds engine raises."""
    game = Game(begin(auto_answer="none"))
    found: dict[str, IllegalMove | InvalidMove] = {}

    def take(move: tuple[str, CluedoMove]) -> None:
        error = game.refused(move, minute(30))
        found[error.code] = error

    take(suggest("Кросс", "Маша Топор Столовая", "Дуг"))  # unexpected_addressee
    take(suggest("Кросс", "Маша Столовая Топор"))  # wrong_category
    take(suggest("Моро", "Маша Топор Столовая"))  # not_a_player
    take(suggest("Дуг", "Маша Топор Столовая"))  # not_your_turn
    take(("Дуг", NoRefutation()))  # nothing_to_answer
    game.play(suggest("Кросс", "Петя Молоток Спальня"), minute(1))
    take(accuse("Кросс", "Маша Топор Столовая"))  # one_move_per_turn
    take(("Дуг", NoRefutation()))  # must_refute
    take(("Дуг", Refute("Пистолет")))  # card_not_named
    take(("Дуг", Refute("Петя")))  # card_not_held
    take(("Роза", NoRefutation(1)))  # not_asked
    take(("Роза", NoRefutation(7)))  # unknown_suggestion
    game.play(("Дуг", Refute("Спальня")), minute(2))
    take(("Дуг", NoRefutation(1)))  # already_answered
    game.play(accuse("Дуг", "Петя Топор Столовая"), minute(3))
    take(accuse("Дуг", "Маша Топор Столовая"))  # player_out
    game.play(suggest("Роза", "Маша Топор Спальня"), minute(4))
    game.play(("Кросс", NoRefutation()), minute(5))
    game.play(("Дуг", Refute("Спальня")), minute(6))
    take(suggest("Кросс", "Маша Топор Спальня"))  # same_room
    game.play(accuse("Кросс", "Маша Топор Столовая"), minute(7))
    take(("Роза", NoRefutation(1)))  # game_over
    return found


def render(locale: str, error: IllegalMove | InvalidMove) -> str:
    """The refusal's text as players get it (the kind's ``errors/<code>.txt``, else
    ``templates/errors/<code>.txt``)."""
    return Renderer(TEMPLATES, kinds=KINDS).error(
        error.code, error.params, locale=locale, kind="cluedo_rounds"
    )


def test_every_engine_refusal_has_a_template_in_ru_and_en() -> None:
    found = refusals()
    assert sorted(found) == [
        "already_answered",
        "card_not_held",
        "card_not_named",
        "game_over",
        "must_refute",
        "not_a_player",
        "not_asked",
        "not_your_turn",
        "nothing_to_answer",
        "one_move_per_turn",
        "player_out",
        "same_room",
        "unexpected_addressee",
        "unknown_suggestion",
        "wrong_category",
    ]
    for locale in ("ru", "en"):
        for error in found.values():
            text = render(locale, error)
            assert text.strip() and "{" not in text, (locale, error.code, text)


@pytest.mark.parametrize(
    ("code", "locale", "text"),
    [
        (
            "not_your_turn",
            "en",
            "It is not your turn: turn 1 belongs to Кросс. A suggestion or an accusation can be "
            "made only on your own turn; you will get a mail when it comes.",
        ),
        (
            "not_your_turn",
            "ru",
            "Сейчас не ваш ход: ход 1 — у игрока Кросс. Предположение или обвинение можно "
            "сделать только в свой ход; когда он наступит, придёт письмо.",
        ),
        (
            "one_move_per_turn",
            "en",
            "You have already made your move this turn: suggestion #1, which Дуг is answering "
            "now. One suggestion or one accusation per turn; an accusation only at the start of "
            "your next turn, instead of a suggestion.",
        ),
        (
            "one_move_per_turn",
            "ru",
            "В этом ходу вы уже сделали предположение №1, на него сейчас отвечает Дуг. За ход — "
            "одно предположение или одно обвинение; обвинить можно только в начале своего "
            "следующего хода, вместо предположения.",
        ),
        (
            "same_room",
            "en",
            "Your previous suggestion named the room Спальня: the same room cannot be named in "
            "two suggestions in a row. Rooms you may name now: Столовая, Библиотека.",
        ),
        (
            "same_room",
            "ru",
            "В вашем предыдущем предположении уже была комната «Спальня»: одну комнату нельзя "
            "называть в двух предположениях подряд. Сейчас можно назвать: Столовая, Библиотека.",
        ),
        (
            "not_asked",
            "en",
            "You are not asked to answer suggestion #1: Дуг answers it now, and you will get a "
            "mail if the answering comes to you.",
        ),
        (
            "not_asked",
            "ru",
            "Отвечать на предположение №1 сейчас не ваша очередь: отвечает Дуг; если очередь "
            "дойдёт до вас, придёт письмо.",
        ),
        (
            "unexpected_addressee",
            "en",
            "In this game a suggestion is not addressed to anyone: the players answer in turn. "
            'Remove "TO Дуг" and send the move again.',
        ),
    ],
)
def test_refusal_texts_say_what_was_wrong_and_what_is_accepted(
    code: str, locale: str, text: str
) -> None:
    assert render(locale, refusals()[code]) == text


def test_the_snapshot_does_not_grow_with_the_game_and_the_history_comes_from_the_events() -> None:
    """Issue 7: a move costs the same late in a game, so the stored state holds what
    the rules need (the latest suggestion, the count, each previous room for R5);
    the history of the views is rebuilt from the event log."""
    game = random_game(3)
    full = game.full
    assert full.suggestion_count == len(full.suggestions) > 20
    assert game.state.suggestions == full.suggestions[-1:]
    assert [s.number for s in full.suggestions] == list(range(1, full.suggestion_count + 1))
    assert len(game.sizes) > 50
    # the latest suggestion with its answers, up to 3 accusations, the outs: bounded
    assert max(game.sizes[20:]) <= max(game.sizes[:20]) + 600
    old_growth = 250 * full.suggestion_count  # bytes: the whole history, before issue 7
    assert max(game.sizes) - min(game.sizes) < old_growth / 4


def test_an_older_snapshot_with_the_whole_history_still_loads() -> None:
    game = random_game(3)
    full = game.full
    older = cast(dict[str, Any], rounds.dump_state(full))
    older["suggestions"] = [rounds.suggestion_as_json(s) for s in full.suggestions]
    older["skipped"] = [{"turn": s.turn, "player": s.player, "at": s.at} for s in full.skipped]
    del older["suggestion_count"], older["last_rooms"]
    loaded = rounds.load_state(json.loads(json.dumps(older)))
    assert loaded == game.state
    for name, _ in PLAYERS:  # R5 from the history
        mine = [s.room for s in full.suggestions if s.suggester == name]
        expected = [r for r in EXAMPLE.rooms if not mine or r != mine[-1]]
        assert rounds.allowed_rooms(loaded, name) == expected
