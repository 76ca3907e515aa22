"""A real ``pbp run`` under hostile mail (issue 12): a player's STATUS sent right after
each hostile mail is answered, on less than 2 CPU seconds of the daemon's work for both
mails, and no stranger is answered. (The wall-clock wait of each shape, the 2 s goal, is
a figure of ``benchmarks/daemon_waits.py``: issue 35, item 7.)"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import make_msgid
from functools import partial
from pathlib import Path

from kits.cputime import tree_cpu_seconds
from kits.daemon import DaemonProcess
from kits.table import write_config
from kits.wait import wait_for

from pbp.config.loading import load_config
from pbp.mail.maildir import deliver, read_maildir

MB = 1_000_000
#: Seconds: only a guard against a daemon that hangs, never a figure (the wait of each
#: shape is measured by ``benchmarks/daemon_waits.py``).
HANG = 60.0
#: CPU seconds the daemon and its children may spend on a hostile mail and the STATUS
#: after it: below one message's budget (``mail.cpu_seconds_per_message``, 3 s).
WORK = 2.0


def _handled(store: Path) -> int:
    """How many mails the daemon has handled (rows of the store's ``messages``)."""
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)) as db:
        (count,) = db.execute("SELECT count(*) FROM messages").fetchone()
    return int(count)


def _plain(sender: str, to: str, text: str, subtype: str = "plain") -> bytes:
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "hi"
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content(text, subtype=subtype)
    return bytes(message)


def _nested_rfc822(sender: str, to: str, depth: int) -> bytes:
    inner = b"From: x@example.test\r\nSubject: x\r\n\r\nVOTE x\r\n"
    for _ in range(depth):
        inner = b"Content-Type: message/rfc822\r\n\r\n" + inner
    head = f"From: {sender}\r\nTo: {to}\r\nSubject: deep\r\nMIME-Version: 1.0\r\n"
    return head.encode() + inner


#: name -> (sender is a player?, the mail from that sender to that address)
SHAPES: dict[str, tuple[bool, Callable[[str, str], bytes]]] = {
    "blank lines": (True, lambda s, t: _plain(s, t, "СТАТУС" + "\n" * (MB // 2))),
    "space lines": (True, lambda s, t: _plain(s, t, " \n" * (MB // 2))),
    "br runs": (True, lambda s, t: _plain(s, t, "<p>x" + "<br>" * (MB // 4), "html")),
    "nested div": (True, lambda s, t: _plain(s, t, "<div>" * (MB // 5), "html")),
    "quote tags": (True, lambda s, t: _plain(s, t, "[quote=" * (MB // 7))),
    "nested rfc822": (True, lambda s, t: _nested_rfc822(s, t, 1000)),
    "stranger's blank lines": (False, lambda s, t: _plain(s, t, "\n" * (MB // 2))),
    "stranger's 20 MB": (False, lambda s, t: _plain(s, t, "spam " * (4 * MB))),
}


def test_a_status_after_each_hostile_mail_is_answered_on_under_two_cpu_seconds(
    tmp_path: Path,
) -> None:
    """Each hostile mail, then Кросс's STATUS at once: the STATUS is answered, no stranger
    is, and the daemon with its children (the forkserver, the reader child of
    :mod:`pbp.app.reader`) spends less than 2 CPU seconds from the hostile mail's delivery
    until both mails are handled (their rows in the store) and the STATUS answered.

    CPU seconds (:func:`kits.cputime.tree_cpu_seconds`), not a wall-clock wait: the work
    done, which a busy machine does not stretch (issue 35, item 7). The bound holds what
    the former "answered within 2 s" held: less than one message's CPU budget
    (``mail.cpu_seconds_per_message``, 3 s), so a mail cut by its budget — in the daemon
    (:func:`pbp.app.budget.cpu_budget`) or in the reader child, killed at its budget —
    cannot pass; every shape is read by linear work far below it. The wall wait is
    measured and printed by ``benchmarks/daemon_waits.py``; here 60 s is only a guard
    against a hang.
    """
    config = write_config(tmp_path, start=None)
    inbox = tmp_path / "mail" / "inbox"
    outbox = tmp_path / "mail" / "outbox"
    store = tmp_path / "pbp.sqlite3"
    daemon = DaemonProcess(config)

    def to(address: str) -> list[EmailMessage]:
        return [m for m in read_maildir(outbox) if str(m["To"]) == address]

    def done(answers: int, handled: int) -> bool:
        """Кросс has more than ``answers`` answers, the store ``handled`` + 2 mails."""
        return len(to("cross@example.test")) > answers and _handled(store) == handled + 2

    def explain(name: str) -> str:
        return f"no answer after {name}\n{daemon.output()}"

    try:
        wait_for(
            lambda: bool(to("cross@example.test") and to("doug@example.test")),
            HANG,
            lambda: "the game did not start\n" + daemon.output(),
        )
        cross = str(to("cross@example.test")[0]["Reply-To"])
        doug = str(to("doug@example.test")[0]["Reply-To"])
        budget = load_config(config).mail.cpu_seconds_per_message
        # A STATUS first: the first mail read starts the reader child (its forkserver and
        # imports, some 0.8 CPU s), the work of no mail.
        deliver(inbox, _plain("cross@example.test", cross, "СТАТУС"))
        wait_for(partial(done, len(to("cross@example.test")), _handled(store) - 1), HANG)
        work: dict[str, float] = {}
        for name, (player, shape) in SHAPES.items():
            sender = "doug@example.test" if player else "spam@elsewhere.test"
            hostile = shape(sender, doug if player else "gm@example.test")
            before = len(to("cross@example.test"))
            handled = _handled(store)
            cpu = tree_cpu_seconds(daemon.process.pid)
            deliver(inbox, hostile)
            deliver(inbox, _plain("cross@example.test", cross, "СТАТУС"))
            wait_for(partial(done, before, handled), HANG, partial(explain, name), every=0.05)
            work[name] = tree_cpu_seconds(daemon.process.pid) - cpu
        assert budget > WORK
        assert {name: cpu < WORK for name, cpu in work.items()} == dict.fromkeys(SHAPES, True), work
        assert to("spam@elsewhere.test") == []
    finally:
        code = daemon.stop()
    assert code == 0, daemon.output()
