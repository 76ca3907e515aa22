"""The games bundled with pbp, one package each.

A game's package holds everything of it: its pure engine and state, its command
parser, its ``games.yaml`` model and its adapter to the daemon (``kind.py``, a
:class:`~pbp.core.kind.GameKind`). Adding a game is a new package and one line here.
"""

from __future__ import annotations

from pbp.core.kind import AnyKind
from pbp.games.cluedo_days import kind as cluedo_days
from pbp.games.cluedo_rounds import kind as cluedo_rounds
from pbp.games.maniac import kind as maniac

#: The bundled kinds, in the order `pbp` lists them.
BUNDLED: tuple[AnyKind, ...] = (cluedo_days.KIND, cluedo_rounds.KIND, maniac.KIND)
