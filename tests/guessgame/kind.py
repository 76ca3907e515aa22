"""The guessing game as a :class:`~pbp.games.core.kind.GameKind`: glue only. It has no
deadlines, one period and no GM levers, so it keeps the base's defaults for them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from guessgame import engine
from guessgame.config import GuessGame
from guessgame.engine import Guess, GuessState
from guessgame.parse import GuessMove, parse_guess
from pbp.games.core.events import Event, Step
from pbp.games.core.kind import GameKind, ParsedCommand, PrivateMail


class GuessKind(GameKind[GuessState, GuessMove, GuessGame]):
    """The ``guess`` kind: texts in English, in this package, and one in Russian in its
    own catalog (``locale/ru/LC_MESSAGES/guess.po``)."""

    kind = "guess"
    config_model = GuessGame
    templates = (Path(__file__).parent / "templates",)
    catalogs = Path(__file__).parent / "locale"

    def start(self, game: GuessGame, seed: int, salt: bytes, at: datetime) -> Step[GuessState]:
        """G1: the secret from the seed."""
        return engine.start(game.id, tuple(game.player_names()), game.high, seed)

    def load(self, data: Mapping[str, Any]) -> GuessState:
        """Stored JSON → state."""
        return engine.load_state(data)

    def dump(self, state: GuessState) -> dict[str, Any]:
        """State → JSON."""
        return engine.dump_state(state)

    def parse(
        self, text: str, state: GuessState, aliases: Mapping[str, str] | None = None
    ) -> list[ParsedCommand[GuessMove]]:
        """``GUESS N`` and ``STATUS`` lines (no names: ``aliases`` unused)."""
        return parse_guess(text)

    def apply(
        self, state: GuessState, player: str, move: GuessMove, at: datetime
    ) -> Step[GuessState]:
        """G2–G4 (``STATUS`` is private: never applied)."""
        assert isinstance(move, Guess)
        return engine.apply(state, player, move, at)

    def is_over(self, state: GuessState) -> bool:
        """G3: over once somebody guessed right."""
        return state.winner is not None

    def players(self, state: GuessState) -> list[str]:
        """Every seat, in configured order."""
        return list(state.players)

    def status(
        self, game: GuessGame, state: GuessState, player: str, deadline: datetime | None
    ) -> dict[str, Any]:
        """STATUS: the range and one's own guesses."""
        return engine.status(state, player)

    def gm_view(self, state: GuessState, deadline: datetime | None = None) -> dict[str, Any]:
        """``pbp show``: the secret and every guess."""
        return {
            "secret": state.secret,
            "guesses": [{"player": p, "number": n} for p, n, _at in state.guesses],
            "winner": state.winner,
        }

    def post_view(self, post: str, events: Sequence[Event], period: int | None) -> dict[str, Any]:
        """The opening post shows the game started, the final post the game's end (the
        data of those events); the others lay out their events."""
        wanted = {"opening": "game_started", "final": "game_over"}.get(post)
        found = [e.data for e in events if e.kind == wanted]
        if wanted is not None and not found:
            raise LookupError(f"no {wanted} event")
        return dict(found[-1]) if found else {}

    def notifications(
        self, game: GuessGame, state: GuessState, events: Sequence[Event], deadline: datetime | None
    ) -> list[PrivateMail]:
        """Everybody learns the end of the game (G3)."""
        over = [e for e in events if e.kind == "game_over"]
        return [
            PrivateMail("game_over", p, {"result": dict(e.data)})
            for e in over
            for p in state.players
        ]


#: Registered by the tests that play it: ``pbp.games.core.registry.register(GUESS)``.
GUESS = GuessKind()
