"""``pbp run``: the APScheduler jobs and the long-running process (rules D1, D6, D8)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from kits.table import Table, body, utc, write_config

from pbp.daemon import Daemon
from pbp.mail.maildir import read_maildir

REPO = Path(__file__).resolve().parent.parent


def test_D1_jobs_wake_the_daemon_at_the_start_the_close_and_the_reminder(tmp_path: Path) -> None:
    table = Table(tmp_path, extra="remind_hours_before: 0.5\n")
    try:
        clock = {"now": utc(2026, 11, 30, 12)}
        daemon = Daemon(table.service, clock=lambda: clock["now"])
        moscow = ZoneInfo("Europe/Moscow")

        def jobs() -> dict[str, datetime]:
            return {job.id: job.trigger.run_date for job in daemon.scheduler.get_jobs()}

        daemon.schedule()
        assert jobs() == {"start:seed-000": datetime(2026, 12, 1, 20, 0, tzinfo=moscow)}
        clock["now"] = utc(2026, 12, 1, 17)
        daemon.tick()  # starts the game, then replans
        assert jobs() == {
            "deadline:seed-000": utc(2026, 12, 1, 19, 30),  # 22:30 in Moscow (D1)
            "remind:seed-000": utc(2026, 12, 1, 19, 0),
        }
        clock["now"] = utc(2026, 12, 1, 19, 30)
        daemon.tick()  # closes day 1: the next close is planned
        assert jobs() == {
            "deadline:seed-000": utc(2026, 12, 2, 19, 30),
            "remind:seed-000": utc(2026, 12, 2, 19, 0),
        }
    finally:
        table.close()


def _outbox_subjects(path: Path) -> list[tuple[str, str]]:
    return [(str(m["To"]), str(m["Subject"])) for m in read_maildir(path)]


def _wait_for(predicate: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


def test_pbp_run_serves_mail_closes_the_day_on_time_and_stops_on_sigterm(tmp_path: Path) -> None:
    """A real daemon: the close a minute or two ahead fires from APScheduler, once."""
    zone = ZoneInfo("Europe/Moscow")
    close = (datetime.now(zone) + timedelta(seconds=90)).replace(second=0, microsecond=0)
    close += timedelta(minutes=1)
    config = write_config(tmp_path, start=None, extra="remind_hours_before: 0.01\n")
    text = config.read_text(encoding="utf-8").replace('"22:30"', f'"{close:%H:%M}"')
    config.write_text(text, encoding="utf-8")
    outbox = tmp_path / "mail" / "outbox"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    daemon = subprocess.Popen(
        [sys.executable, "-m", "pbp", "-c", str(config), "run"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert _wait_for(lambda: len(read_maildir(outbox)) == 6, 20), _outbox_subjects(outbox)
        welcome = read_maildir(outbox)[0]
        personal = str(welcome["Reply-To"])
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pbp",
                "-c",
                str(config),
                "mail",
                "--from",
                "cross@example.test",
                "--to",
                personal,
                "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг",
            ],
            cwd=tmp_path,
            env=env,
            check=True,
            capture_output=True,
        )
        assert _wait_for(lambda: len(read_maildir(outbox)) == 8, 20), _outbox_subjects(outbox)
        seconds = (close - datetime.now(zone)).total_seconds()
        assert _wait_for(
            lambda: any("Итоги дня 1" in s for _, s in _outbox_subjects(outbox)), seconds + 30
        ), _outbox_subjects(outbox)
        subjects = _outbox_subjects(outbox)
        reminders = [to for to, s in subjects if s.startswith("[seed-000] Напоминание")]
        assert reminders == ["cross@example.test", "doug@example.test", "rosa@example.test"]
        shown = [m for m in read_maildir(outbox) if "вам показали карту" in str(m["Subject"])]
        assert [str(m["To"]) for m in shown] == ["cross@example.test"]
        assert "За Дуга ответил ГМ и показывает вам карту: Пистолет." in body(shown[0])
        time.sleep(2)
        assert sum("Итоги дня 1 — BBCode" in s for _, s in _outbox_subjects(outbox)) == 1
    finally:
        daemon.send_signal(signal.SIGTERM)
        output, _ = daemon.communicate(timeout=30)
    assert daemon.returncode == 0, output
