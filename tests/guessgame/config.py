"""``kind: guess`` in ``games.yaml``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from pbp.games.core.gameconfig import GameBase
from pbp.games.core.yamlmarks import checks_error


class GuessGame(GameBase):
    """``high``: the secret is from 1 to ``high`` (rule G1); at least one player, each
    name and address once (:meth:`~pbp.games.core.gameconfig.GameBase.player_problems`)."""

    kind: Literal["guess"]
    high: int = Field(default=10, ge=2)

    @model_validator(mode="after")
    def _rules(self) -> GuessGame:
        found = self.player_problems(1, "G1")
        if found:
            raise checks_error(found)
        return self
