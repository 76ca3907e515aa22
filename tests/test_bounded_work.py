"""Bounded work per message and nothing dropped without a word (issue 12, items 1, 2, 9).

Through :class:`pbp.app.service.Service` on Maildir transports with the test clock
(tests/kits/table.py: the seed-000 game, Кросс, Дуг, Роза, started 2026-12-01 20:00 MSK).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from kits.table import GM, Table, body, named_body, summary, utc

import pbp.app.intake
import pbp.app.reader
from pbp.app.keptview import kept_rows
from pbp.mail.base import RawMessage, header_section
from pbp.mail.maildir import deliver
from pbp.mail.read import mime, simple
from pbp.store import Store

START = utc(2026, 12, 1, 17)
MOVE_AT = utc(2026, 12, 1, 18)
#: The GM digest's hour the next morning (09:00 in Moscow).
DIGEST_AT = utc(2026, 12, 2, 6)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(START)
    table.new_mail()
    yield table
    table.close()


def _mail(sender: str, to: str, text: str, *, message_id: str, at: datetime) -> bytes:
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "ход"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = message_id
    message.set_content(text)
    return bytes(message)


def test_a_mail_over_the_size_limit_is_kept_with_its_header_section_only(table: Table) -> None:
    to = f"gm+{table.token('Кросс')}@example.test"
    raw = _mail(
        "cross@example.test",
        to,
        "СТАТУС\n" + "x" * 80 + "\n" * 30_000 + "y" * 2_100_000,
        message_id="<big@example.test>",
        at=MOVE_AT,
    )
    deliver(table.inbox_path, raw, at=MOVE_AT)
    assert table.run(MOVE_AT) == ["too_large"]
    [kept] = table.store.kept()
    assert kept.raw == header_section(raw)
    assert kept.raw.endswith(b"\r\n\r\n") and b"xxxx" not in kept.raw
    size = len(raw)
    assert kept.reason == f"too_large: {size} bytes, over the limit of 2000000"
    mails = table.new_mail()
    assert summary(mails) == [
        ("cross@example.test", "[seed-000] Re: ход"),
        (GM, "[seed-000] Отложено: письмо больше допустимого размера, оно не прочитано"),
    ]
    assert 2_150_000 <= size < 2_250_000  # told to the nearest tenth: 2,2 МБ
    assert named_body(mails[0], "seed-000").startswith(
        "Здравствуйте! Ваше письмо не прочитано: его размер 2,2 МБ, "
        "а принимаются письма до 2 МБ. Поэтому ходы из него не выполнены."
    )


def test_a_strangers_large_mail_is_kept_and_not_answered(table: Table) -> None:
    raw = _mail(
        "stranger@elsewhere.test",
        "gm@example.test",
        "z" * 2_500_000,
        message_id="<spam@elsewhere.test>",
        at=MOVE_AT,
    )
    deliver(table.inbox_path, raw, at=MOVE_AT)
    assert table.run(MOVE_AT) == ["too_large"]
    assert table.new_mail() == []  # no answer, no notice: the digest tells the GM
    [kept] = table.store.kept()
    assert kept.raw == header_section(raw)
    table.run(DIGEST_AT)
    [digest] = [m for m in table.new_mail() if "Сводка за сутки" in str(m["Subject"])]
    assert (digest["To"], digest["Subject"]) == (
        GM,
        "[seed-000] Сводка за сутки: 1 письмо отложено или без ответа",  # the GM's one game
    )
    assert (
        f"№{kept.id}  1 декабря 2026 г., 21:00 по Москве  stranger@elsewhere.test  "
        "письмо больше допустимого размера или его заголовки выходят за пределы: не "
        "прочитано (сохранены только заголовки)  "
        f"({len(raw)} bytes, over the limit of 2000000)"
    ) in body(digest)


def test_a_strangers_body_is_never_read(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """Who before what: From and To decide before the body readers run."""
    read: list[bool] = []
    real = mime.read_letter

    def spy(raw: bytes, *, body: bool = True, head: mime.Letter | None = None) -> mime.Letter:
        read.append(body)
        return real(raw, body=body, head=head)

    monkeypatch.setattr(pbp.app.intake, "read_letter", spy)  # the header section
    monkeypatch.setattr(pbp.app.reader, "read_letter", spy)  # the body (BodyReader)
    deliver(
        table.inbox_path,
        _mail(
            "stranger@elsewhere.test",
            "gm@example.test",
            "СТАТУС",
            message_id="<s@elsewhere.test>",
            at=MOVE_AT,
        ),
        at=MOVE_AT,
    )
    table.run(MOVE_AT)
    assert read == [False]
    read.clear()
    table.send("Кросс", "СТАТУС", at=MOVE_AT)
    assert table.run(MOVE_AT) == ["status"]
    assert read == [False, True]


def _spin_forever(*_args: Any) -> Any:
    end = time.thread_time() + 60
    while time.thread_time() < end:
        pass
    raise AssertionError("the budget did not cut the work short")


def test_a_body_over_its_cpu_budget_is_kept_and_later_mail_is_served(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    mail = table.config.mail.model_copy(update={"cpu_seconds_per_message": 0.3})
    table.service.config = table.config.model_copy(update={"mail": mail})
    # Both readers of a body spin: the full one and the simple plain-text one.
    monkeypatch.setattr(mime, "read_body", _spin_forever)
    monkeypatch.setattr(simple, "split_reply", _spin_forever)
    table.send("Кросс", "СТАТУС", at=MOVE_AT)
    assert table.run(MOVE_AT) == ["unreadable"]
    [kept] = table.store.kept()
    assert kept.reason == "unreadable: reading it took over 0.3 s of CPU time"
    mails = table.new_mail()
    assert [m["To"] for m in mails] == ["cross@example.test", GM]
    assert "на разбор ушло слишком много времени" in body(mails[0])
    monkeypatch.undo()
    table.send("Дуг", "СТАТУС", at=MOVE_AT)
    assert table.run(MOVE_AT) == ["status"]


def test_parsing_over_the_cpu_budget_is_kept_as_unreadable(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's parser runs on the budget too (the transaction is rolled back)."""
    mail = table.config.mail.model_copy(update={"cpu_seconds_per_message": 0.3})
    table.service.config = table.config.model_copy(update={"mail": mail})
    kind = table.service.kind_of("cluedo_days")
    monkeypatch.setattr(type(kind), "parse", _spin_forever)
    table.send("Роза", "СТАТУС", at=MOVE_AT)
    assert table.run(MOVE_AT) == ["unreadable"]
    assert [k.reason for k in table.store.kept()] == [
        "unreadable: reading it took over 0.3 s of CPU time"
    ]
    assert [m["To"] for m in table.new_mail()] == ["rosa@example.test", GM]


def test_a_different_mail_under_a_reused_message_id_is_processed(table: Table) -> None:
    to = f"gm+{table.token('Кросс')}@example.test"
    first = _mail("cross@example.test", to, "СТАТУС", message_id="<same@x.test>", at=MOVE_AT)
    other = _mail(
        "cross@example.test", to, "ПОМОЩЬ", message_id="<same@x.test>", at=utc(2026, 12, 1, 18, 5)
    )
    deliver(table.inbox_path, first, at=MOVE_AT)
    deliver(table.inbox_path, other, at=utc(2026, 12, 1, 18, 5))
    deliver(table.inbox_path, first, at=utc(2026, 12, 1, 18, 6))  # a true copy
    assert table.run(utc(2026, 12, 1, 18, 10)) == ["status", "status", "duplicate"]
    assert len(table.new_mail()) == 2


def test_a_store_that_sqlite_rolled_back_reports_the_real_error(tmp_path: Path) -> None:
    """A full disk (SQLITE_FULL) rolls the transaction back inside SQLite; the error the
    GM reads is that one, not "cannot rollback - no transaction is active"."""
    store = Store(tmp_path / "pbp.sqlite3")
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages + 2}")
    with pytest.raises(Exception, match=r"^database or disk is full$"), store.transaction():
        store.keep("maildir:x", MOVE_AT, "test", b"x" * 100_000, MOVE_AT)
    store.close()


def test_an_entry_that_is_no_message_is_kept_and_nobody_answered(table: Table) -> None:
    raw = RawMessage("odd", None, MOVE_AT, b"", defect="not a regular file: FIFO")
    outcome = table.service.handle(raw, MOVE_AT)
    assert (outcome.outcome, outcome.notes) == ("unreadable", ["not a regular file: FIFO"])
    [kept] = table.store.kept()
    assert kept.reason == "odd_entry: not a regular file: FIFO"
    [row] = kept_rows(table.store, table.config)
    assert row.reason_text == (
        "no mail (a link, directory, FIFO…): never opened, nobody answered: "
        "not a regular file: FIFO"
    )
    table.service.flush_outbox(MOVE_AT)
    assert table.new_mail() == []
    table.run(DIGEST_AT)
    [digest] = [m for m in table.new_mail() if "Сводка за сутки" in str(m["Subject"])]
    assert (
        f"№{kept.id}  1 декабря 2026 г., 21:00 по Москве  (без отправителя)  "
        "в почтовом ящике не письмо (ссылка, каталог, канал), не прочитано  "
        "(not a regular file: FIFO)"
    ) in body(digest)


def test_a_kept_mail_over_the_size_limit_cannot_be_retried(table: Table) -> None:
    """Only its header section was kept: pbp retry says so and sends nothing."""
    raw = _mail(
        "cross@example.test",
        f"gm+{table.token('Кросс')}@example.test",
        "w" * 2_100_000,
        message_id="<big2@example.test>",
        at=MOVE_AT,
    )
    deliver(table.inbox_path, raw, at=MOVE_AT)
    table.run(MOVE_AT)
    table.new_mail()
    [kept] = table.store.kept()
    [outcome] = table.service.retry([kept.id], MOVE_AT)
    assert (outcome.outcome, outcome.notes) == (
        "too_large",
        ["only its header section was kept: ask the sender to send it again"],
    )
    table.service.flush_outbox(MOVE_AT)
    assert table.new_mail() == []
