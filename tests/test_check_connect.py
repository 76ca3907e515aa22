"""``pbp check --connect`` (issue 14, item 2) against the suite's Dovecot and aiosmtpd:
each step one line; exit 0 only when everything needed works; the test mail comes
back through SMTP → Dovecot → IMAP and is marked done so that ``pbp run`` never reads
it.
"""

from __future__ import annotations

import socket
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.crash import DAEMON, ENV, PASSWORD_ENV, add_users, games_yaml
from kits.mailstack import Dovecot, SmtpServer

from pbp import connect
from pbp.cli import main
from pbp.config import load_config

TAG = "check0a1b2c3d"


@pytest.fixture
def config(
    tmp_path: Path, dovecot: Dovecot, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    add_users(dovecot)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("pbp.connect.secrets.token_hex", lambda _n: TAG.removeprefix("check"))
    path = tmp_path / "games.yaml"
    path.write_text(games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC)), "utf-8")
    return path


def lines(path: Path, wait: float = 10.0) -> tuple[bool, list[str]]:
    report = connect.check_connect(load_config(path), wait=wait, clock=lambda: 0.0)
    return report.ok, report.lines


def test_the_right_settings_pass_every_step_and_the_test_mail_comes_back_marked_done(
    config: Path, dovecot: Dovecot, smtp_server: SmtpServer
) -> None:
    ok, said = lines(config)
    assert said == [
        f"ok      SMTP 127.0.0.1:{smtp_server.port}: reached (no TLS)",
        f"note    SMTP 127.0.0.1:{smtp_server.port}: no login set (username, password_env): "
        "sending without one",
        f"ok      IMAP 127.0.0.1:{dovecot.port}: reached (no TLS)",
        f"ok      IMAP 127.0.0.1:{dovecot.port}: logged in as {DAEMON}",
        "ok      IMAP folder 'INBOX': opened, 0 messages",
        "ok      IMAP IDLE: yes (new mail is seen at once)",
        "ok      IMAP keyword $PbpDone: allowed (processed mail is marked with it)",
        "ok      IMAP folder 'pbp-kept': can be created (pbp will)",
        f"ok      test mail to gm+{TAG}@example.test: came back in 0.0 s, plus address kept",
    ]
    assert ok is True
    (stored,) = dovecot.messages(DAEMON)
    assert "$PbpDone" in stored.flags
    result = CliRunner().invoke(main, ["-c", str(config), "check", "--connect"])
    assert result.exit_code == 0, result.output
    # The test mails are no sign of a lost store: the first pbp run deals the games.
    ran = CliRunner().invoke(main, ["-c", str(config), "run", "--once"])
    assert ran.exit_code == 0, ran.output


def test_a_wrong_password_fails_in_one_line_and_exit_1(
    config: Path, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "wrong")
    ok, said = lines(config)
    assert (ok, said[-1]) == (
        False,
        f"FAILED  IMAP 127.0.0.1:{dovecot.port}: login as {DAEMON} refused "
        "([AUTHENTICATIONFAILED] Authentication failed.): check username and the password "
        "in password_env (an app password where the provider wants one; IMAP turned on in "
        "the mailbox's settings)",
    )
    result = CliRunner().invoke(main, ["-c", str(config), "check", "--connect"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output


def test_a_wrong_port_and_a_missing_folder_are_said(config: Path, dovecot: Dovecot) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace(f"port: {dovecot.port}", f"port: {port}"), "utf-8")
    ok, said = lines(config)
    assert (ok, said[-1]) == (
        False,
        f"FAILED  IMAP 127.0.0.1:{port}: cannot connect: the server refused the connection "
        "(is the port right, and is the server up?)",
    )
    config.write_text(text.replace("tls: none}", "tls: none, folder: Games}", 1), "utf-8")
    ok, said = lines(config)
    assert (ok, said[-1]) == (
        False,
        "FAILED  IMAP folder 'Games': cannot be opened (select failed: Mailbox doesn't exist: "
        "Games): "
        "check folder: in games.yaml",
    )


def test_a_test_mail_that_never_comes_back_suggests_the_subject_tag(
    config: Path, smtp_server: SmtpServer
) -> None:
    smtp_server.deliver = False  # accepted, never delivered: as a provider without plus
    ok, said = lines(config, wait=0.0)
    assert (ok, said[-1]) == (
        False,
        f"FAILED  test mail to gm+{TAG}@example.test: did not arrive in 0 s: the provider may "
        "not deliver plus addresses: try personal_address: subject_tag",
    )
