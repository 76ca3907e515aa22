"""Outgoing mail keeps its Subject intact through the SMTP path (RFC 2047, RFC 5322)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from email import message_from_bytes
from email.generator import BytesGenerator
from email.policy import SMTP, default

import pytest

from pbp.mail.compose import compose


@pytest.mark.parametrize(
    "subject",
    [
        "[maniac-e2e] Вечер дня 1: итоги голосования",  # lost its space (CPython gh-92081)
        "[exler-1] Предположение №1: вам показали карту",
        "Re: ход",
        "[maniac-1] Утро после ночи 1: кто погиб и кто вышел из камеры, длинная тема письма",
    ],
)
def test_subject_survives_the_outbox_and_smtp_reserialisation(subject: str) -> None:
    message = compose(
        sender="gm@example.test",
        to="player@example.test",
        subject=subject,
        body="текст",
        message_id="<pbp.1@example.test>",
        date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
        auto_submitted="auto-generated",
    )
    stored = bytes(message)  # what the outbox keeps
    parsed = message_from_bytes(stored, policy=SMTP)  # what the outbox sends ...
    wire = io.BytesIO()
    BytesGenerator(wire, policy=SMTP).flatten(parsed)  # ... as smtplib writes it
    received = message_from_bytes(wire.getvalue(), policy=default)
    assert received["Subject"] == subject
    header = wire.getvalue().split(b"\r\n\r\n")[0]
    assert max(len(line) for line in header.split(b"\r\n")) <= 78
