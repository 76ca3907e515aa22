"""SIGHUP re-reads games.yaml (issue 14, item 5): a game added while ``pbp run`` runs
starts without a restart; a broken file is refused with one ERROR line and the daemon
goes on with the old one; a file that lacks a started game is refused too. Through a
real ``pbp run`` (signals and the main loop are the point)."""

from __future__ import annotations

import re
import signal
from pathlib import Path

from kits.daemon import DaemonProcess
from kits.table import write_config
from kits.wait import wait_for

from pbp.mail.maildir import read_maildir

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
        wait_for(lambda: len(read_maildir(outbox)) == 6, 30, daemon.output)
        # A new game, read without a restart: its players get their hands.
        config.write_text(second_game(original), encoding="utf-8")
        daemon.signal(signal.SIGHUP)
        wait_for(lambda: len(read_maildir(outbox)) == 12, 30, daemon.output)
        subjects = [str(m["Subject"]) for m in read_maildir(outbox)[6:]]
        assert sum("[seed-001]" in s for s in subjects) == 6
        # A broken file: refused, the daemon goes on (still two games).
        config.write_text(original.replace("kind: cluedo_days", "kind: chess"), "utf-8")
        daemon.signal(signal.SIGHUP)
        # The loop reads it within POLL_SECONDS.
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
    reloads = [line for line in lines if "pbp.daemon" in line and "pbp running:" not in line][:-1]
    assert reloads == [
        "INFO pbp.daemon: signal 1: reading games.yaml again within 10 s",
        "INFO pbp.daemon: new game(s) seed-001: each starts at its start time",
        f"INFO pbp.daemon: {config} reloaded: 2 game(s)",
        "INFO pbp.daemon: signal 1: reading games.yaml again within 10 s",
        f"ERROR pbp.daemon: {config} not reloaded, going on with the old one: "
        f"{config}:9: games[0].kind: unknown kind 'chess' (known: 'cluedo_days', "
        "'cluedo_rounds', 'maniac')",
        "INFO pbp.daemon: signal 1: reading games.yaml again within 10 s",
        f"ERROR pbp.daemon: {config} not reloaded, going on with the old one: games.yaml "
        "lacks the running game(s) seed-001: put them back as they were (a game is not "
        "renamed or ended by editing the file; one that is over may go)",
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
        "is not renamed or ended by editing the file; one that is over may go)"
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
