"""IMAP inbox (pbp/mail/imap.py) against a real Dovecot (tests/kits/mailstack.py).

INTERNALDATEs are in the past on purpose: Dovecot replaces a future APPEND date
by the time of the APPEND.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta, timezone

import pytest
from kits.clock import FakeClock, idle_on
from kits.mailstack import Dovecot

from pbp.mail.base import Inbox, RawMessage
from pbp.mail.imap import ImapInbox

GM = "gm@example.test"
PASSWORD = "gm-secret"
MSK = timezone(timedelta(hours=3))
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def move(n: int) -> bytes:
    return (
        f"From: netashka@example.test\r\nTo: gm+tok{n}@example.test\r\n"
        f"Subject: move {n}\r\n\r\nSUGGEST Краснова, Нож, Кухня TO Веталь\r\n"
    ).encode()


@pytest.fixture
def gm_dovecot(dovecot: Dovecot) -> Dovecot:
    dovecot.add_user(GM, PASSWORD)
    return dovecot


@pytest.fixture
def inbox(gm_dovecot: Dovecot) -> Iterator[ImapInbox]:
    box = ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, timeout=10)
    yield box
    box.close()


def flags_by_uid(dovecot: Dovecot, folder: str = "INBOX") -> dict[int, set[str]]:
    return {m.uid: set(m.flags) - {"\\Recent"} for m in dovecot.messages(GM, folder)}


def test_fetch_new_returns_messages_in_arrival_order_with_exact_fields(
    gm_dovecot: Dovecot, inbox: ImapInbox
) -> None:
    # UIDs in delivery order 1, 2, 3; INTERNALDATEs out of that order, in two zones.
    assert gm_dovecot.append(GM, move(1), when=T0 + timedelta(minutes=10)) == 1
    assert gm_dovecot.append(GM, move(2), when=datetime(2025, 3, 1, 15, 0, tzinfo=MSK)) == 2
    assert gm_dovecot.append(GM, move(3), when=T0 + timedelta(minutes=5)) == 3

    got = inbox.fetch_new()

    validity = inbox.uidvalidity
    assert isinstance(validity, int) and validity > 0
    assert got == [
        RawMessage(key="2", uidvalidity=validity, arrived=T0, raw=move(2), size=len(move(2))),
        RawMessage(
            key="3",
            uidvalidity=validity,
            arrived=T0 + timedelta(minutes=5),
            raw=move(3),
            size=len(move(3)),
        ),
        RawMessage(
            key="1",
            uidvalidity=validity,
            arrived=T0 + timedelta(minutes=10),
            raw=move(1),
            size=len(move(1)),
        ),
    ]
    assert all(m.arrived.tzinfo is UTC for m in got)


def test_equal_arrivals_are_ordered_by_numeric_uid(gm_dovecot: Dovecot, inbox: ImapInbox) -> None:
    for n in range(1, 12):
        gm_dovecot.append(GM, move(n), when=T0)
    assert [m.key for m in inbox.fetch_new()] == [str(n) for n in range(1, 12)]


def test_fetch_new_never_sets_seen_and_keeps_seen_of_read_mail(
    gm_dovecot: Dovecot, inbox: ImapInbox
) -> None:
    gm_dovecot.append(GM, move(1), when=T0)
    gm_dovecot.append(GM, move(2), flags=["\\Seen"], when=T0 + timedelta(seconds=1))

    assert [m.key for m in inbox.fetch_new()] == ["1", "2"]
    assert flags_by_uid(gm_dovecot) == {1: set(), 2: {"\\Seen"}}


def test_mark_done_sets_the_keyword_and_hides_the_messages(
    gm_dovecot: Dovecot, inbox: ImapInbox
) -> None:
    for n in range(1, 4):
        gm_dovecot.append(GM, move(n), when=T0 + timedelta(minutes=n))
    assert [m.key for m in inbox.fetch_new()] == ["1", "2", "3"]

    inbox.mark_done(["1", "3"])

    assert [m.key for m in inbox.fetch_new()] == ["2"]
    assert flags_by_uid(gm_dovecot) == {1: {"$PbpDone"}, 2: set(), 3: {"$PbpDone"}}
    inbox.mark_done(["1", "3"])  # idempotent
    inbox.mark_done([])
    assert [m.key for m in inbox.fetch_new()] == ["2"]


def test_messages_already_carrying_the_keyword_are_not_new(
    gm_dovecot: Dovecot, inbox: ImapInbox
) -> None:
    gm_dovecot.append(GM, move(1), flags=["$PbpDone"], when=T0)
    gm_dovecot.append(GM, move(2), when=T0)
    assert [(m.key, m.raw) for m in inbox.fetch_new()] == [("2", move(2))]


def test_other_folder_and_keyword(gm_dovecot: Dovecot) -> None:
    with gm_dovecot.master_login(GM) as client:
        client.create_folder("Moves")
    gm_dovecot.append(GM, move(1), when=T0, folder="Moves")
    gm_dovecot.append(GM, move(2), when=T0)
    box = ImapInbox(
        "127.0.0.1", gm_dovecot.port, GM, PASSWORD, folder="Moves", done_keyword="pbp-done"
    )
    try:
        assert [(m.key, m.raw) for m in box.fetch_new()] == [("1", move(1))]
        box.mark_done(["1"])
        assert box.fetch_new() == []
    finally:
        box.close()
    assert flags_by_uid(gm_dovecot, "Moves") == {1: {"pbp-done"}}
    assert flags_by_uid(gm_dovecot) == {1: set()}


def test_idle_wakes_wait_when_mail_is_appended_elsewhere(
    gm_dovecot: Dovecot, inbox: ImapInbox, caplog: pytest.LogCaptureFixture
) -> None:
    """What only the server shows: IDLE hears the mail another session appends, and the
    wait ends then (Dovecot announces it about 0.5 s after it arrives), not at its
    timeout: 60 s, a guard against a hang and no bound on the machine's speed (the
    figure of that latency: ``benchmarks/run.py``, ``latency``)."""
    assert inbox.fetch_new() == []
    timer = threading.Timer(0.3, gm_dovecot.append, args=(GM, move(1)))
    start = time.monotonic()
    timer.start()
    with caplog.at_level(logging.DEBUG, logger="pbp.mail.imap"):
        inbox.wait(60.0)
    elapsed = time.monotonic() - start
    timer.join()
    assert 0.3 <= elapsed < 60.0  # not before the mail came, nor at the timeout
    assert any(r.getMessage().startswith("IDLE: new mail announced") for r in caplog.records)
    assert [m.raw for m in inbox.fetch_new()] == [move(1)]


def test_wait_sleeps_out_the_timeout_when_nothing_arrives(
    gm_dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One IDLE of the whole timeout, and the wait ends with it: exactly 1.0 s on the
    inbox's clock (:class:`kits.clock.FakeClock`: the same under any load)."""
    clock = FakeClock()
    idles = idle_on(clock, monkeypatch)
    with closing(ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, clock=clock)) as inbox:
        gm_dovecot.append(GM, move(1), when=T0)
        assert [m.key for m in inbox.fetch_new()] == ["1"]  # fetched but not done: not "new"
        inbox.wait(1.0)
    assert (idles, clock.sleeps, clock.now) == ([1.0], [], 1.0)


def test_wait_returns_at_once_for_mail_that_came_after_the_fetch(
    gm_dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No IDLE, no sleep: not a moment of the inbox's clock."""
    clock = FakeClock()
    idles = idle_on(clock, monkeypatch)
    with closing(ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, clock=clock)) as inbox:
        assert inbox.fetch_new() == []
        gm_dovecot.append(GM, move(1), when=T0)
        inbox.wait(20.0)
    assert (idles, clock.sleeps, clock.now) == ([], [], 0.0)


def test_wait_without_idle_capability_sleeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without IDLE one sleep of the whole timeout, though mail comes during it (at
    0.2 s of the inbox's clock)."""
    with Dovecot(extra_config="imap_capability = IMAP4rev1 UIDPLUS") as server:
        server.add_user(GM, PASSWORD)
        clock = FakeClock(0.2, lambda: server.append(GM, move(1)))
        idles = idle_on(clock, monkeypatch)
        box = ImapInbox("127.0.0.1", server.port, GM, PASSWORD, clock=clock)
        try:
            assert box.fetch_new() == []
            box.wait(1.0)
            assert (idles, clock.sleeps, clock.now) == ([], [1.0], 1.0)
            assert [m.raw for m in box.fetch_new()] == [move(1)]
        finally:
            box.close()


def test_reconnects_after_restart_and_returns_nothing_twice(
    gm_dovecot: Dovecot, inbox: ImapInbox, caplog: pytest.LogCaptureFixture
) -> None:
    gm_dovecot.append(GM, move(1), when=T0)
    gm_dovecot.append(GM, move(2), when=T0 + timedelta(minutes=1))
    first = inbox.fetch_new()
    assert [m.key for m in first] == ["1", "2"]
    inbox.mark_done(["1", "2"])
    validity = inbox.uidvalidity

    gm_dovecot.stop()
    gm_dovecot.start()
    gm_dovecot.append(GM, move(3), when=T0 + timedelta(minutes=2))

    with caplog.at_level(logging.WARNING, logger="pbp.mail.imap"):
        again = inbox.fetch_new()
    assert again == [
        RawMessage(
            key="3",
            uidvalidity=validity,
            arrived=T0 + timedelta(minutes=2),
            raw=move(3),
            size=len(move(3)),
        )
    ]
    prefix = f"IMAP connection to 127.0.0.1:{gm_dovecot.port} lost ("
    assert [r.getMessage().startswith(prefix) for r in caplog.records] == [True]
    inbox.mark_done(["3"])
    assert inbox.fetch_new() == []


def test_wait_returns_when_the_server_goes_away_during_idle(
    gm_dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Dovecot stops 0.3 s into the IDLE (real seconds: the server's side): the wait
    returns then, without sleeping out its 20 s (none of them pass on its clock; were
    the break not seen, the IDLE would run out on the real socket: a guard, no bound)."""
    clock = FakeClock()
    idles = idle_on(clock, monkeypatch)
    inbox = ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, timeout=10, clock=clock)
    try:
        assert inbox.fetch_new() == []
        timer = threading.Timer(0.3, gm_dovecot.stop)
        start = time.monotonic()
        timer.start()
        with caplog.at_level(logging.WARNING, logger="pbp.mail.imap"):
            inbox.wait(20.0)
        elapsed = time.monotonic() - start
        timer.join()
        assert elapsed >= 0.3  # not before the server went away
        assert (idles, clock.sleeps, clock.now) == ([20.0], [], 0.0)
        prefix = f"IMAP connection to 127.0.0.1:{gm_dovecot.port} lost ("
        assert [r.getMessage().startswith(prefix) for r in caplog.records] == [True]

        gm_dovecot.start()
        gm_dovecot.append(GM, move(1), when=T0)
        assert [m.key for m in inbox.fetch_new()] == ["1"]
    finally:
        inbox.close()


def test_server_down_fetch_raises_and_wait_sleeps(
    gm_dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The wait sleeps out its 0.5 s, exactly, on the inbox's clock."""
    clock = FakeClock()
    inbox = ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, timeout=10, clock=clock)
    gm_dovecot.stop()
    refused = f"cannot connect to IMAP 127.0.0.1:{gm_dovecot.port}: ConnectionRefusedError(111, "
    with caplog.at_level(logging.DEBUG, logger="pbp.mail.imap"):
        with pytest.raises(ConnectionRefusedError) as raised:
            inbox.fetch_new()
        # Reported once, by the caller, in one sentence (the inbox notes it at DEBUG).
        assert inbox.explain(raised.value) == (
            f"IMAP 127.0.0.1:{gm_dovecot.port} ({GM}): cannot connect: the server refused the "
            "connection (is the port right, and is the server up?)"
        )
        assert [(r.levelname, r.getMessage().startswith(refused)) for r in caplog.records] == [
            ("DEBUG", True)
        ]
        caplog.clear()
        inbox.wait(0.5)
        assert (clock.sleeps, clock.now) == ([0.5], 0.5)
        assert [(r.levelname, r.getMessage().startswith(refused)) for r in caplog.records] == [
            ("DEBUG", True)
        ]
    assert inbox.uidvalidity is None
    inbox.close()


def test_message_expunged_between_search_and_fetch_is_skipped(
    gm_dovecot: Dovecot, inbox: ImapInbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(1, 4):
        gm_dovecot.append(GM, move(n), when=T0 + timedelta(minutes=n))
    from imapclient import IMAPClient

    real_fetch = IMAPClient.fetch

    def fetch_after_expunge(self: IMAPClient, *args: object, **kwargs: object) -> object:
        with gm_dovecot.master_login(GM) as other:  # another session expunges UID 2
            other.select_folder("INBOX")
            other.delete_messages([2])
            other.expunge()
            other.unselect_folder()
        return real_fetch(self, *args, **kwargs)

    monkeypatch.setattr(IMAPClient, "fetch", fetch_after_expunge)
    got = inbox.fetch_new()
    assert [(m.key, m.raw) for m in got] == [("1", move(1)), ("3", move(3))]


def test_mark_done_after_uidvalidity_change_stores_nothing(
    gm_dovecot: Dovecot, caplog: pytest.LogCaptureFixture
) -> None:
    with gm_dovecot.master_login(GM) as client:
        client.create_folder("Moves")
    gm_dovecot.append(GM, move(1), when=T0, folder="Moves")
    box = ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, folder="Moves")
    try:
        [old] = box.fetch_new()
        box.close()
        with gm_dovecot.master_login(GM) as client:  # the folder is made anew: UIDs restart
            client.delete_folder("Moves")
            client.create_folder("Moves")
        gm_dovecot.append(GM, move(2), when=T0, folder="Moves")

        with caplog.at_level(logging.WARNING, logger="pbp.mail.imap"):
            box.mark_done([old.key])

        assert box.uidvalidity != old.uidvalidity
        assert [r.getMessage() for r in caplog.records] == [
            f"UIDVALIDITY of Moves changed from {old.uidvalidity} to {box.uidvalidity}: "
            "UIDs renumbered",
            f"mark_done([1]) skipped: UIDVALIDITY changed from {old.uidvalidity} "
            f"to {box.uidvalidity} since fetch_new",
        ]
        assert flags_by_uid(gm_dovecot, "Moves") == {1: set()}
        assert box.fetch_new() == [RawMessage("1", box.uidvalidity, T0, move(2), len(move(2)))]
    finally:
        box.close()


def test_close_twice_and_bad_tls_value(inbox: ImapInbox) -> None:
    inbox.fetch_new()
    inbox.close()
    inbox.close()
    with pytest.raises(ValueError, match="tls must be"):
        ImapInbox("127.0.0.1", 1, GM, PASSWORD, tls="tls")  # type: ignore[arg-type]


def test_idle_is_reissued_and_still_wakes(
    gm_dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """RFC 2177 §3: IDLE is re-issued before the server's 30-minute inactivity timeout
    (every IDLE_RESTART_SECONDS; shortened here to 0.2 s). On the inbox's clock the mail
    comes at 0.7 s, in the fourth IDLE; Dovecot announces it in a later one (how many
    is the server's speed), and the wait ends there, long before its 60 s."""
    import pbp.mail.imap

    monkeypatch.setattr(pbp.mail.imap, "IDLE_RESTART_SECONDS", 0.2)
    clock = FakeClock(0.7, lambda: gm_dovecot.append(GM, move(1)))
    idles = idle_on(clock, monkeypatch)
    inbox = ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, timeout=10, clock=clock)
    try:
        assert inbox.fetch_new() == []
        with caplog.at_level(logging.DEBUG, logger="pbp.mail.imap"):
            inbox.wait(60.0)
        assert len(idles) >= 4
        assert idles == [0.2] * len(idles)
        assert 0.7 <= clock.now < 60.0 and clock.sleeps == []
        assert any(r.getMessage().startswith("IDLE: new mail announced") for r in caplog.records)
        assert [m.raw for m in inbox.fetch_new()] == [move(1)]
    finally:
        inbox.close()


def test_an_idle_lasts_what_is_left_of_the_wait(
    gm_dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-issued every IDLE_RESTART_SECONDS (0.3 s here), the last IDLE only for what
    is left of the timeout: the wait is 1.0 s on its clock, not a moment more."""
    import pbp.mail.imap

    monkeypatch.setattr(pbp.mail.imap, "IDLE_RESTART_SECONDS", 0.3)
    clock = FakeClock()
    idles = idle_on(clock, monkeypatch)
    with closing(ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, clock=clock)) as inbox:
        assert inbox.fetch_new() == []
        inbox.wait(1.0)
    assert idles == pytest.approx([0.3, 0.3, 0.3, 0.1])
    assert clock.now == pytest.approx(1.0) and clock.sleeps == []


def test_missing_dovecot_is_reported_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    from kits import mailstack

    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    with pytest.raises(mailstack.DovecotMissingError) as info:
        mailstack.Dovecot()
    assert str(info.value) == (
        "dovecot is not installed; the mail tests need it: "
        "apt-get install -y --no-install-recommends dovecot-imapd"
    )


def test_imap_inbox_is_an_inbox(inbox: ImapInbox) -> None:
    as_protocol: Inbox = inbox  # checked by mypy --strict
    assert as_protocol.fetch_new() == []


class _CutShort(BaseException):
    """What a signal handler raises to cut a wait short (the daemon's on SIGHUP)."""


def _cut_short(*_args: object) -> None:
    raise _CutShort


def test_a_wait_cut_short_in_the_greeting_closes_its_socket_at_once() -> None:
    """SIGHUP while the waiter connects (issue: a reload of ``pbp run`` leaked a
    socket): imaplib closes a half-open connection for an ``Exception`` only, so the
    socket of a greeting cut short by a signal handler's ``BaseException`` was left
    to the garbage collector (a ResourceWarning). It is closed at once: the server
    reads EOF."""
    import gc
    import signal
    import socket
    import warnings

    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        accepted: list[socket.socket] = []
        greeter = threading.Thread(target=lambda: accepted.append(server.accept()[0]))
        greeter.start()  # it accepts, and never greets
        box = ImapInbox("127.0.0.1", port, GM, PASSWORD, timeout=10)
        previous = signal.signal(signal.SIGALRM, _cut_short)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            with pytest.raises(_CutShort):
                box.wait(5)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        greeter.join(5)
        (peer,) = accepted
        with peer:
            peer.settimeout(2)
            assert peer.recv(1) == b""  # closed by the client, not by a collection later
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            gc.collect()
        box.close()


def test_a_wait_cut_short_in_the_middle_of_idle_is_closed_without_waiting_for_a_reply(
    gm_dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut short after ``IDLE`` went out but before its ``+ idling`` was read, the
    waiter's session is mid-command: a LOGOUT there is never answered (Dovecot wants
    ``DONE``), and close() (the daemon's, under its writer lock) waited the whole
    socket timeout. The connection is shut down instead; the next wait connects anew."""
    from imapclient import IMAPClient

    def idle_sent_then_cut(client: IMAPClient) -> None:
        client._imap.send(client._imap._new_tag() + b" IDLE\r\n")
        raise _CutShort

    clock = FakeClock()
    idles = idle_on(clock, monkeypatch)
    # A socket timeout of 60 s: a close() that waited for LOGOUT's answer would take it
    # all; one that does not takes a moment, far below the 30 s allowed (a loaded machine).
    inbox = ImapInbox("127.0.0.1", gm_dovecot.port, GM, PASSWORD, timeout=60, clock=clock)
    assert inbox.fetch_new() == []
    with monkeypatch.context() as patch:
        patch.setattr(IMAPClient, "idle", idle_sent_then_cut)
        with pytest.raises(_CutShort):
            inbox.wait(5)
    started = time.monotonic()
    inbox.close()
    assert time.monotonic() - started < 30
    gm_dovecot.append(GM, move(1), when=T0)
    inbox.wait(5)  # a new connection: the mail is there, found at once
    assert (idles, clock.sleeps, clock.now) == ([], [], 0.0)
    inbox.close()


def test_search_starts_at_the_lowest_uid_not_done_the_last_search_found(
    gm_dovecot: Dovecot, inbox: ImapInbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: a folder of a month of done mail is not searched whole every round; the
    search starts at the lowest UID that was not done (UIDs only grow, RFC 3501)."""
    from imapclient import IMAPClient

    searches: list[list[str]] = []
    real = IMAPClient.search

    def search(self: IMAPClient, criteria: list[str], *args: object) -> object:
        searches.append(list(criteria))
        return real(self, criteria, *args)

    monkeypatch.setattr(IMAPClient, "search", search)
    for n in range(1, 6):
        gm_dovecot.append(GM, move(n), when=T0 + timedelta(minutes=n))
    assert [m.key for m in inbox.fetch_new()] == ["1", "2", "3", "4", "5"]
    inbox.mark_done(["1", "2", "4"])
    assert [m.key for m in inbox.fetch_new()] == ["3", "5"]
    inbox.mark_done(["3", "5"])
    assert inbox.fetch_new() == []
    gm_dovecot.append(GM, move(6), when=T0 + timedelta(minutes=6))
    assert [m.key for m in inbox.fetch_new()] == ["6"]
    assert searches == [
        ["NOT", "KEYWORD", "$PbpDone"],
        ["NOT", "KEYWORD", "$PbpDone"],  # UID 1 was not done: the whole folder again
        ["UID", "3:*", "NOT", "KEYWORD", "$PbpDone"],
        ["UID", "3:*", "NOT", "KEYWORD", "$PbpDone"],  # nothing found: it stays
    ]
    inbox.mark_done(["6"])
    assert inbox.fetch_new() == []
    assert searches[-1] == ["UID", "6:*", "NOT", "KEYWORD", "$PbpDone"]


def test_a_message_below_the_floor_is_found_again_after_a_new_uidvalidity(
    gm_dovecot: Dovecot, inbox: ImapInbox
) -> None:
    for n in range(1, 4):
        gm_dovecot.append(GM, move(n), when=T0 + timedelta(minutes=n))
    inbox.fetch_new()
    inbox.mark_done(["1"])
    assert [m.key for m in inbox.fetch_new()] == ["2", "3"]
    # A floor of another UIDVALIDITY (the folder was rebuilt): the whole folder is
    # searched, and UID 2, below that floor, is found.
    inbox._floor = (12345, 3)
    assert [m.key for m in inbox.fetch_new()] == ["2", "3"]
    assert inbox._floor == (inbox.uidvalidity, 2)
