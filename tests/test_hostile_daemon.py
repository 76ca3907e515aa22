"""A real ``pbp run`` under hostile mail (issue 12): a player's STATUS sent right after
each hostile mail is answered within a couple of seconds, and no stranger is answered."""

from __future__ import annotations

import time
from collections.abc import Callable
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import make_msgid
from pathlib import Path

from kits.daemon import DaemonProcess
from kits.table import write_config

from pbp.mail.maildir import deliver, read_maildir

MB = 1_000_000


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


def test_a_status_after_each_hostile_mail_is_answered_within_two_seconds(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path, start=None)
    inbox = tmp_path / "mail" / "inbox"
    outbox = tmp_path / "mail" / "outbox"
    daemon = DaemonProcess(config)

    def to(address: str) -> list[EmailMessage]:
        return [m for m in read_maildir(outbox) if str(m["To"]) == address]

    try:
        deadline = time.monotonic() + 30
        while not (to("cross@example.test") and to("doug@example.test")):
            assert time.monotonic() < deadline, "the game did not start"
            time.sleep(0.1)
        cross = str(to("cross@example.test")[0]["Reply-To"])
        doug = str(to("doug@example.test")[0]["Reply-To"])
        waits: dict[str, float] = {}
        for name, (player, shape) in SHAPES.items():
            sender = "doug@example.test" if player else "spam@elsewhere.test"
            deliver(inbox, shape(sender, doug if player else "gm@example.test"))
            before = len(to("cross@example.test"))
            deliver(inbox, _plain("cross@example.test", cross, "СТАТУС"))
            sent = time.monotonic()
            while len(to("cross@example.test")) == before:
                assert time.monotonic() - sent < 30, f"no answer after {name}"
                time.sleep(0.05)
            waits[name] = time.monotonic() - sent
        assert {name: wait < 2.0 for name, wait in waits.items()} == dict.fromkeys(SHAPES, True), (
            waits
        )
        assert to("spam@elsewhere.test") == []
    finally:
        code = daemon.stop()
    assert code == 0, daemon.output()
