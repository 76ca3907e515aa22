"""The imperative shell: the single writer that turns mail and deadlines into game steps.

Everything that changes a game goes through :class:`Service`, one transaction at
a time (DESIGN.md): an incoming message (its events, its row in ``messages`` and
every mail it causes commit together, and only then is it marked done in the
mailbox), a day close, a reminder, a game start. Mail is sent afterwards from the
committed outbox (:meth:`Service.flush_outbox`), with retries.

Time: every ``datetime`` here is timezone-aware. Rule D8: a move belongs to the
game day in which its message *arrived*; before applying a message the service
first performs every close and reminder of that game that fell due before the
arrival, so a daemon that was down catches up in time order.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import secrets
import string
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.policy import compat32, default
from typing import Any
from zoneinfo import ZoneInfo

from pbp.authcheck import verdict
from pbp.budget import BudgetExceeded, cpu_budget
from pbp.config import Config, Game
from pbp.core.events import Event, MoveError, Step
from pbp.core.kind import AnyKind, ParsedCommand
from pbp.core.registry import KINDS
from pbp.digest import Digest
from pbp.faults import crash_point
from pbp.gm import GmDesk, paused_since
from pbp.mail.base import Inbox, RawMessage, Transport, header_section, stranger_raw
from pbp.mailer import Mailer, event_dict
from pbp.outbox import flush
from pbp.outcome import Handled, Outcome
from pbp.parse.body import Reply, strip_echo, strip_help_echo
from pbp.parse.commands import asks_new_address
from pbp.parse.mime import Letter, find_tokens, read_letter
from pbp.ratelimit import AnswerLimit, is_loop
from pbp.render import Renderer
from pbp.seats import missing_games
from pbp.store import GM_SEAT, HELD_REASON, OutgoingMail, Seat, Store
from pbp.table import Applied, GameTable

log = logging.getLogger(__name__)

TOKEN_ALPHABET = string.ascii_lowercase + string.digits
TOKEN_LENGTH = 10
#: Messages marked done on the server per command, each after its own commit.
MARK_DONE_GROUP = 100
#: The start of a kept row's reason when the mail was over ``mail.max_message_size``.
TOO_LARGE = "too_large: "


#: Notices sent to one GM at once in an hour (:meth:`pbp.mailer.Mailer.notice_gm`); the
#: next ones go in his daily digest, so that forged mail cannot flood him.
NOTICES_PER_HOUR = 10

#: In a long round, waiting mail is served at least this often, seconds (:class:`_Between`).
SERVE_EVERY_SECONDS = 0.5
#: A sender who plays in no game is answered at most this often (a stranger at a
#: personal address, :meth:`Service._stranger_at_seat`).
STRANGER_ANSWER_EVERY = timedelta(hours=24)
#: Strangers answered in :data:`STRANGER_ANSWER_EVERY` for mail to one personal address
#: (a leaked address under a flood of forged senders answers no more than this).
STRANGER_ANSWERS_PER_ADDRESS = 3
#: Loop hashes, rate-limit windows and once-a-day marks are dropped after this.
FORGET_ANSWERS_AFTER = timedelta(days=2)


def source_key(raw: RawMessage) -> str:
    """The store's key of an incoming message: ``imap:UIDVALIDITY:UID`` or ``maildir:NAME``."""
    if raw.uidvalidity is None:
        return f"maildir:{raw.key}"
    return f"imap:{raw.uidvalidity}:{raw.key}"


def fingerprint(raw: bytes) -> str:
    """``sha256:<hex>`` of a mail without a Message-ID: its From, To, Cc, Date and Subject
    fields and its body, line ends normalised. These are the author's (RFC 5322 §3.6);
    trace fields a server prepends (Received, Delivered-To, Return-Path) and its
    flags are left out, so a mailbox rebuilt under a new UIDVALIDITY (RFC 3501
    §2.3.1.1) gives the same fingerprint.
    """
    head, _, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    fields = BytesHeaderParser(policy=compat32).parsebytes(head + b"\n\n")
    digest = hashlib.sha256()
    for name in ("From", "To", "Cc", "Date", "Subject"):
        digest.update(f"{name}: {fields.get(name, '')}\n".encode("utf-8", "surrogateescape"))
    digest.update(b"\n" + body)
    return f"sha256:{digest.hexdigest()}"


def text_digest(text: str) -> str:
    """``text:<hex>``, a short digest of a letter's new text (:attr:`Letter.text`).

    >>> text_digest("VOTE Петя")
    'text:0ef6c1deb848eb9afaef082ccb89e832'
    """
    data = text.encode("utf-8", "surrogatepass")
    return f"text:{hashlib.sha256(data).hexdigest()[:32]}"


def _logged(outcome: Outcome) -> Outcome:
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


@dataclass
class Message:
    """One incoming message as the intake rules see it (:meth:`Service.intake`): what
    is known of it so far, filled in rule by rule (its tokens, its sender's seat, its
    whole letter and the digest of its text once the body is read)."""

    raw: RawMessage
    #: The store's key of the message (:func:`source_key`).
    source: str
    now: datetime
    #: The kept id of the mail held by a pause that this applies on resume (D8).
    replay_of: int | None
    #: Its header section; the whole letter once :meth:`Service._body` read it.
    letter: Letter
    #: Its Message-ID, else a fingerprint of its fields and body.
    identity: str
    digest: str | None = None
    tokens: list[str] = field(default_factory=list)
    seat: Seat | None = None
    #: Records the outcome (:meth:`Service._record`), set by the service.
    recorder: Callable[..., Outcome] | None = None

    @property
    def sender(self) -> str | None:
        """The single sender's address, lower-cased, or None."""
        return self.letter.from_address

    @property
    def from_address(self) -> str:
        """The sender, once :meth:`Service._automatic` let only mail with one pass."""
        sender = self.letter.from_address
        assert sender is not None, "mail without a sender is answered as automatic"
        return sender

    @property
    def in_seat(self) -> Seat:
        """The sender's seat, once :meth:`Service._replaced` let only mail with one pass."""
        assert self.seat is not None, "mail without a seat is an unknown sender's"
        return self.seat

    def record(
        self,
        outcome: Handled,
        game_id: str | None = None,
        player: str | None = None,
        note: str | None = None,
    ) -> Outcome:
        """What came of the message, recorded in the store (:meth:`Service._record`)."""
        assert self.recorder is not None
        return self.recorder(self, outcome, game_id, player, note)


class Service:
    """The daemon's logic, transport-neutral.

    ``config`` is a loaded :class:`pbp.config.Config`; ``clock`` returns the
    current aware time (UTC), injected so that tests control time.
    """

    def __init__(
        self,
        config: Config,
        store: Store,
        renderer: Renderer,
        *,
        inbox: Inbox | None = None,
        transport: Transport | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        reader: Callable[[bytes], Letter] | None = None,
    ) -> None:
        self.config = config
        #: Reads a player's or GM's whole letter (:class:`pbp.reader.ChildReader` in
        #: ``pbp run``); None: in this process, on :func:`pbp.budget.cpu_budget`.
        self.reader = reader
        self.store = store
        self.renderer = renderer
        self.inbox = inbox
        self.transport = transport
        self.clock = clock
        self.address: str = config.mail.address
        self.plus = config.mail.personal_address == "plus"
        limit = AnswerLimit(store, config.mail.max_answers_per_hour)
        self.mail = Mailer(store, renderer, self.address, plus=self.plus, limit=limit)
        #: Mail kept or not answered, told to each GM once a day (:mod:`pbp.digest`).
        self.digest = Digest(config, store, self.mail, config.mail.digest_hour)
        # At most NOTICES_PER_HOUR notices at once to a GM; the others in his digest.
        self.mail.notice_limit = AnswerLimit(store, NOTICES_PER_HOUR)
        self.mail.notice_overflow = self.digest.add
        self._forgot: datetime | None = None  # the last pruning of send_owed
        self.table = GameTable(store, self.mail)
        self.gm = GmDesk(self)
        # game id -> (stored snapshot text, its engine state), least recently used first

    @staticmethod
    def new_token() -> str:
        """A new personal token (``TOKEN_LENGTH`` random letters and digits)."""
        return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))

    # --- configuration helpers ---------------------------------------------------

    def replace_config(self, config: Config) -> list[str]:
        """Go on with ``config`` (``games.yaml`` read again: ``pbp run``'s SIGHUP): a new
        game starts in the next round, changed settings of running games (deadline
        times, reminders) hold from their next deadline on, players of started games
        stay as dealt. What cannot change while pbp runs (``mail:``, ``store:``) is kept
        as it was, and said. Returns the notes to log, one sentence each.

        :raises ValueError: a running game is missing from ``config``
            (:func:`pbp.seats.missing_games`): nothing is replaced.
        """
        missing = missing_games(config, self.store)
        if missing is not None:
            raise ValueError(missing)
        started = set(self.store.schedules())
        notes = []
        kept: dict[str, object] = {}
        if config.mail != self.config.mail:
            kept["mail"] = self.config.mail
            notes.append("mail: changed; the new settings take effect when pbp run restarts")
        if config.store != self.config.store:
            kept["store"] = self.config.store
            notes.append("store: changed; the new file is used when pbp run restarts")
        if kept:
            path = config.path
            config = config.model_copy(update=kept)
            config._path = path
        new = [game.id for game in config.games if game.id not in started]
        before = {game.id for game in self.config.games}
        if added := [game_id for game_id in new if game_id not in before]:
            notes.append(f"new game(s) {', '.join(added)}: each starts at its start time")
        self.config = config
        self.digest.config = config
        return notes

    def game_config(self, game_id: str) -> Game:
        """The config model of one game; raises KeyError."""
        return self.config.game(game_id)

    @staticmethod
    def kind_of(game: Game | str) -> AnyKind:
        """The :class:`~pbp.core.kind.GameKind` of a config or a stored kind name."""
        return KINDS[game if isinstance(game, str) else game.kind]

    @staticmethod
    def zone(game: Game) -> ZoneInfo:
        """The game's time zone."""
        return ZoneInfo(game.timezone)

    # --- the main loop pieces ----------------------------------------------------

    def run_once(
        self, now: datetime | None = None, *, games: Collection[str] | None = None
    ) -> list[Outcome]:
        """Start due games, process every waiting message and due deadline, send mail.

        This is ``pbp run --once``; ``pbp run`` calls it whenever mail or a
        deadline may be due. ``games``: start and advance only these game ids
        (``pbp run --once --game``); waiting mail is processed for every game.

        :raises pbp.store.StoreReplacedError: the store's file was deleted or replaced (checked
            first, and before every transaction and every marking done).
        """
        self.store.check_identity()
        now = now or self.clock()
        outcomes: list[Outcome] = []
        # A long round (many games starting, the deadlines of many games at once)
        # serves the mail that arrives meanwhile every SERVE_EVERY_SECONDS.
        between = _Between(self, now, outcomes)
        try:
            self.start_due_games(now, between, games=games)
            outcomes.extend(self.process_inbox(now))
            self.advance_all(now, between, games=games)
            self.send_owed(now)
        finally:
            # Whatever failed, what is committed goes out.
            self.flush_outbox(now)
        return outcomes

    def process_inbox(self, now: datetime) -> list[Outcome]:
        """Handle every waiting message in arrival order, marking each done after its
        commit (each first performs its game's deadlines due before it arrived, D8);
        one set aside for the GM is first copied to the mailbox's kept folder."""
        outcomes: list[Outcome] = []
        # Mail held while a game was paused, once it runs again (a resume that
        # crashed before applying it, or one by another process).
        outcomes.extend(self.gm.replay_held(now))
        if self.inbox is None:
            return outcomes
        committed: list[str] = []
        try:
            waiting = self.inbox.fetch_new()
            crash_point("fetched")
            for raw in waiting:
                outcomes.append(self.handle(raw, now))
                crash_point("committed")
                if self.store.is_kept(source_key(raw)):
                    # A copy for the GM's mail client too (also after a crash here).
                    self.inbox.keep([raw.key])
                committed.append(raw.key)
                if len(committed) >= MARK_DONE_GROUP:
                    self._mark_done(committed)
                    committed = []
        finally:
            # Only committed messages, many per command (one IMAP round trip each).
            if committed:
                self._mark_done(committed)
        return outcomes

    def _mark_done(self, keys: list[str]) -> None:
        """Mark committed messages done in the mailbox, in one command (never after the
        store's file was deleted or replaced: their results would be lost with it)."""
        assert self.inbox is not None
        self.store.check_identity()
        self.inbox.mark_done(keys)
        for _ in keys:  # the crash tests count messages, not commands
            crash_point("marked")

    def start_due_games(
        self,
        now: datetime,
        between: Callable[[], None] | None = None,
        *,
        games: Collection[str] | None = None,
    ) -> list[str]:
        """Start every configured game (of ``games``, default all) whose ``start`` has
        come; returns their ids.

        ``between`` is called after each game (:class:`_Between`: waiting mail is
        served during a long round)."""
        started = []
        stored = self.store.schedules()  # one query, no state snapshot read
        for game in self.config.games:
            if games is not None and game.id not in games:
                continue
            if between is not None:
                between()
            if game.id in stored:
                continue
            start = game.start_at
            if start is not None and start > now:
                continue
            # Started when the hands actually go out: a daemon that was down at the
            # start time must not close game days nobody could play.
            try:
                self.start_game(game, now, now)
            except Exception:  # one broken game must not stop the others
                log.exception("game %s could not start; retried next round", game.id)
                continue
            started.append(game.id)
        return started

    def start_game(self, game: Game, at: datetime, now: datetime) -> None:
        """Deal, store, and mail hands (rule C2), the opening post (D1) and the GM sheet."""
        kind = self.kind_of(game)
        seed = game.seed if game.seed is not None else secrets.randbits(63)
        salt = secrets.token_bytes(32)
        step = kind.start(game, seed, salt, at)
        with self.store.transaction():
            first = kind.first_deadline(game, step.state, at)
            self.store.add_game(game.id, kind.kind, seed, salt, kind.dump(step.state), at, first)
            self.store.append_events(game.id, step.events, at=at, day=kind.day(step.state))
            for player in game.players:
                self.store.add_token(self.new_token(), game.id, player.name, player.email)
            self.store.add_token(self.new_token(), game.id, GM_SEAT, game.gm)
            for player in game.players:
                self.mail.player(
                    game,
                    player.name,
                    "welcome",
                    {
                        "status": kind.status(step.state, player.name),
                        "events": _visible(step.events, player.name),
                    },
                    now,
                )
            self.mail.gm(game, "gm_sheet", {"events": list(step.events), "seed": seed}, now)
            self.mail.gm_post(game, "opening", now, events=step.events)
        log.info("game %s started (seed %s)", game.id, seed)

    def advance_all(
        self,
        until: datetime,
        between: Callable[[], None] | None = None,
        *,
        games: Collection[str] | None = None,
    ) -> None:
        """Perform every due reminder and day close of every running game (of ``games``,
        default all) up to ``until``.

        ``between`` is called before each game (:class:`_Between`: a move that arrives
        while a thousand games close their day is not kept waiting behind them)."""
        for game in self.config.games:
            if games is not None and game.id not in games:
                continue
            if between is not None:
                between()
            try:
                self.advance(game.id, until)
            except Exception:  # one broken game must not stop the others
                log.exception("game %s: a deadline failed; retried next round", game.id)

    def advance(self, game_id: str, until: datetime, now: datetime | None = None) -> None:
        """Perform the due reminders and deadlines of one game, in time order, up to
        ``until``.

        Each deadline is its own transaction; one missed while the daemon was down
        happens once, at its own time (rule D8). A reminder is sent only while its
        deadline is still ahead of ``now`` (the real time, default ``until``): after
        an outage nobody is reminded of a day that has already closed.
        """
        now = now or until
        game = self.game_config(game_id)
        while True:
            # Without the state snapshot: this runs before every move (D8).
            schedule = self.store.schedule(game_id)
            if schedule is None or schedule.over or schedule.deadline_at is None:
                return
            close_at = schedule.deadline_at
            hours = game.remind_hours_before
            if hours:
                remind_at = close_at - timedelta(hours=hours)
                if remind_at <= until < close_at and now < close_at:
                    self.remind(game, remind_at, now)
            if close_at > until:
                return
            self.close_day(game_id, close_at, until, scheduled=True)

    def close_day(
        self,
        game_id: str,
        at: datetime,
        now: datetime | None = None,
        *,
        scheduled: bool = False,
        expect: tuple[str, int] | None = None,
    ) -> Step | None:
        """Pass the current deadline of ``game_id`` at ``at``: close the game day
        (rules D6, D7), or whatever the game kind does at its deadline.

        The GM defaults are applied, the GM gets the posts the kind asks for (the
        day summary), the next deadline is set by the kind (a manual day close keeps
        the regular schedule). ``scheduled``: this is the deadline due at ``at``; it
        is passed only if still due (another writer may have done it). ``expect``:
        ``(deadline name, period)`` the caller means, e.g. ``("day", 3)`` for ``pbp
        close-day`` on day 3; nothing is done when the game has moved on meanwhile
        (a catch-up or another process passed it). Returns None when nothing was done.
        """
        now = now or self.clock()
        game = self.game_config(game_id)
        kind = self.kind_of(game)
        with self.store.transaction():
            row = self.table.row(game_id)
            if row.over or row.deadline_at is None:
                return None
            if scheduled and row.deadline_at != at:
                return None
            state = kind.load(row.state)
            if expect is not None and expect != (kind.deadline_name(state), kind.day(state)):
                return None
            day = kind.day(state)
            ended = kind.deadline_name(state)
            step = kind.on_deadline(state, at)
            following = kind.next_deadline(game, step.state, row.deadline_at, at)
            self.table.commit(
                game, kind, step, at=at, day=day, source=f"close:{day}", deadline_at=following
            )
            for post, number in kind.posts(state, step):
                self.mail.gm_post(game, post, now, day=number)
            self.table.notify(game, kind, step, now)
            self.table.final_post(game, kind, step, now)
        log.info("game %s: %s %s closed at %s", game_id, ended, day, at.isoformat())
        return step

    def remind(self, game: Game, due_at: datetime, now: datetime) -> None:
        """Send one reminder to every player with open duties before the close."""
        kind = self.kind_of(game)
        with self.store.transaction():
            if self.store.reminder_sent(game.id, due_at):
                return
            row = self.table.row(game.id)
            state = kind.load(row.state)
            for player in kind.players(state):
                duties = kind.duties(state, player)
                if duties:
                    context = {"duties": duties, "close_at": row.deadline_at}
                    self.mail.player(game, player, "reminder", context, now)
            self.store.record_reminder(game.id, due_at)

    # --- one incoming message ------------------------------------------------------

    def handle(
        self,
        raw: RawMessage,
        now: datetime,
        *,
        source: str | None = None,
        replay_of: int | None = None,
    ) -> Outcome:
        """Process one message: identify, apply its moves, answer; one transaction.

        Never raises for bad mail: an unreadable, automatic or crashing message is
        kept for the GM (``pbp kept``) and does not block later mail. ``source``:
        the store's key of the message (default :func:`source_key`); ``replay_of``:
        the kept id of the mail held by a pause that this applies on resume (rule
        D8: not a copy of itself; the held row records what came of it).
        """
        source = source or source_key(raw)
        if self.store.seen(source):
            return _logged(Outcome(source, Handled.DUPLICATE))
        latest = max(now, self.clock())
        if raw.arrived > latest:
            # A clock ahead of ours (a server's INTERNALDATE, `pbp mail --at`) must not
            # fast-forward the game through closes that have not happened (D8). Ours is
            # the clock's reading now, not the round's start: mail that arrived while
            # the round ran keeps its own arrival time (the same in any run).
            raw = dataclasses.replace(raw, arrived=latest)
        try:
            return _logged(self._handle(raw, source, now, replay_of))
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
            return _logged(Outcome(source, Handled.ERROR, notes=[repr(error)]))

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
        outcomes = []
        for message in sorted(kept, key=lambda m: (m.arrived, m.id)):
            source = f"kept:{message.id}"
            if message.held_for is not None:
                # Held while its game was paused: applied once, on resume (D8).
                if message.waiting:
                    outcomes.append(Outcome(source, Handled.HELD, notes=["applied on resume"]))
                else:
                    outcomes.append(
                        Outcome(source, Handled.RESUMED, notes=[message.retry_outcome or ""])
                    )
                continue
            if not message.waiting or self.store.seen(source):
                outcomes.append(
                    Outcome(source, Handled.RETRIED, notes=[message.retry_outcome or ""])
                )
                continue
            if message.reason.startswith(TOO_LARGE):
                # Only its header section was kept: there is nothing to read again.
                note = "only its header section was kept: ask the sender to send it again"
                outcomes.append(Outcome(source, Handled.TOO_LARGE, notes=[note]))
                continue
            raw = RawMessage(source, None, min(message.arrived, now), message.raw)
            before = self.store.last_kept(source)
            try:
                with self.store.transaction():
                    outcome = self._handle(raw, source, now)
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
                outcome = dataclasses.replace(kept_again.outcome, notes=["still kept"])
            except Exception as error:  # still broken: it stays kept
                log.exception("kept message %d could not be processed again", message.id)
                with self.store.transaction():
                    self.store.note_kept_error(message.id, f"error: {error!r}")
                    self.store.mark_retried(message.id, now, "error")
                outcome = Outcome(source, Handled.ERROR, notes=[repr(error)])
            outcomes.append(outcome)
        return outcomes

    def _notice_error(self, raw: RawMessage, kept_id: int, error: str, now: datetime) -> None:
        """Tell a player and the GMs of his games at once that his message crashed its
        handler and is kept (his moves wait for ``pbp retry``); anybody else's goes in
        the GM digest, unanswered (:mod:`pbp.digest`).

        Best effort: a failure here is logged, the message stays in ``pbp kept``.
        """
        try:
            letter = read_letter(raw.raw)
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

    def _handle(
        self, raw: RawMessage, source: str, now: datetime, replay_of: int | None = None
    ) -> Outcome:
        """Run the message through :meth:`intake`'s rules in order; the first that
        answers decides (Mailman's runner chain; DESIGN.md, "who before what")."""
        # Who before what: the header section alone says who wrote to which address;
        # the body is read only for a player or GM of a game.
        letter = read_letter(raw.raw, body=False)
        message = Message(
            raw=raw,
            source=source,
            now=now,
            replay_of=replay_of,
            letter=letter,
            # What recognises the mail again in a renumbered mailbox (a new
            # UIDVALIDITY): its Message-ID, else a fingerprint of its fields and body.
            identity=letter.message_id or fingerprint(raw.raw),
        )
        message.recorder = self._record
        for rule in self.intake():
            outcome = rule(message)
            if outcome is not None:
                return outcome
        raise AssertionError("the last intake rule answers every message")

    def intake(self) -> tuple[Callable[[Message], Outcome | None], ...]:
        """The rules every incoming message passes, in order; each returns its outcome
        or None to pass the message on. Who before what (DESIGN.md): the entry itself,
        the sender, automatic mail (RFC 3834), the size, the address it was sent to
        and its sender's seat, the sender's authentication (RFC 8601), then the body
        (read in linear time, on a CPU budget), and only then the game's rules."""
        return (
            self._odd_entry,
            self._no_single_sender,
            self._automatic,
            self._oversized,
            self._confirming,
            self._seat,
            self._replaced,
            self._unauthenticated_sender,
            self._body,
            self._automatic_report,
            self._gm_mail,
            self._new_address,
            self._unreadable_body,
            self._paused,
            self._moves,
        )

    def _record(
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

    def _odd_entry(self, message: Message) -> Outcome | None:
        """Not a message at all (a Maildir entry that is no regular file): kept, told."""
        raw = message.raw
        if raw.defect is None:
            return None
        with self.store.transaction():
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
            return message.record(Handled.UNREADABLE, note=raw.defect)

    def _no_single_sender(self, message: Message) -> Outcome | None:
        """No single sender to trust or answer (several addresses, a source route, an
        address no one can read; a bounce from "MAILER-DAEMON" is automatic): kept for
        the digest, never answered."""
        letter = message.letter
        raw = message.raw
        problem = letter.from_problem
        if problem is None or (letter.automatic and message.sender is None):
            return None
        with self.store.transaction():
            reason = f"forged_from: {problem}"
            kept_id = self.store.keep(
                message.source, raw.arrived, reason, stranger_raw(raw.raw), message.now
            )
            self.digest.add(
                None, "forged_from", kept_id, None, message.now, arrived=raw.arrived, detail=problem
            )
            return message.record(Handled.FORGED_FROM, note=problem)

    def _automatic(self, message: Message) -> Outcome | None:
        """RFC 3834: never answer bounces or auto-replies; keep them for the GM."""
        if not message.letter.automatic and message.sender is not None:
            return None
        return self._keep_automatic(message)

    def _automatic_report(self, message: Message) -> Outcome | None:
        """A report part found once the body is read (a ``message/delivery-status``
        inside ``multipart/mixed``): automatic too, never answered (RFC 3834)."""
        if not message.letter.automatic:
            return None
        return self._keep_automatic(message)

    def _keep_automatic(self, message: Message) -> Outcome:
        letter, raw = message.letter, message.raw
        with self.store.transaction():
            kept_id = self.store.keep(
                message.source,
                raw.arrived,
                "automatic or no sender",
                stranger_raw(raw.raw),
                message.now,
            )
            self._to_digest(letter, "automatic", kept_id, raw, message.now)
            return message.record(Handled.AUTOMATIC)

    def _oversized(self, message: Message) -> Outcome | None:
        """Over ``max_message_size``: only its header section is kept (:meth:`_too_large`)."""
        raw = message.raw
        size = raw.size if raw.size is not None else len(raw.raw)
        if not raw.truncated and size <= self.config.mail.max_message_size:
            return None
        return self._too_large(message, size)

    def _confirming(self, message: Message) -> Outcome | None:
        """A reply to a confirmation address: the GM confirms levers he sent by mail."""
        message.tokens = find_tokens(
            message.letter, self.address, "plus" if self.plus else "subject_tag"
        )
        confirmation = self.gm.confirmation(message.tokens)
        if confirmation is None:
            return None
        return self.gm.confirm(message, confirmation)

    def _seat(self, message: Message) -> Outcome | None:
        """The seat of the personal address the mail went to, when its sender holds it.

        Mail to two personal addresses (a Cc to another player's) counts for the
        sender's own. A stranger who found a personal address is an unknown sender
        (later rules); a player or the GM writing to another's address is answered
        where to write, and the GM told (``wrong_sender``, ``gm_wrong_address``)."""
        sender = message.from_address
        letter = message.letter
        raw = message.raw
        now = message.now
        seats = [s for token in message.tokens if (s := self.store.token(token)) is not None]
        seat = next((s for s in seats if s.email == sender), seats[0] if seats else None)
        if seat is not None and seat.email != sender and not self.registered_anywhere(sender):
            seat = None
        message.seat = seat
        if seat is None or seat.email == sender:
            return None
        game = self.game_config(seat.game_id)
        if sender == game.gm.lower():
            # The GM wrote to a player's address: point him to his own (ACT …).
            with self.store.transaction():
                context = {"player": seat.player, "gm_address": self.gm.gm_address(game.id)}
                self.mail.reply(letter, sender, "gm_wrong_address", context, now, game=game)
                return message.record(Handled.GM_WRONG_ADDRESS, seat.game_id, seat.player)
        with self.store.transaction():
            kept_id = self.store.keep(message.source, raw.arrived, "wrong_sender", raw.raw, now)
            self.mail.reply(letter, sender, "wrong_sender", {"address": sender}, now, game=game)
            self.mail.notice_gm(game, letter, raw, "wrong_sender", kept_id, now)
            return message.record(Handled.WRONG_SENDER, seat.game_id, seat.player)

    def _replaced(self, message: Message) -> Outcome | None:
        """Mail to a retired personal address from its old holder: his seat went to a
        substitute (``replaced``), or he replaced the address himself (NEW ADDRESS,
        ``pbp rotate-token``); anybody else's mail without a seat is an unknown
        sender's (:meth:`_no_seat`)."""
        if message.seat is not None:
            return None
        sender = message.from_address
        letter = message.letter
        now = message.now
        olds = (self.store.retired_token(token) for token in message.tokens)
        retired = next((r for r in olds if r is not None), None)
        if retired is None or retired.email != sender:
            return self._no_seat(message)
        if (
            self.store.player_email(retired.game_id, retired.player) != sender
            and not self.read_body(message.raw.raw, letter).unreadable
        ):
            with self.store.transaction():
                game = self.game_config(retired.game_id)
                context = {"player": retired.player}
                self.mail.reply(letter, sender, "replaced", context, now, game=game)
                return message.record(Handled.REPLACED, retired.game_id, retired.player)
        if not letter.unreadable:
            return self.gm.retired_address(message, retired.game_id, retired.player)
        return self._no_seat(message)

    def _unauthenticated_sender(self, message: Message) -> Outcome | None:
        """A player's From the receiving server did not authenticate steers nothing
        (RFC 8601; :meth:`_unauthenticated`)."""
        seat = message.in_seat
        if seat.player == GM_SEAT:
            return None
        return self._unauthenticated(message, self.game_config(seat.game_id), seat.player)

    def _body(self, message: Message) -> Outcome | None:
        """A player or the GM of a game: now the body, in linear time and on a budget.
        The same mail again (a renumbered mailbox, a copy) is never applied twice: its
        Message-ID *and* its text are known (a different mail under a reused
        Message-ID, from a broken client, is no copy; a copy a relay encoded anew still
        is). A mail held by a pause and applied on resume is no copy of itself."""
        seat = message.in_seat
        message.letter = self.read_body(message.raw.raw, message.letter)
        message.digest = text_digest(message.letter.text)
        if message.replay_of is not None or not self.store.message_id_seen(
            message.identity, seat.game_id, seat.player, content=message.digest
        ):
            return None
        with self.store.transaction():
            return message.record(Handled.DUPLICATE, note=message.identity)

    def _gm_mail(self, message: Message) -> Outcome | None:
        """The GM's mail to his GM address: his commands (:meth:`GmDesk.handle_mail`)."""
        seat = message.in_seat
        if seat.player != GM_SEAT:
            return None
        return self.gm.handle_mail(message, seat.game_id)

    def _new_address(self, message: Message) -> Outcome | None:
        """NEW ADDRESS alone on a line of the player's own text: a new personal address."""
        seat, letter = message.in_seat, message.letter
        game = self.game_config(seat.game_id)
        if not (asks_new_address(letter.text) and asks_new_address(self.own_text(letter, game))):
            return None
        return self.gm.new_address(message, game, seat.player)

    def _unreadable_body(self, message: Message) -> Outcome | None:
        """A body no move can be read from (S/MIME, attachments only, …): kept, answered why."""
        if not message.letter.unreadable:
            return None
        return self._unreadable_seat(message)

    def _unreadable_seat(self, message: Message) -> Outcome:
        seat = message.in_seat
        return self._unreadable(message, self.game_config(seat.game_id), seat.player)

    def _paused(self, message: Message) -> Outcome | None:
        """Mail that arrived while its game is paused: held until the GM resumes, then
        applied in arrival order (D8)."""
        seat, raw, now = message.in_seat, message.raw, message.now
        pause = paused_since(self.store, seat.game_id)
        if pause is None or raw.arrived < pause.at:
            return None
        game = self.game_config(seat.game_id)
        with self.store.transaction():
            self.store.keep(
                message.source, raw.arrived, HELD_REASON, raw.raw, now, held_for=seat.game_id
            )
            self.mail.reply(
                message.letter, message.from_address, "held", {}, now, game=game, player=seat.player
            )
            return message.record(Handled.PAUSED, seat.game_id, seat.player)

    def _moves(self, message: Message) -> Outcome:
        """A player's moves: read from his own text within the CPU budget, applied by
        the rules and answered (:meth:`_apply_mail`), in one transaction. Rule D8:
        first everything of his game that fell due before the mail arrived."""
        seat, letter, raw = message.in_seat, message.letter, message.raw
        game = self.game_config(seat.game_id)
        self.advance(seat.game_id, raw.arrived, message.now)
        kind = self.kind_of(game)
        try:
            with self.store.transaction():
                state = self.table.state(seat.game_id, kind)
                with cpu_budget(self.config.mail.cpu_seconds_per_message):
                    own = self._own_reply(letter, game)
                    commands = kind.parse(own.text, state)
                    quoted = looks_quoted(kind, state, own.doubtful)
                return self._apply_mail(
                    message, game, kind, state, own.text, commands, quoted, seat.player
                )
        except BudgetExceeded as exceeded:
            message.letter = _too_complex(letter, exceeded)
            return self._unreadable_seat(message)

    def _apply_mail(
        self,
        message: Message,
        game: Game,
        kind: AnyKind,
        state: Any,
        text: str,
        commands: Sequence[ParsedCommand],
        quoted: Sequence[str],
        player: str,
    ) -> Outcome:
        """Apply a player's parsed commands, answer him and tell the others (inside the
        message's transaction). ``quoted``: command lines that may be quoted
        (:func:`looks_quoted`), never applied, listed in the answer."""
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        game_id = game.id
        results: list[dict[str, Any]] = []
        steps: list[Applied] = []
        for command in commands:
            result, applied = self.apply_command(
                game, kind, state, player, command, raw.arrived, source
            )
            results.append(result)
            if applied is not None:
                steps.append(applied)
                state = applied.step.state
        if not commands and (letter.forwarded or not quoted):
            # A forwarded mail's moves are not his (issue 5, case 13): say so. Lines that
            # look quoted are answered as such instead of "no command".
            code = "forwarded" if letter.forwarded else "no_command"
            params: dict[str, Any] = {}
            subject = subject_moves(letter.subject)
            if code == "no_command" and subject and kind.parse(subject, state):
                # Moves are read from the body only: say so when the Subject has one.
                code, params = "command_in_subject", {"subject": subject[:200]}
            results.append(
                {"line": "", "error": self.renderer.error(code, params, locale=game.locale)}
            )
        if all(command.move is None for command in commands):
            loop = self.loop(letter, sender, text, raw, source, game, now)
            if loop is not None:  # no answer: an auto-responder's loop
                return record(Handled.LOOP, game_id, player, loop)
        ignored = ignored_lines(text, commands)
        self.mail.reply(
            letter,
            sender,
            "reply",
            {
                "results": results,
                "player": player,
                "looks_quoted": [_cut(line) for line in quoted[:IGNORED_SHOWN]],
                "ignored": ignored[:IGNORED_SHOWN],
                "ignored_more": max(0, len(ignored) - IGNORED_SHOWN),
                "forwarded": letter.forwarded and bool(commands),
            },
            now,
            game=game,
            player=player,
        )
        # The sender's answer first, then what his moves cause for others.
        for applied in steps:
            self.table.tell(game, kind, applied, now)
        refused = sum(1 for result in results if "error" in result)
        if steps:
            outcome = Handled.APPLIED if not refused else Handled.PARTLY_APPLIED
        else:
            outcome = Handled.REFUSED if refused else Handled.STATUS
        return record(outcome, game_id, player)

    def read_body(self, raw: bytes, head: Letter) -> Letter:
        """The whole letter of ``raw`` (its header section already read as ``head``), read
        within the CPU budget (by :attr:`reader`, else :func:`pbp.budget.cpu_budget`);
        over it, ``head`` marked unreadable (``too_complex``)."""
        try:
            if self.reader is not None:
                return self.reader(raw)
            with cpu_budget(self.config.mail.cpu_seconds_per_message):
                return read_letter(raw)
        except BudgetExceeded as exceeded:
            return _too_complex(head, exceeded)

    def _unreadable(
        self,
        message: Message,
        game: Game,
        player: str,
    ) -> Outcome:
        """A player's mail whose body could not be read: kept, he is told why, the GM too."""
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        reason = letter.unreadable or "unreadable"
        with self.store.transaction():
            kept_id = self.store.keep(source, raw.arrived, f"unreadable: {reason}", raw.raw, now)
            self.mail.reply(
                letter,
                sender,
                "unreadable",
                {"reason": reason, "code": letter.unreadable_code},
                now,
                game=game,
                player=player,
            )
            self.mail.notice_gm(game, letter, raw, "unreadable", kept_id, now, reason)
            return record(Handled.UNREADABLE, game.id, player, reason)

    def _too_large(
        self,
        message: Message,
        size: int,
    ) -> Outcome:
        """A mail over ``mail.max_message_size`` bytes: never parsed; kept with its header
        section and size only (not its body, which could fill the disk). A player or GM
        of a started game, writing from his registered address, is told in his game's
        language why and what to send instead, and his GM at once; a stranger's, and
        one whose From the trusted server did not authenticate, goes to the GM digest
        unanswered."""
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        limit = self.config.mail.max_message_size
        detail = f"{size} bytes, over the limit of {limit}"
        seats = self.store.tokens_of(sender)
        trusted = self.config.mail.trusted_authserv_id
        if seats and trusted is not None:
            # The header section is enough to see a From the server did not
            # authenticate (RFC 8601): no player's, so no answer and no notice.
            checked = verdict(letter.authentication_results, sender, trusted)
            if not checked.authenticated:
                seats = []
                detail = f"{detail}; unauthenticated: {checked.reason}"
        with self.store.transaction():
            kept_id = self.store.keep(
                source, raw.arrived, f"{TOO_LARGE}{detail}", header_section(raw.raw), now
            )
            if not seats:  # a stranger: the digest, no answer
                self.digest.add(
                    None, "too_large", kept_id, sender, now, arrived=raw.arrived, detail=detail
                )
                return record(Handled.TOO_LARGE, note=detail)
            game_id, player = seats[0].game_id, seats[0].player
            game = self.game_config(game_id)
            context = {"size": size, "limit": limit}
            self.mail.reply(letter, sender, "too_large", context, now, game=game, player=player)
            # His moves wait for him to send them again: his GM is told at once.
            self.mail.notice_gm(game, letter, raw, "too_large", kept_id, now, detail)
            return record(Handled.TOO_LARGE, game_id, player, detail)

    def _unauthenticated(
        self,
        message: Message,
        game: Game,
        player: str,
    ) -> Outcome | None:
        """Where ``mail.trusted_authserv_id`` is set, a player's mail whose From that
        server did not authenticate (:func:`pbp.authcheck.verdict`) is kept for the GM
        (``unauthenticated: REASON``), not applied, and answered at his registered
        address (``unauthenticated``); None when it passes or nothing is checked."""
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        trusted = self.config.mail.trusted_authserv_id
        if trusted is None:
            return None
        checked = verdict(letter.authentication_results, sender, trusted)
        if checked.authenticated:
            return None
        with self.store.transaction():
            reason = f"unauthenticated: {checked.reason}"
            kept_id = self.store.keep(source, raw.arrived, reason, raw.raw, now)
            email = self.store.player_email(game.id, player) or sender
            self.mail.reply(letter, email, "unauthenticated", {}, now, game=game, player=player)
            self.mail.notice_gm(game, letter, raw, "unauthenticated", kept_id, now, checked.reason)
            return record(Handled.UNAUTHENTICATED, game.id, player, checked.reason)

    def registered_anywhere(self, address: str) -> bool:
        """True when ``address`` plays (or will play) in any configured game."""
        return bool(self.store.tokens_of(address)) or any(
            p.email.lower() == address for g in self.config.games for p in g.players
        )

    def _no_seat(
        self,
        message: Message,
    ) -> Outcome:
        """A mail without a valid personal token: tell the sender what to do.

        A registered player gets his personal address again (at his registered
        address); a player of a game that has not started is told when it starts;
        a stranger who wrote to a valid personal address is answered at most once a
        day (:meth:`_stranger_at_seat`); anybody else is never answered (backscatter),
        only kept and put in the GM digest.
        """
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        seats = self.store.tokens_of(sender)
        with self.store.transaction():
            if seats:
                addresses = [
                    {
                        "game": seat.game_id,
                        "player": seat.player,
                        "address": self.mail.personal(seat.token),
                        "subject_tag": None if self.plus else f"[pbp-{seat.token}]",
                    }
                    for seat in seats
                ]
                game = self.game_config(seats[0].game_id)
                # As from his seat: the answer's Reply-To (or Subject tag) is his
                # personal address, so replying to it just works.
                self.mail.reply(
                    letter,
                    sender,
                    "token_missing",
                    {"seats": addresses},
                    now,
                    game=game,
                    player=seats[0].player,
                )
                return record(Handled.TOKEN_MISSING, seats[0].game_id, seats[0].player)
            # A player of a started game without a seat was replaced (pbp substitute).
            waiting = [
                g
                for g in self.config.games
                if any(p.email.lower() == sender for p in g.players)
                and self.store.game(g.id) is None
            ]
            if waiting:
                game = waiting[0]
                start = game.start_at.isoformat() if game.start_at else None
                self.mail.reply(letter, sender, "not_started", {"start": start}, now, game=game)
                return record(Handled.NOT_STARTED, game.id)
            tokens = find_tokens(letter, self.address, "plus" if self.plus else "subject_tag")
            seat = next((f for t in tokens if (f := self.store.token(t)) is not None), None)
            if seat is not None:
                return self._stranger_at_seat(message, seat)
            # Never answered (backscatter: the From of spam is forged); the GMs see
            # it in their digest.
            kept = stranger_raw(raw.raw)
            kept_id = self.store.keep(source, raw.arrived, "unknown_sender", kept, now)
            self.digest.add(None, "unknown_sender", kept_id, letter, now, arrived=raw.arrived)
            return record(Handled.UNKNOWN_SENDER)

    def _stranger_at_seat(
        self,
        message: Message,
        seat: Seat,
    ) -> Outcome:
        """A sender who plays in no game wrote to a valid personal address (of
        ``seat``): perhaps the player from another address. Kept, in the
        GM digest, and answered (``wrong_sender``, without his Subject) at most once
        in :data:`STRANGER_ANSWER_EVERY` per sender address, and to at most
        :data:`STRANGER_ANSWERS_PER_ADDRESS` senders in that time per personal address."""
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        game = self.game_config(seat.game_id)
        kept = stranger_raw(raw.raw)
        kept_id = self.store.keep(source, raw.arrived, "wrong_sender", kept, now)
        self.digest.add(game, "wrong_sender", kept_id, letter, now, arrived=raw.arrived)
        last = self.store.stranger_answered(sender)
        since = now - STRANGER_ANSWER_EVERY
        if (last is None or last <= since) and self.store.stranger_answers_at_seat(
            seat.game_id, seat.player, since
        ) < STRANGER_ANSWERS_PER_ADDRESS:
            context = {"address": sender}
            self.mail.reply(letter, sender, "wrong_sender", context, now, game=game, stranger=True)
            self.store.record_stranger_answer(sender, now, seat)
        return record(Handled.WRONG_SENDER, seat.game_id, seat.player)

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

    def loop(
        self,
        letter: Letter,
        sender: str,
        text: str,
        raw: RawMessage,
        source: str,
        game: Game,
        now: datetime,
    ) -> str | None:
        """A player's mail in which pbp understood no command: is it an auto-responder's
        loop (:func:`pbp.ratelimit.is_loop`: an answer to ours within seconds, or the
        same text a third time in the hour)? Then it is kept and put in the GM
        digest, unanswered; returns ``quick_reply`` or ``same_body``, else None."""
        loop = is_loop(self.store, letter, sender, text, raw.arrived)
        if loop is not None:
            kept_id = self.store.keep(source, raw.arrived, "loop", raw.raw, now)
            self.digest.add(game, "loop", kept_id, letter, now, arrived=raw.arrived, detail=loop)
        return loop

    def send_owed(self, now: datetime) -> None:
        """The round's mail that is owed later: the summaries of answers held back by
        the rate limit whose hour has ended (:mod:`pbp.ratelimit`), then the GM digests
        whose daily moment has come (:mod:`pbp.digest`); each its own transaction. A
        failure is logged and retried next round."""
        try:
            for recipient in self.store.due_summaries(now):
                with self.store.transaction():
                    answers = self.store.take_deferred(recipient)
                    if not answers:
                        continue
                    try:
                        game = self.game_config(answers[0].game_id)
                    except KeyError:  # the game left games.yaml meanwhile
                        game = self.config.games[0]
                    self.mail.summary(game, recipient, answers, now)
            self.digest.send_due(now)
            if self._forgot is None or now - self._forgot >= timedelta(hours=1):
                with self.store.transaction():
                    self.store.forget_answers_before(now - FORGET_ANSWERS_AFTER)
                self._forgot = now
        except Exception:
            log.exception("summaries or GM digests failed; retried next round")

    def apply_command(
        self,
        game: Game,
        kind: AnyKind,
        state: Any,
        player: str,
        command: ParsedCommand,
        at: datetime,
        source: str,
    ) -> tuple[dict[str, Any], Applied | None]:
        """Apply and commit one command line at ``at`` (its arrival, D8): (its result
        for the reply, what it did)."""
        result: dict[str, Any] = {"line": command.text}
        if command.move is not None:
            result["move"] = move_dict(command.move)
        if command.error is not None:
            result["error"] = self._error_text(game, command.error)
            return result, None
        if command.private:
            result["private"] = type(command.move).__name__.lower()
            result["status"] = kind.status(self.table.with_history(game.id, kind, state), player)
            return result, None
        state = self.table.with_history(game.id, kind, state, command.move)
        try:
            step = kind.apply(state, player, command.move, at)
        except MoveError as error:
            result["error"] = self._error_text(game, error)
            return result, None
        self.table.commit(game, kind, step, at=at, day=kind.day(state), source=source)
        result["events"] = [event_dict(e) for e in _visible(step.events, player)]
        result["snippet"] = self.renderer.public_post(
            "move", step.events, locale=game.locale, fmt="bbcode", **self.mail.post_context(game)
        )
        return result, Applied(step, kind.posts(state, step))

    # --- committing and mailing --------------------------------------------------

    def own_text(self, letter: Letter, game: Game) -> str:
        """The player's own text (:meth:`_own_reply`)."""
        return self._own_reply(letter, game).text

    def _own_reply(self, letter: Letter, game: Game) -> Reply:
        """The player's own text and the lines that may be quoted: a quote of the mail
        of ours he answers, left there by a client that marks no quotes, is cut off, so
        our examples and forum snippets are never executed as his moves
        (:func:`pbp.parse.body.strip_echo`). The mail answered is found by In-Reply-To,
        else by the last of the References that is ours (some clients send References
        alone, RFC 5322 §3.6.4); our command help pasted back (it is in every welcome
        and HELP mail) is cut off even without threading
        (:func:`pbp.parse.body.strip_help_echo`). Both look at the text with its
        doubtful lines in place (a pasted mail of ours is known by its run of lines),
        which are then left out again, with the lines of the mail answered under a
        header block at the top (:meth:`pbp.parse.body.Reply.own`)."""
        reply = letter.reply
        text = reply.whole
        answered: str | None = None
        for message_id in (letter.in_reply_to, *reversed(letter.references)):
            ours = self.store.outgoing(message_id) if message_id else None
            if ours is not None:
                sent = message_from_bytes(ours, policy=default)
                part = sent.get_body(("plain",)) if isinstance(sent, EmailMessage) else None
                answered = str(part.get_content()) if part is not None else ""
                text = strip_echo(text, answered)
                break
        if not text.strip():
            return reply.own(text, answered)
        first = self.store.last_event(game.id, ["game_started"])  # one query, not the log
        started = [first.event] if first is not None else []
        _subject, help_text = self.renderer.private_mail(
            f"{game.kind}/help",
            locale=game.locale,
            **{**self.mail.context(game, None), "events": started},
        )
        return reply.own(strip_help_echo(text, help_text), answered)

    def _error_text(self, game: Game, error: MoveError) -> str:
        return self.renderer.error(error.code, error.params, locale=game.locale)

    # --- outbox ----------------------------------------------------------------------

    def flush_outbox(self, now: datetime | None = None) -> int:
        """Send every due mail of the outbox (:func:`pbp.outbox.flush`); how many went."""
        if self.transport is None:
            return 0
        moment = now or self.clock()

        def undeliverable(mail: OutgoingMail, reason: str) -> None:
            self._undeliverable(mail, reason, moment)

        return flush(self.store, self.transport, moment, undeliverable)

    def _undeliverable(self, mail: OutgoingMail, reason: str, now: datetime) -> None:
        """Tell the GM of the recipient's games (every GM for another address) that a
        mail was given up (RFC 5321 §4.2.1, a 5yz reply or too many retries), inside
        the transaction that gives it up. A mail to a GM is only logged: a note about
        it could fail the same way, for ever."""
        recipient = mail.recipient.lower()
        if any(game.gm.lower() == recipient for game in self.config.games):
            log.warning("mail %s to the GM %s given up: %s", mail.message_id, recipient, reason)
            return
        played = {seat.game_id for seat in self.store.tokens_of(recipient)}
        games = [g for g in self.config.games if g.id in played] or list(self.config.games)
        headers = message_from_bytes(mail.raw, policy=default)
        context = {
            "recipient": mail.recipient,
            "subject": str(headers.get("Subject", "")),
            "message_id": mail.message_id,
            "created": str(headers.get("Date", "")),
            "attempts": mail.attempts + 1,
            "reason": reason,
        }
        told: set[str] = set()
        for game in games:
            if game.gm.lower() not in told:
                told.add(game.gm.lower())
                self.mail.gm(game, "gm_undeliverable", context, now)


#: Most ignored lines quoted back in a reply, and the characters shown of each.
IGNORED_SHOWN = 10
IGNORED_WIDTH = 80


def move_dict(move: Any) -> dict[str, Any]:
    """A parsed move for the ``understood`` template macro: ``{"type": class name
    lower-cased, **fields}``, e.g. ``{"type": "vote", "target": "Петя", "prison": False}``."""
    is_instance = dataclasses.is_dataclass(move) and not isinstance(move, type)
    fields = dataclasses.asdict(move) if is_instance else {}
    return {"type": type(move).__name__.lower(), **fields}


#: What clients put before a Subject they answer or forward (RFC 5322 §3.6.5 and the
#: localised forms: Outlook's ``AW:``/``SV:``, Russian ``Ответ:``/``Отв:``/``Пересл:``),
#: with a count (``Re[2]:``), and our ``[game]`` / ``[pbp-TOKEN]`` tags.
_SUBJECT_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|aw|sv|wg|ответ|отв|пересл)\s*(?:\[\d+\]|\(\d+\))?\s*:|\[[^\]]{1,60}\])\s*",
    re.IGNORECASE,
)

_SUBJECT_TAG = re.compile(r"\[pbp-[A-Za-z0-9]+\]", re.IGNORECASE)


def subject_moves(subject: str) -> str:
    """``subject`` without reply/forward prefixes and bracketed tags, the text a player
    may have meant as a move (``"Re: [exler-1] STATUS [pbp-k3x9]"`` → ``"STATUS"``)."""
    subject = _SUBJECT_TAG.sub(" ", subject)
    while True:
        stripped = _SUBJECT_PREFIX.sub("", subject, count=1)
        if stripped == subject:
            return subject.strip()
        subject = stripped


#: Most doubtful lines of one mail tried as commands (:func:`looks_quoted`).
DOUBTFUL_TRIED = 50


def _cut(line: str) -> str:
    """``line`` cut to :data:`IGNORED_WIDTH` characters (``…`` at the cut)."""
    return line if len(line) <= IGNORED_WIDTH else line[: IGNORED_WIDTH - 1] + "…"


def looks_quoted(kind: AnyKind, state: Any, doubtful: Sequence[str]) -> list[str]:
    """The lines of ``doubtful`` (:attr:`pbp.parse.mime.Letter.doubtful`, lines that may
    be quoted) that the game reads as a command, right or wrong: never executed (a
    line that may be quoted is never executed), listed in the answer as "looks quoted
    — not done". At most the first :data:`DOUBTFUL_TRIED` lines are tried.

    Example: ``looks_quoted(maniac, state, ["ГОЛОС Оля", "и мы его учтём"])`` is
    ``["ГОЛОС Оля"]``."""
    return [line for line in doubtful[:DOUBTFUL_TRIED] if kind.parse(line, state)]


def ignored_lines(text: str, commands: Sequence[ParsedCommand]) -> list[str]:
    """The non-blank lines of ``text`` that are no part of any of ``commands`` (their
    ``text``), stripped, each cut to :data:`IGNORED_WIDTH` characters — what a reply
    lists as ignored (Mailman's "Ignored"), so that a command pbp did not recognise is
    seen as such."""
    used = {line.strip() for command in commands for line in command.text.split("\n")}
    found = []
    for line in text.split("\n"):
        line = line.strip()
        if line and line not in used:
            found.append(_cut(line))
    return found


class _Between:
    """Serves mail in the middle of a long round (issue 6 promise 7), at most every
    :data:`SERVE_EVERY_SECONDS`: the messages that arrived meanwhile are processed
    (each first performs its own game's deadlines due before its arrival, D8, so
    the order of the games' deadlines in the round changes no outcome) and the
    outbox is sent. A failing inbox or transport is left alone until the round ends.
    """

    def __init__(self, service: Service, now: datetime, outcomes: list[Outcome]) -> None:
        self.service = service
        self.now = now
        self.outcomes = outcomes
        self.last = time.monotonic()
        self.reading = True
        self.sending = True

    def __call__(self) -> None:
        if time.monotonic() - self.last < SERVE_EVERY_SECONDS:
            return
        service = self.service
        if self.reading:
            try:
                self.outcomes.extend(service.process_inbox(self.now))
            except Exception:
                log.exception("reading mail in the middle of a round failed")
                self.reading = False
        if self.sending:
            service.flush_outbox(self.now)
            # Mail still due means the transport failed: not again before the round ends.
            self.sending = not service.store.due_mail(self.now, limit=1)
        self.last = time.monotonic()


def _too_complex(letter: Letter, exceeded: BudgetExceeded) -> Letter:
    """``letter`` marked unreadable because reading or parsing it spent its CPU budget."""
    return dataclasses.replace(
        letter,
        text="",
        forwarded=False,
        unreadable=f"reading it took {exceeded}",
        unreadable_code="too_complex",
    )


def _visible(events: Iterable[Event], player: str) -> list[Event]:
    return [e for e in events if e.visible_to(player)]
