"""``pbp run``: the APScheduler jobs and the long-running process (rules D1, D6, D8)."""

from __future__ import annotations

import signal
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from kits.cli import pbp
from kits.daemon import DaemonProcess
from kits.table import Table, body, utc, write_config
from kits.wait import wait_for

from pbp.app.daemon import Daemon
from pbp.cli import _service, main
from pbp.config.loading import load_config
from pbp.mail.maildir import read_maildir


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


def _close_at(config: Path, close: datetime) -> None:
    """Make the seed-000 game of ``config`` close its days at ``close``'s time of day."""
    text = config.read_text(encoding="utf-8").replace('"22:30"', f'"{close:%H:%M}"')
    config.write_text(text, encoding="utf-8")


SUGGESTION = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг"


def test_pbp_run_serves_mail_and_stops_on_sigterm_with_status_0(tmp_path: Path) -> None:
    """A real ``pbp run`` process: it starts the game, answers a player's mail, and
    SIGTERM ends it with exit status 0 (the close, 12 hours away, is the next test's)."""
    config = write_config(tmp_path, start=None)
    _close_at(config, datetime.now(ZoneInfo("Europe/Moscow")) + timedelta(hours=12))
    outbox = tmp_path / "mail" / "outbox"
    daemon = DaemonProcess(config)
    try:
        # The start: 3 welcome mails, the GM sheet, the opening post (BBCode alone).
        wait_for(lambda: len(read_maildir(outbox)) == 5, 20, lambda: str(_outbox_subjects(outbox)))
        personal = str(read_maildir(outbox)[0]["Reply-To"])
        sent = pbp(config, "mail", "--from", "cross@example.test", "--to", personal, SUGGESTION)
        assert sent.code == 0, sent
        # The answer to Кросс and the suggestion to Дуг.
        wait_for(lambda: len(read_maildir(outbox)) == 7, 20, lambda: str(_outbox_subjects(outbox)))
    finally:
        code = daemon.stop()
    assert code == 0, daemon.output()


#: In the next test the daemon's clock starts this long before the day close (the game
#: started and the move applied before; the reminder comes 7.4 s after the daemon's start).
LEAD = timedelta(seconds=11)


def test_the_scheduler_sends_the_reminder_and_closes_the_day_on_time_once(
    tmp_path: Path,
) -> None:
    """The daemon's loop in this process (signals and all), its clock ``ahead`` of the
    wall clock so that a close at a whole minute comes :data:`LEAD` after the daemon's
    start: the reminder (``remind_hours_before`` 0.001, 3.6 s) and the close fire from
    APScheduler, once; SIGTERM ends the loop.

    The game starts and Кросс's suggestion is applied an hour of game time before the
    close, in rounds of this test's own (``run_once``), before the daemon runs: how long
    they take on a loaded machine moves neither the reminder nor the close."""
    zone = ZoneInfo("Europe/Moscow")
    close = (datetime.now(zone) + timedelta(hours=1)).replace(second=0, microsecond=0)
    early = close.astimezone(UTC) - timedelta(hours=1)
    config = write_config(tmp_path, start=None, extra="remind_hours_before: 0.001\n")
    _close_at(config, close)
    outbox = tmp_path / "mail" / "outbox"
    service = _service(load_config(config), create=True)
    service.clock = lambda: early
    service.run_once(early)  # the game starts: its five mails
    assert len(read_maildir(outbox)) == 5, _outbox_subjects(outbox)  # as above
    welcome = read_maildir(outbox)[0]
    personal = str(welcome["Reply-To"])
    mail = ["mail", "--from", "cross@example.test", "--to", personal, "--at", early.isoformat()]
    main(["-c", str(config), *mail, SUGGESTION], standalone_mode=False)
    service.run_once(early)  # the suggestion: its two mails
    assert len(read_maildir(outbox)) == 7, _outbox_subjects(outbox)
    ahead = close - LEAD - datetime.now(UTC)
    daemon = Daemon(service, ahead=ahead)
    service.clock = daemon.clock
    failed: list[BaseException] = []

    def player_and_gm() -> None:
        """The test's side, beside the daemon's loop in the main thread."""
        try:
            explain = lambda: str(_outbox_subjects(outbox))  # noqa: E731
            seconds = (close - daemon.clock()).total_seconds()
            wait_for(
                lambda: any("Итоги дня 1" in s for _, s in _outbox_subjects(outbox)),
                seconds + 30,
                explain,
            )
            subjects = _outbox_subjects(outbox)
            reminders = [to for to, s in subjects if s.startswith("[seed-000] Напоминание")]
            assert reminders == ["cross@example.test", "doug@example.test", "rosa@example.test"]
            shown = [m for m in read_maildir(outbox) if "вам показали карту" in str(m["Subject"])]
            assert [str(m["To"]) for m in shown] == ["cross@example.test"]
            assert "За Дуг ответил ГМ и показал вам карту «Пистолет»." in body(shown[0])
            time.sleep(2)
            assert sum("Итоги дня 1 — BBCode" in s for _, s in _outbox_subjects(outbox)) == 1
        except BaseException as error:
            failed.append(error)
        finally:
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)

    handlers = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    driver = threading.Thread(target=player_and_gm, name="test-driver")
    try:
        driver.start()
        daemon.run()  # until the driver's SIGTERM
    finally:
        # The driver's SIGTERM must meet the daemon's handler, not pytest's: join first.
        driver.join(120)
        for number, handler in handlers.items():
            signal.signal(number, handler)
        service.store.close()
    if failed:
        raise failed[0]
    assert daemon.stopping.is_set()


def test_a_reload_reads_the_templates_again_even_when_games_yaml_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGHUP (:meth:`Daemon.reload`) empties the renderer's templates: a template
    edited while ``pbp run`` runs is read at its next use (issue 18: none is looked at
    on disk in between)."""
    table = Table(tmp_path)
    try:
        daemon = Daemon(table.service)
        renderer = table.service.renderer
        reloads: list[None] = []
        original = renderer.reload

        def counted() -> None:
            reloads.append(None)
            original()

        monkeypatch.setattr(renderer, "reload", counted)
        assert daemon.reload()
        assert len(reloads) == 1
        path = table.config.path
        assert path is not None
        path.write_text("games: [\n", encoding="utf-8")
        assert not daemon.reload()
        assert len(reloads) == 2
    finally:
        table.close()


def test_the_daemon_compiles_its_games_templates_beside_its_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: after the first round (and again after a reload) the games' templates
    are compiled (:meth:`pbp.app.service.Service.prepare_templates`, tested in
    tests/test_render.py) in a thread of their own, so no reply waits for its template."""
    table = Table(tmp_path)
    try:
        ran: list[str] = []
        done = threading.Event()

        def prepare() -> int:
            ran.append(threading.current_thread().name)
            done.set()
            return 0

        monkeypatch.setattr(table.service, "prepare_templates", prepare)
        daemon = Daemon(table.service)
        daemon._prepare_templates()
        assert done.wait(30)
        assert ran == ["pbp-templates"]
        assert daemon._templates_ready
        daemon.reload()  # templates read again: compiled again after the next round
        assert not daemon._templates_ready
    finally:
        table.close()
