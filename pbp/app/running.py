"""A game as the GM's levers and the deadlines find it: configured, started, not over,
paused or not, and the seat a name names.

Plain functions of the store and the configuration, shared by the levers
(:mod:`pbp.app.gm`), the outages (:mod:`pbp.app.outage`) and the intake rules.
"""

from __future__ import annotations

from pbp.app.settings import Settings, kind_of
from pbp.config.model import Game
from pbp.games.core.events import LeverRefused
from pbp.games.core.kind import AnyKind
from pbp.store import GameRow, KeptMessage, Store, StoredEvent
from pbp.text.commands import PlayerNames


def paused_since(store: Store, game_id: str) -> StoredEvent | None:
    """The ``gm_pause`` event of a paused game, or None when it runs."""
    last = store.last_event(game_id, ("gm_pause", "gm_resume"))
    return last if last is not None and last.event.kind == "gm_pause" else None


def replay_key(held: KeptMessage) -> str:
    """The source key of the message that applies the held mail ``held`` on resume:
    ``resumed:<kept id>`` (as ``pbp retry`` uses ``kept:<kept id>``). Only a unique
    key, never read back: the replay's link to the held row is its ``replay_of``."""
    return f"resumed:{held.id}"


def game_and_kind(settings: Settings, game_id: str) -> tuple[Game, AnyKind]:
    """The game's config and kind.

    :raises LeverRefused: ``gm_unknown_game``: not configured."""
    try:
        game = settings.game(game_id)
    except KeyError:
        raise LeverRefused("gm_unknown_game", game=game_id) from None
    return game, kind_of(game)


def running(store: Store, game_id: str, kind: AnyKind) -> tuple[GameRow, object]:
    """``(row, state)`` of a started game that is not over.

    :raises LeverRefused: ``gm_not_started``, ``gm_game_over``."""
    row = store.game(game_id)
    if row is None:
        raise LeverRefused("gm_not_started", game=game_id)
    if row.over:
        raise LeverRefused("gm_game_over", game=game_id)
    return row, kind.load(row.state)


def seat_of(store: Store, kind: AnyKind, state: object, text: str, game_id: str) -> str:
    """The seat ``text`` names: by its own name or by the name of whoever plays it
    now (a substitute's, :meth:`pbp.store.Store.substitutes`), any case form.

    :raises MoveError: ``unknown_name`` / ``ambiguous_name``."""
    aliases = store.seat_aliases(game_id)
    return PlayerNames(kind.players(state), aliases=aliases).match(text)
