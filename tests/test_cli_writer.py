"""One mail writer per store: ``pbp run`` refuses a second one; ``pbp close-day``
applies waiting mail before it closes (rule D8)."""

from __future__ import annotations

import os
import socket
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from kits.cli import run
from kits.daemon import run_pbp
from kits.games import Imap
from kits.table import Table, write_config

from pbp.app.lock import writer_lock
from pbp.store import Store

REPO = Path(__file__).resolve().parent.parent


def pbp(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pbp -c CONFIG ARGS…`` in this process (:func:`kits.cli.run`)."""
    return run(config, *args)


def test_a_second_pbp_run_on_the_same_store_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path, start=None)
    with writer_lock(tmp_path / "pbp.sqlite3") as mine:
        assert mine
        result = run_pbp(config, "run", "--once")  # another process: its pid differs
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"Error: another pbp run (pid {os.getpid()}) is serving {tmp_path / 'pbp.sqlite3'}"
    )
    assert pbp(config, "run", "--once").returncode == 0


def test_D8_close_day_applies_the_mail_waiting_in_the_inbox_first(tmp_path: Path) -> None:
    now = datetime.now(UTC)
    table = Table(tmp_path, start=None)
    try:
        table.run(now)
        table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=now)
        table.send("Дуг", "ОПРОВЕРЖЕНИЕ Спальня", at=now + timedelta(milliseconds=1))
    finally:
        table.close()
    # Nobody ran the daemon since: the GM closes the day by hand.
    result = pbp(tmp_path / "games.yaml", "close-day", "seed-000")
    assert (result.returncode, result.stdout) == (0, "seed-000: day 1 closed\n"), result.stderr
    table = Table(tmp_path, start=None)
    try:
        answers = [
            (s.day, s.event.kind, s.event.data.get("by_gm"))
            for s in table.store.events("seed-000", public_only=True)
            if s.event.kind in ("refuted", "not_refuted")
        ]
        assert answers == [(1, "refuted", False)]
    finally:
        table.close()


def logged(directory: Path) -> list[tuple[int, str]]:
    """``(seq, kind)`` of every event of seed-000 in the store of ``directory``."""
    store = Store(directory / "pbp.sqlite3")
    try:
        return [(s.seq, s.event.kind) for s in store.events("seed-000")]
    finally:
        store.close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound once, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_lever_with_the_mail_server_unreachable_is_one_line_and_not_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README walk-through, item 2: no daemon runs and the IMAP server cannot be
    reached. The waiting mail cannot be applied first (rule D8), so the lever is not
    pulled: one ERROR line, exit 1, nothing in the log; no traceback."""
    config = write_config(tmp_path, start=None)
    assert pbp(config, "run", "--once").returncode == 0
    before = logged(tmp_path)
    port = closed_port()
    text = config.read_text(encoding="utf-8")
    maildir = "inbox: {maildir: ./mail/inbox}"
    assert maildir in text
    config.write_text(text.replace(maildir, f"inbox: {Imap(port, 'PBP_TEST_IMAP').yaml()}"))
    monkeypatch.setenv("PBP_TEST_IMAP", "secret")
    fault = (
        f"Error: IMAP 127.0.0.1:{port} (gm@example.test): cannot connect: the server "
        "refused the connection (is the port right, and is the server up?); the mail "
        "waiting there was not read, so {} (rule D8: it must not overtake mail that "
        "arrived before it); nothing was changed: run it again once the server answers "
        "(pbp run also reads that mail then)\n"
    )

    paused = pbp(config, "pause", "seed-000")
    closed = pbp(config, "close-day", "seed-000")

    assert (paused.returncode, paused.stdout, paused.stderr) == (
        1,
        "",
        fault.format("pause was not done"),
    )
    assert (closed.returncode, closed.stdout, closed.stderr) == (
        1,
        "",
        fault.format("day 1 was not closed"),
    )
    assert logged(tmp_path) == before  # neither the pause nor the close is logged


def test_post_refuses_a_day_that_does_not_exist_and_a_final_post_before_the_end(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, start=None)
    assert pbp(config, "run", "--once").returncode == 0
    day = pbp(config, "post", "seed-000", "--day", "7")
    final = pbp(config, "post", "seed-000", "--which", "final")
    assert (day.returncode, day.stderr) == (1, "Error: game seed-000 has days 1 to 1, not 7\n")
    assert (final.returncode, final.stderr) == (1, "Error: game seed-000 is not over yet\n")
    # A game by days has no turns: --turn 2 is refused, not taken as --day 2.
    turn = pbp(config, "post", "seed-000", "--turn", "2")
    assert (turn.returncode, turn.stderr) == (
        1,
        "Error: game seed-000 has days, not turns: use --day 2\n",
    )


def test_post_of_a_result_that_does_not_exist_yet_is_refused_clearly(tmp_path: Path) -> None:
    """The bundled games.yaml: Maniac's morning and evening posts, the rounds game's."""
    config = tmp_path / "games.yaml"
    config.write_text((REPO / "games.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    assert pbp(config, "run", "--once").returncode == 0
    morning = pbp(config, "post", "maniac-1", "--which", "morning")
    first_evening = pbp(config, "post", "maniac-1", "--which", "evening")
    tomorrow = pbp(config, "post", "maniac-1", "--which", "evening", "--day", "2")
    evening = pbp(config, "post", "table-1", "--which", "evening")
    night = pbp(config, "end-night", "maniac-1")
    assert (morning.returncode, morning.stderr) == (
        1,
        "Error: game maniac-1: day 1 has no morning post (the game opens with day 1; "
        "the first night ends on the morning of day 2)\n",
    )
    assert (first_evening.returncode, first_evening.stderr) == (
        1,
        "Error: game maniac-1: no evening post yet (the first is day 1's, once it closes)\n",
    )
    assert (tomorrow.returncode, tomorrow.stderr) == (
        1,
        "Error: game maniac-1: no evening post for day 2 yet\n",
    )
    turn = pbp(config, "post", "table-1", "--day", "1")
    assert (turn.returncode, turn.stderr) == (
        1,
        "Error: game table-1 has turns, not days: use --turn 1\n",
    )
    assert (evening.returncode, evening.stderr) == (1, "Error: game table-1 has no evening posts\n")
    assert (night.returncode, night.stderr) == (
        1,
        "Error: game maniac-1: it is day now, not night\n",
    )
    assert pbp(config, "close-day", "maniac-1").stdout == "maniac-1: day 1 closed\n"
    assert pbp(config, "end-night", "maniac-1").stdout == "maniac-1: night 1 ended\n"
    day = pbp(config, "close-day", "table-1")
    assert (day.returncode, day.stderr) == (
        1,
        "Error: game table-1 is played by turns: each turn and answer has its own deadline\n",
    )


def test_end_night_on_a_game_without_nights_says_so(tmp_path: Path) -> None:
    config = write_config(tmp_path, start=None)
    assert pbp(config, "run", "--once").returncode == 0
    result = pbp(config, "end-night", "seed-000")
    assert (result.returncode, result.stderr) == (
        1,
        "Error: game seed-000 (cluedo_days) has no nights\n",
    )
