"""A Maniac night's resolution (rules M6–M8, M12, M3 of RULES.md): the maniac's order
carried out or void, the duty officer's protection, the kills (one or the double kill
of M5), the fan in the cell, the morning. Pure; the event shapes are in
:mod:`pbp.games.maniac.engine`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pbp.games.core.events import Event, Step, Visibility, utc_iso
from pbp.games.maniac.orders import orders_fixed
from pbp.games.maniac.shapes import NightEnded, NightResolution, NightTarget
from pbp.games.maniac.state import ManiacState, Order, nights_fixed_at, order_for
from pbp.games.maniac.wins import game_over, maniac_team_wins


def end_night(state: ManiacState, at: datetime) -> Step[ManiacState]:
    """Resolve night *d* at ``at`` (aware) and open day *d + 1*: M6, M7, M8, M12.

    M6: with the maniac in the cell (or prison) his order is void (a voided skip or
    double kill is not used up, M4, M5); otherwise each target dies unless he is in
    the cell or prison while the duty officer is alive and in neither (a target
    already dead: nobody dies by it). The night is simultaneous: the duty officer's
    protection is judged on his state at the start of the night, so he guards the
    cell on the night he himself is killed (a double kill of him and the player in
    the cell kills him alone). M7: a fan in the cell or prison dies. M8: the cell's survivor is
    released. Events: at the end of night 1, unless the game ends, PLAYER
    ``order_fixed`` to the maniac for night 2 (M3: the orders for nights 1 and 2 may
    be changed until night 1 ends; night 1's is carried out, not announced as
    fixed); GM ``night_resolution`` (what happened and why), PUBLIC ``night_ended``
    (the dead by name only, seating order), then PUBLIC ``game_over`` when the
    maniac's team wins (M12). A finished game or a day is left as it is (no events).

    :raises ValueError: ``at`` is naive.
    """
    ended_at = utc_iso(at)
    if state.over or state.phase != "night":
        return Step(state, [])
    night = state.day
    kills = _carry_out(state, order_for(state, night))
    fan_in_cell = _fan_in_cell(state)
    dying = kills.killed | ({fan_in_cell} if fan_in_cell is not None else set())
    dead = [p for p in state.names if p in dying]
    new = dataclasses.replace(
        state,
        orders=kills.orders,
        deaths=(*state.deaths, *((night, p) for p in dead)),
        day=night + 1,
        phase="day",
    )
    morning: NightEnded = {
        "night": night,
        "dead": dead,
        "released": _released(state, dying),
        "day": night + 1,
        "ended_at": ended_at,
    }
    events = [
        Event("night_resolution", Visibility.GM, _resolution(state, kills, fan_in_cell, dead)),
        Event("night_ended", Visibility.PUBLIC, morning),
    ]
    if maniac_team_wins(new):  # M12
        new = dataclasses.replace(new, over=True, winner_team="maniac")
        events.append(game_over(new))
    else:  # M3: the end of night 1 fixes the order for night 2 (night 1's is carried out)
        fixed = [n for n in nights_fixed_at("night", night) if n > night]
        events[:0] = orders_fixed(new, fixed)
    return Step(new, events)


@dataclass(frozen=True)
class _Kills:
    """What the maniac's order did on one night (M6): ``order`` (None: a miss, M3),
    ``outcome`` (``"void"`` | ``"miss"`` | ``"skip"`` | ``"kill"``), ``targets``
    ``[{player, result: "killed" | "blocked" | "already_dead"}]`` in the order's
    order, ``killed`` (who dies by it), ``orders`` (the game's orders, this night's
    marked voided when void), ``guards`` (the duty officer guards the cell)."""

    order: Order | None
    outcome: Literal["void", "miss", "skip", "kill"]
    targets: list[NightTarget]
    killed: frozenset[str]
    orders: tuple[Order, ...]
    guards: bool


def _held(state: ManiacState, player: str) -> bool:
    """M6: ``player`` spends this night in the cell or in prison."""
    return player == state.cell or state.in_prison(player)


def _guards(state: ManiacState) -> bool:
    """M6: the duty officer guards the cell and prison tonight: he is alive and in
    neither. A night's events are simultaneous, so this is judged once, on his state
    at the start of the night: killed by this very order (a double kill naming him
    and the player in the cell, in either order) he still guards the cell; a kill of
    him alone while someone sits in the cell kills him."""
    guard = state.holder("duty_officer")
    return guard is not None and state.alive(guard) and not _held(state, guard)


def _carry_out(state: ManiacState, order: Order | None) -> _Kills:
    """M6: the order for night ``state.day`` carried out — void when the maniac is held
    (a voided skip or double kill is not used up, M4, M5), a miss without an order
    (M3), a skip (M4), or each target resolved on its own (one, or two by M5)."""
    guards = _guards(state)
    if order is None:
        return _Kills(None, "miss", [], frozenset(), state.orders, guards)
    if _held(state, state.maniac):
        voided = dataclasses.replace(order, voided=True)
        orders = tuple(voided if o.night == order.night else o for o in state.orders)
        return _Kills(order, "void", [], frozenset(), orders, guards)
    if order.skip:
        return _Kills(order, "skip", [], frozenset(), state.orders, guards)
    targets: list[NightTarget] = [
        {"player": t, "result": _target_result(state, t, guards)} for t in order.targets
    ]
    killed = frozenset(t["player"] for t in targets if t["result"] == "killed")
    return _Kills(order, "kill", targets, killed, state.orders, guards)


def _target_result(
    state: ManiacState, target: str, guards: bool
) -> Literal["killed", "blocked", "already_dead"]:
    """M6: one target of a kill order — ``"already_dead"`` (nobody dies by it),
    ``"blocked"`` (held while the duty officer ``guards``) or ``"killed"``."""
    if not state.alive(target):
        return "already_dead"
    if _held(state, target) and guards:
        return "blocked"
    return "killed"


def _fan_in_cell(state: ManiacState) -> str | None:
    """M7: the fan, alive and in the cell or prison tonight (he dies there, whatever the
    duty officer), or None."""
    fan = state.holder("fan")
    return fan if fan is not None and state.alive(fan) and _held(state, fan) else None


def _released(state: ManiacState, dying: frozenset[str]) -> str | None:
    """M8: the cell's survivor, released in the morning; None when the cell was empty
    or its occupant dies tonight (or the GM removed him meanwhile: gone already)."""
    cell = state.cell
    return cell if cell is not None and cell not in dying and state.alive(cell) else None


def _resolution(
    state: ManiacState, kills: _Kills, fan_in_cell: str | None, dead: list[str]
) -> NightResolution:
    """The GM's ``night_resolution`` data: what happened tonight and why (M6, M7)."""
    order = kills.order
    return {
        "night": state.day,
        "order": None if order is None else {"targets": list(order.targets), "skip": order.skip},
        "maniac_in_cell": _held(state, state.maniac),
        "duty_officer_guards": kills.guards,
        "outcome": kills.outcome,
        "targets": kills.targets,
        "fan_in_cell": fan_in_cell,
        "dead": dead,
        "skip_restored": kills.outcome == "void" and order is not None and order.skip,
    }
