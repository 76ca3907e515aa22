"""``kind: cluedo_days`` in ``games.yaml`` (rules C1–C7, D1–D8)."""

from __future__ import annotations

from datetime import time, timedelta
from typing import Literal

from pydantic import Field, model_validator

from pbp.games.cluedo.config import CluedoGame
from pbp.games.core.configvalues import Hours, WallClock, wall
from pbp.games.core.gameconfig import ConfigModel
from pbp.games.core.yamlmarks import checks_error


class CluedoDaysRules(ConfigModel):
    """Overrides of the RULES.md defaults (rules C6, D2, D6)."""

    suggestions_per_day: int = Field(default=3, ge=1)
    max_per_addressee_per_day: int = Field(default=3, ge=1)
    answer_grace_hours: Hours = 0.0
    publish_wrong_accusations: bool = False

    @property
    def answer_grace(self) -> timedelta:
        """``answer_grace_hours`` as a timedelta (rule D6)."""
        return timedelta(hours=self.answer_grace_hours)


class CluedoDaysGame(CluedoGame):
    """``kind: cluedo_days`` — Cluedo by game days (rules C1–C7, D1–D8).

    ``day_closes`` is the local wall-clock time of the daily close in ``timezone``,
    ``"HH:MM"`` zero-padded (``"22:30"``; rule D1); :attr:`close_time` gives it as a time.
    """

    kind: Literal["cluedo_days"]
    day_closes: WallClock
    rules: CluedoDaysRules = CluedoDaysRules()

    @property
    def close_time(self) -> time:
        """``day_closes`` as a naive wall-clock time (``time(22, 30)``), local to :attr:`zone`."""
        return wall(self.day_closes)

    def check_warnings(self) -> list[str]:
        """The cards the texts cannot say (:meth:`CluedoGame.check_warnings`, rule P2),
        and a grace of a game day or more (D6: every suggestion, made whenever, would be
        due at the next day's close)."""
        found = super().check_warnings()
        hours = self.rules.answer_grace_hours
        if hours >= 24:
            found.append(
                f"rules.answer_grace_hours: {hours:g} hours is a game day or more, so every "
                "suggestion is due at the next day's close whenever it is made (rule D6's "
                "grace is for suggestions made late in the day): give fewer than 24 hours"
            )
        return found

    @model_validator(mode="after")
    def _rules(self) -> CluedoDaysGame:
        found = self._cluedo_problems()
        if found:
            raise checks_error(found)
        return self
