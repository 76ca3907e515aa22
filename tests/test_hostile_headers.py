"""A real ``pbp run`` on Dovecot under hostile header sections (issue 32, item 2).

Before issue 32 the IMAP inbox fetched a header section whole, however long, and the
authentication verdict parsed every ``Authentication-Results`` field of the trusted
id in the daemon, outside any CPU budget: a stranger's 2 MB of 1,500 such fields held
up another player's STATUS by 24–26 s, a player's own 1.9 MB of 460 fields by 13–17 s,
25,000 tiny fields by 4.9 s, and the header of each was kept whole (the store grew by
18 MB for four). Now an inbox reads at most 64 KB and 1,000 fields of a header section
(:data:`pbp.mail.base.HEADER_BYTES`, :data:`~pbp.mail.base.MAX_HEADER_FIELDS`), the
verdict at most 16 fields (:data:`pbp.mail.read.auth.MAX_FIELDS`), every header step runs
on the message's CPU budget, and what is kept of such a mail is cut to 64 KB.

The games of tests/kits/crash.py (three games, Maniac ``mn-1`` among them), with
``mail.trusted_authserv_id`` set; each hostile mail is followed at once by Оля's
STATUS (authenticated), which must be answered on at most 2 CPU seconds of the
daemon's work more than the median of three STATUS alone, measured first in the
same run. CPU seconds of the daemon and its children
(:func:`kits.cputime.tree_cpu_seconds`), not a wall-clock wait: the work, which a busy
machine does not stretch (issue 35, item 7); the wall-clock wait of each shape, the
goal of 2 s more, is a figure of ``benchmarks/daemon_waits.py``.
"""

from __future__ import annotations

import email
import sqlite3
import statistics
import time
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

from kits.cputime import tree_cpu_seconds
from kits.crash import DAEMON, ENV, add_users, address, games_yaml, settled, tokens
from kits.daemon import TROUBLE, DaemonProcess
from kits.mailstack import Dovecot, SmtpServer
from kits.wait import wait_for

from pbp.config.loading import load_config
from pbp.mail.base import HEADER_BYTES

TRUSTED = "mx.example.test"
#: What the trusted server writes of a mail that passed.
PASSED = f"Authentication-Results: {TRUSTED}; dmarc=pass header.from=example.test\r\n"
#: A result that costs the verdict's parser most per byte (before issue 32 some 13 ms a
#: field of 4,000 characters) and passes nothing, whatever the trust rules.
NEUTRAL = "dkim=neutral header.d=elsewhere.test; "
#: Bytes: the default of ``mail.max_message_size``.
LIMIT = 2_000_000
#: Seconds left to the daemon, after an answer, to be back in IMAP IDLE.
IDLE_SETTLES = 1.0
#: CPU seconds a hostile header section may add to the work of the STATUS after it:
#: below one step's budget (``mail.cpu_seconds_per_message``, 3 s).
MORE_WORK = 2.0
#: Seconds: only a guard against a daemon that hangs, never a figure.
HANG = 60.0


def _field(length: int) -> bytes:
    """One ``Authentication-Results`` field of the trusted id, ``length`` bytes long
    (CRLF included), within the parser's :data:`pbp.mail.read.auth.FIELD_LIMIT`."""
    start = f"Authentication-Results: {TRUSTED}; "
    value = (start + NEUTRAL * (length // len(NEUTRAL) + 1))[: length - 2]
    return value.encode() + b"\r\n"


def _mail(sender: str, to: str, fields: bytes, message_id: str | None = None) -> bytes:
    """From, To, Subject, Message-ID (default a new one), then ``fields``, then STATUS."""
    message_id = message_id or make_msgid(domain="example.test")
    head = (
        f"From: {sender}\r\nTo: {to}\r\nSubject: ход\r\nMessage-ID: {message_id}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
    ).encode()
    return head + fields + "\r\nСТАТУС\r\n".encode()


#: name -> the hostile mail, for the seats' tokens (``tokens``)
SHAPES: dict[str, Callable[[dict[tuple[str, str], str]], bytes]] = {
    # A stranger, under a registered player's From, at the bare address: 2.1 MB.
    "stranger's 1,500 fields": lambda seats: _mail(
        address("mn-1", "Петя"), DAEMON, _field(1400) * 1500, "<h-1@example.test>"
    ),
    # A player's own mail to his personal address, within the size limit: 1.9 MB.
    "player's 460 fields": lambda seats: _mail(
        address("mn-1", "Вася"),
        f"gm+{seats[('mn-1', 'Вася')]}@example.test",
        _field(4000) * 460,
        "<h-2@example.test>",
    ),
    # 25,000 tiny fields (1.98 MB) from a player to her personal address.
    "25,000 tiny fields": lambda seats: _mail(
        address("mn-1", "Таня"),
        f"gm+{seats[('mn-1', 'Таня')]}@example.test",
        _field(79) * 25_000,
        "<h-3@example.test>",
    ),
}


def _answered(dovecot: Dovecot, mailbox: str, message_id: str) -> bool:
    """Whether ``mailbox`` holds an answer to the mail ``message_id``."""
    for stored in dovecot.messages(mailbox):
        answer = email.message_from_bytes(stored.raw, policy=default_policy)
        if answer["In-Reply-To"] == message_id:
            return True
    return False


def _handled(store: Path) -> int:
    """How many mails the daemon has handled (rows of the store's ``messages``)."""
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)) as db:
        (count,) = db.execute("SELECT count(*) FROM messages").fetchone()
    return int(count)


def _tokens_ready(store: Path) -> bool:
    try:
        return len(tokens(store)) == 18 + 3  # 18 players, the GM seat of each game
    except sqlite3.OperationalError:
        return False


def test_a_status_after_each_hostile_header_section_costs_at_most_two_cpu_seconds_more(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path
) -> None:
    """The daemon and its children spend at most 2 CPU seconds more on a hostile mail
    and Оля's STATUS after it, from the hostile mail's APPEND until both are handled
    (their rows in the store), the STATUS answered and the outbox sent, than on the
    median of three STATUS alone; then what is kept of each, its outcome, and that
    nobody else is answered.

    The bound is below one step's CPU budget (3 s): a header section read or judged
    whole, cut by its budget, cannot pass (before issue 32: 24–26 s for the stranger's).
    60 s of wall time is only a guard against a hang.
    """
    add_users(dovecot)
    config = tmp_path / "games.yaml"
    config.write_text(
        games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC), trusted=TRUSTED),
        encoding="utf-8",
    )
    store = tmp_path / "pbp.sqlite3"
    olya = address("mn-1", "Оля")
    daemon = DaemonProcess(config, ENV)
    try:
        daemon.wait_running()
        wait_for(lambda: _tokens_ready(store), 30, daemon.output)
        seats = tokens(store)
        # The games' start sent (every seat's mail): not the work of a STATUS.
        wait_for(lambda: settled(store, 0), HANG, daemon.output)
        budget = load_config(config).mail.cpu_seconds_per_message

        def status_after(hostile: bytes | None) -> float:
            """CPU seconds of the daemon's work from ``hostile``'s APPEND (when given),
            else Оля's STATUS's, until both are handled, the STATUS answered and the
            outbox sent."""
            # Dovecot 2.3 may miss mail delivered just as IDLE starts (then announced
            # only when pbp's IDLE ends, 10 s later): the daemon is let settle into it.
            time.sleep(IDLE_SETTLES)
            status = _mail(olya, f"gm+{seats[('mn-1', 'Оля')]}@example.test", PASSED.encode())
            message_id = str(email.message_from_bytes(status)["Message-ID"])
            expected = _handled(store) + (1 if hostile is None else 2)
            cpu = tree_cpu_seconds(daemon.process.pid)
            if hostile is not None:
                dovecot.append(DAEMON, hostile)
            dovecot.append(DAEMON, status)
            wait_for(
                lambda: _answered(dovecot, olya, message_id) and settled(store, expected),
                HANG,
                daemon.output,
                every=0.05,
            )
            return tree_cpu_seconds(daemon.process.pid) - cpu

        # The median: the first STATUS of a run also starts the reader child (its
        # forkserver and imports, some 0.8 CPU s), the work of no mail.
        baseline = statistics.median(status_after(None) for _ in range(3))
        hostile = {name: shape(seats) for name, shape in SHAPES.items()}
        work = {name: status_after(raw) for name, raw in hostile.items()}
        assert baseline + MORE_WORK < budget, baseline
        assert {name: cpu <= baseline + MORE_WORK for name, cpu in work.items()} == dict.fromkeys(
            SHAPES, True
        ), (baseline, work)
        with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)) as db:
            kept = db.execute("SELECT reason, raw FROM kept ORDER BY id").fetchall()
            outcomes = db.execute("SELECT outcome FROM messages ORDER BY rowid").fetchall()
    finally:
        code = daemon.stop()
    assert code == 0, daemon.output()
    assert not TROUBLE.search(daemon.output()), daemon.output()
    stranger, player, tiny = hostile.values()
    assert (len(stranger) > LIMIT, len(player) < LIMIT, len(tiny) < LIMIT) == (True, True, True)
    assert [o for (o,) in outcomes] == ["status"] * 3 + ["too_large", "status"] * 3
    # The first 64 KB of each header section kept, exactly: 196,608 bytes for the
    # three (before issue 32 they were kept whole: 5.9 MB).
    assert [raw for _, raw in kept] == [raw[:HEADER_BYTES] for raw in hostile.values()]
    assert sum(len(raw) for _, raw in kept) == 3 * HEADER_BYTES == 196_608
    assert [reason.partition(";")[0] for reason, _ in kept] == [
        f"too_large: {len(stranger)} bytes, over the limit of {LIMIT}",
        "too_large: header section over 65536 bytes",
        "too_large: header section over 65536 bytes",
    ]
    # Nobody but Оля answered: each hostile From is unauthenticated (GM digest only).
    for number, sender in enumerate(("Петя", "Вася", "Таня"), 1):
        assert not _answered(dovecot, address("mn-1", sender), f"<h-{number}@example.test>")
