"""The pure rules of the guessing game (G1–G4 in the package docstring)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbp.games.core.events import Event, IllegalMove, InvalidMove, Step, Visibility, utc_iso


@dataclass(frozen=True)
class Guess:
    """``GUESS N``."""

    number: int


@dataclass(frozen=True)
class Status:
    """``STATUS``: answered from :func:`status`, never applied."""


@dataclass(frozen=True)
class GuessState:
    """``guesses``: (player, number, arrival ISO UTC) in arrival order."""

    game_id: str
    players: tuple[str, ...]
    high: int
    secret: int
    guesses: tuple[tuple[str, int, str], ...] = ()
    winner: str | None = None


def start(game_id: str, players: tuple[str, ...], high: int, seed: int) -> Step[GuessState]:
    """G1: the secret from ``random.Random(seed)``. GM ``secret`` {secret}, PUBLIC
    ``game_started`` {game, players, high}."""
    secret = random.Random(seed).randint(1, high)
    state = GuessState(game_id, players, high, secret)
    events = [
        Event("secret", Visibility.GM, {"secret": secret}),
        Event(
            "game_started",
            Visibility.PUBLIC,
            {"game": game_id, "players": list(players), "high": high},
        ),
    ]
    return Step(state, events)


def apply(state: GuessState, player: str, move: Guess, at: datetime) -> Step[GuessState]:
    """G2–G4. PUBLIC ``guessed`` {player, number} and PLAYER ``hint`` {number,
    higher: bool}; a right guess: PUBLIC ``game_over`` {winner, secret}.

    :raises IllegalMove: ``game_over`` {winner}. :raises InvalidMove: ``guess_range``
        {number, high}.
    """
    if state.winner is not None:
        raise IllegalMove("game_over", winner=state.winner)
    if not 1 <= move.number <= state.high:  # rule G4
        raise InvalidMove("guess_range", number=move.number, high=state.high)
    new = dataclasses.replace(state, guesses=(*state.guesses, (player, move.number, utc_iso(at))))
    if move.number == state.secret:  # rule G3
        new = dataclasses.replace(new, winner=player)
        return Step(
            new, [Event("game_over", Visibility.PUBLIC, {"winner": player, "secret": state.secret})]
        )
    public = Event("guessed", Visibility.PUBLIC, {"player": player, "number": move.number})
    hint = {"number": move.number, "higher": state.secret > move.number}  # rule G2
    return Step(new, [public, Event("hint", Visibility.PLAYER, hint, player=player)])


def status(state: GuessState, player: str) -> dict[str, Any]:
    """``{"high", "mine": [numbers guessed by player], "over": bool}``."""
    mine = [n for p, n, _at in state.guesses if p == player]
    return {"high": state.high, "mine": mine, "over": state.winner is not None}


def dump_state(state: GuessState) -> dict[str, Any]:
    """State → JSON."""
    return {**dataclasses.asdict(state), "guesses": [list(g) for g in state.guesses]}


def load_state(data: Mapping[str, Any]) -> GuessState:
    """JSON → state."""
    return GuessState(
        game_id=data["game_id"],
        players=tuple(data["players"]),
        high=int(data["high"]),
        secret=int(data["secret"]),
        guesses=tuple((p, int(n), at) for p, n, at in data["guesses"]),
        winner=data["winner"],
    )
