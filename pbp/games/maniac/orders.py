"""The maniac's kill orders (rules M3–M5 of RULES.md): placing or changing one, and
fixing them at their deadlines. Pure; carried out at the night's end by
:mod:`pbp.games.maniac.night`.
"""

from __future__ import annotations

import dataclasses

from pbp.games.core.events import Event, IllegalMove, InvalidMove, Step, Visibility
from pbp.games.maniac.moves import Kill, Skip
from pbp.games.maniac.shapes import OrderFixed
from pbp.games.maniac.state import (
    ManiacState,
    Order,
    check_named,
    double_kill_allowed,
    double_kill_night,
    fixed_by,
    open_nights,
    order_for,
    order_targets,
    skip_limit,
)


def place_order(state: ManiacState, player: str, move: Kill | Skip, at: str) -> Step[ManiacState]:
    """M3–M5: ``player`` places or changes the order for one open night at ``at`` (ISO
    UTC). Checked in this order: the sender is the maniac (first, so that no refusal
    tells a non-maniac who the maniac is), the targets (M3), the night (M3), a skip's
    limits (M4), a double kill's (M5). PLAYER ``order_placed`` {night, targets, skip,
    changed, fixed_by, at} to the maniac.

    :raises IllegalMove: ``not_the_maniac``; ``self_target``, ``not_a_player``,
        ``target_dead``, ``orders_closed``, ``night_not_open``, ``all_nights_ordered``
        (M3);
        ``skip_in_a_row``, ``skip_limit`` (M4); ``double_kill_unavailable``,
        ``double_kill_used`` (M5).
    :raises InvalidMove: ``same_target_twice``.
    """
    if state.role_of(player) != "maniac":  # first: nothing else may leak a role
        raise IllegalMove("not_the_maniac")
    targets = move.targets if isinstance(move, Kill) else ()
    _check_targets(state, player, targets)
    night = night_of(state, move.night)
    others = [o for o in state.orders if o.night != night]
    if not targets:
        _check_skip(state, night, others)
    if len(targets) == 2:
        _check_double_kill(state, others)
    changed = order_for(state, night) is not None
    order = Order(night, tuple(targets), at)
    new = dataclasses.replace(state, orders=tuple(sorted((*others, order), key=lambda o: o.night)))
    data = {
        "night": night,
        "targets": list(targets),
        "skip": not targets,
        "changed": changed,
        "fixed_by": fixed_by(night),
    }
    return Step(new, [Event("order_placed", Visibility.PLAYER, {**data, "at": at}, player=player)])


def _check_targets(state: ManiacState, maniac: str, targets: tuple[str, ...]) -> None:
    """M3: each target a living player other than the maniac; M5: two different ones.

    :raises IllegalMove: ``self_target``, ``not_a_player``, ``target_dead`` (the first
        bad target's). :raises InvalidMove: ``same_target_twice``.
    """
    allowed = order_targets(state)
    for target in targets:
        if target == maniac:
            raise IllegalMove("self_target", players=allowed)
        check_named(state, target, allowed)
    if len(targets) == 2 and targets[0] == targets[1]:
        raise InvalidMove("same_target_twice", target=targets[0])


def _check_skip(state: ManiacState, night: int, others: list[Order]) -> None:
    """M4: a skip for ``night`` given the orders for the ``others`` nights: never next to
    another skip, and at most :func:`skip_limit` not voided.

    :raises IllegalMove: ``skip_in_a_row`` {night, other}, ``skip_limit`` {limit, used}.
    """
    neighbour = next((o.night for o in others if o.skip and abs(o.night - night) == 1), None)
    if neighbour is not None:
        raise IllegalMove("skip_in_a_row", night=night, other=neighbour)
    used = sum(1 for o in others if o.skip and not o.voided)
    if used >= skip_limit(state):
        raise IllegalMove("skip_limit", limit=skip_limit(state), used=used)


def _check_double_kill(state: ManiacState, others: list[Order]) -> None:
    """M5: a double kill, given the orders for the other nights: only from
    ``rules.double_kill_from`` players, and once per game (a voided one is not used up).

    :raises IllegalMove: ``double_kill_unavailable`` {players, needed},
        ``double_kill_used`` {night}.
    """
    if not double_kill_allowed(state):
        raise IllegalMove(
            "double_kill_unavailable",
            players=len(state.players),
            needed=state.rules.double_kill_from,
        )
    taken = double_kill_night(state, others)  # a voided one is not used up (M5)
    if taken is not None:
        raise IllegalMove("double_kill_used", night=taken)


def night_of(state: ManiacState, night: int | None) -> int:
    """M3: the night an order is for: ``night`` when open, else the earliest open night
    without an order (:func:`~pbp.games.maniac.state.open_nights`: during night 1
    nights 1 and 2 are still open, so ``KILL X`` then is for night 1 when it has no
    order).

    :raises IllegalMove: ``orders_closed`` {night, day}: no night is open now (during
        a night after the first; the order for ``night`` is given on ``day``);
        ``night_not_open`` {night, open}, ``all_nights_ordered`` {open}.
    """
    nights = open_nights(state)
    if not nights:
        raise IllegalMove("orders_closed", night=state.day + 2, day=state.day + 1)
    if night is not None:
        if night not in nights:
            raise IllegalMove("night_not_open", night=night, open=nights)
        return night
    free = [n for n in nights if order_for(state, n) is None]
    if not free:
        raise IllegalMove("all_nights_ordered", open=nights)
    return free[0]


def orders_fixed(state: ManiacState, nights: list[int]) -> list[Event]:
    """M3: one PLAYER ``order_fixed`` {night, targets, skip, missing, fixed_by} to the
    maniac per night of ``nights``, in that order (``missing``: no order, a miss)."""
    events = []
    for night in nights:
        order = order_for(state, night)
        fixed: OrderFixed = {
            "night": night,
            "targets": [] if order is None else list(order.targets),
            "skip": order is not None and order.skip,
            "missing": order is None,
            "fixed_by": fixed_by(night),
        }
        events.append(Event("order_fixed", Visibility.PLAYER, fixed, player=state.maniac))
    return events
