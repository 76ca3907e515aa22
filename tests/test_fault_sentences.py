"""Mail-server faults as sentences (issue 14, item 3): a network or login failure is one
line naming the server and what to check, never a traceback (but with ``-v``); a
missing password variable stops ``pbp run`` and fails ``pbp check`` in one line.

Against the suite's Dovecot (wrong password, a port nobody listens on) with the games
of :mod:`kits.crash`; ``pbp`` runs as a real process where its output is the point (the
games' start before it runs in this process, :mod:`kits.cli`).
"""

from __future__ import annotations

import os
import re
import socket
from datetime import UTC, datetime
from pathlib import Path

from kits.cli import run
from kits.crash import DAEMON, ENV, PASSWORD_ENV, add_users, games_yaml
from kits.daemon import DaemonProcess, run_pbp
from kits.mailstack import Dovecot, SmtpServer
from kits.wait import wait_for

STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def pbp(config: Path, *args: str, env: dict[str, str]) -> tuple[int, list[str]]:
    """``python -m pbp -c CONFIG ARGS…``: (exit code, output lines without time stamps)."""
    done = run_pbp(config, *args, env=env)
    lines = (done.stdout + done.stderr).splitlines()
    return done.returncode, [STAMP.sub("", line) for line in lines]


def started(tmp_path: Path, dovecot: Dovecot, smtp_server: SmtpServer) -> Path:
    """The games started on the real servers (a store with history): the config."""
    add_users(dovecot)
    config = tmp_path / "games.yaml"
    config.write_text(
        games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC)), encoding="utf-8"
    )
    done = run(config, "run", "--once", env=ENV)
    assert done.returncode == 0, done.stderr
    return config


def test_run_once_with_a_wrong_password_says_so_in_one_line(
    tmp_path: Path, dovecot: Dovecot, smtp_server: SmtpServer
) -> None:
    config = started(tmp_path, dovecot, smtp_server)
    code, lines = pbp(config, "run", "--once", env={PASSWORD_ENV: "wrong"})
    assert code == 1
    assert lines == [
        f"Error: IMAP 127.0.0.1:{dovecot.port} ({DAEMON}): login refused "
        "([AUTHENTICATIONFAILED] Authentication failed.): check username and the password "
        "in password_env (an app password where the provider wants one) (what was done "
        "before is kept)"
    ]


def test_the_daemon_logs_an_unreachable_server_in_one_line_per_try_without_traceback(
    tmp_path: Path, dovecot: Dovecot, smtp_server: SmtpServer
) -> None:
    config = started(tmp_path, dovecot, smtp_server)
    port = free_port()
    text = config.read_text(encoding="utf-8").replace(f"port: {dovecot.port}", f"port: {port}")
    config.write_text(text, encoding="utf-8")
    daemon = DaemonProcess(config, ENV)
    try:
        # The first try, then the second after 5 s.
        wait_for(lambda: daemon.output().count("; next try in") == 2, 30, daemon.output)
    finally:
        daemon.stop()
    output = daemon.output()
    lines = [STAMP.sub("", line) for line in output.splitlines()]
    refused = (
        f"ERROR pbp.app.daemon: IMAP 127.0.0.1:{port} ({DAEMON}): cannot connect: the server "
        "refused the connection (is the port right, and is the server up?); next try in"
    )
    assert [line for line in lines if line.startswith("ERROR")] == [
        f"{refused} 5 s",
        f"{refused} 10 s",
    ]
    assert "Traceback" not in output
    assert lines[-1] == "INFO pbp.app.daemon: signal 15: stopping"


def test_a_missing_password_variable_stops_run_and_check_connect_in_one_line(
    tmp_path: Path, dovecot: Dovecot, smtp_server: SmtpServer
) -> None:
    config = tmp_path / "games.yaml"
    config.write_text(
        games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC)), encoding="utf-8"
    )
    environ = {name: value for name, value in os.environ.items() if name != PASSWORD_ENV}

    def without_password(*args: str) -> tuple[int, str, str]:
        done = run_pbp(config, *args, base=environ)
        return done.returncode, done.stdout, done.stderr

    assert without_password("run") == (
        1,
        "",
        f"Error: {config}: the environment variable {PASSWORD_ENV} (password_env) is not "
        "set: set it to the mailbox's password before starting pbp\n",
    )
    assert not (tmp_path / "pbp.sqlite3").exists()
    assert without_password("check", "--connect") == (
        1,
        "",
        f"{config}: error: environment variable {PASSWORD_ENV} (password_env) is not set\n",
    )
    # The file itself is checked without the password (issue 31): only a warning.
    assert without_password("check") == (
        0,
        f"{config}: OK: cd-1 (cluedo_days, 4 players), cr-1 (cluedo_rounds, 4 players), "
        "mn-1 (maniac, 10 players)\n",
        f"{config}: warning: environment variable {PASSWORD_ENV} (password_env) is not set: "
        "`pbp run` and `pbp check --connect` need it\n",
    )
