"""Incoming mail: the chain of small rules every message passes (Mailman's runner
chain; DESIGN.md, "who before what").

:class:`Intake` runs one message through :meth:`Intake.rules` in order, the first
rule that answers decides: the rules about who wrote
(:class:`~pbp.app.intake.senders.SenderRules`: the header section only) come before
those about what was written (:class:`~pbp.app.intake.letters.LetterRules`: the body,
read on a CPU budget, then the game's rules). Each rule that answers does so in one
transaction with the message's row in the store, so a crash neither loses nor
repeats a move; a message whose handling crashes is kept for the GM.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from pbp.app.budget import BudgetExceeded, cpu_budget
from pbp.app.intake.letters import LetterRules
from pbp.app.intake.message import (
    RETRIED_SOURCE,
    Message,
    fingerprint,
    source_key,
    text_digest,
    too_complex,
    unread_header,
)
from pbp.app.intake.senders import TOO_LARGE, SenderRules
from pbp.app.outcome import Handled, Outcome
from pbp.app.service_part import ServicePart
from pbp.mail.base import RawMessage
from pbp.mail.read.mime import read_letter
from pbp.store import KeptMessage, TransactionLostError

if TYPE_CHECKING:
    from pbp.app.service import Service

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


class Intake(ServicePart):
    """Handles incoming messages for one :class:`~pbp.app.service.Service`: each through
    the rules of :meth:`rules`, in one transaction."""

    def __init__(self, service: Service) -> None:
        super().__init__(service)
        self.senders = SenderRules(service)
        self.letters = LetterRules(service)

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
        latest = max(now, self.service.clock())
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
        message.recorder = self.record
        for rule in self.rules():
            outcome = rule(message)
            if outcome is not None:
                return outcome
        raise AssertionError("the last intake rule answers every message")

    def rules(self) -> tuple[Callable[[Message], Outcome | None], ...]:
        """The rules every incoming message passes, in order; each returns its outcome
        or None to pass the message on. Who before what (DESIGN.md): the entry itself,
        the sender, automatic mail (RFC 3834), the size, the address it was sent to
        and its sender's seat, the sender's authentication (RFC 8601), then the body
        (read in linear time, on a CPU budget), and only then the game's rules."""
        return (
            self.senders.odd_entry,
            self.senders.no_single_sender,
            self.senders.automatic,
            self.senders.oversized,
            self.senders.confirming,
            self.senders.seat,
            self.senders.replaced,
            self.senders.unauthenticated_sender,
            self.letters.body,
            self.senders.automatic_report,
            self.letters.gm_commands,
            self.letters.new_address,
            self.letters.unreadable_body,
            self.letters.paused,
            self.letters.player_moves,
        )

    def record(
        self,
        message: Message,
        outcome: Handled,
        game_id: str | None = None,
        player: str | None = None,
        note: str | None = None,
    ) -> Outcome:
        """Record what came of ``message`` (its row in the store, in the transaction
        of the rule that answered) and return it as an :class:`Outcome`."""
        self.store.record_message(
            message.source,
            message_id=message.identity,
            arrived=message.raw.arrived,
            processed_at=message.now,
            outcome=outcome,
            game_id=game_id,
            player=player,
            note=note,
            content=message.digest,
            replay_of=message.replay_of,
        )
        if message.replay_of is not None:  # `pbp kept` shows the held mail as done (D8)
            self.store.mark_resumed(message.replay_of, message.now, outcome)
        return Outcome(message.source, outcome, game_id, player, [note] if note else [])
