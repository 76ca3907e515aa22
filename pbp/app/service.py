"""The imperative shell: the single writer that turns mail and deadlines into game steps.

Everything that changes a game goes through :class:`Service`, one transaction at
a time (DESIGN.md): an incoming message (its events, its row in ``messages`` and
every mail it causes commit together, and only then is it marked done in the
mailbox), a day close, a reminder, a game start. Mail is sent afterwards from the
committed outbox (:meth:`Service.flush_outbox`), with retries.

The service holds the daemon's collaborators and its rounds (starts, deadlines,
the inbox, the outbox); its parts do the rest, each in its own module: the rules
every incoming message passes (:mod:`pbp.app.intake`), a player's moves
(:mod:`pbp.app.playermoves`), the GM's levers, his commands by mail and the personal
addresses (:mod:`pbp.app.gm`), and the game table that writes every step
(:mod:`pbp.app.table`).

Time: every ``datetime`` here is timezone-aware. Rule D8: a move belongs to the
game day in which its message *arrived*; before applying a message the service
first performs every close and reminder of that game that fell due before the
arrival, so a daemon that was down catches up in time order.
"""

from __future__ import annotations

import logging
import secrets
import string
import time
from collections.abc import Callable, Collection, Iterable
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.policy import default
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from pbp.app.budget import BudgetExceeded, cpu_budget
from pbp.app.digest import Digest
from pbp.app.gm import Addresses, GmDesk, GmMail
from pbp.app.gm.deadline import GmClose
from pbp.app.gm.kept import KeptDesk
from pbp.app.intake import Intake, source_key, too_complex
from pbp.app.mailer import POST_FORMATS, Mailer
from pbp.app.outage import Outages
from pbp.app.outcome import Outcome
from pbp.app.playermoves import Moves, visible
from pbp.app.ratelimit import AnswerLimit
from pbp.app.seating import missing_games
from pbp.app.sending import flush
from pbp.app.table import GameTable
from pbp.config.model import Config, Game
from pbp.games.core.events import Event, Step, Visibility
from pbp.games.core.kind import AnyKind
from pbp.games.core.registry import KINDS
from pbp.mail.base import Inbox, RawMessage, Transport
from pbp.mail.read.mime import Letter, read_letter
from pbp.store import GM_SEAT, OutgoingMail, Store
from pbp.store.faults import crash_point
from pbp.text.filters import Format
from pbp.text.render import Renderer, public_only

if TYPE_CHECKING:
    from pbp.app.reader import LetterReader

log = logging.getLogger(__name__)

TOKEN_ALPHABET = string.ascii_lowercase + string.digits
TOKEN_LENGTH = 10
#: Messages marked done on the server per command, each after its own commit.
MARK_DONE_GROUP = 100
#: Messages handled in one transaction when mail is waiting (group commit), and the
#: longest such a group runs, seconds: the first message's answer waits no longer.
COMMIT_GROUP = 50
COMMIT_GROUP_SECONDS = 0.2
#: Notices sent to one GM at once in an hour (:meth:`pbp.app.mailer.Mailer.notice_gm`); the
#: next ones go in his daily digest, so that forged mail cannot flood him.
NOTICES_PER_HOUR = 10

#: In a long round, waiting mail is served at least this often, seconds (:class:`_Between`).
SERVE_EVERY_SECONDS = 0.5
#: Loop hashes, rate-limit windows and once-a-day marks are dropped after this.
FORGET_ANSWERS_AFTER = timedelta(days=2)


class Service:
    """The daemon's logic, transport-neutral.

    ``config`` is a loaded :class:`pbp.config.model.Config`; ``clock`` returns the
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
        reader: LetterReader | None = None,
    ) -> None:
        self.config = config
        #: Reads a player's or GM's whole letter (:class:`pbp.app.reader.ChildReader` in
        #: ``pbp run``); None: in this process, on :func:`pbp.app.budget.cpu_budget`.
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
        #: Mail kept or not answered, told to each GM once a day (:mod:`pbp.app.digest`).
        self.digest = Digest(config, store, self.mail, config.mail.digest_hour)
        # At most NOTICES_PER_HOUR notices at once to a GM; the others in his digest.
        self.mail.notice_limit = AnswerLimit(store, NOTICES_PER_HOUR)
        self.mail.notice_overflow = self.digest.add
        self._forgot: datetime | None = None  # the last pruning of send_owed
        self._send_stopped = False  # this round's sending stopped on a transient failure
        self.table = GameTable(store, self.mail)
        #: The GM's levers (:mod:`pbp.app.gm`), and his commands by mail.
        self.gm = GmDesk(self)
        self.gm_mail = GmMail(self)
        self.kept = KeptDesk(self)
        #: The personal addresses of the seats (:mod:`pbp.app.gm.addresses`).
        self.addresses = Addresses(self)
        #: A player's moves (:mod:`pbp.app.playermoves`) and the rules every message passes
        #: (:mod:`pbp.app.intake`).
        self.moves = Moves(self)
        self.intake = Intake(self)
        #: No flood after an outage (rule P3, :mod:`pbp.app.outage`).
        self.outages = Outages(self)

    @staticmethod
    def new_token() -> str:
        """A new personal token (``TOKEN_LENGTH`` random letters and digits)."""
        return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))

    # --- configuration helpers ---------------------------------------------------

    def prepare_templates(self) -> int:
        """Compile the templates of the configured games (their locales; mails and both
        post formats: :meth:`pbp.text.render.Renderer.prepare`), so that no reply waits for
        one's compilation. Returns how many were compiled."""
        games = self.config.games
        formats: tuple[Format, ...] = ("text", *POST_FORMATS)
        uses = [(g.locale, fmt) for g in games for fmt in formats]
        return self.renderer.prepare(uses, {g.kind for g in games})

    def replace_config(self, config: Config) -> list[str]:
        """Go on with ``config`` (``games.yaml`` read again: ``pbp run``'s SIGHUP): a new
        game starts in the next round, changed settings of running games (deadline
        times, reminders) hold from their next deadline on, players of started games
        stay as dealt. What cannot change while pbp runs (``mail:``, ``store:``) is kept
        as it was, and said. Returns the notes to log, one sentence each.

        :raises ValueError: a running game is missing from ``config``
            (:func:`pbp.app.seating.missing_games`): nothing is replaced.
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
        """The :class:`~pbp.games.core.kind.GameKind` of a config or a stored kind name."""
        return KINDS[game if isinstance(game, str) else game.kind]

    @staticmethod
    def zone(game: Game) -> ZoneInfo:
        """The game's time zone."""
        return ZoneInfo(game.timezone)

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
        self._send_stopped = False  # a transient failure stops this round's sending
        try:
            self.start_due_games(now, between, games=games)
            outcomes.extend(self.process_inbox(now))
            self.advance_all(now, between, games=games)
            self.send_owed(now)
        finally:
            # Whatever failed, what is committed goes out (unless the transport failed
            # this round already: the server is likely down; the next round tries).
            if not self._send_stopped:
                self.flush_outbox(now)
        return outcomes

    def process_inbox(self, now: datetime) -> list[Outcome]:
        """Handle every waiting message in arrival order, marking each done after its
        commit (each first performs its game's deadlines due before it arrived, D8);
        one set aside for the GM is first copied to the mailbox's kept folder. The mail
        a commit group queued is sent right after its commit, before the group is
        marked done (while the transport works; else at the round's end)."""
        outcomes: list[Outcome] = []
        # Mail held while a game was paused, once it runs again (a resume that
        # crashed before applying it, or one by another process).
        outcomes.extend(self.gm.replay_held(now))
        if self.inbox is None:
            return outcomes
        committed: list[str] = []
        sending = True
        try:
            waiting = self.inbox.fetch_new()
            crash_point("fetched")
            start = 0
            while start < len(waiting):
                group = self._commit_group(waiting, start, now, outcomes)
                start += len(group)
                if sending:
                    # The answers go out before the IMAP round trips that mark the
                    # messages done (issue 18: the reply's latency); committed, they
                    # are never applied twice, whatever happens in between. A failing
                    # transport is not tried again before the round's end; one that
                    # raises (a bug) fails the round there, not the reading of mail.
                    try:
                        sending = self.flush_while_working(now)
                    except Exception:
                        log.exception("sending mail in the middle of the inbox failed")
                        sending = False
                for raw in group:
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

    def _commit_group(
        self, waiting: list[RawMessage], start: int, now: datetime, outcomes: list[Outcome]
    ) -> list[RawMessage]:
        """Handle messages of ``waiting`` from ``start`` on in one transaction (group
        commit: one sync to disk for many messages), at most :data:`COMMIT_GROUP` of
        them and for at most :data:`COMMIT_GROUP_SECONDS`, so that the first one's
        answer does not wait long; each message is its own savepoint inside it
        (:meth:`pbp.store.Store.savepoint`). Returns the messages committed; their
        outcomes are appended to ``outcomes``. Nothing of the group is marked done
        or sent before its commit."""
        group: list[RawMessage] = []
        began = time.monotonic()
        with self.store.transaction():
            for raw in waiting[start : start + COMMIT_GROUP]:
                outcomes.append(self.handle(raw, now))
                group.append(raw)
                if time.monotonic() - began >= COMMIT_GROUP_SECONDS:
                    break
        return group

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
            # What the welcome shows of the game dealt (its players, cards, rules) and
            # what the GM sheet shows (solution, hands or roles): the kind's views.
            welcome = kind.post_view("welcome", public_only(step.events), None)
            for player in game.players:
                self.mail.player(
                    game,
                    player.name,
                    "welcome",
                    {
                        "status": kind.status(game, step.state, player.name, first),
                        "events": visible(step.events, player.name),
                        "view": welcome,
                    },
                    now,
                )
            sheet = kind.gm_view(kind.with_history(step.state, lambda: step.events), first)
            with self.mail.deadline(game, now):
                self.mail.gm(
                    game,
                    "gm_sheet",
                    {"events": list(step.events), "seed": seed, "view": sheet},
                    now,
                )
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
        an outage nobody is reminded of a day that has already closed. When more
        deadlines are due at ``now`` than the game's ``catch_up_limit`` allows, the
        game is paused as of the first instead (rule P3, :mod:`pbp.app.outage`).
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
            if self.outages.check(game, close_at, now):
                return  # paused as of close_at (P3)
            self.close_day(game_id, close_at, until, scheduled=True)

    def close_day(
        self,
        game_id: str,
        at: datetime,
        now: datetime | None = None,
        *,
        scheduled: bool = False,
        expect: tuple[str, int] | None = None,
        by_gm: GmClose | None = None,
    ) -> Step | None:
        """Pass the current deadline of ``game_id`` at ``at``: close the game day
        (rules D6, D7), or whatever the game kind does at its deadline.

        The GM defaults are applied, the GM gets the posts the kind asks for (the
        day summary), the next deadline is set by the kind (a manual day close keeps
        the regular schedule). ``scheduled``: this is the deadline due at ``at``; it
        is passed only if still due (another writer may have done it). ``expect``:
        ``(deadline name, period)`` the caller means, e.g. ``("day", 3)`` for ``pbp
        close-day`` on day 3; nothing is done when the game has moved on meanwhile
        (a catch-up or another process passed it). ``by_gm``: the GM passes it (``pbp
        close-day``, CLOSE DAY by mail…): a GM-only ``gm_close`` event {command, deadline,
        period, via, note} is logged before the close's own events (his STATUS's last
        lever, the story), never told in a post. Returns None when nothing was done.
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
            if by_gm is not None:
                event = Event(
                    "gm_close",
                    Visibility.GM,
                    {
                        "command": by_gm.command,
                        "deadline": ended,
                        "period": day,
                        "via": by_gm.via,
                        "note": by_gm.note,
                    },
                )
                self.table.log(game_id, [event], at=at, day=day, source=f"gm:{by_gm.via}")
            if at < row.deadline_at:
                # The GM passes it early: the deadline moved to now, as an extension
                # moves it later (Cluedo by days tells the close as scheduled, D6).
                state = kind.shift_deadline(state, at - row.deadline_at)
            step = kind.on_deadline(state, at)
            following = kind.next_deadline(game, step.state, row.deadline_at, at)
            self.table.commit(
                game, kind, step, at=at, day=day, source=f"close:{day}", deadline_at=following
            )
            # gm_mail: per_deadline gathers the GM's mails of this close (two mails).
            with self.mail.deadline(game, now):
                for post, number in kind.posts(state, step):
                    self.mail.gm_post(game, post, now, day=number)
                # The ended day's own post as it reads at its close, when the kind mails
                # none at it (a Maniac day's votes): a record too (rule P1).
                self.mail.record_post(game, kind.period_post, day)
                self.table.notify(game, kind, step, now, following)
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
                duties = kind.duties(state, player, row.deadline_at)
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
        replies_to: frozenset[str] = frozenset(),
    ) -> Outcome:
        """Process one message (:meth:`pbp.app.intake.Intake.handle`): identify, apply its
        moves, answer; one transaction. Never raises for bad mail."""
        return self.intake.handle(
            raw, now, source=source, replay_of=replay_of, replies_to=replies_to
        )

    def retry(self, kept_ids: Iterable[int], now: datetime) -> list[Outcome]:
        """Process kept messages again (``pbp retry``; :meth:`pbp.app.intake.Intake.retry`).

        :raises LookupError: no kept message has one of these ids.
        """
        return self.intake.retry(kept_ids, now)

    def registered_anywhere(self, address: str) -> bool:
        """True when ``address`` plays (or will play) in any configured game."""
        return bool(self.store.tokens_of(address)) or any(
            p.email.lower() == address for g in self.config.games for p in g.players
        )

    def read_body(self, raw: bytes, head: Letter) -> Letter:
        """The whole letter of ``raw`` (its header section already read as ``head``, whose
        header fields it takes: one reading of them), read within the CPU budget (by
        :attr:`reader`, else :func:`pbp.app.budget.cpu_budget`); over it, ``head`` marked
        unreadable (``too_complex``)."""
        try:
            if self.reader is not None:
                return self.reader(raw, head=head)
            with cpu_budget(self.config.mail.cpu_seconds_per_message):
                return read_letter(raw, head=head)
        except BudgetExceeded as exceeded:
            return too_complex(head, exceeded)

    def send_owed(self, now: datetime) -> None:
        """The round's mail that is owed later: the summaries of answers held back by
        the rate limit whose hour has ended (:mod:`pbp.app.ratelimit`), then the GM digests
        whose daily moment has come (:mod:`pbp.app.digest`); each its own transaction. A
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

    # --- outbox ----------------------------------------------------------------------

    def flush_outbox(self, now: datetime | None = None) -> int:
        """Send every due mail of the outbox (:func:`pbp.app.sending.flush`); how many went."""
        if self.transport is None:
            return 0
        moment = now or self.clock()

        def undeliverable(mail: OutgoingMail, reason: str) -> None:
            self._undeliverable(mail, reason, moment)

        def stopped() -> None:
            self._send_stopped = True

        return flush(self.store, self.transport, moment, undeliverable, stopped)

    def flush_while_working(self, now: datetime) -> bool:
        """:meth:`flush_outbox`; False when a transient failure stopped it (the transport
        is likely down: not tried again before the round's end; then it sends nothing)."""
        if not self._send_stopped:
            self.flush_outbox(now)
        return not self._send_stopped

    def _undeliverable(self, mail: OutgoingMail, reason: str, now: datetime) -> None:
        """Tell the GM of the recipient's games (every GM for another address) that a
        mail was given up (RFC 5321 §4.2.1, a 5yz reply or too many retries), inside
        the transaction that gives it up. A mail to a GM is only logged: a note about
        it could fail the same way, for ever."""
        recipient = mail.recipient.lower()
        if any(game.gm.lower() == recipient for game in self.config.games):
            log.warning("mail %s to the GM %s given up: %s", mail.message_id, recipient, reason)
            return
        seats = {
            seat.game_id: seat.player
            for seat in self.store.tokens_of(recipient)
            if seat.player != GM_SEAT
        }
        games = [g for g in self.config.games if g.id in seats] or list(self.config.games)
        headers = message_from_bytes(mail.raw, policy=default)
        # The Date pbp wrote when it queued the mail (RFC 5322 §3.6.1), aware.
        date = getattr(headers.get("Date"), "datetime", None)
        context = {
            "recipient": mail.recipient,
            "subject": str(headers.get("Subject", "")),
            "message_id": mail.message_id,
            "created": date.isoformat() if date is not None and date.tzinfo else None,
            "attempts": mail.attempts + 1,
            "reason": reason,
        }
        told: set[str] = set()
        for game in games:
            if game.gm.lower() not in told:
                told.add(game.gm.lower())
                player = {"player": seats.get(game.id)}
                self.mail.gm(game, "gm_undeliverable", {**context, **player}, now)


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
            # Not all of it sent: the transport failed; not again before the round ends.
            self.sending = service.flush_while_working(self.now)
        self.last = time.monotonic()
