"""A store path that names no pbp store is one sentence and exit 1 (issue 32, second pass).

Before, each of these ended every command in a traceback: a directory as the store
(``sqlite3.OperationalError: unable to open database file``), a symbolic link to
``/dev/null`` (``disk I/O error``), another program's SQLite file of ``user_version 6``
(``no such table: kept``), ``pbp.sqlite3-shm`` as a named pipe (``disk I/O error``),
the writer lock as a named pipe (``OSError: [Errno 22]``) or a directory
(``IsADirectoryError``); a symbolic link loop made ``pbp games`` say "not started" and
``pbp close-day`` "there is no store yet", as if there were none, and ``pbp run``
end in a traceback. Each shape is made on a started store (seed 000), and every command
must say what is there, the same sentence each, and leave the files as they are.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.table import Table, utc

from pbp.cli import main
from pbp.store import NotAStoreError, Store

COMMANDS = [
    ("games",),
    ("kept",),
    ("show", "seed-000"),
    ("run", "--once", "--now", "2026-12-01T20:10+03:00"),
    ("close-day", "seed-000"),
    ("rotate-token", "seed-000", "Дуг"),
]

#: The commands that take the writer lock: the only ones a bad lock file stops.
WRITERS = [command for command in COMMANDS if command[0] in {"run", "close-day", "rotate-token"}]


def started(folder: Path) -> Path:
    """Seed 000 started in ``folder`` (its store closed); games.yaml's path."""
    table = Table(folder)
    table.run(utc(2026, 12, 1, 17))
    table.close()
    return folder / "games.yaml"


def foreign(store: Path, version: int) -> None:
    """Another program's SQLite file at ``store``: a table ``games`` of its own, the
    ``user_version`` ``version``."""
    store.unlink()
    with closing(sqlite3.connect(store)) as db:
        db.execute("CREATE TABLE games (x)")
        db.execute(f"PRAGMA user_version = {version}")
        db.commit()


def replaced(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def shape(store: Path) -> None:
        store.unlink()
        for side in ("-wal", "-shm"):
            store.with_name(store.name + side).unlink(missing_ok=True)
        make(store)

    return shape


STORE_SHAPES: dict[str, tuple[Callable[[Path], None], str]] = {
    "directory": (
        replaced(lambda store: store.mkdir()),
        "the store {store} is a directory, not a pbp store: give games.yaml's store: the "
        "path of pbp's store file (pbp makes it at the first `pbp run`)",
    ),
    "symlink_to_dev_null": (
        replaced(lambda store: store.symlink_to("/dev/null")),
        "the store {store} is a device, not a pbp store: give games.yaml's store: the path "
        "of pbp's store file (pbp makes it at the first `pbp run`)",
    ),
    "symlink_loop": (
        replaced(lambda store: store.symlink_to(store.name)),
        "the store {store} is a symbolic link that cannot be followed (Too many levels of "
        "symbolic links), not a pbp store: give games.yaml's store: the path of pbp's "
        "store file (pbp makes it at the first `pbp run`)",
    ),
    "symlink_to_nothing": (
        replaced(lambda store: store.symlink_to("gone.sqlite3")),
        "the store {store} is a symbolic link to gone.sqlite3, which does not exist, not a "
        "pbp store: give games.yaml's store: the path of pbp's store file (pbp makes it at "
        "the first `pbp run`)",
    ),
    "another_programs_sqlite_file_of_user_version_6": (
        lambda store: foreign(store, 6),
        "the store {store} is not a pbp store: an SQLite file of schema version 6 without "
        "pbp's tables answer_windows, bodies_seen, deferred_answers, digest, digest_sent, "
        "events, gm_confirmations, kept, messages, outbox, posts, reminders, "
        "retired_tokens, seat_stranger_answers, secrets, stranger_answers, tokens "
        "(another program's file, or one altered), so it is left as it is; give "
        "games.yaml's store: the path of pbp's own store, or restore a backup",
    ),
    "another_programs_sqlite_file_of_user_version_0": (
        lambda store: foreign(store, 0),
        "the store {store} is not a pbp store: an SQLite file of schema version 0 without "
        "pbp's tables events, kept, messages, outbox, reminders, tokens (another program's "
        "file, or one altered), so it is left as it is; give games.yaml's store: the path "
        "of pbp's own store, or restore a backup",
    ),
    "shm_a_fifo": (
        lambda store: os.mkfifo(store.with_name("pbp.sqlite3-shm")),
        "the store's shared-memory index {store}-shm is a named pipe (FIFO), not the "
        "regular file SQLite keeps there: remove it (SQLite makes it again) and start again",
    ),
    "wal_a_directory": (
        lambda store: store.with_name("pbp.sqlite3-wal").mkdir(),
        "the store's write-ahead log {store}-wal is a directory, not the regular file "
        "SQLite keeps there: remove it (SQLite makes it again) and start again",
    ),
}


def listing(folder: Path, *, lock: bool = True) -> dict[str, tuple[int, bytes | None]]:
    """Every entry of ``folder`` but the mail (and ``lock=False``: the writer lock, which
    ``pbp run`` takes before it opens the store): its mode and, for a regular file,
    its bytes."""
    found = {}
    for path in folder.iterdir():
        if path.name in {"mail", "games.yaml"} or (not lock and path.name.endswith(".lock")):
            continue
        mode = path.lstat().st_mode
        found[path.name] = (
            mode,
            path.read_bytes() if path.is_file() and not path.is_symlink() else None,
        )
    return found


@pytest.mark.parametrize("shape", sorted(STORE_SHAPES))
def test_a_store_path_that_names_no_pbp_store_is_one_sentence_and_exit_1(
    tmp_path: Path, shape: str
) -> None:
    config = started(tmp_path)
    store = tmp_path / "pbp.sqlite3"
    make, said = STORE_SHAPES[shape]
    make(store)
    (store.with_name("pbp.sqlite3.lock")).unlink(missing_ok=True)
    before = listing(tmp_path, lock=False)
    sentence = said.format(store=store)
    with pytest.raises(NotAStoreError) as raised:
        Store(store)
    assert str(raised.value) == sentence
    if shape == "directory":  # games.yaml's store: is refused first, as the file is read
        line = (
            f"{config}:6: store: {store} is a directory: give the path of pbp's SQLite "
            f"file, such as {store / 'pbp.sqlite3'}\n"
        )
    else:
        line = f"Error: {sentence}\n"
    for command in COMMANDS:
        result = CliRunner().invoke(main, ["-c", str(config), *command])
        assert (result.exit_code, result.output) == (1, line), command
    assert listing(tmp_path, lock=False) == before  # nothing made, written or taken over


LOCK_SHAPES: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (os.mkfifo, "a named pipe (FIFO)"),
    "directory": (lambda path: path.mkdir(), "a directory"),
    "symlink_to_dev_null": (lambda path: path.symlink_to("/dev/null"), "a symbolic link"),
}


@pytest.mark.parametrize("shape", sorted(LOCK_SHAPES))
def test_a_writer_lock_that_is_no_regular_file_is_one_sentence_and_exit_1(
    tmp_path: Path, shape: str
) -> None:
    config = started(tmp_path)
    lock = tmp_path / "pbp.sqlite3.lock"
    lock.unlink(missing_ok=True)
    make, what = LOCK_SHAPES[shape]
    make(lock)
    before = lock.lstat().st_mode
    for command in WRITERS:
        result = CliRunner().invoke(main, ["-c", str(config), *command])
        said = (
            f"Error: the store's writer lock {lock} is {what}, not a regular file: remove it "
            "(pbp makes it again)\n"
        )
        assert (result.exit_code, result.output) == (1, said), command
    assert lock.lstat().st_mode == before  # left as it is
    # Nothing was done (day 1 still), and the readers, which take no lock, still work.
    shown = CliRunner().invoke(main, ["-c", str(config), "games"])
    assert (shown.exit_code, shown.output.splitlines()[1].split()[:4]) == (
        0,
        ["seed-000", "cluedo_days", "day", "1"],
    )
