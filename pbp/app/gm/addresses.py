"""Personal addresses (DESIGN.md "identity"): the GM's for his commands, and a new
one for a player or the GM when the old one leaked (NEW ADDRESS, ``pbp rotate-token``).

A personal address carries a token (``pbp+TOKEN@…`` or a ``[pbp-TOKEN]`` Subject
tag); the seat keeps its registered address. A new token is logged as GM
``gm_address_rotated`` {player, via}, never the token itself. A new GM address ends
every confirmation still pending in the game (:attr:`Rotated.ended`): its code was
mailed because of a mail to the old address, which may have leaked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pbp.app.mailer import Mailer
from pbp.app.outcome import Decision, Handled
from pbp.app.running import game_and_kind, seat_of
from pbp.app.settings import Configured, Settings, new_token
from pbp.app.table import GameTable
from pbp.config.model import Game
from pbp.games.core.events import Event, LeverRefused, Visibility
from pbp.store import GM_SEAT, Store

if TYPE_CHECKING:
    from pbp.app.message import Message


@dataclass(frozen=True)
class Rotated:
    """A new personal address: its ``token``, and how many of the GM's pending
    confirmations it ``ended`` (always 0 for a player's)."""

    token: str
    ended: int


class Addresses(Configured):
    """The personal addresses of the seats of the games configured; the answers to a
    player's NEW ADDRESS and to mail at an address he retired."""

    def __init__(self, settings: Settings, store: Store, table: GameTable, mail: Mailer) -> None:
        self.settings = settings
        self.store = store
        self.table = table
        self.mail = mail

    def gm_token(self, game_id: str) -> str:
        """The GM's personal token for ``game_id`` (made on first use)."""
        token = self.store.player_token(game_id, GM_SEAT)
        if token is None:
            token = new_token()
            with self.store.transaction():
                self.store.add_token(token, game_id, GM_SEAT, self.game_config(game_id).gm)
        return token

    def gm_address(self, game_id: str) -> str:
        """The address the GM sends his commands for ``game_id`` to."""
        return self.mail.personal(self.gm_token(game_id))

    def registered(self, game_id: str) -> str:
        """The GM's registered address for ``game_id`` (``gm:`` in games.yaml, as
        stored at the start): the only one that gets confirmations."""
        return self.store.player_email(game_id, GM_SEAT) or self.game_config(game_id).gm.lower()

    def rotate_token(self, game_id: str, player: str, *, now: datetime, via: str) -> Rotated:
        """Give ``player`` (a seat name, or :data:`GM_SEAT`) a new personal token: the old
        one stops working at once (mail to it is answered ``address_retired``); the seat
        keeps its registered address. Logged as GM ``gm_address_rotated`` {player, via}
        (no token: the log reaches the export). The GM's new token ends every confirmation
        of the game pending at ``now`` (:meth:`pbp.store.Store.end_confirmations`: a reply
        to one is answered ``gm_confirm_ended``, nothing applied), whether ``pbp
        rotate-token --gm`` or his confirmed NEW ADDRESS made it. Returns the new token and
        that count; the caller tells the owner, at his registered address.

        :raises LeverRefused: the game has not started.
        :raises MoveError: ``player`` names no seat.
        """
        _game, kind = game_and_kind(self.settings, game_id)
        with self.store.transaction():
            row = self.store.game(game_id)
            if row is None:
                raise LeverRefused("gm_not_started", game=game_id)
            state = kind.load(row.state)
            seat = (
                player if player == GM_SEAT else seat_of(self.store, kind, state, player, game_id)
            )
            email = self.store.player_email(game_id, seat)
            if email is None:
                raise LeverRefused("gm_not_started", game=game_id)
            token = new_token()
            self.store.replace_token(game_id, seat, token, email)
            ended = self.store.end_confirmations(game_id, now) if seat == GM_SEAT else 0
            event = Event("gm_address_rotated", Visibility.GM, {"player": seat, "via": via})
            self.table.log(game_id, [event], at=now, day=kind.day(state), source=f"gm:{via}")
        return Rotated(token, ended)

    def new_address_by_gm(self, game_id: str, player: str, *, now: datetime) -> Rotated:
        """``pbp rotate-token``: a new personal address for ``player`` (a seat name) or the
        GM (:data:`GM_SEAT`). A player is mailed his new address (``new_address``) at his
        registered address; the GM's is only returned, with the count of his pending
        confirmations it ended (:meth:`rotate_token`).

        :raises LeverRefused: the game has not started. :raises MoveError: no such seat.
        """
        game, _kind = game_and_kind(self.settings, game_id)
        with self.store.transaction():
            rotated = self.rotate_token(game_id, player, now=now, via="cli")
            if player != GM_SEAT:
                seat = self.store.token(rotated.token)
                assert seat is not None
                self.mail.player(game, seat.player, "new_address", {"asked": False}, now)
        return rotated

    def new_address(
        self,
        message: Message,
        game: Game,
        player: str,
        *,
        more: bool = True,
    ) -> Decision:
        """A player's ``NEW ADDRESS`` mail (:func:`pbp.text.commands.asks_new_address`):
        his token is rotated (:meth:`rotate_token`) and the ``new_address`` answer, whose
        Reply-To is the new address, goes to his registered address. Nothing else in the
        mail is applied (``more``: the mail has other lines, and the answer says to send
        them again); the token changes at the mail's arrival. Outcome ``new_address``."""
        self.rotate_token(game.id, player, now=message.arrived, via="mail")
        email = self.store.player_email(game.id, player)
        assert email is not None
        context = {"asked": True, "more": more}
        self.mail.reply(
            message.letter, email, "new_address", context, message.now, game=game, player=player
        )
        return Decision(Handled.NEW_ADDRESS, game.id, player)

    def retired_address(
        self,
        message: Message,
        game_id: str,
        player: str,
    ) -> Decision:
        """Mail to a personal address its owner replaced (NEW ADDRESS, ``pbp
        rotate-token``), from his registered address: nothing is applied and he is
        told so, with his current address (``address_retired``). Outcome ``retired``."""
        game = self.game_config(game_id)
        self.mail.reply(
            message.letter,
            message.from_address,
            "address_retired",
            {},
            message.now,
            game=game,
            player=player,
        )
        return Decision(Handled.RETIRED, game_id, player)
