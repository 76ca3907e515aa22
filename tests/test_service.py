"""The daemon's logic (pbp.app.service) on Maildir transports with a controlled clock.

Seed 000's worked example (Кросс, Дуг, Роза, fixed deal), Europe/Moscow, day close
22:30 = 19:30 UTC. Rule ids of RULES.md in the names.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import SMTP, default
from pathlib import Path

import pytest
from kits.cli import run_ok
from kits.table import EMAILS, GM, Table, body, crash_apply, summary, utc

from pbp.mail.base import PermanentSendError, TransientSendError
from pbp.mail.maildir import deliver
from pbp.store import TransactionLostError

WELCOME = "[seed-000] Клуэдо: ваши карты"
FORMATS = ("BBCode",)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    yield table
    table.close()


def only(mails: list[EmailMessage], to: str) -> EmailMessage:
    """The one mail to ``to``."""
    found = [m for m in mails if m["To"] == to]
    assert len(found) == 1, summary(mails)
    return found[0]


def test_D1_start_mails_hands_personal_addresses_and_the_gm_sheet(table: Table) -> None:
    mails = table.new_mail()
    assert summary(mails) == [
        ("cross@example.test", WELCOME),
        ("doug@example.test", WELCOME),
        ("rosa@example.test", WELCOME),
        (GM, "[seed-000] Лист ГМа: решение и карты"),
        (GM, "[seed-000] Первый пост игры (день 1) — BBCode"),
    ]
    hands = {
        "cross@example.test": "Ваши карты: Петя, Ваня, Нож.",
        "doug@example.test": "Ваши карты: Спальня, Пистолет, Молоток.",
        "rosa@example.test": "Ваши карты: Библиотека, Канделябр, Веревка.",
    }
    for mail, player in zip(mails, ("Кросс", "Дуг", "Роза"), strict=False):
        text = body(mail)
        assert hands[str(mail["To"])] in text.splitlines()
        personal = f"gm+{table.token(player)}@example.test"
        assert mail["Reply-To"] == personal
        assert f"Ваш личный адрес для ходов: {personal}" in text
        assert mail["Auto-Submitted"] == "auto-generated"
        # No other player's hand is in his mail.
        for other, line in hands.items():
            if other != mail["To"]:
                assert line not in text
    sheet = body(mails[3])
    assert "Маша" in sheet and "Топор" in sheet and "Столовая" in sheet
    opening = body(mails[4])
    assert "- Кросс — [b]Петя[/b]" in opening
    assert "Комнаты: [b]Столовая[/b], [b]Спальня[/b], [b]Библиотека[/b]" in opening


def test_D4_suggestion_is_answered_with_the_forum_snippet_and_sent_to_the_addressee(
    table: Table,
) -> None:
    table.new_mail()
    sent_id = table.send(
        "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5)
    )
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
    mails = table.new_mail()
    assert summary(mails) == [
        ("cross@example.test", "[seed-000] Re: ход"),
        ("doug@example.test", "[seed-000] Предположение №1 от Кросса"),
    ]
    reply = mails[0]
    assert reply["In-Reply-To"] == sent_id
    assert reply["References"] == sent_id
    assert reply["Auto-Submitted"] == "auto-replied"
    assert (
        "[b]Предположение_1 для Дуг (№1)[/b]\n"
        "Я думаю, что убийца — [b]Маша[/b], [b]Пистолетом[/b] [b]в Спальне[/b]." in body(reply)
    )
    assert "У вас есть: Пистолет, Спальня. Вы обязаны его опровергнуть;" in body(mails[1])


def test_C4_the_shown_card_reaches_only_the_suggester(table: Table) -> None:
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 17, 6))
    table.new_mail()
    table.send("Дуг", "опровержение спальня", at=utc(2026, 12, 1, 17, 7))
    assert table.run(utc(2026, 12, 1, 17, 8)) == ["applied"]
    mails = table.new_mail()
    assert summary(mails) == [
        ("doug@example.test", "[seed-000] Re: ход"),
        ("cross@example.test", "[seed-000] Предположение №1: вам показали карту"),
    ]
    assert "Дуг показывает вам карту «Спальня»." in body(mails[1])
    assert "Карта показана приватом." in body(mails[0])
    # The public log names the refuter, never the card.
    public = [s.event for s in table.store.events("seed-000", public_only=True)]
    refuted = [e for e in public if e.kind == "refuted"]
    assert len(refuted) == 1 and "card" not in refuted[0].data
    assert all("card" not in e.data for e in public)


def test_C4_no_refutation_while_holding_a_card_is_refused_with_the_allowed_cards(
    table: Table,
) -> None:
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 17, 6))
    table.new_mail()
    table.send("Дуг", "НЕТ ОПРОВЕРЖЕНИЯ", at=utc(2026, 12, 1, 17, 7))
    assert table.run(utc(2026, 12, 1, 17, 8)) == ["refused"]
    mails = table.new_mail()
    assert summary(mails) == [("doug@example.test", "[seed-000] Re: ход")]
    assert "Не выполнено:\n\n> НЕТ ОПРОВЕРЖЕНИЯ\n" in body(mails[0])
    assert "Пистолет, Спальня" in body(mails[0])


@pytest.fixture
def roomy(tmp_path: Path) -> Iterator[Table]:
    """:func:`table` with ``catch_up_limit: 5``: an outage of days is caught up (rule P3)."""
    table = Table(tmp_path, extra="catch_up_limit: 5\n")
    table.run(utc(2026, 12, 1, 17))
    yield table
    table.close()


def test_D8_mail_that_arrived_before_a_missed_close_belongs_to_its_own_day(roomy: Table) -> None:
    """The daemon is down from 17:00 on day 1 to day 4: mail and closes interleave."""
    table = roomy
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 19, 29))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 19, 31))
    assert table.run(utc(2026, 12, 3, 20)) == ["applied", "applied"]
    rows = [
        (s.day, s.at, s.event.kind, s.event.data.get("number"))
        for s in table.store.events("seed-000", public_only=True)
        if s.event.kind != "game_started"
    ]
    assert rows == [
        (1, utc(2026, 12, 1, 19, 29), "suggestion_made", 1),
        (1, utc(2026, 12, 1, 19, 30), "refuted", 1),
        (1, utc(2026, 12, 1, 19, 30), "day_closed", None),
        (2, utc(2026, 12, 1, 19, 31), "suggestion_made", 2),
        (2, utc(2026, 12, 2, 19, 30), "refuted", 2),
        (2, utc(2026, 12, 2, 19, 30), "day_closed", None),
        (3, utc(2026, 12, 3, 19, 30), "day_closed", None),
    ]


def test_D6_missed_closes_are_caught_up_once_each(roomy: Table) -> None:
    table = roomy
    table.new_mail()
    table.run(utc(2026, 12, 4, 19, 31))
    table.run(utc(2026, 12, 4, 19, 32))
    closes = [
        s.event.data["day"] for s in table.store.events("seed-000") if s.event.kind == "day_closed"
    ]
    assert closes == [1, 2, 3, 4]
    subjects = [subject for to, subject in summary(table.new_mail()) if to == GM]
    assert subjects == [
        f"[seed-000] Итоги дня {day} — {fmt}" for day in (1, 2, 3, 4) for fmt in FORMATS
    ]


def test_D4_the_gms_default_answer_is_quoted_like_a_players(table: Table) -> None:
    # Дуг answers #1 himself; #2 is left to the GM. Both answers read the same in form:
    # the move's heading, the suggestion quoted with its cards in bold (seed 001).
    table.new_mail()
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 6))
    table.run(utc(2026, 12, 1, 17, 7))
    table.new_mail()
    table.send("Дуг", "ОПРОВЕРЖЕНИЕ 1 Пистолет", at=utc(2026, 12, 1, 17, 10))
    table.run(utc(2026, 12, 1, 17, 11))
    (reply,) = [m for m in table.new_mail() if m["To"] == "doug@example.test"]
    assert (
        "[b]Опровержение для Кросса[/b]\n"
        "[quote][b]Предположение_1 для Дуг (№1)[/b]\n"
        "Я думаю, что убийца — [b]Маша[/b], [b]Пистолетом[/b] [b]в Спальне[/b].[/quote]\n"
        "Карта показана приватом." in body(reply)
    )
    table.run(utc(2026, 12, 1, 19, 31))
    mails = [m for m in table.new_mail() if "— BBCode" in str(m["Subject"])]
    assert (
        "[b]Ответы ГМа за не ответивших до закрытия дня[/b]\n"
        "\n"
        "[b]Отсутствие опровержения для Кросса[/b] (за Дуг ответил ГМ)\n"
        "[quote][b]Предположение_2 для Дуг (№2)[/b]\n"
        "Я думаю, что убийца — [b]Ваня[/b], [b]Ножом[/b] [b]в Столовой[/b].[/quote]\n"
        "Опровергнуть нечем.\n" in body(only(mails, GM))
    )


def test_D6_gm_answers_at_close_and_the_addressee_loses_a_suggestion(table: Table) -> None:
    table.new_mail()
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 19, 31))
    mails = [m for m in table.new_mail() if "— BBCode" in str(m["Subject"]) or m["To"] != GM]
    day = body(only(mails, GM))
    assert (
        "- №1, Кросс → Дуг: [b]Маша[/b], [b]Пистолет[/b], [b]Спальня[/b] — опровергнуто "
        "(за Дуг ответил ГМ)" in day
    )
    assert "- Дуг: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше" in day
    assert "- Дуг: 2 предположения" in day
    # C5: the first matching card in the order suspect, weapon, room is Пистолет.
    shown = [m for m in mails if m["Subject"] == "[seed-000] Предположение №1: вам показали карту"]
    assert [str(m["To"]) for m in shown] == ["cross@example.test"]
    assert "За Дуг ответил ГМ и показал вам карту «Пистолет»." in body(shown[0])
    (told,) = [m for m in mails if m["Subject"] == "[seed-000] Предположение №1: за вас ответил ГМ"]
    assert told["To"] == "doug@example.test"
    assert body(told) == (
        "Игра: seed-000\n"
        "\n"
        "Дуг, вы не ответили до закрытия дня на предположение №1 от Кросса "
        "(Маша, Пистолет, Спальня).\n"
        "ГМ ответил за вас и показал Кроссу вашу карту «Пистолет» (первую подходящую в порядке "
        "подозреваемый — орудие — комната).\n"
        "За это предположение на следующий день у вас будет на одно предположение меньше.\n"
    )


def test_reminder_lists_open_duties_once_before_the_close(tmp_path: Path) -> None:
    extra = "remind_hours_before: 3\ncatch_up_limit: 2\n"
    table = Table(tmp_path, start="2026-12-01T12:00", extra=extra)
    try:
        table.run(utc(2026, 12, 1, 9))
        table.send(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 10)
        )
        table.run(utc(2026, 12, 1, 16, 29))
        table.new_mail()
        table.run(utc(2026, 12, 1, 16, 31))
        table.run(utc(2026, 12, 1, 16, 40))
        mails = table.new_mail()
        subject = "[seed-000] Напоминание: день закрывается 1 декабря 2026 г., 22:30 по Москве"
        assert summary(mails) == [
            ("cross@example.test", subject),
            ("doug@example.test", subject),
            ("rosa@example.test", subject),
        ]
        doug = body(mails[1])
        assert "- Вы должны ответить Кроссу на предположение №1 (Маша, Пистолет, Спальня)." in doug
        assert "- На сегодня у вас осталось 3 предположения." in doug
        assert "- На сегодня у вас осталось 2 предположения." in body(mails[0])
    finally:
        table.close()


def test_status_answers_privately_with_hand_shown_cards_and_duties(table: Table) -> None:
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.send("Дуг", "ОПРОВЕРЖЕНИЕ 1 Пистолет", at=utc(2026, 12, 1, 17, 6))
    table.send("Кросс", "статус", at=utc(2026, 12, 1, 17, 7))
    assert table.run(utc(2026, 12, 1, 17, 8)) == ["applied", "applied", "status"]
    status = body(table.sent()[-1])
    assert "Ваши карты: Петя, Ваня, Нож." in status
    assert "Пистолет" in status and "от Дуг" in status
    assert "Сегодня можно сделать ещё 2 предположения." in status


def test_unregistered_sender_is_kept_never_answered_and_in_the_gm_digest(table: Table) -> None:
    """Backscatter: a stranger's mail is not answered, and the GM gets no notice of
    it at once: it is a line of his next daily digest (09:00 Moscow = 06:00 UTC)."""
    table.new_mail()
    table.send(
        "Кросс",
        "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг",
        at=utc(2026, 12, 1, 17, 5),
        sender="stranger@example.test",
        to="gm@example.test",
    )
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["unknown_sender"]
    assert table.new_mail() == []
    assert [k.reason for k in table.store.kept()] == ["unknown_sender"]
    assert [s.event.kind for s in table.store.events("seed-000")][-1] == "game_started"
    table.run(utc(2026, 12, 2, 6))
    assert summary(table.new_mail()) == [
        (GM, "[seed-000] Итоги дня 1 — BBCode"),
        (GM, "[seed-000] Сводка за сутки: 1 письмо отложено или без ответа"),
    ]


def test_registered_player_without_token_gets_his_personal_address_again(table: Table) -> None:
    table.new_mail()
    table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 17, 5), to="gm@example.test")
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["token_missing"]
    mail = only(table.new_mail(), "cross@example.test")
    personal = f"gm+{table.token('Кросс')}@example.test"
    assert f"Игра «seed-000», игрок Кросс: {personal}" in body(mail)


def test_token_of_another_player_is_refused_and_the_gm_told(table: Table) -> None:
    table.new_mail()
    to = f"gm+{table.token('Дуг')}@example.test"
    table.send("Кросс", "НЕТ ОПРОВЕРЖЕНИЯ", at=utc(2026, 12, 1, 17, 5), to=to)
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["wrong_sender"]
    assert summary(table.new_mail()) == [
        ("cross@example.test", "[seed-000] Re: ход"),
        (GM, "[seed-000] Отложено: письмо пришло на личный адрес другого игрока"),
    ]


@pytest.mark.parametrize(
    "header",
    [("Auto-Submitted", "auto-replied"), ("Precedence", "bulk"), ("List-Id", "<l.example.test>")],
)
def test_auto_replies_are_kept_and_never_answered(table: Table, header: tuple[str, str]) -> None:
    """RFC 3834: no answer to automatic mail, so no mail loop."""
    table.new_mail()
    table.send("Кросс", "Я в отпуске", at=utc(2026, 12, 1, 17, 5), headers=[header])
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["automatic"]
    assert table.new_mail() == []
    assert [k.reason for k in table.store.kept()] == ["automatic or no sender"]


def test_a_report_part_inside_multipart_mixed_makes_a_players_mail_automatic(
    table: Table,
) -> None:
    """RFC 3834/3464: a delivery report is automatic wherever it sits in the MIME tree,
    not only at the top; the header section alone does not show it, the body does."""
    table.new_mail()
    raw = (
        "From: cross@example.test\r\n"
        f"To: gm+{table.token('Кросс')}@example.test\r\n"
        "Subject: ход\r\nMessage-ID: <report-in-mixed@example.test>\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="BB"\r\n\r\n'
        "--BB\r\nContent-Type: text/plain\r\n\r\nSTATUS\r\n"
        "--BB\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.test\r\n\r\n"
        "--BB--\r\n"
    ).encode()
    deliver(table.inbox_path, raw, at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["automatic"]
    assert table.new_mail() == []
    assert [k.reason for k in table.store.kept()] == ["automatic or no sender"]


def test_the_same_message_twice_is_applied_once(table: Table) -> None:
    table.new_mail()
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    raw = next((table.inbox_path / "new").iterdir()).read_bytes()
    table.run(utc(2026, 12, 1, 17, 6))
    (table.inbox_path / "new" / "copy").write_bytes(raw)  # the same Message-ID again
    assert table.run(utc(2026, 12, 1, 17, 7)) == ["duplicate"]
    numbers = [
        s.event.data["number"]
        for s in table.store.events("seed-000")
        if s.event.kind == "suggestion_made"
    ]
    assert numbers == [1]
    assert len(table.new_mail()) == 2


def test_a_message_that_crashes_its_handler_is_rolled_back_kept_and_does_not_block(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    table.new_mail()
    crash_apply(monkeypatch, "cluedo_days", 1)
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 17, 6))
    assert table.run(utc(2026, 12, 1, 17, 7)) == ["error", "applied"]
    assert [k.reason for k in table.store.kept()] == ["error: RuntimeError('bug')"]
    suggestions = [
        (s.event.data["number"], s.event.data["suggester"])
        for s in table.store.events("seed-000")
        if s.event.kind == "suggestion_made"
    ]
    assert suggestions == [(1, "Роза")]
    mails = table.new_mail()
    assert "При обработке вашего письма произошла ошибка программы" in body(mails[0])
    assert summary(mails) == [
        ("cross@example.test", "[seed-000] Re: ход"),
        (GM, "[seed-000] Отложено: при обработке произошла ошибка программы"),
        ("rosa@example.test", "[seed-000] Re: ход"),
        ("cross@example.test", "[seed-000] Предположение №1 от Розы"),
    ]


def test_waiting_mail_commits_as_one_group_and_a_crash_rolls_back_only_its_own_message(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Group commit (issue 18): three waiting messages are one transaction, one sync
    to disk; the second crashes its handler, and only what it wrote is rolled back
    (its savepoint): the first's suggestion stands, the third is answered."""
    table.new_mail()
    crash_apply(monkeypatch, "cluedo_days", 2)
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 17, 6))
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 17, 6))
    statements: list[str] = []
    table.store._db.set_trace_callback(statements.append)
    try:
        outcomes = table.service.process_inbox(utc(2026, 12, 1, 17, 7))
    finally:
        table.store._db.set_trace_callback(None)
    assert [o.outcome for o in outcomes] == ["applied", "error", "status"]
    # One transaction for the three messages; then the one that records the mail they
    # queued as sent (sent before the messages are marked done), and nothing else.
    marks = [i for i, s in enumerate(statements) if s in ("BEGIN IMMEDIATE", "COMMIT")]
    assert [statements[i] for i in marks] == ["BEGIN IMMEDIATE", "COMMIT"] * 2
    recorded = statements[marks[2] + 1 : marks[3]]
    assert recorded and all(s.startswith("UPDATE outbox SET sent_at") for s in recorded)
    assert [s for s in statements if s.startswith("ROLLBACK")] == ["ROLLBACK TO pbp_1"]
    suggestions = [
        (s.event.data["number"], s.event.data["suggester"])
        for s in table.store.events("seed-000")
        if s.event.kind == "suggestion_made"
    ]
    assert suggestions == [(1, "Кросс")]
    assert [k.reason for k in table.store.kept()] == ["error: RuntimeError('bug')"]


def test_a_full_disk_in_a_commit_group_commits_none_of_it_and_a_later_round_all(
    table: Table,
) -> None:
    """On a full disk (SQLITE_FULL: here ``max_page_count``) SQLite rolls the whole group
    transaction back when the second message writes: the first message's suggestion
    went with it. The round fails whole (TransactionLostError), nothing is committed,
    nobody is told of a program error; with room again the three are handled in arrival
    order (D8). Before, the second was kept as an error, the third committed on its own
    outside the group, and the first applied a round later, after both."""
    table.new_mail()
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 17, 6))
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 17, 7))
    db = table.store._db
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(TransactionLostError, match="database or disk is full"):
        table.service.process_inbox(utc(2026, 12, 1, 17, 8))
    assert db.execute("SELECT count(*) FROM messages").fetchone() == (0,)
    assert table.store.kept() == []
    assert table.new_mail() == []
    db.execute("PRAGMA max_page_count = 1073741823")
    outcomes = table.service.process_inbox(utc(2026, 12, 1, 17, 9))
    assert [o.outcome for o in outcomes] == ["applied", "applied", "status"]
    suggestions = [
        (s.event.data["number"], s.event.data["suggester"])
        for s in table.store.events("seed-000")
        if s.event.kind == "suggestion_made"
    ]
    assert suggestions == [(1, "Кросс"), (2, "Роза")]


def test_answers_go_out_before_their_messages_are_marked_done(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18 (latency): a commit group's mail is sent right after its commit, before
    the IMAP round trips that mark its messages done; each group's own mail."""
    monkeypatch.setattr("pbp.app.service.COMMIT_GROUP", 1)
    table.new_mail()
    steps: list[str] = []
    transport, inbox = table.service.transport, table.service.inbox
    assert transport is not None and inbox is not None
    sendmail, mark_done = transport.sendmail, inbox.mark_done

    def sending(envelope_from: str, recipients: Sequence[str], raw: bytes) -> None:
        steps.append(f"sent to {', '.join(recipients)}")
        sendmail(envelope_from, recipients, raw)

    def marking(keys: Sequence[str]) -> None:
        steps.append(f"marked {len(keys)} done")
        mark_done(keys)

    monkeypatch.setattr(transport, "sendmail", sending)
    monkeypatch.setattr(inbox, "mark_done", marking)
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 17, 5))
    table.send("Роза", "СТАТУС", at=utc(2026, 12, 1, 17, 6))
    outcomes = table.service.process_inbox(utc(2026, 12, 1, 17, 7))
    assert [o.outcome for o in outcomes] == ["status", "status"]
    assert steps == [
        f"sent to {EMAILS['Дуг']}",
        f"sent to {EMAILS['Роза']}",
        "marked 2 done",
    ]


def test_a_failing_transport_is_tried_once_while_the_inbox_is_read(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The early send after a commit group stops for the round once mail stays due (the
    server is down): three groups, one attempt; the round's end tries once more."""
    monkeypatch.setattr("pbp.app.service.COMMIT_GROUP", 1)
    table.new_mail()
    flaky = FlakyTransport([TransientSendError("421 try later")] * 5)
    table.service.transport = flaky
    for minute, player in enumerate(("Дуг", "Роза", "Кросс")):
        table.send(player, "СТАТУС", at=utc(2026, 12, 1, 17, 5 + minute))
    table.service.process_inbox(utc(2026, 12, 1, 17, 9))
    assert len(flaky.failures) == 4  # one attempt for the three groups
    table.service.run_once(utc(2026, 12, 1, 17, 9))
    assert len(flaky.failures) == 3  # and one at the round's end
    assert flaky.sent == []


def test_a_transport_raising_unexpectedly_does_not_stop_the_inbox(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transport that raises what it should not (a bug, not a 4yz or 5yz reply) fails
    the round at its end, as before the early send (issue 18): every message is still
    applied and marked done, each group's mail tried once, and it all goes out once
    the transport works."""
    monkeypatch.setattr("pbp.app.service.COMMIT_GROUP", 1)
    table.new_mail()
    broken = FlakyTransport([RuntimeError("bug in the transport")] * 2)
    table.service.transport = broken
    inbox = table.service.inbox
    assert inbox is not None
    for minute, player in enumerate(("Дуг", "Роза", "Кросс")):
        table.send(player, "СТАТУС", at=utc(2026, 12, 1, 17, 5 + minute))
    with pytest.raises(RuntimeError, match="bug in the transport"):
        table.service.run_once(utc(2026, 12, 1, 17, 9))
    assert inbox.fetch_new() == []  # all three applied and marked done
    assert table.service.run_once(utc(2026, 12, 1, 17, 10)) == []
    assert sorted(str(m["To"]) for m in broken.sent) == sorted(
        EMAILS[p] for p in ("Дуг", "Роза", "Кросс")
    )


class FlakyTransport:
    """A transport failing on demand: SMTP faults a real server cannot show at will."""

    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.sent: list[EmailMessage] = []

    def sendmail(self, envelope_from: str, recipients: Sequence[str], raw: bytes) -> None:
        if self.failures:
            raise self.failures.pop(0)
        message = message_from_bytes(raw, policy=SMTP)
        assert isinstance(message, EmailMessage)
        self.sent.append(message)

    def close(self) -> None:
        pass


def test_outbox_retries_with_backoff_and_gives_up_on_a_permanent_refusal(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        flaky = FlakyTransport([TransientSendError("421 try later")])
        table.service.transport = flaky
        table.run(utc(2026, 12, 1, 17))
        assert flaky.sent == []
        pending = [m for m in table.store.outbox() if m.sent_at is None]
        assert len(pending) == 5  # 3 hands, the GM sheet, the opening post in BBCode
        assert pending[0].next_attempt_at == utc(2026, 12, 1, 17, 0, 30)
        # Before its retry time only the mails never tried go out.
        table.service.flush_outbox(utc(2026, 12, 1, 17, 0, 29))
        assert [str(m["To"]) for m in flaky.sent] == [
            "doug@example.test",
            "rosa@example.test",
            GM,
            GM,
        ]
        flaky.failures = [PermanentSendError("550 no such user")]
        table.service.flush_outbox(utc(2026, 12, 1, 17, 0, 30))
        failed = [(m.recipient, m.attempts, m.failed) for m in table.store.outbox() if m.failed]
        assert failed == [("cross@example.test", 2, "550 no such user")]
        # A retried mail keeps its Message-ID: stored once, sent as stored.
        *ids, note = table.store.outbox()
        assert [str(m["Message-ID"]) for m in flaky.sent[:4]] == [m.message_id for m in ids[1:]]
        # The GM is told in the same transaction that gave it up (issue 6, promise 5),
        # and the note goes out in the same flush (the outbox is sent to the end).
        assert len(flaky.sent) == 5
        assert (note.recipient, note.sent_at) == (GM, utc(2026, 12, 1, 17, 0, 30))
        assert str(flaky.sent[4]["Message-ID"]) == note.message_id
        assert f"Message-ID: {ids[0].message_id}" in _text(note.raw)
    finally:
        table.close()


def test_C7_fairness_final_post_reveals_the_canonical_deal_of_the_opening_commitment(
    table: Table,
) -> None:
    mails = table.new_mail()
    opening = body(mails[4])
    commitment = re.search(r"SHA-256: ([0-9a-f]{64})", opening)
    assert commitment is not None
    table.send("Роза", "ОБВИНЕНИЕ Маша, Топор, Столовая", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
    final = [m for m in table.new_mail() if m["To"] == GM and "пост — BBCode" in str(m["Subject"])]
    assert len(final) == 1
    text = body(final[0])
    canonical = re.search(r'(\{"deal":.*\})', text)
    assert canonical is not None
    assert hashlib.sha256(canonical.group(1).encode()).hexdigest() == commitment.group(1)
    assert '"solution":{"room":"Столовая","suspect":"Маша","weapon":"Топор"}' in canonical.group(1)
    row = table.store.game("seed-000")
    assert row is not None and row.over and row.deadline_at is None


def test_a_game_whose_start_passed_while_the_daemon_was_down_starts_now(tmp_path: Path) -> None:
    """Nobody had his hand before the daemon ran: no empty game days are closed."""
    table = Table(tmp_path, start="2026-11-28T20:00")
    try:
        table.run(utc(2026, 12, 1, 17))
        row = table.store.game("seed-000")
        assert row is not None
        assert (row.started_at, row.deadline_at) == (
            utc(2026, 12, 1, 17),
            utc(2026, 12, 1, 19, 30),
        )
        kinds = [s.event.kind for s in table.store.events("seed-000")]
        assert "day_closed" not in kinds
    finally:
        table.close()


def test_a_game_before_its_start_answers_its_players_with_the_start_time(tmp_path: Path) -> None:
    table = Table(tmp_path, start="2026-12-05T20:00")
    try:
        table.run(utc(2026, 12, 1, 17))
        assert table.store.game("seed-000") is None
        table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 17, 1), to="gm@example.test")
        assert table.run(utc(2026, 12, 1, 17, 2)) == ["not_started"]
        (mail,) = table.new_mail()
        assert mail["Subject"] == "[seed-000] Re: ход"
        assert "Начало: 2026-12-05T20:00:00+03:00." in body(mail).splitlines()
    finally:
        table.close()


def test_D4_the_seed_form_is_quoted_whole_and_answered_with_the_days_own_heading(
    table: Table,
) -> None:
    table.new_mail()
    table.send(
        "Кросс",
        "Предположение_1 для Дуг",
        "Я думаю, что убийство совершила Маша, пистолетом в спальне",
        at=utc(2026, 12, 1, 17, 5),
    )
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
    reply = body(table.new_mail()[0])
    assert reply == (
        "Игра: seed-000\n"
        "\n"
        "Кросс, вот что сделано по вашему письму.\n"
        "\n"
        "Выполнено:\n"
        "\n"
        "> Предположение_1 для Дуг\n"
        "> Я думаю, что убийство совершила Маша, пистолетом в спальне\n"
        "Понял: ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг\n"
        "Принято: предположение №1 для Дуг (Маша, Пистолет, Спальня). "
        "Дуг получит его по почте.\n"
        "\n"
        "Для форума (скопируйте в тред игры):\n"
        "\n"
        "[b]Предположение_1 для Дуг (№1)[/b]\n"
        "Я думаю, что убийца — [b]Маша[/b], [b]Пистолетом[/b] [b]в Спальне[/b].\n"
        "\n"
        "СТАТУС — ваши карты и долги, ПОМОЩЬ — список команд.\n"
    )


def test_D6_a_scheduled_close_done_by_another_writer_is_not_done_again(table: Table) -> None:
    closes = [
        table.service.close_day("seed-000", utc(2026, 12, 1, 19, 30), scheduled=True)
        for _ in range(2)
    ]
    assert [step is not None for step in closes] == [True, False]
    days = [
        s.event.data["day"] for s in table.store.events("seed-000") if s.event.kind == "day_closed"
    ]
    assert days == [1]


def test_D1_a_manual_close_keeps_the_regular_schedule(table: Table) -> None:
    """``pbp close-day`` at 21:30 Moscow: day 2 ends at 22:30 the next day, not in an hour."""
    table.service.close_day("seed-000", utc(2026, 12, 1, 18, 30))
    row = table.store.game("seed-000")
    assert row is not None and row.deadline_at == utc(2026, 12, 2, 19, 30)


def test_D8_an_arrival_time_ahead_of_the_clock_does_not_fast_forward_the_game(
    table: Table,
) -> None:
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 9, 12))
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["applied"]
    (made,) = [s for s in table.store.events("seed-000") if s.event.kind == "suggestion_made"]
    assert (made.day, made.at) == (1, utc(2026, 12, 1, 17, 10))
    assert not [s for s in table.store.events("seed-000") if s.event.kind == "day_closed"]


def test_D8_mail_that_arrived_while_a_round_ran_keeps_its_own_arrival_time(
    table: Table,
) -> None:
    """A round starts at 17:10:00; a move arrives at 17:10:05, while the round still
    runs (a long round serves mail in its middle). Its arrival is not ahead of the
    clock (17:10:09), so it keeps it: the same time in any run, however slow."""
    table.send(
        "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 10, 5)
    )
    table.now = utc(2026, 12, 1, 17, 10, 9)
    outcomes = table.service.run_once(utc(2026, 12, 1, 17, 10))
    assert [o.outcome for o in outcomes] == ["applied"]
    (made,) = [s for s in table.store.events("seed-000") if s.event.kind == "suggestion_made"]
    assert made.at == utc(2026, 12, 1, 17, 10, 5)


def test_a_player_whose_address_changed_in_games_yaml_still_gets_his_mail_at_the_dealt_one(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        # The GM edits Дуг's address after the deal: the seat keeps the dealt address.
        dug = next(p for p in table.config.games[0].players if p.name == "Дуг")
        object.__setattr__(dug, "email", "new-doug@example.test")
        table.send(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5)
        )
        assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
        assert [m["To"] for m in table.new_mail()] == ["cross@example.test", "doug@example.test"]
    finally:
        table.close()


def test_a_mail_first_refused_for_its_address_is_applied_when_resent_rightly(
    table: Table,
) -> None:
    """The same Message-ID, first to gm@ (no token), then to the personal address."""
    table.new_mail()
    table.send(
        "Кросс",
        "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг",
        at=utc(2026, 12, 1, 17, 5),
        to="gm@example.test",
    )
    raw = next((table.inbox_path / "new").iterdir()).read_bytes()
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["token_missing"]
    personal = f"gm+{table.token('Кросс')}@example.test".encode()
    (table.inbox_path / "new" / "resent").write_bytes(raw.replace(b"gm@example.test", personal, 1))
    assert table.run(utc(2026, 12, 1, 17, 7)) == ["applied"]


def test_C4_our_own_mail_quoted_without_markers_is_never_executed(table: Table) -> None:
    """A client that quotes with no '>' leaves our example `ОПРОВЕРЖЕНИЕ 1 Пистолет` in
    the reply: the card must not be shown for the player (he has not chosen)."""
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 17, 6))
    (addressed,) = [
        m for m in table.new_mail() if m["Subject"] == "[seed-000] Предположение №1 от Кросса"
    ]
    table.send(
        "Дуг",
        "Подумаю и отвечу вечером",
        "",
        *body(addressed).splitlines(),
        at=utc(2026, 12, 1, 17, 7),
        headers=[("In-Reply-To", str(addressed["Message-ID"]))],
    )
    assert table.run(utc(2026, 12, 1, 17, 8)) == ["refused"]
    kinds = [s.event.kind for s in table.store.events("seed-000")]
    assert "refuted" not in kinds and "card_shown" not in kinds
    (reply,) = table.new_mail()
    assert "В письме не найдено ни одной команды" in body(reply)


def test_C4_a_single_copied_example_line_is_the_players_answer(table: Table) -> None:
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 17, 6))
    (addressed,) = [
        m for m in table.new_mail() if m["Subject"] == "[seed-000] Предположение №1 от Кросса"
    ]
    table.send(
        "Дуг",
        "ОПРОВЕРЖЕНИЕ 1 Пистолет",
        at=utc(2026, 12, 1, 17, 7),
        headers=[("In-Reply-To", str(addressed["Message-ID"]))],
    )
    assert table.run(utc(2026, 12, 1, 17, 8)) == ["applied"]


def test_no_reminder_for_a_day_that_closed_while_the_daemon_was_down(tmp_path: Path) -> None:
    extra = "remind_hours_before: 3\ncatch_up_limit: 2\n"
    table = Table(tmp_path, start="2026-12-01T12:00", extra=extra)
    try:
        table.run(utc(2026, 12, 1, 9))
        table.new_mail()
        # Mail arrives after the reminder time of day 1; the daemon wakes up on day 3.
        table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 17))
        table.run(utc(2026, 12, 3, 12))
        subjects = [subject for _to, subject in summary(table.new_mail())]
        assert [s for s in subjects if "Напоминание" in s] == []
        assert subjects.count("[seed-000] Итоги дня 1 — BBCode") == 1
    finally:
        table.close()


def test_a_manual_close_meant_for_a_day_already_closed_does_nothing(table: Table) -> None:
    table.run(utc(2026, 12, 1, 19, 31))  # day 1 closed at its time
    assert table.service.close_day("seed-000", utc(2026, 12, 1, 19, 40), expect=("day", 1)) is None
    days = [
        s.event.data["day"] for s in table.store.events("seed-000") if s.event.kind == "day_closed"
    ]
    assert days == [1]


def test_a_stranger_writing_to_a_players_personal_address_is_kept_not_applied(
    table: Table,
) -> None:
    """Not his seat: nothing applied; kept as mail to another's personal address."""
    table.new_mail()
    to = f"gm+{table.token('Дуг')}@example.test"
    table.send(
        "Кросс",
        "НЕТ ОПРОВЕРЖЕНИЯ",
        at=utc(2026, 12, 1, 17, 5),
        to=to,
        sender="stranger@example.test",
    )
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["wrong_sender"]
    assert [k.reason for k in table.store.kept()] == ["wrong_sender"]
    assert [s.event.kind for s in table.store.events("seed-000")][-1] == "game_started"


def _text(raw: bytes) -> str:
    """The plain-text body of a raw mail."""
    message = message_from_bytes(raw, policy=default)
    assert isinstance(message, EmailMessage)
    body = message.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def test_P1_the_day_a_game_ends_on_reads_as_ended_and_is_kept(table: Table) -> None:
    """A correct accusation on day 2 ends the game before day 2 closes (C7): day 2's
    post is kept as it read at the end, no longer "still open", and day 1's stays."""
    config = table.directory / "games.yaml"
    table.new_mail()
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 19, 31))  # day 1 closes
    day1 = run_ok(config, "post", "seed-000", "--day", "1")
    table.send("Роза", "ОБВИНЕНИЕ Маша, Топор, Столовая", at=utc(2026, 12, 2, 10))
    table.run(utc(2026, 12, 2, 10, 1))
    day2 = run_ok(config, "post", "seed-000", "--day", "2")
    assert day2.splitlines()[0] == "[b]Итоги дня 2[/b]"
    assert table.store.recorded_post("seed-000", "day", 2, "bbcode") == day2
    assert run_ok(config, "post", "seed-000", "--day", "1") == day1
    final = run_ok(config, "post", "seed-000")
    assert final == table.store.recorded_post("seed-000", "final", 2, "bbcode")


def test_C4_the_forum_snippet_mailed_back_is_not_a_second_suggestion(tmp_path: Path) -> None:
    # Found by a hostile probe: the two lines pbp gives for the forum, mailed back as
    # they are, made suggestion №2 and sent the addressee a second notice.
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()  # the start's
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
    reply = next(m for m in table.new_mail() if m["To"] == "cross@example.test")
    lines = body(reply).split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("[b]Предположение_1"))
    assert lines[start] == "[b]Предположение_1 для Дуг (№1)[/b]"
    table.send("Кросс", *lines[start : start + 2], at=utc(2026, 12, 1, 17, 10))
    table.run(utc(2026, 12, 1, 17, 11))
    mails = table.new_mail()
    assert summary(mails) == [("cross@example.test", "[seed-000] Re: ход")]
    assert (
        "Это текст для форума, который pbp прислал вам для предположения №1 (его место — в "
        "треде игры): ничего не сделано, предположение №1 остаётся каким было."
    ) in body(mails[0])
    assert "№2" not in body(mails[0])
    table.close()
