"""``pbp run``: the long-running service around :class:`pbp.app.service.Service`.

Two sources of work, one writer: the mail loop (IMAP IDLE or Maildir polling)
and an APScheduler ``BackgroundScheduler`` with date jobs at each game's next
moments (its start, its next deadline — a day close in the game's time zone —
and the reminder before it), replanned after every round, only the jobs whose moment
changed (:meth:`Daemon.schedule`).
Every job and every mail round takes the same lock, so the store sees exactly
one writer; a job simply runs a round (:meth:`Service.run_once`), which applies
the mail that arrived before the deadline first (D8) and catches up a deadline
missed while the daemon was down, once.

The store's file is watched (:meth:`pbp.store.Store.check_identity`, every
:data:`STORE_CHECK_SECONDS` and before every round and transaction): when it is
deleted or replaced, the daemon stops at once with one ERROR line and does not
retry (:class:`~pbp.store.StoreReplacedError`), rather than write into a file
nobody will read and mark mail done after it.
"""

from __future__ import annotations

import logging
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from types import FrameType
from typing import TYPE_CHECKING

from pbp.app.seating import seat_warnings
from pbp.app.service import Service
from pbp.config.loading import DEFAULT_MAX_CONFIG_BYTES, ConfigError, load_config
from pbp.store import StoreDamagedError, StoreReplacedError

if TYPE_CHECKING:
    from apscheduler.schedulers.background import BackgroundScheduler

    from pbp.config.model import Game
    from pbp.mail.base import Inbox

log = logging.getLogger(__name__)

#: Longest wait for mail before checking deadlines and the outbox again, seconds.
POLL_SECONDS = 10.0

#: Seconds between two checks that the store's file is still the one opened.
STORE_CHECK_SECONDS = 1.0


def backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` failed rounds in a row: 5, 10, 20 … up to 300.

    >>> [backoff(n) for n in (1, 2, 3, 7, 20)]
    [5.0, 10.0, 20.0, 300.0, 300.0]
    """
    return float(min(300, 5 * 2 ** min(failures - 1, 10)))


def explain_fault(service: Service, error: BaseException) -> str | None:
    """``error`` from a round of ``service`` as one sentence when the store's file
    system is at fault (:meth:`pbp.store.Store.explain`: read-only, full, an I/O error),
    or the mail server or the network (the inbox's
    :meth:`~pbp.mail.imap.ImapInbox.explain`), else None (a bug)."""
    stored = service.store.explain(error)
    if stored is not None:
        return stored
    explain = getattr(service.inbox, "explain", None)
    if explain is None:
        return None
    sentence = explain(error)
    return sentence if isinstance(sentence, str) else None


class _Interrupted(BaseException):
    """Raised by the signal handler to cut short a wait for mail (never a round)."""


class Daemon:
    """Runs a :class:`Service` until stopped (SIGTERM, SIGINT or :meth:`stop`); SIGHUP
    reads ``games.yaml`` and the templates again (:meth:`reload`). A signal cuts the
    wait for mail short, never a round.

    ``clock``: the time the rounds and the plan see (aware; default: the wall clock
    plus ``ahead``). ``ahead``: how far that time runs ahead of the wall clock.
    APScheduler fires at wall-clock times, so a job for a moment ``m`` is planned at
    ``m - ahead``. ``pbp run`` uses neither; an in-process test gives ``ahead`` (and
    the service a clock as far ahead) to reach a day close at 22:30 in seconds.
    ``max_config_bytes``: the largest ``games.yaml`` a reload reads (``pbp run
    --max-config-bytes``).
    """

    def __init__(
        self,
        service: Service,
        *,
        clock: Callable[[], datetime] | None = None,
        ahead: timedelta = timedelta(0),
        max_config_bytes: int = DEFAULT_MAX_CONFIG_BYTES,
    ) -> None:
        self.service = service
        self.max_config_bytes = max_config_bytes
        self.ahead = ahead
        self.clock = clock or (lambda: datetime.now(UTC) + ahead)
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.waiting = False  # in the main thread's wait for mail: a signal may cut it
        self._scheduler: BackgroundScheduler | None = None
        self._serving = False  # in run(): the scheduler runs from the first round on
        self._planned: dict[str, datetime] = {}  # job id -> its moment, as last planned
        self._fatal: StoreReplacedError | None = None  # found outside the main loop
        self.reload_requested = threading.Event()  # SIGHUP: read games.yaml again
        self._templates_ready = False  # compiled beside the loop (_prepare_templates)

    @property
    def scheduler(self) -> BackgroundScheduler:
        """The APScheduler, imported and made at first use: after the first round, so
        that start-up (issue 7: the first reply) does not wait for it."""
        if self._scheduler is None:
            from apscheduler.schedulers.background import BackgroundScheduler

            self._scheduler = BackgroundScheduler(timezone=UTC)
        return self._scheduler

    def tick(self) -> None:
        """One round under the writer lock: mail, due deadlines, the outbox."""
        with self.lock:
            try:
                self.service.store.check_identity()
                self.service.run_once(self.clock())
            finally:
                self.schedule()
                if self._serving and not self.scheduler.running:
                    self.scheduler.start()  # its jobs planned at once, not one by one

    def _deadline(self) -> None:
        try:
            # A full round: mail that arrived before the deadline is applied first (D8).
            self.tick()
        except StoreReplacedError as error:
            self._fail(error)
        except Exception as error:  # keep the scheduler alive; the next round retries
            fault = explain_fault(self.service, error)
            if fault is None:  # a bug: its traceback is wanted
                log.exception("deadline job failed")
            else:  # one line, as a failed mail round; the traceback only with -v
                log.error("deadline job failed: %s", fault)
                log.debug("the failed deadline job", exc_info=True)

    def _fail(self, error: StoreReplacedError) -> None:
        """Stop the main loop for ``error`` found in another thread, cutting its wait
        for mail short (the loop then raises it)."""
        if self._fatal is not None:
            return
        self._fatal = error
        self.stopping.set()
        if self._serving and self.waiting:
            # Our own SIGTERM handler interrupts the wait (IMAP IDLE, a sleep).
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)

    def _watch_store(self) -> None:
        """Thread: check the store's identity every :data:`STORE_CHECK_SECONDS`."""
        while not self.stopping.wait(STORE_CHECK_SECONDS):
            try:
                self.service.store.check_identity()
            except StoreReplacedError as error:
                self._fail(error)
                return

    def schedule(self) -> None:
        """(Re)plan one APScheduler date job per game at each of its next moments.

        The moments come from the store, where the game kind put them in the game's
        time zone (a day close at ``day_closes`` local time, rules D1/D6; later a
        turn's end): ``start:ID`` (a game not started yet), ``deadline:ID`` and
        ``remind:ID`` (``remind_hours_before`` earlier). Called after every round,
        so a deadline moved by a move or a close is followed at once. A job only
        wakes the loop: the round itself decides what is due (and catches up).

        One query for all games, and only the jobs whose moment changed are
        touched: with a thousand games, a round is not a thousand replans.
        """
        self._apply(self._plan(self.service.config.games))

    def _plan(self, games: Sequence[Game]) -> dict[str, datetime | None]:
        """The moment of every job of ``games`` (``"deadline:ID"`` → its moment; None: no
        such job now), from the store; nothing is changed.

        :raises OverflowError: a moment out of the range of dates (a reminder hours
            before a deadline early in year 1; the config's bounds keep it from that).
        """
        now = self.clock()
        stored = self.service.store.schedules()
        plan: dict[str, datetime | None] = {}
        for game in games:
            moments: dict[str, datetime] = {}
            if game.id not in stored:
                if game.start_at is not None and game.start_at > now:
                    moments["start"] = game.start_at
            else:
                deadline_at = stored[game.id].deadline_at
                if not stored[game.id].over and deadline_at is not None:
                    moments["deadline"] = deadline_at
                    if game.remind_hours_before:
                        remind = deadline_at - timedelta(hours=game.remind_hours_before)
                        if remind > now:
                            moments["remind"] = remind
            for name in ("start", "deadline", "remind"):
                plan[f"{name}:{game.id}"] = moments.get(name)
        return plan

    def _apply(self, plan: dict[str, datetime | None]) -> None:
        """Add, move or remove the APScheduler jobs whose moment in ``plan`` (from
        :meth:`_plan`) differs from the one planned last; the jobs of games no longer
        in ``plan`` are removed."""
        from apscheduler.triggers.date import DateTrigger

        gone = {job_id: None for job_id in self._planned if job_id not in plan}
        plan = {**plan, **gone}
        for job_id, when in plan.items():
            if self._planned.get(job_id) == when:
                continue
            if when is None:
                del self._planned[job_id]
                if self.scheduler.get_job(job_id) is not None:
                    self.scheduler.remove_job(job_id)
                continue
            self._planned[job_id] = when
            self.scheduler.add_job(
                self._deadline,
                DateTrigger(run_date=when - self.ahead),
                id=job_id,
                replace_existing=True,
                misfire_grace_time=None,
            )

    def stop(self, *_args: object) -> None:
        """Ask the loop to finish its current round and exit."""
        self.stopping.set()

    def _back_off(self, seconds: float) -> None:
        """Wait ``seconds`` after a failed round, or less: until a stop or a reload
        (SIGHUP) is asked for."""
        deadline = time.monotonic() + seconds
        while not self.stopping.is_set() and not self.reload_requested.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.stopping.wait(min(left, 0.5))

    def reload(self) -> bool:
        """Read ``games.yaml`` again (SIGHUP, ``systemctl reload pbp``: at once when the
        loop waits for mail, after the round when one runs) under the writer lock and go
        on with it (:meth:`pbp.app.service.Service.replace_config`); a broken
        file, or one that lacks a started game, is refused with one ERROR line and the
        old configuration stays. Returns whether the new one is used.

        The file is read as :func:`pbp.config.loading.load_config` reads it: a regular file of
        at most ``max_config_bytes``, never waited on (a FIFO in its place is refused),
        its YAML within bounds (an alias bomb is refused in milliseconds). A
        :class:`MemoryError` or :class:`RecursionError` on the way is a refusal too:
        one ERROR line, no traceback, and the mail goes on being read; so is any
        other exception from reading the file or planning its games' jobs (the plan is
        made before the new configuration is used: it is used whole or not at all).

        The templates are read again too, whatever becomes of ``games.yaml``
        (:meth:`pbp.text.render.Renderer.reload`: between two reloads a template is read
        once)."""
        with self.lock:
            self.service.renderer.reload()
            self._templates_ready = False  # compiled again after the next round
        path = self.service.config.path
        if path is None:
            log.error("games.yaml not reloaded: this configuration was not read from a file")
            return False
        with self.lock:
            try:
                config = load_config(path, self.max_config_bytes)
                # The new plan first: a config it fails on is refused before it is used.
                plan = self._plan(config.games)
                notes = self.service.replace_config(config)
            except (ConfigError, ValueError) as error:
                said = " / ".join(str(error).splitlines())
                log.error("%s not reloaded, going on with the old one: %s", path, said)
                return False
            except (MemoryError, RecursionError) as error:
                log.error(
                    "%s not reloaded, going on with the old one: reading it ran out of %s",
                    path,
                    "memory" if isinstance(error, MemoryError) else "stack (too deep a recursion)",
                )
                return False
            except Exception as error:  # a bug: one line all the same, the daemon goes on
                said = " / ".join(str(error).splitlines()) or "no message"
                log.error(
                    "%s not reloaded, going on with the old one: %s: %s",
                    path,
                    type(error).__name__,
                    said,
                )
                log.debug("the failed reload", exc_info=True)
                return False
            self._apply(plan)
            for note in notes:
                log.info("%s", note)
            try:
                for warning in seat_warnings(config, self.service.store):
                    log.warning("%s", warning)
            except Exception as error:
                log.warning("seats of %s not compared: %s", path, error)
                log.debug("the failed comparison", exc_info=True)
        log.info("%s reloaded: %d game(s)", path, len(config.games))
        return True

    def run(self) -> None:
        """Catch up, then serve until stopped.

        :raises StoreReplacedError: the store's file was deleted or replaced (logged in
            one ERROR line, not retried).
        :raises StoreDamagedError: the store is no sound SQLite database.
        """
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._on_signal)
        signal.signal(signal.SIGHUP, self._on_reload)
        # The first round (catching up mail and deadlines, D8) comes before the
        # scheduler: its jobs only wake rounds, and the round itself plans them.
        self._serving = True
        log.info("pbp running: %d game(s)", len(self.service.config.games))
        self._look_for_lost()
        watcher = threading.Thread(target=self._watch_store, name="pbp-store-watch", daemon=True)
        watcher.start()
        try:
            self._serve()
            if self._fatal is not None:
                raise self._fatal
        except StoreReplacedError as error:
            # Not retried: every later round would find the same. One line, no traceback.
            self._fatal = error
            log.error("%s", error)
            raise
        finally:
            self._shut_down()

    def _look_for_lost(self) -> None:
        """At start: mail done on the server that the store never saw (a backup
        restored, :mod:`pbp.app.lost`) is one WARNING line pointing at ``pbp lost``, and a
        mail to its GM once (:func:`pbp.app.lost.tell_gm`). A mailbox that cannot be asked
        is one WARNING line; the daemon serves all the same."""
        from pbp.app.lost import find_lost, tell_gm

        service = self.service
        if service.inbox is None:
            return
        try:
            with self.lock:
                lost = find_lost(service.store, service.config, service.inbox)
                if lost:
                    tell_gm(service, lost, self.clock())
        except Exception as error:
            fault = explain_fault(service, error)
            log.warning("could not look for mail lost by a restored store: %s", fault or error)
            log.debug("the failed look", exc_info=True)
            return
        if lost:
            log.warning(
                "%d mail(s) processed and marked done on the server are missing from the "
                "store (a backup restored?), the first arrived at %s: `pbp lost` lists them, "
                "`pbp lost --replay` applies them",
                len(lost),
                lost[0].raw.arrived.isoformat(),
            )

    def _serve(self) -> None:
        """The main loop until a stop: a reload when one was asked for, a round, then a
        wait for mail; after a failed round a back-off instead of the wait."""
        failures = 0
        while not self.stopping.is_set():
            if self.reload_requested.is_set():
                # Before the round, so that a mail server down does not hold it up.
                self.reload_requested.clear()
                self.reload()
            try:
                self.tick()
            except Exception as error:
                failures += 1
                self._back_off(self._round_failed(error, failures))
                continue
            failures = 0
            if not self._templates_ready:
                self._prepare_templates()
            if not self._wait_for_mail():
                return

    def _prepare_templates(self) -> None:
        """Compile the games' templates in a thread of its own, after the first round
        (which catches up the mail waiting at start) and after each reload: a first
        mail of each kind no longer waits for its templates' compilation (issue 18;
        about a second of work at start, beside the wait for mail)."""
        self._templates_ready = True
        service = self.service

        def compile_all() -> None:
            try:
                count = service.prepare_templates()
            except Exception:  # a broken template fails where it is used, as before
                log.warning("templates not compiled ahead", exc_info=True)
                return
            log.debug("%d templates compiled", count)

        threading.Thread(target=compile_all, name="pbp-templates", daemon=True).start()

    def _round_failed(self, error: Exception, failures: int) -> float:
        """Log the failed round ``error`` (the ``failures``-th in a row); the seconds to
        back off (:func:`backoff`). The mail server down or the connection broken: the
        next round catches up from the mailbox (nothing is marked done before commit).

        :raises StoreDamagedError: ``error`` says the store's file is damaged (a
            :class:`sqlite3.DatabaseError` but an ``OperationalError``: locked, disk
            full, which are retried).
        """
        if isinstance(error, sqlite3.DatabaseError) and not isinstance(
            error, sqlite3.OperationalError
        ):
            raise StoreDamagedError(
                f"the store {self.service.store.path} is damaged ({error}): "
                "restore a backup (README, Backups); pbp check says whether a "
                "file is sound"
            ) from None
        delay = backoff(failures)
        fault = explain_fault(self.service, error)
        if fault is None:  # a bug: its traceback is wanted
            log.exception("mail round failed; retrying in %.0f s", delay)
        else:  # one line; the traceback only with -v
            log.error("%s; next try in %.0f s", fault, delay)
            log.debug("the failed round", exc_info=True)
        return delay

    def _wait_for_mail(self) -> bool:
        """Wait up to :data:`POLL_SECONDS` for mail (IMAP IDLE, Maildir polling, a sleep
        without an inbox), or less: a stop or a reload (SIGTERM, SIGINT, SIGHUP) cuts
        the wait short, never a round. Returns False when the loop is to stop.

        A wait cut short by a reload may have been in the middle of an IMAP command:
        the inbox's connections are closed (under the writer lock) and the next round
        connects anew.
        """
        inbox = self.service.inbox
        try:
            try:
                self.waiting = True  # from here on a signal raises _Interrupted
                if self.stopping.is_set() or self.reload_requested.is_set():
                    # Asked for during the round: reload, then a round at once (a new
                    # game may start), or stop.
                    return not self.stopping.is_set()
                self._wait(inbox)
            finally:
                self.waiting = False
        except _Interrupted:
            if self.stopping.is_set():
                return False
            if inbox is not None:
                with self.lock:
                    inbox.close()
        return True

    def _wait(self, inbox: Inbox | None) -> None:
        """Up to :data:`POLL_SECONDS` for mail; when ``inbox`` cannot wait (IDLE fails),
        one line (a traceback for a bug) and a plain sleep instead."""
        try:
            if inbox is None:
                self.stopping.wait(POLL_SECONDS)
            else:
                # Its own connection: the jobs' rounds use the inbox meanwhile.
                inbox.wait(POLL_SECONDS)
        except Exception as error:
            fault = explain_fault(self.service, error)
            if fault is None:
                log.exception("waiting for mail failed; polling instead")
            else:
                log.warning("%s; polling every %.0f s instead", fault, POLL_SECONDS)
                log.debug("the failed wait", exc_info=True)
            self.stopping.wait(POLL_SECONDS)

    def _shut_down(self) -> None:
        """After the loop: end the store watcher and the scheduler, close the mailbox's
        and the transport's connections."""
        self._serving = False
        self.stopping.set()  # ends the store watcher
        if self._scheduler is not None and self._scheduler.running:
            self._scheduler.shutdown(wait=False)
        if self.service.inbox is not None:
            self.service.inbox.close()
        if self.service.transport is not None:
            self.service.transport.close()

    def _on_reload(self, signum: int, frame: FrameType | None) -> None:
        # A wait for mail is cut short (the loop reloads at once); a round in progress is
        # never cut: the loop reloads after it.
        log.info("signal %d: reading games.yaml again", signum)
        self.reload_requested.set()
        self._interrupt_wait()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self._fatal is None:  # else it is the store watcher's (see _fail)
            log.info("signal %d: stopping", signum)
        self.stop()
        # Stop at once rather than after the wait (up to POLL_SECONDS); a round in
        # progress is never cut: it finishes and the loop then exits.
        self._interrupt_wait()

    def _interrupt_wait(self) -> None:
        """In a signal handler: end the main thread's wait for mail, if it is in one
        (once: a second signal meanwhile only sets its flag)."""
        if self.waiting:
            self.waiting = False
            raise _Interrupted
