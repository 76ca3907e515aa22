"""Maildir hardening (issue 12, item 8): only regular files are read.

A directory, a FIFO, a socket, a symbolic link (to a file outside the Maildir, or
dangling) or a hard link (a second name of a file elsewhere) in ``new/`` is never
opened or followed and never blocks a round: it comes back unread with a ``defect``
and one WARNING line, and ``mark_done`` moves it into ``.done`` like mail
(``rename``: a link stays a link, a directory moves whole).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kits.table import Table, utc

from pbp.mail.base import RawMessage
from pbp.mail.maildir import MaildirInbox, deliver

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
T1 = datetime(2026, 3, 1, 12, 5, tzinfo=UTC)
SECRET = b"root:x:0:0:only-for-this-test:/root:/bin/sh\n"
MAIL = b"From: netashka@example.test\nTo: gm+tok@example.test\nSubject: move\n\nSTATUS\n"


def _directory(path: Path, secret: Path) -> None:
    path.mkdir()
    (path / "inside").write_bytes(SECRET)


def _fifo(path: Path, secret: Path) -> None:
    os.mkfifo(path)


def _symlink(path: Path, secret: Path) -> None:
    os.symlink(secret, path)


def _dangling(path: Path, secret: Path) -> None:
    os.symlink(secret.parent / "nothing-here", path)


def _hard_link(path: Path, secret: Path) -> None:
    os.link(secret, path)


def _socket(path: Path, secret: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))


ODD: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "directory": (_directory, "not a regular file: directory"),
    "fifo": (_fifo, "not a regular file: FIFO"),
    "symlink": (_symlink, "not a regular file: symlink"),
    "dangling symlink": (_dangling, "not a regular file: symlink"),
    "socket": (_socket, "not a regular file: socket"),
    "hard link": (_hard_link, "not a regular file: hard link (2 names)"),
}


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the Maildir that a symlink points at (an /etc/passwd of our own)."""
    path = tmp_path / "outside" / "passwd"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    return path


def _fetch_within(inbox: MaildirInbox, seconds: float) -> list[RawMessage]:
    """``inbox.fetch_new()`` in a thread; fails the test when it has not returned in time."""
    result: list[list[RawMessage]] = []
    worker = threading.Thread(target=lambda: result.append(inbox.fetch_new()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert result, f"fetch_new did not return within {seconds} s"
    return result[0]


@pytest.mark.parametrize("kind", sorted(ODD))
def test_an_entry_that_is_no_regular_file_comes_unread_with_its_defect_and_moves_aside(
    kind: str, tmp_path: Path, secret: Path, caplog: pytest.LogCaptureFixture
) -> None:
    box = tmp_path / "inbox"
    inbox = MaildirInbox(box)
    mail_key = deliver(box, MAIL, at=T0)
    make, defect = ODD[kind]
    odd_key = "1764600000.M1P1Q1.odd"
    make(box / "new" / odd_key, secret)
    at = int(T1.timestamp()) * 10**9
    os.utime(box / "new" / odd_key, ns=(at, at), follow_symlinks=False)

    with caplog.at_level(logging.WARNING, logger="pbp.mail.maildir"):
        got = _fetch_within(inbox, 5)

    assert got == [
        RawMessage(mail_key, None, T0, MAIL, size=len(MAIL)),
        RawMessage(odd_key, None, T1, b"", defect=defect),
    ]
    assert [r.getMessage() for r in caplog.records] == [
        f"Maildir entry {box / 'new' / odd_key}: {defect}; not read, moved aside when done"
    ]
    inbox.keep([odd_key])  # nothing to copy: the kept folder stays empty
    assert os.listdir(box / ".pbp-kept" / "new") == []
    inbox.mark_done([mail_key, odd_key])
    assert os.listdir(box / "new") == []
    assert sorted(os.listdir(box / ".done" / "new")) == sorted([mail_key, odd_key])
    moved = box / ".done" / "new" / odd_key
    assert kind not in ("symlink", "dangling symlink") or moved.is_symlink()
    assert kind != "directory" or (moved / "inside").read_bytes() == SECRET
    assert secret.read_bytes() == SECRET  # the link's target is untouched
    assert inbox.fetch_new() == []


def test_a_fresh_hard_link_is_a_delivery_in_progress_read_once_it_has_one_name(
    tmp_path: Path,
) -> None:
    """qmail and Postfix deliver by linking ``tmp/`` into ``new/`` and then unlinking
    ``tmp/``: for an instant the mail has two names, and is left for the next round."""
    box = tmp_path / "inbox"
    inbox = MaildirInbox(box)
    tmp = box / "tmp" / "1764600000.M4P4Q4.mda"
    tmp.write_bytes(MAIL)
    os.link(tmp, box / "new" / tmp.name)
    assert inbox.fetch_new() == []
    tmp.unlink()
    (got,) = inbox.fetch_new()
    assert (got.key, got.raw, got.defect) == (tmp.name, MAIL, None)


def test_a_mail_kept_before_a_crash_has_two_names_and_is_still_read(tmp_path: Path) -> None:
    """``keep`` hard-links a kept mail into ``.pbp-kept``; a crash before ``mark_done``
    leaves it in ``new/`` with two names, which is no foreign link."""
    box = tmp_path / "inbox"
    inbox = MaildirInbox(box)
    key = deliver(box, MAIL, at=T0)
    inbox.keep([key])
    assert os.stat(box / "new" / key).st_nlink == 2
    assert inbox.fetch_new() == [RawMessage(key, None, T0, MAIL, size=len(MAIL))]


def test_a_fifo_in_new_does_not_block_a_service_round(tmp_path: Path) -> None:
    """``pbp run --once`` with a FIFO in ``new/``: the round ends, the FIFO moves aside."""
    table = Table(tmp_path)
    fifo = table.inbox_path / "new" / "1764600000.M2P2Q2.fifo"
    outcomes: list[list[str]] = []
    try:
        table.run(utc(2026, 12, 1, 17))  # the game starts
        os.mkfifo(fifo)
        worker = threading.Thread(
            target=lambda: outcomes.append(table.run(utc(2026, 12, 1, 18))), daemon=True
        )
        worker.start()
        worker.join(10)
        assert len(outcomes) == 1, "the round blocked on the FIFO"
        assert os.listdir(table.inbox_path / "new") == []
        assert os.listdir(table.inbox_path / ".done" / "new") == [fifo.name]
    finally:
        if not outcomes and fifo.exists():
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # unblock a stuck reader
        table.close()


def test_a_symlinked_file_never_reaches_the_store_the_kept_folder_or_any_mail(
    tmp_path: Path, secret: Path
) -> None:
    table = Table(tmp_path)
    link = table.inbox_path / "new" / "1764600000.M3P3Q3.link"
    try:
        table.run(utc(2026, 12, 1, 17))
        os.symlink(secret, link)
        table.run(utc(2026, 12, 1, 18))
        assert os.listdir(table.inbox_path / "new") == []
        assert os.readlink(table.inbox_path / ".done" / "new" / link.name) == str(secret)
        assert [k.raw for k in table.store.kept()] == [b""]
        assert os.listdir(table.inbox_path / ".pbp-kept" / "new") == []
        sent = [mail.raw for mail in table.store.outbox()]
        assert sent and not any(b"only-for-this-test" in raw for raw in sent)
    finally:
        table.close()


@pytest.fixture
def swapped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """``os.lstat`` sees a regular file for every ``*.odd`` entry: the entry was swapped
    between ``lstat`` and ``open`` (the race that ``O_NOFOLLOW`` and ``fstat`` close)."""
    regular = tmp_path / "regular"
    regular.write_bytes(MAIL)
    real_lstat = os.lstat

    def lstat(path: os.PathLike[str] | str) -> os.stat_result:
        if Path(path).name.endswith(".odd"):
            return real_lstat(regular)
        return real_lstat(path)

    monkeypatch.setattr(os, "lstat", lstat)
    yield regular


@pytest.mark.parametrize(
    ("kind", "defect"),
    [
        ("symlink", "not a regular file: symlink"),
        ("fifo", "not a regular file: FIFO"),
        ("directory", "not a regular file: directory"),
    ],
)
def test_an_entry_swapped_after_lstat_is_caught_by_nofollow_open_and_fstat(
    kind: str, defect: str, tmp_path: Path, secret: Path, swapped: Path
) -> None:
    box = tmp_path / "inbox"
    inbox = MaildirInbox(box)
    ODD[kind][0](box / "new" / "1764600000.M4P4Q4.odd", secret)

    [got] = _fetch_within(inbox, 5)

    assert (got.key, got.raw, got.size, got.truncated, got.defect) == (
        "1764600000.M4P4Q4.odd",
        b"",
        None,
        False,
        defect,
    )
