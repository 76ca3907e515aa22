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
STATUS (authenticated), whose answer must come within 2 s more than the slowest of
three answers to a STATUS alone, measured first in the same run.
"""

from __future__ import annotations

import email
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

from kits.crash import DAEMON, ENV, add_users, address, games_yaml, tokens
from kits.daemon import TROUBLE, DaemonProcess
from kits.mailstack import Dovecot, SmtpServer
from kits.wait import wait_for

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


def _tokens_ready(store: Path) -> bool:
    try:
        return len(tokens(store)) == 18 + 3  # 18 players, the GM seat of each game
    except sqlite3.OperationalError:
        return False


def test_a_status_after_each_hostile_header_section_waits_at_most_two_seconds_more(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path
) -> None:
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

        def status_after(hostile: bytes | None) -> float:
            """Seconds from Оля's STATUS (after ``hostile``, when given) to its answer."""
            # Dovecot 2.3 may miss mail delivered just as IDLE starts (then announced
            # only when pbp's IDLE ends, 10 s later): the daemon is let settle into it.
            time.sleep(IDLE_SETTLES)
            if hostile is not None:
                dovecot.append(DAEMON, hostile)
            status = _mail(olya, f"gm+{seats[('mn-1', 'Оля')]}@example.test", PASSED.encode())
            message_id = str(email.message_from_bytes(status)["Message-ID"])
            dovecot.append(DAEMON, status)
            sent = time.monotonic()
            wait_for(lambda: _answered(dovecot, olya, message_id), 60, daemon.output, every=0.05)
            return time.monotonic() - sent

        baseline = max(status_after(None) for _ in range(3))
        hostile = {name: shape(seats) for name, shape in SHAPES.items()}
        waits = {name: status_after(raw) for name, raw in hostile.items()}
        assert {name: wait <= baseline + 2.0 for name, wait in waits.items()} == dict.fromkeys(
            SHAPES, True
        ), (baseline, waits)
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
