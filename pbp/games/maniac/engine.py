"""Maniac, the day-vote / night-kill game (rules M1–M12 of RULES.md; seed 002). Pure engine.

API (module-level functions; ``state`` is :class:`ManiacState`; every ``at`` is an
aware datetime, stored as ISO 8601 in UTC):

- ``start(setup, seed, salt, at) -> Step`` — deal the roles (M1, seeded; or
  ``setup.roles``) and open day 1 (M2).
- ``apply(state, player, move, at) -> Step`` — one Vote / Unvote (M9, M11) or Kill /
  Skip (the maniac's orders, M3–M5) by ``player``, arrived at ``at`` (D8). Raises
  :class:`~pbp.core.events.IllegalMove` (rules) or ``InvalidMove``.
- ``close_day(state, at) -> Step`` — the vote result (M10, M11, M12), the order for
  night ``day + 1`` fixed from day 2 on (M3); night ``day`` begins.
- ``end_night(state, at) -> Step`` — the night resolved (M6, M7), the morning (M8,
  M12), after night 1 the order for night 2 fixed (M3); the next day opens.
- ``remove(state, player, at) -> Step`` — the GM removes a player: he leaves the
  game (role not revealed), votes by and on him are withdrawn, then M12.
- ``void_vote(state, voter, target, cast_at, at)``, ``void_order(state, night,
  placed_at, at)`` — the GM cancels a standing vote or an order not yet fixed.
- ``phase(state)``, ``day(state)``, ``open_nights(state)``, ``vote_count(state)`` —
  queries; ``status(state, player)``, ``duties(state, player)``, ``gm_view(state)`` —
  views.
- ``kind = "maniac"``; ``dump_state(state) -> dict`` / ``load_state(dict)``;
  ``is_over(state)``.

The shell must run every day close and night end that falls before a move's ``at``
before applying that move (D8: mail and closes in time order). ``Status``/``Help``
are answered by the shell from :func:`status` and never reach :func:`apply`.

Event catalogue (``Event.kind`` → ``data``); the templates rely on these shapes. All
times are ISO 8601 UTC. ``count`` stands for one candidate of :func:`vote_count`:
``{player, votes, prison_votes, voters: [name...], prison_voters: [name...]}``.

PUBLIC (never a role before ``game_over``, never why nobody died, M6, M8)
  game_started   {game: ID, day: 1, players: [{name, character}], commitment: hex sha256,
                  fan: bool (M1), skips: n (M4), double_kill: bool (M5),
                  casts_per_target: n (M9), started_at}
  vote_cast      {day, voter, target, prison: bool, cast_no: 1|2 (his casts on target
                  today, M9), at}
  vote_withdrawn {day, voter, target, prison, at}        # the vote withdrawn (UNVOTE)
  day_closed     {day, counts: [count...] (M10 order: the first is chosen), not_voted:
                  [name...], to_cell: name | None, to_prison: name | None,
                  prison_reason: "second_night" | "prison_votes" | None (M11),
                  tie_broken_by: {tied: [name...], voter, at} | None (M10: the earliest
                  standing vote among the tied), vote_split: {prison: n, cell: n} | None
                  (M11: the chosen player's standing prison and cell votes, set when
                  any of his standing votes asks for prison), closed_at}
  night_ended    {night, dead: [name...] (seating order, names only, M8), released:
                  name | None (the cell's survivor), day: the day that opens, ended_at}
  player_left    {player, day, phase}       # removed by the GM; never his role
  vote_voided    {day, voter, target, prison, at (of the vote), voided_at}   # by the GM
  game_over      {winner_team: "town" | "maniac" (M12), winners: [name...], roles:
                  {name: role}, canonical: str (fairness, DESIGN.md)}
PLAYER (Event.player is the only player who sees it; the GM sees it too)
  role_dealt     {role, character, partner: name | None}   # partner: the fan for the
                  # maniac, the maniac for the fan (M1); None for the town
  order_placed   {night, targets: [name...], skip: bool, changed: bool, fixed_by, at}
                  # the maniac; fixed_by: {phase: "day" | "night", number} — the close
                  # of that day or the end of that night fixes the order (M3)
  order_voided   {night, targets: [name...], skip: bool, fixed_by, voided_at}   # the maniac;
                  # by the GM (fixed_by: as in order_placed)
  order_fixed    {night, targets: [name...], skip: bool, missing: bool, fixed_by}
                  # the maniac, at the deadline fixed_by: the close of day night - 1,
                  # or for night 2 the end of night 1 (M3); missing: a miss
GM
  roles          {roles: {name: role}, seed, canonical}
  night_resolution {night, order: {targets, skip} | None, maniac_in_cell: bool,
                  duty_officer_guards: bool, outcome: "void" | "miss" | "skip" | "kill",
                  targets: [{player, result: "killed" | "blocked" | "already_dead"}],
                  fan_in_cell: name | None (M7), dead: [name...], skip_restored: bool}

Order of events: ``start`` → ``roles``, ``role_dealt`` × N, ``game_started``. A close →
``day_closed``, then ``game_over`` (town win, M12) or, from day 2 on, ``order_fixed``
for night ``day + 1``. A night end → (after night 1, unless the game ends there)
``order_fixed`` for night 2 (M3), ``night_resolution``, ``night_ended``, then
``game_over`` when the maniac's team wins (M12).

Refusals (``MoveError.code`` → ``params``; texts in ``templates/<locale>/errors/``):
game_ended {winner_team}; not_a_player {player, players}; player_dead {player} (M8);
player_in_prison {player} (M9); voting_closed {day, next_day}; self_vote {players};
target_dead {target, players}; target_in_prison {target, players}; never_in_cell
{target, players} (M11); vote_limit {target, limit, day} (M9); no_vote {day};
not_the_maniac {}; self_target {players} (M3); night_not_open {night, open} (M3);
all_nights_ordered {open} (M3); skip_in_a_row {night, other} / skip_limit {limit, used}
(M4); double_kill_unavailable {players, needed} / double_kill_used {night} (M5);
same_target_twice {target} (InvalidMove). ``players``: who may be named instead.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbp.core.events import Event, IllegalMove, InvalidMove, SetupError, Step, Visibility, utc_iso
from pbp.fairness import commitment
from pbp.games.maniac.state import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROLES,
    TOWN,
    Ballot,
    ManiacRules,
    ManiacSetup,
    ManiacState,
    Order,
    Phase,
    Role,
    casts,
    check_roles,
    day,
    deal_roles,
    double_kill_allowed,
    double_kill_night,
    dump_state,
    duties,
    fixed_by,
    gm_view,
    is_over,
    load_state,
    nights_fixed_at,
    open_nights,
    order_for,
    order_targets,
    phase,
    roles_deal,
    skip_limit,
    standing_votes,
    status,
    vote_count,
    vote_targets,
)

__all__ = [
    "ROLES",
    "Ballot",
    "Help",
    "Kill",
    "ManiacMove",
    "ManiacRules",
    "ManiacSetup",
    "ManiacState",
    "Order",
    "Phase",
    "Role",
    "Skip",
    "Status",
    "Unvote",
    "Vote",
    "apply",
    "close_day",
    "day",
    "dump_state",
    "duties",
    "end_night",
    "gm_view",
    "is_over",
    "kind",
    "load_state",
    "open_nights",
    "phase",
    "remove",
    "start",
    "status",
    "void_order",
    "void_vote",
    "vote_count",
]

kind = "maniac"  # the Engine protocol's kind (pbp.core.events.Engine)

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM


# --- moves (what the parser produces; names already resolved to canonical names) ---


@dataclass(frozen=True)
class Vote:
    """``VOTE [PRISON] player``: send ``target`` to the cell (or to prison, M11)."""

    target: str
    prison: bool = False


@dataclass(frozen=True)
class Unvote:
    """``UNVOTE``: withdraw one's standing vote (not a cast, M9)."""


@dataclass(frozen=True)
class Kill:
    """``KILL player [AND player] [NIGHT n]`` (M3, M5); ``night`` None: the earliest
    open night without an order. :raises ValueError: not one or two targets."""

    targets: tuple[str, ...]
    night: int | None = None

    def __post_init__(self) -> None:
        if len(self.targets) not in (1, 2):
            raise ValueError(f"rule M5: a kill order names 1 or 2 players, got {self.targets}")


@dataclass(frozen=True)
class Skip:
    """``SKIP [NIGHT n]`` (M4)."""

    night: int | None = None


@dataclass(frozen=True)
class Status:
    """``STATUS``: private summary for the sender."""


@dataclass(frozen=True)
class Help:
    """``HELP``: the command help."""


ManiacMove = Vote | Unvote | Kill | Skip | Status | Help


# --- start ---


def start(setup: ManiacSetup, seed: int, salt: bytes, at: datetime) -> Step:
    """Deal the roles (M1: from ``random.Random(seed)``, or ``setup.roles`` checked) and
    open day 1 (M2) at ``at``.

    Events: GM ``roles``, one PLAYER ``role_dealt`` per player (seating order; the
    maniac and the fan get each other's name as ``partner``), PUBLIC ``game_started``
    with the commitment to ``{"roles": {player: role}}`` (DESIGN.md).

    :raises ValueError: rule M1 (fewer than 8 or more than 15 players, a fixed deal
        with wrong role counts or names), a player named twice, an empty salt, or a
        naive ``at``.
    """
    stamp = utc_iso(at)
    names = [name for name, _ in setup.players]
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise SetupError(f"rule M1: {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(names)}")
    if len(set(names)) != len(names):
        raise SetupError(f"players named twice: {names}")
    if not salt:
        raise SetupError("the fairness salt is empty (DESIGN.md: 32 random bytes)")
    if setup.roles is None:
        dealt = deal_roles(names, setup.rules, random.Random(seed))
    else:
        check_roles(names, setup.roles, setup.rules)
        dealt = dict(setup.roles)
    state = ManiacState(
        game_id=setup.game_id,
        players=tuple(setup.players),
        rules=setup.rules,
        roles=tuple((p, dealt[p]) for p in names),
        seed=seed,
        salt=salt.hex(),
        started_at=stamp,
    )
    canonical = state.canonical
    fan = state.holder("fan")
    partners = {state.maniac: fan, **({fan: state.maniac} if fan is not None else {})}
    events = [
        Event("roles", GM, {**roles_deal(state.roles), "seed": seed, "canonical": canonical}),
        *(
            Event(
                "role_dealt",
                PLAYER,
                {"role": dealt[p], "character": ch, "partner": partners.get(p)},
                player=p,
            )
            for p, ch in setup.players
        ),
        Event(
            "game_started",
            PUBLIC,
            {
                "game": setup.game_id,
                "day": 1,
                "players": [{"name": p, "character": ch} for p, ch in setup.players],
                "commitment": commitment(canonical),
                "fan": fan is not None,
                "skips": skip_limit(state),
                "double_kill": double_kill_allowed(state),
                "casts_per_target": setup.rules.casts_per_target,
                "started_at": stamp,
            },
        ),
    ]
    return Step(state, events)


# --- moves ---


def apply(state: ManiacState, player: str, move: ManiacMove, at: datetime) -> Step:
    """Apply one move of ``player`` that arrived at ``at`` (aware; stored in UTC, D8).

    ``move`` is a :class:`Vote` / :class:`Unvote` (during the day, M9, M11) → PUBLIC
    ``vote_cast`` / ``vote_withdrawn``; or a :class:`Kill` / :class:`Skip` (the
    maniac, day or night, M3–M5) → PLAYER ``order_placed`` to the maniac. Orders are
    checked for the sender's role before anything else, so a refusal never tells a
    non-maniac who the maniac is.

    :raises IllegalMove: ``game_ended``; ``not_a_player``; ``player_dead`` (M8);
        ``player_in_prison``, ``voting_closed``, ``self_vote``, ``target_dead``,
        ``target_in_prison``, ``vote_limit``, ``no_vote`` (M9); ``never_in_cell``
        (M11); ``not_the_maniac``, ``self_target``, ``night_not_open``,
        ``all_nights_ordered`` (M3); ``skip_in_a_row``, ``skip_limit`` (M4);
        ``double_kill_unavailable``, ``double_kill_used`` (M5).
    :raises InvalidMove: ``same_target_twice`` (KILL X AND X).
    :raises ValueError: ``at`` is naive. :raises TypeError: another kind of move
        (``Status``, ``Help`` included).
    """
    stamp = utc_iso(at)
    if state.over:
        raise IllegalMove("game_ended", winner_team=state.winner_team)
    if player not in state.names:
        raise IllegalMove("not_a_player", player=player, players=state.names)
    if isinstance(move, Vote | Unvote):
        _check_voter(state, player)
        if isinstance(move, Vote):
            return _vote(state, player, move, stamp)
        return _unvote(state, player, stamp)
    if isinstance(move, Kill | Skip):
        return _order(state, player, move, stamp)
    raise TypeError(f"not a move of the game: {move!r}")


def _check_voter(state: ManiacState, player: str) -> None:
    """M8, M9: may ``player`` vote now?"""
    if not state.alive(player):
        raise IllegalMove("player_dead", player=player)
    if state.in_prison(player):
        raise IllegalMove("player_in_prison", player=player)
    if state.phase != "day":
        raise IllegalMove("voting_closed", day=state.day, next_day=state.day + 1)


def _check_named(state: ManiacState, name: str, allowed: list[str]) -> None:
    if name not in state.names:
        raise IllegalMove("not_a_player", player=name, players=allowed)
    if not state.alive(name):
        raise IllegalMove("target_dead", target=name, players=allowed)


def _vote(state: ManiacState, player: str, move: Vote, at: str) -> Step:
    allowed = vote_targets(state, player)
    target = move.target
    if target == player:
        raise IllegalMove("self_vote", players=allowed)
    _check_named(state, target, allowed)
    if state.in_prison(target):
        raise IllegalMove("target_in_prison", target=target, players=allowed)
    if move.prison and not state.was_in_cell(target):
        been = [p for p in allowed if state.was_in_cell(p)]
        raise IllegalMove("never_in_cell", target=target, players=been)
    limit = state.rules.casts_per_target
    done = casts(state, player, target)
    if done >= limit:
        raise IllegalMove("vote_limit", target=target, limit=limit, day=state.day)
    ballot = Ballot(state.day, player, target, move.prison, at)
    new = dataclasses.replace(state, ballots=(*state.ballots, ballot))
    data = {
        "day": state.day,
        "voter": player,
        "target": target,
        "prison": move.prison,
        "cast_no": done + 1,
        "at": at,
    }
    return Step(new, [Event("vote_cast", PUBLIC, data)])


def _unvote(state: ManiacState, player: str, at: str) -> Step:
    mine = next((b for _, b in standing_votes(state) if b.voter == player), None)
    if mine is None:
        raise IllegalMove("no_vote", day=state.day)
    ballot = Ballot(state.day, player, None, False, at)
    new = dataclasses.replace(state, ballots=(*state.ballots, ballot))
    data = {"day": state.day, "voter": player, "target": mine.target, "prison": mine.prison}
    return Step(new, [Event("vote_withdrawn", PUBLIC, {**data, "at": at})])


def _order(state: ManiacState, player: str, move: Kill | Skip, at: str) -> Step:
    """M3–M5: place or change the order for one open night."""
    if state.role_of(player) != "maniac":  # first: nothing else may leak a role
        raise IllegalMove("not_the_maniac")
    targets = move.targets if isinstance(move, Kill) else ()
    allowed = order_targets(state)
    for target in targets:
        if target == player:
            raise IllegalMove("self_target", players=allowed)
        _check_named(state, target, allowed)
    if len(targets) == 2 and targets[0] == targets[1]:
        raise InvalidMove("same_target_twice", target=targets[0])
    night = _night_of(state, move.night)
    others = [o for o in state.orders if o.night != night]
    if not targets:
        neighbour = next((o.night for o in others if o.skip and abs(o.night - night) == 1), None)
        if neighbour is not None:
            raise IllegalMove("skip_in_a_row", night=night, other=neighbour)
        used = sum(1 for o in others if o.skip and not o.voided)
        if used >= skip_limit(state):
            raise IllegalMove("skip_limit", limit=skip_limit(state), used=used)
    if len(targets) == 2:
        if not double_kill_allowed(state):
            raise IllegalMove(
                "double_kill_unavailable",
                players=len(state.players),
                needed=state.rules.double_kill_from,
            )
        taken = double_kill_night(state, others)  # a voided one is not used up (M5)
        if taken is not None:
            raise IllegalMove("double_kill_used", night=taken)
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
    return Step(new, [Event("order_placed", PLAYER, {**data, "at": at}, player=player)])


def _night_of(state: ManiacState, night: int | None) -> int:
    """M3: the night an order is for: ``night`` when open, else the earliest open night
    without an order (:func:`open_nights`: during night 1 nights 1 and 2 are still
    open, so ``KILL X`` then is for night 1 when it has no order)."""
    nights = open_nights(state)
    if night is not None:
        if night not in nights:
            raise IllegalMove("night_not_open", night=night, open=nights)
        return night
    free = [n for n in nights if order_for(state, n) is None]
    if not free:
        raise IllegalMove("all_nights_ordered", open=nights)
    return free[0]


# --- day close ---


def close_day(state: ManiacState, at: datetime) -> Step:
    """Close day *d* at ``at`` (aware): M10, M11, M12, M3; night *d* begins.

    The player with most standing votes goes (ties: the earliest standing vote among
    the tied, M10; no votes: nobody). He goes to prison (M11) when he spent night
    *d − 1* in the cell, or when more of his standing votes ask for prison than for
    the cell; otherwise to the cell for night *d*. Events: PUBLIC ``day_closed``; then
    PUBLIC ``game_over`` when the maniac goes to prison (the town wins, M12); else,
    from day 2 on, PLAYER ``order_fixed`` to the maniac for night *d + 1* (M3,
    ``missing`` for a miss; the close of day 1 fixes nothing: the orders for nights 1
    and 2 may be changed until night 1 ends). A finished game or a night is left as it
    is (no events), so a stale scheduler job does no harm.

    :raises ValueError: ``at`` is naive.
    """
    closed_at = utc_iso(at)
    if state.over or state.phase != "day":
        return Step(state, [])
    d = state.day
    count = vote_count(state)
    candidates = count["candidates"]
    to_cell = to_prison = reason = None
    tie = split = None
    new = dataclasses.replace(state, phase="night")
    if candidates:
        chosen = candidates[0]
        name = chosen["player"]
        tied = [c["player"] for c in candidates if c["votes"] == chosen["votes"]]
        if len(tied) > 1:
            first = next(b for _, b in standing_votes(state) if b.target == name)
            tie = {"tied": tied, "voter": first.voter, "at": first.at}
        if chosen["prison_votes"]:  # M11: both counts, so players see why
            split = {
                "prison": chosen["prison_votes"],
                "cell": chosen["votes"] - chosen["prison_votes"],
            }
        if (d - 1, name) in state.cell_nights:
            reason = "second_night"
        elif 2 * chosen["prison_votes"] > chosen["votes"]:
            reason = "prison_votes"
        if reason is None:
            to_cell = name
            new = dataclasses.replace(new, cell_nights=(*state.cell_nights, (d, name)))
        else:
            to_prison = name
            new = dataclasses.replace(new, imprisoned=(*state.imprisoned, (d, name)))
    data = {
        "day": d,
        "counts": candidates,
        "not_voted": count["not_voted"],
        "to_cell": to_cell,
        "to_prison": to_prison,
        "prison_reason": reason,
        "tie_broken_by": tie,
        "vote_split": split,
        "closed_at": closed_at,
    }
    events = [Event("day_closed", PUBLIC, data)]
    if to_prison is not None and to_prison == state.maniac:  # M12: the town wins
        new = dataclasses.replace(new, over=True, winner_team="town")
        return Step(new, [*events, _game_over(new)])
    events.extend(_orders_fixed(new, nights_fixed_at("day", d)))
    return Step(new, events)


def _orders_fixed(state: ManiacState, nights: list[int]) -> list[Event]:
    """M3: one PLAYER ``order_fixed`` to the maniac per night of ``nights``."""
    events = []
    for night in nights:
        order = order_for(state, night)
        fixed = {
            "night": night,
            "targets": [] if order is None else list(order.targets),
            "skip": order is not None and order.skip,
            "missing": order is None,
            "fixed_by": fixed_by(night),
        }
        events.append(Event("order_fixed", PLAYER, fixed, player=state.maniac))
    return events


def _game_over(state: ManiacState) -> Event:
    """M12: the winners and every role, with the fairness text."""
    team = TOWN if state.winner_team == "town" else frozenset({"maniac", "fan"})
    return Event(
        "game_over",
        PUBLIC,
        {
            "winner_team": state.winner_team,
            "winners": [p for p, r in state.roles if r in team],
            "roles": dict(state.roles),
            "canonical": state.canonical,
        },
    )


# --- night end ---


def end_night(state: ManiacState, at: datetime) -> Step:
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
    cell = state.cell
    order = order_for(state, night)
    maniac = state.maniac
    maniac_in_cell = cell == maniac or state.in_prison(maniac)

    def held(p: str) -> bool:
        return p == cell or state.in_prison(p)

    # M6: a night's events are simultaneous. The duty officer's protection is judged
    # once, on his state at the start of the night: killed by this very order (a double
    # kill naming him and the player in the cell, in either order) he still guards the
    # cell; a kill of him alone while someone sits in the cell kills him.
    guard = state.holder("duty_officer")
    guards = guard is not None and state.alive(guard) and not held(guard)
    dying: set[str] = set()
    results: list[dict[str, Any]] = []
    orders = state.orders
    if order is None:
        outcome = "miss"
    elif maniac_in_cell:
        outcome = "void"
        voided = dataclasses.replace(order, voided=True)
        orders = tuple(voided if o.night == night else o for o in orders)
    elif order.skip:
        outcome = "skip"
    else:
        outcome = "kill"
        for target in order.targets:
            if not state.alive(target):
                result = "already_dead"
            elif held(target) and guards:
                result = "blocked"
            else:
                result = "killed"
                dying.add(target)
            results.append({"player": target, "result": result})
    fan = state.holder("fan")
    fan_in_cell = fan if fan is not None and state.alive(fan) and held(fan) else None
    if fan_in_cell is not None:  # M7
        dying.add(fan_in_cell)
    dead = [p for p in state.names if p in dying]
    # M8: the cell's survivor leaves it; one the GM removed meanwhile is gone already.
    released = cell if cell is not None and cell not in dying and state.alive(cell) else None
    new = dataclasses.replace(
        state,
        orders=orders,
        deaths=(*state.deaths, *((night, p) for p in dead)),
        day=night + 1,
        phase="day",
    )
    resolution = {
        "night": night,
        "order": None if order is None else {"targets": list(order.targets), "skip": order.skip},
        "maniac_in_cell": maniac_in_cell,
        "duty_officer_guards": guards,
        "outcome": outcome,
        "targets": results,
        "fan_in_cell": fan_in_cell,
        "dead": dead,
        "skip_restored": outcome == "void" and order is not None and order.skip,
    }
    morning = {"night": night, "dead": dead, "released": released, "day": night + 1}
    events = [
        Event("night_resolution", GM, resolution),
        Event("night_ended", PUBLIC, {**morning, "ended_at": ended_at}),
    ]
    if _maniac_team_wins(new):
        new = dataclasses.replace(new, over=True, winner_team="maniac")
        events.append(_game_over(new))
    else:  # M3: the end of night 1 fixes the order for night 2 (night 1's is carried out)
        fixed = [n for n in nights_fixed_at("night", night) if n > night]
        events[:0] = _orders_fixed(new, fixed)
    return Step(new, events)


def _maniac_team_wins(state: ManiacState) -> bool:
    """M12 at a morning: the town alive and not in prison number at most 1 (fan dead,
    in prison or absent) or at most 2 (fan alive and not in prison)."""
    town = sum(1 for p, r in state.roles if r in TOWN and state.free(p))
    fan = state.holder("fan")
    return town <= (2 if fan is not None and state.free(fan) else 1)


def remove(state: ManiacState, player: str, at: datetime) -> Step:
    """The GM removes ``player`` at ``at`` (aware): he leaves the game and takes no
    further part (as the dead, M8), his role is not revealed. During a day his
    standing vote and the standing votes on him are withdrawn (PUBLIC
    ``vote_withdrawn``; a withdrawal is not a cast, M9). Then the maniac's team's
    win is checked (M12), as at a morning. Events: PUBLIC ``player_left`` {player,
    day, phase}, the withdrawals, ``game_over`` when the maniac's team wins.

    :raises IllegalMove: ``game_ended``; ``not_a_player``; ``already_removed``
        {player} (dead or gone); ``remove_maniac`` {player}: the rules have no game
        without its maniac — substitute him instead.
    """
    stamp = utc_iso(at)
    if state.over:
        raise IllegalMove("game_ended", winner_team=state.winner_team)
    if player not in state.names:
        raise IllegalMove("not_a_player", player=player, players=state.names)
    if not state.alive(player):
        raise IllegalMove("already_removed", player=player)
    if state.role_of(player) == "maniac":
        raise IllegalMove("remove_maniac", player=player)
    events = [
        Event("player_left", PUBLIC, {"player": player, "day": state.day, "phase": state.phase})
    ]
    ballots = list(state.ballots)
    if state.phase == "day":
        for _index, ballot in standing_votes(state):
            if player in (ballot.voter, ballot.target):
                ballots.append(Ballot(state.day, ballot.voter, None, False, stamp))
                data = {
                    "day": state.day,
                    "voter": ballot.voter,
                    "target": ballot.target,
                    "prison": ballot.prison,
                    "at": stamp,
                }
                events.append(Event("vote_withdrawn", PUBLIC, data))
    new = dataclasses.replace(state, ballots=tuple(ballots), left=(*state.left, player))
    if _maniac_team_wins(new):
        new = dataclasses.replace(new, over=True, winner_team="maniac")
        events.append(_game_over(new))
    return Step(new, events)


def void_vote(state: ManiacState, voter: str, target: str, cast_at: str, at: datetime) -> Step:
    """The GM cancels ``voter``'s vote for ``target`` cast at ``cast_at`` (ISO UTC), as
    if it had never been cast: his vote before it stands again, and it is no cast
    (M9). Only while it is his standing vote of the current day. PUBLIC
    ``vote_voided``.

    :raises IllegalMove: ``game_ended``; ``void_too_late`` {}: its day has closed;
        ``void_replaced`` {}: not his standing vote any more (changed or withdrawn).
    """
    stamp = utc_iso(at)
    if state.over:
        raise IllegalMove("game_ended", winner_team=state.winner_team)
    found = next(
        (
            (i, b)
            for i, b in enumerate(state.ballots)
            if (b.voter, b.target, b.at) == (voter, target, cast_at) and not b.voided
        ),
        None,
    )
    if found is None or found[1].day != state.day or state.phase != "day":
        raise IllegalMove("void_too_late")
    index, ballot = found
    if all(i != index for i, _b in standing_votes(state)):
        raise IllegalMove("void_replaced")
    ballots = list(state.ballots)
    ballots[index] = dataclasses.replace(ballot, voided=True)
    new = dataclasses.replace(state, ballots=tuple(ballots))
    data = {
        "day": ballot.day,
        "voter": voter,
        "target": target,
        "prison": ballot.prison,
        "at": cast_at,
        "voided_at": stamp,
    }
    return Step(new, [Event("vote_voided", PUBLIC, data)])


def void_order(state: ManiacState, night: int, placed_at: str, at: datetime) -> Step:
    """The GM cancels the maniac's order for ``night`` placed at ``placed_at`` (ISO UTC):
    that night has no order until he orders again (M3). Only while it is the standing
    order and not yet fixed. PLAYER ``order_voided`` to the maniac (the public learns
    nothing of orders, M6).

    :raises IllegalMove: ``game_ended``; ``void_too_late`` {}: fixed (M3);
        ``void_replaced`` {}: changed since.
    """
    stamp = utc_iso(at)
    if state.over:
        raise IllegalMove("game_ended", winner_team=state.winner_team)
    if night not in open_nights(state):
        raise IllegalMove("void_too_late")
    order = order_for(state, night)
    if order is None or order.at != placed_at:
        raise IllegalMove("void_replaced")
    new = dataclasses.replace(state, orders=tuple(o for o in state.orders if o.night != night))
    data = {
        "night": night,
        "targets": list(order.targets),
        "skip": order.skip,
        "fixed_by": fixed_by(night),
        "voided_at": stamp,
    }
    return Step(new, [Event("order_voided", PLAYER, data, player=state.maniac)])
