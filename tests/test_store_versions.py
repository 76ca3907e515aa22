"""Upgrades and backups (issue 14, item 6).

``tests/fixtures/store-v0.sqlite3`` was written by the release before schema versions
were kept (commit c802d36): seed 000's game started, Кросс's suggestion to Дуг made
(event 1 of day 1), Дуг's answer owed. A newer pbp upgrades such a store in place,
after copying it beside itself, and the game plays on; a store from a newer pbp is
refused in one sentence; ``pbp backup`` takes a consistent copy while ``pbp run``
writes, and the copy restores.

``tests/fixtures/store-v2-held.sqlite3`` was written by schema 2's pbp (commit
a73f768, through ``tests/gamekit.py``'s ``Table``), which marked held mail by its
reason ``paused:GAME`` and a held mail's replay by the source key ``<held source>#resumed``:
seed 000 started 2026-12-01 17:00 UTC; paused at 17:10; Кросс's suggestion held
(kept 1); resumed 2026-12-02 10:00, the suggestion applied; paused again at 10:30;
Роза's СТАТУС held (kept 2), Дуг's СТАТУС held (kept 3); Роза's seat given to Нина
at 11:20, which dropped kept 2 (``held_dropped``). Schema 3 upgrades it and the
resume applies kept 3 alone, once.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from click.testing import CliRunner
from kits.daemon import DaemonProcess
from kits.table import Table, utc, write_config
from kits.wait import wait_for

from pbp.cli import main
from pbp.mail.maildir import read_maildir
from pbp.store import SCHEMA_VERSION, Store, StoreVersionError

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "store-v0.sqlite3"
HELD_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "store-v2-held.sqlite3"


def version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def kinds(store: Store) -> list[str]:
    return [stored.event.kind for stored in store.events("seed-000")]


def test_a_store_of_the_release_before_versions_is_upgraded_and_played_on(
    tmp_path: Path,
) -> None:
    shutil.copy(FIXTURE, tmp_path / "pbp.sqlite3")
    assert version(tmp_path / "pbp.sqlite3") == 0
    table = Table(tmp_path)  # opens the store: upgraded
    assert (SCHEMA_VERSION, version(tmp_path / "pbp.sqlite3")) == (6, 6)
    with sqlite3.connect(tmp_path / "pbp.sqlite3") as db:  # schema 2's and 6's columns
        columns = [row[1] for row in db.execute("PRAGMA table_info(gm_confirmations)")]
    assert columns[-2:] == ["hinted_at", "ended_at"]
    with sqlite3.connect(tmp_path / "pbp.sqlite3") as db:  # schema 4's column
        columns = [row[1] for row in db.execute("PRAGMA table_info(kept)")]
    assert columns[-1] == "dismissed_at"
    assert len(table.store.secret("gm_confirm")) == 32  # schema 5's secret
    saved = tmp_path / "pbp.sqlite3.v0-backup"
    assert version(saved) == 0
    with sqlite3.connect(saved) as db:
        assert db.execute("SELECT id FROM games").fetchall() == [("seed-000",)]
    before = kinds(table.store)
    assert before == [
        "deal",
        "hand_dealt",
        "hand_dealt",
        "hand_dealt",
        "game_started",
        "suggestion_made",
    ]
    # The game plays on: Дуг holds none of Маша, Топор, Столовая.
    table.send("Дуг", "НЕТ ОПРОВЕРЖЕНИЯ 1", at=utc(2026, 12, 1, 18, 30))
    assert table.run(utc(2026, 12, 1, 18, 31)) == ["applied"]
    assert kinds(table.store)[len(before) :] == ["not_refuted"]
    assert len(table.store.events("seed-000")) == len(before) + 1
    table.close()
    # Opening it again changes nothing and makes no second copy.
    saved.unlink()
    with Store(tmp_path / "pbp.sqlite3") as store:
        assert kinds(store) == [*before, "not_refuted"]
    assert not saved.exists()


def test_a_store_from_a_newer_pbp_is_refused_in_one_sentence(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    path = tmp_path / "pbp.sqlite3"
    shutil.copy(FIXTURE, path)
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    said = (
        f"the store {path} was written by a newer pbp (store schema 7; this pbp reads up "
        "to 6): install that pbp again, or restore a backup made before the upgrade"
    )
    try:
        Store(path)
    except StoreVersionError as error:
        assert str(error) == said
    else:
        raise AssertionError("a newer store was opened")
    result = CliRunner().invoke(main, ["-c", str(config), "show", "seed-000"])
    assert (result.exit_code, result.output) == (1, f"Error: {said}\n")
    assert version(path) == 7  # untouched


def test_a_schema_2_store_with_held_and_replayed_mail_is_upgraded_and_resumes_once(
    tmp_path: Path,
) -> None:
    """Schema 3: ``paused:GAME`` becomes reason ``paused`` with ``held_for``; a
    ``#resumed`` message row gets ``replay_of``, the held row's id (D8)."""
    path = tmp_path / "pbp.sqlite3"
    shutil.copy(HELD_FIXTURE, path)
    assert version(path) == 2
    table = Table(tmp_path)  # opens the store: upgraded
    try:
        assert version(path) == 6
        assert version(tmp_path / "pbp.sqlite3.v2-backup") == 2
        held = [(k.id, k.reason, k.held_for, k.retry_outcome) for k in table.store.kept()]
        assert held == [
            (1, "paused", "seed-000", "applied"),
            (2, "paused", "seed-000", None),
            (3, "paused", "seed-000", None),
        ]
        assert table.store.replay_outcomes() == {1: "applied", 2: "held_dropped"}
        assert [k.id for k in table.store.held("seed-000")] == [3]
        result = CliRunner().invoke(main, ["-c", str(tmp_path / "games.yaml"), "kept", "--json"])
        rows = json.loads(result.output)
        assert [(r["game"], r["reason"], r["status"]) for r in rows] == [
            ("seed-000", "paused:seed-000", "resumed 2026-12-02 13:00 MSK: applied"),
            ("seed-000", "paused:seed-000", "resumed: held_dropped"),
            ("seed-000", "paused:seed-000", "waiting for resume"),
        ]
        before = kinds(table.store)
        assert before.count("suggestion_made") == 1
        # The resume applies Дуг's held СТАТУС alone, once; nothing is applied twice.
        table.service.gm.resume("seed-000", now=utc(2026, 12, 2, 12), via="cli", note=None)
        assert table.run(utc(2026, 12, 2, 12)) == ["status"]
        assert table.run(utc(2026, 12, 2, 12, 1)) == []
        assert kinds(table.store)[len(before) :] == ["gm_resume"]
        last = table.store.message_outcomes()[-1]
        assert (last.outcome, last.replay_of) == ("status", 3)
        assert table.store.replay_outcomes() == {1: "applied", 2: "held_dropped", 3: "status"}
        assert table.store.held("seed-000") == []
        (doug,) = [m for m in table.new_mail() if m["To"] == "doug@example.test"]
        assert doug["Subject"]
        result = CliRunner().invoke(main, ["-c", str(tmp_path / "games.yaml"), "kept", "--json"])
        statuses = [r["status"] for r in json.loads(result.output)]
        assert statuses[2] == "resumed 2026-12-02 15:00 MSK: status"
    finally:
        table.close()


def test_pbp_backup_copies_a_consistent_store_while_pbp_run_writes_and_it_restores(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, start="2026-12-01T00:00")
    outbox = tmp_path / "mail" / "outbox"
    daemon = DaemonProcess(config)
    copy = tmp_path / "backups" / "pbp-1.sqlite3"
    copy.parent.mkdir()
    try:
        wait_for(lambda: len(read_maildir(outbox)) >= 5, 30, daemon.output)
        assert len(read_maildir(outbox)) == 5  # the game started: the daemon holds the store
        result = CliRunner().invoke(main, ["-c", str(config), "backup", str(copy)])
        assert (result.exit_code, result.output) == (
            0,
            f"backed up {tmp_path / 'pbp.sqlite3'} to {copy}\n",
        )
        assert daemon.process.poll() is None  # still running
    finally:
        daemon.stop()
    assert sorted(p.name for p in copy.parent.iterdir()) == ["pbp-1.sqlite3"]  # no -wal
    with Store(copy) as backup:
        assert backup.schedules().keys() == {"seed-000"}
        token = backup.player_token("seed-000", "Кросс")
    # Restore: the store lost, the copy put in its place (README, "Backups").
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"pbp.sqlite3{suffix}").unlink(missing_ok=True)
    shutil.copy(copy, tmp_path / "pbp.sqlite3")
    with Store(tmp_path / "pbp.sqlite3") as restored:
        assert restored.player_token("seed-000", "Кросс") == token
        assert kinds(restored) == ["deal", "hand_dealt", "hand_dealt", "hand_dealt", "game_started"]


def test_pbp_backup_refuses_the_store_itself_and_a_missing_store(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["-c", str(config), "backup", str(tmp_path / "x.sqlite3")])
    assert (result.exit_code, result.output) == (
        1,
        f"Error: there is no store {tmp_path / 'pbp.sqlite3'} yet: nothing to back up\n",
    )
    shutil.copy(FIXTURE, tmp_path / "pbp.sqlite3")
    store = str(tmp_path / "pbp.sqlite3")
    result = runner.invoke(main, ["-c", str(config), "backup", store])
    assert (result.exit_code, result.output) == (
        1,
        f"Error: {store} is the store itself: name another file\n",
    )


def test_pbp_backup_says_a_missing_folder_or_a_folder_target_and_writes_mode_600(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    shutil.copy(FIXTURE, tmp_path / "pbp.sqlite3")
    runner = CliRunner()
    missing = tmp_path / "backups" / "pbp.sqlite3"
    result = runner.invoke(main, ["-c", str(config), "backup", str(missing)])
    assert (result.exit_code, result.output) == (
        1,
        f"Error: the folder {missing.parent} does not exist: make it first (mkdir -p "
        f"{missing.parent})\n",
    )
    (tmp_path / "backups").mkdir()
    result = runner.invoke(main, ["-c", str(config), "backup", str(tmp_path / "backups")])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {tmp_path / 'backups'} is a folder: name the file")
    result = runner.invoke(main, ["-c", str(config), "backup", str(missing)])
    assert result.exit_code == 0, result.output
    assert missing.stat().st_mode & 0o777 == 0o600  # every hand and role is in it


def test_a_damaged_store_is_said_by_check_and_never_copied_by_backup(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    path = tmp_path / "pbp.sqlite3"
    shutil.copy(FIXTURE, path)
    Store(path).close()  # upgraded to the current schema
    with path.open("r+b") as raw:  # pages of the middle overwritten, as a bad disk does
        raw.seek(4096 * 5)
        raw.write(b"\xff" * 4096 * 3)
    runner = CliRunner()
    checked = runner.invoke(main, ["-c", str(config), "check"])
    assert checked.exit_code == 1
    assert checked.output.splitlines()[-1] == (
        f"{config}: error: the store {path} is damaged (database disk image is malformed): "
        "restore a backup"
    )
    copy = tmp_path / "copy.sqlite3"
    result = runner.invoke(main, ["-c", str(config), "backup", str(copy)])
    assert (result.exit_code, result.output) == (
        1,
        f"Error: the store {path} is damaged (database disk image is malformed): not copied "
        "(restore an older backup instead)\n",
    )
    assert not copy.exists()


def test_a_schema_3_store_gets_the_dismissed_column_and_its_kept_mail_still_waits(
    tmp_path: Path,
) -> None:
    """Schema 4: ``kept.dismissed_at`` (``pbp dismiss``); a row kept before is waiting."""
    path = tmp_path / "pbp.sqlite3"
    with Store(path) as store, store.transaction():
        store.keep(
            "maildir:1",
            utc(2026, 12, 1, 18),
            "unknown_sender",
            b"From: x\n\n",
            utc(2026, 12, 1, 18),
        )
    with sqlite3.connect(path) as db:  # as schema 3's pbp left it
        db.execute("ALTER TABLE kept DROP COLUMN dismissed_at")
        db.execute("PRAGMA user_version = 3")
    with Store(path) as store:
        (kept,) = store.kept()
        assert (kept.id, kept.dismissed_at, kept.waiting) == (1, None, True)
        with store.transaction():
            store.dismiss(1, utc(2026, 12, 2, 9))
        (kept,) = store.kept()
        assert (kept.dismissed_at, kept.waiting) == (utc(2026, 12, 2, 9), False)
    assert version(path) == 6
    assert version(tmp_path / "pbp.sqlite3.v3-backup") == 3


def test_a_schema_4_store_gets_its_confirmation_secret_once_and_a_backup_keeps_it(
    tmp_path: Path,
) -> None:
    """Schema 5: ``secrets`` holds the key of the GM's confirmation codes
    (:func:`pbp.app.gm.by_mail.confirmation_code`), 32 random bytes made once: at the
    upgrade, never again; ``pbp backup``'s copy holds the same, so a lever mail replayed
    after a restore asks under the code it asked under before."""
    path = tmp_path / "pbp.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as db:  # as schema 4's pbp left it
        db.execute("DROP TABLE secrets")
        db.execute("PRAGMA user_version = 4")
    with Store(path) as store:
        secret = store.secret("gm_confirm")
        copy = store.backup(tmp_path / "copy.sqlite3")
    assert len(secret) == 32 and secret != bytes(32)
    assert version(path) == 6
    assert version(tmp_path / "pbp.sqlite3.v4-backup") == 4
    with Store(path) as store:  # opened again: the same secret
        assert store.secret("gm_confirm") == secret
    with Store(copy) as backup:
        assert backup.secret("gm_confirm") == secret
    with Store(tmp_path / "other.sqlite3") as other:  # another store: its own
        assert other.secret("gm_confirm") != secret


def test_a_store_with_user_version_minus_1_is_refused_in_one_sentence_not_upgraded(
    tmp_path: Path,
) -> None:
    """Before, ``user_version -1`` passed the "newer pbp" test and was "upgraded": pbp's
    tables written into it, a copy named ``.v-1-backup`` beside it."""
    config = write_config(tmp_path)
    path = tmp_path / "pbp.sqlite3"
    shutil.copy(FIXTURE, path)
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA user_version = -1")
    before = path.read_bytes()
    said = (
        f"the store {path} has schema version -1, which no pbp writes (this pbp reads 0 to "
        "6): it is another program's file or was altered, so it is left as it is; give "
        "games.yaml's store: the path of pbp's own store, or restore a backup"
    )
    try:
        Store(path)
    except StoreVersionError as error:
        assert str(error) == said
    else:
        raise AssertionError("a store of version -1 was opened")
    for command in (["show", "seed-000"], ["run", "--once"], ["check"]):
        result = CliRunner().invoke(main, ["-c", str(config), *command])
        assert (result.exit_code, result.output) == (1, f"Error: {said}\n"), command
    # Untouched: not a byte written (no tables added, not even the journal mode), no
    # copy beside it, no log.
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.glob("pbp.sqlite3*")) == [
        "pbp.sqlite3",
        "pbp.sqlite3.lock",  # `pbp run`'s writer lock, taken before the store is opened
    ]


def test_a_schema_5_store_gets_the_end_of_confirmations_column(tmp_path: Path) -> None:
    """Schema 6: ``gm_confirmations.ended_at`` (a new GM address ends the pending
    confirmations); a confirmation a schema-5 pbp stored is pending after the upgrade."""
    path = tmp_path / "pbp.sqlite3"
    with Store(path) as store, store.transaction():
        store.add_confirmation(
            "c" * 16, "seed-000", "[]", utc(2026, 12, 1, 18), utc(2026, 12, 2, 18)
        )
    with sqlite3.connect(path) as db:  # as schema 5's pbp left it
        db.execute("DROP INDEX gm_confirmations_by_game")
        db.execute("ALTER TABLE gm_confirmations DROP COLUMN ended_at")
        db.execute("PRAGMA user_version = 5")
    with Store(path) as store:
        assert store.pending_confirmations("seed-000", utc(2026, 12, 1, 19)) == 1
        with store.transaction():
            assert store.end_confirmations("seed-000", utc(2026, 12, 1, 19)) == 1
        found = store.confirmation("c" * 16)
        assert found is not None and found.ended_at == utc(2026, 12, 1, 19)
        assert store.pending_confirmations("seed-000", utc(2026, 12, 1, 19)) == 0
    assert version(path) == 6
    assert version(tmp_path / "pbp.sqlite3.v5-backup") == 5
