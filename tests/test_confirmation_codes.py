"""Codes die with the address they were sent for (issue 32, item 5).

Seed 000's game (kits.table): Кросс, Дуг, Роза; the GM is gm-person@example.test. A
forger knows the GM's personal address (it travels in every Reply-To) and forges the
GM's From; he never sees the confirmation mails, which go to the registered address.
Before: a code pending when the GM ran ``pbp rotate-token GAME --gm`` was applied when
he confirmed it later, and 60 forged lever mails made 30 confirmation mails, a "slow
down", a 37-line summary and 60 pending rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.table import GM, Table, body, moscow_text, named_body, summary, utc

from pbp.app.gm.by_mail import PENDING_CAP
from pbp.cli import main
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT

GAME = "seed-000"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def mail(table: Table, *lines: str, to: str, at: datetime, subject: str = "команды") -> None:
    """Deliver a plain mail with the GM's From (his own, or forged)."""
    message = EmailMessage(policy=SMTP)
    message["From"] = GM
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)


def gm_address(table: Table) -> str:
    return f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"


def kinds(table: Table) -> list[str]:
    return [s.event.kind for s in table.store.events(GAME)]


def answers(table: Table, subject: str = "[seed-000] Re: команды") -> list[EmailMessage]:
    """The mails to the GM with ``subject`` since the last look (a day that closed
    meanwhile on the real clock mails its posts too)."""
    return [m for m in table.new_mail() if (m["To"], m["Subject"]) == (GM, subject)]


def ask(table: Table, line: str, at: datetime) -> str:
    """A lever mail to the GM address, run: its confirmation address."""
    mail(table, line, to=gm_address(table), at=at)
    assert table.run(at + timedelta(seconds=30)) == ["gm_pending"]
    (confirm,) = answers(table, "[seed-000] Подтвердите команды ГМа")
    return str(confirm["Reply-To"])


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Table, datetime]]:
    """The game started half an hour before the real clock (``pbp rotate-token`` acts
    at the real time), and that start: mail arrives after it, replies after the real
    time."""
    table = Table(tmp_path, start=None)
    began = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=30)
    table.run(began)
    table.new_mail()
    yield table, began
    table.close()


def rotate_gm(table: Table) -> list[str]:
    """``pbp rotate-token seed-000 --gm`` (at the real time): its output lines."""
    result = CliRunner().invoke(
        main, ["-c", str(table.directory / "games.yaml"), "rotate-token", GAME, "--gm"]
    )
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_a_code_pending_when_the_gm_ran_rotate_token_gm_is_refused_when_confirmed_later(
    live: tuple[Table, datetime],
) -> None:
    table, began = live
    pause = ask(table, "ПАУЗА", began + timedelta(minutes=1))
    extend = ask(table, "ПРОДЛИТЬ 2", began + timedelta(minutes=2))
    old_gm = gm_address(table)
    assert rotate_gm(table) == [
        gm_address(table),
        "2 pending confirmations ended: a reply to their mails applies nothing.",
    ]
    assert gm_address(table) != old_gm
    row = table.store.confirmation(pause.removeprefix("gm+").removesuffix("@example.test"))
    assert row is not None and row.ended_at is not None and row.done_at is None
    # The GM confirms later, as he would have: nothing is applied, and he is told why.
    later = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=5)
    mail(table, "да", to=pause, at=later, subject="Re: команды")
    assert table.run(later + timedelta(minutes=1)) == ["gm_confirm_ended"]
    (ended,) = answers(table)
    assert (ended["To"], ended["Reply-To"]) == (GM, gm_address(table))
    assert named_body(ended, GAME) == (
        f"Это подтверждение отменено {moscow_text(row.ended_at)}, когда ваш адрес ГМа был "
        "заменён; ничего не выполнено. Если эти команды посылали вы сами, пришлите их ещё "
        f"раз на ваш новый адрес ГМа: {gm_address(table)}.\n"
    )
    # The other code likewise: the game runs on, neither paused nor extended.
    mail(table, "да", to=extend, at=later + timedelta(minutes=2), subject="Re: команды")
    assert table.run(later + timedelta(minutes=3)) == ["gm_confirm_ended"]
    assert [k for k in kinds(table) if k.startswith("gm_")] == ["gm_address_rotated"]
    assert table.store.pending_confirmations(GAME, later) == 0


def test_a_code_pending_when_the_gm_confirmed_new_address_by_mail_is_refused_later(
    table: Table,
) -> None:
    forged = ask(table, "ИСКЛЮЧИТЬ Дуга", utc(2026, 12, 1, 17, 10))
    renew = ask(table, "НОВЫЙ АДРЕС", utc(2026, 12, 1, 17, 12))
    mail(table, "да", to=renew, at=utc(2026, 12, 1, 17, 15), subject="Re: команды")
    assert table.run(utc(2026, 12, 1, 17, 16)) == ["gm_applied"]
    (result,) = table.new_mail()
    assert named_body(result, GAME).startswith(
        "> НОВЫЙ АДРЕС\n"
        f"Ваш новый адрес ГМа: {gm_address(table)} (он в Reply-To этого письма). Старый "
        "больше не работает: на письмо туда придёт ответ, что он заменён.\n"
        "Отменено 1 ожидавшее подтверждение: ответ на его письмо ничего не выполнит.\n\n"
        f"Ваш адрес ГМа для команд: {gm_address(table)}\n"
    )
    mail(table, "да", to=forged, at=utc(2026, 12, 1, 17, 20), subject="Re: команды")
    assert table.run(utc(2026, 12, 1, 17, 21)) == ["gm_confirm_ended"]
    assert "gm_remove" not in kinds(table)
    (ended,) = table.new_mail()
    assert named_body(ended, GAME) == (
        "Это подтверждение отменено 1 декабря 2026 г., 20:15 по Москве, когда ваш адрес ГМа "
        "был заменён; ничего не выполнено. Если эти команды посылали вы сами, пришлите их "
        f"ещё раз на ваш новый адрес ГМа: {gm_address(table)}.\n"
    )


def test_60_forged_levers_ask_five_confirmations_and_the_rest_are_one_line_of_the_digest(
    table: Table,
) -> None:
    leaked = gm_address(table)
    for n in range(60):
        mail(table, "ПАУЗА -- срочно", to=leaked, at=utc(2026, 12, 1, 17, 10, n))
    assert PENDING_CAP == 5
    assert table.run(utc(2026, 12, 1, 17, 12)) == ["gm_pending"] * 5 + ["gm_capped"] * 55
    mails = table.new_mail()
    assert summary(mails) == [(GM, "[seed-000] Подтвердите команды ГМа")] * 5  # no slow down
    assert table.store.pending_confirmations(GAME, utc(2026, 12, 1, 17, 12)) == 5
    assert table.store.last_event(GAME, ("gm_pause",)) is None
    # No answer was held back for an hourly summary either.
    table.run(utc(2026, 12, 1, 18, 30))
    assert table.new_mail() == []
    # The daily digest counts them on one line and lists none of them.
    table.run(utc(2026, 12, 2, 6, 3))
    (digest,) = [m for m in table.new_mail() if "Сводка за сутки" in str(m["Subject"])]
    assert digest["Subject"] == "[seed-000] Сводка за сутки: 55 писем отложено или без ответа"
    assert [line for line in body(digest).splitlines() if line[:1] in ("#", "-", " ")] == [
        "  55 писем: команды ГМа на ваш адрес ГМа, на которые не пришло письмо-подтверждение: "
        "подтверждений и так ждало достаточно (не ваши? ваш адрес ГМа попал к кому-то ещё: "
        "пошлите на него НОВЫЙ АДРЕС и подтвердите).",
    ]
    assert "…и ещё" not in body(digest)


def test_a_new_gm_address_makes_room_under_the_cap_again(
    live: tuple[Table, datetime],
) -> None:
    table, began = live
    leaked = gm_address(table)
    for n in range(PENDING_CAP + 1):
        mail(table, "ПАУЗА", to=leaked, at=began + timedelta(minutes=1, seconds=n))
    assert table.run(began + timedelta(minutes=2)) == ["gm_pending"] * 5 + ["gm_capped"]
    table.new_mail()
    assert rotate_gm(table)[1:] == [
        "5 pending confirmations ended: a reply to their mails applies nothing."
    ]
    later = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=5)
    code = ask(table, "ПАУЗА", later)
    mail(table, "да", to=code, at=later + timedelta(minutes=1), subject="Re: команды")
    assert table.run(later + timedelta(minutes=2)) == ["gm_applied"]
    assert table.store.last_event(GAME, ("gm_pause",)) is not None


def test_the_gms_new_address_is_asked_when_forged_levers_filled_the_cap(table: Table) -> None:
    """Before: with the cap full of forged levers, the GM's own NEW ADDRESS (the remedy
    the digest names) was dropped without a word (``gm_capped``). Now it is asked for
    alone under one extra code per GM address and day; asked again, the same code is
    mailed again; confirmed, it gives the new address and ends the forged ones."""
    leaked = gm_address(table)
    for n in range(PENDING_CAP):
        mail(table, "ИСКЛЮЧИТЬ Дуга", to=leaked, at=utc(2026, 12, 1, 17, 10, n))
    assert table.run(utc(2026, 12, 1, 17, 11)) == ["gm_pending"] * PENDING_CAP
    table.new_mail()
    mail(table, "НОВЫЙ АДРЕС", "ПАУЗА", to=leaked, at=utc(2026, 12, 1, 17, 12))
    assert table.run(utc(2026, 12, 1, 17, 13)) == ["gm_pending"]
    (confirm,) = answers(table, "[seed-000] Подтвердите команды ГМа")
    assert "  НОВЫЙ АДРЕС\n" in body(confirm) and "ПАУЗА" not in body(confirm)
    assert table.store.pending_confirmations(GAME, utc(2026, 12, 1, 17, 13)) == PENDING_CAP + 1
    mail(table, "НОВЫЙ АДРЕС", to=leaked, at=utc(2026, 12, 1, 17, 14))
    assert table.run(utc(2026, 12, 1, 17, 15)) == ["gm_pending"]
    (again,) = answers(table, "[seed-000] Подтвердите команды ГМа")
    assert again["Reply-To"] == confirm["Reply-To"]
    assert table.store.pending_confirmations(GAME, utc(2026, 12, 1, 17, 15)) == PENDING_CAP + 1
    mail(table, "да", to=str(confirm["Reply-To"]), at=utc(2026, 12, 1, 17, 16), subject="Re: к")
    assert table.run(utc(2026, 12, 1, 17, 17)) == ["gm_applied"]
    assert gm_address(table) != leaked
    (result,) = answers(table, "[seed-000] Re: к")
    assert f"Ваш новый адрес ГМа: {gm_address(table)}" in body(result)
    assert f"Отменено {PENDING_CAP} ожидавших подтверждений" in body(result)
    assert table.store.pending_confirmations(GAME, utc(2026, 12, 1, 17, 17)) == 0
    assert "gm_remove" not in kinds(table) and "gm_pause" not in kinds(table)


def test_a_players_new_address_ends_no_gm_confirmation(table: Table) -> None:
    code = ask(table, "ПРОДЛИТЬ 2", utc(2026, 12, 1, 17, 10))
    table.send("Дуг", "НОВЫЙ АДРЕС", at=utc(2026, 12, 1, 17, 11))
    assert table.run(utc(2026, 12, 1, 17, 12)) == ["new_address"]
    table.new_mail()
    mail(table, "да", to=code, at=utc(2026, 12, 1, 17, 13), subject="Re: команды")
    assert table.run(utc(2026, 12, 1, 17, 14)) == ["gm_applied"]
    assert "gm_extend" in kinds(table)


def test_a_code_ended_while_its_reply_was_being_read_applies_nothing(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pbp rotate-token --gm`` in another process between the reply's lookup of its
    code and the transaction that would apply it: the row as it stands inside the
    transaction decides."""
    code = ask(table, "ПАУЗА", utc(2026, 12, 1, 17, 10))
    stale = table.store.confirmation(code.removeprefix("gm+").removesuffix("@example.test"))
    assert stale is not None and stale.ended_at is None
    rotated = table.service.addresses.rotate_token(
        GAME, GM_SEAT, now=utc(2026, 12, 1, 17, 12), via="cli"
    )
    assert rotated.ended == 1
    monkeypatch.setattr(table.service.confirmations, "confirmation", lambda tokens: stale)
    mail(table, "да", to=code, at=utc(2026, 12, 1, 17, 13), subject="Re: команды")
    assert table.run(utc(2026, 12, 1, 17, 14)) == ["gm_confirm_ended"]
    assert table.store.last_event(GAME, ("gm_pause",)) is None
