"""A Maniac game as its PUBLIC events record it (rules M9–M11 of RULES.md): the ballots,
who is free, who went to prison, a day's close — what the public posts' views
(:mod:`pbp.games.maniac.views`) are computed from, so that a post shows the game as
its events tell it and never the hidden state (rule P1). Pure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import cast

from pbp.games.core.events import Event
from pbp.games.maniac.shapes import DayClosed
from pbp.games.maniac.state import Ballot


def ballots_of(events: Sequence[Event]) -> list[Ballot]:
    """The ballots of the game as its PUBLIC ``events`` (in log order) record them, in
    arrival order, as the engine keeps them: a ``vote_cast`` a vote, a
    ``vote_withdrawn`` a withdrawal (UNVOTE, or the GM's removal of a player), a
    ``vote_voided`` its vote marked voided (M9)."""
    ballots: list[Ballot] = []
    for event in events:
        data = event.data
        if event.kind == "vote_cast":
            ballots.append(
                Ballot(int(data["day"]), data["voter"], data["target"], data["prison"], data["at"])
            )
        elif event.kind == "vote_withdrawn":
            ballots.append(Ballot(int(data["day"]), data["voter"], None, False, data["at"]))
        elif event.kind == "vote_voided":
            key = (data["voter"], data["target"], data["at"])
            index = next(
                (i for i, b in enumerate(ballots) if (b.voter, b.target, b.at) == key),
                None,
            )
            if index is not None:
                ballots[index] = dataclasses.replace(ballots[index], voided=True)
    return ballots


def free_players(events: Sequence[Event]) -> list[str]:
    """M9: the players alive and not in prison (nor removed by the GM) after the PUBLIC
    ``events``, in seating order (``game_started``).

    :raises LookupError: no ``game_started`` among ``events``.
    """
    started = next((e for e in events if e.kind == "game_started"), None)
    if started is None:
        raise LookupError("no game_started event")
    out: set[str] = set()
    for event in events:
        if event.kind == "night_ended":
            out.update(event.data["dead"])
        elif event.kind == "day_closed" and event.data["to_prison"]:
            out.add(event.data["to_prison"])
        elif event.kind == "player_left":
            out.add(event.data["player"])
    return [p["name"] for p in started.data["players"] if p["name"] not in out]


def imprisoned(events: Sequence[Event]) -> list[tuple[int, str]]:
    """(day, name) of each player the vote sent to prison (M11), in order."""
    return [
        (int(e.data["day"]), e.data["to_prison"])
        for e in events
        if e.kind == "day_closed" and e.data["to_prison"]
    ]


def day_closed(events: Sequence[Event], day: int) -> DayClosed | None:
    """The ``day_closed`` data of ``day`` among ``events`` (as the engine logged it)."""
    return next(
        (
            cast(DayClosed, e.data)
            for e in events
            if e.kind == "day_closed" and int(e.data["day"]) == day
        ),
        None,
    )
