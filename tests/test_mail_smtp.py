"""SMTP transport (pbp/mail/smtp.py) through aiosmtpd into Dovecot (tests/kits/mailstack.py)."""

from __future__ import annotations

import logging
import smtplib
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from kits.mailstack import Delivery, Dovecot, SmtpServer, free_port

from pbp.mail.base import (
    PermanentSendError,
    TransientSendError,
    Transport,
    _parsed_submission,
    _plain_submission,
    submission,
)
from pbp.mail.compose import compose
from pbp.mail.smtp import SmtpTransport

GM = "gm@example.test"
NETASHKA = "netashka@example.test"


def make_message(to: str, body: str = "SUGGEST Краснова, Нож, Кухня TO Веталь") -> EmailMessage:
    message = EmailMessage()
    message["From"] = NETASHKA
    message["To"] = to
    message["Subject"] = "Ход"
    message["Message-ID"] = "<move-1@example.test>"
    message.set_content(body)
    return message


@pytest.fixture
def transport(smtp_server: SmtpServer) -> Iterator[SmtpTransport]:
    smtp_server.dovecot.add_user(GM, "gm-secret")
    smtp_server.dovecot.add_user(NETASHKA, "n-secret")
    outbox = SmtpTransport("127.0.0.1", smtp_server.port, timeout=10)
    yield outbox
    outbox.close()


def test_message_arrives_in_the_plus_stripped_mailbox_with_to_intact(
    smtp_server: SmtpServer, dovecot: Dovecot, transport: SmtpTransport
) -> None:
    transport.send(make_message("gm+tok@example.test"))

    [stored] = dovecot.messages(GM)
    assert stored.raw.startswith(b"Delivered-To: gm+tok@example.test\r\n")
    parsed = BytesParser(policy=policy.default).parsebytes(stored.raw)
    assert parsed["Delivered-To"] == "gm+tok@example.test"
    assert parsed["To"] == "gm+tok@example.test"
    assert parsed["From"] == NETASHKA
    assert parsed["Subject"] == "Ход"
    assert parsed["Message-ID"] == "<move-1@example.test>"
    assert parsed.get_content() == "SUGGEST Краснова, Нож, Кухня TO Веталь\r\n"
    assert dovecot.messages(NETASHKA) == []
    assert len(smtp_server.deliveries) == 1
    delivery = smtp_server.deliveries[0]
    assert (delivery.mail_from, delivery.rcpt_tos) == (NETASHKA, ("gm+tok@example.test",))
    assert stored.raw == b"Delivered-To: gm+tok@example.test\r\n" + delivery.content


def test_one_connection_is_reused_for_many_messages(
    smtp_server: SmtpServer, dovecot: Dovecot, transport: SmtpTransport
) -> None:
    for n in range(3):
        message = make_message(GM, body=f"STATUS {n}")
        transport.send(message)
    connection = transport._smtp
    assert connection is not None
    transport.send(make_message(NETASHKA))
    assert transport._smtp is connection
    bodies = [
        BytesParser(policy=policy.default).parsebytes(m.raw).get_content()
        for m in dovecot.messages(GM)
    ]
    assert bodies == ["STATUS 0\r\n", "STATUS 1\r\n", "STATUS 2\r\n"]
    assert len(dovecot.messages(NETASHKA)) == 1


def test_refused_recipient_is_a_permanent_error(
    smtp_server: SmtpServer, transport: SmtpTransport
) -> None:
    smtp_server.refuse("gone@example.test")
    with pytest.raises(PermanentSendError) as info:
        transport.send(make_message("gone@example.test"))
    assert str(info.value) == (
        "all recipients refused: {'gone@example.test': '550 5.1.1 User unknown'}"
    )
    assert smtp_server.deliveries == []
    # The connection is still good for the next message.
    transport.send(make_message(GM))
    assert [d.rcpt_tos for d in smtp_server.deliveries] == [(GM,)]


def test_temporary_refusal_is_a_transient_error(
    smtp_server: SmtpServer, transport: SmtpTransport
) -> None:
    smtp_server.refuse(GM, "451 4.3.0 Try again later")
    with pytest.raises(TransientSendError) as info:
        transport.send(make_message(GM))
    assert str(info.value) == (
        "all recipients refused: {'gm@example.test': '451 4.3.0 Try again later'}"
    )


def test_partly_refused_message_goes_to_the_rest_and_is_logged(
    smtp_server: SmtpServer,
    dovecot: Dovecot,
    transport: SmtpTransport,
    caplog: pytest.LogCaptureFixture,
) -> None:
    smtp_server.refuse("gone@example.test")
    message = make_message(GM)
    message["Cc"] = "gone@example.test"
    with caplog.at_level(logging.WARNING, logger="pbp.mail.smtp"):
        transport.send(message)
    assert [r.getMessage() for r in caplog.records] == [
        "message <move-1@example.test> not delivered to "
        "{'gone@example.test': '550 5.1.1 User unknown'}"
    ]
    assert [d.rcpt_tos for d in smtp_server.deliveries] == [(GM,)]
    assert len(dovecot.messages(GM)) == 1


def test_closed_port_is_a_transient_error() -> None:
    port = free_port()
    outbox = SmtpTransport("127.0.0.1", port, timeout=5)
    with pytest.raises(
        TransientSendError,
        match=rf"^SMTP 127\.0\.0\.1:{port}: cannot connect: the server refused the connection ",
    ):
        outbox.send(make_message(GM))
    outbox.close()
    outbox.close()


def test_server_dropping_the_kept_connection_is_retried_on_a_new_one(
    smtp_server: SmtpServer, transport: SmtpTransport
) -> None:
    transport.send(make_message(GM))
    first = transport._smtp
    assert first is not None
    assert first.sock is not None
    first.sock.shutdown(socket.SHUT_RDWR)  # as if the server had timed the session out
    transport.send(make_message(GM))
    assert transport._smtp is not first
    assert [d.rcpt_tos for d in smtp_server.deliveries] == [(GM,), (GM,)]


def test_greeting_refused_is_classified() -> None:
    """A server that answers 554 on connect (RFC 5321 §3.1) will never take the mail."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        conn.sendall(b"554 5.7.1 No SMTP service here\r\n")
        conn.recv(100)
        conn.close()

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        outbox = SmtpTransport("127.0.0.1", port, timeout=5)
        with pytest.raises(PermanentSendError) as info:
            outbox.send(make_message(GM))
        assert str(info.value) == f"SMTP 127.0.0.1:{port}: 554 5.7.1 No SMTP service here"
        outbox.close()
    finally:
        thread.join(5)
        listener.close()


def test_delivery_record_shape(smtp_server: SmtpServer, transport: SmtpTransport) -> None:
    transport.send(make_message("gm+abc@example.test"))
    [delivery] = smtp_server.deliveries
    assert isinstance(delivery, Delivery)
    assert b"\r\nTo: gm+abc@example.test\r\n" in delivery.content


def test_smtp_transport_is_a_transport() -> None:
    outbox: Transport = SmtpTransport("127.0.0.1", 25)  # checked by mypy --strict
    outbox.close()


def _composed() -> bytes:
    return bytes(
        compose(
            sender=GM,
            to="gm+k3x9@example.test",
            subject="[exler-1] Предположение №1: вам показали карту",
            body="Вам показали: Нож.\n.\n..точки в начале строк\n",
            message_id="<pbp.1@example.test>",
            date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
            auto_submitted="auto-replied",
            reply_to="gm+k3x9@example.test",
            in_reply_to="<m1@example.test>",
        )
    )


RESENT = (
    "Resent-Date: Wed, 02 Dec 2026 10:00:00 +0000",
    f"Resent-From: {NETASHKA}",
    f"Resent-To: {GM}",
    f"Resent-Bcc: {NETASHKA}",
)


def _with(raw: bytes, *fields: str) -> bytes:
    """``raw`` with ``fields`` (``"Name: value"``) put before its own."""
    return "".join(f"{field}\r\n" for field in fields).encode() + raw


@pytest.mark.parametrize(
    "raw",
    [
        _composed(),
        _with(_composed(), f"Sender: The GM <{NETASHKA}>"),
        _with(_composed(), f"Cc: Netashka <{NETASHKA}>", f"Bcc: {NETASHKA},\r\n {GM}"),
        _with(_composed(), *RESENT),
        # SMTPUTF8 (RFC 6531): flattened again with UTF-8 headers; the Cc is refused.
        _with(_composed(), "Cc: неташка@example.test"),
    ],
    ids=["composed", "sender", "cc-bcc", "resent", "smtputf8"],
)
def test_stored_bytes_go_out_with_the_envelope_and_bytes_of_send_message(
    smtp_server: SmtpServer, transport: SmtpTransport, raw: bytes
) -> None:
    """Issue 18: the outbox sends the stored bytes with :func:`submission`'s envelope,
    pipelined (``send_each``) or not; on the wire that is what
    ``smtplib.SMTP.send_message`` of the parsed mail sent."""
    old = smtplib.SMTP("127.0.0.1", smtp_server.port, timeout=10)
    try:
        old.send_message(message_from_bytes(raw, policy=policy.SMTP))
    finally:
        old.quit()
    transport.sendmail(*submission(raw))
    assert list(transport.send_each([submission(raw), submission(raw)])) == [None, None]
    before, *after = smtp_server.deliveries
    assert [(a.mail_from, a.rcpt_tos, a.content) for a in after] == [
        (before.mail_from, before.rcpt_tos, before.content)
    ] * 3


@pytest.mark.parametrize(
    "head",
    [
        b"From: pbp <gm@example.test>\r\nTo: rosa@example.test\r\n",
        b"To: <rosa@example.test>\r\nSubject: x\r\n folded\r\nFrom: gm@example.test\r\n",
        b"From: The GM pbp <gm@example.test>\r\nTo: =?utf-8?b?0KDQvtC30LA=?= <r@example.test>\r\n",
        b"From: pbp <gm@example.test>\r\nTo: rosa@example.test, doug@example.test\r\n",
        b'From: "pbp, GM" <gm@example.test>\r\nTo: rosa@example.test\r\n',
        b"From: pbp <gm@example.test>\r\nTo: Rosa\r\n <rosa@example.test>\r\n",
        b"From: pbp <gm@example.test>\r\nTo: rosa@example.test\r\nTo: doug@example.test\r\n",
        b"From: pbp <gm@example.test>\r\nTo: rosa@example.test \r\n",
        b"From: pbp <gm@example.test>\r\nTo: r (Rosa) @example.test\r\n",
        b"From: pbp <gm@example.test>\r\nCC: doug@example.test\r\nTo: rosa@example.test\r\n",
        b"From: pbp <gm@example.test>\r\nsender: doug@example.test\r\nTo: rosa@example.test\r\n",
        b"From: pbp <gm@example.test>\r\nTo: rosa@example.test\r\nBcc: doug@example.test\r\n",
        b"Resent-Date: x\r\nResent-From: d@example.test\r\nResent-To: r@example.test\r\n"
        b"From: gm@example.test\r\nTo: rosa@example.test\r\n",
        b"From pbp Tue Dec  1 19:30:00 2026\r\nFrom: gm@example.test\r\nTo: r@example.test\r\n",
        b"From: pbp <gm@example.test>\r\nTo: rosa@example.test\r\n\r\nTo: doug@example.test\r\n",
        b"From: pbp <gm@example.test>\nTo: rosa@example.test\n",
    ],
)
def test_submission_read_from_the_lines_is_the_one_of_the_header_parser(head: bytes) -> None:
    """Issue 18: :func:`submission` reads a plain From and To from the header lines;
    whatever it reads so, or leaves to the header parser, is what the parser reads."""
    raw = head + b"\r\nbody\r\n"
    assert submission(raw) == _parsed_submission(raw)


def test_a_composed_mail_is_read_from_its_lines() -> None:
    """The quick reading is the one pbp's own mails take (issue 18: the header parser
    cost more than the rest of sending)."""
    assert _plain_submission(_composed()) == (GM, ["gm+k3x9@example.test"], _composed())
