"""Promises 2 to 4 of issue 6 on a real Dovecot: the server restarted and its mailbox
rebuilt under a new UIDVALIDITY (index files, UID list and keyword names deleted, as a
migration or a repair does), with mail arriving meanwhile.

The service runs in this process on the games of tests/kits/crash.py. The faults a
real server cannot show on demand are in tests/test_imap_scripted.py.
"""

from __future__ import annotations

import email
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.policy import default as default_policy
from pathlib import Path

import pytest
from kits.crash import (
    DAEMON,
    ENV,
    Move,
    add_users,
    address,
    close_service,
    games_yaml,
    open_service,
    raw_move,
    settled,
    tokens,
)
from kits.daemon import DaemonProcess
from kits.mailstack import Dovecot, SmtpServer
from kits.wait import wait_for

from pbp.app.intake import fingerprint
from pbp.app.service import Service
from pbp.store import Store

VASYA, OLYA, TANYA = "Вася", "Оля", "Таня"


@pytest.fixture
def service(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Service]:
    add_users(dovecot)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    config = tmp_path / "games.yaml"
    config.write_text(
        games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC)), encoding="utf-8"
    )
    service: Service = open_service(config)
    try:
        yield service
    finally:
        close_service(service)


def replies(dovecot: Dovecot, player: str) -> int:
    """How many answers to a move (``[mn-1] Re: ход``) the Maniac player received."""
    return sum(
        1
        for stored in dovecot.messages(address("mn-1", player))
        if email.message_from_bytes(stored.raw, policy=default_policy)["Subject"]
        == "[mn-1] Re: ход"
    )


def test_a_mailbox_renumbered_under_a_new_uidvalidity_reapplies_nothing_and_applies_the_new(
    service: Service, dovecot: Dovecot
) -> None:
    service.run_once()  # the games start
    seats = tokens(service.store.path)
    now = datetime.now(UTC).replace(microsecond=0)
    with_id = Move("<u-1@players.example.test>", "mn-1", VASYA, "ГОЛОС Петя")
    without_id = Move("", "mn-1", OLYA, "ГОЛОС Петя")
    dovecot.append(DAEMON, raw_move(with_id, seats), when=now - timedelta(minutes=2))
    anonymous = raw_move(without_id, seats)
    dovecot.append(DAEMON, anonymous, when=now - timedelta(minutes=1))
    assert [o.outcome for o in service.run_once()] == ["applied", "applied"]
    assert service.inbox is not None
    old_validity = service.inbox.uidvalidity  # type: ignore[attr-defined]

    # Dovecot stops; its index, UID list and keyword names are deleted: on start it
    # renumbers the mailbox under a new UIDVALIDITY and $PbpDone is gone.
    time.sleep(1.1)  # UIDVALIDITY is a time in seconds
    dovecot.stop()
    maildir = dovecot.dir / "mail" / DAEMON
    for file in maildir.iterdir():
        if file.name.startswith("dovecot"):
            file.unlink()
    dovecot.start()
    new = Move("<u-3@players.example.test>", "mn-1", TANYA, "ГОЛОС Олю")
    dovecot.append(DAEMON, raw_move(new, seats))
    assert all("$PbpDone" not in m.flags for m in dovecot.messages(DAEMON)[:2])

    outcomes = service.run_once()

    assert service.inbox.uidvalidity != old_validity  # type: ignore[attr-defined]
    assert [(o.outcome, o.notes) for o in outcomes] == [
        ("duplicate", [with_id.message_id]),
        ("duplicate", [fingerprint(anonymous)]),
        ("applied", []),
    ]
    row = service.store.game("mn-1")
    assert row is not None
    assert [b["voter"] for b in row.state["ballots"]] == [VASYA, OLYA, TANYA]
    assert [replies(dovecot, p) for p in (VASYA, OLYA, TANYA)] == [1, 1, 1]
    assert all("$PbpDone" in m.flags for m in dovecot.messages(DAEMON))


def test_fingerprint_ignores_trace_fields_and_line_ends_but_not_the_text() -> None:
    mail = b"From: a@example.test\r\nTo: gm@example.test\r\nSubject: x\r\n\r\nVOTE B\r\n"
    traced = b"Delivered-To: gm@example.test\nReceived: by mx\n" + mail.replace(b"\r\n", b"\n")
    assert fingerprint(traced) == fingerprint(mail)
    assert fingerprint(mail.replace(b"VOTE B", b"VOTE C")) != fingerprint(mail)
    assert fingerprint(mail).startswith("sha256:") and len(fingerprint(mail)) == 7 + 64


def test_pbp_run_rides_out_a_dovecot_restart_and_applies_mail_of_the_outage_once(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path
) -> None:
    """The real daemon: Dovecot is killed under it and started again; a move that
    arrives as soon as it is back is applied once, and so is one sent before."""
    add_users(dovecot)
    config = tmp_path / "games.yaml"
    config.write_text(
        games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC)), encoding="utf-8"
    )
    daemon = DaemonProcess(config, ENV)
    store = tmp_path / "pbp.sqlite3"
    try:
        daemon.wait_running()
        wait_for(lambda: tokens_ready(store), 30, daemon.output)
        seats = tokens(store)
        before = Move("<d-1@players.example.test>", "mn-1", VASYA, "ГОЛОС Петя")
        dovecot.append(DAEMON, raw_move(before, seats))
        wait_for(lambda: settled(store, 1), 30, daemon.output)

        dovecot.stop()  # a crash of the server: every session is cut
        time.sleep(1.0)
        dovecot.start()
        during = Move("<d-2@players.example.test>", "mn-1", OLYA, "ГОЛОС Петя")
        dovecot.append(DAEMON, raw_move(during, seats))
        wait_for(lambda: settled(store, 2), 60, daemon.output)
        # The outcome is recorded before the mail is flagged: on a loaded machine the
        # flag may come a moment later, so wait for it rather than race it.
        wait_for(
            lambda: all("$PbpDone" in m.flags for m in dovecot.messages(DAEMON)),
            30,
            daemon.output,
        )
        assert daemon.stop() == 0, daemon.output()
    finally:
        daemon.stop()
    assert "lost" in daemon.output() or "failed" in daemon.output()
    assert [replies(dovecot, p) for p in (VASYA, OLYA)] == [1, 1]
    with Store(store) as opened:
        assert [m.outcome for m in opened.message_outcomes()] == ["applied", "applied"]
    assert all("$PbpDone" in m.flags for m in dovecot.messages(DAEMON))


def tokens_ready(store: Path) -> bool:
    try:
        # 18 players and the GM seat of each of the three games (issue 8).
        return len(tokens(store)) == 18 + 3
    except sqlite3.OperationalError:
        return False


def test_the_same_message_id_in_another_folder_is_never_read(
    service: Service, dovecot: Dovecot
) -> None:
    """Only the configured folder is watched: a copy in Archive (a GM's filter, a client
    that files a copy) or in pbp's own kept folder is never applied."""
    service.run_once()
    seats = tokens(service.store.path)
    raw = raw_move(Move("<f-1@players.example.test>", "mn-1", VASYA, "ГОЛОС Петя"), seats)
    with dovecot.master_login(DAEMON) as client:
        client.create_folder("Archive")
        client.create_folder("pbp-kept")
    dovecot.append(DAEMON, raw, folder="Archive")
    dovecot.append(DAEMON, raw, folder="pbp-kept")
    dovecot.append(DAEMON, raw)

    assert [o.outcome for o in service.run_once()] == ["applied"]
    assert service.run_once() == []
    row = service.store.game("mn-1")
    assert row is not None and [b["voter"] for b in row.state["ballots"]] == [VASYA]
    assert all("$PbpDone" not in m.flags for m in dovecot.messages(DAEMON, folder="Archive"))
