"""The moves of a Maniac game (rules M3–M5, M9, M11 of RULES.md): what the parser
(:mod:`pbp.games.maniac.parse`) produces, names already resolved to canonical names,
and what :func:`pbp.games.maniac.engine.apply` plays. Re-exported by the engine.
"""

from __future__ import annotations

from dataclasses import dataclass


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
