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
from kits.crash import DAEMON, ENV, GM, PASSWORD_ENV, add_users, games_yaml
from kits.mailstack import Dovecot, SmtpServer
from kits.table import write_config

from pbp.app import connect
from pbp.app.placement import Mark, placement
from pbp.cli import main
from pbp.config.loading import load_config
from pbp.mail.read.authcheck import TrustedServer
from pbp.mail.read.mime import read_letter

TAG = "check0a1b2c3d"


@pytest.fixture
def config(
    tmp_path: Path, dovecot: Dovecot, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> Path:
    add_users(dovecot)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("pbp.app.connect.secrets.token_hex", lambda _n: TAG.removeprefix("check"))
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


# Issue 32: `pbp check --connect` reads where the trusted server's
# Authentication-Results stand from the GM's own mail only. The server of these tests
# writes 2 Received fields above its one field (its SMTP side, then LMTP delivery).
SMTP_IN = b"Received: from mail.example.test by mx.example.test (Postfix) with ESMTPS\r\n"
LMTP = b"Received: from mx.example.test by mx.example.test with LMTP\r\n"
PASSED = b"Authentication-Results: mx.example.test; dmarc=pass header.from=example.test\r\n"
FAILED_DMARC = b"Authentication-Results: mx.example.test; dmarc=fail header.from=example.test\r\n"
OTHER = b"Authentication-Results: mx.other.test; dmarc=pass header.from=example.test\r\n"
RESEND = f"send one mail from the GM's mailbox ({GM}) to {DAEMON} and run pbp check --connect again"


def mail_from(sender: str) -> bytes:
    return f"From: {sender}\r\nTo: {DAEMON}\r\nSubject: hello\r\n\r\nSTATUS\r\n".encode()


def trust(config: Path, settings: str) -> None:
    """Add ``settings`` (YAML keys of ``mail:``, ``"; "``-separated) to ``config``."""
    text = config.read_text(encoding="utf-8")
    trailer = "  max_answers_per_hour: 10000\n"
    assert trailer in text
    keys = "".join(f"  {key}\n" for key in settings.split("; "))
    config.write_text(text.replace(trailer, trailer + keys), "utf-8")


def check_exit(config: Path) -> int:
    result = CliRunner().invoke(main, ["-c", str(config), "check", "--connect", "--wait", "10"])
    assert "Traceback" not in result.output
    return result.exit_code


def test_the_gms_own_mail_shows_the_trusted_fields_as_set(config: Path, dovecot: Dovecot) -> None:
    trust(config, "trusted_authserv_id: mx.example.test")
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + mail_from(f"Gm <{GM.upper()}>"))
    ok, said = lines(config)
    assert (ok, said[8]) == (
        True,
        "ok      Authentication-Results from mx.example.test: 1 field below 2 Received fields "
        "in the GM's newest mail, as set (that mail: dmarc=pass)",
    )
    assert check_exit(config) == 0


def test_a_strangers_mail_with_a_forged_field_never_gives_advice(
    config: Path, dovecot: Dovecot
) -> None:
    """Fault 1: the newest mail of the folder was a stranger's, carrying a forged field
    of the trusted id right below the server's, and check said "set
    trusted_authserv_fields: 2" (exit 0), which would have trusted the forgery. Only the
    GM's own mail is read: with none, a note (exit status unchanged); with an older one
    of his, that one."""
    trust(config, "trusted_authserv_id: mx.example.test")
    stranger = mail_from("Stranger <stranger@example.test>")
    # A display name holding the GM's address matches IMAP's SEARCH FROM: still not his.
    posing = mail_from(f'"{GM}" <stranger@example.test>')
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + PASSED + stranger)
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + PASSED + posing)
    ok, said = lines(config)
    assert (ok, said[8]) == (
        True,
        "note    Authentication-Results from mx.example.test: not checked: no mail from the GM "
        f"in the folder: {RESEND}",
    )
    assert not any("trusted_authserv_fields" in line for line in said)
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + mail_from(GM))
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + PASSED + stranger)
    ok, said = lines(config)
    assert (ok, said[8]) == (
        True,
        "ok      Authentication-Results from mx.example.test: 1 field below 2 Received fields "
        "in the GM's newest mail, as set (that mail: dmarc=pass)",
    )


def test_more_fields_than_set_in_a_mail_forged_from_the_gm_names_no_setting(
    config: Path, dovecot: Dovecot
) -> None:
    """Fault 1, the GM's address forged: a second field that would pass as the server's
    makes pbp name trusted_authserv_fields: 2 only when the server, read so,
    authenticates that From; its own dmarc=fail beside the forged pass does not."""
    trust(config, "trusted_authserv_id: mx.example.test")
    dovecot.append(DAEMON, LMTP + SMTP_IN + FAILED_DMARC + PASSED + mail_from(GM))
    ok, said = lines(config)
    assert (ok, said[8]) == (
        False,
        "FAILED  Authentication-Results from mx.example.test: 2 fields below 2 Received fields "
        "in the GM's newest mail, the settings say 1 field below 2 Received fields; read so, "
        "the server did not authenticate that mail's From (dmarc=fail), so it may be forged "
        f"and pbp names no setting from it: {RESEND}",
    )
    # The GM's own mail through a server that writes two fields (OpenDKIM, OpenDMARC).
    dkim = b"Authentication-Results: mx.example.test; dkim=pass header.d=example.test\r\n"
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + dkim + mail_from(GM))
    ok, said = lines(config)
    assert (ok, said[8]) == (
        False,
        "FAILED  Authentication-Results from mx.example.test: 2 fields below 2 Received fields "
        "in the GM's newest mail, the settings say 1 field below 2 Received fields: set "
        "trusted_authserv_fields: 2",
    )


def test_fewer_fields_than_set_fail_with_the_number_to_set(config: Path, dovecot: Dovecot) -> None:
    """Fault 1: trusted_authserv_fields: 2 where the server writes 1 was "ok … as set",
    though the second place is a sender's to fill."""
    trust(config, "trusted_authserv_id: mx.example.test; trusted_authserv_fields: 2")
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + mail_from(GM))
    ok, said = lines(config)
    assert (ok, said[8]) == (
        False,
        "FAILED  Authentication-Results from mx.example.test: 1 field below 2 Received fields "
        "in the GM's newest mail, the settings say 2 fields below 2 Received fields: the "
        "server writes fewer than set, which leaves a place a sender can fill: set "
        "trusted_authserv_fields: 1",
    )
    assert check_exit(config) == 1


@pytest.mark.parametrize("above", [0, 1, 3])
def test_a_wrong_trusted_received_above_fails_with_the_value_to_set(
    config: Path, dovecot: Dovecot, above: int
) -> None:
    """Fault 2: a wrong place was a WARNING and exit 0, though every move would then be
    kept as unauthenticated."""
    trust(config, f"trusted_authserv_id: mx.example.test; trusted_received_above: {above}")
    dovecot.append(DAEMON, LMTP + SMTP_IN + PASSED + mail_from(GM))
    ok, said = lines(config)
    fields = "Received field" if above == 1 else "Received fields"
    assert (ok, said[8]) == (
        False,
        "FAILED  Authentication-Results from mx.example.test: 1 field below 2 Received fields "
        f"in the GM's newest mail, the settings say 1 field below {above} {fields}: set "
        "trusted_received_above: 2",
    )
    assert check_exit(config) == 1


def test_a_wrong_trusted_authserv_id_fails_with_the_id_to_set(
    config: Path, dovecot: Dovecot
) -> None:
    """Fault 2: an id that stands in no field was a WARNING and exit 0."""
    trust(config, "trusted_authserv_id: mx.wrong.test")
    forged = b"Authentication-Results: mx.forged.test; dmarc=pass\r\n"
    dovecot.append(DAEMON, LMTP + SMTP_IN + OTHER + forged + mail_from(GM))
    ok, said = lines(config)
    assert (ok, said[8]) == (
        False,
        "FAILED  Authentication-Results from mx.wrong.test: none in the GM's newest mail "
        "(fields of mx.forged.test, mx.other.test only: set trusted_authserv_id: "
        "mx.other.test, trusted_received_above: 2 and trusted_authserv_fields: 1)",
    )
    assert check_exit(config) == 1
    dovecot.append(DAEMON, LMTP + SMTP_IN + mail_from(GM))
    ok, said = lines(config)
    assert (ok, said[8]) == (
        False,
        "FAILED  Authentication-Results from mx.wrong.test: none in the GM's newest mail "
        "(nor any other: the server writes none, so every move would be kept as "
        "unauthenticated: leave trusted_authserv_id unset)",
    )


def test_trusted_authserv_id_with_a_maildir_inbox_is_a_warning(tmp_path: Path) -> None:
    """Fault 3: the local trial's Maildir inbox, where no server writes
    Authentication-Results, passed `pbp check` and `--connect` silently, and then
    every move was kept as unauthenticated. A warning, not an error: a mail server of
    the owner's may deliver into the Maildir and write them."""
    path = write_config(tmp_path, trusted="mx.example.test")
    result = CliRunner().invoke(main, ["-c", str(path), "check"])
    assert (result.exit_code, result.output.splitlines()[0]) == (
        0,
        f"{path}: warning: mail.trusted_authserv_id: mx.example.test is set, but the inbox "
        "is a local Maildir: unless a mail server delivers into it and writes "
        "Authentication-Results, every move will be kept as unauthenticated; in the trial "
        "(pbp mail) remove trusted_authserv_id",
    )
    path = write_config(tmp_path)
    assert CliRunner().invoke(main, ["-c", str(path), "check"]).exit_code == 0


def test_no_gm_mail_after_pbps_own_test_mail_says_it_was_skipped(
    config: Path, dovecot: Dovecot
) -> None:
    """Fault 4: "opened, 1 message" was followed by "no mail in the folder to look
    at": the one message was the check's own test mail, skipped without a word."""
    trust(config, "trusted_authserv_id: mx.example.test")
    assert lines(config)[0] is True
    ok, said = lines(config)
    assert said[4] == "ok      IMAP folder 'INBOX': opened, 1 message"
    assert (ok, said[8]) == (
        True,
        "note    Authentication-Results from mx.example.test: not checked: no mail from the GM "
        f"in the folder (pbp's own test mail skipped): {RESEND}",
    )


def test_fields_of_the_id_below_the_servers_warn_that_such_mail_counts_as_forged() -> None:
    letter = read_letter(
        b"Received: from a by mx.example.test\r\n"
        b"Authentication-Results: mx.example.test; spf=pass smtp.mailfrom=example.test\r\n"
        b"Received: from b by a\r\n"
        b"Authentication-Results: mx.example.test; dmarc=pass header.from=example.test\r\n"
        b"From: gm-person@example.test\r\n\r\nSTATUS\r\n"
    )
    assert placement(letter, TrustedServer("mx.example.test", 1, 1), resend="…") == (
        Mark.WARNING,
        "Authentication-Results from mx.example.test: 1 field below 1 Received field in the "
        "GM's newest mail, as set, and more below 2 Received fields, where the server writes "
        "none: pbp keeps such a mail as forged",
    )
