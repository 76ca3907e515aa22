"""A real ``pbp run`` fed hostile mail, each followed at once by a player's STATUS: what
each costs. Shared by the tests, which assert its CPU seconds, and
``benchmarks/daemon_waits.py``, which prints its wall-clock wait (issue 35, item 7:
no test depends on the machine's speed).

* :class:`Cost` — one STATUS after one hostile mail: ``wait`` (wall seconds from the
  STATUS's delivery to its answer) and ``cpu`` (CPU seconds of the daemon and its
  children, :func:`kits.cputime.tree_cpu_seconds`, from the hostile mail's delivery
  until both mails are handled and the STATUS answered).
* :class:`MaildirRun` and :data:`BODY_SHAPES` — seed 000 on Maildir (issue 12): hostile
  bodies, Кросс's STATUS after each.
* :class:`ImapRun` and :data:`HEADER_SHAPES` — the three games of tests/kits/crash.py on
  Dovecot (issue 32): hostile header sections, Оля's STATUS after each.

Example::

    run = MaildirRun(tmp_path)
    try:
        run.start()
        costs = {name: run.status_after(name) for name in BODY_SHAPES}
    finally:
        assert run.stop() == 0
"""

from __future__ import annotations

import email
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

from pbp.mail.maildir import deliver, read_maildir

from .cputime import tree_cpu_seconds
from .crash import DAEMON, ENV, add_users, address, games_yaml, settled, tokens
from .daemon import DaemonProcess
from .mailstack import Dovecot
from .table import write_config
from .wait import wait_for

MB = 1_000_000
#: Seconds: only a guard against a daemon that hangs, never a figure.
HANG = 60.0
#: How often an answer is looked for, seconds (the resolution of ``Cost.wait``).
EVERY = 0.05


@dataclass(frozen=True)
class Cost:
    """What one STATUS after one hostile mail cost the daemon."""

    #: Wall seconds from the STATUS's delivery to its answer (the benchmark's figure;
    #: it grows with the machine's load).
    wait: float
    #: CPU seconds of the daemon and its children from the hostile mail's delivery
    #: until both mails are handled and the STATUS answered (the tests' figure).
    cpu: float


def _handled(store: Path) -> int:
    """How many mails the daemon has handled (rows of the store's ``messages``)."""
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)) as db:
        (count,) = db.execute("SELECT count(*) FROM messages").fetchone()
    return int(count)


def _cost(
    daemon: DaemonProcess,
    mails: Callable[[], None],
    answered: Callable[[], bool],
    done: Callable[[], bool],
    what: str,
) -> Cost:
    """:class:`Cost` of ``mails()`` (delivers the hostile mail, if any, then the STATUS),
    ``answered()`` telling when the STATUS is answered, ``done()`` when all is handled.

    :raises AssertionError: not answered and done within :data:`HANG` s (with the log).
    """
    cpu = tree_cpu_seconds(daemon.process.pid)
    mails()
    sent = time.monotonic()
    wait: float | None = None
    while wait is None or not done():
        if wait is None and answered():
            wait = time.monotonic() - sent
            continue
        if time.monotonic() - sent > HANG:
            raise AssertionError(f"no answer after {what} within {HANG} s\n{daemon.output()}")
        time.sleep(EVERY)
    return Cost(wait, tree_cpu_seconds(daemon.process.pid) - cpu)


# --- hostile bodies on Maildir (issue 12) ---------------------------------------------


def plain(sender: str, to: str, text: str, subtype: str = "plain") -> bytes:
    """A one-part mail from ``sender`` to ``to`` holding ``text``."""
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "hi"
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content(text, subtype=subtype)
    return bytes(message)


def nested_rfc822(sender: str, to: str, depth: int) -> bytes:
    """A mail of ``depth`` ``message/rfc822`` parts, each inside the one before."""
    inner = b"From: x@example.test\r\nSubject: x\r\n\r\nVOTE x\r\n"
    for _ in range(depth):
        inner = b"Content-Type: message/rfc822\r\n\r\n" + inner
    head = f"From: {sender}\r\nTo: {to}\r\nSubject: deep\r\nMIME-Version: 1.0\r\n"
    return head.encode() + inner


#: name -> (sender is a player?, the mail from that sender to that address)
BODY_SHAPES: dict[str, tuple[bool, Callable[[str, str], bytes]]] = {
    "blank lines": (True, lambda s, t: plain(s, t, "СТАТУС" + "\n" * (MB // 2))),
    "space lines": (True, lambda s, t: plain(s, t, " \n" * (MB // 2))),
    "br runs": (True, lambda s, t: plain(s, t, "<p>x" + "<br>" * (MB // 4), "html")),
    "nested div": (True, lambda s, t: plain(s, t, "<div>" * (MB // 5), "html")),
    "quote tags": (True, lambda s, t: plain(s, t, "[quote=" * (MB // 7))),
    "nested rfc822": (True, lambda s, t: nested_rfc822(s, t, 1000)),
    "stranger's blank lines": (False, lambda s, t: plain(s, t, "\n" * (MB // 2))),
    "stranger's 20 MB": (False, lambda s, t: plain(s, t, "spam " * (4 * MB))),
}


class MaildirRun:
    """Seed 000 (players Кросс, Дуг, Роза) under ``pbp run`` on a Maildir inbox and
    outbox in ``directory``; a hostile mail of :data:`BODY_SHAPES` from Дуг (a player's
    shape, to his personal address) or from a stranger (to the bare address), then
    Кросс's STATUS."""

    def __init__(self, directory: Path) -> None:
        self.config = write_config(directory, start=None)
        self.inbox = directory / "mail" / "inbox"
        self.outbox = directory / "mail" / "outbox"
        self.store = directory / "pbp.sqlite3"
        self.daemon = DaemonProcess(self.config)
        self.cross = self.doug = ""

    def to(self, address: str) -> list[EmailMessage]:
        """The mail the daemon sent to ``address`` so far."""
        return [m for m in read_maildir(self.outbox) if str(m["To"]) == address]

    def start(self) -> None:
        """Wait for the game's start (Кросс's and Дуг's mail, their personal addresses);
        then one STATUS of Кросс answered: the first mail read starts the reader child
        (its forkserver and imports, some 0.8 CPU s), the work of no hostile mail."""
        wait_for(
            lambda: bool(self.to("cross@example.test") and self.to("doug@example.test")),
            HANG,
            lambda: "the game did not start\n" + self.daemon.output(),
        )
        self.cross = str(self.to("cross@example.test")[0]["Reply-To"])
        self.doug = str(self.to("doug@example.test")[0]["Reply-To"])
        self._status(None, "the first STATUS")

    def status_after(self, name: str) -> Cost:
        """Deliver shape ``name`` of :data:`BODY_SHAPES`, then Кросс's STATUS: its cost."""
        player, shape = BODY_SHAPES[name]
        sender = "doug@example.test" if player else "spam@elsewhere.test"
        return self._status(shape(sender, self.doug if player else "gm@example.test"), name)

    def _status(self, hostile: bytes | None, what: str) -> Cost:
        status = plain("cross@example.test", self.cross, "СТАТУС")
        answers = len(self.to("cross@example.test"))
        handled = _handled(self.store) + (1 if hostile is None else 2)

        def mails() -> None:
            if hostile is not None:
                deliver(self.inbox, hostile)
            deliver(self.inbox, status)

        return _cost(
            self.daemon,
            mails,
            lambda: len(self.to("cross@example.test")) > answers,
            lambda: _handled(self.store) == handled,
            what,
        )

    def stop(self) -> int:
        """SIGTERM; the daemon's exit status."""
        return self.daemon.stop()


# --- hostile header sections on Dovecot (issue 32) ------------------------------------

TRUSTED = "mx.example.test"
#: What the trusted server writes of a mail that passed.
PASSED = f"Authentication-Results: {TRUSTED}; dmarc=pass header.from=example.test\r\n"
#: A result that costs the verdict's parser most per byte (before issue 32 some 13 ms a
#: field of 4,000 characters) and passes nothing, whatever the trust rules.
NEUTRAL = "dkim=neutral header.d=elsewhere.test; "
#: Seconds left to the daemon, after an answer, to be back in IMAP IDLE.
IDLE_SETTLES = 1.0


def field(length: int) -> bytes:
    """One ``Authentication-Results`` field of the trusted id, ``length`` bytes long
    (CRLF included), within the parser's :data:`pbp.mail.read.auth.FIELD_LIMIT`."""
    start = f"Authentication-Results: {TRUSTED}; "
    value = (start + NEUTRAL * (length // len(NEUTRAL) + 1))[: length - 2]
    return value.encode() + b"\r\n"


def header_mail(sender: str, to: str, fields: bytes, message_id: str | None = None) -> bytes:
    """From, To, Subject, Message-ID (default a new one), then ``fields``, then STATUS."""
    message_id = message_id or make_msgid(domain="example.test")
    head = (
        f"From: {sender}\r\nTo: {to}\r\nSubject: ход\r\nMessage-ID: {message_id}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
    ).encode()
    return head + fields + "\r\nСТАТУС\r\n".encode()


#: name -> the hostile mail, for the seats' tokens (``tokens``)
HEADER_SHAPES: dict[str, Callable[[dict[tuple[str, str], str]], bytes]] = {
    # A stranger, under a registered player's From, at the bare address: 2.1 MB.
    "stranger's 1,500 fields": lambda seats: header_mail(
        address("mn-1", "Петя"), DAEMON, field(1400) * 1500, "<h-1@example.test>"
    ),
    # A player's own mail to his personal address, within the size limit: 1.9 MB.
    "player's 460 fields": lambda seats: header_mail(
        address("mn-1", "Вася"),
        f"gm+{seats[('mn-1', 'Вася')]}@example.test",
        field(4000) * 460,
        "<h-2@example.test>",
    ),
    # 25,000 tiny fields (1.98 MB) from a player to her personal address.
    "25,000 tiny fields": lambda seats: header_mail(
        address("mn-1", "Таня"),
        f"gm+{seats[('mn-1', 'Таня')]}@example.test",
        field(79) * 25_000,
        "<h-3@example.test>",
    ),
}


def answered(dovecot: Dovecot, mailbox: str, message_id: str) -> bool:
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


class ImapRun:
    """The three games of tests/kits/crash.py under ``pbp run`` on ``dovecot`` (IMAP
    IDLE) and the SMTP server at ``smtp_port``, with ``mail.trusted_authserv_id`` set;
    a hostile mail of :data:`HEADER_SHAPES` (built for the seats by :meth:`start`, in
    :attr:`hostile`), then Оля's STATUS (authenticated)."""

    def __init__(self, dovecot: Dovecot, smtp_port: int, directory: Path) -> None:
        add_users(dovecot)
        self.dovecot = dovecot
        self.config = directory / "games.yaml"
        self.config.write_text(
            games_yaml(dovecot.port, smtp_port, datetime.now(UTC), trusted=TRUSTED),
            encoding="utf-8",
        )
        self.store = directory / "pbp.sqlite3"
        self.olya = address("mn-1", "Оля")
        self.daemon = DaemonProcess(self.config, ENV)
        self.seats: dict[tuple[str, str], str] = {}
        self.hostile: dict[str, bytes] = {}

    def start(self) -> None:
        """Wait for the daemon to serve, the seats' tokens and the games' start mail
        sent (not the work of a STATUS); build :attr:`hostile`."""
        self.daemon.wait_running()
        wait_for(lambda: _tokens_ready(self.store), HANG, self.daemon.output)
        self.seats = tokens(self.store)
        wait_for(lambda: settled(self.store, 0), HANG, self.daemon.output)
        self.hostile = {name: shape(self.seats) for name, shape in HEADER_SHAPES.items()}

    def status_after(self, name: str | None) -> Cost:
        """Append shape ``name`` of :attr:`hostile` (None: nothing), then Оля's STATUS:
        its cost, until both are handled, the STATUS answered and the outbox sent."""
        # Dovecot 2.3 may miss mail delivered just as IDLE starts (then announced only
        # when pbp's IDLE ends, 10 s later): the daemon is let settle into it.
        time.sleep(IDLE_SETTLES)
        hostile = None if name is None else self.hostile[name]
        to = f"gm+{self.seats[('mn-1', 'Оля')]}@example.test"
        status = header_mail(self.olya, to, PASSED.encode())
        message_id = str(email.message_from_bytes(status)["Message-ID"])
        expected = _handled(self.store) + (1 if hostile is None else 2)

        def mails() -> None:
            if hostile is not None:
                self.dovecot.append(DAEMON, hostile)
            self.dovecot.append(DAEMON, status)

        return _cost(
            self.daemon,
            mails,
            lambda: answered(self.dovecot, self.olya, message_id),
            lambda: settled(self.store, expected),
            name or "a STATUS alone",
        )

    def stop(self) -> int:
        """SIGTERM; the daemon's exit status."""
        return self.daemon.stop()
