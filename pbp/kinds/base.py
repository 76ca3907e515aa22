"""The seam between the generic daemon and one game kind.

The service (:mod:`pbp.service`) knows mail, storage and time; a :class:`GameKind`
knows one game: how to set it up from ``games.yaml``, how to read its commands,
which pure engine functions to call, and which private mails each step causes.
Adding a game kind means adding one module here and registering it in
:data:`pbp.kinds.KINDS`; nothing else in the daemon changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pbp.engine.base import Event, MoveError, Step


@dataclass(frozen=True)
class ParsedCommand:
    """One command line of a player's mail: the move read from it, or why not.

    ``move`` is game-specific; ``private`` is True for commands that only answer
    the sender (STATUS, HELP) and never reach the engine.
    """

    line_no: int
    text: str
    move: Any | None
    error: MoveError | None
    private: bool = False


@dataclass(frozen=True)
class PrivateMail:
    """A private mail caused by a step: ``template`` under the kind's mail templates,
    sent to ``player`` (None: the GM) with ``context`` (JSON values)."""

    template: str
    player: str | None
    context: Mapping[str, Any] = field(default_factory=dict)


class GameKind(Protocol):
    """What the daemon needs from one game kind (``cluedo_days``, later more)."""

    kind: str

    def start(self, game: Any, seed: int, salt: bytes) -> Step:
        """Deal and open the game configured by ``game`` (a config model)."""

    def load(self, data: Mapping[str, Any]) -> Any:
        """Stored JSON → engine state."""

    def dump(self, state: Any) -> dict[str, Any]:
        """Engine state → JSON."""

    def is_over(self, state: Any) -> bool:
        """True when the game has ended."""

    def day(self, state: Any) -> int:
        """The current game day (1-based)."""

    def players(self, state: Any) -> list[str]:
        """Every seat, in configured order."""

    def parse(self, text: str, state: Any) -> list[ParsedCommand]:
        """The commands of a mail body, in order (non-command lines omitted)."""

    def apply(self, state: Any, player: str, move: Any, at: datetime) -> Step:
        """Apply one move; raises :class:`~pbp.engine.base.MoveError`."""

    def close_day(self, state: Any, at: datetime) -> Step:
        """Close the current game day at ``at``."""

    def status(self, state: Any, player: str) -> dict[str, Any]:
        """The private STATUS view of one player."""

    def gm_view(self, state: Any) -> dict[str, Any]:
        """Everything the GM sees (``pbp show``)."""

    def duties(self, state: Any, player: str) -> dict[str, Any] | None:
        """Open duties for a reminder, or None when the player owes nothing."""

    def notifications(self, state: Any, events: Sequence[Event]) -> list[PrivateMail]:
        """Private mails that ``events`` (just applied, ``state`` after them) cause."""
