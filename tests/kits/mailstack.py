"""A real mail stack for tests: Dovecot (IMAP) and an aiosmtpd SMTP server delivering into it.

* :class:`Dovecot` runs ``dovecot -F -c CONF`` with everything (config, sockets,
  state, logs, mail) in its own temp dir, listening on 127.0.0.1 and a free
  port. Users come from a passwd-file (``{PLAIN}`` passwords); a master user
  (RFC-free Dovecot feature: log in as ``user*master``) lets :meth:`Dovecot.append`
  put a message into any user's mailbox. Works as root (mail is then owned by
  ``nobody``, since Dovecot refuses mail access as root) and as an ordinary user.
* :class:`SmtpServer` is an aiosmtpd server in a background thread that delivers
  every accepted message into each recipient's Dovecot INBOX, after stripping a
  ``+tag`` from the local part (as an MTA's ``recipient_delimiter`` does) and
  prepending ``Delivered-To: <original recipient>``.

See ../../shared/MAILSTACK.md for the facts this relies on.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from imapclient import IMAPClient

__all__ = [
    "Delivery",
    "Dovecot",
    "DovecotMissingError",
    "SmtpServer",
    "StoredMessage",
    "find_dovecot",
]

MASTER_USER = "pbpmaster"
MASTER_PASSWORD = "master-secret"
INSTALL_HINT = "apt-get install -y --no-install-recommends dovecot-imapd"


class DovecotMissingError(RuntimeError):
    """The ``dovecot`` binary is not installed."""


def find_dovecot() -> str:
    """Path of the ``dovecot`` binary (PATH, then /usr/sbin and /usr/local/sbin).

    :raises DovecotMissingError: not installed.
    """
    found = shutil.which("dovecot") or shutil.which(
        "dovecot", path="/usr/sbin:/usr/local/sbin:/sbin"
    )
    if found is None:
        raise DovecotMissingError(
            f"dovecot is not installed; the mail tests need it: {INSTALL_HINT}"
        )
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _live_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are not yet dead (zombies count as dead)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ...": comm may contain spaces, so split after ")".
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            alive.append(int(entry))
    return alive


@dataclass(frozen=True)
class StoredMessage:
    """One message in a Dovecot mailbox: UID, flags, INTERNALDATE (UTC) and bytes."""

    uid: int
    flags: tuple[str, ...]
    internaldate: datetime
    raw: bytes


class Dovecot:
    """A private Dovecot IMAP server on 127.0.0.1.

    Example::

        dovecot = Dovecot()
        dovecot.start()
        dovecot.add_user("gm@example.test", "secret")
        uid = dovecot.append("gm@example.test", b"Subject: hi\\r\\n\\r\\nSTATUS\\r\\n")
        ...  # ImapInbox("127.0.0.1", dovecot.port, "gm@example.test", "secret")
        dovecot.close()   # stop and remove the temp dir

    :meth:`stop` then :meth:`start` restarts it on the same dir and port with the
    same mailboxes.
    """

    def __init__(
        self, directory: Path | None = None, port: int | None = None, extra_config: str = ""
    ) -> None:
        """Prepare (not start) a server in ``directory`` (default: a new temp dir).

        :param extra_config: Dovecot settings appended to the config, e.g.
            ``"imap_capability = IMAP4rev1 UIDPLUS"`` (a server without IDLE).
        :raises DovecotMissingError: Dovecot is not installed.
        """
        self.extra_config = extra_config
        self.binary = find_dovecot()
        self.dir = Path(directory or tempfile.mkdtemp(prefix="pbp-dovecot-"))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.users: dict[str, str] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._connections: dict[str, IMAPClient] = {}
        self._lock = threading.RLock()
        self.config_path = self.dir / "dovecot.conf"
        self._write_config()

    # -- configuration ----------------------------------------------------

    def _write_config(self) -> None:
        d = self.dir
        for sub in ("run", "state", "mail"):
            (d / sub).mkdir(exist_ok=True)
        (d / "users").touch()
        (d / "masters").write_text(f"{MASTER_USER}:{{PLAIN}}{MASTER_PASSWORD}\n")
        if os.geteuid() == 0:
            mail_user, mail_group = "nobody", grp.getgrgid(pwd.getpwnam("nobody").pw_gid).gr_name
            internal_user, login_user, internal_group = "dovecot", "dovenull", "dovecot"
            os.chmod(d, 0o755)
            nobody = pwd.getpwnam(mail_user)
            os.chown(d / "mail", nobody.pw_uid, nobody.pw_gid)
            chroot = ""
        else:
            mail_user = pwd.getpwuid(os.getuid()).pw_name
            mail_group = grp.getgrgid(os.getgid()).gr_name
            internal_user = login_user = mail_user
            internal_group = mail_group
            chroot = "  chroot =\n"
        for name in ("users", "masters"):
            os.chmod(d / name, 0o644)
        self.config_path.write_text(
            f"""\
instance_name = pbp-test-{uuid.uuid4().hex[:12]}
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
info_log_path = {d}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{d}/mail/%u
mail_uid = {mail_user}
mail_gid = {mail_group}
first_valid_uid = 0
first_valid_gid = 0
default_internal_user = {internal_user}
default_internal_group = {internal_group}
default_login_user = {login_user}
mail_fsync = never
# A refused login is answered at once, not after 2 s and more (auth_failure_delay, and
# anvil's penalty below): the tests of a wrong password wait for nothing.
auth_failure_delay = 0
auth_master_user_separator = *
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/masters
  master = yes
  pass = yes
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {d}/users
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
{chroot}}}
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
{chroot}}}
{self.extra_config}
"""
        )

    # -- process ----------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = 10.0) -> None:
        """Start Dovecot and return once it accepts IMAP connections.

        :raises RuntimeError: it exited or did not listen within ``timeout`` seconds
            (the message quotes its log).
        """
        if self.running:
            return
        output = self.dir / "dovecot.out"
        with open(output, "ab") as out:  # a file, not a pipe nobody reads: it cannot fill up
            self._process = subprocess.Popen(
                [self.binary, "-F", "-c", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() kills master and children
            )
        deadline = time.monotonic() + timeout
        while True:
            if self._process.poll() is not None:
                self._process = None
                raise RuntimeError(
                    f"dovecot exited at start: {output.read_text(errors='replace')}\n{self.log()}"
                )
            try:
                with socket.create_connection((self.host, self.port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"dovecot did not listen on {self.port} in {timeout} s\n{self.log()}"
                    ) from None
                time.sleep(0.005)

    def stop(self, timeout: float = 10.0) -> None:
        """Kill Dovecot (SIGKILL to its whole process group) and wait until every one
        of its processes is gone, so that :meth:`start` may run again on the same dir.

        A clean SIGTERM shutdown takes Dovecot about a second; a kill takes
        milliseconds and is what a crash or an OOM kill looks like to a client.

        :raises RuntimeError: some process survived ``timeout`` seconds.
        """
        self._close_connections()
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout)
        deadline = time.monotonic() + timeout
        while _live_members(process.pid):
            if time.monotonic() > deadline:
                raise RuntimeError(f"dovecot processes {_live_members(process.pid)} survived")
            time.sleep(0.002)

    def close(self) -> None:
        """Stop and remove the temp dir."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def log(self) -> str:
        """Dovecot's own log so far ("" when none)."""
        try:
            return (self.dir / "dovecot.log").read_text(errors="replace")
        except FileNotFoundError:
            return ""

    # -- users and mail ---------------------------------------------------

    def add_user(self, address: str, password: str) -> None:
        """Add an IMAP user, e.g. ``add_user("gm@example.test", "secret")``; works while running.

        :raises ValueError: the address contains ``:`` or a newline, or exists already.
        """
        if re.search(r"[:\s*]", address) or "\n" in password or ":" in password:
            raise ValueError(f"unusable user {address!r} / password")
        if address in self.users:
            raise ValueError(f"user {address!r} exists already")
        self.users[address] = password
        with open(self.dir / "users", "a") as f:
            f.write(f"{address}:{{PLAIN}}{password}::::::\n")

    @contextlib.contextmanager
    def master_login(self, address: str) -> Iterator[IMAPClient]:
        """A connection logged in as ``address`` through the master user (kept and reused)."""
        with self._lock:
            client = self._connections.get(address)
            if client is None:
                client = IMAPClient(self.host, self.port, ssl=False, timeout=10)
                client.normalise_times = False
                client.login(f"{address}*{MASTER_USER}", MASTER_PASSWORD)
                self._connections[address] = client
            try:
                yield client
            except BaseException:
                self._connections.pop(address, None)
                with contextlib.suppress(Exception):
                    client.shutdown()
                raise

    def append(
        self,
        address: str,
        raw: bytes,
        flags: Sequence[str] = (),
        when: datetime | None = None,
        folder: str = "INBOX",
    ) -> int:
        """APPEND ``raw`` into ``address``'s ``folder`` and return its UID.

        :param flags: e.g. ``("\\\\Seen", "$PbpDone")``.
        :param when: INTERNALDATE (timezone-aware); default now.
        """
        with self.master_login(address) as client:
            response = client.append(folder, raw, flags=tuple(flags), msg_time=when)
        match = re.search(rb"APPENDUID \d+ (\d+)", response)
        if match is None:
            raise RuntimeError(f"no APPENDUID in {response!r}")
        return int(match.group(1))

    def messages(self, address: str, folder: str = "INBOX") -> list[StoredMessage]:
        """Every message in ``address``'s ``folder`` by UID, read without setting ``\\Seen``."""
        with self.master_login(address) as client:
            client.select_folder(folder, readonly=True)
            uids = client.search(["ALL"])
            data: dict[int, dict[bytes, Any]] = (
                client.fetch(uids, ["FLAGS", "INTERNALDATE", "BODY.PEEK[]"]) if uids else {}
            )
            client.unselect_folder()
        return [
            StoredMessage(
                uid=uid,
                flags=tuple(f.decode() if isinstance(f, bytes) else f for f in d[b"FLAGS"]),
                internaldate=d[b"INTERNALDATE"].astimezone(UTC),
                raw=bytes(d[b"BODY[]"]),
            )
            for uid, d in sorted(data.items())
        ]

    def _close_connections(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, {}
        for client in connections.values():
            with contextlib.suppress(Exception):
                client.logout()

    def __enter__(self) -> Dovecot:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class Delivery:
    """One message accepted by :class:`SmtpServer`: envelope and bytes as received."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    content: bytes
    #: ``time.monotonic()`` when the server accepted it (its reply to DATA).
    accepted_at: float = 0.0


def mailbox_of(recipient: str) -> str:
    """``"gm+tok@example.test"`` -> ``"gm@example.test"`` (``+`` is the recipient delimiter)."""
    local, at, domain = recipient.rpartition("@")
    if not at:
        return recipient
    return f"{local.split('+', 1)[0]}@{domain}"


class _Handler:
    """aiosmtpd handler: refuse listed or unknown recipients, deliver the rest into Dovecot."""

    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    async def handle_EHLO(
        self, server: Any, session: Any, envelope: Any, hostname: str, responses: list[str]
    ) -> list[str]:
        """aiosmtpd's own EHLO answer, with ``PIPELINING`` (RFC 2920) among the keywords
        when the server offers it: aiosmtpd reads the commands of a session in order
        whether or not they came ahead of its replies, but does not say so itself."""
        session.host_name = hostname
        if self.server.pipelining:
            return [*responses[:-1], "250-PIPELINING", responses[-1]]
        return responses

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        refused = self.server.refused.get(address.lower())
        if refused is not None:
            return refused
        if self.server.deliver and mailbox_of(address) not in self.server.dovecot.users:
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        content: bytes = envelope.original_content
        if self.server.deliver:
            for rcpt in envelope.rcpt_tos:
                self.server.dovecot.append(
                    mailbox_of(rcpt), b"Delivered-To: " + rcpt.encode() + b"\r\n" + content
                )
        with self.server.lock:
            self.server.deliveries.append(
                Delivery(envelope.mail_from, tuple(envelope.rcpt_tos), content, time.monotonic())
            )
        return "250 2.0.0 OK: delivered"


class SmtpServer:
    """An SMTP server on 127.0.0.1 that delivers into :class:`Dovecot` mailboxes.

    Recipients must be Dovecot users (after ``+tag`` stripping), else 550.
    ``deliveries`` lists every accepted message. With ``deliver=False`` it is a
    sink (the benchmarks' transport limit): every recipient is accepted and the
    messages are only kept in ``deliveries``. It offers PIPELINING (RFC 2920) unless
    ``pipelining=False``, and SMTPUTF8 (RFC 6531: addresses in UTF-8; aiosmtpd's
    ``Controller`` offers it by default) unless ``smtputf8=False``. Example::

        smtp = SmtpServer(dovecot)
        smtp.start()
        smtp.refuse("gone@example.test")   # 550 5.1.1 at RCPT
        ...  # SmtpTransport("127.0.0.1", smtp.port)
        smtp.stop()
    """

    def __init__(
        self,
        dovecot: Dovecot,
        port: int | None = None,
        *,
        deliver: bool = True,
        pipelining: bool = True,
        smtputf8: bool = True,
    ) -> None:
        self.dovecot = dovecot
        self.deliver = deliver
        self.pipelining = pipelining
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.deliveries: list[Delivery] = []
        self.refused: dict[str, str] = {}
        self.lock = threading.Lock()
        self._controller = Controller(
            _Handler(self),
            hostname=self.host,
            port=self.port,
            ready_timeout=10,
            enable_SMTPUTF8=smtputf8,
        )

    def refuse(self, address: str, reply: str = "550 5.1.1 User unknown") -> None:
        """Answer ``reply`` to ``RCPT TO:<address>`` from now on."""
        self.refused[address.lower()] = reply

    def start(self) -> None:
        """Start the server thread (with SIGTERM and SIGINT blocked in it)."""
        blocked = {signal.SIGTERM, signal.SIGINT}
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        try:
            self._controller.start()  # the thread inherits the blocked mask
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    def stop(self) -> None:
        """Stop the server thread (safe to call twice)."""
        with contextlib.suppress(AssertionError):  # aiosmtpd: "SMTP daemon not running"
            self._controller.stop()
