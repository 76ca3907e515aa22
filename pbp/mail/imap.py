"""IMAP inbox (RFC 3501) with IDLE (RFC 2177), through imapclient.

Which messages are new is decided by a keyword flag, never by ``\\Seen`` and
never by a remembered UID: a message is new while it lacks the keyword
(``$PbpDone`` by default), and :meth:`ImapInbox.mark_done` sets it once the
service has committed the message's result. The keyword stays with the message
even when the server changes UIDVALIDITY (RFC 3501 §2.3.1.1), so nothing is
processed twice because of renumbering, and the GM may read the same mailbox in
a mail client.

Connection failures (socket errors, imapclient's abort errors, ``BYE``) drop the
connection; the next call connects again. :meth:`ImapInbox.fetch_new` and
:meth:`ImapInbox.mark_done` (both idempotent) retry once on a fresh connection
before giving up.
"""

from __future__ import annotations

import logging
import ssl
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientAbortError, IMAPClientError, LoginError

from pbp.mail.base import DEFAULT_MAX_MESSAGE_SIZE, RawMessage, WaitClock, network_fault
from pbp.mail.imapconnection import (
    CONNECTION_ERRORS,
    open_client,
    quietly_logout,
    quietly_shut_down,
    said,
    text,
)
from pbp.mail.imapfetch import FETCH_BATCH, fetch_messages

__all__ = ["ImapInbox", "KeywordNotSupportedError"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

IDLE_RESTART_SECONDS = 25 * 60
"""RFC 2177 §3: a client should re-issue IDLE at least every 29 minutes; we use 25."""

DONE_KEYWORD = "$PbpDone"
"""Set on a message once the service committed its result (:meth:`ImapInbox.mark_done`)."""

CHECK_KEYWORD = "$PbpCheck"
"""Set, with the done keyword, on the test mail of ``pbp check --connect``: no history."""

KEPT_KEYWORD = "$PbpKept"
"""Set on a message once :meth:`ImapInbox.keep` copied it to the kept folder."""


class KeywordNotSupportedError(Exception):
    """The folder cannot store the done keyword (its PERMANENTFLAGS lack both the
    keyword and ``\\*``, RFC 3501 §7.1): choose another folder or server."""


class ImapInbox:
    """An :class:`~pbp.mail.base.Inbox` on one folder of an IMAP server.

    :param host: server name or address, e.g. ``"imap.example.test"``.
    :param port: TCP port, e.g. 143 (``tls="none"``/``"starttls"``) or 993 (``"ssl"``).
    :param folder: the folder read, ``"INBOX"`` by default; selected read-write.
    :param tls: ``"none"`` (plain text, loopback only), ``"starttls"`` (RFC 3501
        §6.2.1, certificate verified) or ``"ssl"`` (implicit TLS, verified).
    :param done_keyword: the keyword that marks a processed message.
    :param timeout: socket timeout in seconds for every command.
    :param kept_folder: where :meth:`keep` copies messages set aside for the GM
        (created when missing).
    :param max_message_size: bytes (``RFC822.SIZE``); of a larger message only the
        header section is fetched (``truncated=True``, see
        :class:`~pbp.mail.base.RawMessage`), and of any message at most
        :data:`~pbp.mail.base.HEADER_BYTES` of its header section.
    :param clock: what :meth:`wait` measures its ``timeout`` on and sleeps with
        (:class:`~pbp.mail.base.WaitClock`; the :mod:`time` module by default). An
        IDLE is the server's wait: it lasts, on the socket, what is left of the
        timeout on this clock.

    Example::

        inbox = ImapInbox("127.0.0.1", 10143, "gm@example.test", "secret")
        inbox.fetch_new()   # [RawMessage(key="1", uidvalidity=1764600000,
                            #   arrived=datetime(2026, 12, 1, 17, 0, tzinfo=UTC), raw=b"...",
                            #   size=1432)]
        inbox.mark_done(["1"])
    """

    def __init__(
        self,
        host: str,
        port: int,
        username: str,
        password: str,
        folder: str = "INBOX",
        tls: Literal["none", "starttls", "ssl"] = "none",
        done_keyword: str = DONE_KEYWORD,
        timeout: float = 60.0,
        kept_folder: str = "pbp-kept",
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        *,
        clock: WaitClock = time,
    ) -> None:
        if tls not in ("none", "starttls", "ssl"):
            raise ValueError(f"tls must be 'none', 'starttls' or 'ssl', got {tls!r}")
        if max_message_size <= 0:
            raise ValueError(f"max_message_size must be > 0, got {max_message_size}")
        self.host = host
        self.port = port
        self.username = username
        self._password = password
        self.folder = folder
        self.tls = tls
        self.done_keyword = done_keyword
        self.timeout = timeout
        self.kept_folder = kept_folder
        self.max_message_size = max_message_size
        self.clock = clock
        self._client: IMAPClient | None = None
        self._waiter: ImapInbox | None = None
        self._has_idle = False
        self._uidvalidity: int | None = None
        self._fetched_uidvalidity: int | None = None
        self._known: set[int] = set()
        # (UIDVALIDITY, UID): every message below that UID was done at the last search.
        self._floor: tuple[int | None, int] = (None, 1)

    def _not_done(self, client: IMAPClient, uidvalidity: int | None) -> list[int]:
        """The UIDs without the done keyword, by ``UID SEARCH``; from the lowest one the
        last search found on (every message below it was done then, and UIDs only grow,
        RFC 3501 §2.3.1.1), so that a month of mail marked done is not searched again
        and again (issue 18). A new UIDVALIDITY searches the whole folder. (``n:*``
        also names the newest message when its UID is below ``n``, §6.4.8: it is then
        left out unless it is not done.)"""
        validity, floor = self._floor
        criteria: list[str] = ["NOT", "KEYWORD", self.done_keyword]
        if validity is not None and validity == uidvalidity and floor > 1:
            criteria = ["UID", f"{floor}:*", *criteria]
        uids = sorted(int(uid) for uid in client.search(criteria))
        if uids:
            self._floor = (uidvalidity, uids[0])
        elif validity != uidvalidity:
            self._floor = (uidvalidity, 1)
        return uids

    @property
    def uidvalidity(self) -> int | None:
        """UIDVALIDITY of the folder at the last SELECT, None before the first connection."""
        return self._uidvalidity

    def explain(self, error: BaseException) -> str | None:
        """``error`` raised by this inbox as one sentence naming the server, or None
        when it is no fault of the server or the network (a bug).

        Example: ``"IMAP imap.example.test:993 (gm@example.test): login refused
        (AUTHENTICATIONFAILED): check username and the password in password_env"``.
        """
        where = f"IMAP {self.host}:{self.port} ({self.username})"
        if isinstance(error, LoginError):
            reason = said(error) or "no reason given"
            return (
                f"{where}: login refused ({reason}): check username and the password in "
                "password_env (an app password where the provider wants one)"
            )
        if isinstance(error, KeywordNotSupportedError):
            return f"{where}: {error}: choose another folder or server"
        sentence = network_fault(error)
        if sentence is not None:
            return f"{where}: cannot connect: {sentence}"
        if isinstance(error, IMAPClientError):
            return f"{where}: the server refused a command ({said(error)})"
        return None

    # -- connection -------------------------------------------------------

    def _connect(self) -> IMAPClient:
        """The live connection, opened, logged in and with the folder selected.

        :raises OSError: the server cannot be reached.
        :raises imapclient.exceptions.LoginError: wrong user name or password.
        :raises KeywordNotSupportedError: see the class.
        """
        if self._client is not None:
            return self._client
        context = ssl.create_default_context() if self.tls != "none" else None
        client = open_client(self.host, self.port, self.tls == "ssl", context, self.timeout)
        try:
            client.normalise_times = False  # keep INTERNALDATE's zone: aware datetimes
            if self.tls == "starttls":
                client.starttls(context)
            client.login(self.username, self._password)
            selected = client.select_folder(self.folder, readonly=False)
            self._check_keyword(selected)
            self._has_idle = client.has_capability("IDLE")
            uidvalidity = int(selected[b"UIDVALIDITY"])
            if self._uidvalidity is not None and uidvalidity != self._uidvalidity:
                logger.warning(
                    "UIDVALIDITY of %s changed from %d to %d: UIDs renumbered",
                    self.folder,
                    self._uidvalidity,
                    uidvalidity,
                )
            self._uidvalidity = uidvalidity
            self._client = client  # from here on close() closes it
        except Exception:
            quietly_logout(client)
            raise
        except BaseException:
            # Cut short (a signal handler's exception, KeyboardInterrupt), perhaps in
            # the middle of a command: a LOGOUT might never be answered.
            quietly_shut_down(client)
            raise
        logger.info(
            "connected to %s:%d as %s, folder %s (UIDVALIDITY %d, IDLE %s)",
            self.host,
            self.port,
            self.username,
            self.folder,
            uidvalidity,
            "yes" if self._has_idle else "no",
        )
        return client

    def _check_keyword(self, selected: dict[bytes, Any]) -> None:
        permanent = selected.get(b"PERMANENTFLAGS")
        if permanent is None:
            return  # RFC 3501 §7.1: absent means all flags may be changed permanently
        names = {text(flag).lower() for flag in permanent}
        if "\\*" not in names and self.done_keyword.lower() not in names:
            raise KeywordNotSupportedError(
                f"folder {self.folder!r} on {self.host}:{self.port} cannot store the keyword "
                f"{self.done_keyword!r} (PERMANENTFLAGS {sorted(names)})"
            )

    def _drop(self, reason: BaseException) -> None:
        """Forget a broken connection (closing it without waiting for the server)."""
        client, self._client = self._client, None
        if client is None:  # the caller reports it (explain()): one line, not two
            logger.debug("cannot connect to IMAP %s:%d: %r", self.host, self.port, reason)
            return
        logger.warning(
            "IMAP connection to %s:%d lost (%s): connecting again",
            self.host,
            self.port,
            network_fault(reason) or said(reason),
        )
        try:
            client.shutdown()
        except Exception:
            logger.debug("shutdown of a broken IMAP connection failed", exc_info=True)

    def _with_retry(self, operation: Callable[[IMAPClient], T]) -> T:
        """Run ``operation`` on the connection. When a kept connection turns out to be
        broken, run it once more on a new one; a new connection that fails raises."""
        for attempt in (1, 2):
            reused = self._client is not None
            try:
                return operation(self._connect())
            except CONNECTION_ERRORS as exc:
                self._drop(exc)
                if not reused or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    # -- Inbox ------------------------------------------------------------

    def fetch_new(self) -> list[RawMessage]:
        """Every message of the folder without the done keyword, ordered by (arrived, UID).

        ``NOOP`` (so a kept connection sees the newest mail), ``UID SEARCH NOT
        KEYWORD <done_keyword>`` (from the lowest UID the last search found on:
        :meth:`_not_done`), then, in batches of 100, ``UID FETCH (RFC822.SIZE
        INTERNALDATE BODY.PEEK[]<0.n>)`` with ``n`` the smaller of
        :data:`~pbp.mail.imapfetch.FIRST_BYTES` and ``max_message_size``: a message of at most ``n``
        bytes is then whole. Of a larger one within ``max_message_size`` the whole
        is fetched next (``BODY.PEEK[]``); of one over the limit (``truncated``) only
        its header section, cut from those first bytes (or fetched as
        ``BODY.PEEK[HEADER]<0.65536>`` when it is longer): it is never downloaded
        whole. Nor is a header section over the bounds
        (:data:`~pbp.mail.base.HEADER_BYTES`, :data:`~pbp.mail.base.MAX_HEADER_FIELDS`),
        whatever the size: of it only its first 64 KB (``long_header``).
        ``.PEEK``: ``\\Seen`` is never set. ``key`` is the UID in decimal, ``arrived``
        the INTERNALDATE in UTC, ``size`` the RFC822.SIZE. A message expunged between
        SEARCH and FETCH is left out.

        :raises OSError: the server cannot be reached (after one reconnect), e.g.
            ``ConnectionRefusedError``.
        :raises imapclient.exceptions.IMAPClientAbortError: the new connection broke.
        :raises imapclient.exceptions.IMAPClientError: login failed or the server
            refused a command.
        :raises KeywordNotSupportedError: see the class.
        """
        messages = self._with_retry(self._fetch_new)
        self._known = {int(m.key) for m in messages}
        self._fetched_uidvalidity = self._uidvalidity
        return messages

    def _fetch_new(self, client: IMAPClient) -> list[RawMessage]:
        # A selected session sees mail delivered since its last command only after
        # a mailbox sync (RFC 3501 §6.1.2, §7.3.1: NOOP reports it as EXISTS).
        client.noop()
        uidvalidity = self._uidvalidity
        return fetch_messages(
            client, self._not_done(client, uidvalidity), uidvalidity, self.max_message_size
        )

    def fetch_done(self, since: datetime) -> list[RawMessage]:
        """Every message with the done keyword that arrived at or after ``since``,
        ordered by (arrived, UID): ``UID SEARCH KEYWORD <done_keyword> NOT KEYWORD
        $PbpCheck SINCE <the day before since's date>`` (SINCE compares dates only,
        RFC 3501 §6.4.4: a day earlier for any zone), then fetched as by
        :meth:`fetch_new` and those that arrived before ``since`` left out.

        :raises OSError: the server cannot be reached (after one reconnect).
        :raises imapclient.exceptions.IMAPClientError: login failed or a command was refused.
        """

        def done(client: IMAPClient) -> list[RawMessage]:
            client.noop()
            day = (since - timedelta(days=1)).date()
            criteria: list[object] = ["KEYWORD", self.done_keyword, "NOT", "KEYWORD", CHECK_KEYWORD]
            uids = sorted(int(uid) for uid in client.search([*criteria, "SINCE", day]))
            return fetch_messages(client, uids, self._uidvalidity, self.max_message_size)

        return [m for m in self._with_retry(done) if m.arrived >= since]

    def mark_done(self, keys: Sequence[str]) -> None:
        """``UID STORE <uids> +FLAGS.SILENT (<done_keyword>)`` (idempotent).

        If the folder's UIDVALIDITY is no longer the one of the last
        :meth:`fetch_new`, the keys name other messages now: nothing is stored and
        a warning is logged (the messages come again from the next fetch).

        :raises OSError: the server cannot be reached (after one reconnect).
        :raises imapclient.exceptions.IMAPClientError: the server refused the STORE.
        """
        uids = sorted({int(key) for key in keys})
        if not uids:
            return

        def store(client: IMAPClient) -> None:
            if self._fetched_uidvalidity not in (None, self._uidvalidity):
                logger.warning(
                    "mark_done(%s) skipped: UIDVALIDITY changed from %s to %s since fetch_new",
                    uids,
                    self._fetched_uidvalidity,
                    self._uidvalidity,
                )
                return
            for start in range(0, len(uids), FETCH_BATCH):
                client.add_flags(
                    uids[start : start + FETCH_BATCH], [self.done_keyword], silent=True
                )

        self._with_retry(store)
        self._known.difference_update(uids)

    def keep(self, keys: Sequence[str]) -> None:
        """``UID COPY`` the messages to :attr:`kept_folder` (``CREATE`` d when missing),
        then flag them ``$PbpKept`` so that a second call copies nothing (a crash
        between the two commands may leave two copies, never none). Skipped, like
        :meth:`mark_done`, when UIDVALIDITY changed since :meth:`fetch_new`.

        :raises OSError: the server cannot be reached (after one reconnect).
        :raises imapclient.exceptions.IMAPClientError: the server refused a command.
        """
        uids = sorted({int(key) for key in keys})
        if not uids:
            return

        def copy(client: IMAPClient) -> None:
            if self._fetched_uidvalidity not in (None, self._uidvalidity):
                logger.warning("keep(%s) skipped: UIDVALIDITY changed since fetch_new", uids)
                return
            flags = client.get_flags(uids)
            todo = [
                uid
                for uid in uids
                if uid in flags and KEPT_KEYWORD not in {text(f) for f in flags[uid]}
            ]
            if not todo:
                return
            if not client.folder_exists(self.kept_folder):
                client.create_folder(self.kept_folder)
            client.copy(todo, self.kept_folder)
            client.add_flags(todo, [KEPT_KEYWORD], silent=True)
            logger.info("UIDs %s copied to %s", todo, self.kept_folder)

        self._with_retry(copy)

    def has_history(self) -> str | None:
        """``"3 messages with the keyword $PbpDone in INBOX on imap.example.test"`` when
        ``UID SEARCH KEYWORD <done_keyword> NOT KEYWORD $PbpCheck`` finds any (pbp
        processed mail here, so a store once existed; the test mails of ``pbp check
        --connect`` do not count), else None.

        :raises OSError: the server cannot be reached (after one reconnect).
        :raises imapclient.exceptions.IMAPClientError: login failed or a command was refused.
        """
        criteria = ["KEYWORD", self.done_keyword, "NOT", "KEYWORD", CHECK_KEYWORD]
        count = len(self._with_retry(lambda client: client.search(criteria)))
        if not count:
            return None
        return (
            f"{count} message{'s' if count != 1 else ''} with the keyword {self.done_keyword}"
            f" in {self.folder} on {self.host}"
        )

    def wait(self, timeout: float) -> None:
        """Block up to ``timeout`` seconds or until new mail may have arrived.

        Returns at once when the folder already holds a message without the done
        keyword that the last :meth:`fetch_new` did not return. Otherwise IMAP IDLE
        (RFC 2177) when the server has it, re-issued every 25 minutes, returning on
        the first ``EXISTS``; plain sleep when it has not. When the connection
        breaks during IDLE it returns at once (the next :meth:`fetch_new`
        reconnects); when the server cannot be reached it sleeps out ``timeout``.
        Never raises for connection errors.
        """
        if self._waiter is None:
            # IDLE holds a connection for minutes, while the daemon's scheduled rounds
            # fetch and flag through the other one: imaplib sessions are not shared
            # between threads.
            self._waiter = ImapInbox(
                self.host,
                self.port,
                self.username,
                self._password,
                self.folder,
                self.tls,
                self.done_keyword,
                self.timeout,
            )
        waiter, clock = self._waiter, self.clock
        deadline = clock.monotonic() + timeout
        try:
            client = waiter._connect()
            client.noop()  # sync: see mail delivered since the last command
            waiter._floor = self._floor  # the same folder: search from the same UID
            found = waiter._not_done(client, waiter._uidvalidity)
            unseen = [uid for uid in found if uid not in self._known]
            if unseen:
                return
            if not waiter._has_idle:
                clock.sleep(max(0.0, deadline - clock.monotonic()))
                return
            while (remaining := deadline - clock.monotonic()) > 0:
                if waiter._idle_once(client, min(remaining, IDLE_RESTART_SECONDS)):
                    return
        except CONNECTION_ERRORS as exc:
            reconnecting = waiter._client is None
            waiter._drop(exc)
            if reconnecting:
                clock.sleep(max(0.0, deadline - clock.monotonic()))
        except BaseException:
            # Cut short (``pbp run``'s signal handlers raise to end the wait at once),
            # perhaps in the middle of a command (IDLE sent, its "+ idling" not yet
            # read): a LOGOUT there is never answered, close() would wait the whole
            # timeout for it. Closed without a word; the next wait connects anew.
            client_left, waiter._client = waiter._client, None
            if client_left is not None:
                quietly_shut_down(client_left)
            raise

    def _idle_once(self, client: IMAPClient, seconds: float) -> bool:
        """One IDLE ... DONE of at most ``seconds``; True when new mail was announced.

        An announcement is logged at DEBUG with the moment it was heard on the
        monotonic clock (``time.monotonic()``, seconds; Linux's is the same in every
        process), for the benchmark's figure of pbp's own share of latency (issue 18).
        """
        client.idle()
        try:
            responses = client.idle_check(timeout=seconds)
            heard = time.monotonic()
        finally:
            _, late = client.idle_done()
        for response in [*responses, *late]:
            if response and response[0] == b"BYE":
                raise IMAPClientAbortError(f"server said BYE: {response!r}")
            if len(response) >= 2 and response[1] in (b"EXISTS", b"RECENT"):
                logger.debug("IDLE: new mail announced (monotonic clock %.6f s)", heard)
                return True
        return False

    def close(self) -> None:
        """LOGOUT (errors ignored); safe to call twice."""
        client, self._client = self._client, None
        if client is not None:
            quietly_logout(client)
        if self._waiter is not None:
            self._waiter.close()
