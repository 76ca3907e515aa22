"""Helpers for the whole-game tests through the real mail stack with a real ``pbp run``.

* :func:`mailbox` reads a Dovecot mailbox over IMAP (through the master user of
  tests/kits/mailstack.py, without setting ``\\Seen``) into :class:`Received` messages.
* :func:`send` is a player's mail client: a plain-text mail by SMTP, optionally a
  reply (RFC 5322 §3.6.4 threading).
* :func:`wait_for` polls until a condition holds (the daemon works in its own time).
* :class:`DaemonProcess` runs ``python -m pbp -c CONFIG run`` as a subprocess, its
  output in a file, and stops it with SIGTERM.

Example::

    daemon = DaemonProcess(config_path, env={"PBP_IMAP_PASSWORD": "secret"})
    wait_for(lambda: len(mailbox(dovecot, "cross@example.test")) == 2, 20, daemon.output)
    send(smtp, "cross@example.test", personal, "ОБВИНЕНИЕ Маша, Топор, Столовая")
    assert daemon.stop() == 0
"""

from __future__ import annotations

import email
import os
import signal
import smtplib
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime, make_msgid, parsedate_to_datetime
from pathlib import Path

from .mailstack import Dovecot, SmtpServer

REPO = Path(__file__).resolve().parents[2]

__all__ = ["REPO", "DaemonProcess", "Received", "mailbox", "send", "subjects", "wait_for"]


@dataclass(frozen=True)
class Received:
    """One message of a mailbox: its UID, its flags and the parsed message."""

    uid: int
    flags: frozenset[str]
    message: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def body(self) -> str:
        """The decoded text, lines ended by ``\\n``."""
        content = self.message.get_content()
        assert isinstance(content, str)
        return content.replace("\r\n", "\n")

    @property
    def lines(self) -> list[str]:
        return self.body.splitlines()

    @property
    def date(self) -> datetime:
        """The ``Date`` header (RFC 5322 §3.6.1) as an aware UTC datetime (1 s resolution)."""
        value = self.message["Date"]
        assert value is not None, self.subject
        return parsedate_to_datetime(str(value)).astimezone(UTC)

    def header(self, name: str) -> str | None:
        value = self.message[name]
        return None if value is None else str(value)


def mailbox(dovecot: Dovecot, address: str) -> list[Received]:
    """Every message of ``address``'s INBOX in UID order, read without setting ``\\Seen``."""
    found = []
    for stored in dovecot.messages(address):
        message = email.message_from_bytes(stored.raw, policy=default_policy)
        assert isinstance(message, EmailMessage)
        found.append(Received(stored.uid, frozenset(stored.flags), message))
    return found


def subjects(dovecot: Dovecot, address: str) -> list[str]:
    """The Subjects of ``address``'s INBOX in UID (delivery) order."""
    return [r.subject for r in mailbox(dovecot, address)]


def send(
    smtp: SmtpServer,
    sender: str,
    to: str,
    body: str,
    *,
    subject: str = "ход",
    reply_to: Received | None = None,
) -> str:
    """Send a player's plain-text mail by SMTP; returns its Message-ID.

    ``reply_to``: the mail answered (Subject ``Re: …``, In-Reply-To and References).
    """
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message_id = make_msgid(domain="example.test")
    message["Message-ID"] = message_id
    message["Date"] = format_datetime(datetime.now(UTC))
    if reply_to is None:
        message["Subject"] = subject
    else:
        parent = reply_to.header("Message-ID")
        assert parent is not None
        message["Subject"] = f"Re: {reply_to.subject}"
        message["In-Reply-To"] = parent
        message["References"] = " ".join([*(reply_to.header("References") or "").split(), parent])
    message.set_content(body)
    with smtplib.SMTP(smtp.host, smtp.port, timeout=10) as client:
        client.send_message(message)
    return message_id


def wait_for(
    predicate: Callable[[], bool], timeout: float, explain: Callable[[], str] = lambda: ""
) -> None:
    """Poll ``predicate`` every 0.1 s for up to ``timeout`` seconds.

    :raises AssertionError: it never held; the message is ``explain()`` (e.g. the log).
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s\n{explain()}")
        time.sleep(0.1)


class DaemonProcess:
    """``python -m pbp -c CONFIG run`` in a subprocess (cwd: the config's directory).

    ``env`` is added to the environment (with ``PYTHONPATH`` = the checkout);
    stdout and stderr go to ``daemon.log`` beside the config, read by :meth:`output`.
    """

    def __init__(self, config: Path, env: Mapping[str, str]) -> None:
        self.log_path = config.parent / "daemon.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pbp", "-c", str(config), "run"],
                cwd=config.parent,
                env={**os.environ, **env, "PYTHONPATH": str(REPO)},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def output(self) -> str:
        """What the daemon printed so far (its log)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait; returns the exit status (a kill after ``timeout`` s: -9)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return -9
