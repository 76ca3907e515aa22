"""The GM's confirmation of his levers by mail (:class:`Confirmations`): a reply to a
``gm_confirm`` mail, at its confirmation address, from his registered address.

A lever by mail waits for it (:meth:`pbp.app.gm.by_mail.GmMail.ask_confirmation`) unless
the trusted server's ``Authentication-Results`` show DMARC pass: the personal GM
address travels in every Reply-To and may leak. Confirmed, the stored levers are
pulled as the GM's commands by mail are (:meth:`pbp.app.gm.by_mail.GmMail.run_all`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pbp.app.digest import Digest
from pbp.app.gm.addresses import Addresses
from pbp.app.gm.by_mail import GmMail, confirms, unread_lines
from pbp.app.mailer import Mailer
from pbp.app.outcome import Decision, Handled
from pbp.app.owntext import OwnText
from pbp.app.reader import BodyReader
from pbp.app.settings import Configured, Settings
from pbp.config.model import Game
from pbp.mail.base import stranger_raw
from pbp.store import GM_SEAT, Confirmation, Store
from pbp.text.gmcommands import GmLine

if TYPE_CHECKING:
    from pbp.app.message import Message


class Confirmations(Configured):
    """Replies to the GM's confirmation addresses, on the games configured: the GM's
    own reply read by ``read_body`` and ``own``, its levers pulled by ``commands``."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        mail: Mailer,
        digest: Digest,
        *,
        addresses: Addresses,
        commands: GmMail,
        own: OwnText,
        read_body: BodyReader,
    ) -> None:
        self.settings = settings
        self.store = store
        self.mail = mail
        self.digest = digest
        self.addresses = addresses
        self.commands = commands
        self.own = own
        self.read_body = read_body

    def confirmation(self, tokens: Sequence[str]) -> Confirmation | None:
        """The pending GM commands one of ``tokens`` (a mail's personal tokens) is the
        confirmation code of, or None."""
        for token in tokens:
            found = self.store.confirmation(token)
            if found is not None:
                return found
        return None

    def confirm(
        self,
        message: Message,
        confirmation: Confirmation,
    ) -> Decision:
        """A reply to a ``gm_confirm`` mail (to its confirmation address): from the GM's
        registered address, within :data:`~pbp.app.gm.by_mail.CONFIRM_HOURS`, the stored
        levers are pulled in order, once, at the reply's arrival, and answered with
        ``gm_result`` (outcome ``gm_applied`` / ``gm_refused``); once more, it is answered
        "already done" (``gm_confirmed_already``); after a new GM address ended it, "ended"
        (``gm_confirm_ended``: the code was mailed for the old address, which may have
        leaked, :meth:`pbp.app.gm.addresses.Addresses.rotate_token`); too late, "expired"
        (``gm_confirm_expired``). From another address it is kept for the GM
        (``wrong_confirmer``: he is told at once, the confirmation address reached
        somebody else) and not answered.
        """
        game = self.game_config(confirmation.game_id)
        if message.from_address != self.addresses.registered(game.id):
            return self._wrong_confirmer(message, game)
        # The GM's own reply: now its body (who before what), on the CPU budget.
        message.letter = self.read_body(message.raw.raw, message.letter)
        text = self.own.own_text(message.letter, game)
        unread = unread_lines(text)
        if (
            confirmation.done_at is not None
            or confirmation.ended_at is not None
            or message.arrived > confirmation.expires_at
        ):
            return self._confirmed_before(message, game, confirmation, unread)
        if not confirms(text):
            return self._no_confirm_word(message, game, confirmation, unread)
        commands = [GmLine.from_json(c) for c in json.loads(confirmation.commands)]
        # As it stands now that this transaction holds the store: `pbp rotate-token
        # --gm` in another process may have ended it since it was read.
        now_row = self.store.confirmation(confirmation.code)
        if now_row is not None and (now_row.done_at or now_row.ended_at):
            return self._confirmed_before(message, game, now_row, unread)
        self.store.mark_confirmed(confirmation.code, message.now)
        results = self.commands.run_all(game, commands, message.arrived)
        self.commands.answer(message.letter, game, results, message.now, unread, limited=False)
        done = sum(1 for r in results if "done" in r)
        handled = Handled.GM_APPLIED if done else Handled.GM_REFUSED
        return Decision(handled, game.id, GM_SEAT, replay_held=True)

    def _wrong_confirmer(self, message: Message, game: Game) -> Decision:
        """A reply to a confirmation address from another address than the GM's: kept;
        the GM is told at once when the sender plays (the code reached him), a
        stranger's goes in the digest (his first 64 KB, never his Subject)."""
        raw, now, at = message.raw, message.now, message.arrived
        if self.settings.registered_anywhere(self.store, message.from_address):
            kept_id = self.store.keep(message.source, at, "wrong_confirmer", raw.raw, now)
            self.mail.notice_gm(game, message.letter, raw, "wrong_confirmer", kept_id, now)
        else:
            kept = stranger_raw(raw.raw)
            kept_id = self.store.keep(message.source, at, "wrong_confirmer", kept, now)
            self.digest.add(game, "wrong_confirmer", kept_id, message.letter, now, arrived=at)
        return Decision(Handled.WRONG_CONFIRMER, game.id)

    def _confirmed_before(
        self, message: Message, game: Game, confirmation: Confirmation, unread: Sequence[str]
    ) -> Decision:
        """A confirmation used already, ended by a new GM address, or too late (in this
        order): said so, nothing pulled; the reply's other lines (``unread``) are said
        not read."""
        if confirmation.done_at is not None:
            template, said = "gm_confirm_done", Handled.GM_CONFIRMED_ALREADY
        elif confirmation.ended_at is not None:
            template, said = "gm_confirm_ended", Handled.GM_CONFIRM_ENDED
        else:
            template, said = "gm_confirm_expired", Handled.GM_CONFIRM_EXPIRED
        self.mail.reply(
            message.letter,
            message.from_address,
            template,
            {
                "done_at": confirmation.done_at,
                "ended_at": confirmation.ended_at,
                "expires_at": confirmation.expires_at,
                "unread": list(unread),
                "gm_address": self.addresses.gm_address(game.id),
            },
            message.now,
            game=game,
            player=GM_SEAT,
        )
        return Decision(said, game.id, GM_SEAT)

    def _no_confirm_word(
        self, message: Message, game: Game, confirmation: Confirmation, unread: Sequence[str]
    ) -> Decision:
        """A reply without the confirming word (an auto-responder's "I am away" is no
        confirmation: the GM writes the word): told once per code, so no loop; its lines
        (``unread``) are said not read."""
        if confirmation.hinted_at is None:
            self.store.mark_hinted(confirmation.code, message.now)
            self.mail.reply(
                message.letter,
                message.from_address,
                "gm_confirm_missing",
                {
                    "expires_at": confirmation.expires_at,
                    "unread": list(unread),
                    "gm_address": self.addresses.gm_address(game.id),
                },
                message.now,
                game=game,
                player=GM_SEAT,
                token=confirmation.code,
                limited=False,  # once per code, to the GM: its Reply-To confirms
            )
        return Decision(Handled.GM_UNCONFIRMED, game.id, GM_SEAT)
