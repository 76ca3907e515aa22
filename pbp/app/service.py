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

import functools
import logging
import time
from collections.abc import Callable, Collection, Iterable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from pbp.app.deadlines import Deadlines, GmClose
from pbp.app.digest import Digest
from pbp.app.gm import Addresses, Confirmations, GmDesk, GmMail
from pbp.app.gm.kept import KeptDesk
from pbp.app.intake import Intake, source_key
from pbp.app.intake.letters import LetterRules
from pbp.app.intake.senders import SenderRules
from pbp.app.mailer import POST_FORMATS, Mailer
from pbp.app.outage import Outages
from pbp.app.outcome import Outcome
from pbp.app.owntext import OwnText
from pbp.app.playermoves import Moves
from pbp.app.ratelimit import AnswerLimit
from pbp.app.reader import BodyReader, LetterReader
from pbp.app.seating import missing_games
from pbp.app.sending import flush, undeliverable_notice
from pbp.app.settings import TOKEN_ALPHABET, TOKEN_LENGTH, Clock, Settings, kind_of, new_token
from pbp.app.table import GameTable
from pbp.config.model import Config, Game
from pbp.games.core.events import Step
from pbp.games.core.kind import AnyKind
from pbp.mail.base import Inbox, RawMessage, Transport
from pbp.mail.read.mime import Letter
from pbp.store import OutgoingMail, Store
from pbp.store.faults import crash_point
from pbp.text.filters import Format
from pbp.text.render import Renderer

__all__ = ["NOTICES_PER_HOUR", "TOKEN_ALPHABET", "TOKEN_LENGTH", "Service"]

log = logging.getLogger(__name__)

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
        #: The configuration source and the clock every part reads (:mod:`pbp.app.settings`).
        self.settings = Settings(config)
        self._clock = Clock(clock)
        #: Reads a player's or GM's whole letter on its CPU budget; its ``child``, a
        #: :class:`pbp.app.reader.ChildReader` in ``pbp run`` (:attr:`reader`).
        self.body_reader = BodyReader(self.settings, reader)
        self.store = store
        self.renderer = renderer
        self.inbox = inbox
        self.transport = transport
        self.address: str = config.mail.address
        limit = AnswerLimit(store, config.mail.max_answers_per_hour)
        self.mail = Mailer(store, renderer, self.address, plus=self.plus, limit=limit)
        #: Mail kept or not answered, told to each GM once a day (:mod:`pbp.app.digest`).
        self.digest = Digest(config, store, self.mail, config.mail.digest_hour)
        # At most NOTICES_PER_HOUR notices at once to a GM; the others in his digest.
        self.mail.notice_limit = AnswerLimit(store, NOTICES_PER_HOUR)
        self.mail.notice_overflow = self.digest.add
        self._forgot: datetime | None = None  # the last pruning of send_owed
        self._send_stopped = False  # this round's sending stopped on a transient failure
        self._compose()

    def _compose(self) -> None:
        """Make the parts, each with the collaborators it uses (the one place they are
        put together): the game table, the deadlines and the outages (rule P3), a
        player's own text and moves, the GM's desks (levers, kept mail, addresses, his
        commands by mail and their confirmation), and the intake with its rules."""
        settings, store, mail, digest = self.settings, self.store, self.mail, self.digest
        renderer = self.renderer
        self.table = table = GameTable(store, mail)
        #: No flood after an outage (rule P3, :mod:`pbp.app.outage`).
        self.outages = Outages(settings, store, table, mail)
        #: Starts, reminders and deadlines (:mod:`pbp.app.deadlines`).
        self.deadlines = deadlines = Deadlines(
            settings, store, table, mail, self._clock, self.outages
        )
        #: A player's own text (:mod:`pbp.app.owntext`) and moves (:mod:`pbp.app.playermoves`).
        own = OwnText(store, mail, renderer)
        self.moves = moves = Moves(settings, store, table, mail, digest, renderer, own)
        #: The rules every message passes (:mod:`pbp.app.intake`); its rules below.
        self.intake = intake = Intake(
            settings,
            store,
            self._clock,
            mail,
            digest,
            read_body=self.body_reader,
            deadlines=deadlines,
        )
        #: The personal addresses of the seats (:mod:`pbp.app.gm.addresses`).
        self.addresses = addresses = Addresses(settings, store, table, mail)
        #: The GM's levers (:mod:`pbp.app.gm`), on kept mail too, and his commands by mail.
        self.kept = kept = KeptDesk(settings, store, intake)
        self.gm = gm = GmDesk(
            settings,
            store,
            table,
            mail,
            renderer,
            deadlines,
            moves=moves,
            addresses=addresses,
            kept=kept,
        )
        self.gm_mail = gm_mail = GmMail(
            settings,
            store,
            mail,
            digest,
            renderer,
            desk=gm,
            addresses=addresses,
            kept=kept,
            deadlines=deadlines,
            own=own,
            moves=moves,
        )
        self.confirmations = confirmations = Confirmations(
            settings,
            store,
            mail,
            digest,
            addresses=addresses,
            commands=gm_mail,
            own=own,
            read_body=self.body_reader,
        )
        senders = SenderRules(
            settings,
            store,
            mail,
            digest,
            addresses=addresses,
            confirmations=confirmations,
            own=own,
            read_body=self.body_reader,
        )
        letters = LetterRules(
            settings, store, table, mail, gm_mail=gm_mail, addresses=addresses, moves=moves, own=own
        )
        intake.use(senders, letters)

    @property
    def config(self) -> Config:
        """The configuration now (``games.yaml`` as last read; :meth:`replace_config`)."""
        return self.settings.config

    @config.setter
    def config(self, config: Config) -> None:
        self.settings.config = config

    @property
    def clock(self) -> Callable[[], datetime]:
        """The current aware time (UTC), injected so that tests control time."""
        return self._clock.read

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self._clock.read = clock

    @property
    def reader(self) -> LetterReader | None:
        """Reads a player's or GM's whole letter (:class:`pbp.app.reader.ChildReader` in
        ``pbp run``); None: in this process, on :func:`pbp.app.budget.cpu_budget`."""
        return self.body_reader.child

    @reader.setter
    def reader(self, reader: LetterReader | None) -> None:
        self.body_reader.child = reader

    @property
    def plus(self) -> bool:
        """Personal addresses are plus-addresses (``gm+TOKEN@…``), not Subject tags."""
        return self.settings.plus

    @staticmethod
    def new_token() -> str:
        """A new personal token (:func:`pbp.app.settings.new_token`)."""
        return new_token()

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
        self.settings.config = config
        self.digest.config = config
        return notes

    def game_config(self, game_id: str) -> Game:
        """The config model of one game; raises KeyError."""
        return self.settings.game(game_id)

    @staticmethod
    def kind_of(game: Game | str) -> AnyKind:
        """The :class:`~pbp.games.core.kind.GameKind` of a config or a stored kind name."""
        return kind_of(game)

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
        between = _Between(
            functools.partial(self.process_inbox, now),
            functools.partial(self.flush_while_working, now),
            outcomes,
        )
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
        outcomes.extend(self.intake.replay_held(now))
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

    # --- starts and deadlines (:class:`pbp.app.deadlines.Deadlines`) ------------------

    def start_due_games(
        self,
        now: datetime,
        between: Callable[[], None] | None = None,
        *,
        games: Collection[str] | None = None,
    ) -> list[str]:
        """:meth:`pbp.app.deadlines.Deadlines.start_due_games`."""
        return self.deadlines.start_due_games(now, between, games=games)

    def start_game(self, game: Game, at: datetime, now: datetime) -> None:
        """:meth:`pbp.app.deadlines.Deadlines.start_game`."""
        self.deadlines.start_game(game, at, now)

    def advance_all(
        self,
        until: datetime,
        between: Callable[[], None] | None = None,
        *,
        games: Collection[str] | None = None,
    ) -> None:
        """:meth:`pbp.app.deadlines.Deadlines.advance_all`."""
        self.deadlines.advance_all(until, between, games=games)

    def advance(self, game_id: str, until: datetime, now: datetime | None = None) -> None:
        """:meth:`pbp.app.deadlines.Deadlines.advance`."""
        self.deadlines.advance(game_id, until, now)

    def close_day(
        self,
        game_id: str,
        at: datetime,
        now: datetime | None = None,
        *,
        scheduled: bool = False,
        expect: tuple[str, int] | None = None,
        by_gm: GmClose | None = None,
    ) -> Step[object] | None:
        """:meth:`pbp.app.deadlines.Deadlines.close_day`."""
        return self.deadlines.close_day(
            game_id, at, now, scheduled=scheduled, expect=expect, by_gm=by_gm
        )

    def remind(self, game: Game, due_at: datetime, now: datetime) -> None:
        """:meth:`pbp.app.deadlines.Deadlines.remind`."""
        self.deadlines.remind(game, due_at, now)

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

    def replay_held(self, now: datetime) -> list[Outcome]:
        """Apply the mail held by pauses that have ended
        (:meth:`pbp.app.intake.Intake.replay_held`)."""
        return self.intake.replay_held(now)

    def registered_anywhere(self, address: str) -> bool:
        """True when ``address`` plays (or will play) in any configured game."""
        return self.settings.registered_anywhere(self.store, address)

    def read_body(self, raw: bytes, head: Letter) -> Letter:
        """The whole letter of ``raw`` on its CPU budget (:class:`pbp.app.reader.BodyReader`)."""
        return self.body_reader(raw, head)

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
            undeliverable_notice(self.config, self.store, self.mail, mail, reason, moment)

        def stopped() -> None:
            self._send_stopped = True

        return flush(self.store, self.transport, moment, undeliverable, stopped)

    def flush_while_working(self, now: datetime) -> bool:
        """:meth:`flush_outbox`; False when a transient failure stopped it (the transport
        is likely down: not tried again before the round's end; then it sends nothing)."""
        if not self._send_stopped:
            self.flush_outbox(now)
        return not self._send_stopped


class _Between:
    """Serves mail in the middle of a long round (issue 6 promise 7), at most every
    :data:`SERVE_EVERY_SECONDS`: the messages that arrived meanwhile are processed
    (each first performs its own game's deadlines due before its arrival, D8, so
    the order of the games' deadlines in the round changes no outcome) and the
    outbox is sent. A failing inbox or transport is left alone until the round ends.

    ``read`` processes the waiting mail and returns its outcomes, added to
    ``outcomes`` (:meth:`Service.process_inbox` at the round's time); ``send`` sends
    the outbox, False when a transient failure stopped it
    (:meth:`Service.flush_while_working`). It holds those two bound methods, handed down
    by the service: no part it is given to reaches anything else of the service.
    """

    def __init__(
        self,
        read: Callable[[], list[Outcome]],
        send: Callable[[], bool],
        outcomes: list[Outcome],
    ) -> None:
        self.read = read
        self.send = send
        self.outcomes = outcomes
        self.last = time.monotonic()
        self.reading = True
        self.sending = True

    def __call__(self) -> None:
        if time.monotonic() - self.last < SERVE_EVERY_SECONDS:
            return
        if self.reading:
            try:
                self.outcomes.extend(self.read())
            except Exception:
                log.exception("reading mail in the middle of a round failed")
                self.reading = False
        if self.sending:
            # Not all of it sent: the transport failed; not again before the round ends.
            self.sending = self.send()
        self.last = time.monotonic()
