"""Header work bounded like body work (issue 32, item 2), through
:class:`pbp.app.service.Service` on Maildir transports with the test clock
(tests/kits/table.py: the seed-000 game, Кросс, Дуг, Роза, started 2026-12-01 20:00 MSK).

A header section over the bounds an inbox reads is kept as too large and its sender
told why; reading the header section and the authentication verdict run on the
message's CPU budget, the verdict on at most 16 ``Authentication-Results`` fields; and
what is kept of a mail too large, unreadable or unauthenticated is cut to 64 KB,
whoever sent it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path
from typing import Any

import pytest
from kits.table import GM, Table, body, crash_apply, named_body, summary, utc

import pbp.app.intake
import pbp.app.message
from pbp.mail.base import HEADER_BYTES, RawMessage, stranger_raw
from pbp.mail.maildir import deliver
from pbp.mail.read import auth
from pbp.mail.read.mime import read_letter

TRUSTED = "mx.example.test"
START = utc(2026, 12, 1, 17)
MOVE_AT = utc(2026, 12, 1, 18)
PASSED = f"Authentication-Results: {TRUSTED}; dmarc=pass header.from=example.test\r\n"
#: A field of the trusted id that passes nothing.
NEUTRAL = f"Authentication-Results: {TRUSTED}; dkim=neutral header.d=elsewhere.test\r\n"


def _table(tmp_path: Path, trusted: str | None) -> Iterator[Table]:
    table = Table(tmp_path, trusted=trusted)
    table.run(START)
    table.new_mail()
    yield table
    table.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    yield from _table(tmp_path, None)


@pytest.fixture
def trusting(tmp_path: Path) -> Iterator[Table]:
    """The game where games.yaml names the receiving server ``mx.example.test``."""
    yield from _table(tmp_path, TRUSTED)


def _raw(table: Table, sender: str, head: str, text: str = "СТАТУС") -> bytes:
    """Кросс's (or ``sender``'s) mail to Кросс's personal address: ``head`` (header
    fields, CRLF-ended) after From, To and Subject, then ``text``."""
    to = f"gm+{table.token('Кросс')}@example.test"
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: ход\r\nMessage-ID: <m@example.test>\r\n{head}"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n"
    ).encode()


def _spin(*_args: Any, **_kwargs: Any) -> Any:
    end = time.thread_time() + 60
    while time.thread_time() < end:
        pass
    raise AssertionError("the budget did not cut the work short")


def _budget(table: Table, seconds: float) -> None:
    mail = table.config.mail.model_copy(update={"cpu_seconds_per_message": seconds})
    table.service.config = table.config.model_copy(update={"mail": mail})


def test_a_players_header_section_over_64_kb_is_kept_cut_and_he_is_told_why(
    trusting: Table,
) -> None:
    """A player's own 1.9 MB mail of 460 fields (the server's pass on top, 460 of a
    relay's below it: fields of the trusted id there would be forged, test_auth_placement)."""
    relayed = NEUTRAL.replace(TRUSTED, "relay.example.test")
    raw = _raw(
        trusting, "cross@example.test", PASSED + relayed.replace("\r\n", " x" * 1960 + "\r\n") * 460
    )
    assert 1_800_000 < len(raw) < 2_000_000
    deliver(trusting.inbox_path, raw, at=MOVE_AT)
    assert trusting.run(MOVE_AT) == ["too_large"]
    [kept] = trusting.store.kept()
    assert (kept.reason, kept.raw) == (
        f"too_large: header section over 65536 bytes; {len(raw)} bytes in all",
        raw[:HEADER_BYTES],
    )
    mails = trusting.new_mail()
    assert summary(mails) == [
        ("cross@example.test", "[seed-000] Re: ход"),
        (
            GM,
            "[seed-000] Отложено: заголовки письма выходят за пределы, которые читает "
            "pbp, и оно не прочитано",
        ),
    ]
    assert named_body(mails[0], "seed-000").startswith(
        "Здравствуйте! Ваше письмо не прочитано: его служебные заголовки (От, Кому, Тема и "
        "другие строки над текстом) занимают больше 64 КБ, а принимаются заголовки до 64 КБ. "
        "Поэтому ходы из него не выполнены. ГМ получил уведомление."
    )
    assert (
        "  Причина: заголовки письма выходят за пределы, которые читает pbp, и оно не "
        "прочитано (больше 64 КБ)\n"
    ) in body(mails[1])


def test_the_verdict_reads_the_topmost_16_authentication_results_fields_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """25,000 tiny fields of the trusted id: each was parsed, 4.9 s in all."""
    parsed: list[str] = []
    real = auth._CONTEXT.parse_value

    def parse_value(value: str) -> Any:
        parsed.append(value)
        return real(value)

    monkeypatch.setattr(auth._CONTEXT, "parse_value", parse_value)
    fields = NEUTRAL * 25_000
    letter = read_letter(f"From: cross@example.test\r\n{fields}\r\nСТАТУС\r\n".encode())
    assert len(letter.authentication_results) == 16
    assert (
        auth.results_of([NEUTRAL[24:-2]] * 25_000, TRUSTED)
        == [auth.AuthResult("dkim", "neutral", {"header.d": "elsewhere.test"})] * 16
    )
    assert len(parsed) == 16


def test_the_header_section_is_read_on_the_cpu_budget(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept for the digest, nobody answered (its sender is unknown); later mail served."""
    _budget(table, 0.3)
    real = read_letter

    def spin_on_the_header(raw: bytes, **kwargs: Any) -> Any:
        return _spin() if kwargs.get("body") is False else real(raw, **kwargs)

    monkeypatch.setattr(pbp.app.intake, "read_letter", spin_on_the_header)
    raw = _raw(table, "cross@example.test", "", "x" * 100_000)
    deliver(table.inbox_path, raw, at=MOVE_AT)
    assert table.run(MOVE_AT) == ["forged_from"]
    [kept] = table.store.kept()
    assert (kept.reason, kept.raw) == (
        "forged_from: header section not read: reading it took over 0.3 s of CPU time",
        raw[:HEADER_BYTES],
    )
    assert table.new_mail() == []
    monkeypatch.undo()
    table.send("Дуг", "СТАТУС", at=MOVE_AT)
    assert table.run(MOVE_AT) == ["status"]


def test_the_authentication_verdict_runs_on_the_cpu_budget(
    trusting: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    _budget(trusting, 0.3)
    monkeypatch.setattr(pbp.app.message, "verdict", _spin)
    trusting.send("Кросс", "СТАТУС", at=MOVE_AT)
    assert trusting.run(MOVE_AT) == ["unauthenticated"]
    [kept] = trusting.store.kept()
    assert kept.reason == "unauthenticated: checking it took over 0.3 s of CPU time"
    assert [m["To"] for m in trusting.new_mail()] == ["cross@example.test", GM]


def test_a_mail_that_crashed_its_handler_is_read_for_its_notice_on_the_cpu_budget(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over it, its sender is unknown: nobody is answered, the digest has it."""
    _budget(table, 0.3)
    crash_apply(monkeypatch, "cluedo_days", 1)
    real = read_letter

    def spin_on_the_whole_mail(raw: bytes, **kwargs: Any) -> Any:
        return real(raw, **kwargs) if kwargs.get("body") is False else _spin()

    monkeypatch.setattr(pbp.app.intake, "read_letter", spin_on_the_whole_mail)
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=MOVE_AT)
    assert table.run(MOVE_AT) == ["error"]
    assert [k.reason for k in table.store.kept()] == ["error: RuntimeError('bug')"]
    assert table.new_mail() == []


# --- what is kept is cut the same way for strangers and registered senders ---------------


def test_an_unauthenticated_mail_is_kept_cut_like_a_strangers(trusting: Table) -> None:
    raw = _raw(trusting, "cross@example.test", NEUTRAL, "СТАТУС\r\n" + "x" * 1_500_000)
    deliver(trusting.inbox_path, raw, at=MOVE_AT)
    assert trusting.run(MOVE_AT) == ["unauthenticated"]
    [kept] = trusting.store.kept()
    assert kept.raw == stranger_raw(raw) == raw[:HEADER_BYTES]


def test_an_unreadable_mail_of_a_player_is_kept_cut_like_a_strangers(table: Table) -> None:
    message = EmailMessage(policy=SMTP)
    message["From"] = "cross@example.test"
    message["To"] = f"gm+{table.token('Кросс')}@example.test"
    message["Subject"] = "ход"
    message.add_attachment(b"\x00" * 1_000_000, maintype="application", subtype="octet-stream")
    raw = bytes(message)
    deliver(table.inbox_path, raw, at=MOVE_AT)
    assert table.run(MOVE_AT) == ["unreadable"]
    [kept] = table.store.kept()
    assert (kept.reason.partition(":")[0], kept.raw) == ("unreadable", raw[:HEADER_BYTES])


def test_the_header_section_of_a_mail_over_the_size_limit_is_kept_cut(trusting: Table) -> None:
    """As an older inbox delivered it: the whole header section of a stranger's 2.1 MB
    mail under a registered player's From (the store grew by 18 MB for four)."""
    head = _raw(trusting, "cross@example.test", NEUTRAL * 26_000, "")
    raw = RawMessage("big", None, MOVE_AT, head, size=len(head) + 10, truncated=True)
    assert trusting.service.handle(raw, MOVE_AT).outcome == "too_large"
    [kept] = trusting.store.kept()
    assert kept.raw == head[:HEADER_BYTES]
    assert kept.reason.startswith(f"too_large: {len(head) + 10} bytes, over the limit of 2000000;")
    assert trusting.new_mail() == []
