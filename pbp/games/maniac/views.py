"""The views of a Maniac game (rules M1–M12 of RULES.md): a player's ``STATUS``
answer, what his reminder says, and everything the GM sees. Pure; re-exported by
:mod:`pbp.games.maniac.engine`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pbp.core.events import flat_dict
from pbp.fairness import commitment
from pbp.games.maniac.state import (
    ManiacState,
    casts,
    double_kill_allowed,
    double_kill_night,
    fixed_by,
    is_fixed,
    nights_due,
    open_nights,
    order_for,
    skip_limit,
    skips_used,
    standing_votes,
    vote_count,
    vote_targets,
)


def _orders_view(state: ManiacState) -> list[dict[str, Any]]:
    return [
        {**o.as_json(), "fixed": is_fixed(state, o.night), "fixed_by": fixed_by(o.night)}
        for o in state.orders
    ]


def status(state: ManiacState, player: str) -> dict[str, Any]:
    """The private ``STATUS`` answer of ``player``.

    Everyone: ``{"game", "day", "phase", "over", "winner_team", "role", "partner"
    (the maniac's fan / the fan's maniac, else None, M1), "alive", "in_prison",
    "my_vote": {"target", "prison"} | None, "votes": vote_count(state),
    "casts_left": {player: n} (today, for each player he may vote for; {} when he
    cannot vote now, M9), "prison_vote_for": [player...] (M11), "in_cell": player |
    None, "prisoners": [...], "dead": [...]}``. The maniac also gets ``"orders":
    [{"night", "targets", "skip", "at", "voided", "fixed", "fixed_by": {"phase",
    "number"} (M3, :func:`fixed_by`)}], "open_nights": [n...],
    "skips_left": n`` (M4) and ``"double_kill_available": bool`` (M5). Nothing here
    tells why a night passed without a death (M6).

    :raises KeyError: ``player`` is not in the game.
    """
    role = state.role_of(player)
    partner = None
    if role == "maniac":
        partner = state.holder("fan")
    elif role == "fan":
        partner = state.maniac
    can_vote = not state.over and state.phase == "day" and state.free(player)
    mine = next((b for _, b in standing_votes(state) if b.voter == player), None)
    limit = state.rules.casts_per_target
    targets = vote_targets(state, player) if can_vote else []
    view: dict[str, Any] = {
        "game": state.game_id,
        "day": state.day,
        "phase": state.phase,
        "over": state.over,
        "winner_team": state.winner_team,
        "role": role,
        "partner": partner,
        "alive": state.alive(player),
        "in_prison": state.in_prison(player),
        "my_vote": None if mine is None else {"target": mine.target, "prison": mine.prison},
        "votes": vote_count(state),
        "casts_left": {t: max(0, limit - casts(state, player, t)) for t in targets},
        "prison_vote_for": [t for t in targets if state.was_in_cell(t)],
        "in_cell": state.cell,
        "prisoners": [p for _, p in state.imprisoned],
        "dead": [p for _, p in state.deaths],
    }
    if role == "maniac":
        used = double_kill_night(state)
        view.update(
            orders=_orders_view(state),
            open_nights=open_nights(state),
            skips_left=max(0, skip_limit(state) - skips_used(state)),
            double_kill_available=double_kill_allowed(state) and used is None,
        )
    return view


def duties(state: ManiacState, player: str) -> dict[str, Any] | None:
    """What a reminder says, or None when ``player`` owes nothing now.

    ``{"day": d, "phase": "day" | "night", "vote": bool (during a day: he may vote
    and has no standing vote, M9), "orders_due": [night...] (the maniac only: the
    nights of :func:`nights_due` without an order, M3), "fixed_by": {"phase",
    "number"} | None (the deadline that fixes those orders, :func:`fixed_by`; None
    without orders due)}``; None when both are empty and once the game is over.
    During night 1 the maniac may still owe the orders for nights 1 and 2 (M3); a
    later night owes nothing.

    :raises KeyError: ``player`` is not in the game.
    """
    role = state.role_of(player)
    if state.over:
        return None
    vote = (
        state.phase == "day"
        and state.free(player)
        and all(b.voter != player for _, b in standing_votes(state))
    )
    due: list[int] = []
    if role == "maniac":
        due = [n for n in nights_due(state) if order_for(state, n) is None]
    if not vote and not due:
        return None
    return {
        "day": state.day,
        "phase": state.phase,
        "vote": vote,
        "orders_due": due,
        "fixed_by": fixed_by(due[0]) if due else None,
    }


def gm_view(state: ManiacState) -> dict[str, Any]:
    """Everything the GM sees (``pbp show``).

    ``{"game", "day", "phase", "over", "winner_team", "seed", "rules": {...},
    "started_at", "players": [{"name", "character", "role", "alive", "in_prison",
    "in_cell": bool, "cell_nights": [n...]}], "orders": [{"night", "targets", "skip",
    "at", "voided", "fixed", "fixed_by"}], "open_nights": [n...], "skips_used",
    "skip_limit", "double_kill_allowed": bool (M5: enough players at the start),
    "double_kill_night": n | None (M5, not voided), "votes": vote_count(state),
    "ballots": [{"day",
    "voter", "target", "prison", "at"}], "deaths": [{"night", "player"}],
    "imprisoned": [{"day", "player"}], "commitment": hex, "canonical": str}``.
    """
    return {
        "game": state.game_id,
        "day": state.day,
        "phase": state.phase,
        "over": state.over,
        "winner_team": state.winner_team,
        "seed": state.seed,
        "rules": dataclasses.asdict(state.rules),
        "started_at": state.started_at,
        "players": [
            {
                "name": p,
                "character": ch,
                "role": state.role_of(p),
                "alive": state.alive(p),
                "in_prison": state.in_prison(p),
                "in_cell": state.cell == p,
                "cell_nights": [n for n, q in state.cell_nights if q == p],
            }
            for p, ch in state.players
        ],
        "orders": _orders_view(state),
        "open_nights": open_nights(state),
        "skips_used": skips_used(state),
        "skip_limit": skip_limit(state),
        "double_kill_allowed": double_kill_allowed(state),
        "double_kill_night": double_kill_night(state),
        "votes": vote_count(state),
        "ballots": [flat_dict(b) for b in state.ballots],
        "deaths": [{"night": n, "player": p} for n, p in state.deaths],
        "imprisoned": [{"day": d, "player": p} for d, p in state.imprisoned],
        "commitment": commitment(state.canonical),
        "canonical": state.canonical,
    }
