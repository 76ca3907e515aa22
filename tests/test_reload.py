"""SIGHUP re-reads games.yaml (issue 14, item 5): a game added while ``pbp run`` runs
starts without a restart; a broken file is refused with one ERROR line and the daemon
goes on with the old one; a file that lacks a started game is refused too. Through a
real ``pbp run`` (signals and the main loop are the point). The signal cuts the wait
for mail short (issue 15): the loop in this process shows it reloads at once, also
from IMAP IDLE, whose connection it then opens anew."""

from __future__ import annotations

import logging
import re
import signal
import threading
import time
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from kits.daemon import DaemonProcess, serve
from kits.mailstack import Dovecot
from kits.table import write_config
from kits.wait import wait_for

from pbp.app import daemon as daemon_module
from pbp.app.daemon import Daemon
from pbp.cli import _service
from pbp.config.loading import load_config
from pbp.games.core import registry
from pbp.mail.maildir import deliver, read_maildir

STAMP = re.compile(r"^\S+ \S+ ")


def second_game(text: str) -> str:
    """``text`` (seed 000's games.yaml) with a copy of its game as ``seed-001``."""
    start = text.index("  - id: seed-000")
    game = text[start:].replace("id: seed-000", "id: seed-001", 1)
    return text + game


def test_sighup_starts_a_new_game_and_refuses_a_broken_file_going_on_with_the_old(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, start="2026-12-01T00:00")
    outbox = tmp_path / "mail" / "outbox"
    original = config.read_text(encoding="utf-8")
    daemon = DaemonProcess(config)
    try:
        # The start: three hands, the GM sheet, the opening post (BBCode alone).
        wait_for(lambda: len(read_maildir(outbox)) == 5, 30, daemon.output)
        # A new game, read without a restart: its players get their hands.
        config.write_text(second_game(original), encoding="utf-8")
        daemon.signal(signal.SIGHUP)
        wait_for(lambda: len(read_maildir(outbox)) == 10, 30, daemon.output)
        subjects = [str(m["Subject"]) for m in read_maildir(outbox)[5:]]
        assert sum("[seed-001]" in s for s in subjects) == 5
        # A broken file: refused, the daemon goes on (still two games).
        config.write_text(original.replace("kind: cluedo_days", "kind: chess"), "utf-8")
        daemon.signal(signal.SIGHUP)
        # At once: the signal cuts the wait for mail short.
        wait_for(lambda: daemon.output().count("not reloaded") == 1, 30, daemon.output)
        # A file without the started seed-001: refused as well.
        config.write_text(original, encoding="utf-8")
        daemon.signal(signal.SIGHUP)
        wait_for(lambda: daemon.output().count("not reloaded") == 2, 30, daemon.output)
        assert daemon.process.poll() is None
    finally:
        daemon.stop()
    output = daemon.output()
    lines = [STAMP.sub("", line) for line in output.splitlines()]
    reloads = [line for line in lines if "pbp.app.daemon" in line and "pbp running:" not in line][
        :-1
    ]
    assert reloads == [
        "INFO pbp.app.daemon: signal 1: reading games.yaml again",
        "INFO pbp.app.daemon: new game(s) seed-001: each starts at its start time",
        f"INFO pbp.app.daemon: {config} reloaded: 2 game(s)",
        "INFO pbp.app.daemon: signal 1: reading games.yaml again",
        f"ERROR pbp.app.daemon: {config} not reloaded, going on with the old one: "
        f"{config}:9: games[0].kind: unknown kind 'chess' "
        f"(known: {', '.join(map(repr, registry.names()))})",
        "INFO pbp.app.daemon: signal 1: reading games.yaml again",
        f"ERROR pbp.app.daemon: {config} not reloaded, going on with the old one: games.yaml "
        "lacks the running game(s) seed-001: put them back as they were (a game is not "
        "renamed or ended by editing the file; one that is over may go), or, to start over "
        f"with new games, stop pbp and move the store {tmp_path / 'pbp.sqlite3'} aside",
    ]
    assert "Traceback" not in output


def test_check_and_run_refuse_a_games_yaml_that_renamed_a_running_game(tmp_path: Path) -> None:
    """Renamed, the game would start anew under its new id (new hands mailed to all)."""
    from click.testing import CliRunner

    from pbp.cli import main

    config = write_config(tmp_path, start="2026-12-01T00:00")
    runner = CliRunner()
    assert runner.invoke(main, ["-c", str(config), "run", "--once"]).exit_code == 0
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("id: seed-000", "id: seed-0"), encoding="utf-8")
    said = (
        "games.yaml lacks the running game(s) seed-000: put them back as they were (a game "
        "is not renamed or ended by editing the file; one that is over may go), or, to start "
        f"over with new games, stop pbp and move the store {tmp_path / 'pbp.sqlite3'} aside"
    )
    checked = runner.invoke(main, ["-c", str(config), "check"])
    assert (checked.exit_code, checked.output) == (1, f"{config}: error: {said}\n")
    sent = len(read_maildir(tmp_path / "mail" / "outbox"))
    ran = runner.invoke(main, ["-c", str(config), "run", "--once"])
    assert (ran.exit_code, ran.output) == (
        1,
        f"Error: {config}{said.removeprefix('games.yaml')}\n",
    )
    assert len(read_maildir(tmp_path / "mail" / "outbox")) == sent  # nothing dealt anew


IMAP_PASSWORD = "gm-secret"


def imap_inbox(config: Path, dovecot: Dovecot) -> dict[str, str]:
    """Make ``config`` read ``gm@example.test`` on ``dovecot``; the password's env."""
    dovecot.add_user("gm@example.test", IMAP_PASSWORD)
    text = config.read_text(encoding="utf-8").replace(
        "  inbox: {maildir: ./mail/inbox}\n",
        f"  inbox: {{imap: {{host: 127.0.0.1, port: {dovecot.port}, "
        "username: gm@example.test, password_env: PBP_TEST_IMAP_PASSWORD, tls: none}}\n",
    )
    config.write_text(text, encoding="utf-8")
    return {"PBP_TEST_IMAP_PASSWORD": IMAP_PASSWORD}


@pytest.mark.parametrize("inbox", ["maildir", "imap"])
def test_sighup_cuts_the_wait_for_mail_short_and_the_inbox_serves_on(
    inbox: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """SIGHUP while the loop waits for mail (polling the Maildir, in IMAP IDLE, each up
    to POLL_SECONDS): the file is read again at once, the new game starts, and a
    player's mail afterwards is answered (IMAP: on connections opened anew).

    The wait is an hour here (POLL_SECONDS, 10 s in use): the file can only be read
    within the 30 s of ``wait_for`` because the signal cut the wait, however slow the
    machine (no bound on its speed)."""
    monkeypatch.setattr(daemon_module, "POLL_SECONDS", 3600.0)
    config = write_config(tmp_path, start=None)
    dovecot: Dovecot | None = None
    if inbox == "imap":
        dovecot = request.getfixturevalue("dovecot")
        for name, value in imap_inbox(config, dovecot).items():
            monkeypatch.setenv(name, value)
    outbox = tmp_path / "mail" / "outbox"
    service = _service(load_config(config), create=True)
    caplog.set_level(logging.INFO)

    def reloaded() -> bool:
        return any("reloaded: 2 game(s)" in r.getMessage() for r in caplog.records)

    def steps(daemon: Daemon) -> float:
        wait_for(lambda: len(read_maildir(outbox)) == 5, 30)  # the start of seed-000
        welcome = read_maildir(outbox)[0]
        wait_for(lambda: daemon.waiting, 30, every=0.01)
        config.write_text(second_game(config.read_text(encoding="utf-8")), encoding="utf-8")
        signalled = time.monotonic()
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGHUP)
        wait_for(reloaded, 30, every=0.01)  # long before the wait's hour ends
        seconds = time.monotonic() - signalled
        wait_for(lambda: len(read_maildir(outbox)) == 10, 30)  # and of seed-001
        # The inbox still serves: a player's STATUS is answered.
        status = EmailMessage()
        status["From"] = str(welcome["To"])
        status["To"] = str(welcome["Reply-To"])
        status["Subject"] = "ход"
        status["Message-ID"] = make_msgid(domain="example.test")
        status.set_content("СТАТУС\n")
        if dovecot is None:
            deliver(tmp_path / "mail" / "inbox", bytes(status))
        else:
            dovecot.append("gm@example.test", bytes(status).replace(b"\n", b"\r\n"))
        wait_for(lambda: len(read_maildir(outbox)) == 11, 30)
        return seconds

    seconds = serve(service, steps, ahead=timedelta(0))
    # Without the cut the loop would read the file when the wait ends: POLL_SECONDS
    # after it began, which was just before the signal.
    assert seconds < daemon_module.POLL_SECONDS / 2, seconds
    troubles = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert troubles == []
