"""Maniac, the day-vote / night-kill game (rules M1–M12 of RULES.md; seed 002). Pure engine.

API (module-level functions; ``state`` is :class:`ManiacState`; every ``at`` is an
aware datetime, stored as ISO 8601 in UTC):

- ``start(setup, seed, salt, at) -> Step`` — deal the roles (M1, seeded; or
  ``setup.roles``) and open day 1 (M2).
- ``apply(state, player, move, at) -> Step`` — one Vote / Unvote (M9, M11) or Kill /
  Skip (the maniac's orders, M3–M5) by ``player``, arrived at ``at`` (D8). Raises
  :class:`~pbp.games.core.events.IllegalMove` (rules) or ``InvalidMove``.
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
  views; ``post_view(post, events, day)`` — what a public post of the votes shows,
  from the public events (the live count by the same count as the close, rule P1).
- ``kind = "maniac"``; ``dump_state(state) -> dict`` / ``load_state(dict)``;
  ``is_over(state)``.

This module is the engine object (``pbp.games.core.events.Engine``) and its whole API; the
rules behind it are split by phase: :mod:`~pbp.games.maniac.moves` (the moves),
:mod:`~pbp.games.maniac.day` (votes and the day's close: M9–M11),
:mod:`~pbp.games.maniac.orders` (kill orders: M3–M5), :mod:`~pbp.games.maniac.night`
(the night's resolution and the morning: M6–M8), :mod:`~pbp.games.maniac.wins` (M12),
:mod:`~pbp.games.maniac.views` and :mod:`~pbp.games.maniac.state`. The GM's levers
(``remove``, ``void_vote``, ``void_order``) are here.

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
  game_over      {winner_team: "town" | "maniac" (M12), winners: [name...] (the
                  winning team, the dead included, not those the GM removed), roles:
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
game_ended {winner_team}; not_a_player {player, players}; removed_from_game {player} (by
the GM); player_dead {player} (M8); player_in_prison {player} (M9); voting_closed {day,
next_day}; self_vote {players}; target_removed {target, players} (by the GM);
target_dead {target, players}; target_in_prison {target, players}; never_in_cell
{target, players} (M11); vote_limit {target, limit, day} (M9); no_vote {day};
not_the_maniac {}; self_target {players} (M3); orders_closed {night, day} (M3: no night
is open during a night after the first; the order for ``night`` is given on ``day``);
night_not_open {night, open} (M3); all_nights_ordered {open} (M3); skip_in_a_row
{night, other} / skip_limit {limit, used} (M4); double_kill_unavailable {players,
needed} / double_kill_used {night} (M5); same_target_twice {target} (InvalidMove).
``players``: who may be named instead.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime

from pbp.games.core.events import Event, IllegalMove, SetupError, Step, Visibility, utc_iso
from pbp.games.maniac.day import cast_vote, check_voter, close_day, withdraw_vote
from pbp.games.maniac.moves import Help, Kill, ManiacMove, Skip, Status, Unvote, Vote
from pbp.games.maniac.night import end_night
from pbp.games.maniac.orders import place_order
from pbp.games.maniac.shapes import GameStarted, OrderVoided, PlayerLeft, VoteVoided
from pbp.games.maniac.state import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROLES,
    Ballot,
    ManiacRules,
    ManiacSetup,
    ManiacState,
    Order,
    Phase,
    Role,
    check_roles,
    day,
    deal_roles,
    double_kill_allowed,
    dump_state,
    fixed_by,
    is_over,
    load_state,
    open_nights,
    order_for,
    phase,
    roles_deal,
    skip_limit,
    standing_votes,
    vote_count,
)
from pbp.games.maniac.views import (
    duties,
    gm_facts,
    gm_view,
    player_outcome,
    post_view,
    status,
)
from pbp.games.maniac.wins import game_over, maniac_team_wins
from pbp.text.fairness import commitment

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
    "gm_facts",
    "gm_view",
    "is_over",
    "kind",
    "load_state",
    "open_nights",
    "phase",
    "player_outcome",
    "post_view",
    "remove",
    "start",
    "status",
    "void_order",
    "void_vote",
    "vote_count",
]

kind = "maniac"  # the Engine protocol's kind (pbp.games.core.events.Engine)

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM


# --- start ---


def start(setup: ManiacSetup, seed: int, salt: bytes, at: datetime) -> Step[ManiacState]:
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
    _check_seats(names, salt)
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
    return Step(state, [*_deal_events(state), _game_started(state)])


def _check_seats(names: list[str], salt: bytes) -> None:
    """M1: 8 to 15 players, each named once; a fairness salt (DESIGN.md).

    :raises SetupError: naming the rule and the problem.
    """
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise SetupError(f"rule M1: {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(names)}")
    if len(set(names)) != len(names):
        raise SetupError(f"players named twice: {names}")
    if not salt:
        raise SetupError("the fairness salt is empty (DESIGN.md: 32 random bytes)")


def _deal_events(state: ManiacState) -> list[Event]:
    """M1: GM ``roles`` {roles, seed, canonical}, then one PLAYER ``role_dealt`` {role,
    character, partner} per player in seating order (``partner``: the fan for the
    maniac, the maniac for the fan, else None)."""
    fan = state.holder("fan")
    partners = {state.maniac: fan, **({fan: state.maniac} if fan is not None else {})}
    dealt = dict(state.roles)
    deal = {**roles_deal(state.roles), "seed": state.seed, "canonical": state.canonical}
    return [
        Event("roles", GM, deal),
        *(
            Event(
                "role_dealt",
                PLAYER,
                {"role": dealt[p], "character": ch, "partner": partners.get(p)},
                player=p,
            )
            for p, ch in state.players
        ),
    ]


def _game_started(state: ManiacState) -> Event:
    """M1, M2: PUBLIC ``game_started``, day 1 open (shape in the module docstring)."""
    started: GameStarted = {
        "game": state.game_id,
        "day": 1,
        "players": [{"name": p, "character": ch} for p, ch in state.players],
        "commitment": commitment(state.canonical),
        "fan": state.holder("fan") is not None,
        "skips": skip_limit(state),
        "double_kill": double_kill_allowed(state),
        "casts_per_target": state.rules.casts_per_target,
        "started_at": state.started_at,
    }
    return Event("game_started", PUBLIC, started)


# --- moves ---


def apply(state: ManiacState, player: str, move: ManiacMove, at: datetime) -> Step[ManiacState]:
    """Apply one move of ``player`` that arrived at ``at`` (aware; stored in UTC, D8).

    ``move`` is a :class:`Vote` / :class:`Unvote` (during the day, M9, M11) → PUBLIC
    ``vote_cast`` / ``vote_withdrawn``; or a :class:`Kill` / :class:`Skip` (the
    maniac, day or night, M3–M5) → PLAYER ``order_placed`` to the maniac. Orders are
    checked for the sender's role before anything else, so a refusal never tells a
    non-maniac who the maniac is.

    :raises IllegalMove: ``game_ended``; ``not_a_player``; ``removed_from_game``,
        ``player_dead`` (M8); ``player_in_prison``, ``voting_closed``, ``self_vote``,
        ``target_removed``, ``target_dead``, ``target_in_prison``, ``vote_limit``,
        ``no_vote`` (M9); ``never_in_cell`` (M11); ``not_the_maniac``, ``self_target``,
        ``orders_closed``, ``night_not_open``, ``all_nights_ordered`` (M3);
        ``skip_in_a_row``, ``skip_limit`` (M4); ``double_kill_unavailable``,
        ``double_kill_used`` (M5).
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
        check_voter(state, player)
        if isinstance(move, Vote):
            return cast_vote(state, player, move, stamp)
        return withdraw_vote(state, player, stamp)
    if isinstance(move, Kill | Skip):
        return place_order(state, player, move, stamp)
    raise TypeError(f"not a move of the game: {move!r}")


# --- the GM's levers ---


def remove(state: ManiacState, player: str, at: datetime) -> Step[ManiacState]:
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
    left: PlayerLeft = {"player": player, "day": state.day, "phase": state.phase}
    events = [Event("player_left", PUBLIC, left)]
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
    if maniac_team_wins(new):
        new = dataclasses.replace(new, over=True, winner_team="maniac")
        events.append(game_over(new))
    return Step(new, events)


def void_vote(
    state: ManiacState, voter: str, target: str, cast_at: str, at: datetime
) -> Step[ManiacState]:
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
    data: VoteVoided = {
        "day": ballot.day,
        "voter": voter,
        "target": target,
        "prison": ballot.prison,
        "at": cast_at,
        "voided_at": stamp,
    }
    return Step(new, [Event("vote_voided", PUBLIC, data)])


def void_order(state: ManiacState, night: int, placed_at: str, at: datetime) -> Step[ManiacState]:
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
    data: OrderVoided = {
        "night": night,
        "targets": list(order.targets),
        "skip": order.skip,
        "fixed_by": fixed_by(night),
        "voided_at": stamp,
    }
    return Step(new, [Event("order_voided", PLAYER, data, player=state.maniac)])
