"""What both Cluedo kinds share as :class:`~pbp.games.core.kind.GameKind`: the seats and the
reading of commands (:mod:`pbp.games.cluedo.parse`). The views and mails' contexts of the
variants are the ``TypedDict`` classes of :mod:`pbp.games.cluedo.shapes` and of their
own ``shapes`` modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from pbp.games.cluedo import views
from pbp.games.cluedo.cards import Cards, CluedoMove, Help, Status
from pbp.games.cluedo.config import CluedoGame
from pbp.games.cluedo.parse import parse_cluedo
from pbp.games.cluedo.shapes import PlayerRemoved, RemovedMail
from pbp.games.core.events import Event, JsonMap
from pbp.games.core.kind import GameKind, ParsedCommand, PrivateMail


class CluedoTable(Protocol):
    """What the shared part needs of either variant's state: the seats and the cards."""

    @property
    def players(self) -> tuple[tuple[str, str | None], ...]:
        """(player, character or None) in configured order."""

    @property
    def cards(self) -> Cards:
        """The cards in play (C1)."""


#: A variant's state.
TableT = TypeVar("TableT", bound=CluedoTable)
#: A variant's ``games.yaml`` model.
GameT = TypeVar("GameT", bound=CluedoGame)


class CluedoKind(GameKind[TableT, CluedoMove, GameT]):
    """Both Cluedo variants (their texts in pbp's own ``templates/``): seats and
    commands (``addressed``: suggestions name the player who answers, as by game days;
    not so in rounds)."""

    addressed: bool
    #: Refusals of both variants no rewording mends (out of the game, removed by the
    #: GM, nothing to answer or answered already, pbp's own snippet pasted back).
    unfixable = frozenset(
        {"player_out", "removed_by_gm", "nothing_to_answer", "already_answered", "pasted_snippet"}
    )

    @property
    def templates(self) -> tuple[Path, ...]:
        """The variant's own folder, then the one both variants share:
        ``templates/<kind>/``, ``templates/cluedo/`` (the texts and refusals of C1–C7:
        a template not in the variant's own folder is read there)."""
        return (Path(self.kind), Path("cluedo"))

    def players(self, state: TableT) -> list[str]:
        """Every seat, in configured order."""
        return [name for name, _character in state.players]

    def parse(
        self, text: str, state: TableT, aliases: Mapping[str, str] | None = None
    ) -> list[ParsedCommand[CluedoMove]]:
        """Commands of a mail body (grammar in :mod:`pbp.games.cluedo.parse`); a seat is
        also named by its ``aliases`` ({name: seat})."""
        lines = parse_cluedo(
            text, state.cards, self.players(state), addressed=self.addressed, aliases=aliases
        )
        return [
            ParsedCommand(
                line.line_no,
                line.text,
                line.move,
                line.error,
                private=isinstance(line.move, Status | Help),
            )
            for line in lines
        ]

    def gm_facts(self, post: str, period: int | None, private: Sequence[JsonMap]) -> list[JsonMap]:
        """The GM's answers, the cards shown and the accusations:
        :func:`pbp.games.cluedo.views.gm_facts`."""
        return views.gm_facts(post, period, private)

    def removal_mail(self, removed: PlayerRemoved, events: Sequence[Event]) -> PrivateMail:
        """The mail ``removed`` to the player the GM removed (``removed``: the
        ``player_removed`` data, one of ``events``, the lever's step): his seat stays
        and the GM answers for it (C5), or, when the removal left nobody to suggest or
        accuse (C7: ``game_over`` among ``events``), the game is over. Nothing of
        anyone's cards (:class:`~pbp.games.cluedo.shapes.RemovedMail`)."""
        mail: RemovedMail = {"removed": removed, "over": any(e.kind == "game_over" for e in events)}
        return PrivateMail("removed", removed["player"], mail)

    @staticmethod
    def told_when_removed(
        mails: Sequence[PrivateMail], removed: Sequence[str]
    ) -> list[PrivateMail]:
        """``mails`` but those to a player the GM removed (``removed``), who gets nothing
        but his removal (:meth:`removal_mail`) and the end of the game (C5, C7)."""
        told = ("removed", "game_over")
        return [m for m in mails if m.player not in removed or m.template in told]
