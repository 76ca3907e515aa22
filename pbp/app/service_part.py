"""A part of the service: what every piece of :class:`pbp.app.service.Service` reads.

The intake rules (:mod:`pbp.app.intake`), a player's moves (:mod:`pbp.app.playermoves`)
and the GM by mail (:mod:`pbp.app.gm.by_mail`) each work on the collaborators of one
service: its store, mailer, digest, game table and renderer, and its configuration,
which a SIGHUP may replace (:meth:`pbp.app.service.Service.replace_config`), so it is
read through the service each time rather than copied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbp.app.digest import Digest
    from pbp.app.gm import Addresses, GmDesk, GmMail
    from pbp.app.mailer import Mailer
    from pbp.app.playermoves import Moves
    from pbp.app.service import Service
    from pbp.app.table import GameTable
    from pbp.config.model import Config, Game
    from pbp.games.core.kind import AnyKind
    from pbp.store import Store
    from pbp.text.render import Renderer


class ServicePart:
    """One part of ``service``'s work, with its collaborators as attributes."""

    def __init__(self, service: Service) -> None:
        self.service = service

    @property
    def config(self) -> Config:
        """The configuration now (``games.yaml`` as last read)."""
        return self.service.config

    @property
    def store(self) -> Store:
        return self.service.store

    @property
    def mail(self) -> Mailer:
        return self.service.mail

    @property
    def digest(self) -> Digest:
        return self.service.digest

    @property
    def table(self) -> GameTable:
        return self.service.table

    @property
    def renderer(self) -> Renderer:
        return self.service.renderer

    @property
    def gm(self) -> GmDesk:
        return self.service.gm

    @property
    def addresses(self) -> Addresses:
        return self.service.addresses

    @property
    def gm_mail(self) -> GmMail:
        return self.service.gm_mail

    @property
    def moves(self) -> Moves:
        return self.service.moves

    def game_config(self, game_id: str) -> Game:
        """The config model of one game; raises KeyError."""
        return self.service.game_config(game_id)

    def kind_of(self, game: Game | str) -> AnyKind:
        """The game kind of a config or a stored kind name."""
        return self.service.kind_of(game)
