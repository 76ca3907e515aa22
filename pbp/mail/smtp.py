"""SMTP transport (RFC 5321) through smtplib, one connection reused for many messages.

Each message goes out as the bytes it was stored with (``SMTP.sendmail``: no parse,
no flattening again), one transaction after the other on the kept connection: MAIL,
RCPT and DATA each wait for their reply. smtplib has no PIPELINING (RFC 2920): it
records the keyword among the server's other EHLO extensions but never sends a
command ahead of a reply, and pipelining would take SMTP protocol code of our own.

Failures are sorted by whether a retry can help (RFC 5321 §4.2.1): a connection
failure or a 4yz reply raises :class:`~pbp.mail.base.TransientSendError`; a 5yz
reply that leaves no recipient accepted raises
:class:`~pbp.mail.base.PermanentSendError`. Both carry the server's reply.
"""

from __future__ import annotations

import io
import logging
import smtplib
import ssl
from collections.abc import Sequence
from email import message_from_bytes
from email.generator import BytesGenerator
from email.message import EmailMessage
from email.policy import SMTP
from typing import Literal

from pbp.mail.base import (
    PermanentSendError,
    TransientSendError,
    message_id_of,
    network_fault,
    submission,
)

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
        if smtp is not None:
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
        recipient, DATA ``raw``). An address that is not ASCII needs the server's
        SMTPUTF8 (RFC 6531): then the message is flattened with UTF-8 headers, as
        ``smtplib.SMTP.send_message`` does.

        When some recipients are refused and others accepted, the message is
        delivered to the accepted ones and the refused are logged as a warning
        (raising would make the caller send it again to everyone).

        :raises TransientSendError: the server cannot be reached, the connection
            broke, or it answered 4yz (e.g. ``"451 4.3.0 try later"``).
        :raises PermanentSendError: it answered 5yz to the sender, to every
            recipient or to the data (e.g. ``"550 5.1.1 <x@example.test>: no such user"``),
            or needs a feature it lacks (STARTTLS, SMTPUTF8).
        """
        recipients = list(recipients)
        reused = self._smtp is not None
        try:
            self._send_once(envelope_from, recipients, raw)
        except (OSError, smtplib.SMTPServerDisconnected) as exc:
            self._drop()
            if not reused:
                raise TransientSendError(
                    f"SMTP {self.host}:{self.port}: cannot connect: {network_fault(exc) or exc}"
                ) from exc
            logger.info("SMTP connection lost (%r), sending again on a new one", exc)
            try:
                self._send_once(envelope_from, recipients, raw)
            except (OSError, smtplib.SMTPServerDisconnected) as again:
                self._drop()
                raise TransientSendError(
                    f"SMTP {self.host}:{self.port}: cannot connect: {network_fault(again) or again}"
                ) from again

    def _send_once(self, envelope_from: str, recipients: list[str], raw: bytes) -> None:
        """One attempt; converts every SMTP reply error, lets connection errors through."""
        if self._smtp is None:
            self._smtp = self._open()
        smtp = self._smtp
        try:
            options: tuple[str, ...] = ()
            if not "".join([envelope_from, *recipients]).isascii():
                if not smtp.has_extn("smtputf8"):
                    raise smtplib.SMTPNotSupportedError(
                        "One or more source or delivery addresses require"
                        " internationalized email support, but the server"
                        " does not advertise the required SMTPUTF8 capability"
                    )
                raw, options = _utf8(raw), ("SMTPUTF8", "BODY=8BITMIME")
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


def _utf8(raw: bytes) -> bytes:
    """``raw`` flattened again with UTF-8 headers (RFC 6532), as ``send_message`` sends
    a message to a non-ASCII address."""
    wire = io.BytesIO()
    BytesGenerator(wire, policy=SMTP.clone(utf8=True)).flatten(message_from_bytes(raw, policy=SMTP))
    return wire.getvalue()


def _quietly_close(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (OSError, smtplib.SMTPException):
        smtp.close()
