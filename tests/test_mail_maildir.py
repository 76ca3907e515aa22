"""Maildir inbox, outbox and delivery (pbp/mail/maildir.py)."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from pathlib import Path

import pytest
from kits.clock import FakeClock

from pbp.mail import maildir
from pbp.mail.base import Inbox, RawMessage, TransientSendError, Transport
from pbp.mail.maildir import MaildirInbox, MaildirTransport, deliver, read_maildir

MSK = timezone(timedelta(hours=3))


def raw(n: int) -> bytes:
    return (
        f"From: netashka@example.test\nTo: gm+tok{n}@example.test\nSubject: move {n}\n\nSTATUS\n"
    ).encode()


def test_deliver_with_at_gives_that_arrival_in_utc(tmp_path: Path) -> None:
    box = tmp_path / "inbox"
    key = deliver(box, raw(1), at=datetime(2026, 3, 1, 22, 29, 59, 123456, tzinfo=MSK))

    assert sorted(os.listdir(box)) == ["cur", "new", "tmp"]
    assert os.listdir(box / "new") == [key]
    assert os.listdir(box / "tmp") == []
    assert ":" not in key and "/" not in key
    inbox = MaildirInbox(box)
    assert inbox.fetch_new() == [
        RawMessage(
            key=key,
            uidvalidity=None,
            arrived=datetime(2026, 3, 1, 19, 29, 59, 123456, tzinfo=UTC),
            raw=raw(1),
            size=len(raw(1)),
        )
    ]


def test_deliver_without_at_uses_now(tmp_path: Path) -> None:
    before = datetime.now(UTC)
    deliver(tmp_path, raw(1))
    after = datetime.now(UTC)
    [message] = MaildirInbox(tmp_path).fetch_new()
    assert before - timedelta(seconds=0.01) <= message.arrived <= after + timedelta(seconds=0.01)
    assert message.arrived.tzinfo is UTC


def test_deliver_refuses_a_naive_time(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        deliver(tmp_path, raw(1), at=datetime(2026, 3, 1, 12, 0))
    assert not (tmp_path / "new").exists() or os.listdir(tmp_path / "new") == []


def test_fetch_new_orders_by_arrival_then_key_and_reads_cur_too(tmp_path: Path) -> None:
    t0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    k_late = deliver(tmp_path, raw(1), at=t0 + timedelta(minutes=5))
    k_early = deliver(tmp_path, raw(2), at=t0)
    k_same_a = deliver(tmp_path, raw(3), at=t0 + timedelta(minutes=1))
    k_same_b = deliver(tmp_path, raw(4), at=t0 + timedelta(minutes=1))
    # A mail client that read k_late moved it to cur/ with the Seen flag.
    os.rename(tmp_path / "new" / k_late, tmp_path / "cur" / f"{k_late}:2,S")

    got = MaildirInbox(tmp_path).fetch_new()

    same = sorted([(k_same_a, raw(3)), (k_same_b, raw(4))])
    assert [(m.key, m.raw) for m in got] == [(k_early, raw(2)), *same, (k_late, raw(1))]
    assert [m.arrived for m in got] == [
        t0,
        t0 + timedelta(minutes=1),
        t0 + timedelta(minutes=1),
        t0 + timedelta(minutes=5),
    ]


def test_mark_done_moves_into_done_folder_and_hides_from_fetch(tmp_path: Path) -> None:
    t0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    inbox = MaildirInbox(tmp_path)
    k1 = deliver(tmp_path, raw(1), at=t0)
    k2 = deliver(tmp_path, raw(2), at=t0 + timedelta(seconds=1))
    os.rename(tmp_path / "new" / k2, tmp_path / "cur" / f"{k2}:2,S")
    k3 = deliver(tmp_path, raw(3), at=t0 + timedelta(seconds=2))
    assert [m.key for m in inbox.fetch_new()] == [k1, k2, k3]

    inbox.mark_done([k1, k2])

    assert [m.key for m in inbox.fetch_new()] == [k3]
    done = tmp_path / ".done"
    assert os.listdir(done / "new") == [k1]
    assert os.listdir(done / "cur") == [f"{k2}:2,S"]
    assert (done / "maildirfolder").is_file()
    # The file, and so its delivery time, is kept as it was.
    assert (done / "new" / k1).read_bytes() == raw(1)
    assert (done / "new" / k1).stat().st_mtime_ns == 1772366400 * 10**9
    assert read_maildir(done)[0]["Subject"] == "move 1"


def test_mark_done_twice_and_unknown_key_are_harmless(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    inbox = MaildirInbox(tmp_path)
    k1 = deliver(tmp_path, raw(1))
    inbox.mark_done([k1])
    inbox.mark_done([k1])
    assert caplog.messages == []
    inbox.mark_done(["1700000000.M1P1Q1.nowhere"])
    assert caplog.messages == [f"mark_done: no message '1700000000.M1P1Q1.nowhere' in {tmp_path}"]
    assert os.listdir(tmp_path / ".done" / "new") == [k1]


def test_wait_returns_early_on_delivery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mail delivered 0.3 s into a wait of 10 s ends it at the next look, within
    :data:`~pbp.mail.maildir.POLL_INTERVAL` (0.2 s): after 0.4 s of the wait's clock."""
    inbox = MaildirInbox(tmp_path)
    assert inbox.fetch_new() == []
    clock = FakeClock(0.3, lambda: deliver(tmp_path, raw(1)))
    monkeypatch.setattr(maildir, "time", clock)
    inbox.wait(10.0)
    assert 0.3 <= clock.now <= 0.3 + maildir.POLL_INTERVAL
    assert clock.now == pytest.approx(0.4)
    assert [m.raw for m in inbox.fetch_new()] == [raw(1)]


def test_wait_sleeps_the_timeout_when_nothing_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = MaildirInbox(tmp_path)
    deliver(tmp_path, raw(1))
    assert len(inbox.fetch_new()) == 1  # fetched, not yet done: not "new" for wait
    clock = FakeClock()
    monkeypatch.setattr(maildir, "time", clock)
    inbox.wait(0.5)
    assert clock.now == pytest.approx(0.5)


def test_wait_returns_at_once_when_mail_came_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = MaildirInbox(tmp_path)
    assert inbox.fetch_new() == []
    deliver(tmp_path, raw(1))
    clock = FakeClock()
    monkeypatch.setattr(maildir, "time", clock)
    inbox.wait(10.0)
    assert clock.now == 0.0  # not one sleep


def test_inbox_creates_the_maildir(tmp_path: Path) -> None:
    inbox = MaildirInbox(tmp_path / "a" / "b")
    assert sorted(os.listdir(tmp_path / "a" / "b")) == [".done", "cur", "new", "tmp"]
    assert sorted(os.listdir(tmp_path / "a" / "b" / ".done")) == [
        "cur",
        "maildirfolder",
        "new",
        "tmp",
    ]
    assert inbox.fetch_new() == []
    inbox.close()
    inbox.close()


def make_message(to: str, subject: str, body: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "gm@example.test"
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = f"<{subject}@pbp.example.test>"
    message.set_content(body)
    return message


def test_transport_writes_messages_read_back_in_order(tmp_path: Path) -> None:
    outbox = MaildirTransport(tmp_path / "outbox")
    outbox.send(make_message("netashka@example.test", "hand", "Ваши карты: Нож, Кухня"))
    time.sleep(0.002)
    outbox.send(make_message("vetal@example.test", "reminder", "Осталось 2 предположения"))
    outbox.close()

    sent = read_maildir(tmp_path / "outbox")

    assert [(m["To"], m["Subject"], m["Message-ID"]) for m in sent] == [
        ("netashka@example.test", "hand", "<hand@pbp.example.test>"),
        ("vetal@example.test", "reminder", "<reminder@pbp.example.test>"),
    ]
    assert [m.get_content() for m in sent] == [
        "Ваши карты: Нож, Кухня\n",
        "Осталось 2 предположения\n",
    ]


def test_transport_write_failure_is_transient(tmp_path: Path) -> None:
    outbox = MaildirTransport(tmp_path / "outbox")
    (tmp_path / "outbox" / "tmp").rmdir()
    (tmp_path / "outbox" / "tmp").write_text("not a directory")
    with pytest.raises(TransientSendError) as error:
        outbox.send(make_message("netashka@example.test", "hand", "x"))
    assert str(error.value) == (
        f"the Maildir outbox {tmp_path / 'outbox'} is no Maildir: "
        f"{tmp_path / 'outbox' / 'tmp'} is not a folder"
    )


def test_read_maildir_of_missing_dir_is_empty(tmp_path: Path) -> None:
    assert read_maildir(tmp_path / "missing") == []


def test_maildir_classes_follow_the_protocols(tmp_path: Path) -> None:
    inbox: Inbox = MaildirInbox(tmp_path / "in")  # checked by mypy --strict
    outbox: Transport = MaildirTransport(tmp_path / "out")
    raw = bytes(make_message("netashka@example.test", "hand", "x"))
    outbox.sendmail("gm@example.test", ["netashka@example.test"], raw)
    assert inbox.fetch_new() == []
    assert len(read_maildir(tmp_path / "out")) == 1


def test_unique_names_sort_in_the_order_they_were_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """Six digits of microseconds: a mail made at .099999 s sorts before one made at
    .100000 s of the same second (a Maildir outbox is read in name order)."""
    times = iter([1_764_000_000_099_999_000, 1_764_000_000_100_000_000])
    monkeypatch.setattr(time, "time_ns", lambda: next(times))
    first, second = maildir._unique_name(), maildir._unique_name()
    assert first.startswith("1764000000.M099999P")
    assert second.startswith("1764000000.M100000P")
    assert sorted([second, first]) == [first, second]
