"""Incoming mail: the chain of small rules every message passes (Mailman's runner
chain; DESIGN.md, "who before what").

:class:`Intake` runs one message through :meth:`Intake.rules` in order, the first
rule that answers decides: the rules about who wrote
(:class:`~pbp.app.intake.senders.SenderRules`: the header section only) come before
the intake's own body step (:meth:`Intake.read_body`: the body read on a CPU budget,
a copy of a mail applied before recognised), then those about what was written
(:class:`~pbp.app.intake.letters.LetterRules`), with the intake's own catch-up step
(:meth:`Intake.catch_up`, rule D8) before a player's moves. A rule answers with a
:class:`~pbp.app.outcome.Decision`; the intake's record step writes it as the
message's row (:meth:`Intake.record`), and, when the rule pulled GM levers, applies
the mail a RESUME freed (:meth:`Intake.replay_held`). All of it is one savepoint of
the store's transaction (:meth:`pbp.store.Store.savepoint`), so a crash neither loses
nor repeats a move; a message whose handling crashes is kept for the GM.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Callable, Iterable
from datetime import datetime

from pbp.app.budget import BudgetExceeded, cpu_budget
from pbp.app.deadlines import Deadlines
from pbp.app.digest import Digest
from pbp.app.intake.letters import LetterRules
from pbp.app.intake.senders import TOO_LARGE, SenderRules
from pbp.app.mailer import Mailer
from pbp.app.message import (
    RETRIED_SOURCE,
    Message,
    fingerprint,
    source_key,
    text_digest,
    too_complex,
    unread_header,
)
from pbp.app.outcome import Decision, Handled, Outcome
from pbp.app.reader import BodyReader
from pbp.app.running import paused_since, replay_key
from pbp.app.settings import Clock, Configured, Settings
from pbp.mail.base import RawMessage
from pbp.mail.read.mime import read_letter
from pbp.store import KeptMessage, Store, TransactionLostError

__all__ = [
    "TOO_LARGE",
    "Intake",
    "Message",
    "fingerprint",
    "source_key",
    "text_digest",
    "too_complex",
]

log = logging.getLogger(__name__)


def logged(outcome: Outcome) -> Outcome:
    """Log one INFO line for a processed message (source, outcome, game, player; never
    its text, which may hold a player's hidden card), and return it."""
    where = "".join(
        f" {label} {value}"
        for label, value in (("game", outcome.game_id), ("player", outcome.player))
        if value
    )
    log.info("message %s: %s%s", outcome.source, outcome.outcome, where)
    return outcome


class _KeptAgain(Exception):
    """A retried message kept again (``reason``): its transaction is rolled back."""

    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


def _in_order(message: KeptMessage) -> tuple[datetime, int]:
    """Kept messages in their arrival order (rule D8), then as kept."""
    return (message.arrived, message.id)


class Intake(Configured):
    """Handles incoming messages for the games configured: each through the rules of
    :meth:`rules`, in one transaction. Its own steps read the body (``read_body``) and
    pass the deadlines due before a move (``deadlines``); the rules about who wrote and
    what was written are handed over by :meth:`use` (they re-enter the intake for a
    GM's RETRY: :class:`~pbp.app.outcome.Rerun`)."""

    senders: SenderRules
    letters: LetterRules

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Clock,
        mail: Mailer,
        digest: Digest,
        *,
        read_body: BodyReader,
        deadlines: Deadlines,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.mail = mail
        self.digest = digest
        self.body_reader = read_body
        self.deadlines = deadlines

    def use(self, senders: SenderRules, letters: LetterRules) -> None:
        """Run messages through ``senders`` and ``letters`` (:meth:`rules`)."""
        self.senders = senders
        self.letters = letters

    def handle(
        self,
        raw: RawMessage,
        now: datetime,
        *,
        source: str | None = None,
        replay_of: int | None = None,
        replies_to: frozenset[str] = frozenset(),
    ) -> Outcome:
        """Process one message: identify, apply its moves, answer; one transaction.

        Never raises for bad mail: an unreadable, automatic or crashing message is
        kept for the GM (``pbp kept``) and does not block later mail. ``source``:
        the store's key of the message (default :func:`source_key`); ``replay_of``:
        the kept id of the mail held by a pause that this applies on resume (rule
        D8: not a copy of itself; the held row records what came of it);
        ``replies_to``: the tokens the mail applied again with it was sent to
        (:attr:`Message.replies_to`).
        """
        source = source or source_key(raw)
        if self.store.seen(source):
            return logged(Outcome(source, Handled.DUPLICATE))
        latest = max(now, self.clock())
        if raw.arrived > latest:
            # A clock ahead of ours (a server's INTERNALDATE, `pbp mail --at`) must not
            # fast-forward the game through closes that have not happened (D8). Ours is
            # the clock's reading now, not the round's start: mail that arrived while
            # the round ran keeps its own arrival time (the same in any run).
            raw = dataclasses.replace(raw, arrived=latest)
        try:
            # All or nothing, also inside a group commit (Service.process_inbox): what
            # a crashing message wrote is rolled back before it is kept.
            with self.store.savepoint():
                return logged(self.run(raw, source, now, replay_of, replies_to))
        except TransactionLostError:
            raise  # the whole group is gone: it is handled again, whole (a later round)
        except Exception as error:  # a bug: keep the message, never lose it
            log.exception("message %s could not be processed", source)
            with self.store.transaction():
                kept_id = self.store.keep(source, raw.arrived, f"error: {error!r}", raw.raw, now)
                self.store.record_message(
                    source,
                    message_id=None,
                    arrived=raw.arrived,
                    processed_at=now,
                    outcome=Handled.ERROR,
                    note=repr(error),
                    replay_of=replay_of,
                )
                if replay_of is not None:  # the held row points to the new one
                    self.store.mark_resumed(replay_of, now, "error")
                # The notices commit with the kept row: a crash cannot keep it untold.
                self._notice_error(raw, kept_id, repr(error), now)
            return logged(Outcome(source, Handled.ERROR, notes=[repr(error)]))

    def retry(self, kept_ids: Iterable[int], now: datetime) -> list[Outcome]:
        """Process kept messages again (``pbp retry``), after the GM fixed what kept them
        (a bug, a player missing from games.yaml).

        In their original arrival order, each with its original arrival time (rule
        D8: a move counts in the game day in which it arrived, as long as that day is
        still open; a day closed since is not reopened). Each is one transaction: its
        effects, its mails and the kept row's ``retried_at`` commit together. One that
        crashes again is rolled back and stays kept with the new error
        (outcome ``error``); one retried already is not applied twice (``retried``).

        :raises LookupError: no kept message has one of these ids.
        """
        kept = []
        for kept_id in kept_ids:
            message = self.store.kept_message(kept_id)
            if message is None:
                raise LookupError(f"no kept message {kept_id} (see pbp kept)")
            kept.append(message)
        return [self._retry_one(kept_message, now) for kept_message in sorted(kept, key=_in_order)]

    def _retry_one(self, message: KeptMessage, now: datetime) -> Outcome:
        """Process one kept message again (:meth:`retry`), unless there is nothing to
        do: held by a pause (applied once, on resume, D8), retried already, or kept
        with its header section only (over the size limit)."""
        source = f"{RETRIED_SOURCE}{message.id}"
        if message.held_for is not None:
            if message.waiting:
                return Outcome(source, Handled.HELD, notes=["applied on resume"])
            return Outcome(source, Handled.RESUMED, notes=[message.retry_outcome or ""])
        if not message.waiting or self.store.seen(source):
            return Outcome(source, Handled.RETRIED, notes=[message.retry_outcome or ""])
        if message.reason.startswith(TOO_LARGE):
            note = "only its header section was kept: ask the sender to send it again"
            return Outcome(source, Handled.TOO_LARGE, notes=[note])
        raw = RawMessage(source, None, min(message.arrived, now), message.raw)
        before = self.store.last_kept(source)
        try:
            # A savepoint: inside a GM's RETRY by mail (its message's own transaction)
            # a retry kept again must still roll back alone.
            with self.store.savepoint():
                outcome = self.run(raw, source, now)
                again = self.store.last_kept(source)
                if again is not None and again != before and again.held_for is None:
                    # Kept again (still an unknown sender, …): rolled back, so no
                    # second kept row, reply or GM notice; the row notes the try.
                    raise _KeptAgain(outcome, again.reason)
                self.store.mark_retried(message.id, now, outcome.outcome)
        except _KeptAgain as kept_again:
            with self.store.transaction():
                self.store.note_kept_error(message.id, kept_again.reason)
                self.store.mark_retried(message.id, now, kept_again.outcome.outcome)
            return dataclasses.replace(kept_again.outcome, notes=["still kept"])
        except Exception as error:  # still broken: it stays kept
            log.exception("kept message %d could not be processed again", message.id)
            with self.store.transaction():
                self.store.note_kept_error(message.id, f"error: {error!r}")
                self.store.mark_retried(message.id, now, "error")
            return Outcome(source, Handled.ERROR, notes=[repr(error)])
        return outcome

    def _notice_error(self, raw: RawMessage, kept_id: int, error: str, now: datetime) -> None:
        """Tell a player and the GMs of his games at once that his message crashed its
        handler and is kept (his moves wait for ``pbp retry``); anybody else's goes in
        the GM digest, unanswered (:mod:`pbp.app.digest`).

        Best effort: a failure here is logged, the message stays in ``pbp kept``. The
        mail is read on its CPU budget; over it, its sender is unknown (the digest).
        """
        try:
            try:
                with cpu_budget(self.config.mail.cpu_seconds_per_message):
                    letter = read_letter(raw.raw)
            except BudgetExceeded as exceeded:
                letter = unread_header(exceeded)
            with self.store.transaction():
                sender = letter.from_address
                seats = self.store.tokens_of(sender) if sender else []
                if sender and seats and not letter.automatic:
                    game = self.game_config(seats[0].game_id)
                    self.mail.reply(letter, sender, "failed", {}, now, game=game)
                if not seats:
                    self.digest.add(None, "error", kept_id, letter, now, arrived=raw.arrived)
                    return
                notified: set[str] = set()
                for game_id in dict.fromkeys(seat.game_id for seat in seats):
                    game = self.game_config(game_id)
                    if game.gm.lower() not in notified:
                        notified.add(game.gm.lower())
                        self.mail.notice_gm(game, letter, raw, "error", kept_id, now, error)
        except Exception:
            log.exception("could not tell the GM about kept message %s", kept_id)

    def run(
        self,
        raw: RawMessage,
        source: str,
        now: datetime,
        replay_of: int | None = None,
        replies_to: frozenset[str] = frozenset(),
    ) -> Outcome:
        """Run the message through :meth:`intake`'s rules in order; the first that
        answers decides (Mailman's runner chain; DESIGN.md, "who before what")."""
        # Who before what: the header section alone says who wrote to which address;
        # the body is read only for a player or GM of a game. Like the body, on a CPU
        # budget (the inbox delivers at most HEADER_BYTES of it: the budget is the
        # safety net, not the plan).
        seconds = self.config.mail.cpu_seconds_per_message
        try:
            with cpu_budget(seconds):
                letter = read_letter(raw.raw, body=False)
                # What recognises the mail again in a renumbered mailbox (a new
                # UIDVALIDITY): its Message-ID, else a fingerprint of its fields and body.
                identity = letter.message_id or fingerprint(raw.raw)
        except BudgetExceeded as exceeded:
            letter = unread_header(exceeded)
            identity = f"sha256:{hashlib.sha256(raw.raw).hexdigest()}"
        message = Message(
            raw=raw,
            source=source,
            now=now,
            replay_of=replay_of,
            letter=letter,
            identity=identity,
            replies_to=replies_to,
            cpu_seconds=seconds,
        )
        for rule in self.rules():
            decision = rule(message)
            if decision is not None:
                outcome = self.record(message, decision)
                if decision.replay_held:
                    # Levers pulled: a RESUME may have freed held mail (D8).
                    self.replay_held(now)
                return outcome
        raise AssertionError("the last intake rule answers every message")

    def rules(self) -> tuple[Callable[[Message], Decision | None], ...]:
        """The rules every incoming message passes, in order; each returns its outcome
        or None to pass the message on. Who before what (DESIGN.md): the entry itself,
        the sender, automatic mail (RFC 3834), the size, the address it was sent to
        and its sender's seat, the sender's authentication (RFC 8601), then the body
        (read in linear time, on a CPU budget: :meth:`read_body`), and only then the
        game's rules, a player's moves after his game's deadlines due before the mail
        arrived (:meth:`catch_up`, rule D8)."""
        return (
            self.senders.odd_entry,
            self.senders.no_single_sender,
            self.senders.automatic,
            self.senders.oversized,
            self.senders.confirming,
            self.senders.seat,
            self.senders.replaced,
            self.senders.unauthenticated_sender,
            self.read_body,
            self.senders.automatic_report,
            self.letters.gm_commands,
            self.letters.new_address,
            self.letters.unreadable_body,
            self.letters.paused,
            self.catch_up,
            self.letters.paused,  # paused just now after an outage (rule P3)
            self.letters.player_moves,
        )

    def read_body(self, message: Message) -> Decision | None:
        """The body step, for a player or the GM of a game: the body read now, in linear
        time and on a budget (:class:`pbp.app.reader.BodyReader`). The same mail again (a
        renumbered mailbox, a copy) is never applied twice: its Message-ID *and* its
        text are known (a different mail under a reused Message-ID, from a broken
        client, is no copy; a copy a relay encoded anew still is). A mail held by a
        pause and applied on resume is no copy of itself."""
        seat = message.in_seat
        message.letter = self.body_reader(message.raw.raw, message.letter)
        message.digest = text_digest(message.letter.text)
        if message.replay_of is not None or not self.store.message_id_seen(
            message.identity, seat.game_id, seat.player, content=message.digest
        ):
            return None
        return Decision(Handled.DUPLICATE, note=message.identity)

    def catch_up(self, message: Message) -> None:
        """The catch-up step before a player's moves (rule D8): everything of his game
        that fell due before the mail arrived is passed first
        (:meth:`pbp.app.deadlines.Deadlines.advance`); passes the message on."""
        self.deadlines.advance(message.in_seat.game_id, message.arrived, message.now)

    def held(self, game_id: str) -> list[KeptMessage]:
        """The mail held while ``game_id`` was paused and not yet applied, in arrival
        order (:meth:`pbp.store.Store.held`)."""
        return sorted(self.store.held(game_id), key=lambda kept: (kept.arrived, kept.id))

    def replay_held(self, now: datetime) -> list[Outcome]:
        """Apply the held mail of every game that is no longer paused (rule D8: in
        arrival order, each in the game day it arrived in). Safe to call any time:
        each held message is applied once (its message row's ``replay_of`` is the
        kept id; source key :func:`pbp.app.running.replay_key`)."""
        outcomes: list[Outcome] = []
        holding = self.store.holding_games()  # one query; usually empty
        if not holding:
            return outcomes
        for game in self.config.games:
            if game.id not in holding:
                continue
            if self.store.schedule(game.id) is None or paused_since(self.store, game.id):
                continue
            for kept in self.held(game.id):
                raw = RawMessage(kept.source, None, kept.arrived, kept.raw)
                outcome = self.handle(raw, now, source=replay_key(kept), replay_of=kept.id)
                outcomes.append(outcome)
        return outcomes

    def record(self, message: Message, decision: Decision) -> Outcome:
        """The record step: what a rule decided of ``message`` written as its row in the
        store (in the transaction of the rule's own writes), returned as an
        :class:`Outcome`."""
        self.store.record_message(
            message.source,
            message_id=message.identity,
            arrived=message.raw.arrived,
            processed_at=message.now,
            outcome=decision.outcome,
            game_id=decision.game_id,
            player=decision.player,
            note=decision.note,
            content=message.digest,
            replay_of=message.replay_of,
        )
        if message.replay_of is not None:  # `pbp kept` shows the held mail as done (D8)
            self.store.mark_resumed(message.replay_of, message.now, decision.outcome)
        note = decision.note
        return Outcome(
            message.source,
            decision.outcome,
            decision.game_id,
            decision.player,
            [note] if note else [],
        )
