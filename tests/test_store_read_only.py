"""A read-only store is one sentence and exit 1, never a traceback (issue 32, item 6).

What a read-only store looks like for real: the file (or its folder, where SQLite makes
``pbp.sqlite3-wal`` and ``-shm`` and pbp its writer lock) belongs to another user, and
pbp runs as a user who may read but not write it (a store made by root, pbp then run as
its service user; a folder copied without its modes). Root writes any file whatever its
mode, so a ``chmod`` shows nothing when the suite runs as root: then each command runs
as the unprivileged user 65534 ("nobody") on files root owns, which is that real shape
(:func:`kits.nobody.pbp`); run unprivileged, the suite takes the write bits away
instead (``chmod``).

Before, every command ended in ``sqlite3.OperationalError: attempt to write a readonly
database`` (``pbp run``: ``PermissionError`` on the writer lock) with a traceback.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from kits.nobody import NOBODY, ROOT, pbp
from kits.table import Table, utc
from kits.wait import wait_for

from pbp.app.daemon import Daemon


@pytest.fixture
def started() -> Iterator[Path]:
    """A folder every user may enter, holding seed 000's games.yaml and its started
    store (no pbp open on it); removed afterwards. Not ``tmp_path``: its parents are
    closed to other users."""
    folder = Path(tempfile.mkdtemp(prefix="pbp-read-only-"))
    try:
        folder.chmod(0o755)
        table = Table(folder)
        table.run(utc(2026, 12, 1, 17))
        table.close()
        (folder / "games.yaml").chmod(0o644)
        if ROOT:  # the mailboxes are the commands' user's: only the store is not
            for path in [folder / "mail", *(folder / "mail").rglob("*")]:
                os.chown(path, NOBODY, NOBODY)
        yield folder
    finally:
        folder.chmod(0o755)  # writable again, to be removed
        shutil.rmtree(folder)


def read_only(store: Path, *, folder: bool) -> None:
    """Make the store's file (``folder``: its folder instead) read-only for the user the
    commands run as, and the other one writable to him. As root, the commands run as
    :data:`NOBODY` and root owns both: mode 644 (755) is read-only to him, 666 (777)
    writable; unprivileged, the write bits go (444, 555)."""
    if not ROOT:
        (store.parent if folder else store).chmod(0o555 if folder else 0o444)
    elif folder:
        store.parent.chmod(0o755)
        store.chmod(0o666)
    else:
        store.parent.chmod(0o777)
        store.chmod(0o644)


COMMANDS = [
    ("run", "--once", "--now", "2026-12-01T20:10+03:00"),
    ("show", "seed-000"),
    ("pause", "seed-000"),
    ("check",),
    ("kept",),
]


def test_a_store_file_read_only_for_pbps_user_is_one_sentence_and_exit_1(
    started: Path,
) -> None:
    store = started / "pbp.sqlite3"
    before = store.read_bytes()
    read_only(store, folder=False)
    said = (
        f"Error: the store {store} is read-only for this user: make it writable for the user "
        "pbp runs as (its owner and mode, or a read-write mount)\n"
    )
    for command in COMMANDS:
        assert pbp(started / "games.yaml", *command) == (1, "", said), command
    assert store.read_bytes() == before


def test_a_store_folder_read_only_for_pbps_user_is_one_sentence_and_exit_1(
    started: Path,
) -> None:
    """The file may be written, but not the folder: SQLite cannot make the write-ahead
    log beside it, nor pbp its writer lock."""
    store = started / "pbp.sqlite3"
    read_only(store, folder=True)
    said = (
        f"Error: the store {store} cannot be written: its folder {started} is read-only for "
        "this user, and SQLite makes pbp.sqlite3-wal and pbp.sqlite3-shm there; make it "
        "writable for the user pbp runs as (its owner and mode, or a read-write mount)\n"
    )
    for command in COMMANDS:
        assert pbp(started / "games.yaml", *command) == (1, "", said), command
    assert sorted(p.name for p in started.glob("pbp.sqlite3*")) == ["pbp.sqlite3"]


def test_the_daemon_logs_a_store_that_turned_read_only_in_one_error_line_per_try(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The store cannot be written any more while ``pbp run`` serves (here SQLite's own
    read-only state, ``PRAGMA query_only``: the ``SQLITE_READONLY`` a read-only mount
    gives): each try is one ERROR line naming the store and what to do, backed off as a
    mail server down, never a traceback (before: ``mail round failed; retrying`` with
    the whole ``sqlite3.OperationalError`` traceback, every try; so was a deadline job
    that failed so)."""
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.send("Роза", "СТАТУС", at=utc(2026, 12, 1, 17, 5))
    table.service.store._db.execute("PRAGMA query_only = ON")
    daemon = Daemon(table.service, clock=lambda: utc(2026, 12, 1, 17, 6))

    def errors() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.levelno >= logging.ERROR]

    def driver() -> None:
        try:
            wait_for(lambda: len(errors()) == 3, 30, lambda: caplog.text)
        finally:
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)

    handlers = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    thread = threading.Thread(target=driver, name="test-driver")
    try:
        with caplog.at_level(logging.INFO):
            thread.start()
            daemon.run()  # until the driver's SIGTERM
    finally:
        thread.join(60)
        for number, handler in handlers.items():
            signal.signal(number, handler)
        table.close()
    said = (
        f"the store {tmp_path / 'pbp.sqlite3'} cannot be written (attempt to write a "
        "readonly database): make it and its folder writable for the user pbp runs as"
    )
    # Two rounds (the second 5 s after the first) and the day's close, already due,
    # which the scheduler tries beside the first round (in either order).
    assert sorted((r.name, r.getMessage(), r.exc_info) for r in errors()) == [
        ("pbp.app.daemon", f"deadline job failed: {said}", None),
        ("pbp.app.daemon", f"{said}; next try in 10 s", None),
        ("pbp.app.daemon", f"{said}; next try in 5 s", None),
    ]
