"""Promise 5 of issue 6: the SMTP server down for long, or refusing one recipient.

The service runs in this process on the games of tests/kits/crash.py, reading a real
Dovecot and sending through the suite's aiosmtpd server, which is stopped and
started again, or told to refuse an address (550 at RCPT). Time is given to
``run_once`` explicitly, so the retry schedule (30 s, 120 s, …) is followed without
waiting for it.
"""

from __future__ import annotations

import email
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.policy import default as default_policy
from pathlib import Path

import pytest
from kits.crash import DAEMON, ENV, GM, Move, add_users, address, games_yaml, raw_move, tokens
from kits.mailstack import Dovecot, SmtpServer

from pbp.app.service import Service
from pbp.cli import _service
from pbp.config.loading import load_config

TANYA, OLYA, VASYA = "Таня", "Оля", "Вася"


@pytest.fixture
def service(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Service]:
    add_users(dovecot)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    config = tmp_path / "games.yaml"
    config.write_text(
        games_yaml(dovecot.port, smtp_server.port, datetime.now(UTC)), encoding="utf-8"
    )
    service = _service(load_config(config), create=True)
    try:
        yield service
    finally:
        assert service.inbox is not None and service.transport is not None
        service.inbox.close()
        service.transport.close()
        service.store.close()


def vote(dovecot: Dovecot, service: Service, number: int, voter: str, target: str) -> str:
    """Deliver ``voter``'s vote for ``target`` into the daemon's mailbox; its Message-ID."""
    move = Move(f"<smtp-{number}@players.example.test>", "mn-1", voter, f"ГОЛОС {target}")
    when = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=10 - number)
    dovecot.append(DAEMON, raw_move(move, tokens(service.store.path)), when=when)
    return move.message_id


def voters(service: Service) -> list[str]:
    row = service.store.game("mn-1")
    assert row is not None
    return [ballot["voter"] for ballot in row.state["ballots"]]


def ids(dovecot: Dovecot, mailbox: str) -> list[str]:
    found = []
    for stored in dovecot.messages(mailbox):
        message = email.message_from_bytes(stored.raw, policy=default_policy)
        found.append(str(message["Message-ID"]))
    return found


def test_a_long_smtp_outage_keeps_every_reply_retries_with_backoff_and_moves_go_on(
    service: Service, dovecot: Dovecot, smtp_server: SmtpServer
) -> None:
    service.run_once()  # the games start; hands and posts go out
    sent_at_start = len(service.store.outbox())
    smtp_server.stop()
    vote(dovecot, service, 1, VASYA, "Петя")
    vote(dovecot, service, 2, OLYA, "Петя")
    t0 = datetime.now(UTC) + timedelta(seconds=1)

    assert [o.outcome for o in service.run_once(t0)] == ["applied", "applied"]
    replies = service.store.outbox()[sent_at_start:]
    assert [(m.attempts, m.next_attempt_at, m.sent_at) for m in replies] == [
        (1, t0 + timedelta(seconds=30), None),
        (0, t0, None),  # this round stopped at the first failure: the server is down
    ]
    service.run_once(t0 + timedelta(seconds=10))  # not due yet: no attempt
    assert service.store.outbox()[sent_at_start].attempts == 1
    t1 = t0 + timedelta(seconds=31)
    service.run_once(t1)
    assert service.store.outbox()[sent_at_start].next_attempt_at == t1 + timedelta(seconds=120)

    # Moves keep being applied while the mail waits.
    vote(dovecot, service, 3, TANYA, "Олю")
    assert [o.outcome for o in service.run_once(t1 + timedelta(seconds=5))] == ["applied"]
    assert voters(service) == [VASYA, OLYA, TANYA]
    assert all(m.sent_at is None for m in service.store.outbox()[sent_at_start:])

    # The server is back: everything goes, each mail with the Message-ID it was queued with.
    back = SmtpServer(dovecot, port=smtp_server.port)
    back.start()
    try:
        service.run_once(t1 + timedelta(seconds=121))
    finally:
        back.stop()
    waiting = service.store.outbox()[sent_at_start:]
    assert len(waiting) == 3 and all(m.sent_at is not None for m in waiting)
    for mail, voter in zip(waiting, (VASYA, OLYA, TANYA), strict=True):
        assert ids(dovecot, address("mn-1", voter))[-1] == mail.message_id


def test_a_permanently_refused_recipient_is_given_up_with_a_note_to_the_gm(
    service: Service, dovecot: Dovecot, smtp_server: SmtpServer
) -> None:
    service.run_once()
    sent_at_start = len(service.store.outbox())
    tanya = address("mn-1", TANYA)
    smtp_server.refuse(tanya)
    vote(dovecot, service, 1, TANYA, "Олю")
    vote(dovecot, service, 2, OLYA, "Таню")

    service.run_once()
    service.run_once()  # the note queued by the first round goes out

    assert voters(service) == [TANYA, OLYA]  # her move counts though her answer cannot go
    to_tanya, to_olya, note = service.store.outbox()[sent_at_start:]
    assert (to_tanya.recipient, to_tanya.sent_at, to_tanya.attempts) == (tanya, None, 1)
    assert to_tanya.failed == f"all recipients refused: {{'{tanya}': '550 5.1.1 User unknown'}}"
    assert to_olya.sent_at is not None  # the refusal blocks nobody else
    assert (note.recipient, note.sent_at is not None) == (GM, True)
    gm_mail = email.message_from_bytes(dovecot.messages(GM)[-1].raw, policy=default_policy)
    assert str(gm_mail["Subject"]) == f"[mn-1] Письмо не доставлено: {tanya}"
    body = gm_mail.get_body(("plain",))
    assert body is not None
    text = str(body.get_content()).replace("\r\n", "\n")
    assert f"Кому: {tanya}\n" in text
    assert "Тема: [mn-1] Re: ход\n" in text
    assert "Причина: all recipients refused: {" in text and "550 5.1.1 User unknown" in text
    assert f"Message-ID: {to_tanya.message_id}\n" in text

    # A note that cannot reach the GM is not followed by notes about the note.
    smtp_server.refuse(GM)
    vote(dovecot, service, 3, TANYA, "Васю")
    service.run_once()
    service.run_once()
    service.run_once()
    later = service.store.outbox()[sent_at_start + 3 :]
    assert [(m.recipient, m.failed is not None) for m in later] == [(tanya, True), (GM, True)]
