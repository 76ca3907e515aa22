"""Helpers for the whole-game tests through the real mail stack with a real ``pbp run``.

* :func:`mailbox` reads a Dovecot mailbox over IMAP (through the master user of
  tests/kits/mailstack.py, without setting ``\\Seen``) into :class:`Received` messages.
* :func:`send` is a player's mail client: a plain-text mail by SMTP, optionally a
  reply (RFC 5322 §3.6.4 threading).
* :func:`subjects` lists the Subjects of a mailbox; :func:`as_delivered` compares them with
  a list where mails delivered together in no fixed order are an :func:`any_order`.
* :class:`Mailboxes` waits for a mail in a mailbox and explains a timeout with every
  mailbox the test reads and the daemon's log.

The daemon beside them is :class:`kits.daemon.DaemonProcess`; waiting is
:func:`kits.wait.wait_for`.

Example::

    daemon = DaemonProcess(config_path, env={"PBP_IMAP_PASSWORD": "secret"})
    wait_for(lambda: len(mailbox(dovecot, "cross@example.test")) == 2, 20, daemon.output)
    send(smtp, "cross@example.test", personal, "ОБВИНЕНИЕ Маша, Топор, Столовая")
    assert daemon.stop() == 0
"""

from __future__ import annotations

import email
import smtplib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime, make_msgid, parsedate_to_datetime

from .mailstack import Dovecot, SmtpServer
from .wait import wait_for

__all__ = [
    "AnyOrder",
    "Mailboxes",
    "Received",
    "any_order",
    "as_delivered",
    "mailbox",
    "send",
    "subjects",
]


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


class AnyOrder(tuple[str, ...]):
    """Subjects of mails delivered together in no fixed order: what a lever queued from
    the command line and the answers of the daemon's next round, sent side by side. Built
    by :func:`any_order`; compared by :func:`as_delivered`."""


def any_order(*found: str) -> AnyOrder:
    """``any_order(GAME_OVER, AFTER_END)``: these Subjects, delivered in either order."""
    return AnyOrder(found)


def as_delivered(got: Sequence[str], expected: Sequence[str | AnyOrder]) -> list[str | AnyOrder]:
    """``got`` (Subjects in delivery order, from :func:`subjects`) cut as ``expected`` is:
    each :class:`AnyOrder` of ``expected`` takes as many Subjects of ``got``, given back as
    that AnyOrder when they are the same ones in any order (as they are delivered
    otherwise). So ``as_delivered(got, expected) == expected`` holds exactly when ``got``
    is ``expected`` with each AnyOrder's Subjects in some order, and pytest's diff shows
    where they differ.

    >>> as_delivered(["a", "c", "b"], ["a", any_order("b", "c")])
    ['a', ('b', 'c')]
    >>> as_delivered(["a", "c", "d"], ["a", any_order("b", "c")])
    ['a', ('c', 'd')]
    """
    cut: list[str | AnyOrder] = []
    at = 0
    for item in expected:
        if isinstance(item, AnyOrder):
            part = list(got[at : at + len(item)])
            cut.append(item if sorted(part) == sorted(item) else AnyOrder(part))
            at += len(item)
        elif at < len(got):
            cut.append(got[at])
            at += 1
    return cut + list(got[at:])


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


@dataclass
class Mailboxes:
    """The mailboxes a test reads (``addresses``) on ``dovecot``; ``log``: the daemon's
    log so far (a :meth:`kits.daemon.DaemonProcess.output`; set anew when another daemon
    serves), shown when a wait times out. Example::

        table = Mailboxes(dovecot, ("gm-person@example.test", "kolya@example.test"))
        table.log = daemon.output
        welcome = table.one("kolya@example.test", "[maniac-e2e] Маньяк: ваша роль")
    """

    dovecot: Dovecot
    addresses: Sequence[str]
    log: Callable[[], str] = lambda: ""

    def until(self, address: str, subject: str, timeout: float = 15.0) -> list[Received]:
        """``address``'s whole mailbox once a mail with ``subject`` is in it.

        :raises AssertionError: not within ``timeout`` s (with every mailbox and the log).
        """
        found: list[Received] = []

        def arrived() -> bool:
            nonlocal found
            found = mailbox(self.dovecot, address)
            return any(mail.subject == subject for mail in found)

        wait_for(arrived, timeout, lambda: self.explain(f"{address}: waiting for {subject!r}"))
        return found

    def one(self, address: str, subject: str, timeout: float = 15.0) -> Received:
        """The only mail with ``subject`` in ``address``'s mailbox, once it is there.

        :raises AssertionError: not within ``timeout`` s, or there are several.
        """
        box = self.until(address, subject, timeout)
        (mail,) = [m for m in box if m.subject == subject]
        return mail

    def explain(self, what: str) -> str:
        """``what``, the Subjects of every mailbox and the daemon's log."""
        lines = [what]
        for address in self.addresses:
            lines.append(f"{address}: {subjects(self.dovecot, address)}")
        return "\n".join([*lines, "--- daemon log:", self.log()])
