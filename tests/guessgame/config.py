"""``kind: guess`` in ``games.yaml``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pbp.core.gameconfig import GameBase


class GuessGame(GameBase):
    """``high``: the secret is from 1 to ``high`` (rule G1)."""

    kind: Literal["guess"]
    high: int = Field(default=10, ge=2)
