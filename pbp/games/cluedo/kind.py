"""What both Cluedo kinds share as :class:`~pbp.core.kind.GameKind`: the seats and the
reading of commands (:mod:`pbp.games.cluedo.parse`)."""

from __future__ import annotations

from typing import Any

from pbp.core.kind import EngineKind, ParsedCommand
from pbp.games.cluedo.cards import Help, Status
from pbp.games.cluedo.parse import parse_cluedo


class CluedoKind(EngineKind):
    """Both Cluedo variants: seats and commands (``addressed``: suggestions name the
    player who answers, as by game days; not so in rounds)."""

    addressed: bool

    def players(self, state: Any) -> list[str]:
        """Every seat, in configured order."""
        return [name for name, _character in state.setup.players]

    def parse(self, text: str, state: Any) -> list[ParsedCommand]:
        """Commands of a mail body (grammar in :mod:`pbp.games.cluedo.parse`)."""
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
