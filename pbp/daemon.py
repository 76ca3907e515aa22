"""``pbp run``: the long-running service around :class:`pbp.service.Service`.

Two sources of work, one writer: the mail loop (IMAP IDLE or Maildir polling)
and an APScheduler ``BackgroundScheduler`` with one cron job per game for its day
close and one for its reminder, in the game's time zone, plus a date job for a
game's ``start``. Every job and every mail round takes the same lock, so the
store sees exactly one writer; each job simply asks the service to catch up to
"now" (:meth:`Service.advance_all`), which also makes a close that was missed
while the daemon was down happen once, at start.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from types import FrameType
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger

from pbp.service import Service

log = logging.getLogger(__name__)

#: Longest wait for mail before checking deadlines and the outbox again, seconds.
POLL_SECONDS = 10.0


def reminder_time(close: time, hours: float) -> tuple[int, int, int]:
    """Wall-clock (hour, minute, second) ``hours`` before the daily close.

    >>> reminder_time(time(22, 30), 3)
    (19, 30, 0)
    >>> reminder_time(time(0, 10), 0.5)
    (23, 40, 0)
    """
    at = datetime.combine(date(2000, 1, 2), close) - timedelta(hours=hours)
    return at.hour, at.minute, at.second


def backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` failed rounds in a row: 5, 10, 20 … up to 300.

    >>> [backoff(n) for n in (1, 2, 3, 7, 20)]
    [5.0, 10.0, 20.0, 300.0, 300.0]
    """
    return float(min(300, 5 * 2 ** min(failures - 1, 10)))


class Daemon:
    """Runs a :class:`Service` until stopped (SIGTERM, SIGINT or :meth:`stop`)."""

    def __init__(self, service: Service, *, clock: Callable[[], datetime] | None = None) -> None:
        self.service = service
        self.clock = clock or (lambda: datetime.now(UTC))
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.scheduler = BackgroundScheduler(timezone=UTC)

    def tick(self) -> None:
        """One round under the writer lock: mail, due deadlines, the outbox."""
        with self.lock:
            self.service.run_once(self.clock())

    def _deadline(self) -> None:
        try:
            # A full round: mail that arrived before the deadline is applied first (D8).
            self.tick()
        except Exception:  # keep the scheduler alive; the next tick retries
            log.exception("deadline job failed")

    def schedule(self) -> None:
        """Add the cron jobs of every configured game (rules D1, D6)."""
        for game in self.service.config.games:
            zone = ZoneInfo(game.timezone)
            close = game.close_time
            self.scheduler.add_job(
                self._deadline,
                CronTrigger(hour=close.hour, minute=close.minute, second=0, timezone=zone),
                id=f"close:{game.id}",
                misfire_grace_time=None,
                coalesce=True,
            )
            if game.remind_hours_before:
                h, m, s = reminder_time(close, game.remind_hours_before)
                self.scheduler.add_job(
                    self._deadline,
                    CronTrigger(hour=h, minute=m, second=s, timezone=zone),
                    id=f"remind:{game.id}",
                    misfire_grace_time=None,
                    coalesce=True,
                )
            start = game.start_at
            if start is not None and start > self.clock():
                self.scheduler.add_job(
                    self._deadline, DateTrigger(run_date=start), id=f"start:{game.id}"
                )

    def stop(self, *_args: Any) -> None:
        """Ask the loop to finish its current round and exit."""
        self.stopping.set()

    def run(self) -> None:
        """Catch up, then serve until stopped."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._on_signal)
        self.schedule()
        self.scheduler.start()
        log.info("pbp running: %d game(s)", len(self.service.config.games))
        try:
            failures = 0
            while not self.stopping.is_set():
                try:
                    self.tick()
                except Exception:
                    # The mail server is down or the connection broke: back off, then
                    # catch up from the mailbox (nothing is marked done before commit).
                    failures += 1
                    delay = backoff(failures)
                    log.exception("mail round failed; retrying in %.0f s", delay)
                    self.stopping.wait(delay)
                    continue
                failures = 0
                inbox = self.service.inbox
                if inbox is None:
                    self.stopping.wait(POLL_SECONDS)
                else:
                    inbox.wait(POLL_SECONDS)
        finally:
            self.scheduler.shutdown(wait=False)
            if self.service.inbox is not None:
                self.service.inbox.close()
            if self.service.transport is not None:
                self.service.transport.close()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping", signum)
        self.stop()
