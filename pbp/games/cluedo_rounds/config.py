"""``kind: cluedo_rounds`` in ``games.yaml`` (rules C1–C7, R1–R7)."""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator, model_validator

from pbp.games.cluedo.config import CluedoGame
from pbp.games.core.configvalues import PositiveHours
from pbp.games.core.gameconfig import ConfigModel
from pbp.games.core.yamlmarks import checks_error

#: Why ``auto_answer: forced`` is refused (rule R6).
FORCED_LEAKS = (
    "'forced' is not offered: showing a single matching card at once tells the "
    "suggester that a player who is asked holds at least two of the named cards, which "
    "no manual answer tells; use 'no_match' (the default) or 'none'"
)


class CluedoRoundsRules(ConfigModel):
    """Overrides of the RULES.md defaults for the rounds variant (rule C6: seed 000
    accuses aloud, so wrong accusations are public by default)."""

    publish_wrong_accusations: bool = True


class CluedoRoundsGame(CluedoGame):
    """``kind: cluedo_rounds`` — Cluedo by rounds, the table game of seed 000 (C1–C7, R1–R7).

    ``players`` is the turn order (R1). ``turn_hours``: time for a turn, ``answer_hours``:
    time for an answer (R7; fractions allowed). ``auto_answer`` (R6): ``no_match``
    answers "no refutation" at once for a player holding none of the cards, ``none``
    waits for every player; ``forced`` is refused, saying why (:data:`FORCED_LEAKS`).
    """

    kind: Literal["cluedo_rounds"]
    turn_hours: PositiveHours = 24.0
    answer_hours: PositiveHours = 12.0
    auto_answer: Literal["no_match", "none"] = "no_match"
    rules: CluedoRoundsRules = CluedoRoundsRules()

    @property
    def deadlines_per_day(self) -> int:
        """The most turn and answer deadlines 24 hours hold (rule P3's default
        ``catch_up_limit``): ``24 // min(turn_hours, answer_hours)``, at least 1."""
        return max(1, int(24 // min(self.turn_hours, self.answer_hours)))

    @field_validator("auto_answer", mode="before")
    @classmethod
    def _not_forced(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() == "forced":
            raise ValueError(FORCED_LEAKS)
        return value

    @model_validator(mode="after")
    def _rules(self) -> CluedoRoundsGame:
        found = self._cluedo_problems()
        if found:
            raise checks_error(found)
        return self
