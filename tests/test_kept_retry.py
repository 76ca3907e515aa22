"""Promise 6 of issue 6: a message that crashes processing (a bug) is rolled back, kept
aside with the error (a row in the store and a copy in the ``pbp-kept`` folder of the
real Dovecot mailbox), does not block later mail, and ``pbp retry ID`` processes it
again after the fix, in its original arrival order (rule D8), once.

The bug is planted in the Maniac kind: a vote for Катя raises. The daemon's service
runs in this process (so the planted bug is there) on the games of
tests/kits/crash.py, reading Dovecot over IMAP and sending through aiosmtpd; ``pbp kept``
and ``pbp retry`` run through click's test runner, also in this process.
"""

from __future__ import annotations

import email
import json
import re
import shutil
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.policy import default as default_policy
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from kits.crash import (
    DAEMON,
    ENV,
    GM,
    Move,
    add_users,
    address,
    games_yaml,
    raw_move,
    tokens,
)
from kits.mailstack import Dovecot, SmtpServer

from pbp.app.service import Service
from pbp.cli import _service, main
from pbp.config.loading import load_config
from pbp.games.maniac.kind import Maniac

TANYA, OLYA, VASYA, PETYA = "Таня", "Оля", "Вася", "Петя"


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
    service = _service(load_config(config), create=True)
    try:
        yield service
    finally:
        assert service.inbox is not None and service.transport is not None
        service.inbox.close()
        service.transport.close()
        service.store.close()


def plant_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """A vote for Катя crashes the Maniac kind (a bug, not a refused move)."""
    apply = Maniac.apply

    def broken(self: Maniac, state: Any, player: str, move: Any, at: datetime) -> Any:
        if getattr(move, "target", None) == "Катя":
            raise RuntimeError("planted bug: a vote for Катя")
        return apply(self, state, player, move, at)

    monkeypatch.setattr(Maniac, "apply", broken)


def ballots(service: Service) -> list[tuple[str, str, str]]:
    """(voter, target, arrival) of every vote cast today, in order."""
    row = service.store.game("mn-1")
    assert row is not None
    return [(b["voter"], b["target"], b["at"]) for b in row.state["ballots"]]


def cli(service: Service, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["-c", str(service.config.path), *args])
    return result.exit_code, result.output


def test_a_crashing_message_is_kept_in_store_and_folder_and_retried_after_the_fix_once(
    service: Service, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.run_once()  # the games start
    seats = tokens(service.store.path)
    now = datetime.now(UTC).replace(microsecond=0)
    times = [now - timedelta(minutes=4 - i) for i in range(4)]
    mails = [
        Move("<r-1@players.example.test>", "mn-1", VASYA, "ГОЛОС Петя"),
        Move("<r-2@players.example.test>", "mn-1", TANYA, "ГОЛОС Катя"),  # crashes
        Move("<r-3@players.example.test>", "mn-1", OLYA, "ГОЛОС Петя"),
        Move("<r-4@players.example.test>", "mn-1", TANYA, "ГОЛОС Катю\nСТАТУС"),  # crashes
    ]
    for move, when in zip(mails, times, strict=True):
        dovecot.append(DAEMON, raw_move(move, seats), when=when)
    plant_bug(monkeypatch)

    outcomes = service.run_once()

    # Rolled back and kept; the mail after it was applied all the same.
    assert [o.outcome for o in outcomes] == ["applied", "error", "applied", "error"]
    assert ballots(service) == [
        (VASYA, PETYA, times[0].isoformat()),
        (OLYA, PETYA, times[2].isoformat()),
    ]
    kept = service.store.kept()
    assert [(k.id, k.arrived, k.reason) for k in kept] == [
        (1, times[1], "error: RuntimeError('planted bug: a vote for Катя')"),
        (2, times[3], "error: RuntimeError('planted bug: a vote for Катя')"),
    ]
    # A copy of each in the folder on the server (created for it), and every
    # message of the inbox is done (so nothing blocks later mail).
    copies = dovecot.messages(DAEMON, folder="pbp-kept")
    assert [_message_id(c.raw) for c in copies] == [mails[1].message_id, mails[3].message_id]
    assert all("$PbpDone" in m.flags for m in dovecot.messages(DAEMON))
    # Таня is told her mail could not be processed; the GM is told twice.
    tanya = [_subject(m.raw) for m in dovecot.messages(address("mn-1", TANYA))]
    assert tanya.count("[mn-1] Re: ход") == 2
    # GM sheets, opening posts (BBCode only), the Maniac's roles (GM only), 2 notices.
    assert len(dovecot.messages(GM)) == 3 + 3 + 1 + 2

    # A second round: the copies are not made twice.
    service.run_once()
    assert len(dovecot.messages(DAEMON, folder="pbp-kept")) == 2

    code, listing = cli(service, "kept", "--json")
    assert code == 0
    rows = json.loads(listing)
    assert [row["id"] for row in rows] == [1, 2]
    assert rows[0]["reason_text"].startswith(
        "crashed the program (retry after the fix): RuntimeError('planted bug"
    )

    # Retried before the fix: still kept, with its error, nothing applied.
    code, output = cli(service, "retry", "1")
    assert (code, output.splitlines()[-1]) == (
        1,
        "kept:1: error (RuntimeError('planted bug: a vote for Катя'))",
    )
    assert len(ballots(service)) == 2

    # After the fix, both in their arrival order whatever order they are named in:
    # Таня's later vote (for Катя again, the 2nd cast, M9) stands at its own time.
    monkeypatch.undo()
    code, output = cli(service, "retry", "2", "1")
    assert (code, output.splitlines()) == (0, ["kept:1: applied mn-1", "kept:2: applied mn-1"])
    assert ballots(service) == [
        (VASYA, PETYA, times[0].isoformat()),
        (OLYA, PETYA, times[2].isoformat()),
        (TANYA, "Катя", times[1].isoformat()),
        (TANYA, "Катя", times[3].isoformat()),
    ]
    # Her answers went out (the retry sends when no daemon runs).
    tanya = [_subject(m.raw) for m in dovecot.messages(address("mn-1", TANYA))]
    assert tanya.count("[mn-1] Re: ход") == 4

    # Once only: a second retry changes nothing.
    code, output = cli(service, "retry", "1")
    assert (code, output.splitlines()) == (0, ["kept:1: retried (applied)"])
    assert len(ballots(service)) == 4
    code, listing = cli(service, "kept", "--json")
    rows = json.loads(listing)
    # The retry's time is shown in the game's zone (its date may differ from UTC's).
    assert [re.sub(r"\d\d:\d\d", "HH:MM", row["status"]) for row in rows] == [
        f"retried {datetime.now(ZoneInfo(row['zone'])):%Y-%m-%d} HH:MM MSK: applied" for row in rows
    ]
    assert [row["zone"] for row in rows] == ["Europe/Moscow"] * 2
    code, output = cli(service, "retry", "9")
    assert (code, output.strip()) == (1, "Error: no kept message 9 (see pbp kept)")


def test_a_store_made_before_retry_existed_opens_and_gains_the_columns(tmp_path: Path) -> None:
    # The release before schema versions (tests/fixtures/store-v0.sqlite3: every table of
    # the first release, the kept table without the retry columns), its kept mail emptied.
    path = tmp_path / "old.sqlite3"
    shutil.copyfile(Path(__file__).resolve().parent / "fixtures" / "store-v0.sqlite3", path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM kept")
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
            db.execute("DELETE FROM sqlite_sequence WHERE name = 'kept'")
        db.execute(
            "INSERT INTO kept (source, arrived, reason, raw, kept_at) VALUES "
            "('imap:1:7', '2026-12-01T17:00:00+00:00', 'unknown_sender', x'41', "
            "'2026-12-01T17:00:01+00:00')"
        )
    db.close()
    from pbp.store import Store

    with Store(path) as store:
        (kept,) = store.kept()
        assert (kept.id, kept.reason, kept.retried_at, kept.retry_outcome) == (
            1,
            "unknown_sender",
            None,
            None,
        )
        with store.transaction():
            store.mark_retried(1, datetime(2026, 12, 2, tzinfo=UTC), "applied")
        assert store.kept_message(1) is not None


def _message_id(raw: bytes) -> str:
    return str(email.message_from_bytes(raw, policy=default_policy)["Message-ID"])


def _subject(raw: bytes) -> str:
    return str(email.message_from_bytes(raw, policy=default_policy)["Subject"])


def test_a_maildir_inbox_keeps_a_copy_once_in_its_kept_folder(tmp_path: Path) -> None:
    from pbp.mail.maildir import MaildirInbox, deliver, read_maildir
    from pbp.mail.maildirfolders import KEPT_FOLDER

    inbox = MaildirInbox(tmp_path / "inbox")
    key = deliver(tmp_path / "inbox", b"Message-ID: <k@example.test>\r\n\r\nSTATUS\r\n")
    inbox.keep([key])
    inbox.keep([key])
    inbox.mark_done([key])
    copies = read_maildir(tmp_path / "inbox" / KEPT_FOLDER)
    assert [str(m["Message-ID"]) for m in copies] == ["<k@example.test>"]
    assert inbox.fetch_new() == []


def test_a_retry_kept_again_for_the_same_reason_sends_nothing_and_keeps_one_row(
    tmp_path: Path,
) -> None:
    """README finding 1: ``pbp retry`` of an unknown sender, a mail to another player's
    address and an auto-reply (RFC 3834) makes no new kept row and sends no reply or GM
    notice again; the row records the try; the exit code is 1; a second retry likewise."""
    from kits.table import Table, utc

    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        at = utc(2026, 12, 1, 18)
        # A second apart: mail of the same arrival time has no fixed order.
        table.send("Кросс", "СТАТУС", at=at, sender="stranger@example.test", to="gm@example.test")
        table.send(
            "Дуг",
            "СТАТУС",
            at=at + timedelta(seconds=1),
            to=f"gm+{table.token('Кросс')}@example.test",
        )
        table.send(
            "Роза",
            "В отпуске",
            at=at + timedelta(seconds=2),
            headers=[("Auto-Submitted", "auto-replied")],
        )
        table.new_mail()
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["unknown_sender", "wrong_sender", "automatic"]
        # Дуг is answered and the GM told at once; the stranger and the auto-reply
        # never (they wait for the GM's digest).
        assert len(table.new_mail()) == 2
        first = [(k.id, k.source.startswith("maildir:"), k.reason) for k in table.store.kept()]
        assert [(i, r) for i, _s, r in first] == [
            (1, "unknown_sender"),
            (2, "wrong_sender"),
            (3, "automatic or no sender"),
        ]

        for minute in (2, 3):
            outcomes = table.service.retry([3, 1, 2], utc(2026, 12, 1, 18, minute))
            assert [(o.source, o.outcome, o.notes) for o in outcomes] == [
                ("kept:1", "unknown_sender", ["still kept"]),
                ("kept:2", "wrong_sender", ["still kept"]),
                ("kept:3", "automatic", ["still kept"]),
            ]
            table.service.flush_outbox(utc(2026, 12, 1, 18, minute))
            assert table.new_mail() == []
            kept = table.store.kept()
            assert [(k.id, k.reason, k.retried_at, k.retry_outcome, k.waiting) for k in kept] == [
                (1, "unknown_sender", utc(2026, 12, 1, 18, minute), "unknown_sender", True),
                (2, "wrong_sender", utc(2026, 12, 1, 18, minute), "wrong_sender", True),
                (3, "automatic or no sender", utc(2026, 12, 1, 18, minute), "automatic", True),
            ]
            assert not any(table.store.seen(f"kept:{i}") for i in (1, 2, 3))

        # `pbp retry` says in one sentence why each cannot succeed as it is, names the
        # lever that helps, exits 1 and applies nothing (issue 31, item 5).
        for kept_id, said in (
            (
                "1",
                "Error: Kept mail 1 cannot succeed as it is: its sender stranger@example.test "
                "plays in no game, so it would be kept again; if a player wrote it, enter its "
                "moves with pbp act GAME PLAYER '...', else close it with pbp dismiss 1.",
            ),
            (
                "2",
                "Error: Kept mail 2 cannot succeed as it is: Дуг wrote it to the personal "
                "address of Кросс (game seed-000), so it would be kept again; enter its moves "
                "with pbp act seed-000 Дуг '...'.",
            ),
            (
                "3",
                "Error: Kept mail 3 cannot succeed as it is: automatic mail (a bounce, an "
                "auto-reply, a list) is never applied; close it with pbp dismiss 3.",
            ),
        ):
            code, output = cli_at(tmp_path / "games.yaml", "retry", kept_id)
            assert (code, output.splitlines()) == (1, [said])
        assert [k.retried_at for k in table.store.kept()] == [utc(2026, 12, 1, 18, 3)] * 3
        code, listing = cli_at(tmp_path / "games.yaml", "kept", "--json")
        assert code == 0
        assert [(row["reason"], row["status"]) for row in json.loads(listing)][1:] == [
            ("wrong_sender", "retried 2026-12-01 21:03 MSK: wrong_sender (still kept)"),
            ("automatic or no sender", "retried 2026-12-01 21:03 MSK: automatic (still kept)"),
        ]
        assert len(table.store.kept()) == 3
    finally:
        table.close()


def cli_at(config: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["-c", str(config), *args])
    return result.exit_code, result.output


def test_pbp_kept_says_when_nothing_is_kept(tmp_path: Path) -> None:
    from kits.table import write_config

    assert cli_at(write_config(tmp_path), "kept") == (0, "nothing kept\n")
    assert not (tmp_path / "pbp.sqlite3").exists()  # nor made an empty store


def test_pbp_kept_is_a_table_in_the_games_time_zone_with_sender_game_subject_and_reason(
    tmp_path: Path,
) -> None:
    """It printed ``1\t2026-12-01T05:38:37.267271+00:00\tmaildir:1796…\tunknown_sender``."""
    from kits.table import Table, utc

    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 18), sender="spam@shop.example.test")
        table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 18, 5), to="gm@example.test")
        assert table.run(utc(2026, 12, 1, 18, 10)) == ["wrong_sender", "token_missing"]
        table.send(
            "Дуг",
            "СТАТУС",
            at=utc(2026, 12, 1, 18, 7),
            sender="bounce@example.test",
            headers=[("Auto-Submitted", "auto-replied")],
        )
        assert table.run(utc(2026, 12, 1, 18, 10)) == ["automatic"]
        code, listing = cli_at(tmp_path / "games.yaml", "kept")
        assert (code, listing.splitlines()) == (
            0,
            [
                "ID  ARRIVED               FROM                    GAME      SUBJECT  REASON"
                "                                                   STATUS",
                "1   2026-12-01 21:00 MSK  spam@shop.example.test  seed-000  ход      sent to"
                " someone else's personal address                  waiting",
                "2   2026-12-01 21:07 MSK  bounce@example.test     seed-000  ход      automatic"
                " mail: bounce, auto-reply, list (not answered)  waiting",
            ],
        )
    finally:
        table.close()


def test_D8_mail_held_by_a_pause_shows_as_applied_on_resume_in_pbp_kept(tmp_path: Path) -> None:
    """README finding 7: the held row records the replay's outcome (same transaction)."""
    from kits.table import Table, utc

    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.service.gm.pause("seed-000", now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
        table.send(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 18)
        )
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["paused"]
        code, listing = cli_at(tmp_path / "games.yaml", "kept")
        assert listing.splitlines()[1].endswith(
            "held while the game was paused: seed-000  waiting for resume"
        )
        table.service.gm.resume("seed-000", now=utc(2026, 12, 2, 10), via="cli", note=None)
        assert table.run(utc(2026, 12, 2, 10)) == ["applied"]
        (kept,) = table.store.kept()
        assert (kept.retried_at, kept.retry_outcome, kept.waiting) == (
            utc(2026, 12, 2, 10),
            "applied",
            False,
        )
        code, listing = cli_at(tmp_path / "games.yaml", "kept")
        assert listing.splitlines()[1].endswith(
            "held while the game was paused: seed-000  resumed 2026-12-02 13:00 MSK: applied"
        )
        code, output = cli_at(tmp_path / "games.yaml", "retry", "1")
        assert (code, output) == (0, "kept:1: resumed (applied)\n")
    finally:
        table.close()


def test_a_kept_row_reads_the_first_kilobyte_of_each_field_only(tmp_path: Path) -> None:
    """A stranger's mail to 2,000 ``gm+random@`` recipients: each STATUS, KEPT and ``pbp
    kept`` reads its row, so a row reads From, Subject and the recipients' first 1,024
    bytes (whole lines), wherever the From is; the game is the first known personal
    address's among them."""
    from kits.table import Table, utc

    from pbp.app.keptview import ROW_FIELD_BYTES, kept_rows, row_header

    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        spam = ",\r\n ".join(f"gm+r{n:04}@example.test" for n in range(2000))
        own = f"gm+{table.token('Кросс')}@example.test"
        raws = [
            f"To: {spam}\r\nSubject: buy\r\nFrom: spam@shop.example.test\r\n\r\nbuy\r\n",
            f"To: {own},\r\n {spam}\r\nFrom: spam@shop.example.test\r\nSubject: hi\r\n\r\nx\r\n",
        ]
        with table.store.transaction():
            for n, raw in enumerate(raws):
                at = utc(2026, 12, 1, 18, n)
                table.store.keep(f"maildir:{n}", at, "unknown_sender", raw.encode(), at)
        head = row_header(raws[0].encode())
        assert ROW_FIELD_BYTES == 1024
        assert (
            head
            == (
                "To: "
                + ",\r\n ".join(f"gm+r{n:04}@example.test" for n in range(40))
                + ",\r\nSubject: buy\r\nFrom: spam@shop.example.test\r\n\r\n"
            ).encode()
        )
        rows = kept_rows(table.store, table.config)
        assert [(r.sender, r.subject, r.game) for r in rows] == [
            ("spam@shop.example.test", "buy", None),
            ("spam@shop.example.test", "hi", "seed-000"),
        ]
    finally:
        table.close()
