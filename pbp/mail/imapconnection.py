"""An IMAP connection's life through imapclient, for :class:`pbp.mail.imap.ImapInbox`:
opening one (:func:`open_client`, which closes a half-open socket when cut short),
closing one without waiting on a broken server (:func:`quietly_logout`,
:func:`quietly_shut_down`), the errors after which it is unusable
(:data:`CONNECTION_ERRORS`) and what the server said in an error (:func:`said`).
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import re
import socket
import ssl
from types import TracebackType

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientAbortError, ProtocolError

logger = logging.getLogger(__name__)

CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    IMAPClientAbortError,
    EOFError,
    ProtocolError,
)
"""Errors after which the connection is unusable: drop it and reconnect.

``OSError`` covers socket errors, timeouts and ``ssl.SSLError``;
``IMAPClientAbortError`` (``imaplib.IMAP4.abort``) covers ``BYE`` and EOF;
``ProtocolError``: a reply the session cannot be trusted after.
"""


_LOGOUT_ERRORS: tuple[type[BaseException], ...] = (*CONNECTION_ERRORS, imaplib.IMAP4.error)


def said(error: BaseException) -> str:
    """What the server said in ``error`` (imapclient keeps the reply as bytes, or as
    the text of their repr: ``"b'[AUTHENTICATIONFAILED] …'"``)."""
    said = error.args[0] if len(error.args) == 1 else str(error)
    if isinstance(said, bytes):
        said = said.decode("utf-8", "replace")
    text = str(said).strip()
    quoted = re.fullmatch(r"b(['\"])(.*)\1", text, re.DOTALL)
    text = quoted.group(2) if quoted else text
    return _SERVER_TIMING.sub("", text)


#: Dovecot's note of the time a command took (``(0.001 + 0.000 secs).``): noise to a GM.
_SERVER_TIMING = re.compile(r"\s*\(\d+\.\d+(?: \+ \d+\.\d+)* secs\)\.?$")


def quietly_logout(client: IMAPClient) -> None:
    """LOGOUT, or, when the connection is broken, :func:`quietly_shut_down`."""
    try:
        client.logout()
    except _LOGOUT_ERRORS:
        quietly_shut_down(client)


def quietly_shut_down(client: IMAPClient) -> None:
    """Close the connection without a word to the server (errors ignored)."""
    try:
        client.shutdown()
    except Exception:
        logger.debug("shutdown of an IMAP connection failed", exc_info=True)


def open_client(
    host: str, port: int, implicit_tls: bool, context: ssl.SSLContext | None, timeout: float
) -> IMAPClient:
    """``IMAPClient(host, port, …)``: connected, the greeting read.

    A ``BaseException`` that cuts this short (``pbp run``'s signal handlers raise one
    to end a wait for mail at once: SIGHUP, SIGTERM) closes the half-open
    connection's socket here: ``socket.create_connection`` closes it for an
    ``OSError`` only and imaplib for an ``Exception`` only, and the object holding it
    never reaches the caller, so it was left to the garbage collector (one socket per
    reload that came while the waiter connected; a ``ResourceWarning``). The sockets
    are found in the frames the exception left (its traceback).
    """
    try:
        return IMAPClient(host, port=port, ssl=implicit_tls, ssl_context=context, timeout=timeout)
    except Exception:
        raise  # closed by socket.create_connection, imaplib
    except BaseException as cut:
        _close_half_open(cut.__traceback__)
        raise


def _close_half_open(trace: TracebackType | None) -> None:
    """Close every socket (and imaplib connection) in the locals of the frames of
    ``trace`` below the first: what a connection being opened there held."""
    while trace is not None and (trace := trace.tb_next) is not None:
        for value in trace.tb_frame.f_locals.values():
            if isinstance(value, IMAPClient):  # cut short at the end of its __init__
                with contextlib.suppress(OSError, AttributeError):  # none yet, or closed
                    value.shutdown()
            elif isinstance(value, imaplib.IMAP4):
                # Its file first: a socket with a file made on it stays open until both
                # are closed (the greeting is read through the file).
                for part in (getattr(value, "file", None), getattr(value, "sock", None)):
                    if part is not None:
                        part.close()
            elif isinstance(value, socket.socket):  # socket.create_connection's
                value.close()


def text(value: bytes | str) -> str:
    """An IMAP atom (a flag, a keyword) as text: bytes decoded as ASCII."""
    return value.decode("ascii", "replace") if isinstance(value, bytes) else value
