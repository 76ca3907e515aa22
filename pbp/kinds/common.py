"""What every game-kind adapter shares: delegating to a pure engine module.

A kind names its engine module (``engine = pbp.engine.cluedo_rounds``); the
state round trip, the end test, moves and the private views are the engine's
own functions of the same names. Cluedo kinds also share the reading of
commands (:mod:`pbp.parse.cluedo`) and the seats.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from types import ModuleType
from typing import Any

from pbp.engine.base import Event, Step
from pbp.engine.cluedo import Help, Status
from pbp.kinds.base import ParsedCommand
from pbp.parse.cluedo import parse_cluedo


class EngineKind:
    """Delegates the engine-shaped part of :class:`~pbp.kinds.base.GameKind`."""

    engine: ModuleType

    def load(self, data: Mapping[str, Any]) -> Any:
        """Stored JSON → state (the engine's ``load_state``)."""
        return self.engine.load_state(data)

    def dump(self, state: Any) -> dict[str, Any]:
        """State → JSON (the engine's ``dump_state``)."""
        return dict(self.engine.dump_state(state))

    def is_over(self, state: Any) -> bool:
        """True once the game has ended."""
        return bool(self.engine.is_over(state))

    def apply(self, state: Any, player: str, move: Any, at: datetime) -> Step:
        """One move; raises :class:`~pbp.engine.base.MoveError`."""
        step: Step = self.engine.apply(state, player, move, at)
        return step

    def remove(self, state: Any, player: str, at: datetime) -> Step:
        """The GM removes ``player`` (the engine's ``remove``)."""
        step: Step = self.engine.remove(state, player, at)
        return step

    def shift_deadline(self, state: Any, delta: timedelta) -> Any:
        """Unchanged: the deadline is the stored one (game days), moved by the service."""
        return state

    def with_history(
        self, state: Any, events: Callable[[], Sequence[Event]], move: Any = None
    ) -> Any:
        """``state`` itself: its snapshot holds what every move and view needs."""
        return state

    def status(self, state: Any, player: str) -> dict[str, Any]:
        """The STATUS view."""
        return dict(self.engine.status(state, player))

    def gm_view(self, state: Any) -> dict[str, Any]:
        """The GM view (``pbp show``)."""
        return dict(self.engine.gm_view(state))


class CluedoKind(EngineKind):
    """Both Cluedo variants: seats and commands (``addressed``: suggestions name the
    player who answers, as by game days; not so in rounds)."""

    addressed: bool

    def players(self, state: Any) -> list[str]:
        """Every seat, in configured order."""
        return [name for name, _character in state.setup.players]

    def parse(self, text: str, state: Any) -> list[ParsedCommand]:
        """Commands of a mail body (grammar in :mod:`pbp.parse.cluedo`)."""
        lines = parse_cluedo(text, state.setup.cards, self.players(state), addressed=self.addressed)
        return [
            ParsedCommand(
                line.line_no,
                line.text,
                line.move,
                line.error,
                private=isinstance(line.move, Status | Help),
            )
            for line in lines
        ]
