"""The intake rules about who wrote (DESIGN.md, "who before what").

Each rule takes a :class:`~pbp.app.message.Message` and returns its
:class:`~pbp.app.outcome.Decision`, or None to pass it on (:meth:`pbp.app.intake.Intake.rules`
gives their order). These look at the header section only: the entry itself, the
sender (RFC 5322 §3.6.2), automatic mail (RFC 3834), the size, the personal address
the mail was sent to and its sender's seat, and the receiving server's
authentication of the sender (RFC 8601). Nobody but a player or GM of a game is ever
answered beyond the bounds set here: strangers, forgers and automatic mail are kept
for the GM's digest.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from babel.numbers import format_decimal

from pbp.app.digest import Digest
from pbp.app.gm.addresses import Addresses
from pbp.app.gm.confirm import Confirmations
from pbp.app.mailer import Mailer
from pbp.app.message import Message
from pbp.app.outcome import Decision, Handled
from pbp.app.owntext import OwnText
from pbp.app.reader import BodyReader
from pbp.app.settings import Configured, Settings
from pbp.config.model import Game
from pbp.mail.base import (
    HEADER_BYTES,
    MAX_HEADER_FIELDS,
    OVER_HEADER_FIELDS,
    RawMessage,
    header_section,
    stranger_raw,
)
from pbp.mail.read.address import rate_key
from pbp.mail.read.mime import Letter, find_tokens
from pbp.store import GM_SEAT, Seat, Store
from pbp.text.gmcommands import parse_gm

#: The start of a kept row's reason when the mail was over ``mail.max_message_size``.
TOO_LARGE = "too_large: "
#: A sender who plays in no game is answered at most this often (a stranger at a
#: personal address, :meth:`SenderRules._stranger_at_seat`).
STRANGER_ANSWER_EVERY = timedelta(hours=24)
#: Strangers answered in :data:`STRANGER_ANSWER_EVERY` for mail to one personal address
#: (a leaked address under a flood of forged senders answers no more than this).
STRANGER_ANSWERS_PER_ADDRESS = 3


class SenderRules(Configured):
    """The rules about who wrote, on the store and mail of the games configured; a
    reply to a confirmation address goes to the ``confirmations``, mail to a retired
    address to the ``addresses``; a body is read (``read_body``, ``own``) only where
    a GM wrote to a player's address or a player to his retired one."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        mail: Mailer,
        digest: Digest,
        *,
        addresses: Addresses,
        confirmations: Confirmations,
        own: OwnText,
        read_body: BodyReader,
    ) -> None:
        self.settings = settings
        self.store = store
        self.mail = mail
        self.digest = digest
        self.addresses = addresses
        self.confirmations = confirmations
        self.own = own
        self.read_body = read_body

    def odd_entry(self, message: Message) -> Decision | None:
        """Not a message at all (a Maildir entry that is no regular file): kept, told."""
        raw = message.raw
        if raw.defect is None:
            return None
        reason = f"odd_entry: {raw.defect}"
        kept_id = self.store.keep(message.source, raw.arrived, reason, raw.raw, message.now)
        self.digest.add(
            None,
            "odd_entry",
            kept_id,
            None,
            message.now,
            arrived=raw.arrived,
            detail=raw.defect,
        )
        return Decision(Handled.UNREADABLE, note=raw.defect)

    def no_single_sender(self, message: Message) -> Decision | None:
        """No single sender to trust or answer (several addresses, a source route, an
        address no one can read; a bounce from "MAILER-DAEMON" is automatic): kept for
        the digest, never answered."""
        problem = message.letter.from_problem
        if problem is None or (message.letter.automatic and message.sender is None):
            return None
        reason = f"forged_from: {problem}"
        kept_id = self.store.keep(
            message.source, message.arrived, reason, stranger_raw(message.raw.raw), message.now
        )
        self.digest.add(
            None,
            "forged_from",
            kept_id,
            None,
            message.now,
            arrived=message.arrived,
            detail=problem,
        )
        return Decision(Handled.FORGED_FROM, note=problem)

    def automatic(self, message: Message) -> Decision | None:
        """RFC 3834: never answer bounces or auto-replies; keep them for the GM."""
        if not message.letter.automatic and message.sender is not None:
            return None
        return self._keep_automatic(message)

    def automatic_report(self, message: Message) -> Decision | None:
        """A report part found once the body is read (a ``message/delivery-status``
        inside ``multipart/mixed``): automatic too, never answered (RFC 3834)."""
        if not message.letter.automatic:
            return None
        return self._keep_automatic(message)

    def _keep_automatic(self, message: Message) -> Decision:
        letter, raw = message.letter, message.raw
        kept_id = self.store.keep(
            message.source,
            raw.arrived,
            "automatic or no sender",
            stranger_raw(raw.raw),
            message.now,
        )
        self._to_digest(letter, "automatic", kept_id, raw, message.now)
        return Decision(Handled.AUTOMATIC)

    def oversized(self, message: Message) -> Decision | None:
        """Over ``max_message_size``, or a header section over the bounds the inbox
        reads (:attr:`~pbp.mail.base.RawMessage.long_header`): only (the first
        64 KB of) its header section is kept (:meth:`_too_large`)."""
        raw = message.raw
        size = raw.size if raw.size is not None else len(raw.raw)
        if not raw.truncated and size <= self.config.mail.max_message_size:
            return None
        return self._too_large(message, size)

    def _too_large(
        self,
        message: Message,
        size: int,
    ) -> Decision:
        """A mail over ``mail.max_message_size`` bytes, or whose header section is over
        the bounds: never parsed past (the first 64 KB of) its header section; kept
        with that and its size only (not its body, which could fill the disk),
        :func:`~pbp.mail.base.stranger_raw` cut whoever sent it. A player or GM of a
        started game, writing from his registered address, is told in his game's
        language why and what to send instead, and his GM at once; a stranger's, and
        one whose From the trusted server did not authenticate, goes to the GM digest
        unanswered."""
        sender = message.from_address
        raw = message.raw
        now = message.now
        limit = self.config.mail.max_message_size
        long_header = raw.long_header if size <= limit else None
        if long_header is not None:
            detail = f"header section {long_header}; {size} bytes in all"
        else:
            detail = f"{size} bytes, over the limit of {limit}"
        seats = self.store.tokens_of(sender)
        trusted = self.config.mail.trusted_server
        if seats and trusted is not None:
            # The header section is enough to see a From the server did not
            # authenticate (RFC 8601): no player's, so no answer and no notice.
            checked = message.authentication(trusted)
            if not checked.authenticated:
                seats = []
                detail = f"{detail}; unauthenticated: {checked.reason}"
        kept = stranger_raw(header_section(raw.raw))
        kept_id = self.store.keep(message.source, raw.arrived, f"{TOO_LARGE}{detail}", kept, now)
        if not seats:  # a stranger: the digest, no answer
            self.digest.add(
                None, "too_large", kept_id, sender, now, arrived=raw.arrived, detail=detail
            )
            return Decision(Handled.TOO_LARGE, note=detail)
        game_id, player = seats[0].game_id, seats[0].player
        game = self.game_config(game_id)
        context: dict[str, object]
        facts: dict[str, object]
        if long_header == OVER_HEADER_FIELDS:  # a few KB of many short fields
            context = {"header_fields": MAX_HEADER_FIELDS}
            facts = dict(context)
        elif long_header is not None:
            context = {"header_kb": HEADER_BYTES // 1024}
            facts = dict(context)
        else:
            context = {
                "size_mb": megabytes(size, game.locale, over=limit),
                "limit_mb": megabytes(limit, game.locale),
            }
            facts = {"size": size, "limit": limit}
        self.mail.reply(message.letter, sender, "too_large", context, now, game=game, player=player)
        # His moves wait for him to send them again: his GM is told at once.
        self.mail.notice_gm(
            game, message.letter, raw, "too_large", kept_id, now, detail, facts, player
        )
        return Decision(Handled.TOO_LARGE, game_id, player, detail)

    def confirming(self, message: Message) -> Decision | None:
        """A reply to a confirmation address: the GM confirms levers he sent by mail
        (:meth:`pbp.app.gm.confirm.Confirmations.confirm`).

        Where ``mail.trusted_authserv_id`` is set, a reply from the GM's registered
        address whose From that server did not authenticate (RFC 8601,
        :meth:`~pbp.app.message.Message.authentication`: a ``dmarc=fail``, a forged
        field) confirms nothing: it is kept and answered as a player's move would be
        (:meth:`_unauthenticated`, outcome ``unauthenticated``), and the levers stay
        pending under their code."""
        message.tokens = find_tokens(
            message.letter,
            self.config.mail.address,
            "plus" if self.settings.plus else "subject_tag",
        )
        confirmation = self.confirmations.confirmation(message.tokens)
        if confirmation is None:
            return None
        game = self.game_config(confirmation.game_id)
        if message.from_address == self.addresses.registered(game.id):
            unauthenticated = self._unauthenticated(message, game, GM_SEAT)
            if unauthenticated is not None:
                return unauthenticated
        return self.confirmations.confirm(message, confirmation)

    def seat(self, message: Message) -> Decision | None:
        """The seat of the personal address the mail went to, when its sender holds it.

        Mail to two personal addresses (a Cc to another player's) counts for the
        sender's own. A stranger who found a personal address is an unknown sender
        (later rules); a player or the GM writing to another's address is answered
        where to write, and the GM told (``wrong_sender``, ``gm_wrong_address``: its
        body is read to tell whether he wrote a GM command or a move for the player)."""
        sender = message.from_address
        now = message.now
        seats = [s for token in message.tokens if (s := self.store.token(token)) is not None]
        if not seats and message.retried:
            # Rule D8: a retried mail counts as of its arrival, when a token retired
            # since by a readdress was its seat's own (From: the seat's address now).
            seats = [
                s
                for token in message.tokens
                if (s := self.store.readdressed_seat(token, sender, message.arrived)) is not None
            ]
        seat = next((s for s in seats if s.email == sender), seats[0] if seats else None)
        if (
            seat is not None
            and seat.email != sender
            and not self.settings.registered_anywhere(self.store, sender)
        ):
            seat = None
        message.seat = seat
        if seat is None or seat.email == sender:
            return None
        game = self.game_config(seat.game_id)
        if sender == game.gm.lower():
            # The GM wrote to a player's address: point him to his own, and to ACT …
            # unless what he wrote was a GM command already (then it just goes there).
            letter = self.read_body(message.raw.raw, message.letter)
            text = "" if letter.unreadable else self.own.own_text(letter, game)
            gm_command = any(line.name is not None for line in parse_gm(text))
            context = {
                "player": seat.player,
                "gm_address": self.addresses.gm_address(game.id),
                "gm_command": gm_command,
            }
            # As from his GM seat: its Reply-To is his GM address.
            self.mail.reply(
                message.letter,
                sender,
                "gm_wrong_address",
                context,
                now,
                game=game,
                player=GM_SEAT,
            )
            return Decision(Handled.GM_WRONG_ADDRESS, seat.game_id, seat.player)
        # A player of this game answered as from his own seat: the Reply-To (or Subject
        # tag) is his own personal address, the one the answer tells him to write to;
        # nothing of the seat he wrote to. One of another game only: no Reply-To.
        own = next(
            (s.player for s in self.store.tokens_of(sender) if s.game_id == seat.game_id),
            None,
        )
        kept_id = self.store.keep(
            message.source, message.arrived, "wrong_sender", message.raw.raw, now
        )
        self.mail.reply(
            message.letter,
            sender,
            "wrong_sender",
            {"address": sender},
            now,
            game=game,
            player=None if own == GM_SEAT else own,
        )
        # Whose moves it holds: the sender's own seat in this game (a player at
        # another's address), else the seat whose address it reached (its player
        # at a new address?), as a RETRY's refusal names them (pbp.app.gm.kept).
        moves_of = own if own is not None and own != GM_SEAT else seat.player
        self.mail.notice_gm(
            game,
            message.letter,
            message.raw,
            "wrong_sender",
            kept_id,
            now,
            player=moves_of,
        )
        return Decision(Handled.WRONG_SENDER, seat.game_id, seat.player)

    def replaced(self, message: Message) -> Decision | None:
        """Mail to a retired personal address from its old holder: his seat went to a
        substitute (``replaced``), the GM gave the seat another address (``pbp
        readdress``, ADDRESS: ``old_address``, which names neither the new address nor
        anything of the game: this one may be a stranger's), or he replaced the
        address himself (NEW ADDRESS, ``pbp rotate-token``); anybody else's mail
        without a seat is an unknown sender's (:meth:`_no_seat`). Nothing is applied."""
        if message.seat is not None:
            return None
        olds = (self.store.retired_token(token) for token in message.tokens)
        retired = next((r for r in olds if r is not None), None)
        if retired is None or retired.email != message.from_address:
            return self._no_seat(message)
        if (
            self.store.player_email(retired.game_id, retired.player) != message.from_address
            and not self.read_body(message.raw.raw, message.letter).unreadable
        ):
            game = self.game_config(retired.game_id)
            context = {"seat": retired.player}
            readdressed = self.store.retired_by(retired) == "gm_readdress"
            self.mail.reply(
                message.letter,
                message.from_address,
                "old_address" if readdressed else "replaced",
                context,
                message.now,
                game=game,
            )
            outcome = Handled.READDRESSED if readdressed else Handled.REPLACED
            return Decision(outcome, retired.game_id, retired.player)
        if not message.letter.unreadable:
            return self.addresses.retired_address(message, retired.game_id, retired.player)
        return self._no_seat(message)

    def _no_seat(
        self,
        message: Message,
    ) -> Decision:
        """A mail without a valid personal token: tell the sender what to do.

        A registered player gets his personal address again (at his registered
        address); a player of a game that has not started is told when it starts;
        a stranger who wrote to a valid personal address is answered at most once a
        day (:meth:`_stranger_at_seat`); anybody else is never answered (backscatter),
        only kept and put in the GM digest.
        """
        letter = message.letter
        sender = message.from_address
        now = message.now
        seats = self.store.tokens_of(sender)
        if seats:
            return self._token_missing(message, seats)
        # A player of a started game without a seat was replaced (pbp substitute).
        waiting = [
            g
            for g in self.config.games
            if any(p.email.lower() == sender for p in g.players) and self.store.game(g.id) is None
        ]
        if waiting:
            game = waiting[0]
            start = game.start_at.isoformat() if game.start_at else None
            self.mail.reply(letter, sender, "not_started", {"start": start}, now, game=game)
            return Decision(Handled.NOT_STARTED, game.id)
        # The tokens were read by the confirmation rule (:meth:`confirming`).
        seat = next((f for t in message.tokens if (f := self.store.token(t)) is not None), None)
        if seat is not None:
            return self._stranger_at_seat(message, seat)
        # Never answered (backscatter: the From of spam is forged); the GMs see
        # it in their digest.
        kept = stranger_raw(message.raw.raw)
        kept_id = self.store.keep(message.source, message.arrived, "unknown_sender", kept, now)
        self.digest.add(None, "unknown_sender", kept_id, letter, now, arrived=message.arrived)
        return Decision(Handled.UNKNOWN_SENDER)

    def _token_missing(self, message: Message, seats: list[Seat]) -> Decision:
        """A registered player wrote without his personal token: he gets his personal
        address of each of his ``seats`` again, at his registered address, as from
        his (first) seat: the answer's Reply-To (or Subject tag) is his personal
        address, so replying to it just works. Its Subject and first line name
        every game of ``seats``.

        A GM (one of ``seats`` is a :data:`GM_SEAT`) may have written GM commands or
        replied to a confirmation address pbp does not know (a code from before a
        restore, a mistyped one): his answer says so and names his GM addresses as
        such (never the GM seat's internal name), and the mail is recorded for no
        game: which game it was for is unknown."""
        addresses = [
            {
                "game": seat.game_id,
                "player": seat.player,
                "gm": seat.player == GM_SEAT,
                "address": self.mail.personal(seat.token),
                "subject_tag": None if self.settings.plus else f"[pbp-{seat.token}]",
            }
            for seat in seats
        ]
        gm = any(seat.player == GM_SEAT for seat in seats)
        games = [self.game_config(g) for g in dict.fromkeys(seat.game_id for seat in seats)]
        self.mail.reply(
            message.letter,
            message.from_address,
            "token_missing",
            {"seats": addresses, "gm": gm},
            message.now,
            game=games[0],
            player=seats[0].player,
            # Named after every game it lists, not the first seat's alone.
            about=games,
        )
        if gm:
            return Decision(Handled.TOKEN_MISSING)
        return Decision(Handled.TOKEN_MISSING, seats[0].game_id, seats[0].player)

    def _stranger_at_seat(
        self,
        message: Message,
        seat: Seat,
    ) -> Decision:
        """A sender who plays in no game wrote to a valid personal address (of
        ``seat``): perhaps the player from another address. Kept, in the
        GM digest, and answered (``wrong_sender``, without his Subject) at most once
        in :data:`STRANGER_ANSWER_EVERY` per sender address, and to at most
        :data:`STRANGER_ANSWERS_PER_ADDRESS` senders in that time per personal address."""
        sender = message.from_address
        now = message.now
        game = self.game_config(seat.game_id)
        kept = stranger_raw(message.raw.raw)
        kept_id = self.store.keep(message.source, message.arrived, "wrong_sender", kept, now)
        self.digest.add(game, "wrong_sender", kept_id, message.letter, now, arrived=message.arrived)
        # Once a day per address, whichever way it is spelt (NFKC, case-folded).
        last = self.store.stranger_answered(rate_key(sender))
        since = now - STRANGER_ANSWER_EVERY
        if (last is None or last <= since) and self.store.stranger_answers_at_seat(
            seat.game_id, seat.player, since
        ) < STRANGER_ANSWERS_PER_ADDRESS:
            context = {"address": sender, "registered": False}
            self.mail.reply(
                message.letter, sender, "wrong_sender", context, now, game=game, stranger=True
            )
            self.store.record_stranger_answer(rate_key(sender), now, seat)
        return Decision(Handled.WRONG_SENDER, seat.game_id, seat.player)

    def unauthenticated_sender(self, message: Message) -> Decision | None:
        """A player's From the receiving server did not authenticate steers nothing
        (RFC 8601; :meth:`_unauthenticated`)."""
        seat = message.in_seat
        if seat.player == GM_SEAT:
            return None
        return self._unauthenticated(message, self.game_config(seat.game_id), seat.player)

    def _unauthenticated(
        self,
        message: Message,
        game: Game,
        player: str,
    ) -> Decision | None:
        """Where ``mail.trusted_authserv_id`` is set, a player's mail whose From that
        server did not authenticate (:func:`pbp.mail.read.authcheck.verdict`) is kept for the GM
        (``unauthenticated: REASON``; its first 64 KB, as a stranger's), not applied,
        and answered at his registered address (``unauthenticated``), the GM told at
        once (not for the GM's own mail, ``player`` :data:`GM_SEAT`: the answer is his
        notice); None when it passes or nothing is checked."""
        trusted = self.config.mail.trusted_server
        if trusted is None:
            return None
        checked = message.authentication(trusted)
        if checked.authenticated:
            return None
        reason = f"unauthenticated: {checked.reason}"
        # Anybody may have written it: kept cut as a stranger's.
        kept = stranger_raw(message.raw.raw)
        kept_id = self.store.keep(message.source, message.arrived, reason, kept, message.now)
        email = self.store.player_email(game.id, player) or message.from_address
        self.mail.reply(
            message.letter, email, "unauthenticated", {}, message.now, game=game, player=player
        )
        if player != GM_SEAT:  # the GM's own reply: the answer above tells him
            self.mail.notice_gm(
                game,
                message.letter,
                message.raw,
                "unauthenticated",
                kept_id,
                message.now,
                checked.reason,
                player=player,
            )
        return Decision(Handled.UNAUTHENTICATED, game.id, player, checked.reason)

    def _to_digest(
        self, letter: Letter, reason: str, kept_id: int, raw: RawMessage, now: datetime
    ) -> None:
        """Put a kept mail in the digest of the GMs of its sender's games (of every GM
        when he plays in none)."""
        sender = letter.from_address
        seats = self.store.tokens_of(sender) if sender else []
        games: list[str | None] = [*dict.fromkeys(seat.game_id for seat in seats)]
        for game_id in games or [None]:
            self.digest.add(game_id, reason, kept_id, letter, now, arrived=raw.arrived)


def megabytes(size: int, locale: str, *, up: bool = False, over: int | None = None) -> str:
    """``size`` bytes in megabytes (10**6), to one decimal, in ``locale``'s number format
    (Babel): ``megabytes(3_100_000, "ru")`` is ``"3,1"``, ``megabytes(10_000_000, "en")``
    ``"10"``. ``up``: rounded up. ``over`` (a limit ``size`` is over): rounded to the
    nearest tenth, and up only where the nearest would show it no larger than the
    limit (a mail one byte over 2 MB is "2,1", one of 205 941 bytes over 0,1 MB "0,2",
    not "0,3").

    >>> megabytes(205_941, "ru", over=100_000), megabytes(2_000_001, "ru", over=2_000_000)
    ('0,2', '2,1')
    """
    nearest, ceiling = round(size / 100_000), -(-size // 100_000)
    if over is not None:
        tenths = nearest if nearest > round(over / 100_000) else ceiling
    else:
        tenths = ceiling if up else nearest
    return str(format_decimal(tenths / 10, format="#,##0.#", locale=locale))
