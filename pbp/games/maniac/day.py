"""A Maniac game day (rules M9–M12, M3 of RULES.md): the votes cast and withdrawn during
day *d*, and its close, which sends one player to the cell for night *d* or to prison.
Pure; the event shapes are in :mod:`pbp.games.maniac.engine`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from pbp.games.core.events import Event, IllegalMove, Step, Visibility, utc_iso
from pbp.games.maniac.moves import Vote
from pbp.games.maniac.orders import orders_fixed
from pbp.games.maniac.shapes import Candidate, DayClosed, TieBrokenBy, VoteSplit
from pbp.games.maniac.state import (
    Ballot,
    ManiacState,
    casts,
    check_named,
    nights_fixed_at,
    standing_votes,
    vote_count,
    vote_targets,
)
from pbp.games.maniac.wins import game_over

PUBLIC = Visibility.PUBLIC


# --- votes ---


def check_voter(state: ManiacState, player: str) -> None:
    """M8, M9: may ``player`` vote now? He must be alive, not in prison, and it must be
    a day.

    :raises IllegalMove: ``removed_from_game`` {player} (the GM removed him),
        ``player_dead`` {player}, ``player_in_prison`` {player}, ``voting_closed``
        {day, next_day}.
    """
    if player in state.left:
        raise IllegalMove("removed_from_game", player=player)
    if not state.alive(player):
        raise IllegalMove("player_dead", player=player)
    if state.in_prison(player):
        raise IllegalMove("player_in_prison", player=player)
    if state.phase != "day":
        raise IllegalMove("voting_closed", day=state.day, next_day=state.day + 1)


def cast_vote(state: ManiacState, player: str, move: Vote, at: str) -> Step[ManiacState]:
    """M9, M11: ``player`` (a voter, :func:`check_voter`) votes for ``move.target`` at
    ``at`` (ISO UTC). PUBLIC ``vote_cast`` {day, voter, target, prison, cast_no, at}.

    :raises IllegalMove: ``self_vote``, ``not_a_player``, ``target_removed``, ``target_dead``,
        ``target_in_prison``, ``vote_limit`` (M9); ``never_in_cell`` (M11).
    """
    allowed = vote_targets(state, player)
    target = move.target
    if target == player:
        raise IllegalMove("self_vote", players=allowed)
    check_named(state, target, allowed)
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


def withdraw_vote(state: ManiacState, player: str, at: str) -> Step[ManiacState]:
    """M9: ``player`` withdraws his standing vote at ``at`` (ISO UTC; not a cast).
    PUBLIC ``vote_withdrawn`` {day, voter, target, prison, at}.

    :raises IllegalMove: ``no_vote`` {day}.
    """
    mine = next((b for _, b in standing_votes(state) if b.voter == player), None)
    if mine is None:
        raise IllegalMove("no_vote", day=state.day)
    ballot = Ballot(state.day, player, None, False, at)
    new = dataclasses.replace(state, ballots=(*state.ballots, ballot))
    data = {"day": state.day, "voter": player, "target": mine.target, "prison": mine.prison}
    return Step(new, [Event("vote_withdrawn", PUBLIC, {**data, "at": at})])


# --- the close ---


def close_day(state: ManiacState, at: datetime) -> Step[ManiacState]:
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
    count = vote_count(state)
    verdict = _verdict(state, count["candidates"])
    new = _send(dataclasses.replace(state, phase="night"), verdict)
    data: DayClosed = {
        "day": state.day,
        "counts": count["candidates"],
        "not_voted": count["not_voted"],
        "to_cell": verdict.to_cell,
        "to_prison": verdict.to_prison,
        "prison_reason": verdict.prison_reason,
        "tie_broken_by": verdict.tie_broken_by,
        "vote_split": verdict.vote_split,
        "closed_at": closed_at,
    }
    events = [Event("day_closed", PUBLIC, data)]
    if verdict.to_prison is not None and verdict.to_prison == state.maniac:  # M12: town wins
        new = dataclasses.replace(new, over=True, winner_team="town")
        return Step(new, [*events, game_over(new)])
    events.extend(orders_fixed(new, nights_fixed_at("day", state.day)))
    return Step(new, events)


@dataclass(frozen=True)
class _Verdict:
    """What the close of a day decides (M10, M11), as ``day_closed`` gives it:
    ``to_cell`` or ``to_prison`` (one name, or neither when nobody was voted for),
    ``prison_reason`` (``"second_night"`` | ``"prison_votes"`` | None),
    ``tie_broken_by`` {tied, voter, at} | None, ``vote_split`` {prison, cell} | None."""

    to_cell: str | None = None
    to_prison: str | None = None
    prison_reason: str | None = None
    tie_broken_by: TieBrokenBy | None = None
    vote_split: VoteSplit | None = None


def _verdict(state: ManiacState, candidates: list[Candidate]) -> _Verdict:
    """M10, M11: who goes where, from ``candidates`` in :func:`vote_count`'s order (the
    first is chosen; none: nobody goes, M10)."""
    if not candidates:
        return _Verdict()
    chosen = candidates[0]
    name = chosen["player"]
    reason = _prison_reason(state, chosen)
    return _Verdict(
        to_cell=name if reason is None else None,
        to_prison=None if reason is None else name,
        prison_reason=reason,
        tie_broken_by=_tie_broken_by(state, candidates),
        vote_split=_vote_split(chosen),
    )


def _tie_broken_by(state: ManiacState, candidates: list[Candidate]) -> TieBrokenBy | None:
    """M10: ``{"tied": [name...], "voter", "at"}`` — the players tied with the chosen one
    (the first candidate) and the earliest standing vote among them, his; None
    without a tie."""
    chosen = candidates[0]
    tied = [c["player"] for c in candidates if c["votes"] == chosen["votes"]]
    if len(tied) < 2:
        return None
    first = next(b for _, b in standing_votes(state) if b.target == chosen["player"])
    return {"tied": tied, "voter": first.voter, "at": first.at}


def _vote_split(chosen: Candidate) -> VoteSplit | None:
    """M11: ``{"prison": n, "cell": n}``, the chosen player's standing prison and cell
    votes, when any of them asks for prison (so players see why); else None."""
    if not chosen["prison_votes"]:
        return None
    return {"prison": chosen["prison_votes"], "cell": chosen["votes"] - chosen["prison_votes"]}


def _prison_reason(state: ManiacState, chosen: Candidate) -> str | None:
    """M11: why the chosen player goes to prison rather than the cell —
    ``"second_night"`` (he spent night *d − 1* in the cell), ``"prison_votes"`` (more
    of his standing votes ask for prison than for the cell) — or None (the cell)."""
    if (state.day - 1, chosen["player"]) in state.cell_nights:
        return "second_night"
    if 2 * chosen["prison_votes"] > chosen["votes"]:
        return "prison_votes"
    return None


def _send(state: ManiacState, verdict: _Verdict) -> ManiacState:
    """M10, M11: ``state`` (night ``state.day``) with the verdict's player in the cell
    for this night or in prison for good."""
    if verdict.to_cell is not None:
        return dataclasses.replace(
            state, cell_nights=(*state.cell_nights, (state.day, verdict.to_cell))
        )
    if verdict.to_prison is not None:
        return dataclasses.replace(
            state, imprisoned=(*state.imprisoned, (state.day, verdict.to_prison))
        )
    return state
