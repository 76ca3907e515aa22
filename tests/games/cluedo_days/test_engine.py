"""Cluedo by game days, the pure engine (pbp.games.cluedo_days.engine): rules C1–C7, D1–D8."""

from __future__ import annotations

import dataclasses
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
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
from pbp.games.cluedo_days.engine import DaysRules, DaysSetup, DaysState
from pbp.games.core.events import Engine, Event, IllegalMove, InvalidMove, Visibility
from pbp.games.core.registry import KINDS
from pbp.text.fairness import canonical_deal, commitment
from pbp.text.render import Renderer

PLAYERS: tuple[tuple[str, str | None], ...] = (
    ("Кросс", "Краснова"),
    ("Дуг", None),
    ("Роза", "Белых"),
)
SALT = bytes(range(32))
T0 = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # 20:00 Europe/Moscow, day 1
CLOSE_1 = datetime(2026, 12, 1, 19, 30, tzinfo=UTC)  # 22:30 Europe/Moscow
CLOSE_2 = CLOSE_1 + timedelta(days=1)
MOSCOW = ZoneInfo("Europe/Moscow")


def begin(**rules: Any) -> DaysState:
    setup = DaysSetup("seed-000", PLAYERS, EXAMPLE, DaysRules(**rules), Deal(SOLUTION, HANDS))
    state: DaysState = days.start(setup, 7, SALT).state
    return state


def minute(n: int) -> datetime:
    return T0 + timedelta(minutes=n)


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat()


def flat(events: Any) -> list[tuple[str, str, str | None, dict[str, Any]]]:
    return [(e.kind, e.visibility.value, e.player, dict(e.data)) for e in events]


def sugg(
    n: int, day: int, ordinal: int, by: str, to: str, cards: str, at: datetime
) -> dict[str, Any]:
    suspect, weapon, room = cards.split()
    return {
        "number": n,
        "day": day,
        "ordinal": ordinal,
        "suggester": by,
        "addressee": to,
        "suspect": suspect,
        "weapon": weapon,
        "room": room,
        "at": iso(at),
    }


def suggest(by: str, cards: str, to: str | None) -> tuple[str, Suggest]:
    suspect, weapon, room = cards.split()
    return by, Suggest(suspect, weapon, room, to)


def accuse(by: str, cards: str) -> tuple[str, Accuse]:
    suspect, weapon, room = cards.split()
    return by, Accuse(suspect, weapon, room)


class Game:
    """Plays moves and keeps every event, checking the JSON round trip after each step."""

    def __init__(self, state: DaysState) -> None:
        self.state = state
        self.events: list[Event] = []

    def play(self, who_move: tuple[str, CluedoMove], at: datetime) -> list[Event]:
        step = days.apply(self.state, who_move[0], who_move[1], at)
        return self._take(step.state, list(step.events))

    def close(self, at: datetime) -> list[Event]:
        step = days.close_day(self.state, at)
        return self._take(step.state, list(step.events))

    def refused(self, who_move: tuple[str, CluedoMove], at: datetime) -> IllegalMove | InvalidMove:
        with pytest.raises((IllegalMove, InvalidMove)) as caught:
            days.apply(self.state, who_move[0], who_move[1], at)
        error = caught.value
        assert isinstance(error, IllegalMove | InvalidMove)
        return error

    def _take(self, state: DaysState, events: list[Event]) -> list[Event]:
        stored = json.loads(json.dumps(days.dump_state(state), ensure_ascii=False))
        assert days.load_state(stored) == state
        self.state = state
        self.events.extend(events)
        return events


# --- the seed 000 worked example, played by days ---


def test_seed_000_worked_example_played_by_days() -> None:
    game = Game(begin())
    n1 = sugg(1, 1, 1, "Кросс", "Дуг", "Петя Пистолет Спальня", minute(5))
    assert flat(game.play(suggest("Кросс", "Петя Пистолет Спальня", "Дуг"), minute(5))) == [
        ("suggestion_made", "public", None, n1)
    ]
    error = game.refused(("Дуг", NoRefutation()), minute(10))
    assert (error.code, error.params) == (
        "must_refute",
        {
            "number": 1,
            "suggester": "Кросс",
            "held": ["Пистолет", "Спальня"],
            "named": ["Петя", "Пистолет", "Спальня"],
        },
    )
    assert flat(game.play(("Дуг", Refute("Пистолет")), minute(11))) == [
        ("refuted", "public", None, {**n1, "by_gm": False, "answered_at": iso(minute(11))}),
        ("card_shown", "player", "Кросс", {**n1, "card": "Пистолет", "by_gm": False}),
    ]
    n2 = sugg(2, 1, 1, "Дуг", "Роза", "Петя Топор Столовая", minute(20))
    n3 = sugg(3, 1, 2, "Дуг", "Кросс", "Петя Топор Столовая", minute(21))
    assert flat(game.play(suggest("Дуг", "Петя Топор Столовая", "Роза"), minute(20))) == [
        ("suggestion_made", "public", None, n2)
    ]
    assert flat(game.play(suggest("Дуг", "Петя Топор Столовая", "Кросс"), minute(21))) == [
        ("suggestion_made", "public", None, n3)
    ]
    assert flat(game.play(("Роза", NoRefutation(2)), minute(30))) == [
        ("not_refuted", "public", None, {**n2, "by_gm": False, "answered_at": iso(minute(30))})
    ]
    assert flat(game.play(("Кросс", Refute("Петя", 3)), minute(31))) == [
        ("refuted", "public", None, {**n3, "by_gm": False, "answered_at": iso(minute(31))}),
        ("card_shown", "player", "Дуг", {**n3, "card": "Петя", "by_gm": False}),
    ]
    # Роза mixes in her own Канделябр (C3); the other two cards are the solution's.
    n4 = sugg(4, 1, 1, "Роза", "Кросс", "Маша Канделябр Столовая", minute(40))
    n5 = sugg(5, 1, 2, "Роза", "Дуг", "Маша Канделябр Столовая", minute(41))
    game.play(suggest("Роза", "Маша Канделябр Столовая", "Кросс"), minute(40))
    game.play(suggest("Роза", "Маша Канделябр Столовая", "Дуг"), minute(41))
    assert flat(game.play(("Кросс", NoRefutation()), minute(50))) == [
        ("not_refuted", "public", None, {**n4, "by_gm": False, "answered_at": iso(minute(50))})
    ]
    n6 = sugg(6, 1, 2, "Кросс", "Роза", "Ваня Веревка Библиотека", minute(55))
    game.play(suggest("Кросс", "Ваня Веревка Библиотека", "Роза"), minute(55))
    game.play(("Дуг", NoRefutation(5)), minute(60))
    # Роза never answers 6: the GM shows Веревка for her (C5: weapon before room).
    assert flat(game.close(CLOSE_1)) == [
        ("gm_refutation", "gm", None, {**n6, "card": "Веревка", "penalised": True}),
        ("refuted", "public", None, {**n6, "by_gm": True, "answered_at": iso(CLOSE_1)}),
        ("card_shown", "player", "Кросс", {**n6, "card": "Веревка", "by_gm": True}),
        (
            "day_closed",
            "public",
            None,
            {
                "day": 1,
                "closed_at": iso(CLOSE_1),
                "gm_answered": [6],
                "penalties": {"Роза": 1},
                "allowances": {"Кросс": 3, "Дуг": 3, "Роза": 2},
                "out": [],
                "suggestions": [
                    {**n1, "answer": "refuted", "by_gm": False},
                    {**n2, "answer": "not_refuted", "by_gm": False},
                    {**n3, "answer": "refuted", "by_gm": False},
                    {**n4, "answer": "not_refuted", "by_gm": False},
                    {**n5, "answer": "not_refuted", "by_gm": False},
                    {**n6, "answer": "refuted", "by_gm": True},
                ],
                "carried": [],
                "carried_early": [],
                "accused_wrongly": [],
            },
        ),
    ]
    day2 = CLOSE_1 + timedelta(hours=1)
    assert flat(game.play(accuse("Дуг", "Маша Нож Столовая"), day2)) == [
        (
            "accusation_made",
            "gm",
            None,
            {
                "player": "Дуг",
                "day": 2,
                "suspect": "Маша",
                "weapon": "Нож",
                "room": "Столовая",
                "correct": False,
                "at": iso(day2),
            },
        ),
        (
            "accusation_result",
            "player",
            "Дуг",
            {"suspect": "Маша", "weapon": "Нож", "room": "Столовая", "correct": False},
        ),
        (
            "accusation_wrong",
            "public",
            None,
            {"player": "Дуг", "day": 2, "suspect": None, "weapon": None, "room": None},
        ),
    ]
    later = day2 + timedelta(minutes=1)
    events = flat(game.play(accuse("Роза", "Маша Топор Столовая"), later))
    assert events[:2] == [
        (
            "accusation_made",
            "gm",
            None,
            {
                "player": "Роза",
                "day": 2,
                "suspect": "Маша",
                "weapon": "Топор",
                "room": "Столовая",
                "correct": True,
                "at": iso(later),
            },
        ),
        (
            "accusation_result",
            "player",
            "Роза",
            {"suspect": "Маша", "weapon": "Топор", "room": "Столовая", "correct": True},
        ),
    ]
    canonical = canonical_deal(
        "seed-000",
        SALT,
        {
            "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
            "hands": {
                "Кросс": ["Петя", "Ваня", "Нож"],
                "Дуг": ["Спальня", "Пистолет", "Молоток"],
                "Роза": ["Библиотека", "Канделябр", "Веревка"],
            },
        },
    )
    assert events[2] == (
        "game_over",
        "public",
        None,
        {
            "winner": "Роза",
            "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
            "hands": {
                "Кросс": ["Петя", "Ваня", "Нож"],
                "Дуг": ["Спальня", "Пистолет", "Молоток"],
                "Роза": ["Библиотека", "Канделябр", "Веревка"],
            },
            "canonical": canonical,
        },
    )
    assert days.is_over(game.state) is True
    assert days.status(game.state, "Кросс")["shown_to_me"] == [
        {"number": 1, "card": "Пистолет", "by": "Дуг", "by_gm": False},
        {"number": 6, "card": "Веревка", "by": "Роза", "by_gm": True},
    ]


# --- C1–C7 where days goes beyond the shared suite (games/cluedo/test_rules_*) ---


def test_C2_seeded_deal_with_the_games_yaml_cards_is_reproducible_and_private() -> None:
    cards = cards_for_players(
        ["Краснова", "Горчичников", "Белых", "Зеленович", "Голубева", "Черниченко"],
        ["подсвечник", "нож", "труба", "топор", "веревка", "пистолет"],
        [
            "кухня",
            "танцевальный зал",
            "терраса",
            "бильярдная",
            "библиотека",
            "кабинет",
            "холл",
            "гостиная",
            "столовая",
        ],
        6,
    )
    names = ("Неташка", "Веталь", "Дуг", "Моро", "Мария", "Алиен")
    setup = DaysSetup("exler-1", tuple((n, None) for n in names), cards)
    step = days.start(setup, 1234, SALT)
    assert step.state.deal == Deal(
        ("Зеленович", "подсвечник", "кухня"),
        {
            "Неташка": ("кабинет", "топор", "нож"),
            "Веталь": ("холл", "библиотека", "бильярдная"),
            "Дуг": ("веревка", "пистолет", "гостиная"),
            "Моро": ("труба", "танцевальный зал", "столовая"),
            "Мария": ("терраса", "Краснова", "Горчичников"),
            "Алиен": ("Черниченко", "Голубева", "Белых"),
        },
    )
    assert days.start(setup, 1234, SALT) == step
    assert days.start(setup, 1235, SALT).state.deal != step.state.deal
    hand_events = [e for e in step.events if e.kind == "hand_dealt"]
    assert [(e.visibility, e.player, e.data["hand"]) for e in hand_events] == [
        (Visibility.PLAYER, n, list(step.state.deal.hands[n])) for n in names
    ]
    public = [e for e in step.events if e.visibility is Visibility.PUBLIC]
    assert [e.kind for e in public] == ["game_started"]
    assert "hands" not in public[0].data and "solution" not in public[0].data


def test_C5_gm_answers_with_suspect_before_weapon_before_room() -> None:
    game = Game(begin())
    game.play(suggest("Роза", "Петя Нож Столовая", "Кросс"), minute(1))  # Кросс: Петя, Нож
    game.play(suggest("Роза", "Маша Молоток Спальня", "Дуг"), minute(2))  # Дуг: Молоток, Спальня
    game.play(suggest("Кросс", "Маша Топор Столовая", "Дуг"), minute(3))  # Дуг: none
    gm = [
        (e.data["number"], e.data["card"]) for e in game.close(CLOSE_1) if e.kind == "gm_refutation"
    ]
    assert gm == [(1, "Петя"), (2, "Молоток"), (3, None)]
    answers = [e for e in game.events if e.kind in ("refuted", "not_refuted")]
    assert [(e.kind, e.data["number"], e.data["by_gm"]) for e in answers] == [
        ("refuted", 1, True),
        ("refuted", 2, True),
        ("not_refuted", 3, True),
    ]


@pytest.mark.parametrize("publish", [False, True])
def test_C6_wrong_accusation_puts_the_player_out_but_he_still_answers(publish: bool) -> None:
    game = Game(begin(publish_wrong_accusations=publish))
    events = game.play(accuse("Дуг", "Петя Топор Столовая"), minute(1))
    wrong = next(e for e in events if e.kind == "accusation_wrong")
    cards = ("Петя", "Топор", "Столовая") if publish else (None, None, None)
    assert dict(wrong.data) == {
        "player": "Дуг",
        "day": 1,
        "suspect": cards[0],
        "weapon": cards[1],
        "room": cards[2],
    }
    assert game.state.out == ("Дуг",)
    for move in (
        suggest("Дуг", "Маша Топор Столовая", "Роза"),
        accuse("Дуг", "Маша Топор Столовая"),
    ):
        error = game.refused(move, minute(2))
        assert (error.code, error.params) == ("player_out", {"player": "Дуг"})
    game.play(suggest("Кросс", "Маша Молоток Столовая", "Дуг"), minute(3))
    assert [e.kind for e in game.play(("Дуг", Refute("Молоток")), minute(4))] == [
        "refuted",
        "card_shown",
    ]
    assert days.status(game.state, "Дуг")["suggestions_left"] == 0
    # the solution is not revealed to him
    result = next(e for e in events if e.kind == "accusation_result")
    assert dict(result.data) == {
        "suspect": "Петя",
        "weapon": "Топор",
        "room": "Столовая",
        "correct": False,
    }


def test_C7_first_correct_accusation_wins_and_then_every_move_is_refused() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Топор Столовая", "Роза"), minute(1))
    events = game.play(accuse("Дуг", "Маша Топор Столовая"), minute(2))
    assert (events[-1].kind, events[-1].data["winner"]) == ("game_over", "Дуг")
    assert days.is_over(game.state) and game.state.winner == "Дуг"
    for move in (
        accuse("Роза", "Маша Топор Столовая"),
        ("Роза", NoRefutation()),
        suggest("Кросс", "Маша Топор Столовая", "Дуг"),
    ):
        error = game.refused(move, minute(3))
        assert (error.code, error.params) == ("game_over", {"winner": "Дуг"})
    assert days.close_day(game.state, CLOSE_1).events == []
    assert days.close_day(game.state, CLOSE_1).state == game.state


# --- D1–D8 ---


def test_D1_day_1_opens_with_players_characters_every_card_and_the_commitment() -> None:
    setup = DaysSetup("seed-000", PLAYERS, EXAMPLE, DaysRules(), Deal(SOLUTION, HANDS))
    step = days.start(setup, 7, SALT)
    canonical = canonical_deal(
        "seed-000",
        SALT,
        {
            "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
            "hands": {p: list(h) for p, h in HANDS.items()},
        },
    )
    assert flat(step.events) == [
        (
            "deal",
            "gm",
            None,
            {
                "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
                "hands": {p: list(h) for p, h in HANDS.items()},
                "seed": 7,
                "canonical": canonical,
            },
        ),
        (
            "hand_dealt",
            "player",
            "Кросс",
            {"character": "Краснова", "hand": ["Петя", "Ваня", "Нож"]},
        ),
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
            {"character": "Белых", "hand": ["Библиотека", "Канделябр", "Веревка"]},
        ),
        (
            "game_started",
            "public",
            None,
            {
                "game": "seed-000",
                "day": 1,
                "players": [
                    {"name": "Кросс", "character": "Краснова"},
                    {"name": "Дуг", "character": None},
                    {"name": "Роза", "character": "Белых"},
                ],
                "cards": {
                    "suspects": ["Маша", "Петя", "Ваня"],
                    "weapons": ["Топор", "Пистолет", "Канделябр", "Молоток", "Веревка", "Нож"],
                    "rooms": ["Столовая", "Спальня", "Библиотека"],
                },
                "commitment": commitment(canonical),
                "suggestions_per_day": 3,
                "max_per_addressee_per_day": 3,
                "answer_grace_hours": 0.0,
            },
        ),
    ]
    assert step.state.day == 1


def test_D2_three_suggestions_a_day_numbered_game_wide_with_a_daily_ordinal() -> None:
    game = Game(begin())
    for n, to in enumerate(("Дуг", "Роза", "Дуг"), start=1):
        (made,) = game.play(suggest("Кросс", "Маша Топор Столовая", to), minute(n))
        assert (made.data["number"], made.data["ordinal"]) == (n, n)
    error = game.refused(suggest("Кросс", "Маша Топор Столовая", "Роза"), minute(9))
    assert (error.code, error.params) == (
        "no_suggestions_left",
        {"day": 1, "allowance": 3, "penalty": 0, "made": 3},
    )
    (made,) = game.play(suggest("Роза", "Маша Топор Столовая", "Кросс"), minute(10))
    assert (made.data["number"], made.data["ordinal"]) == (4, 1)
    game.play(("Дуг", NoRefutation(1)), minute(11))
    game.play(("Дуг", NoRefutation(3)), minute(12))
    game.play(("Роза", NoRefutation()), minute(13))
    game.play(("Кросс", NoRefutation()), minute(14))
    game.close(CLOSE_1)
    (made,) = game.play(
        suggest("Кросс", "Маша Топор Столовая", "Роза"), CLOSE_1 + timedelta(hours=1)
    )
    assert (made.data["number"], made.data["day"], made.data["ordinal"]) == (5, 2, 1)


def test_D2_a_voided_suggestion_keeps_its_heading_number_and_gives_the_allowance_back() -> None:
    """D2: Кросс's №2 («Предположение_2 для Роза») is voided; his next suggestions are
    headed _3 and _4, never _2 again, and he still makes 3 that count today."""
    game = Game(begin())
    ordinals = []
    for n, to in enumerate(("Дуг", "Роза"), start=1):
        (made,) = game.play(suggest("Кросс", "Маша Топор Столовая", to), minute(n))
        ordinals.append(made.data["ordinal"])
    (voided,) = days.void(game.state, 2, minute(3)).events
    assert (voided.kind, voided.data["ordinal"]) == ("suggestion_voided", 2)
    game.state = days.void(game.state, 2, minute(3)).state
    assert days.status(game.state, "Кросс")["suggestions_left"] == 2
    for n, to in enumerate(("Роза", "Дуг"), start=4):
        (made,) = game.play(suggest("Кросс", "Маша Топор Столовая", to), minute(n))
        ordinals.append(made.data["ordinal"])
    assert ordinals == [1, 2, 3, 4]
    error = game.refused(suggest("Кросс", "Маша Топор Столовая", "Роза"), minute(9))
    assert (error.code, error.params) == (
        "no_suggestions_left",
        {"day": 1, "allowance": 3, "penalty": 0, "made": 3},
    )
    # A new day counts from 1 again.
    for who, n in (("Дуг", 1), ("Роза", 3), ("Дуг", 4)):
        game.play((who, NoRefutation(n)), minute(10 + n))
    game.close(CLOSE_1)
    (made,) = game.play(
        suggest("Кросс", "Маша Топор Столовая", "Роза"), CLOSE_1 + timedelta(hours=1)
    )
    assert (made.data["day"], made.data["ordinal"]) == (2, 1)


def test_D2_D6_rules_refuse_negative_limits() -> None:
    with pytest.raises(ValueError, match="rule D2"):
        DaysRules(suggestions_per_day=-1)
    with pytest.raises(ValueError, match="rule D2"):
        DaysRules(max_per_addressee_per_day=0)
    with pytest.raises(ValueError, match="rule D6"):
        DaysRules(answer_grace_hours=-0.5)


def test_D2_the_addressee_cap_counts_all_suggesters_together() -> None:
    # Кросс and Роза each make suggestions to Дуг: the cap of 3 is for Дуг's day,
    # whoever suggests. A voided suggestion no longer counts; the next day starts afresh.
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Топор Столовая", "Дуг"), minute(1))
    game.play(suggest("Роза", "Маша Топор Спальня", "Дуг"), minute(2))
    assert days.status(game.state, "Кросс")["per_addressee_left"] == {"Дуг": 1, "Роза": 2}
    game.play(suggest("Кросс", "Маша Нож Спальня", "Дуг"), minute(3))
    assert days.status(game.state, "Роза")["per_addressee_left"] == {"Кросс": 2, "Дуг": 0}
    error = game.refused(suggest("Роза", "Петя Нож Спальня", "Дуг"), minute(4))
    assert (error.code, error.params) == (
        "addressee_limit",
        {"addressee": "Дуг", "limit": 3, "day": 1, "open": ["Кросс"]},
    )
    assert render("ru", error) == (
        "В день 1 игроку Дуг уже адресованы 3 предположения от всех игроков вместе — это "
        "предел за день. Сегодня ещё можно адресовать: Кросс."
    )
    assert render("en", error) == (
        "Дуг has already been addressed 3 suggestions on day 1 by all players together, "
        "the most allowed in a day. You can still address today: Кросс."
    )
    game.state = days.void(game.state, 3, minute(5)).state
    game.play(suggest("Роза", "Петя Нож Спальня", "Дуг"), minute(6))
    game.close(CLOSE_1)
    game.play(suggest("Роза", "Петя Нож Столовая", "Дуг"), CLOSE_1 + timedelta(hours=1))
    assert days.status(game.state, "Кросс")["per_addressee_left"] == {"Дуг": 2, "Роза": 3}


def test_D2_nobody_left_to_address_is_said() -> None:
    game = Game(begin(max_per_addressee_per_day=1))
    game.play(suggest("Кросс", "Маша Топор Столовая", "Роза"), minute(1))
    game.play(suggest("Роза", "Маша Топор Спальня", "Дуг"), minute(2))
    error = game.refused(suggest("Кросс", "Петя Нож Спальня", "Дуг"), minute(3))
    assert error.params["open"] == []
    assert render("ru", error).endswith("Сегодня больше некому адресовать предположение.")


def test_D2_per_addressee_limit_self_and_unknown_addressees_are_refused() -> None:
    game = Game(begin(suggestions_per_day=5, max_per_addressee_per_day=2))
    game.play(suggest("Кросс", "Маша Топор Столовая", "Дуг"), minute(1))
    game.play(suggest("Кросс", "Маша Топор Спальня", "Дуг"), minute(2))
    error = game.refused(suggest("Кросс", "Маша Топор Библиотека", "Дуг"), minute(3))
    assert (error.code, error.params) == (
        "addressee_limit",
        {"addressee": "Дуг", "limit": 2, "day": 1, "open": ["Роза"]},
    )
    assert days.status(game.state, "Кросс")["per_addressee_left"] == {"Дуг": 0, "Роза": 2}
    game.play(suggest("Кросс", "Маша Топор Библиотека", "Роза"), minute(4))
    assert days.status(game.state, "Кросс")["per_addressee_left"] == {"Дуг": 0, "Роза": 1}
    error = game.refused(suggest("Кросс", "Маша Топор Библиотека", "Кросс"), minute(5))
    assert (error.code, error.params) == ("self_addressed", {"players": ["Дуг", "Роза"]})
    error = game.refused(suggest("Кросс", "Маша Топор Библиотека", "Моро"), minute(5))
    assert (error.code, error.params) == (
        "unknown_addressee",
        {"addressee": "Моро", "players": ["Дуг", "Роза"]},
    )
    error = game.refused(suggest("Кросс", "Маша Топор Библиотека", None), minute(5))
    assert isinstance(error, InvalidMove)
    assert (error.code, error.params) == ("addressee_missing", {"players": ["Дуг", "Роза"]})
    error = game.refused(suggest("Кросс", "Топор Маша Библиотека", "Роза"), minute(5))
    assert (error.code, error.params["card"], error.params["category"]) == (
        "wrong_category",
        "Топор",
        "suspect",
    )
    error = game.refused(suggest("Моро", "Маша Топор Библиотека", "Роза"), minute(5))
    assert (error.code, error.params) == (
        "not_a_player",
        {"player": "Моро", "players": ["Кросс", "Дуг", "Роза"]},
    )


def test_D3_only_the_addressee_answers_and_n_may_be_left_out_only_when_one_waits() -> None:
    game = Game(begin())
    error = game.refused(("Роза", NoRefutation()), minute(0))
    assert (error.code, error.params) == ("nothing_to_answer", {})
    game.play(suggest("Кросс", "Маша Топор Столовая", "Роза"), minute(1))
    game.play(suggest("Дуг", "Маша Топор Столовая", "Роза"), minute(2))
    game.play(suggest("Дуг", "Маша Топор Спальня", "Кросс"), minute(3))
    error = game.refused(("Роза", NoRefutation()), minute(4))
    assert (error.code, error.params) == ("which_suggestion", {"waiting": [1, 2]})
    error = game.refused(("Роза", NoRefutation(3)), minute(4))
    assert (error.code, error.params) == (
        "not_addressee",
        {"number": 3, "addressee": "Кросс", "waiting": [1, 2]},
    )
    error = game.refused(("Роза", NoRefutation(9)), minute(4))
    assert (error.code, error.params) == ("unknown_suggestion", {"number": 9, "waiting": [1, 2]})
    game.play(("Роза", NoRefutation(2)), minute(5))
    error = game.refused(("Роза", NoRefutation(2)), minute(6))
    assert (error.code, error.params) == (
        "already_answered",
        {"number": 2, "answer": "not_refuted", "by_gm": False, "waiting": [1]},
    )
    (answer,) = game.play(("Роза", NoRefutation()), minute(7))  # now only 1 waits
    assert answer.data["number"] == 1
    # a player who is out is still addressed and answers (C6)
    game.play(accuse("Кросс", "Петя Топор Столовая"), minute(8))
    game.play(suggest("Роза", "Ваня Топор Столовая", "Кросс"), minute(9))
    error = game.refused(("Кросс", NoRefutation(4)), minute(10))
    assert (error.code, error.params["number"], error.params["held"]) == (
        "must_refute",
        4,
        ["Ваня"],
    )
    refuted, _shown = game.play(("Кросс", Refute("Ваня", 4)), minute(11))
    assert (refuted.kind, refuted.data["addressee"]) == ("refuted", "Кросс")


def test_D4_public_answers_carry_the_whole_suggestion_to_quote() -> None:
    game = Game(begin())
    (made,) = game.play(suggest("Роза", "Петя Молоток Спальня", "Дуг"), minute(1))
    refuted, _ = game.play(("Дуг", Refute("Спальня")), minute(2))
    assert dict(refuted.data) == {**made.data, "by_gm": False, "answered_at": iso(minute(2))}
    assert [refuted.data[k] for k in ("suspect", "weapon", "room")] == [
        "Петя",
        "Молоток",
        "Спальня",
    ]


def test_D5_an_accusation_may_come_on_any_day_and_goes_to_the_gm_only() -> None:
    game = Game(begin())
    game.close(CLOSE_1)
    game.close(CLOSE_2)
    events = game.play(accuse("Кросс", "Маша Топор Спальня"), CLOSE_2 + timedelta(hours=1))
    assert [(e.kind, e.visibility, e.player) for e in events] == [
        ("accusation_made", Visibility.GM, None),
        ("accusation_result", Visibility.PLAYER, "Кросс"),
        ("accusation_wrong", Visibility.PUBLIC, None),
    ]
    assert events[2].data["day"] == 3
    assert [a.day for a in game.state.accusations] == [3]


def test_D6_gm_answers_at_close_and_penalties_never_go_below_zero() -> None:
    # four suggestions to Роза in one day need a cap above the default 3 (D2, config)
    game = Game(begin(max_per_addressee_per_day=4))
    for n in range(3):
        game.play(suggest("Кросс", "Петя Канделябр Столовая", "Роза"), minute(n))
    game.play(suggest("Дуг", "Маша Топор Столовая", "Роза"), minute(5))
    game.play(suggest("Роза", "Маша Топор Столовая", "Дуг"), minute(6))
    closed = game.close(CLOSE_1)[-1]
    assert closed.data["gm_answered"] == [1, 2, 3, 4, 5]
    assert closed.data["penalties"] == {"Роза": 4, "Дуг": 1}
    assert closed.data["allowances"] == {"Кросс": 3, "Дуг": 2, "Роза": 0}
    assert days.status(game.state, "Роза")["suggestions_left"] == 0
    error = game.refused(
        suggest("Роза", "Маша Топор Столовая", "Дуг"), CLOSE_1 + timedelta(hours=1)
    )
    assert (error.code, error.params) == (
        "no_suggestions_left",
        {"day": 2, "allowance": 0, "penalty": 4, "made": 0},
    )
    # a day without silent answers brings the full allowance back
    assert game.close(CLOSE_2)[-1].data["allowances"] == {"Кросс": 3, "Дуг": 3, "Роза": 3}


def test_D6_one_fewer_for_each_unanswered_and_none_for_a_player_who_is_out() -> None:
    # Дуг leaves two suggestions unanswered: two fewer. Роза accused wrongly (out): the GM
    # answers for her too, but she has no suggestions to lose, so no penalty at all.
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Топор Столовая", "Дуг"), minute(1))
    game.play(suggest("Кросс", "Маша Нож Столовая", "Дуг"), minute(2))
    game.play(accuse("Роза", "Петя Топор Столовая"), minute(3))
    game.play(suggest("Кросс", "Маша Топор Библиотека", "Роза"), minute(4))
    closed = game.close(CLOSE_1)
    gm = [(e.data["number"], e.data["penalised"]) for e in closed if e.kind == "gm_refutation"]
    assert gm == [(1, True), (2, True), (3, False)]
    assert closed[-1].data["penalties"] == {"Дуг": 2}
    assert closed[-1].data["allowances"] == {"Кросс": 3, "Дуг": 1}
    assert days.gm_view(game.state)["players"][2]["penalty"] == 0


def test_D6_grace_hours_carry_a_late_suggestion_to_the_next_close() -> None:
    game = Game(begin(answer_grace_hours=1.0))
    game.play(suggest("Кросс", "Маша Канделябр Столовая", "Роза"), CLOSE_1 - timedelta(hours=1))
    game.play(suggest("Дуг", "Маша Канделябр Столовая", "Роза"), CLOSE_1 - timedelta(minutes=59))
    game.play(suggest("Кросс", "Маша Молоток Столовая", "Дуг"), CLOSE_1 - timedelta(minutes=10))
    closed = game.close(CLOSE_1)
    assert [e.kind for e in closed] == ["gm_refutation", "refuted", "card_shown", "day_closed"]
    assert closed[-1].data["gm_answered"] == [1]
    assert closed[-1].data["carried"] == [2, 3]
    assert closed[-1].data["penalties"] == {"Роза": 1}
    assert days.status(game.state, "Дуг")["owed"][0]["number"] == 3
    game.play(("Дуг", Refute("Молоток")), CLOSE_1 + timedelta(hours=2))  # answered in time
    closed = game.close(CLOSE_2)
    assert closed[-1].data["gm_answered"] == [2]
    assert closed[-1].data["penalties"] == {"Роза": 1}
    assert [(s["number"], s["answer"], s["by_gm"]) for s in closed[-1].data["suggestions"]] == [
        (2, "refuted", True),
        (3, "refuted", False),
    ]


def test_D6_a_suggestion_is_carried_to_the_next_close_once_whatever_the_grace() -> None:
    """D6: "due at the next close instead" — with a grace longer than a day, a suggestion
    of day 1 is still due at the close of day 2, not carried again."""
    game = Game(begin(answer_grace_hours=30.0))
    game.play(suggest("Кросс", "Маша Канделябр Столовая", "Роза"), CLOSE_1 - timedelta(hours=1))
    closed = game.close(CLOSE_1)
    assert (closed[-1].data["gm_answered"], closed[-1].data["carried"]) == ([], [1])
    closed = game.close(CLOSE_2)
    assert (closed[-1].data["gm_answered"], closed[-1].data["carried"]) == ([1], [])
    assert closed[-1].data["penalties"] == {"Роза": 1}


def test_D6_an_early_close_carries_what_its_grace_covers_and_tells_which_was_due_at_it() -> None:
    """D6 at a close the GM makes half an hour early (``close_moved`` -30 min, as the
    service shifts it): a suggestion made less than the grace before that close is
    carried, not answered for its addressee; of those carried, the one due at the close
    as scheduled (its addressee told so) is ``carried_early``, the one the grace of the
    scheduled close covered already is not."""
    game = Game(begin(answer_grace_hours=1.0))
    game.play(suggest("Кросс", "Маша Канделябр Столовая", "Роза"), CLOSE_1 - timedelta(hours=2))
    game.play(suggest("Дуг", "Маша Канделябр Столовая", "Роза"), CLOSE_1 - timedelta(minutes=80))
    game.play(suggest("Роза", "Маша Молоток Столовая", "Дуг"), CLOSE_1 - timedelta(minutes=50))
    game.state = dataclasses.replace(game.state, close_moved=-1800.0)
    closed = game.close(CLOSE_1 - timedelta(minutes=30))[-1].data
    carry = (closed["gm_answered"], closed["carried"], closed["carried_early"])
    assert carry == ([1], [2, 3], [2])
    assert closed["penalties"] == {"Роза": 1}
    assert game.state.close_moved == 0.0


def test_D6_duties_tell_the_answers_the_grace_carries_from_those_due_at_the_close() -> None:
    """The reminder's view: with the day's close known, an answer owed for a suggestion
    made within the grace is due at the next day's close (``later``, with that day)."""
    game = Game(begin(answer_grace_hours=1.0))
    game.play(suggest("Кросс", "Маша Канделябр Столовая", "Роза"), CLOSE_1 - timedelta(hours=2))
    game.play(suggest("Дуг", "Маша Канделябр Столовая", "Роза"), CLOSE_1 - timedelta(minutes=30))
    first, second = game.state.suggestions
    assert days.duties(game.state, "Роза", CLOSE_1)["owed"] == [first.public()]
    assert days.duties(game.state, "Роза", CLOSE_1)["later"] == [{**second.public(), "due_day": 2}]
    assert days.duties(game.state, "Роза")["owed"] == [first.public(), second.public()]
    game.close(CLOSE_1)
    assert days.duties(game.state, "Роза", CLOSE_2)["owed"] == [second.public()]
    assert days.duties(game.state, "Роза", CLOSE_2)["later"] == []


def test_D7_day_summary_lists_answers_penalties_accusations_and_allowances() -> None:
    game = Game(begin(answer_grace_hours=0.5))
    game.play(suggest("Кросс", "Маша Молоток Столовая", "Дуг"), minute(1))
    game.play(("Дуг", Refute("Молоток")), minute(2))
    game.play(suggest("Роза", "Маша Топор Спальня", "Кросс"), minute(3))
    game.play(accuse("Дуг", "Петя Топор Столовая"), minute(4))
    game.play(suggest("Кросс", "Маша Топор Спальня", "Роза"), CLOSE_1 - timedelta(minutes=5))
    (closed,) = [e for e in game.close(CLOSE_1) if e.kind == "day_closed"]
    assert dict(closed.data) == {
        "day": 1,
        "closed_at": iso(CLOSE_1),
        "gm_answered": [2],
        "penalties": {"Кросс": 1},
        "allowances": {"Кросс": 2, "Роза": 3},
        "out": ["Дуг"],
        "suggestions": [
            {
                **sugg(1, 1, 1, "Кросс", "Дуг", "Маша Молоток Столовая", minute(1)),
                "answer": "refuted",
                "by_gm": False,
            },
            {
                **sugg(2, 1, 1, "Роза", "Кросс", "Маша Топор Спальня", minute(3)),
                "answer": "not_refuted",
                "by_gm": True,
            },
            {
                **sugg(
                    3, 1, 2, "Кросс", "Роза", "Маша Топор Спальня", CLOSE_1 - timedelta(minutes=5)
                ),
                "answer": None,
                "by_gm": False,
            },
        ],
        "carried": [3],
        "carried_early": [],
        "accused_wrongly": ["Дуг"],
    }
    assert "card" not in json.dumps(dict(closed.data))
    assert game.state.day == 2


def test_D8_moves_keep_their_arrival_time_in_utc_and_grace_uses_it() -> None:
    game = Game(begin(answer_grace_hours=1.0))
    arrived = datetime(2026, 12, 1, 21, 30, tzinfo=MOSCOW)  # exactly 1 h before 22:30 MSK
    (made,) = game.play(suggest("Кросс", "Маша Топор Столовая", "Роза"), arrived)
    assert made.data["at"] == "2026-12-01T18:30:00+00:00"
    assert game.state.suggestions[0].at == "2026-12-01T18:30:00+00:00"
    late = datetime(2026, 12, 1, 21, 30, 1, tzinfo=MOSCOW)
    game.play(suggest("Дуг", "Маша Топор Столовая", "Роза"), late)
    closed = game.close(datetime(2026, 12, 1, 22, 30, tzinfo=MOSCOW))
    assert (closed[-1].data["gm_answered"], closed[-1].data["carried"]) == ([1], [2])
    assert closed[-1].data["closed_at"] == "2026-12-01T19:30:00+00:00"
    with pytest.raises(ValueError, match="timezone-aware"):
        days.apply(
            game.state, "Кросс", Suggest("Маша", "Топор", "Столовая", "Дуг"), datetime(2026, 12, 2)
        )
    with pytest.raises(ValueError, match="timezone-aware"):
        days.close_day(game.state, datetime(2026, 12, 2, 22, 30))


# --- views ---


def test_status_shows_hand_cards_shown_duties_and_allowances() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Молоток Столовая", "Дуг"), minute(1))
    game.play(("Дуг", Refute("Молоток")), minute(2))
    game.play(suggest("Кросс", "Маша Топор Спальня", "Роза"), minute(3))
    game.play(suggest("Роза", "Петя Топор Спальня", "Кросс"), minute(4))
    assert days.status(game.state, "Кросс") == {
        "game": "seed-000",
        "day": 1,
        "over": False,
        "winner": None,
        "out": False,
        "removed": False,
        "character": "Краснова",
        "hand": ["Петя", "Ваня", "Нож"],
        "shown_to_me": [{"number": 1, "card": "Молоток", "by": "Дуг", "by_gm": False}],
        "shown_by_me": [],
        "owed": [{**sugg(3, 1, 1, "Роза", "Кросс", "Петя Топор Спальня", minute(4)), "due": None}],
        "awaiting": [
            {**sugg(2, 1, 2, "Кросс", "Роза", "Маша Топор Спальня", minute(3)), "due": None}
        ],
        "suggestions_left": 1,
        "per_addressee_left": {"Дуг": 1, "Роза": 1},
    }
    assert days.duties(game.state, "Кросс") == {
        "day": 1,
        "owed": [sugg(3, 1, 1, "Роза", "Кросс", "Петя Топор Спальня", minute(4))],
        "later": [],
        "suggestions_left": 1,
    }
    assert days.status(game.state, "Дуг")["shown_by_me"] == [
        {"number": 1, "card": "Молоток", "to": "Кросс", "by_gm": False}
    ]
    with pytest.raises(KeyError):
        days.status(game.state, "Моро")


def test_gm_view_shows_solution_hands_pending_answers_and_allowances() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Молоток Столовая", "Дуг"), minute(1))
    game.play(accuse("Роза", "Петя Топор Столовая"), minute(2))
    view = days.gm_view(game.state)
    assert view["solution"] == {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"}
    assert view["players"][0] == {
        "name": "Кросс",
        "character": "Краснова",
        "hand": ["Петя", "Ваня", "Нож"],
        "out": False,
        "allowance": 3,
        "suggestions_left": 2,
        "penalty": 0,
    }
    assert [(p["name"], p["out"], p["suggestions_left"]) for p in view["players"][1:]] == [
        ("Дуг", False, 3),
        ("Роза", True, 0),
    ]
    pending = sugg(1, 1, 1, "Кросс", "Дуг", "Маша Молоток Столовая", minute(1))
    assert view["pending"] == [{**pending, "due_day": None}]
    assert view["accusations"] == [
        {
            "player": "Роза",
            "day": 1,
            "at": iso(minute(2)),
            "suspect": "Петя",
            "weapon": "Топор",
            "room": "Столовая",
            "correct": False,
        }
    ]
    assert view["commitment"] == commitment(view["canonical"])
    assert (view["day"], view["seed"], view["over"], view["winner"]) == (1, 7, False, None)


def test_duties_are_empty_once_the_game_is_over() -> None:
    game = Game(begin())
    game.play(suggest("Кросс", "Маша Молоток Столовая", "Дуг"), minute(1))
    game.play(accuse("Роза", "Маша Топор Столовая"), minute(2))
    assert days.duties(game.state, "Дуг") == {
        "day": 1,
        "owed": [],
        "later": [],
        "suggestions_left": 0,
    }


def test_the_module_is_an_engine_and_status_moves_are_not_applied() -> None:
    engine: Engine[DaysState] = days
    assert engine.kind == "cluedo_days"
    with pytest.raises(TypeError, match="not a move of the game"):
        days.apply(begin(), "Кросс", Status(), minute(1))
    state = begin()
    assert state.setup == DaysSetup(
        "seed-000", PLAYERS, EXAMPLE, DaysRules(), Deal(SOLUTION, HANDS)
    )


# --- a long random game: no private card in public, exact state round trip ---


def random_game(seed: int) -> Game:
    """Legal random moves for several days; some answers are left to the GM."""
    rng = random.Random(seed)
    game = Game(begin(answer_grace_hours=1.0, publish_wrong_accusations=False))
    names = [p for p, _ in PLAYERS]
    for day in range(6):
        close = CLOSE_1 + timedelta(days=day)
        clock = close - timedelta(hours=2)
        for _ in range(12):
            clock += timedelta(minutes=rng.randint(1, 15))
            player = rng.choice(names)
            state = game.state
            if days.is_over(state):
                return game
            owed = days.status(state, player)["owed"]
            if owed and rng.random() < 0.7:
                s = owed[0]
                held = [c for c in (s["suspect"], s["weapon"], s["room"]) if c in HANDS[player]]
                move: CluedoMove = (
                    Refute(rng.choice(held), s["number"]) if held else NoRefutation(s["number"])
                )
                game.play((player, move), clock)
            elif days.suggestions_left(state, player) and rng.random() < 0.9:
                to = rng.choice([n for n in names if n != player])
                left = days.status(state, player)["per_addressee_left"]
                if left[to]:
                    suspect, weapon, room = (rng.choice(EXAMPLE.deck(c)) for c in CATEGORIES)
                    cards = Suggest(suspect, weapon, room, to)
                    game.play((player, cards), clock)
            elif player not in state.out and rng.random() < 0.3:
                suspect, weapon, room = (rng.choice(EXAMPLE.deck(c)) for c in CATEGORIES)
                game.play((player, Accuse(suspect, weapon, room)), clock)
        game.close(close)
    return game


@pytest.mark.parametrize("seed", range(12))
def test_no_public_event_shows_a_card_from_a_hand_before_game_over(seed: int) -> None:
    game = random_game(seed)
    shown = [e for e in game.events if e.kind == "card_shown"]
    assert shown, "the random game shows some cards"
    made = {e.data["number"]: dict(e.data) for e in game.events if e.kind == "suggestion_made"}
    for event in game.events:
        if event.visibility is not Visibility.PUBLIC or event.kind == "game_over":
            continue
        text = json.dumps(dict(event.data), ensure_ascii=False)
        assert '"card"' not in text and '"hand' not in text and '"solution"' not in text
        if event.kind in ("refuted", "not_refuted"):
            # the public answer is the suggestion itself and nothing more (C4)
            number = event.data["number"]
            assert dict(event.data) == {
                **made[number],
                "by_gm": event.data["by_gm"],
                "answered_at": event.data["answered_at"],
            }
        if event.kind == "accusation_wrong":
            assert [event.data[k] for k in ("suspect", "weapon", "room")] == [None, None, None]
    for event in shown:  # each shown card reaches its suggester only
        assert event.player == made[event.data["number"]]["suggester"]
        assert event.data["card"] in HANDS[made[event.data["number"]]["addressee"]]


def test_dump_and_load_round_trip_a_whole_game_exactly() -> None:
    game = random_game(3)
    dumped = days.dump_state(game.state)
    assert json.loads(json.dumps(dumped)) == dumped
    assert days.load_state(json.loads(json.dumps(dumped))) == game.state
    assert days.dump_state(days.load_state(dumped)) == dumped
    assert dataclasses.replace(game.state, day=99) != days.load_state(dumped)


# --- every refusal has a player-facing text in both locales ---

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def refusals() -> dict[str, IllegalMove | InvalidMove]:
    """One real refusal per error code the days engine raises."""
    game = Game(begin(suggestions_per_day=4, max_per_addressee_per_day=3))
    found: dict[str, IllegalMove | InvalidMove] = {}

    def take(move: tuple[str, CluedoMove]) -> None:
        error = game.refused(move, minute(30))
        found[error.code] = error

    take(("Роза", NoRefutation()))  # nothing_to_answer
    for _ in range(3):
        game.play(suggest("Кросс", "Петя Канделябр Библиотека", "Роза"), minute(1))
    take(suggest("Кросс", "Петя Канделябр Библиотека", "Роза"))  # addressee_limit
    game.play(suggest("Кросс", "Петя Канделябр Столовая", "Дуг"), minute(2))
    take(suggest("Кросс", "Петя Канделябр Столовая", "Дуг"))  # no_suggestions_left
    take(("Роза", NoRefutation()))  # which_suggestion
    take(("Роза", NoRefutation(1)))  # must_refute
    take(("Роза", Refute("Петя", 1)))  # card_not_held
    take(("Роза", Refute("Веревка", 1)))  # card_not_named
    take(("Роза", NoRefutation(4)))  # not_addressee
    take(("Роза", NoRefutation(40)))  # unknown_suggestion
    game.play(("Дуг", NoRefutation()), minute(3))
    take(("Дуг", NoRefutation(4)))  # already_answered
    take(suggest("Дуг", "Маша Топор Столовая", "Дуг"))  # self_addressed
    take(suggest("Дуг", "Маша Топор Столовая", "Моро"))  # unknown_addressee
    take(suggest("Дуг", "Маша Топор Столовая", None))  # addressee_missing
    take(suggest("Дуг", "Маша Столовая Топор", "Роза"))  # wrong_category
    take(suggest("Моро", "Маша Топор Столовая", "Роза"))  # not_a_player
    game.play(accuse("Дуг", "Петя Топор Столовая"), minute(4))
    take(accuse("Дуг", "Маша Топор Столовая"))  # player_out
    game.play(accuse("Кросс", "Маша Топор Столовая"), minute(5))
    take(("Роза", NoRefutation(1)))  # game_over
    return found


def render(locale: str, error: IllegalMove | InvalidMove) -> str:
    return Renderer(TEMPLATES, kinds=KINDS).error(
        error.code, error.params, locale=locale, kind="cluedo_days"
    )


def test_every_engine_refusal_has_a_template_in_ru_and_en() -> None:
    found = refusals()
    assert sorted(found) == [
        "addressee_limit",
        "addressee_missing",
        "already_answered",
        "card_not_held",
        "card_not_named",
        "game_over",
        "must_refute",
        "no_suggestions_left",
        "not_a_player",
        "not_addressee",
        "nothing_to_answer",
        "player_out",
        "self_addressed",
        "unknown_addressee",
        "unknown_suggestion",
        "which_suggestion",
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
            "must_refute",
            "ru",
            "Предположение №1 от игрока Кросс: у вас есть Канделябр, Библиотека, поэтому "
            "ответить «НЕТ ОПРОВЕРЖЕНИЯ» нельзя — покажите одну из этих карт.\n"
            "Например: ОПРОВЕРЖЕНИЕ 1 Канделябр",
        ),
        (
            "must_refute",
            "en",
            "Suggestion #1 from Кросс: you hold Канделябр, Библиотека, so NO REFUTATION is not "
            "allowed; refute with one of these cards.\nFor example: REFUTE 1 Канделябр",
        ),
        (
            "card_not_held",
            "ru",
            "У вас нет карты «Петя».\n"
            "Опровергните одной из ваших названных карт: Канделябр, Библиотека.",
        ),
        (
            "which_suggestion",
            "en",
            "Several suggestions are waiting for your answer: #1, #2, #3. Give the number, for "
            "example: REFUTE 1 <card> or NO REFUTATION 1.",
        ),
        (
            "no_suggestions_left",
            "ru",
            "В день 1 у вас больше нет предположений: сделано 4 из 4. Следующие — после закрытия "
            "дня. Обвинение можно отправить в любой момент.",
        ),
        ("game_over", "en", "The game is over: Кросс won. No more moves are accepted."),
    ],
)
def test_refusal_texts_say_what_was_wrong_and_what_is_accepted(
    code: str, locale: str, text: str
) -> None:
    assert render(locale, refusals()[code]) == text
