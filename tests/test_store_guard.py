"""The store is never silently replaced (issue 12, item 5).

``pbp run`` refuses (exit 2) to deal games into a new, empty store when the mailbox
shows that pbp served it before: mail in the Maildir inbox's ``.done``, messages
with ``$PbpDone`` on the IMAP server, pbp's own mail in the Maildir outbox, or the
write-ahead log of a deleted store; ``--fresh`` deals anew on purpose. A running
service whose store file is deleted or replaced stops with
:class:`~pbp.store.StoreReplacedError` and marks nothing done after it; the real
daemon exits 1 with one ERROR line within seconds. The commands run in this process
(:mod:`kits.cli`: their exit status and output as a child shows them); the daemon whose
store is deleted is a real ``pbp run`` process.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from datetime import datetime
from pathlib import Path

import pytest
from kits.cli import run
from kits.daemon import DaemonProcess, run_pbp
from kits.mailstack import Dovecot
from kits.table import Table, utc, write_config
from kits.wait import wait_for

from pbp.app.outcome import Outcome
from pbp.mail.base import RawMessage
from pbp.mail.maildir import deliver, read_maildir
from pbp.store import Store, StoreReplacedError

NOW = "2026-12-01T21:00+03:00"  # after the game's start (20:00 Moscow)
OLD = b"From: cross@example.test\nTo: gm+old@example.test\nSubject: move\n\nSTATUS\n"
PASSWORD = "gm-secret"
LOG = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARNING) ")


def pbp(
    config: Path, *args: str, env: dict[str, str] | None = None, child: bool = False
) -> tuple[int, str, str]:
    """``pbp -c CONFIG ARGS…`` in ``config``'s folder, in this process (``child``: as a
    ``python -m pbp`` child process): (code, stdout, stderr without its log records).

    A refusal on an IMAP inbox runs in a child: it leaves its IMAP connection to be
    closed by the process's exit, which in this process is a ResourceWarning.
    """
    done = (run_pbp if child else run)(config, *args, env=env)
    said = [line for line in done.stderr.splitlines(keepends=True) if not LOG.match(line)]
    return done.returncode, done.stdout, "".join(said)


def refusal(store: Path, evidence: str) -> str:
    """The exact text ``pbp run`` prints when it refuses a new store."""
    return (
        f"pbp run: refusing to deal the games into the new, empty store {store}: this "
        f"mailbox was served before ({evidence}).\n"
        f"To restore a backup: stop every pbp process, delete {store}-wal and {store}-shm "
        f"if they are there, copy the backup to {store}, then start pbp run again.\n"
        "To start anew on purpose (every game dealt again, new hands and roles mailed to "
        "every player): pbp run --fresh\n"
    )


def games(store: Path) -> list[str]:
    with Store(store) as opened:
        return sorted(opened.schedules())


def test_run_refuses_an_empty_store_when_done_holds_mail_and_fresh_deals_anew(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    store, mail = tmp_path / "pbp.sqlite3", tmp_path / "mail"
    inbox, outbox = mail / "inbox", mail / "outbox"
    deliver(inbox / ".done", OLD)
    deliver(inbox / ".done", OLD)

    assert pbp(config, "run", "--once", "--now", NOW) == (
        2,
        "",
        refusal(store, f"2 processed messages in {inbox / '.done'}"),
    )
    # Refused before the store file was made, and nothing was sent.
    assert not store.exists() and read_maildir(outbox) == []
    # An empty store file (made by an older pbp, or by hand) is refused the same way.
    Store(store).close()
    assert pbp(config, "run", "--once", "--now", NOW)[0] == 2

    assert pbp(config, "run", "--once", "--now", NOW, "--fresh")[:2] == (0, "")
    assert games(store) == ["seed-000"]
    # Three hands, the GM sheet, the opening post (BBCode alone: the default post_format).
    assert len(read_maildir(outbox)) == 5
    # From now on the store has history of its own: no --fresh needed.
    assert pbp(config, "run", "--once", "--now", NOW)[:2] == (0, "")


def test_run_refuses_an_empty_store_beside_the_outbox_and_the_log_of_a_deleted_store(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    store, outbox = tmp_path / "pbp.sqlite3", tmp_path / "mail" / "outbox"
    assert pbp(config, "run", "--once", "--now", NOW)[0] == 0
    assert len(read_maildir(outbox)) == 5  # the start
    # The store is lost (deleted by hand, its write-ahead log left behind).
    shutil.copy(store, tmp_path / "backup.sqlite3")
    store.unlink()
    wal = tmp_path / "pbp.sqlite3-wal"
    wal.write_bytes(b"what is left of the lost store")

    assert pbp(config, "run", "--once", "--now", NOW) == (
        2,
        "",
        refusal(
            store,
            f"the write-ahead log {store}-wal of a deleted store; "
            f"5 messages sent by pbp in {outbox}",
        ),
    )
    # The refusal left everything as it was: no store file, the log unread.
    assert not store.exists() and wal.read_bytes() == b"what is left of the lost store"
    # Restored as the message says: the games go on, nothing is dealt again.
    for leftover in ("pbp.sqlite3-wal", "pbp.sqlite3-shm"):
        (tmp_path / leftover).unlink(missing_ok=True)
    shutil.copy(tmp_path / "backup.sqlite3", store)
    assert pbp(config, "run", "--once", "--now", NOW)[:2] == (0, "")
    assert len(read_maildir(outbox)) == 5


@pytest.mark.parametrize("command", [["show", "seed-000"], ["pause", "seed-000"]])
def test_a_command_other_than_run_never_creates_a_store(tmp_path: Path, command: list[str]) -> None:
    config = write_config(tmp_path)
    store = tmp_path / "pbp.sqlite3"
    assert pbp(config, *command) == (
        1,
        "",
        f"Error: there is no store {store} yet: `pbp run` starts the games and creates it\n",
    )
    assert not store.exists()


def test_run_refuses_an_empty_store_when_imap_holds_done_mail_and_fresh_deals_anew(
    tmp_path: Path, dovecot: Dovecot
) -> None:
    dovecot.add_user("gm@example.test", PASSWORD)
    dovecot.append("gm@example.test", OLD.replace(b"\n", b"\r\n"), flags=["$PbpDone"])
    dovecot.append("gm@example.test", OLD.replace(b"\n", b"\r\n"))  # not done: no evidence
    config = write_config(tmp_path)
    text = config.read_text(encoding="utf-8").replace(
        "  inbox: {maildir: ./mail/inbox}\n",
        f"  inbox: {{imap: {{host: 127.0.0.1, port: {dovecot.port}, username: gm@example.test,"
        " password_env: PBP_TEST_IMAP_PASSWORD, tls: none}}\n",
    )
    config.write_text(text, encoding="utf-8")
    env = {"PBP_TEST_IMAP_PASSWORD": PASSWORD}
    store = tmp_path / "pbp.sqlite3"

    assert pbp(config, "run", "--once", "--now", NOW, env=env, child=True) == (
        2,
        "",
        refusal(store, "1 message with the keyword $PbpDone in INBOX on 127.0.0.1"),
    )
    assert games(store) == []

    code, out, err = pbp(config, "run", "--once", "--now", NOW, "--fresh", env=env)
    assert code == 0, err
    assert games(store) == ["seed-000"]
    # Only the mail without the keyword is processed (a registered sender without a token).
    assert re.fullmatch(r"imap:\d+:2: token_missing seed-000\n", out), out


# --------------------------------------------------------------- a running service


def deleted(store: Path) -> str:
    return (
        f"the store {store} was deleted while pbp had it open: stopping, so that nothing is "
        "written into the deleted file or marked done after it. Restore it from a backup "
        f"(delete {store}-wal and {store}-shm, then copy the backup to {store}) and start again"
    )


def replaced(store: Path) -> str:
    return (
        f"the store {store} was replaced by another file while pbp had it open: stopping, "
        "so that nothing is written into the old file or marked done after it. To use the "
        f"new file, delete {store}-wal and {store}-shm if they are there (SQLite would "
        "replay the old file's log into it), then start again"
    )


def test_a_store_deleted_between_two_rounds_stops_the_next_and_marks_nothing_done(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))  # the game starts
        table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 17, 1))
        store = tmp_path / "pbp.sqlite3"
        store.unlink()

        with pytest.raises(StoreReplacedError) as raised:
            table.run(utc(2026, 12, 1, 17, 2))

        assert str(raised.value) == deleted(store)
        assert len(os.listdir(table.inbox_path / "new")) == 1
        assert os.listdir(table.inbox_path / ".done" / "new") == []
    finally:
        table.close()


def test_a_store_replaced_during_a_round_marks_nothing_done_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two messages in one round; the store is replaced once the first is committed:
    the second is not applied, and neither is marked done (the first's result went
    into the old file)."""
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 17, 1))
        table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 17, 2))
        store = tmp_path / "pbp.sqlite3"
        handle = table.service.handle
        outcomes: list[str] = []

        def handle_then_replace(
            raw: RawMessage, now: datetime, *, source: str | None = None
        ) -> Outcome:
            outcome = handle(raw, now, source=source)
            outcomes.append(outcome.outcome)
            shutil.copy(store, tmp_path / "other.sqlite3")
            os.replace(tmp_path / "other.sqlite3", store)
            return outcome

        monkeypatch.setattr(table.service, "handle", handle_then_replace)
        with pytest.raises(StoreReplacedError) as raised:
            table.run(utc(2026, 12, 1, 17, 3))

        assert str(raised.value) == replaced(store)
        assert outcomes == ["status"]
        assert len(os.listdir(table.inbox_path / "new")) == 2
        assert os.listdir(table.inbox_path / ".done" / "new") == []
    finally:
        table.close()


@pytest.mark.parametrize("inbox", ["maildir", "imap"])
def test_pbp_run_stops_with_status_1_and_one_error_line_soon_after_its_store_is_deleted(
    inbox: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Whether it is in a round or waiting for mail (polling a Maildir, in IMAP IDLE).

    The daemon's wait for mail is an hour here (:data:`pbp.app.daemon.POLL_SECONDS`, 10 s
    in use): it stops because its store watcher (every
    :data:`~pbp.app.daemon.STORE_CHECK_SECONDS`) cut the wait short, never because the wait
    ended, however slow the machine; 60 s is a guard against a hang, no bound."""
    config = write_config(tmp_path, start=None)
    env = {}
    if inbox == "imap":
        dovecot: Dovecot = request.getfixturevalue("dovecot")
        dovecot.add_user("gm@example.test", PASSWORD)
        text = config.read_text(encoding="utf-8").replace(
            "  inbox: {maildir: ./mail/inbox}\n",
            f"  inbox: {{imap: {{host: 127.0.0.1, port: {dovecot.port}, "
            "username: gm@example.test, password_env: PBP_TEST_IMAP_PASSWORD, tls: none}}\n",
        )
        config.write_text(text, encoding="utf-8")
        env = {"PBP_TEST_IMAP_PASSWORD": PASSWORD}
    store, outbox = tmp_path / "pbp.sqlite3", tmp_path / "mail" / "outbox"
    daemon = DaemonProcess(config, env, poll_seconds=3600.0)
    try:
        wait_for(lambda: len(read_maildir(outbox)) == 5, 30, daemon.output)  # started
        time.sleep(1)  # waiting for mail now (on a loaded machine perhaps still in its round)
        store.unlink()
        code = daemon.wait(60)
        output = daemon.output()
    finally:
        daemon.kill()
    records = [re.sub(r"^\S+ \S+ ", "", line) for line in output.splitlines()]
    errors = [line for line in records if line.startswith("ERROR")]
    assert (code, errors) == (1, [f"ERROR pbp.app.daemon: {deleted(store)}"]), output
    assert "Traceback" not in output
    # And the next start refuses the empty store it would make.
    assert pbp(config, "run", "--once", env=env, child=inbox == "imap")[0] == 2
