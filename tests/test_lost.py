"""Nothing lost after a restore (issue 31, item 6).

A real backup (``pbp backup``), moves processed after it (marked done on the server:
Maildir ``.done``, IMAP ``$PbpDone``), the backup copied back over the store: ``pbp
lost`` lists the mail the store never saw, ``pbp lost --replay`` applies it in arrival
order (D8), its senders answered, and the games end as they were before the loss;
a second replay finds nothing. ``pbp run`` warns at start and tells the GM once.
With the Maildir transport (the seed-000 table, the test's clock) and with Dovecot.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from kits.crash import DAEMON, ENV, Move, add_users, games_yaml, raw_move, tokens
from kits.mailstack import Dovecot, SmtpServer
from kits.table import Table, named_body, summary, utc

from pbp.app.daemon import Daemon
from pbp.app.lost import find_lost, replay
from pbp.app.service import Service
from pbp.cli import _service, main
from pbp.config.loading import load_config
from pbp.store import GM_SEAT

GAME = "seed-000"


def pbp(config: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["-c", str(config), *args])
    return result.exit_code, result.output


def facts(store: Path) -> dict[str, Any]:
    """Every game's state and schedule, every event (with its time and source) and
    every processed mailbox message with what came of it."""
    with closing(sqlite3.connect(store)) as db:
        return {
            "games": db.execute(
                "SELECT id, state, deadline_at, over FROM games ORDER BY id"
            ).fetchall(),
            "events": db.execute(
                "SELECT game_id, seq, at, day, kind, visibility, player, data, source "
                "FROM events ORDER BY game_id, seq"
            ).fetchall(),
            "messages": db.execute(
                "SELECT source, message_id, arrived, outcome, game_id, player FROM messages "
                "ORDER BY arrived, source"
            ).fetchall(),
        }


def restore(backup: Path, store: Path) -> None:
    """The README's restore: the store's -wal and -shm deleted, the backup copied over."""
    for leftover in (Path(f"{store}-wal"), Path(f"{store}-shm")):
        leftover.unlink(missing_ok=True)
    shutil.copy(backup, store)


@pytest.fixture
def played(tmp_path: Path) -> Iterator[tuple[Table, Path, dict[str, Any]]]:
    """The seed-000 game on Maildirs: Кросс's suggestion, then ``pbp backup``, then
    Дуг's answer (day 1), day 1's close and Роза's suggestion (day 2), each processed
    at its time; the table (closed), the backup and the store's facts before the loss."""
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 18))
    table.run(utc(2026, 12, 1, 18, 1))
    backup = tmp_path / "backups" / "pbp.sqlite3"
    backup.parent.mkdir()
    assert table.config.path is not None
    assert pbp(table.config.path, "backup", str(backup)) == (
        0,
        f"backed up {table.config.store} to {backup}\n",
    )
    table.send("Дуг", "ОПРОВЕРЖЕНИЕ 1 Пистолет", at=utc(2026, 12, 1, 18, 30))
    table.run(utc(2026, 12, 1, 18, 31))
    table.run(utc(2026, 12, 1, 19, 31))  # day 1 closes
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 2, 10))
    table.run(utc(2026, 12, 2, 10, 1))
    before = facts(Path(table.config.store))
    table.close()
    yield table, backup, before


def reopened(table: Table, now: datetime) -> Table:
    """A new service on the restored store, its clock at ``now``."""
    again = Table(table.directory)
    again.now = now
    again.new_mail()  # what was sent before the loss
    return again


def test_lost_mail_is_listed_and_replayed_to_the_state_before_the_loss(
    played: tuple[Table, Path, dict[str, Any]],
) -> None:
    table, backup, before = played
    store = Path(table.config.store)
    restore(backup, store)
    assert facts(store) != before
    config = table.config.path
    assert config is not None

    assert pbp(config, "lost") == (
        0,
        "ARRIVED               FROM               GAME      SUBJECT\n"
        "2026-12-01 21:30 MSK  doug@example.test  seed-000  ход\n"
        "2026-12-02 13:00 MSK  rosa@example.test  seed-000  ход\n",
    )
    again = reopened(table, utc(2026, 12, 2, 10, 5))
    try:
        found = find_lost(again.store, again.config, again.service.inbox)  # type: ignore[arg-type]
        outcomes = replay(again.service, found, again.now)
        again.service.flush_outbox(again.now)

        assert [(o.outcome, o.game_id, o.player) for o in outcomes] == [
            ("applied", GAME, "Дуг"),
            ("applied", GAME, "Роза"),
        ]
        assert facts(store) == before
        # Their senders are answered as usual; day 1 closed at its time in between.
        mails = again.new_mail()
        assert summary(mails) == [
            ("doug@example.test", "[seed-000] Re: ход"),
            ("cross@example.test", "[seed-000] Предположение №1: вам показали карту"),
            ("gm-person@example.test", "[seed-000] Итоги дня 1 — BBCode"),
            ("gm-person@example.test", "[seed-000] Итоги дня 1 — только для ГМа"),
            ("rosa@example.test", "[seed-000] Re: ход"),
            ("cross@example.test", "[seed-000] Предположение №2 от Розы"),
        ]
        # Each once: a second look finds nothing.
        assert find_lost(again.store, again.config, again.service.inbox) == []  # type: ignore[arg-type]
    finally:
        again.close()
    assert pbp(config, "lost") == (0, "nothing lost\n")
    assert pbp(config, "lost", "--replay") == (0, "nothing lost\n")


def test_pbp_run_warns_at_start_and_tells_the_gm_once(
    played: tuple[Table, Path, dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    table, backup, _before = played
    restore(backup, Path(table.config.store))
    again = reopened(table, utc(2026, 12, 2, 10, 5))
    try:
        daemon = Daemon(again.service, clock=lambda: again.now)
        with caplog.at_level(logging.WARNING, logger="pbp.app.daemon"):
            daemon._look_for_lost()
            daemon._look_for_lost()  # pbp run started again: no second mail
        again.service.flush_outbox(again.now)

        assert (
            caplog.messages
            == [
                "2 mail(s) processed and marked done on the server are missing from the store (a "
                "backup restored?), the first arrived at 2026-12-01T18:30:00+00:00: `pbp lost` "
                "lists them, `pbp lost --replay` applies them"
            ]
            * 2
        )
        (notice,) = again.new_mail()
        assert notice["To"] == GM_PERSON
        assert notice["Subject"] == "[seed-000] В хранилище нет 2 обработанных писем"
        assert named_body(notice, GAME) == (
            "Хранилище старше почтового ящика (восстановлена резервная копия?): 2 письма этой "
            "игры обработаны и помечены на сервере, но хранилище их не видело; первое пришло "
            "1 декабря 2026 г., 21:30 по Москве. Их ходов в игре нет.\n\n"
            "pbp lost покажет их список; pbp lost --replay применит их в порядке получения — "
            "каждое в тот игровой день, когда оно пришло, если этот день ещё не закрыт, — и "
            "ответит отправителям как обычно.\n"
        )
        lines = again.store.digest_entries(0, [GAME], 10)
        assert [(e.reason, e.detail) for e in lines] == [
            ("lost", f"maildir:{name}") for name in lost_names(again)
        ]
    finally:
        again.close()


GM_PERSON = "gm-person@example.test"


def lost_names(table: Table) -> list[str]:
    """The Maildir keys of the mail the restored store misses, in arrival order."""
    found = find_lost(table.store, table.config, table.service.inbox)  # type: ignore[arg-type]
    return [mail.raw.key for mail in found]


# --- a GM lever confirmed by mail ---------------------------------------------------


def gm_mail(table: Table, line: str, at: datetime, to: str) -> None:
    """The GM (from his registered address) mails ``line`` to ``to``."""
    table.send("Кросс", line, at=at, to=to, sender=GM_PERSON)


@pytest.fixture
def extended(tmp_path: Path) -> Iterator[tuple[Table, Path, dict[str, Any], str]]:
    """Seed 000 on Maildirs: Кросс's suggestion, then ``pbp backup``; then Дуг's answer,
    the GM's ``ПРОДЛИТЬ 1`` to his GM address (18:40 UTC), his «да» to the confirmation
    address it was asked from (18:50: day 1 now closes at 20:30, not 19:30), day 1's
    close and Роза's suggestion (day 2); the table (closed), the backup, the facts
    before the loss and the confirmation code."""
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 18))
    table.run(utc(2026, 12, 1, 18, 1))
    backup = tmp_path / "backups" / "pbp.sqlite3"
    backup.parent.mkdir()
    assert table.config.path is not None
    assert pbp(table.config.path, "backup", str(backup))[0] == 0
    table.send("Дуг", "ОПРОВЕРЖЕНИЕ 1 Пистолет", at=utc(2026, 12, 1, 18, 30))
    gm_token = table.store.player_token(GAME, GM_SEAT)
    gm_mail(table, "ПРОДЛИТЬ 1", utc(2026, 12, 1, 18, 40), f"gm+{gm_token}@example.test")
    assert table.run(utc(2026, 12, 1, 18, 41)) == ["applied", "gm_pending"]
    *_answers, asked = table.new_mail()
    assert (asked["To"], asked["Subject"]) == (GM_PERSON, "[seed-000] Подтвердите команды ГМа")
    code = str(asked["Reply-To"]).removeprefix("gm+").removesuffix("@example.test")
    gm_mail(table, "да", utc(2026, 12, 1, 18, 50), str(asked["Reply-To"]))
    assert table.run(utc(2026, 12, 1, 18, 51)) == ["gm_applied"]
    table.run(utc(2026, 12, 1, 19, 31))  # day 1 no longer closes at 19:30 …
    assert table.store.schedule(GAME).deadline_at == utc(2026, 12, 1, 20, 30)  # type: ignore[union-attr]
    table.run(utc(2026, 12, 1, 20, 31))  # … but an hour later
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 2, 10))
    table.run(utc(2026, 12, 2, 10, 1))
    before = facts(Path(table.config.store))
    table.close()
    yield table, backup, before, code


def test_a_gm_lever_confirmed_by_mail_is_replayed_with_its_confirmation(
    extended: tuple[Table, Path, dict[str, Any], str],
) -> None:
    table, backup, before, code = extended
    store = Path(table.config.store)
    restore(backup, store)
    assert table.config.path is not None
    listed = pbp(table.config.path, "lost")[1].splitlines()
    # The «да» is the game's whose confirmation address it went to.
    assert [line.split()[3:] for line in listed[1:]] == [
        ["doug@example.test", GAME, "ход"],
        [GM_PERSON, GAME, "ход"],
        [GM_PERSON, GAME, "ход"],
        ["rosa@example.test", GAME, "ход"],
    ]
    again = reopened(table, utc(2026, 12, 2, 10, 5))
    try:
        found = find_lost(again.store, again.config, again.service.inbox)  # type: ignore[arg-type]
        outcomes = replay(again.service, found, again.now)
        again.service.flush_outbox(again.now)

        assert [(o.outcome, o.game_id, o.player) for o in outcomes] == [
            ("applied", GAME, "Дуг"),
            ("gm_pending", GAME, GM_SEAT),
            ("gm_applied", GAME, GM_SEAT),
            ("applied", GAME, "Роза"),
        ]
        # The same game as before the loss: extended at the «да»'s arrival, day 1
        # closed at 20:30, not at 19:30.
        assert facts(store) == before
        extend = again.store.last_event(GAME, ("gm_extend",))
        assert extend is not None and extend.at == utc(2026, 12, 1, 18, 50)
        closed = again.store.last_event(GAME, ("day_closed",))
        assert closed is not None and closed.at == utc(2026, 12, 1, 20, 30)
        # Asked under the code of before, confirmed by the replayed «да».
        confirmation = again.store.confirmation(code)
        assert confirmation is not None
        assert (confirmation.game_id, confirmation.done_at) == (GAME, utc(2026, 12, 2, 10, 5))
        # No second request to confirm (its reply was replayed too); the rest as usual.
        assert summary(again.new_mail()) == [
            ("doug@example.test", "[seed-000] Re: ход"),
            ("cross@example.test", "[seed-000] Предположение №1: вам показали карту"),
            (GM_PERSON, "[seed-000] Объявление для форума: продление срока — BBCode"),
            (GM_PERSON, "[seed-000] Re: ход"),
            (GM_PERSON, "[seed-000] Итоги дня 1 — BBCode"),
            (GM_PERSON, "[seed-000] Итоги дня 1 — только для ГМа"),
            ("rosa@example.test", "[seed-000] Re: ход"),
            ("cross@example.test", "[seed-000] Предположение №2 от Розы"),
        ]
    finally:
        again.close()
    assert pbp(table.config.path, "lost") == (0, "nothing lost\n")


# --- Dovecot ------------------------------------------------------------------------


@pytest.fixture
def imap_config(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The three games of tests/kits/crash.py on Dovecot (deadlines 12 hours away)."""
    add_users(dovecot)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    config = tmp_path / "games.yaml"
    config.write_text(
        games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC)), encoding="utf-8"
    )
    return config


def served(config: Path) -> Service:
    return _service(load_config(config), create=True)


def closed(service: Service) -> None:
    assert service.inbox is not None and service.transport is not None
    service.inbox.close()
    service.transport.close()
    service.store.close()


def test_lost_imap_mail_is_replayed_by_pbp_lost_to_the_state_before_the_loss(
    imap_config: Path, dovecot: Dovecot, tmp_path: Path
) -> None:
    service = served(imap_config)
    store = Path(service.store.path)
    try:
        service.run_once()  # the games start
        seats = tokens(store)
        now = datetime.now(UTC).replace(microsecond=0)
        first = Move("<l-1@players.example.test>", "mn-1", "Вася", "ГОЛОС Петя")
        dovecot.append(DAEMON, raw_move(first, seats), when=now - timedelta(minutes=5))
        assert [o.outcome for o in service.run_once()] == ["applied"]
        backup = tmp_path / "pbp-backup.sqlite3"
        assert pbp(imap_config, "backup", str(backup))[0] == 0
        after = [
            Move("<l-2@players.example.test>", "mn-1", "Таня", "ГОЛОС Петя"),
            Move("<l-3@players.example.test>", "cd-1", "Неташка", "СТАТУС"),
            Move("<l-4@players.example.test>", "mn-1", "Вася", "ГОЛОС Таня"),
        ]
        for minutes, move in zip((4, 3, 2), after, strict=True):
            dovecot.append(DAEMON, raw_move(move, seats), when=now - timedelta(minutes=minutes))
        assert [o.outcome for o in service.run_once()] == ["applied", "status", "applied"]
    finally:
        closed(service)
    before = facts(store)
    restore(backup, store)
    code, listed = pbp(imap_config, "lost")
    assert code == 0
    head, *rows = listed.splitlines()
    assert head.split() == ["ARRIVED", "FROM", "GAME", "SUBJECT"]
    assert [row.split()[3:] for row in rows] == [
        ["mn-tanya@example.test", "mn-1", "ход"],
        ["cd-netashka@example.test", "cd-1", "ход"],
        ["mn-vasya@example.test", "mn-1", "ход"],
    ]

    code, replayed = pbp(imap_config, "lost", "--replay")

    assert code == 0
    uids = [line.split(":")[2] for line in replayed.splitlines()]
    assert replayed == (
        f"imap:{uidvalidity(store)}:{uids[0]}: applied mn-1\n"
        f"imap:{uidvalidity(store)}:{uids[1]}: status cd-1\n"
        f"imap:{uidvalidity(store)}:{uids[2]}: applied mn-1\n"
    )
    assert facts(store) == before
    assert pbp(imap_config, "lost") == (0, "nothing lost\n")
    assert pbp(imap_config, "lost", "--replay") == (0, "nothing lost\n")


def uidvalidity(store: Path) -> str:
    """The UIDVALIDITY in the store's IMAP source keys."""
    with closing(sqlite3.connect(store)) as db:
        (source,) = db.execute("SELECT source FROM messages LIMIT 1").fetchone()
    return str(source.split(":")[1])
