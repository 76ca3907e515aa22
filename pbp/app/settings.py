"""What every part of the service reads but does not own: the configuration now, the
clock, the game kinds and the personal tokens.

The service (:class:`pbp.app.service.Service`) makes one :class:`Settings` and one
:class:`Clock` and hands them to each part that reads them: ``pbp run``'s SIGHUP
replaces the configuration (:meth:`pbp.app.service.Service.replace_config`) and tests
replace the clock, and every part sees the new one at its next read.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable
from datetime import datetime

from pbp.config.model import Config, Game
from pbp.games.core.kind import AnyKind
from pbp.games.core.registry import KINDS
from pbp.store import Store

TOKEN_ALPHABET = string.ascii_lowercase + string.digits
TOKEN_LENGTH = 10


def new_token() -> str:
    """A new personal token (``TOKEN_LENGTH`` random letters and digits)."""
    return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))


def kind_of(game: Game | str) -> AnyKind:
    """The :class:`~pbp.games.core.kind.GameKind` of a config or a stored kind name."""
    return KINDS[game if isinstance(game, str) else game.kind]


class Settings:
    """The configuration source: ``games.yaml`` as last read (:attr:`config`, which a
    SIGHUP replaces), read through this each time rather than copied."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def game(self, game_id: str) -> Game:
        """The config model of one game; raises KeyError."""
        return self.config.game(game_id)

    @property
    def plus(self) -> bool:
        """Personal addresses are plus-addresses (``gm+TOKEN@…``), not Subject tags."""
        return self.config.mail.personal_address == "plus"

    def registered_anywhere(self, store: Store, address: str) -> bool:
        """True when ``address`` plays (or will play) in any configured game (its seats
        in ``store``, or a player of ``games.yaml``)."""
        return bool(store.tokens_of(address)) or any(
            p.email.lower() == address for g in self.config.games for p in g.players
        )


class Configured:
    """A part that reads the configuration now through its :attr:`settings`."""

    settings: Settings

    @property
    def config(self) -> Config:
        """The configuration now (``games.yaml`` as last read)."""
        return self.settings.config

    def game_config(self, game_id: str) -> Game:
        """The config model of one game; raises KeyError."""
        return self.settings.game(game_id)

    @staticmethod
    def kind_of(game: Game | str) -> AnyKind:
        """The game kind of a config or a stored kind name (:func:`kind_of`)."""
        return kind_of(game)


class Clock:
    """The current aware time (UTC), as :attr:`read` gives it (replaceable: a test's
    or the daemon's clock)."""

    def __init__(self, read: Callable[[], datetime]) -> None:
        self.read = read

    def __call__(self) -> datetime:
        return self.read()
