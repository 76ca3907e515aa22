"""SMTP PIPELINING (RFC 2920) in pbp/mail/smtp.py: ``SmtpTransport.send_each``.

Against the suite's aiosmtpd server (tests/kits/mailstack.py, which offers
PIPELINING) for what a real server shows; against a scripted server on a socket for
the faults it cannot show at will (a 4yz after the data, a 421, a connection cut
before a reply, a DATA answered 354 without recipients).
"""

from __future__ import annotations

import logging
import smtplib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO

import pytest
from kits.mailstack import Dovecot, SmtpServer

from pbp.mail.base import (
    PermanentSendError,
    SendOutcome,
    Submission,
    TransientSendError,
    send_each,
)
from pbp.mail.maildir import MaildirTransport, read_maildir_raw
from pbp.mail.smtp import SmtpTransport

GM = "gm@example.test"
NETASHKA = "netashka@example.test"
GONE = "gone@example.test"


def raw_mail(number: int, to: str = NETASHKA, body: bytes = b"") -> bytes:
    return (
        f"From: pbp <{GM}>\r\nTo: {to}\r\nSubject: {number}\r\n"
        f"Message-ID: <m{number}@example.test>\r\n\r\n".encode()
        + (body or f"mail {number}\r\n".encode())
    )


def mail(number: int, to: str = NETASHKA, body: bytes = b"") -> Submission:
    return Submission(GM, [to], raw_mail(number, to, body))


def commands(submitted: Submission) -> bytes:
    """MAIL, RCPT and DATA as smtplib writes them for ``submitted``."""
    sender, [recipient], raw = submitted
    return f"mail FROM:<{sender}> size={len(raw)}\r\nrcpt TO:<{recipient}>\r\ndata\r\n".encode()


def text(outcomes: list[SendOutcome]) -> list[str | None]:
    """Each outcome as ``"Transient: …"``, ``"Permanent: …"`` or None."""
    shown: list[str | None] = []
    for outcome in outcomes:
        if outcome is None:
            shown.append(None)
        else:
            kind = "Transient" if isinstance(outcome, TransientSendError) else "Permanent"
            shown.append(f"{kind}: {outcome}")
    return shown


@pytest.fixture
def server(dovecot: Dovecot, smtp_server: SmtpServer) -> SmtpServer:
    dovecot.add_user(GM, "gm-secret")
    dovecot.add_user(NETASHKA, "n-secret")
    return smtp_server


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every write smtplib makes on any connection from now on (cleared by the tests
    once connected, so that the EHLO, which names this host, is left out)."""
    written: list[bytes] = []
    send = smtplib.SMTP.send

    def recording(self: smtplib.SMTP, data: str | bytes) -> None:
        written.append(data if isinstance(data, bytes) else data.encode("ascii"))
        send(self, data)

    monkeypatch.setattr(smtplib.SMTP, "send", recording)
    return written


def connected(port: int) -> SmtpTransport:
    transport = SmtpTransport("127.0.0.1", port, timeout=10)
    transport._smtp = transport._open()
    return transport


def test_messages_go_one_round_trip_each_with_the_bytes_of_sendmail(
    server: SmtpServer, writes: list[bytes]
) -> None:
    transport = connected(server.port)
    writes.clear()
    try:
        assert list(transport.send_each([mail(1), mail(2), mail(3)])) == [None, None, None]
    finally:
        transport.close()
    assert writes == [
        commands(mail(1)),
        raw_mail(1) + b".\r\n" + commands(mail(2)),
        raw_mail(2) + b".\r\n" + commands(mail(3)),
        raw_mail(3) + b".\r\n",
        b"quit\r\n",
    ]
    assert [(d.mail_from, d.rcpt_tos, d.content) for d in server.deliveries] == [
        (GM, (NETASHKA,), raw_mail(1)),
        (GM, (NETASHKA,), raw_mail(2)),
        (GM, (NETASHKA,), raw_mail(3)),
    ]


def test_what_goes_over_the_wire_is_what_sendmail_sends(server: SmtpServer) -> None:
    """Leading periods doubled, a missing final CRLF added: the server keeps the same
    bytes for send_each as for sendmail."""
    odd = mail(1, body=b".hidden\r\n..two\r\nno end")
    one = SmtpTransport("127.0.0.1", server.port, timeout=10)
    try:
        one.sendmail(*odd)
        assert list(one.send_each([odd, mail(2)])) == [None, None]
    finally:
        one.close()
    first, second, third = server.deliveries
    assert (second.mail_from, second.rcpt_tos, second.content) == (
        first.mail_from,
        first.rcpt_tos,
        first.content,
    )
    assert first.content == raw_mail(1, body=b".hidden\r\n..two\r\nno end\r\n")
    assert third.content == raw_mail(2)


def test_without_pipelining_offered_each_command_waits_for_its_reply(
    dovecot: Dovecot, writes: list[bytes]
) -> None:
    dovecot.add_user(NETASHKA, "n-secret")
    plain = SmtpServer(dovecot, pipelining=False)
    plain.start()
    try:
        transport = connected(plain.port)
        writes.clear()
        try:
            assert list(transport.send_each([mail(1), mail(2)])) == [None, None]
        finally:
            transport.close()
    finally:
        plain.stop()
    size = len(raw_mail(1))
    assert writes == [
        f"mail FROM:<{GM}> size={size}\r\n".encode(),
        f"rcpt TO:<{NETASHKA}>\r\n".encode(),
        b"data\r\n",
        raw_mail(1) + b".\r\n",
        f"mail FROM:<{GM}> size={size}\r\n".encode(),
        f"rcpt TO:<{NETASHKA}>\r\n".encode(),
        b"data\r\n",
        raw_mail(2) + b".\r\n",
        b"quit\r\n",
    ]
    assert [d.content for d in plain.deliveries] == [raw_mail(1), raw_mail(2)]


def test_refusals_are_each_messages_own_and_the_rest_go(
    server: SmtpServer, writes: list[bytes]
) -> None:
    server.refuse(GONE)
    server.refuse("later@example.test", "451 4.3.0 Try again later")
    transport = connected(server.port)
    writes.clear()
    try:
        outcomes = list(
            transport.send_each(
                [mail(1), mail(2, GONE), mail(3), mail(4, "later@example.test"), mail(5)]
            )
        )
    finally:
        transport.close()
    assert text(outcomes) == [
        None,
        "Permanent: all recipients refused: {'gone@example.test': '550 5.1.1 User unknown'}",
        None,
        "Transient: all recipients refused: {'later@example.test': '451 4.3.0 Try again later'}",
        None,
    ]
    assert [d.content for d in server.deliveries] == [raw_mail(1), raw_mail(3), raw_mail(5)]
    # A refused transaction is reset before the next one begins (as smtplib does).
    group = {n: commands(mail(n, to)) for n, to in [(1, NETASHKA), (2, GONE), (3, NETASHKA)]}
    group[4], group[5] = commands(mail(4, "later@example.test")), commands(mail(5))
    data = {n: raw_mail(n) + b".\r\n" for n in (1, 3, 5)}
    assert writes == [
        group[1],
        data[1] + group[2],
        b"rset\r\n",
        group[3],
        data[3] + group[4],
        b"rset\r\n",
        group[5],
        data[5],
        b"quit\r\n",
    ]


def test_a_refused_sender_is_the_error_sendmail_gives(server: SmtpServer) -> None:
    """aiosmtpd refuses a MAIL FROM whose SIZE is over its limit (RFC 1870)."""
    big = Submission(GM, [NETASHKA], raw_mail(1) + b"x" * 33_554_433)
    one = SmtpTransport("127.0.0.1", server.port, timeout=10)
    try:
        with pytest.raises(PermanentSendError) as info:
            one.sendmail(*big)
        assert text(list(one.send_each([big, mail(2)]))) == [f"Permanent: {info.value}", None]
    finally:
        one.close()
    assert str(info.value).startswith("sender 'gm@example.test' refused: 552 ")
    assert [d.content for d in server.deliveries] == [raw_mail(2)]


def test_a_partly_refused_message_goes_to_the_rest_and_is_logged(
    server: SmtpServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.refuse(GONE)
    both = Submission(GM, [NETASHKA, GONE], raw_mail(1))
    transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    try:
        with caplog.at_level(logging.WARNING, logger="pbp.mail.smtp"):
            assert list(transport.send_each([both, mail(2)])) == [None, None]
    finally:
        transport.close()
    assert [r.getMessage() for r in caplog.records] == [
        "message <m1@example.test> not delivered to {'gone@example.test': '550 5.1.1 User unknown'}"
    ]
    assert [d.rcpt_tos for d in server.deliveries] == [(NETASHKA,), (NETASHKA,)]


def test_stopping_after_an_outcome_never_delivers_the_next_message(server: SmtpServer) -> None:
    """Its MAIL, RCPT and DATA went behind the first one's data; the connection is
    closed under its transaction, which the server then drops."""
    transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    try:
        outcomes = transport.send_each([mail(1), mail(2)])
        assert next(outcomes) is None
        outcomes.close()
        assert transport._smtp is None
        transport.sendmail(*mail(3))
    finally:
        transport.close()
    assert [d.content for d in server.deliveries] == [raw_mail(1), raw_mail(3)]


def test_a_dropped_kept_connection_is_sent_on_again_on_a_new_one(server: SmtpServer) -> None:
    transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    try:
        transport.sendmail(*mail(1))
        first = transport._smtp
        assert first is not None and first.sock is not None
        first.sock.shutdown(socket.SHUT_RDWR)  # as if the server had timed the session out
        assert list(transport.send_each([mail(2), mail(3)])) == [None, None]
        assert transport._smtp is not first
    finally:
        transport.close()
    assert [d.content for d in server.deliveries] == [raw_mail(1), raw_mail(2), raw_mail(3)]


def test_a_closed_port_is_a_transient_error_for_each_message() -> None:
    from kits.mailstack import free_port

    port = free_port()
    transport = SmtpTransport("127.0.0.1", port, timeout=5)
    outcomes = list(transport.send_each([mail(1), mail(2)]))
    transport.close()
    prefix = f"Transient: SMTP 127.0.0.1:{port}: cannot connect: the server refused the connection "
    assert [shown is not None and shown.startswith(prefix) for shown in text(outcomes)] == [
        True,
        True,
    ]


def test_an_error_getting_a_submission_comes_at_its_turn(server: SmtpServer) -> None:
    def submissions() -> Iterator[Submission]:
        yield mail(1)
        raise ValueError("message has more than one 'Resent-' header block")

    transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    try:
        outcomes = transport.send_each(submissions())
        assert next(outcomes) is None
        assert [d.content for d in server.deliveries] == [raw_mail(1)]
        with pytest.raises(ValueError, match="more than one 'Resent-' header block"):
            next(outcomes)
        transport.sendmail(*mail(2))  # the connection is still in step
    finally:
        transport.close()
    assert [d.content for d in server.deliveries] == [raw_mail(1), raw_mail(2)]


def test_a_transport_without_send_each_sends_one_by_one(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    outbox = MaildirTransport(tmp_path / "out")
    assert list(send_each(outbox, [mail(1), mail(2)])) == [None, None]
    assert sorted(raw for _at, raw in read_maildir_raw(tmp_path / "out")) == [
        raw_mail(1),
        raw_mail(2),
    ]


# --- a scripted server for the faults a real one cannot show at will -------------------


Script = Callable[[int, str], "str | None"]


class ScriptedServer:
    """An SMTP server on a socket that offers PIPELINING and answers each command
    (lower-cased, ``"data"`` for DATA, ``"<subject>"`` for a message's data) by
    ``script(connection number, command)``: a reply, or None to close the connection
    without one; ``None`` from the script's default for anything it leaves. Every
    connection's commands are recorded in ``received``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.received: list[list[str]] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                self._session(conn, self.received.__len__())

    def _session(self, conn: socket.socket, number: int) -> None:
        commands: list[str] = []
        self.received.append(commands)
        file = conn.makefile("rb")
        try:
            conn.sendall(b"220 scripted\r\n")
            while line := file.readline():
                command = line.decode("ascii").rstrip("\r\n").lower()
                if command.startswith("ehlo"):
                    conn.sendall(b"250-scripted\r\n250-PIPELINING\r\n250 SIZE 100000\r\n")
                    continue
                commands.append(command.split(" size=")[0])
                reply = self.script(number, command) or _usual(command)
                if reply == "close":
                    return
                conn.sendall(reply.encode("ascii") + b"\r\n")
                if command == "quit" or reply.startswith("421"):
                    return
                if command == "data" and reply.startswith("354"):
                    subject = self._data(file)
                    if subject is None:
                        return
                    commands.append(f"<{subject}>")
                    reply = self.script(number, f"<{subject}>") or "250 2.0.0 queued"
                    if reply == "close":
                        return
                    conn.sendall(reply.encode("ascii") + b"\r\n")
        except OSError:  # the client closed first
            return

    @staticmethod
    def _data(file: BinaryIO) -> str | None:
        """The Subject of the message read up to its ``.`` line; None at the end of
        the connection before it."""
        lines: list[bytes] = []
        while (line := file.readline()) != b".\r\n":
            if not line:
                return None
            lines.append(line)
        return b"".join(lines).split(b"Subject: ", 1)[1].split(b"\r\n", 1)[0].decode()

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (close alone does not)
        self.listener.close()
        self.thread.join(5)
        assert not self.thread.is_alive()


def _usual(command: str) -> str:
    if command == "data":
        return "354 go ahead"
    if command == "quit":
        return "221 bye"
    return "250 ok"


@pytest.fixture
def scripted() -> Iterator[Callable[[Script], ScriptedServer]]:
    servers: list[ScriptedServer] = []

    def start(script: Script) -> ScriptedServer:
        servers.append(ScriptedServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


ENVELOPE = [f"mail from:<{GM}>", f"rcpt to:<{NETASHKA}>", "data"]


def send_all(fake: ScriptedServer, count: int) -> list[str | None]:
    transport = SmtpTransport("127.0.0.1", fake.port, timeout=10)
    try:
        return text(list(transport.send_each([mail(n) for n in range(1, count + 1)])))
    finally:
        transport.close()


def test_a_4yz_after_the_data_abandons_the_next_transaction_under_way(
    scripted: Callable[[Script], ScriptedServer],
) -> None:
    fake = scripted(lambda number, command: "451 4.3.0 queue full" if command == "<1>" else None)
    assert send_all(fake, 3) == ["Transient: 451 4.3.0 queue full", None, None]
    first, second = fake.received
    # The second's commands were pipelined behind the first's data: how many of them
    # reached the server before the 451 stopped the client depends on timing; its data
    # never came.
    assert first[:4] == [*ENVELOPE, "<1>"]
    assert first[4:] == ENVELOPE[: len(first) - 4]
    assert second == [*ENVELOPE, "<2>", *ENVELOPE, "<3>", "quit"]


def test_a_421_to_mail_from_closes_the_connection(
    scripted: Callable[[Script], ScriptedServer],
) -> None:
    def script(number: int, command: str) -> str | None:
        if number == 0 and command.startswith("mail") and fake.received[0].count(ENVELOPE[0]) == 2:
            return "421 4.3.2 shutting down"
        return None

    fake = scripted(script)
    assert send_all(fake, 3) == [
        None,
        "Transient: sender 'gm@example.test' refused: 421 4.3.2 shutting down",
        None,
    ]
    assert fake.received == [
        [*ENVELOPE, "<1>", ENVELOPE[0]],  # closed after the 421: RCPT and DATA unread
        [*ENVELOPE, "<3>", "quit"],
    ]


def test_a_connection_cut_before_the_reply_to_the_data_is_sent_on_again(
    scripted: Callable[[Script], ScriptedServer],
) -> None:
    """As sendmail on a kept connection: the message goes once more on a new one (the
    fake may have taken it: then it arrives twice, under one Message-ID)."""
    fake = scripted(lambda number, command: "close" if (number, command) == (0, "<2>") else None)
    assert send_all(fake, 3) == [None, None, None]
    assert fake.received == [
        [*ENVELOPE, "<1>", *ENVELOPE, "<2>"],
        [*ENVELOPE, "<2>", *ENVELOPE, "<3>", "quit"],
    ]


def test_a_cut_on_a_new_connection_is_a_transient_error(
    scripted: Callable[[Script], ScriptedServer],
) -> None:
    fake = scripted(lambda number, command: "close" if (number, command) == (0, "<1>") else None)
    [first, second] = send_all(fake, 2)
    assert first == (
        f"Transient: SMTP 127.0.0.1:{fake.port}: cannot connect: "
        "a network error (Connection unexpectedly closed)"
    )
    assert second is None
    assert fake.received == [[*ENVELOPE, "<1>"], [*ENVELOPE, "<2>", "quit"]]


def test_a_data_answered_354_without_recipients_sends_no_data(
    scripted: Callable[[Script], ScriptedServer],
) -> None:
    """A fake against RFC 2920 §3.1 that takes DATA after refusing every RCPT: the
    connection is closed rather than any data sent into that transaction."""
    fake = scripted(
        lambda number, command: (
            "550 5.1.1 no such user"
            if (number, command) == (0, f"rcpt to:<{NETASHKA}>") and len(fake.received[0]) == 2
            else None
        )
    )
    assert send_all(fake, 2) == [
        "Permanent: all recipients refused: {'netashka@example.test': '550 5.1.1 no such user'}",
        None,
    ]
    assert fake.received == [ENVELOPE, [*ENVELOPE, "<2>", "quit"]]
