"""Maniac, the pure engine (pbp.games.maniac.engine): rules M1–M12 and the seed 002 examples."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from kits.seed_002 import TIE, arrows

from pbp.games.core.events import Event, IllegalMove, InvalidMove
from pbp.games.core.registry import KINDS
from pbp.games.maniac import engine as maniac
from pbp.games.maniac.engine import (
    Help,
    Kill,
    ManiacMove,
    ManiacRules,
    ManiacSetup,
    ManiacState,
    Skip,
    Status,
    Unvote,
    Vote,
)
from pbp.games.maniac.shapes import GameOver
from pbp.text.fairness import canonical_deal, commitment
from pbp.text.render import Renderer

NAMES = (
    "Вася",
    "Петя",
    "Таня",
    "Оля",
    "Саша",
    "Маша",
    "Коля",
    "Дима",
    "Лена",
    "Игорь",
    "Нина",
    "Женя",
    "Юля",
    "Миша",
    "Катя",
    "Гена",
)
SPECIAL = {"Коля": "maniac", "Дима": "duty_officer", "Лена": "fan"}
SALT = bytes(range(32))
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # 12:00 Europe/Moscow
TOWN_8 = ["Вася", "Петя", "Таня", "Оля", "Саша", "Маша", "Дима"]


def roles_for(n: int) -> dict[str, str]:
    """Коля the maniac, Дима the duty officer, Лена the fan (from 10 players, M1)."""
    special = SPECIAL if n >= 10 else {p: r for p, r in SPECIAL.items() if r != "fan"}
    return {p: special.get(p, "civilian") for p in NAMES[:n]}


def setup_for(n: int, roles: dict[str, str] | None = None, **rules: int) -> ManiacSetup:
    players = tuple((p, None) for p in NAMES[:n])
    return ManiacSetup("seed-002", players, ManiacRules(**rules), roles)


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat()


def flat(events: Iterable[Event]) -> list[tuple[str, str, str | None, dict[str, Any]]]:
    return [(e.kind, e.visibility.value, e.player, dict(e.data)) for e in events]


def public(kind: str, data: dict[str, Any]) -> tuple[str, str, None, dict[str, Any]]:
    return (kind, "public", None, data)


def to_maniac(kind: str, data: dict[str, Any]) -> tuple[str, str, str, dict[str, Any]]:
    return (kind, "player", "Коля", data)


class Game:
    """Plays moves one minute apart, keeps every event, checks the JSON round trip."""

    def __init__(self, n: int = 12, roles: dict[str, str] | None = None) -> None:
        step = maniac.start(setup_for(n, roles or roles_for(n)), 7, SALT, T0)
        self.state: ManiacState = step.state
        self.events: list[Event] = list(step.events)
        self.clock = T0

    @property
    def stamp(self) -> str:
        """The ISO time of the last action."""
        return iso(self.clock)

    def _tick(self) -> datetime:
        self.clock += timedelta(minutes=1)
        return self.clock

    def play(self, player: str, move: ManiacMove) -> list[Event]:
        step = maniac.apply(self.state, player, move, self._tick())
        return self._take(step.state, list(step.events))

    def vote(self, *pairs: str, prison: bool = False) -> None:
        """``vote("Вася→Петя", "Оля→Петя")``: cell votes (prison votes with ``prison``)."""
        for pair in pairs:
            voter, target = pair.split("→")
            self.play(voter, Vote(target, prison))

    def order(self, *targets: str, night: int | None = None) -> list[Event]:
        move = Kill(tuple(targets), night) if targets else Skip(night)
        return self.play("Коля", move)

    def close(self) -> list[Event]:
        step = maniac.close_day(self.state, self._tick())
        return self._take(step.state, list(step.events))

    def end(self) -> list[Event]:
        step = maniac.end_night(self.state, self._tick())
        return self._take(step.state, list(step.events))

    def refused(self, player: str, move: ManiacMove) -> tuple[str, dict[str, Any]]:
        with pytest.raises((IllegalMove, InvalidMove)) as caught:
            maniac.apply(self.state, player, move, self.clock + timedelta(seconds=30))
        return caught.value.code, caught.value.params

    def _take(self, state: ManiacState, events: list[Event]) -> list[Event]:
        stored = json.loads(json.dumps(maniac.dump_state(state), ensure_ascii=False))
        assert maniac.load_state(stored) == state
        self.state = state
        self.events.extend(events)
        return events


def morning(night: int, dead: list[str], released: str | None, game: Game) -> Any:
    data = {"night": night, "dead": dead, "released": released, "day": night + 1}
    return public("night_ended", {**data, "ended_at": game.stamp})


NIGHT_1_END = {"phase": "night", "number": 1}  # M3: fixes the orders for nights 1 and 2


def until(night: int) -> dict[str, Any]:
    """M3: the deadline that fixes the order for ``night`` (``fixed_by``)."""
    return NIGHT_1_END if night <= 2 else {"phase": "day", "number": night - 1}


def fixed(night: int, *targets: str, skip: bool = False) -> Any:
    """The maniac's ``order_fixed`` for ``night``: ``targets``, a skip, or a miss."""
    data = {
        "night": night,
        "targets": list(targets),
        "skip": skip,
        "missing": not targets and not skip,
        "fixed_by": until(night),
    }
    return to_maniac("order_fixed", data)


def resolution(night: int, **data: Any) -> tuple[str, str, None, dict[str, Any]]:
    base: dict[str, Any] = {
        "night": night,
        "order": None,
        "maniac_in_cell": False,
        "duty_officer_guards": True,
        "outcome": "miss",
        "targets": [],
        "fan_in_cell": None,
        "dead": [],
        "skip_restored": False,
    }
    return ("night_resolution", "gm", None, {**base, **data})


# --- M1 ---


def test_M1_eight_to_fifteen_players_refused_otherwise() -> None:
    for n in (7, 16):
        with pytest.raises(ValueError, match=rf"^rule M1: 8 to 15 players, got {n}$"):
            maniac.start(setup_for(n), 7, SALT, T0)
    for n in (8, 15):
        assert len(maniac.start(setup_for(n), 7, SALT, T0).state.roles) == n


def test_M1_roles_dealt_from_the_seed_with_a_fan_from_ten_players() -> None:
    def counts(n: int, seed: int) -> dict[str, int]:
        state = maniac.start(setup_for(n), seed, SALT, T0).state
        found: dict[str, int] = {}
        for _, role in state.roles:
            found[role] = found.get(role, 0) + 1
        return found

    for seed in range(20):
        assert counts(8, seed) == {"maniac": 1, "duty_officer": 1, "civilian": 6}
        assert counts(9, seed) == {"maniac": 1, "duty_officer": 1, "civilian": 7}
        assert counts(10, seed) == {"maniac": 1, "duty_officer": 1, "fan": 1, "civilian": 7}
        assert counts(15, seed) == {"maniac": 1, "duty_officer": 1, "fan": 1, "civilian": 12}
    # the deal is a pure function of the stored seed (replayable, DESIGN.md)
    first = maniac.start(setup_for(12), 7, SALT, T0).state.roles
    assert maniac.start(setup_for(12), 7, bytes(32), T0).state.roles == first
    assert dict(first) == {
        **dict.fromkeys(NAMES[:12], "civilian"),
        "Оля": "fan",
        "Дима": "maniac",
        "Женя": "duty_officer",
    }
    deals = {maniac.start(setup_for(12), s, SALT, T0).state.roles for s in range(8)}
    assert len(deals) > 1  # other seeds, other deals


def test_M1_a_fixed_deal_must_have_the_right_roles() -> None:
    bad = [
        ({**roles_for(10), "Вася": "maniac"}, "rule M1: 10 players need 1 maniac, got 2"),
        ({**roles_for(10), "Лена": "civilian"}, "rule M1: 10 players need 1 fan, got 0"),
        ({**roles_for(9), "Лена": "fan"}, "rule M1: 9 players need 0 fan, got 1"),
        ({**roles_for(8), "Дима": "civilian"}, "rule M1: 8 players need 1 duty_officer, got 0"),
        ({**roles_for(8), "Вася": "doctor"}, "rule M1: unknown roles ['doctor']"),
    ]
    for roles, message in bad:
        with pytest.raises(ValueError, match="^" + re.escape(message)):
            maniac.start(setup_for(len(roles), roles), 7, SALT, T0)
    missing = roles_for(8)
    del missing["Вася"]
    with pytest.raises(ValueError, match=r"^rule M1: roles must name every player once"):
        maniac.start(setup_for(8, missing), 7, SALT, T0)


def test_M1_roles_told_privately_maniac_and_fan_know_each_other() -> None:
    roles = roles_for(12)
    step = maniac.start(setup_for(12, roles), 7, SALT, T0)
    canonical = canonical_deal("seed-002", SALT, {"roles": roles})
    partners = {"Коля": "Лена", "Лена": "Коля"}
    assert flat(step.events) == [
        ("roles", "gm", None, {"roles": roles, "seed": 7, "canonical": canonical}),
        *(
            (
                "role_dealt",
                "player",
                p,
                {"role": roles[p], "character": None, "partner": partners.get(p)},
            )
            for p in NAMES[:12]
        ),
        public(
            "game_started",
            {
                "game": "seed-002",
                "day": 1,
                "players": [{"name": p, "character": None} for p in NAMES[:12]],
                "commitment": commitment(canonical),
                "fan": True,
                "skips": 4,
                "double_kill": True,
                "casts_per_target": 2,
                "started_at": iso(T0),
            },
        ),
    ]
    # without a fan (8 players) the maniac has no partner
    eight = maniac.start(setup_for(8, roles_for(8)), 7, SALT, T0)
    dealt = {e.player: e.data["partner"] for e in eight.events if e.kind == "role_dealt"}
    assert dealt == dict.fromkeys(NAMES[:8])


# --- M2 ---


def test_M2_day_d_is_followed_by_night_d() -> None:
    game = Game()
    assert (maniac.day(game.state), maniac.phase(game.state)) == (1, "day")
    game.close()
    assert (maniac.day(game.state), maniac.phase(game.state)) == (1, "night")
    assert game.refused("Вася", Vote("Петя")) == ("voting_closed", {"day": 1, "next_day": 2})
    assert maniac.close_day(game.state, game.clock).events == []  # a stale close: nothing
    game.end()
    assert (maniac.day(game.state), maniac.phase(game.state)) == (2, "day")
    assert maniac.end_night(game.state, game.clock).events == []  # a stale night end: nothing


# --- M3 ---


def placed(night: int, *targets: str, changed: bool = False, at: str) -> Any:
    """The maniac's ``order_placed`` for ``night``: ``targets`` or a skip."""
    data = {
        "night": night,
        "targets": list(targets),
        "skip": not targets,
        "changed": changed,
        "fixed_by": until(night),
        "at": at,
    }
    return to_maniac("order_placed", data)


def test_M3_order_timeline_seed_example() -> None:
    """Seed 002: day 1 "1 ночь - Вася, 2 ночь - Петя"; day 2 "3 ночь - Таня"."""
    game = Game()
    assert maniac.open_nights(game.state) == [1, 2]
    assert flat(game.order("Вася")) == [placed(1, "Вася", at=game.stamp)]
    assert flat(game.order("Петя")) == [placed(2, "Петя", at=game.stamp)]
    assert game.refused("Коля", Kill(("Таня",))) == ("all_nights_ordered", {"open": [1, 2]})
    assert game.refused("Коля", Kill(("Таня",), 3)) == (
        "night_not_open",
        {"night": 3, "open": [1, 2]},
    )
    # the close of day 1 fixes nothing: nights 1 and 2 stay open during night 1 (M3)
    assert flat(game.close()) == [
        public(
            "day_closed",
            {
                "day": 1,
                "counts": [],
                "not_voted": list(NAMES[:12]),
                "to_cell": None,
                "to_prison": None,
                "prison_reason": None,
                "tie_broken_by": None,
                "vote_split": None,
                "closed_at": game.stamp,
            },
        ),
    ]
    # during night 1 nights 1 and 2 only: the order for night 3 is given on day 2 (M3)
    assert maniac.open_nights(game.state) == [1, 2]
    assert game.refused("Коля", Kill(("Оля",), 3)) == (
        "night_not_open",
        {"night": 3, "open": [1, 2]},
    )
    assert [e.kind for e in game.end()] == ["order_fixed", "night_resolution", "night_ended"]
    assert game.events[-1].data["dead"] == ["Вася"]
    assert maniac.open_nights(game.state) == [3]
    assert flat(game.order("Оля", night=3)) == [placed(3, "Оля", at=game.stamp)]
    assert flat(game.order("Таня", night=3)) == [placed(3, "Таня", changed=True, at=game.stamp)]
    assert game.refused("Коля", Kill(("Оля",), 2)) == ("night_not_open", {"night": 2, "open": [3]})
    assert flat(game.close())[1:] == [fixed(3, "Таня")]
    assert maniac.open_nights(game.state) == []  # night 2: the order for night 4 is day 3's
    assert game.end()[-1].data["dead"] == ["Петя"]
    game.close()
    assert game.end()[-1].data["dead"] == ["Таня"]
    orders = maniac.status(game.state, "Коля")["orders"]
    assert [(o["night"], o["targets"], o["fixed"]) for o in orders] == [
        (1, ["Вася"], True),
        (2, ["Петя"], True),
        (3, ["Таня"], True),
    ]


def test_M3_orders_for_nights_1_and_2_may_be_given_during_night_1() -> None:
    """M3 "в первый игровой день (или ночь)": the orders for nights 1 and 2 may be given
    or changed during night 1, until it ends; then they are fixed. An order without a
    night number is for the earliest open night without an order."""
    game = Game()
    game.order("Вася", night=2)  # day 1: night 2 only
    game.close()
    assert flat(game.order("Таня")) == [placed(1, "Таня", at=game.stamp)]  # night 1 had none
    assert flat(game.order("Оля", night=2)) == [placed(2, "Оля", changed=True, at=game.stamp)]
    assert flat(game.order("Саша", night=1)) == [placed(1, "Саша", changed=True, at=game.stamp)]
    assert game.refused("Коля", Kill(("Петя",))) == ("all_nights_ordered", {"open": [1, 2]})
    three = IllegalMove("all_nights_ordered", open=[1, 2, 3])
    assert render("ru", three) == (
        "На каждую открытую ночь (ночи 1, 2 и 3) заказ уже есть. Чтобы изменить заказ, "
        "укажите ночь: УБИТЬ <игрок> НОЧЬ 1 или ПРОПУСК НОЧЬ 1."
    )
    assert render("en", three) == (
        "Every open night already has an order (nights 1, 2 and 3). To change one, name its "
        "night: KILL <player> NIGHT 1 or SKIP NIGHT 1."
    )
    orders = maniac.status(game.state, "Коля")["orders"]
    assert [(o["night"], o["targets"], o["fixed"]) for o in orders] == [
        (1, ["Саша"], False),
        (2, ["Оля"], False),
    ]
    assert flat(game.end()) == [
        fixed(2, "Оля"),  # night 1's order is carried out at the same moment
        resolution(
            1,
            order={"targets": ["Саша"], "skip": False},
            outcome="kill",
            targets=[{"player": "Саша", "result": "killed"}],
            dead=["Саша"],
        ),
        morning(1, ["Саша"], None, game),
    ]
    # night 1 has ended: the orders for nights 1 and 2 are fixed
    assert game.refused("Коля", Kill(("Петя",), 2)) == (
        "night_not_open",
        {"night": 2, "open": [3]},
    )
    assert game.refused("Коля", Skip(1)) == ("night_not_open", {"night": 1, "open": [3]})
    orders = maniac.status(game.state, "Коля")["orders"]
    assert [(o["night"], o["fixed"]) for o in orders] == [(1, True), (2, True)]


def test_M3_a_missing_order_is_a_miss_not_a_skip() -> None:
    game = Game()
    assert flat(game.close())[1:] == []  # nights 1 and 2 may still be ordered
    assert flat(game.end()) == [fixed(2), resolution(1), morning(1, [], None, game)]
    assert maniac.status(game.state, "Коля")["skips_left"] == 4
    assert maniac.duties(game.state, "Коля") == {
        "day": 2,
        "phase": "day",
        "vote": True,
        "orders_due": [3],
        "fixed_by": {"phase": "day", "number": 2},
        "fixed_later": False,
    }
    assert flat(game.close())[1:] == [fixed(3)]  # from day 2 on, at the day's close
    assert flat(game.end()) == [resolution(2), morning(2, [], None, game)]


def test_M3_targets_alive_not_the_maniac_orders_from_the_maniac_only() -> None:
    game = Game()
    others = [p for p in NAMES[:12] if p != "Коля"]
    assert game.refused("Коля", Kill(("Коля",))) == ("self_target", {"players": others})
    assert game.refused("Коля", Kill(("Моро",))) == (
        "not_a_player",
        {"player": "Моро", "players": others},
    )
    # the role check comes first: naming the maniac tells a civilian nothing
    assert game.refused("Вася", Kill(("Коля",))) == ("not_the_maniac", {})
    assert game.refused("Лена", Skip()) == ("not_the_maniac", {})
    game.order("Вася")
    game.order("Петя")
    game.close()
    game.end()
    alive = [p for p in others if p != "Вася"]
    assert game.refused("Коля", Kill(("Вася",))) == (
        "target_dead",
        {"target": "Вася", "players": alive},
    )
    with pytest.raises(ValueError, match="rule M5"):
        Kill(("Вася", "Петя", "Таня"))
    with pytest.raises(TypeError):
        maniac.apply(game.state, "Вася", Status(), game.clock)
    with pytest.raises(TypeError):
        maniac.apply(game.state, "Вася", Help(), game.clock)


# --- M4 ---


def test_M4_skips_at_most_a_third_and_never_two_in_a_row() -> None:
    game = Game(8)  # floor(8 / 3) = 2 skips
    assert flat(game.order()) == [placed(1, at=game.stamp)]
    assert game.refused("Коля", Skip(2)) == ("skip_in_a_row", {"night": 2, "other": 1})
    game.order("Вася", night=2)
    # night 1 changed to a kill, night 2 to a skip: the neighbour check runs both ways
    game.order("Петя", night=1)
    game.order(night=2)
    assert game.refused("Коля", Skip(1)) == ("skip_in_a_row", {"night": 1, "other": 2})
    assert game.order(night=2)[0].data["changed"] is True  # the same night: no conflict
    assert maniac.status(game.state, "Коля")["skips_left"] == 1
    game.close()
    game.end()  # Петя dies
    game.order("Таня")  # night 3
    game.close()
    assert flat(game.end()) == [
        resolution(2, order={"targets": [], "skip": True}, outcome="skip"),
        morning(2, [], None, game),
    ]
    game.order()  # night 4
    assert maniac.status(game.state, "Коля")["skips_left"] == 0
    game.close()
    game.end()  # Таня dies
    assert game.refused("Коля", Skip(5)) == ("skip_in_a_row", {"night": 5, "other": 4})
    game.order("Вася")  # night 5
    game.close()
    game.end()  # night 4 skipped
    assert game.refused("Коля", Skip(6)) == ("skip_limit", {"limit": 2, "used": 2})


# --- M5 ---


def double_kill(state: str, night: int | None = None, voided: int | None = None) -> Any:
    """The maniac's STATUS ``double_kill`` (M5) of a 12-player game: ``state``, the
    night ordered (and, while it may be changed, the deadline that fixes it)."""
    until_ = until(night) if state == "booked" and night is not None else None
    return {
        "state": state,
        "night": night,
        "fixed_by": until_,
        "needed": 12,
        "voided_night": voided,
    }


def test_M5_one_double_kill_from_twelve_players() -> None:
    game = Game(12)
    assert flat(game.order("Вася", "Петя")) == [placed(1, "Вася", "Петя", at=game.stamp)]
    assert game.refused("Коля", Kill(("Таня", "Оля"))) == ("double_kill_used", {"night": 1})
    assert game.refused("Коля", Kill(("Таня", "Таня"), 2)) == (
        "same_target_twice",
        {"target": "Таня"},
    )
    game.order("Оля", "Таня", night=1)  # the same night may still be changed
    assert maniac.status(game.state, "Коля")["double_kill"] == double_kill("booked", 1)
    game.order("Петя")
    game.close()
    assert flat(game.end()) == [
        fixed(2, "Петя"),
        resolution(
            1,
            order={"targets": ["Оля", "Таня"], "skip": False},
            outcome="kill",
            targets=[
                {"player": "Оля", "result": "killed"},
                {"player": "Таня", "result": "killed"},
            ],
            dead=["Таня", "Оля"],
        ),
        morning(1, ["Таня", "Оля"], None, game),  # seating order, not order of the targets
    ]
    assert game.refused("Коля", Kill(("Саша", "Маша"))) == ("double_kill_used", {"night": 1})
    small = Game(11)
    assert small.refused("Коля", Kill(("Вася", "Петя"))) == (
        "double_kill_unavailable",
        {"players": 11, "needed": 12},
    )
    assert maniac.status(small.state, "Коля")["double_kill"] == double_kill("none")


def test_M5_a_voided_double_kill_is_not_used_up() -> None:
    """M5, seed 2.3: a double kill voided because the maniac sat in the cell (M6) is not
    used up, as a voided skip is not; he may order a double kill again."""
    game = Game(12)
    game.order("Вася", "Петя")  # night 1
    assert game.refused("Коля", Kill(("Таня", "Оля"), 2)) == ("double_kill_used", {"night": 1})
    game.order("Таня", night=2)
    game.vote("Вася→Коля")
    game.close()
    assert flat(game.end()) == [
        fixed(2, "Таня"),
        resolution(
            1,
            order={"targets": ["Вася", "Петя"], "skip": False},
            maniac_in_cell=True,
            outcome="void",
        ),
        morning(1, [], "Коля", game),
    ]
    assert maniac.status(game.state, "Коля")["double_kill"] == double_kill("available", voided=1)
    assert maniac.gm_view(game.state)["double_kill_night"] is None
    assert flat(game.order("Оля", "Саша")) == [placed(3, "Оля", "Саша", at=game.stamp)]
    assert maniac.gm_view(game.state)["double_kill_night"] == 3
    assert maniac.status(game.state, "Коля")["double_kill"] == double_kill("booked", 3, voided=1)
    game.close()
    assert game.end()[-1].data["dead"] == ["Таня"]  # night 2
    assert game.refused("Коля", Kill(("Маша", "Нина"))) == ("double_kill_used", {"night": 3})
    game.close()
    assert game.end()[-1].data["dead"] == ["Оля", "Саша"]  # night 3: the double kill
    assert game.refused("Коля", Kill(("Маша", "Нина"))) == ("double_kill_used", {"night": 3})


# --- M6 ---


def test_M6_a_target_in_the_cell_survives_while_the_duty_officer_guards() -> None:
    game = Game()
    game.order("Таня")
    game.vote("Вася→Таня")
    game.close()
    assert flat(game.end()) == [
        fixed(2),
        resolution(
            1,
            order={"targets": ["Таня"], "skip": False},
            outcome="kill",
            targets=[{"player": "Таня", "result": "blocked"}],
        ),
        morning(1, [], "Таня", game),
    ]


def test_M6_a_target_in_the_cell_dies_when_the_duty_officer_is_dead() -> None:
    game = Game()
    game.order("Дима")
    game.order("Таня")
    game.close()
    assert game.end()[-1].data["dead"] == ["Дима"]
    game.vote("Вася→Таня")
    game.close()
    assert flat(game.end()) == [
        resolution(
            2,
            order={"targets": ["Таня"], "skip": False},
            duty_officer_guards=False,
            outcome="kill",
            targets=[{"player": "Таня", "result": "killed"}],
            dead=["Таня"],
        ),
        morning(2, ["Таня"], None, game),
    ]


def test_M6_the_duty_officer_in_the_cell_can_be_killed() -> None:
    game = Game()
    game.order("Дима")
    game.vote("Вася→Дима")
    game.close()
    assert flat(game.end()) == [
        fixed(2),
        resolution(
            1,
            order={"targets": ["Дима"], "skip": False},
            duty_officer_guards=False,
            outcome="kill",
            targets=[{"player": "Дима", "result": "killed"}],
            dead=["Дима"],
        ),
        morning(1, ["Дима"], None, game),
    ]


def test_M6_the_maniac_in_the_cell_voids_his_order_and_a_voided_skip_is_not_used_up() -> None:
    game = Game()
    game.order()
    game.order("Вася")
    assert maniac.status(game.state, "Коля")["skips_left"] == 3
    game.vote("Вася→Коля")
    game.close()
    assert flat(game.end()) == [
        fixed(2, "Вася"),
        resolution(
            1,
            order={"targets": [], "skip": True},
            maniac_in_cell=True,
            outcome="void",
            skip_restored=True,
        ),
        morning(1, [], "Коля", game),
    ]
    status = maniac.status(game.state, "Коля")
    assert status["skips_left"] == 4
    assert status["orders"][0] == {
        "night": 1,
        "targets": [],
        "skip": True,
        "at": iso(T0 + timedelta(minutes=1)),
        "voided": True,
        "fixed": True,
        "fixed_by": NIGHT_1_END,
    }
    # a voided kill is voided the same way; the plan for the next nights stands
    game.vote("Вася→Коля")
    game.close()
    assert game.events[-2].data["to_prison"] == "Коля"  # second night in a row (M11)
    assert maniac.is_over(game.state)


def test_M6_the_maniac_in_the_cell_voids_a_kill() -> None:
    game = Game()
    game.order("Вася")
    game.vote("Петя→Коля")
    game.close()
    assert flat(game.end()) == [
        fixed(2),
        resolution(
            1,
            order={"targets": ["Вася"], "skip": False},
            maniac_in_cell=True,
            outcome="void",
        ),
        morning(1, [], "Коля", game),
    ]


def test_M6_a_target_in_prison_is_guarded_and_dies_without_the_duty_officer() -> None:
    game = Game()
    game.order("Вася")
    game.order("Таня")
    game.vote("Петя→Таня")
    game.close()
    game.end()  # Вася dies; Таня released
    game.vote("Петя→Таня")
    game.order("Дима")  # night 3
    game.close()  # second night in a row: prison
    assert game.events[-2].data["to_prison"] == "Таня"
    assert flat(game.end())[0] == resolution(
        2,
        order={"targets": ["Таня"], "skip": False},
        outcome="kill",
        targets=[{"player": "Таня", "result": "blocked"}],
    )
    game.order("Таня")  # night 4
    game.close()
    assert game.end()[-1].data["dead"] == ["Дима"]
    game.close()
    assert flat(game.end()) == [
        resolution(
            4,
            order={"targets": ["Таня"], "skip": False},
            duty_officer_guards=False,
            outcome="kill",
            targets=[{"player": "Таня", "result": "killed"}],
            dead=["Таня"],
        ),
        morning(4, ["Таня"], None, game),
    ]
    assert maniac.status(game.state, "Петя")["prisoners"] == ["Таня"]


@pytest.mark.parametrize(
    "targets", [("Дима", "Таня"), ("Таня", "Дима")], ids=["do_first", "cell_first"]
)
def test_M6_protection_is_judged_at_the_start_of_the_night(targets: tuple[str, str]) -> None:
    """M6: the night is simultaneous. A double kill of the duty officer and the player in
    the cell kills the duty officer only, whichever target is named first: he still
    guards the cell on the night he is killed. A single kill of him while someone sits
    in the cell kills him."""
    game = Game(12)
    game.order(*targets)  # night 1
    game.order("Дима", night=2)
    game.vote("Вася→Таня")
    game.close()
    assert flat(game.end()) == [
        fixed(2, "Дима"),
        resolution(
            1,
            order={"targets": list(targets), "skip": False},
            outcome="kill",
            targets=[
                {"player": t, "result": "killed" if t == "Дима" else "blocked"} for t in targets
            ],
            dead=["Дима"],
        ),
        morning(1, ["Дима"], "Таня", game),
    ]
    single = Game(12)
    single.order("Дима")
    single.vote("Вася→Таня")
    single.close()
    assert flat(single.end())[1:] == [
        resolution(
            1,
            order={"targets": ["Дима"], "skip": False},
            outcome="kill",
            targets=[{"player": "Дима", "result": "killed"}],
            dead=["Дима"],
        ),
        morning(1, ["Дима"], "Таня", game=single),
    ]


# --- M7 ---


def test_M7_the_fan_in_the_cell_dies_whatever_the_duty_officer() -> None:
    game = Game()
    game.order("Вася")
    game.vote("Петя→Лена")
    game.close()
    assert flat(game.end()) == [
        fixed(2),
        resolution(
            1,
            order={"targets": ["Вася"], "skip": False},
            outcome="kill",
            targets=[{"player": "Вася", "result": "killed"}],
            fan_in_cell="Лена",
            dead=["Вася", "Лена"],
        ),
        morning(1, ["Вася", "Лена"], None, game),
    ]


# --- M8 ---


def test_M8_morning_names_the_dead_only_releases_the_cell_and_the_dead_take_no_part() -> None:
    game = Game()
    game.order("Вася")
    game.vote("Петя→Таня", "Таня→Петя", "Оля→Таня")
    game.close()
    ended = game.end()
    assert flat(ended)[2] == morning(1, ["Вася"], "Таня", game)
    assert maniac.status(game.state, "Таня")["in_cell"] is None
    assert game.refused("Вася", Vote("Петя")) == ("player_dead", {"player": "Вася"})
    assert game.refused("Вася", Unvote()) == ("player_dead", {"player": "Вася"})
    free = [p for p in NAMES[:12] if p not in ("Вася", "Петя")]
    assert game.refused("Петя", Vote("Вася")) == (
        "target_dead",
        {"target": "Вася", "players": free},
    )
    assert maniac.vote_count(game.state)["not_voted"] == list(NAMES[1:12])


# --- M9 ---


def test_M9_vote_limit_seed_example() -> None:
    """Seed 002: Вася → Петя, Таня, Петя, Саша; a third vote on Петя that day is refused."""
    game = Game()
    casts = []
    for target in ("Петя", "Таня", "Петя", "Саша"):
        casts.append(game.play("Вася", Vote(target))[0].data["cast_no"])
    assert casts == [1, 1, 2, 1]
    assert game.refused("Вася", Vote("Петя")) == (
        "vote_limit",
        {"target": "Петя", "limit": 2, "day": 1},
    )
    game.close()
    game.end()
    assert game.play("Вася", Vote("Петя"))[0].data["cast_no"] == 1  # a new day


def test_M9_votes_changed_withdrawn_last_vote_stands() -> None:
    game = Game()
    others = [p for p in NAMES[:12] if p != "Вася"]
    assert game.refused("Вася", Vote("Вася")) == ("self_vote", {"players": others})
    assert game.refused("Вася", Vote("Моро")) == (
        "not_a_player",
        {"player": "Моро", "players": others},
    )
    assert game.refused("Вася", Unvote()) == ("no_vote", {"day": 1})
    assert game.refused("Моро", Vote("Вася")) == (
        "not_a_player",
        {"player": "Моро", "players": list(NAMES[:12])},
    )
    assert flat(game.play("Вася", Vote("Петя"))) == [
        public(
            "vote_cast",
            {
                "day": 1,
                "voter": "Вася",
                "target": "Петя",
                "prison": False,
                "cast_no": 1,
                "at": game.stamp,
            },
        )
    ]
    assert flat(game.play("Вася", Unvote())) == [
        public(
            "vote_withdrawn",
            {"day": 1, "voter": "Вася", "target": "Петя", "prison": False, "at": game.stamp},
        )
    ]
    game.vote("Вася→Петя")
    game.play("Вася", Unvote())
    assert game.refused("Вася", Vote("Петя"))[0] == "vote_limit"  # UNVOTE is not a cast
    game.vote("Вася→Таня", "Оля→Петя", "Оля→Таня", "Саша→Оля")
    assert maniac.vote_count(game.state) == {
        "day": 1,
        "candidates": [
            {
                "player": "Таня",
                "votes": 2,
                "prison_votes": 0,
                "voters": ["Вася", "Оля"],
                "prison_voters": [],
            },
            {
                "player": "Оля",
                "votes": 1,
                "prison_votes": 0,
                "voters": ["Саша"],
                "prison_voters": [],
            },
        ],
        "not_voted": [p for p in NAMES[:12] if p not in ("Вася", "Оля", "Саша")],
    }
    assert maniac.status(game.state, "Вася")["casts_left"]["Петя"] == 0
    assert maniac.status(game.state, "Вася")["casts_left"]["Таня"] == 1
    assert maniac.status(game.state, "Вася")["my_vote"] == {"target": "Таня", "prison": False}
    assert maniac.duties(game.state, "Вася") is None
    assert maniac.duties(game.state, "Петя") == {
        "day": 1,
        "phase": "day",
        "vote": True,
        "orders_due": [],
        "fixed_by": None,
        "fixed_later": False,
    }


# --- M10 ---


def test_M10_tie_goes_to_earliest_standing_vote_seed_example() -> None:
    """Seed 002: Вася→Петя, Петя→Таня, Вася→Таня, Таня→Петя, Оля→Петя sends Таня, not Петя."""
    game = Game()
    game.vote(*arrows(TIE[:2]))  # Вася→Петя, Петя→Таня
    second = game.stamp
    game.vote(*arrows(TIE[2:]))  # Вася→Таня, Таня→Петя, Оля→Петя
    closed = game.close()
    assert flat(closed)[0] == public(
        "day_closed",
        {
            "day": 1,
            "counts": [
                {
                    "player": "Таня",
                    "votes": 2,
                    "prison_votes": 0,
                    "voters": ["Петя", "Вася"],
                    "prison_voters": [],
                },
                {
                    "player": "Петя",
                    "votes": 2,
                    "prison_votes": 0,
                    "voters": ["Таня", "Оля"],
                    "prison_voters": [],
                },
            ],
            "not_voted": [p for p in NAMES[:12] if p not in ("Вася", "Петя", "Таня", "Оля")],
            "to_cell": "Таня",
            "to_prison": None,
            "prison_reason": None,
            "tie_broken_by": {"tied": ["Таня", "Петя"], "voter": "Петя", "at": second},
            "vote_split": None,
            "closed_at": game.stamp,
        },
    )
    assert maniac.status(game.state, "Вася")["in_cell"] == "Таня"


def test_M10_most_votes_goes_no_votes_nobody_goes() -> None:
    game = Game()
    game.vote("Вася→Петя", "Таня→Оля", "Саша→Оля")
    data = game.close()[0].data
    assert (data["to_cell"], data["tie_broken_by"]) == ("Оля", None)
    game.end()
    data = game.close()[0].data
    assert (data["counts"], data["to_cell"], data["to_prison"]) == ([], None, None)
    assert game.end()[-1].data["released"] is None


# --- M11 ---


def test_M11_the_second_night_in_a_row_goes_to_prison() -> None:
    game = Game()
    game.vote("Вася→Петя")
    game.close()
    game.end()
    game.vote("Вася→Петя")
    data = game.close()[0].data
    assert (data["to_cell"], data["to_prison"], data["prison_reason"]) == (
        None,
        "Петя",
        "second_night",
    )
    game.end()
    free = [p for p in NAMES[:12] if p not in ("Вася", "Петя")]
    assert game.refused("Петя", Vote("Вася")) == ("player_in_prison", {"player": "Петя"})
    assert game.refused("Вася", Vote("Петя")) == (
        "target_in_prison",
        {"target": "Петя", "players": free},
    )
    assert maniac.status(game.state, "Вася")["prisoners"] == ["Петя"]
    # a night out of the cell in between: the cell again, not prison
    game.vote("Вася→Таня")
    game.close()
    game.end()
    game.close()
    game.end()
    game.vote("Вася→Таня")
    assert game.close()[0].data["to_cell"] == "Таня"


def test_M11_prison_votes_only_after_a_night_in_the_cell_and_when_they_outnumber() -> None:
    game = Game()
    assert game.refused("Вася", Vote("Петя", prison=True)) == (
        "never_in_cell",
        {"target": "Петя", "players": []},
    )
    game.vote("Вася→Петя")
    game.close()
    game.end()
    game.close()  # night 2 out of the cell
    game.end()
    assert maniac.status(game.state, "Вася")["prison_vote_for"] == ["Петя"]
    assert game.refused("Вася", Vote("Таня", prison=True)) == (
        "never_in_cell",
        {"target": "Таня", "players": ["Петя"]},
    )
    assert game.play("Вася", Vote("Петя", prison=True))[0].data == {
        "day": 3,
        "voter": "Вася",
        "target": "Петя",
        "prison": True,
        "cast_no": 1,
        "at": game.stamp,
    }
    game.vote("Таня→Петя")
    data = game.close()[0].data  # 1 prison vote of 2: not more than the cell votes
    assert (data["to_cell"], data["to_prison"]) == ("Петя", None)
    assert data["counts"][0]["prison_voters"] == ["Вася"]
    game.end()
    game.close()
    game.end()
    game.vote("Вася→Петя", "Таня→Петя", "Оля→Петя", prison=True)
    game.vote("Саша→Петя")
    game.play("Вася", Vote("Петя", prison=True))  # a prison cast counts towards the limit
    assert game.refused("Вася", Vote("Петя")) == (
        "vote_limit",
        {"target": "Петя", "limit": 2, "day": 5},
    )
    data = game.close()[0].data
    assert (data["to_cell"], data["to_prison"], data["prison_reason"]) == (
        None,
        "Петя",
        "prison_votes",
    )


def test_M11_the_close_gives_both_counts_when_prison_votes_were_cast() -> None:
    """M11: ``vote_split`` holds the chosen player's standing prison and cell votes
    whenever any of them asks for prison (the evening post prints both), else None."""
    game = Game()
    game.vote("Вася→Петя")
    game.close()  # Петя: the cell, night 1
    game.end()
    game.vote("Вася→Таня")
    assert game.close()[0].data["vote_split"] is None  # Таня: the cell, night 2
    game.end()
    game.vote("Вася→Петя", prison=True)
    game.vote("Таня→Петя", "Оля→Петя")
    data = game.close()[0].data  # 1 prison vote of 3: the cell
    assert (data["to_cell"], data["to_prison"], data["vote_split"]) == (
        "Петя",
        None,
        {"prison": 1, "cell": 2},
    )
    game.end()
    # prison votes for someone else only: the chosen player's count needs no split
    game.vote("Вася→Таня", prison=True)
    game.vote("Саша→Оля", "Маша→Оля", "Коля→Оля")
    data = game.close()[0].data
    assert (data["to_cell"], data["vote_split"]) == ("Оля", None)
    game.end()
    game.vote("Вася→Петя", "Таня→Петя", prison=True)
    game.vote("Оля→Петя")
    data = game.close()[0].data  # 2 prison votes of 3: prison
    assert (data["to_prison"], data["prison_reason"], data["vote_split"]) == (
        "Петя",
        "prison_votes",
        {"prison": 2, "cell": 1},
    )


# --- P1: the posts of the votes ---


def test_P1_the_live_count_of_the_public_events_is_the_count_the_close_makes() -> None:
    """Rule P1: the day post's live count (``post_view``, from the public events alone)
    is the state's :func:`vote_count` after every change — votes cast, changed and
    withdrawn, voided by the GM (the earlier vote stands again), withdrawn by a
    removal, prison votes — and the close's count; a voided vote leaves both at once."""
    game = Game()

    def live() -> dict[str, Any]:
        shown = [e for e in game.events if e.visibility.value == "public"]
        view = maniac.post_view("day", shown, None)
        assert view["day"] == game.state.day
        if game.state.phase == "day":
            assert view["closed"] is False
            assert view["result"] is None
            assert view["count"] == maniac.vote_count(game.state)
        return dict(view)

    def void(voter: str, target: str, cast: str) -> None:
        step = maniac.void_vote(game.state, voter, target, cast, game._tick())
        game._take(step.state, list(step.events))
        live()

    game.vote("Вася→Петя", "Петя→Таня", "Вася→Таня")
    cast = game.stamp
    game.vote("Таня→Петя", "Оля→Петя")
    live()
    void("Вася", "Таня", cast)  # Вася's vote for Петя stands again
    assert [(c["player"], c["voters"]) for c in live()["count"]["candidates"]] == [
        ("Петя", ["Вася", "Таня", "Оля"]),
        ("Таня", ["Петя"]),
    ]
    game.play("Оля", Unvote())
    live()
    game.vote("Саша→Оля", "Маша→Саша")
    step = maniac.remove(game.state, "Саша", game._tick())  # both withdrawn
    game._take(step.state, list(step.events))
    assert "Саша" not in live()["count"]["not_voted"]
    expected = maniac.vote_count(game.state)
    closed = game.close()[0].data
    view = live()
    assert view["closed"] is True
    assert view["count"] == expected  # the close's count: its day_closed event
    assert closed["counts"] == expected["candidates"]
    assert closed["not_voted"] == expected["not_voted"]
    assert view["result"] == maniac.post_view("evening", game.events, 1)["result"]
    assert view["result"] == {
        "to_cell": "Петя",
        "to_prison": None,
        "chosen": "Петя",
        "prison_reason": None,
        "tie": None,
        "vote_split": None,
    }
    game.end()
    game.vote("Вася→Петя", "Таня→Петя", prison=True)
    prison = game.stamp
    game.vote("Оля→Петя", "Петя→Таня")
    live()
    void("Таня", "Петя", prison)
    assert live()["count"]["candidates"][0]["prison_voters"] == ["Вася"]
    game.close()
    assert maniac.post_view("evening", game.events, 2)["result"]["vote_split"] == {
        "prison": 1,
        "cell": 1,
    }


def test_P1_the_evening_of_a_day_not_closed_is_not_there() -> None:
    """An evening post needs its close: ``pbp post --which evening`` says so."""
    game = Game()
    with pytest.raises(LookupError):
        maniac.post_view("evening", game.events, 1)
    with pytest.raises(LookupError, match="night 1 has not ended"):
        maniac.post_view("morning", game.events, 1)


# --- M12 ---


def test_M12_a_player_the_gm_removed_is_not_among_the_winners_nor_refused_as_dead() -> None:
    """The GM removes Маша, a civilian: she may not vote and may not be voted for or
    ordered killed, each refusal saying she was removed (not that she is dead); when
    the town wins, ``game_over`` lists its players without her."""
    game = Game()
    step = maniac.remove(game.state, "Маша", game._tick())
    game._take(step.state, list(step.events))
    assert game.refused("Маша", Vote("Коля")) == ("removed_from_game", {"player": "Маша"})
    allowed = [p for p in NAMES[:12] if p not in ("Вася", "Маша")]
    assert game.refused("Вася", Vote("Маша")) == (
        "target_removed",
        {"target": "Маша", "players": allowed},
    )
    assert game.refused("Коля", Kill(("Маша",))) == (
        "target_removed",
        {"target": "Маша", "players": [p for p in NAMES[:12] if p not in ("Коля", "Маша")]},
    )
    game.vote("Вася→Коля")
    game.close()
    game.end()
    game.vote("Вася→Коля")
    over = game.close()[-1]
    assert over.kind == "game_over"
    town = [p for p, r in roles_for(12).items() if r in ("civilian", "duty_officer")]
    assert over.data["winners"] == [p for p in town if p != "Маша"]
    assert "Маша" in town
    data = cast(GameOver, over.data)
    assert maniac.player_outcome(data, "Маша", game.state.left) == "removed"
    assert maniac.player_outcome(data, "Вася", game.state.left) == "won"
    assert maniac.player_outcome(data, "Коля", game.state.left) == "lost"


def test_M12_the_town_wins_at_the_close_that_sends_the_maniac_to_prison() -> None:
    game = Game()
    game.vote("Вася→Коля")
    game.close()
    game.end()
    game.vote("Вася→Коля", "Петя→Таня")
    closed = game.close()
    roles = roles_for(12)
    assert flat(closed) == [
        public(
            "day_closed",
            {
                "day": 2,
                "counts": [
                    {
                        "player": "Коля",
                        "votes": 1,
                        "prison_votes": 0,
                        "voters": ["Вася"],
                        "prison_voters": [],
                    },
                    {
                        "player": "Таня",
                        "votes": 1,
                        "prison_votes": 0,
                        "voters": ["Петя"],
                        "prison_voters": [],
                    },
                ],
                "not_voted": [p for p in NAMES[:12] if p not in ("Вася", "Петя")],
                "to_cell": None,
                "to_prison": "Коля",
                "prison_reason": "second_night",
                "tie_broken_by": {
                    "tied": ["Коля", "Таня"],
                    "voter": "Вася",
                    "at": closed_vote(game),
                },
                "vote_split": None,
                "closed_at": game.stamp,
            },
        ),
        public(
            "game_over",
            {
                "winner_team": "town",
                "winners": [p for p in NAMES[:12] if p not in ("Коля", "Лена")],
                "roles": roles,
                "canonical": canonical_deal("seed-002", SALT, {"roles": roles}),
            },
        ),
    ]
    assert maniac.is_over(game.state)
    assert game.refused("Вася", Vote("Петя")) == ("game_ended", {"winner_team": "town"})
    assert maniac.close_day(game.state, game.clock).events == []
    assert maniac.duties(game.state, "Вася") is None


def closed_vote(game: Game) -> str:
    """The time of the first standing vote of the day just closed (Вася→Коля)."""
    ballots = [b for b in game.state.ballots if b.day == game.state.day]
    return ballots[0].at


def test_M12_the_maniac_team_wins_at_a_morning_with_one_town_player_left_without_a_fan() -> None:
    game = Game(8)
    game.order("Вася")
    game.order("Петя")
    game.vote("Таня→Оля")
    game.close()
    game.end()  # Вася dies; Оля released
    game.order("Таня")
    game.vote("Таня→Оля")
    game.close()  # Оля to prison
    game.end()  # Петя dies: town free = Таня, Саша, Маша, Дима
    game.order(night=4)
    game.vote("Саша→Маша")
    game.close()
    game.end()  # Таня dies: Саша, Маша, Дима
    game.order("Саша", night=5)
    game.vote("Саша→Маша")
    game.close()  # Маша to prison: Саша, Дима
    ended = game.end()  # night 4 skipped: two town players left, no fan: the game goes on
    assert [e.kind for e in ended] == ["night_resolution", "night_ended"]
    assert not maniac.is_over(game.state)
    game.close()
    ended = game.end()  # Саша dies: Дима alone
    assert flat(ended)[1:] == [
        morning(5, ["Саша"], None, game),
        public(
            "game_over",
            {
                "winner_team": "maniac",
                "winners": ["Коля"],
                "roles": roles_for(8),
                "canonical": canonical_deal("seed-002", SALT, {"roles": roles_for(8)}),
            },
        ),
    ]
    assert game.refused("Коля", Skip()) == ("game_ended", {"winner_team": "maniac"})
    assert maniac.end_night(game.state, game.clock).events == []


def test_M12_the_maniac_team_wins_with_two_town_players_left_while_the_fan_is_free() -> None:
    game = Game(10)  # town: Вася, Петя, Таня, Оля, Саша, Маша, Дима, Игорь
    game.order("Вася")
    game.order("Петя")
    game.vote("Таня→Оля")
    game.close()
    game.end()
    game.order("Таня")
    game.vote("Таня→Оля")
    game.close()  # Оля to prison
    game.end()  # Петя dies: Таня, Саша, Маша, Дима, Игорь
    game.order("Саша", night=4)
    game.vote("Саша→Маша")
    game.close()
    game.end()  # Таня dies: Саша, Маша, Дима, Игорь
    assert not maniac.is_over(game.state)
    game.vote("Саша→Маша")
    game.close()  # Маша to prison: Саша, Дима, Игорь
    ended = game.end()  # Саша dies: Дима and Игорь, the fan Лена free
    assert flat(ended)[-1] == public(
        "game_over",
        {
            "winner_team": "maniac",
            "winners": ["Коля", "Лена"],
            "roles": roles_for(10),
            "canonical": canonical_deal("seed-002", SALT, {"roles": roles_for(10)}),
        },
    )


# --- hidden information (M6, M8) ---


def _night_with(order: tuple[str, ...] | None, cell: str) -> Game:
    game = Game()
    if order is not None:
        game.order(*order)
    game.vote(f"Вася→{cell}")
    game.close()
    game.end()
    return game


def _roles_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value in maniac.ROLES else []
    if isinstance(value, dict):
        return [r for v in value.values() for r in _roles_in(v)]
    if isinstance(value, list):
        return [r for v in value for r in _roles_in(v)]
    return []


def test_hidden_information_no_public_role_nor_reason_for_a_quiet_night() -> None:
    # a skip, a miss and a blocked attempt on the prisoner of the cell: the same morning
    skip, miss, blocked = (
        _night_with((), "Таня"),
        _night_with(None, "Таня"),
        _night_with(("Таня",), "Таня"),
    )
    outcomes = []
    for game in (skip, miss, blocked):
        night = [e for e in game.events if e.kind in ("night_resolution", "night_ended")]
        outcomes.append(night[0].data["outcome"])
        assert flat(night[1:]) == [morning(1, [], "Таня", game)]
        for player in NAMES[:12]:
            if player != "Коля":
                assert maniac.status(game.state, player) == maniac.status(skip.state, player)
                assert maniac.duties(game.state, player) == maniac.duties(skip.state, player)
        after_start = game.events[len(NAMES[:12]) + 2 :]
        private = {e.player for e in after_start if e.player is not None}
        assert private == {"Коля"}  # nobody else, the duty officer included, hears a thing
    assert outcomes == ["skip", "miss", "kill"]
    # the maniac in the cell: void, the same morning again
    void = _night_with(("Вася",), "Коля")
    night = [e for e in void.events if e.kind in ("night_resolution", "night_ended")]
    assert night[0].data["outcome"] == "void"
    assert flat(night[1:]) == [morning(1, [], "Коля", void)]
    # no public event names a role before game_over
    game = Game()
    game.order("Вася", "Петя")
    game.order("Таня")
    game.vote("Вася→Лена", "Петя→Коля", "Оля→Лена")
    game.close()
    game.end()
    game.vote("Оля→Коля")
    game.close()
    game.end()
    game.vote("Оля→Коля")
    game.close()
    shown = [(e.kind, _roles_in(dict(e.data))) for e in game.events if e.visibility == "public"]
    assert [kind for kind, roles in shown if roles] == ["game_over"]
    assert shown[-1][0] == "game_over"
    keys = {k for e in game.events[:-1] if e.visibility == "public" for k in e.data}
    assert keys == {
        *("game", "day", "players", "commitment", "fan", "skips", "double_kill"),
        *("casts_per_target", "started_at", "voter", "target", "prison", "cast_no", "at"),
        *("counts", "not_voted", "to_cell", "to_prison", "prison_reason", "tie_broken_by"),
        "vote_split",
        *("closed_at", "night", "dead", "released", "ended_at"),
    }


# --- views and storage ---


def test_status_gm_view_and_duties_of_the_maniac() -> None:
    game = Game()
    assert maniac.duties(game.state, "Коля") == {
        "day": 1,
        "phase": "day",
        "vote": True,
        "orders_due": [1, 2],
        "fixed_by": NIGHT_1_END,
        "fixed_later": True,  # M3: day 1's close does not fix them
    }
    game.order("Вася")
    status = maniac.status(game.state, "Коля")
    assert {k: status[k] for k in ("role", "partner", "open_nights", "skips_left")} == {
        "role": "maniac",
        "partner": "Лена",
        "open_nights": [1, 2],
        "skips_left": 4,
    }
    assert status["double_kill"] == double_kill("available")
    assert "orders" not in maniac.status(game.state, "Лена")
    assert maniac.status(game.state, "Лена")["partner"] == "Коля"
    assert maniac.status(game.state, "Дима")["partner"] is None
    game.vote("Коля→Вася")
    assert maniac.duties(game.state, "Коля") == {
        "day": 1,
        "phase": "day",
        "vote": False,
        "orders_due": [2],
        "fixed_by": NIGHT_1_END,
        "fixed_later": True,
    }
    game.close()
    # M3: during night 1 the order for night 2 is still owed (until night 1 ends)
    assert maniac.duties(game.state, "Коля") == {
        "day": 1,
        "phase": "night",
        "vote": False,
        "orders_due": [2],
        "fixed_by": NIGHT_1_END,
        "fixed_later": False,  # the end of night 1 is the deadline reminded of
    }
    assert maniac.status(game.state, "Коля")["casts_left"] == {}
    view = maniac.gm_view(game.state)
    assert view["players"][0] == {
        "name": "Вася",
        "character": None,
        "role": "civilian",
        "alive": True,
        "in_prison": False,
        "in_cell": True,
        "cell_nights": [1],
        "killed_night": None,
        "left": False,
    }
    assert (view["phase"], view["skip_limit"], view["skips_used"]) == ("night", 4, 0)
    assert view["commitment"] == commitment(view["canonical"])
    assert (view["orders"][0]["fixed"], view["double_kill_allowed"]) == (False, True)
    game.order("Петя")
    game.end()
    assert maniac.duties(game.state, "Коля") == {
        "day": 2,
        "phase": "day",
        "vote": True,
        "orders_due": [3],
        "fixed_by": {"phase": "day", "number": 2},
        "fixed_later": False,
    }
    assert [o["fixed"] for o in maniac.gm_view(game.state)["orders"]] == [True, True]
    game.close()
    assert maniac.duties(game.state, "Коля") is None  # during a later night nothing is due
    with pytest.raises(KeyError):
        maniac.status(game.state, "Моро")


def test_naive_times_are_refused() -> None:
    game = Game()
    naive = datetime(2026, 12, 1, 12, 0)
    with pytest.raises(ValueError, match="rule D8"):
        maniac.apply(game.state, "Вася", Vote("Петя"), naive)
    with pytest.raises(ValueError, match="rule D8"):
        maniac.close_day(game.state, naive)
    with pytest.raises(ValueError, match="salt"):
        maniac.start(setup_for(8), 7, b"", T0)


# --- every refusal has a player-facing text in both locales ---

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def refusals() -> dict[str, IllegalMove | InvalidMove]:
    """One real refusal per error code the Maniac engine raises."""
    found: dict[str, IllegalMove | InvalidMove] = {}

    def take(game: Game, player: str, move: ManiacMove) -> None:
        with pytest.raises((IllegalMove, InvalidMove)) as caught:
            maniac.apply(game.state, player, move, game.clock)
        error = caught.value
        assert isinstance(error, IllegalMove | InvalidMove)
        found[error.code] = error

    game = Game()
    take(game, "Моро", Vote("Петя"))  # not_a_player
    take(game, "Вася", Vote("Вася"))  # self_vote
    take(game, "Вася", Unvote())  # no_vote
    take(game, "Вася", Vote("Петя", prison=True))  # never_in_cell
    take(game, "Вася", Skip())  # not_the_maniac
    take(game, "Коля", Kill(("Коля",)))  # self_target
    take(game, "Коля", Kill(("Вася",), 5))  # night_not_open
    take(game, "Коля", Kill(("Вася", "Вася")))  # same_target_twice
    game.order("Вася", "Петя")
    take(game, "Коля", Kill(("Таня", "Оля"), 2))  # double_kill_used
    game.order(night=2)
    take(game, "Коля", Skip(1))  # skip_in_a_row
    take(game, "Коля", Skip())  # all_nights_ordered
    game.vote("Таня→Оля", "Таня→Петя", "Таня→Оля")
    take(game, "Таня", Vote("Оля"))  # vote_limit
    game.close()
    take(game, "Таня", Vote("Оля"))  # voting_closed
    game.end()
    take(game, "Вася", Vote("Оля"))  # player_dead
    take(game, "Таня", Vote("Вася"))  # target_dead
    game.vote("Таня→Оля")
    game.close()
    take(game, "Коля", Kill(("Таня",)))  # orders_closed
    game.end()
    take(game, "Оля", Vote("Таня"))  # player_in_prison
    take(game, "Таня", Vote("Оля"))  # target_in_prison
    small = Game(8)
    take(small, "Коля", Kill(("Вася", "Петя")))  # double_kill_unavailable
    small.order()
    small.order("Вася")
    small.close()
    small.end()
    small.order(night=3)
    small.close()
    small.end()
    small.close()
    small.end()
    take(small, "Коля", Skip(5))  # skip_limit
    small.vote("Петя→Коля")
    small.close()
    small.end()
    small.vote("Петя→Коля")
    small.close()
    take(small, "Петя", Vote("Таня"))  # game_ended
    return found


def render(locale: str, error: IllegalMove | InvalidMove) -> str:
    """The refusal's text as players get it (``templates/maniac/errors/<code>.txt``, else
    ``templates/errors/<code>.txt``)."""
    return Renderer(TEMPLATES, kinds=KINDS).error(
        error.code, error.params, locale=locale, kind="maniac"
    )


def test_every_engine_refusal_has_a_template_in_ru_and_en() -> None:
    found = refusals()
    assert sorted(found) == [
        "all_nights_ordered",
        "double_kill_unavailable",
        "double_kill_used",
        "game_ended",
        "never_in_cell",
        "night_not_open",
        "no_vote",
        "not_a_player",
        "not_the_maniac",
        "orders_closed",
        "player_dead",
        "player_in_prison",
        "same_target_twice",
        "self_target",
        "self_vote",
        "skip_in_a_row",
        "skip_limit",
        "target_dead",
        "target_in_prison",
        "vote_limit",
        "voting_closed",
    ]
    for locale in ("ru", "en"):
        for error in found.values():
            text = render(locale, error)
            assert text.strip() and "{" not in text, (locale, error.code, text)


@pytest.mark.parametrize(
    ("code", "locale", "text"),
    [
        (
            "vote_limit",
            "en",
            "You have already voted for Оля 2 times on day 1, the most allowed for one player "
            "in one day (cell and prison votes alike). Vote for another player, or UNVOTE.",
        ),
        (
            "vote_limit",
            "ru",
            "За Олю в день 1 вы уже голосовали максимальное число раз (2): больше за "
            "одного игрока в один день нельзя (голоса за камеру и за тюрьму считаются вместе). "
            "Проголосуйте за другого игрока или снимите голос: СНЯТЬ ГОЛОС.",
        ),
        (
            "skip_in_a_row",
            "en",
            "Night 2 already has a skip order, and two skips in a row are not allowed, so "
            "night 1 cannot be skipped. Order a kill for night 1: KILL <player> NIGHT 1.",
        ),
        (
            "never_in_cell",
            "ru",
            "Петя ещё ни одной ночи не провёл в камере, поэтому голос за тюрьму не "
            "принимается; ГОЛОС Петя — голос за камеру. Из тех, за кого можно голосовать, "
            "в камере пока никто не сидел.",
        ),
        (
            "night_not_open",
            "en",
            "The order for night 5 cannot be placed or changed now. The orders for nights 1 "
            "and 2 are given on day 1 or during night 1 and may be changed until night 1 "
            "ends; on every later day the order is for the night after next and may be "
            "changed until that day closes. Open now: nights 1 and 2, e.g. KILL <player> "
            "NIGHT 1.",
        ),
        (
            "night_not_open",
            "ru",
            "Заказ на ночь 5 сейчас нельзя сделать или изменить. Заказы на ночи 1 и 2 делают "
            "в день 1 или в ночь 1 и могут менять, пока ночь 1 не закончится; дальше в каждый "
            "день заказывают ночь со следующим номером (в день 2 — ночь 3 и т. д.), и этот "
            "заказ можно менять до закрытия дня. Сейчас открыты ночи 1 и 2, например: "
            "УБИТЬ <игрок> НОЧЬ 1.",
        ),
        (
            "not_the_maniac",
            "ru",
            "Заказы на убийство и пропуски (УБИТЬ, ПРОПУСК) делает только маньяк. Вы можете "
            "голосовать: ГОЛОС <игрок>.",
        ),
    ],
)
def test_refusal_texts_say_what_was_wrong_and_what_is_accepted(
    code: str, locale: str, text: str
) -> None:
    assert render(locale, refusals()[code]) == text


#: The first sentence of ``night_not_open``, before the open nights.
NOT_OPEN = {
    "en": "The order for night {night} cannot be placed or changed now. The orders for nights "
    "1 and 2 are given on day 1 or during night 1 and may be changed until night 1 ends; on "
    "every later day the order is for the night after next and may be changed until that "
    "day closes. ",
    "ru": "Заказ на ночь {night} сейчас нельзя сделать или изменить. Заказы на ночи 1 и 2 "
    "делают в день 1 или в ночь 1 и могут менять, пока ночь 1 не закончится; дальше в "
    "каждый день заказывают ночь со следующим номером (в день 2 — ночь 3 и т. д.), и этот "
    "заказ можно менять до закрытия дня. ",
}


@pytest.mark.parametrize(
    ("error", "locale", "text"),
    [
        (
            IllegalMove("night_not_open", night=1, open=[3]),
            "en",
            "Open now: night 3, e.g. KILL <player> NIGHT 3.",
        ),
        (
            IllegalMove("night_not_open", night=1, open=[3]),
            "ru",
            "Сейчас открыта ночь 3, например: УБИТЬ <игрок> НОЧЬ 3.",
        ),
        (
            IllegalMove("night_not_open", night=5, open=[1, 2, 3]),
            "en",
            "Open now: nights 1, 2 and 3, e.g. KILL <player> NIGHT 1.",
        ),
        (
            IllegalMove("night_not_open", night=5, open=[1, 2, 3]),
            "ru",
            "Сейчас открыты ночи 1, 2 и 3, например: УБИТЬ <игрок> НОЧЬ 1.",
        ),
        (IllegalMove("night_not_open", night=5, open=[]), "en", "No night is open now."),
        (
            IllegalMove("all_nights_ordered", open=[4]),
            "en",
            "Every open night already has an order (night 4). To change one, name its night: "
            "KILL <player> NIGHT 4 or SKIP NIGHT 4.",
        ),
        (
            IllegalMove("all_nights_ordered", open=[4]),
            "ru",
            "На каждую открытую ночь (ночь 4) заказ уже есть. Чтобы изменить заказ, укажите "
            "ночь: УБИТЬ <игрок> НОЧЬ 4 или ПРОПУСК НОЧЬ 4.",
        ),
        (
            IllegalMove("all_nights_ordered", open=[1, 2]),
            "en",
            "Every open night already has an order (nights 1 and 2). To change one, name its "
            "night: KILL <player> NIGHT 1 or SKIP NIGHT 1.",
        ),
        (
            IllegalMove("all_nights_ordered", open=[1, 2]),
            "ru",
            "На каждую открытую ночь (ночи 1 и 2) заказ уже есть. Чтобы изменить заказ, "
            "укажите ночь: УБИТЬ <игрок> НОЧЬ 1 или ПРОПУСК НОЧЬ 1.",
        ),
    ],
    ids=[
        "one-en",
        "one-ru",
        "three-en",
        "three-ru",
        "none",
        "o-one-en",
        "o-one-ru",
        "o-two-en",
        "o-two-ru",
    ],
)
def test_M3_the_open_nights_are_one_night_or_a_list_joined_by_and(
    error: IllegalMove, locale: str, text: str
) -> None:
    """M3: the open nights of ``night_not_open`` and ``all_nights_ordered`` in words, one
    night or several joined by the catalog's "and", the plural chosen by the count."""
    first = NOT_OPEN[locale].format(night=error.params["night"]) if "night" in error.params else ""
    assert render(locale, error) == first + text
