"""The games, one package each, and the seam they share (:mod:`pbp.games.core`).

A game's package holds everything of it: its pure engine and state, its command
parser, its ``games.yaml`` model and its adapter to the daemon (``kind.py``, a
:class:`~pbp.games.core.kind.GameKind`), and its texts are found through that kind. Each
game is registered by an entry point (:mod:`pbp.games.core.registry`).
"""
