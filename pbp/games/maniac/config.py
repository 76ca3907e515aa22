"""``kind: maniac`` in ``games.yaml`` (rules M1–M12)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import time
from typing import Literal

from pydantic import model_validator

from pbp.games.core.configvalues import WallClock, wall
from pbp.games.core.gameconfig import GameBase
from pbp.games.core.playernames import NameProblem
from pbp.games.core.yamlmarks import Found, checks_error, did_you_mean
from pbp.games.maniac.state import MAX_PLAYERS, MIN_PLAYERS, ManiacRules
from pbp.games.maniac.words import reserved_word
from pbp.text.counted import counted


class ManiacGame(GameBase):
    """``kind: maniac`` — the day-vote / night-kill game of seed 002 (rules M1–M12).

    ``day_closes``: local time the day's votes and due orders close (the cell is
    filled); ``night_ends``: local time the night is resolved (the morning post).
    ``roles``: an optional fixed deal ``{player: maniac|duty_officer|fan|civilian}``.
    ``vote_count_mail``: mail the GM the vote count after every change.
    """

    kind: Literal["maniac"]
    day_closes: WallClock
    night_ends: WallClock
    roles: dict[str, Literal["maniac", "duty_officer", "fan", "civilian"]] | None = None
    vote_count_mail: bool = False

    @property
    def close_time(self) -> time:
        """``day_closes`` as a local wall-clock time."""
        return wall(self.day_closes)

    @property
    def night_end_time(self) -> time:
        """``night_ends`` as a local wall-clock time."""
        return wall(self.night_ends)

    @property
    def deadlines_per_day(self) -> int:
        """A day's close and its night's end (rule P3's default ``catch_up_limit``)."""
        return 2

    @classmethod
    def players_least(cls) -> tuple[int, str]:
        return MIN_PLAYERS, "M1"

    @classmethod
    def keyword_sections(cls) -> tuple[str, ...]:
        """The common commands, the GM's levers and Maniac's (VOTE, KILL, PRISON, …)."""
        return ("common", "gm", "maniac")

    @classmethod
    def reserved_name_problem(cls, name: str) -> NameProblem | None:
        """A word of ``name`` that a player's mail reads as part of a command
        (:func:`pbp.games.maniac.words.reserved_word`: ``Снять``, ``Камерон``)."""
        word = reserved_word(name)
        if word is None:
            return None
        message = (
            f"name {name!r}: a player's mail reads {word!r} as part of a "
            "command (ГОЛОС Снять withdraws a vote): give the player another name"
        )
        return NameProblem("reserved", {"word": word}, message)

    @model_validator(mode="after")
    def _rules(self) -> ManiacGame:
        found = self.player_problems(*self.players_least())
        named = {path for path, _ in found}  # one sentence a name: the first found
        for i, player in enumerate(self.players):
            problem = self.reserved_name_problem(player.name)
            if problem is not None and ("players", i, "name") not in named:
                found.append((("players", i, "name"), problem.message))
        if len(self.players) > MAX_PLAYERS:
            message = f"rule M1: at most {MAX_PLAYERS} players, got {len(self.players)}"
            found.append((("players",), message))
        if self.day_closes == self.night_ends:
            found.append((("night_ends",), "the night must end at another time than the day"))
        if self.roles is not None:
            found += _role_problems(self.roles, self.player_names())
        if found:
            raise checks_error(found)
        return self


def _role_problems(roles: Mapping[str, str], players: list[str]) -> Found:
    """Rule M1 for a fixed deal of roles: every player one role; one maniac, one duty
    officer, one fan from :attr:`ManiacRules.fan_from` players (none below), the rest
    civilians."""
    found: Found = []
    for name in roles:
        if name not in players:
            found.append(
                (("roles", name), f"{name!r} is not a player{did_you_mean(name, players)}")
            )
    missing = [p for p in players if p not in roles]
    if missing:
        found.append((("roles",), f"no role for {', '.join(missing)}"))
    counts = {
        role: sum(1 for r in roles.values() if r == role)
        for role in ("maniac", "duty_officer", "fan")
    }
    fans = 1 if len(players) >= ManiacRules().fan_from else 0
    for role, want in (("maniac", 1), ("duty_officer", 1), ("fan", fans)):
        if counts[role] != want:
            found.append(
                (
                    ("roles",),
                    f"rule M1: {len(players)} players need {counted(want, 'player')} with the "
                    f"role {role}, got {counts[role]}",
                )
            )
    return found
