"""Who wins a Maniac game (rule M12 of RULES.md) and the ``game_over`` event. Pure."""

from __future__ import annotations

from pbp.games.core.events import Event, Visibility
from pbp.games.maniac.shapes import GameOver
from pbp.games.maniac.state import MANIAC_TEAM, TOWN, ManiacState


def maniac_team_wins(state: ManiacState) -> bool:
    """M12 at a morning: the town alive and not in prison number at most 1 (fan dead,
    in prison or absent) or at most 2 (fan alive and not in prison)."""
    town = sum(1 for p, r in state.roles if r in TOWN and state.free(p))
    fan = state.holder("fan")
    return town <= (2 if fan is not None and state.free(fan) else 1)


def game_over(state: ManiacState) -> Event:
    """M12: PUBLIC ``game_over`` {winner_team, winners: [name...] (the winning team's
    players in seating order, the dead included, but not those the GM removed), roles:
    {name: role}, canonical} of a finished ``state`` (``winner_team`` set)."""
    assert state.winner_team is not None
    team = TOWN if state.winner_team == "town" else MANIAC_TEAM
    over: GameOver = {
        "winner_team": state.winner_team,
        "winners": [p for p, r in state.roles if r in team and p not in state.left],
        "roles": dict(state.roles),
        "canonical": state.canonical,
    }
    return Event("game_over", Visibility.PUBLIC, over)
