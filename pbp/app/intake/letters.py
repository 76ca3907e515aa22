"""The intake rules about what was written: a player's or GM's letter, once its sender
holds a seat (DESIGN.md, "who before what").

The body was read just before, in linear time and on a CPU budget, by the intake's
own step (:meth:`pbp.app.intake.Intake.read_body`), which also recognises a copy of a
mail applied before. Then the GM's commands (:class:`pbp.app.gm.GmMail`), a NEW
ADDRESS, a body no move can be read from, mail held by a pause (rule D8), and last a
player's moves (:class:`pbp.app.playermoves.Moves`), after the intake's catch-up step
(:meth:`pbp.app.intake.Intake.catch_up`, rule D8).
"""

from __future__ import annotations

from pbp.app.budget import BudgetExceeded, cpu_budget
from pbp.app.gm.addresses import Addresses
from pbp.app.gm.by_mail import GmMail
from pbp.app.mailer import Mailer
from pbp.app.message import Message
from pbp.app.outcome import Decision, Handled
from pbp.app.owntext import Echoes, OwnText
from pbp.app.playermoves import Moves, quoted_commands
from pbp.app.reader import too_complex
from pbp.app.running import paused_since
from pbp.app.settings import Configured, Settings
from pbp.app.table import GameTable
from pbp.config.model import Game
from pbp.mail.base import stranger_raw
from pbp.store import GM_SEAT, HELD_REASON, Store
from pbp.text.commands import asks_new_address, beside_new_address


class LetterRules(Configured):
    """The rules about what a player or GM wrote, on the store, table and mail of the
    games configured: the GM's commands go to ``gm_mail``, NEW ADDRESS to the
    ``addresses``, moves to ``moves``; his own text is read by ``own``."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        table: GameTable,
        mail: Mailer,
        *,
        gm_mail: GmMail,
        addresses: Addresses,
        moves: Moves,
        own: OwnText,
    ) -> None:
        self.settings = settings
        self.store = store
        self.table = table
        self.mail = mail
        self.gm_mail = gm_mail
        self.addresses = addresses
        self.moves = moves
        self.own = own

    def gm_commands(self, message: Message) -> Decision | None:
        """The GM's mail to his GM address: his commands (:meth:`pbp.app.gm.GmMail.handle_mail`)."""
        seat = message.in_seat
        if seat.player != GM_SEAT:
            return None
        return self.gm_mail.handle_mail(message, seat.game_id)

    def new_address(self, message: Message) -> Decision | None:
        """NEW ADDRESS alone on a line of the player's own text: a new personal address."""
        seat, letter = message.in_seat, message.letter
        game = self.game_config(seat.game_id)
        own = self.own.own_text(letter, game, self._echoes(message, game))
        if not (asks_new_address(letter.text) and asks_new_address(own)):
            return None
        return self.addresses.new_address(message, game, seat.player, more=beside_new_address(own))

    def _echoes(self, message: Message, game: Game) -> Echoes:
        """The message's :class:`pbp.app.owntext.Echoes` (made once, for its letter of now)."""
        echoes = message.echoes
        if echoes is None or echoes.letter is not message.letter or echoes.game is not game:
            echoes = message.echoes = self.own.echoes(message.letter, game)
        return echoes

    def unreadable_body(self, message: Message) -> Decision | None:
        """A body no move can be read from (S/MIME, attachments only, …): kept, answered why."""
        if not message.letter.unreadable:
            return None
        return self._unreadable_seat(message)

    def _unreadable_seat(self, message: Message) -> Decision:
        seat = message.in_seat
        return self._unreadable(message, self.game_config(seat.game_id), seat.player)

    def _unreadable(
        self,
        message: Message,
        game: Game,
        player: str,
    ) -> Decision:
        """A player's mail whose body could not be read: kept (its first 64 KB, as a
        stranger's: :func:`~pbp.mail.base.stranger_raw`), he is told why, the GM too."""
        letter = message.letter
        reason = letter.unreadable or "unreadable"
        kept_id = self.store.keep(
            message.source,
            message.arrived,
            f"unreadable: {reason}",
            stranger_raw(message.raw.raw),
            message.now,
        )
        self.mail.reply(
            letter,
            message.from_address,
            "unreadable",
            {"reason": reason, "code": letter.unreadable_code},
            message.now,
            game=game,
            player=player,
        )
        facts = {"code": letter.unreadable_code}
        self.mail.notice_gm(
            game,
            letter,
            message.raw,
            "unreadable",
            kept_id,
            message.now,
            reason,
            facts,
            player,
        )
        return Decision(Handled.UNREADABLE, game.id, player, reason)

    def paused(self, message: Message) -> Decision | None:
        """Mail that arrived while its game is paused: held until the GM resumes, then
        applied in arrival order (D8)."""
        seat, raw, now = message.in_seat, message.raw, message.now
        pause = paused_since(self.store, seat.game_id)
        if pause is None or raw.arrived < pause.at:
            return None
        game = self.game_config(seat.game_id)
        self.store.keep(
            message.source, raw.arrived, HELD_REASON, raw.raw, now, held_for=seat.game_id
        )
        self.mail.reply(
            message.letter, message.from_address, "held", {}, now, game=game, player=seat.player
        )
        return Decision(Handled.PAUSED, seat.game_id, seat.player)

    def player_moves(self, message: Message) -> Decision:
        """A player's moves: read from his own text within the CPU budget, applied by
        the rules and answered (:meth:`pbp.app.playermoves.Moves.apply_mail`), in one
        transaction. Rule D8: everything of his game that fell due before the mail arrived
        was passed just before (:meth:`pbp.app.intake.Intake.catch_up`), and the mail held
        when that paused the game (rule P3, :meth:`paused`)."""
        seat, letter = message.in_seat, message.letter
        game = self.game_config(seat.game_id)
        kind = self.kind_of(game)
        try:
            state, schedule = self.table.snapshot(seat.game_id, kind)
            with cpu_budget(self.config.mail.cpu_seconds_per_message):
                own = self.own.own_reply(letter, game, self._echoes(message, game))
                aliases = self.store.seat_aliases(seat.game_id)
                commands = kind.parse(own.text, state, aliases)
                quoted = quoted_commands(kind, state, own, commands, forwarded=letter.forwarded)
            return self.moves.apply_mail(
                message, game, kind, state, own.text, commands, quoted, seat.player, schedule
            )
        except BudgetExceeded as exceeded:
            message.letter = too_complex(letter, exceeded)
            return self._unreadable_seat(message)
