"""Game kinds known to the daemon, by their ``kind:`` name in ``games.yaml``."""

from __future__ import annotations

from pbp.kinds.base import GameKind
from pbp.kinds.cluedo_days import CluedoDays
from pbp.kinds.cluedo_rounds import CluedoRounds
from pbp.kinds.maniac import Maniac

KINDS: dict[str, GameKind] = {
    "cluedo_days": CluedoDays(),
    "cluedo_rounds": CluedoRounds(),
    "maniac": Maniac(),
}
