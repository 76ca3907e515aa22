"""Promises 2 and 4 of issue 6 against a scripted IMAP server (tests/kits/imapscript.py):
the faults and quirks a real Dovecot cannot be made to show on demand. A Dovecot
restart, an expunge between SEARCH and FETCH and a renumbered mailbox are shown on
the real server (tests/test_mail_imap.py, tests/test_imap_faults.py).

``ImapInbox`` alone for the connection faults; the seed-000 game (tests/kits/table.py)
reading the scripted server for the quirks, where what matters is that each move is
applied exactly once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path

import pytest
from kits.clock import FakeClock, idle_on
from kits.imapscript import ScriptedImap
from kits.table import EMAILS, Table, utc

import pbp.app.service
import pbp.mail.imap
from pbp.mail.imap import ImapInbox

T0 = utc(2026, 12, 1, 17, 30)


@pytest.fixture
def server() -> Iterator[ScriptedImap]:
    with ScriptedImap() as scripted:
        yield scripted


@pytest.fixture
def clock() -> FakeClock:
    """The inbox's clock: its waits' lengths are exact, whatever the machine's load."""
    return FakeClock()


@pytest.fixture
def inbox(server: ScriptedImap, clock: FakeClock) -> Iterator[ImapInbox]:
    box = ImapInbox("127.0.0.1", server.port, "gm@example.test", "secret", timeout=1.0, clock=clock)
    try:
        yield box
    finally:
        box.close()


def plain(number: int) -> bytes:
    return f"Message-ID: <s-{number}@example.test>\r\nSubject: {number}\r\n\r\nSTATUS\r\n".encode()


def test_a_bye_during_idle_ends_the_wait_and_the_next_fetch_reconnects(
    server: ScriptedImap,
    inbox: ImapInbox,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The BYE ends the wait at once: not a moment of its 20 s passes on its clock."""
    idles = idle_on(clock, monkeypatch)
    assert inbox.fetch_new() == []
    server.bye_in_idle = True
    with caplog.at_level(logging.WARNING, logger="pbp.mail.imap"):
        inbox.wait(20.0)
    assert (idles, clock.sleeps, clock.now) == ([20.0], [], 0.0)
    assert any(" lost (" in r.getMessage() for r in caplog.records)
    server.bye_in_idle = False
    server.add(plain(1), T0)
    server.reset_all()  # the server went down and came back: every session is gone
    assert [m.raw for m in inbox.fetch_new()] == [plain(1)]


def test_a_silent_idle_is_reissued_before_the_restart_interval(
    server: ScriptedImap, inbox: ImapInbox, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RFC 2177 §3: IDLE is re-issued at least every 29 minutes (25 in pbp; 0.3 s here),
    so a server that silently dropped the session is found out. The wait lasts its 1.3 s
    on its clock, the last IDLE only what is left of it."""
    monkeypatch.setattr(pbp.mail.imap, "IDLE_RESTART_SECONDS", 0.3)
    assert pbp.mail.imap.IDLE_RESTART_SECONDS <= 25 * 60
    idles = idle_on(clock, monkeypatch)
    server.silent_idle = True
    assert inbox.fetch_new() == []
    inbox.wait(1.3)
    assert idles == pytest.approx([0.3, 0.3, 0.3, 0.3, 0.1])
    assert clock.now == pytest.approx(1.3) and clock.sleeps == []
    assert server.commands.count("IDLE") >= 4
    assert server.commands.count("DONE") == server.commands.count("IDLE")


def test_a_dead_peer_times_out_instead_of_hanging(
    server: ScriptedImap, inbox: ImapInbox, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The socket timeout (1 s) ends each command a mute server never answers: two
    connections' worth, far below the 30 s allowed (a guard against a hang that holds
    on a loaded machine). The wait's own sleep is what is left of its second, exactly."""
    assert inbox.fetch_new() == []
    server.mute = True  # reads every command, answers none
    start = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="pbp.mail.imap"), pytest.raises(OSError):
        inbox.fetch_new()  # the kept connection times out, a new one too
    assert time.monotonic() - start < 30.0
    start = time.monotonic()
    inbox.wait(1.0)  # never raises; the waiter's socket times out as well
    assert time.monotonic() - start < 30.0
    assert (clock.sleeps, clock.now) == ([1.0], 1.0)
    server.mute = False
    server.add(plain(1), T0)
    assert [m.raw for m in inbox.fetch_new()] == [plain(1)]


def test_a_connection_reset_is_retried_on_a_new_connection(
    server: ScriptedImap, inbox: ImapInbox, caplog: pytest.LogCaptureFixture
) -> None:
    assert inbox.fetch_new() == []
    server.add(plain(1), T0)
    server.reset_all()
    with caplog.at_level(logging.WARNING, logger="pbp.mail.imap"):
        assert [m.raw for m in inbox.fetch_new()] == [plain(1)]
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        f"IMAP connection to 127.0.0.1:{server.port} lost"
    ]


# --- quirks, through the service ------------------------------------------------------


@pytest.fixture
def table(tmp_path: Path, server: ScriptedImap) -> Iterator[Table]:
    table = Table(tmp_path)
    table.service.inbox = ImapInbox(
        "127.0.0.1", server.port, "gm@example.test", "secret", timeout=2.0
    )
    try:
        yield table
    finally:
        table.service.inbox.close()
        table.close()


def move(table: Table, player: str, text: str, number: int) -> bytes:
    message = EmailMessage(policy=SMTP)
    message["From"] = EMAILS[player]
    message["To"] = f"gm+{table.token(player)}@example.test"
    message["Subject"] = "ход"
    message["Date"] = format_datetime(T0)
    message["Message-ID"] = f"<q-{number}@example.test>"
    message.set_content(text + "\n")
    return bytes(message)


def suggestions(table: Table) -> int:
    return sum(1 for s in table.store.events("seed-000") if s.event.kind == "suggestion_made")


def test_quirks_search_returning_an_old_message_fetch_of_flags_only_and_a_ghost_uid(
    table: Table, server: ScriptedImap, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One fetch a round: a round that a loaded machine stretches past
    SERVE_EVERY_SECONDS (0.5 s) would otherwise fetch UID 2 again in its middle."""
    monkeypatch.setattr(pbp.app.service, "SERVE_EVERY_SECONDS", float("inf"))
    table.run(utc(2026, 12, 1, 17))  # the game starts
    server.add(move(table, "Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", 1), T0)
    server.add(move(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Спальня ДЛЯ Роза", 2), T0)
    server.flags_only = {2}  # the first FETCH of UID 2 returns only its FLAGS
    server.ghosts = {7}  # SEARCH names UID 7, which FETCH no longer finds
    now = utc(2026, 12, 1, 18)

    assert table.run(now) == ["applied"]  # UID 2 waits for the next round, 7 is skipped
    assert server.messages[1].flags == {"$PbpDone"} and server.messages[2].flags == set()
    assert table.run(now) == ["applied"]
    # A server that answers SEARCH with the last old message again: not applied twice.
    server.search_extra = True
    assert table.run(now) == ["duplicate"]
    assert table.run(now) == ["duplicate"]
    assert suggestions(table) == 2
    outcomes = table.store.message_outcomes()
    assert [(o.source, o.outcome) for o in outcomes] == [
        ("imap:1764600000:1", "applied"),
        ("imap:1764600000:2", "applied"),
    ]
