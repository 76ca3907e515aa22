"""SMTP transport (RFC 5321) through smtplib, one connection reused for many messages.

Each message goes out as the bytes it was stored with (``SMTP.sendmail``: no parse,
no flattening again), one transaction after the other on the kept connection.
smtplib has no PIPELINING (RFC 2920): MAIL, RCPT and DATA each wait for their reply,
four round trips a message. :meth:`SmtpTransport.send_each` pipelines when the
server offers it: a message's MAIL, RCPT and DATA go in one write, and behind each
message's data the commands of the next (RFC 2920 §3.1), so a message costs one
round trip; the replies are read in order and each message's fate is the one
``smtplib.SMTP.sendmail`` would have given it (the same commands and bytes, the
same errors).

Failures are sorted by whether a retry can help (RFC 5321 §4.2.1): a connection
failure or a 4yz reply raises :class:`~pbp.mail.base.TransientSendError`; a 5yz
reply that leaves no recipient accepted raises
:class:`~pbp.mail.base.PermanentSendError`. Both carry the server's reply.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import re
import smtplib
import ssl
from collections.abc import Generator, Iterable, Iterator, Sequence
from email.generator import BytesGenerator
from email.message import EmailMessage
from typing import Literal

from pbp.mail.base import (
    PermanentSendError,
    SendOutcome,
    Submission,
    TransientSendError,
    message_id_of,
    network_fault,
    submission,
)
from pbp.mail.read.address import needs_smtputf8

__all__ = ["SmtpTransport"]

logger = logging.getLogger(__name__)


def _reply(code: int, text: bytes | str) -> str:
    """``"550 5.1.1 no such user"`` from smtplib's (code, text) pair."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}".strip()


def _classify(code: int, what: str) -> TransientSendError | PermanentSendError:
    """4yz -> transient, anything else that is not 2yz/3yz -> permanent (RFC 5321 §4.2.1)."""
    if 400 <= code < 500:
        return TransientSendError(what)
    return PermanentSendError(what)


class SmtpTransport:
    """A :class:`~pbp.mail.base.Transport` that submits mail to an SMTP server.

    :param host: server name or address, e.g. ``"smtp.example.test"``.
    :param port: TCP port, e.g. 25 or 587 (``tls="none"``/``"starttls"``), 465 (``"ssl"``).
    :param username: log in (AUTH, RFC 4954) when given, with ``password``.
    :param tls: ``"none"`` (plain text, loopback only), ``"starttls"`` (RFC 3207,
        certificate verified) or ``"ssl"`` (implicit TLS, verified).
    :param timeout: socket timeout in seconds.

    The connection is opened on the first :meth:`sendmail` and kept; a message sent
    on a kept connection that the server has dropped meanwhile is sent once more
    on a fresh one.

    Example::

        outbox = SmtpTransport("127.0.0.1", 10025)
        outbox.sendmail("gm@example.test", ["netashka@example.test"], raw)  # raises on failure
        outbox.send(message)   # an EmailMessage: its envelope from its headers
        for outcome in outbox.send_each(submissions):   # pipelined: None or the error
            ...
        outbox.close()
    """

    def __init__(
        self,
        host: str,
        port: int,
        username: str | None = None,
        password: str | None = None,
        tls: Literal["none", "starttls", "ssl"] = "none",
        timeout: float = 30.0,
    ) -> None:
        if tls not in ("none", "starttls", "ssl"):
            raise ValueError(f"tls must be 'none', 'starttls' or 'ssl', got {tls!r}")
        self.host = host
        self.port = port
        self.username = username
        self._password = password
        self.tls = tls
        self.timeout = timeout
        self._smtp: smtplib.SMTP | None = None
        #: The message whose MAIL, RCPT and DATA went behind the data of the one before
        #: it (:meth:`send_each`) and whose replies are not read yet.
        self._ahead: Submission | None = None

    def _connect(self) -> smtplib.SMTP:
        """Open, secure and authenticate a new connection.

        :raises OSError, smtplib.SMTPException: as smtplib raises them.
        """
        smtp: smtplib.SMTP
        if self.tls == "ssl":
            smtp = smtplib.SMTP_SSL(
                self.host, self.port, timeout=self.timeout, context=ssl.create_default_context()
            )
        else:
            smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            smtp.ehlo()
            if self.tls == "starttls":
                smtp.starttls(context=ssl.create_default_context())
                smtp.ehlo()
            if self.username is not None:
                smtp.login(self.username, self._password or "")
        except BaseException:
            _quietly_close(smtp)
            raise
        logger.info("connected to SMTP %s:%d", self.host, self.port)
        return smtp

    def _drop(self) -> None:
        smtp, self._smtp = self._smtp, None
        ahead, self._ahead = self._ahead, None
        if smtp is None:
            return
        if ahead is not None:
            # A transaction under way (its DATA may have been answered 354): no QUIT
            # that would wait for a reply, nor count as its data. The server drops a
            # transaction whose data never ended (RFC 5321 §4.1.1.4).
            smtp.close()
        else:
            _quietly_close(smtp)

    def send(self, message: EmailMessage) -> None:
        """Submit a composed ``message`` as ``smtplib.SMTP.send_message`` would: its
        bytes flattened with CRLF line ends, its envelope from its headers
        (:func:`~pbp.mail.base.submission`), then :meth:`sendmail`.

        :raises TransientSendError, PermanentSendError: as :meth:`sendmail`.
        """
        wire = io.BytesIO()
        BytesGenerator(wire).flatten(message, linesep="\r\n")
        self.sendmail(*submission(wire.getvalue()))

    def sendmail(self, envelope_from: str, recipients: Sequence[str], raw: bytes) -> None:
        """Submit ``raw`` as it is (RFC 5321 MAIL FROM ``envelope_from``, one RCPT TO per
        recipient, DATA ``raw``), each address exactly as given. An address that is not
        ASCII needs the server's SMTPUTF8 (RFC 6531): the transaction then says
        ``SMTPUTF8`` and ``BODY=8BITMIME``, and ``raw`` goes as it is too (a mail
        :func:`~pbp.mail.compose.compose` made for such an address has its header in
        UTF-8, RFC 6532).

        When some recipients are refused and others accepted, the message is
        delivered to the accepted ones and the refused are logged as a warning
        (raising would make the caller send it again to everyone).

        :raises TransientSendError: the server cannot be reached, the connection
            broke, or it answered 4yz (e.g. ``"451 4.3.0 try later"``).
        :raises PermanentSendError: it answered 5yz to the sender, to every
            recipient or to the data (e.g. ``"550 5.1.1 <x@example.test>: no such user"``),
            or needs a feature it lacks (STARTTLS, SMTPUTF8: nothing is sent, and never
            to another spelling of the address), or an address would not go out as
            given (smtplib's quoting rewrites it: ``a(b)@example.test`` as
            ``a@example.test``).
        """
        self._submit(Submission(envelope_from, list(recipients), raw), None)

    def send_each(self, submissions: Iterable[Submission]) -> Generator[SendOutcome, None, None]:
        """Send ``submissions`` in order, each as :meth:`sendmail` would, yielding None
        for each message the server took and the :class:`TransientSendError` or
        :class:`PermanentSendError` that :meth:`sendmail` raises for the others
        (:class:`~pbp.mail.base.PipeliningTransport`).

        When the server offers PIPELINING (RFC 2920) the commands of a message with
        ASCII addresses go in one write, and behind its data those of the next one:
        one round trip a message instead of four. Its fate is read from the replies
        in order, as smtplib reads them one by one: the same errors, the connection
        kept or dropped as :meth:`sendmail` keeps or drops it. A message is only ever
        delivered after the outcome of the one before it is yielded: when the caller
        stops there (closes the generator), the next message's transaction, begun
        on the connection, is never finished (the connection is closed under it).
        An error getting the next submission (:func:`~pbp.mail.base.submission`
        refusing a message) is raised when its outcome is asked for.
        """
        upcoming = _Upcoming(submissions)
        try:
            while (submitted := upcoming.take()) is not None:
                try:
                    self._submit(submitted, upcoming)
                except (TransientSendError, PermanentSendError) as error:
                    yield error
                else:
                    yield None
        finally:
            if self._ahead is not None:
                self._drop()

    def _submit(self, submitted: Submission, upcoming: _Upcoming | None) -> None:
        """:meth:`sendmail` of ``submitted``; pipelined with ``upcoming`` when given."""
        reused = self._smtp is not None
        try:
            self._send_once(submitted, upcoming)
        except (OSError, smtplib.SMTPServerDisconnected) as exc:
            self._drop()
            if not reused:
                raise TransientSendError(
                    f"SMTP {self.host}:{self.port}: cannot connect: {network_fault(exc) or exc}"
                ) from exc
            logger.info("SMTP connection lost (%r), sending again on a new one", exc)
            try:
                self._send_once(submitted, upcoming)
            except (OSError, smtplib.SMTPServerDisconnected) as again:
                self._drop()
                raise TransientSendError(
                    f"SMTP {self.host}:{self.port}: cannot connect: {network_fault(again) or again}"
                ) from again

    def _send_once(self, submitted: Submission, upcoming: _Upcoming | None) -> None:
        """One attempt; converts every SMTP reply error, lets connection errors through."""
        if self._ahead is not None and self._ahead is not submitted:
            self._drop()  # not the message whose transaction is under way: abandon it
        if self._smtp is None:
            self._smtp = self._open()
        smtp = self._smtp
        envelope_from, recipients, raw = submitted
        rewritten = _rewritten(submitted)
        if rewritten is not None:
            raise PermanentSendError(rewritten)
        try:
            options: tuple[str, ...] = ()
            if not _ascii(submitted):
                if not smtp.has_extn("smtputf8"):
                    wide = [a for a in (envelope_from, *recipients) if needs_smtputf8(a)]
                    raise smtplib.SMTPNotSupportedError(
                        f"the server does not offer SMTPUTF8 (RFC 6531), which {wide[0]} "
                        "needs: not sent"
                    )
                options = ("SMTPUTF8", "BODY=8BITMIME")
            if upcoming is not None and not options and smtp.has_extn("pipelining"):
                refused = self._pipelined(smtp, submitted, upcoming)
            else:
                refused = smtp.sendmail(envelope_from, recipients, raw, options)
        except smtplib.SMTPRecipientsRefused as exc:
            replies = {rcpt: _reply(code, text) for rcpt, (code, text) in exc.recipients.items()}
            codes = [code for code, _ in exc.recipients.values()]
            what = f"all recipients refused: {replies}"
            if any(400 <= code < 500 for code in codes):
                raise TransientSendError(what) from exc
            raise PermanentSendError(what) from exc
        except smtplib.SMTPSenderRefused as exc:
            raise _classify(
                exc.smtp_code,
                f"sender {exc.sender!r} refused: {_reply(exc.smtp_code, exc.smtp_error)}",
            ) from exc
        except smtplib.SMTPResponseException as exc:
            self._drop()  # the dialogue may be out of step: start afresh next time
            raise _classify(exc.smtp_code, _reply(exc.smtp_code, exc.smtp_error)) from exc
        except smtplib.SMTPNotSupportedError as exc:
            raise PermanentSendError(f"SMTP {self.host}:{self.port}: {exc}") from exc
        if refused:
            replies = {rcpt: _reply(code, text) for rcpt, (code, text) in refused.items()}
            logger.warning("message %s not delivered to %s", message_id_of(raw), replies)

    def _pipelined(
        self, smtp: smtplib.SMTP, submitted: Submission, upcoming: _Upcoming
    ) -> dict[str, tuple[int, bytes]]:
        """``smtp.sendmail(*submitted)`` with its commands pipelined (RFC 2920): MAIL,
        RCPT and DATA in one write (unless they went ahead with the message before),
        its data followed by the commands of the next message of ``upcoming`` that
        can go so. Each reply is judged as ``smtplib.SMTP.sendmail`` judges it, and
        raises the same exception, the connection left as it leaves it (closed after
        a 421, reset after a refusal); the replies to commands smtplib would not have
        sent after a refusal (RCPT after a refused MAIL, DATA after every RCPT
        refused) are read and passed over (a DATA answered 354 all the same closes
        the connection: no data goes to a transaction without recipients).

        :returns: the refused recipients when others were accepted, as smtplib's.
        """
        envelope_from, recipients, raw = submitted
        following = upcoming.peek()
        if self._ahead is submitted and smtp.sock is not None:
            self._ahead = None  # its commands went behind the data before
        else:
            self._ahead = None
            smtp.send(_commands(smtp, submitted))
        code, reply = smtp.getreply()
        if code != 250:
            if code == 421:
                smtp.close()
            else:
                _pass_over(smtp, len(recipients) + 1)
            raise smtplib.SMTPSenderRefused(code, reply, envelope_from)
        refused: dict[str, tuple[int, bytes]] = {}
        for recipient in recipients:
            code, reply = smtp.getreply()
            if code not in (250, 251):
                refused[recipient] = (code, reply)
            if code == 421:
                smtp.close()
                raise smtplib.SMTPRecipientsRefused(refused)
        if len(refused) == len(recipients):
            _pass_over(smtp, 1)
            raise smtplib.SMTPRecipientsRefused(refused)
        code, reply = smtp.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, reply)
        # The server now reads the data: nothing but our own bytes until its end.
        behind = b""
        if following is not None and _ascii(following) and _rewritten(following) is None:
            try:
                behind = _commands(smtp, following)
            except ValueError:  # raised again when it is its turn, as smtplib raises it
                behind = b""
        try:
            smtp.send(_data(raw) + behind)
            if behind:
                self._ahead = following
            code, reply = smtp.getreply()
        except BaseException:
            smtp.close()  # nothing half-sent is ever finished later
            raise
        if code != 250:
            if code == 421 or self._ahead is not None:
                smtp.close()  # (the next transaction is under way: it must not finish)
            else:
                _rset(smtp)
            raise smtplib.SMTPDataError(code, reply)
        return refused

    def _open(self) -> smtplib.SMTP:
        """:meth:`_connect`, with SMTP reply errors during the greeting/login sorted."""
        try:
            return self._connect()
        except smtplib.SMTPResponseException as exc:
            raise _classify(
                exc.smtp_code,
                f"SMTP {self.host}:{self.port}: {_reply(exc.smtp_code, exc.smtp_error)}",
            ) from exc
        except smtplib.SMTPNotSupportedError as exc:
            raise PermanentSendError(f"SMTP {self.host}:{self.port}: {exc}") from exc

    def close(self) -> None:
        """QUIT (errors ignored); safe to call twice."""
        self._drop()


class _Upcoming:
    """The submissions still to send, the next one seen ahead (its commands go behind
    the data of the one before); an error getting it is raised when it is taken."""

    def __init__(self, submissions: Iterable[Submission]) -> None:
        self._items: Iterator[Submission] = iter(submissions)
        self._next: Submission | None = None
        self._seen = False
        self._error: Exception | None = None

    def peek(self) -> Submission | None:
        """The next submission (None: none, or getting it failed), still to take."""
        if not self._seen:
            self._seen = True
            try:
                self._next = next(self._items, None)
            except Exception as error:
                self._next, self._error = None, error
        return self._next

    def take(self) -> Submission | None:
        """The next submission, None after the last.

        :raises Exception: what getting it raised.
        """
        item = self.peek()
        self._seen = False
        if item is None and self._error is not None:
            error, self._error = self._error, None
            raise error
        return item


def _ascii(submitted: Submission) -> bool:
    """The envelope needs no SMTPUTF8 (RFC 6531)."""
    return "".join([submitted.envelope_from, *submitted.recipients]).isascii()


def _rewritten(submitted: Submission) -> str | None:
    """Why the envelope of ``submitted`` would not go out as given, or None: smtplib
    writes each address as ``smtplib.quoteaddr`` reads it (the email package's address
    parser, which drops a comment or keeps only part of a mangled address)."""
    for address in (submitted.envelope_from, *submitted.recipients):
        quoted = _quoted(address)
        if quoted != f"<{address}>":
            return f"the address {address!r} would go out as {quoted!r}: not sent"
    return None


def _commands(smtp: smtplib.SMTP, submitted: Submission) -> bytes:
    """The MAIL, RCPT and DATA commands ``smtp.sendmail(*submitted)`` sends for an
    envelope of ASCII addresses, byte for byte (with ``SIZE``, RFC 1870, when the
    server offers it).

    :raises ValueError: an address holds CR or LF (as ``smtplib.SMTP.putcmd``).
    """
    envelope_from, recipients, raw = submitted
    options = ""
    if smtp.does_esmtp and smtp.has_extn("size"):
        options = f" size={len(raw)}"
    lines = [
        f"mail FROM:{_quoted(envelope_from)}{options}",
        *(f"rcpt TO:{_quoted(recipient)}" for recipient in recipients),
        "data",
    ]
    for line in lines:
        if "\r" in line or "\n" in line:
            line = line.replace("\n", "\\n").replace("\r", "\\r")
            raise ValueError(f"command and arguments contain prohibited newline characters: {line}")
    return "".join(f"{line}\r\n" for line in lines).encode("ascii")


@functools.lru_cache(maxsize=4096)
def _quoted(address: str) -> str:
    """``smtplib.quoteaddr(address)`` (``<addr-spec>``), read once per address: the
    email package's address parser cost more than the rest of a mail's commands."""
    return smtplib.quoteaddr(address)


#: A line that starts with a period (RFC 5321 §4.5.2: doubled in the data).
_LEADING_PERIOD = re.compile(rb"(?m)^\.")


def _data(raw: bytes) -> bytes:
    """``raw`` as ``smtplib.SMTP.data`` sends it: leading periods doubled, a CRLF at
    the end when missing, and the ``.`` line that ends the data."""
    quoted = _LEADING_PERIOD.sub(b"..", raw)
    if quoted[-2:] != b"\r\n":
        quoted += b"\r\n"
    return quoted + b".\r\n"


def _pass_over(smtp: smtplib.SMTP, replies: int) -> None:
    """Read ``replies`` replies owed to commands sent ahead after a refusal, then reset
    the transaction as smtplib resets it (a DATA answered 354 instead: closed; a
    connection broken meanwhile: left closed, as smtplib leaves it)."""
    code = 0
    try:
        for _ in range(replies):
            code, _reply = smtp.getreply()
    except smtplib.SMTPException:
        smtp.close()
        return
    if code == 354:
        smtp.close()
    else:
        _rset(smtp)


def _rset(smtp: smtplib.SMTP) -> None:
    """``smtplib.SMTP._rset``: RSET, a broken connection passed over."""
    with contextlib.suppress(smtplib.SMTPServerDisconnected):
        smtp.rset()


def _quietly_close(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (OSError, smtplib.SMTPException):
        smtp.close()
