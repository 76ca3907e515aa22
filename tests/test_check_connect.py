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
from pbp.authcheck import TrustedServer
from pbp.cli import main
from pbp.config import load_config
from pbp.parse.mime import read_letter

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
    # The test mail is now the folder's one message: counted in the singular.
    assert lines(config)[1][4] == "ok      IMAP folder 'INBOX': opened, 1 message"
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


def test_a_login_set_for_an_smtp_server_that_offers_none_says_to_leave_it_out(
    config: Path, smtp_server: SmtpServer
) -> None:
    """No AUTH in the server's EHLO reply (the suite's aiosmtpd): no password can help,
    so the line says to leave the login out, not to check the password."""
    text = config.read_text(encoding="utf-8")
    plain = f"{{smtp: {{host: 127.0.0.1, port: {smtp_server.port}, tls: none}}}}"
    assert plain in text
    login = (
        f"{{smtp: {{host: 127.0.0.1, port: {smtp_server.port}, tls: none, "
        f"username: {DAEMON}, password_env: {PASSWORD_ENV}}}}}"
    )
    config.write_text(text.replace(plain, login), "utf-8")
    ok, said = lines(config)
    assert (ok, said[1]) == (
        False,
        f"FAILED  SMTP 127.0.0.1:{smtp_server.port}: the server offers no login (no AUTH in "
        "its EHLO reply): leave username and password_env out of smtp, or use the port "
        "where it asks for one",
    )


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


def test_a_password_sent_in_clear_to_another_host_is_a_loud_warning(
    config: Path, dovecot: Dovecot, smtp_server: SmtpServer
) -> None:
    """Issue 31: ``tls: none`` to a host that is not this machine's loopback sends the
    IMAP password in clear: a WARNING line first (SMTP here has no login: none)."""
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("127.0.0.1", "mail.example.test"), "utf-8")
    ok, said = lines(config, wait=0.0)
    assert said[0] == (
        f"WARNING IMAP mail.example.test:{dovecot.port}: tls: none sends the password of "
        f"{DAEMON} in clear over the network, where anyone on the way can read it: use "
        "tls: ssl or starttls (tls: none is for a server on this machine)"
    )
    assert [line.split(": ")[0] for line in said] == [
        f"WARNING IMAP mail.example.test:{dovecot.port}",
        f"FAILED  SMTP mail.example.test:{smtp_server.port}",
        f"FAILED  IMAP mail.example.test:{dovecot.port}",
    ]
    assert ok is False
    # The same sentence is the first warning of `pbp run`, which logs it at its start.
    assert connect.cleartext_logins(load_config(config)) == [said[0].removeprefix("WARNING ")]


@pytest.mark.parametrize(
    ("imap_host", "imap_tls", "smtp", "warned"),
    [
        ("localhost", "none", "{host: smtp.example.test, port: 25, tls: none}", []),
        (
            "127.0.0.2",
            "none",
            "{host: '::1', port: 25, username: u, password_env: PW, tls: none}",
            [],
        ),
        ("mail.example.test", "ssl", "{host: smtp.example.test, port: 25, tls: none}", []),
        (
            "localhost",
            "none",
            "{host: smtp.example.test, port: 587, username: u, password_env: PW, tls: none}",
            ["SMTP smtp.example.test:587"],
        ),
        (
            "10.0.0.5",
            "none",
            "{host: smtp.example.test, port: 587, username: u, password_env: PW, tls: starttls}",
            ["IMAP 10.0.0.5:143"],
        ),
    ],
)
def test_cleartext_logins_names_each_server_a_password_would_cross_in_clear(
    tmp_path: Path, imap_host: str, imap_tls: str, smtp: str, warned: list[str]
) -> None:
    text = games_yaml(143, 25, datetime.now(UTC))
    text = text.replace("host: 127.0.0.1, port: 143,", f"host: {imap_host!r}, port: 143,")
    text = text.replace("PASSWORD, tls: none}}", f"PASSWORD, tls: {imap_tls}}}}}")
    text = text.replace("{smtp: {host: 127.0.0.1, port: 25, tls: none}}", f"{{smtp: {smtp}}}")
    path = tmp_path / "games.yaml"
    path.write_text(text, "utf-8")
    found = connect.cleartext_logins(load_config(path))
    assert [sentence.split(": ")[0] for sentence in found] == warned


def test_the_newest_mail_shows_whether_the_trusted_fields_stand_where_the_settings_say(
    config: Path, dovecot: Dovecot
) -> None:
    """Issue 32: with trusted_authserv_id set, the newest mail of the folder (not a test
    mail of the check) is looked at; a mismatch is a warning naming the setting."""
    text = config.read_text(encoding="utf-8")
    trailer = "  max_answers_per_hour: 10000\n"
    assert trailer in text
    config.write_text(
        text.replace(
            trailer,
            f"{trailer}  trusted_authserv_id: mx.example.test\n  trusted_received_above: 1\n",
        ),
        "utf-8",
    )
    ok, said = lines(config)
    assert (ok, said[8]) == (
        True,
        "note    Authentication-Results from mx.example.test: no mail in the folder to look at "
        "(send one from another mailbox and check again)",
    )
    own = b"From: cross@example.test\r\nTo: gm@example.test\r\nSubject: x\r\n\r\nSTATUS\r\n"
    smtp_in = b"Received: from mail.example.test by mx.example.test (Postfix) with ESMTPS\r\n"
    lmtp = b"Received: from mx.example.test by mx.example.test with LMTP\r\n"
    passed = b"Authentication-Results: mx.example.test; dmarc=pass header.from=example.test\r\n"
    other = b"Authentication-Results: mx.other.test; dmarc=pass header.from=example.test\r\n"
    dovecot.append(DAEMON, smtp_in + passed + own)
    ok, said = lines(config)
    assert (ok, said[8]) == (
        True,
        "ok      Authentication-Results from mx.example.test: 1 field below 1 Received field "
        "in the newest mail, as set",
    )
    dovecot.append(DAEMON, lmtp + smtp_in + passed + passed + own)
    ok, said = lines(config)
    assert (ok, said[8]) == (
        True,
        "WARNING Authentication-Results from mx.example.test: 2 fields below 2 Received "
        "fields in the newest mail, the settings say 1 field below 1 Received field: if that "
        "mail came from outside, set trusted_received_above: 2 and trusted_authserv_fields: 2",
    )
    dovecot.append(DAEMON, smtp_in + other + own)
    ok, said = lines(config)
    assert (ok, said[8]) == (
        True,
        "WARNING Authentication-Results from mx.example.test: none in the newest mail (fields "
        "of mx.other.test only): check that this is the name its fields start with; if the "
        "server writes none on some mail, pbp cannot tell its fields from a sender's: leave "
        "trusted_authserv_id unset",
    )


def test_trusted_fields_at_two_places_say_to_look_at_another_mail() -> None:
    letter = read_letter(
        b"Received: from a by mx.example.test\r\n"
        b"Authentication-Results: mx.example.test; spf=pass smtp.mailfrom=example.test\r\n"
        b"Received: from b by a\r\n"
        b"Authentication-Results: mx.example.test; dmarc=pass header.from=example.test\r\n"
        b"From: cross@example.test\r\n\r\nSTATUS\r\n"
    )
    assert connect.placement(letter, TrustedServer("mx.example.test", 1, 1)) == (
        False,
        "Authentication-Results from mx.example.test: fields below 1 and 2 Received fields in "
        "the newest mail, the settings say 1 field below 1 Received field: one of them is "
        "not the server's: look at another mail",
    )
