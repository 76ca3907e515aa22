"""Answer only where an answer is owed (issue 12, item 3), through :class:`Service` on
Maildir transports with the injected clock.

Seed 000's game (Europe/Moscow, day close 22:30 = 19:30 UTC, GM gm-person@example.test)
and, where two GMs matter, a second game run by another GM. The GM digest is due at
``digest_hour`` (default 9) Moscow time = 06:00 UTC.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from kits.table import GM, TEMPLATES, Table, body, named_body, utc

from pbp.app.digest import DIGEST_SHOWN, inert
from pbp.app.intake.senders import SenderRules
from pbp.app.service import Service
from pbp.config.loading import load_config
from pbp.games.core.registry import KINDS
from pbp.mail.base import STRANGER_KEPT_BYTES
from pbp.mail.maildir import MaildirInbox, MaildirTransport, deliver
from pbp.store import GM_SEAT, Store
from pbp.text.render import Renderer

OTHER_GM = "other-gm@example.test"
SECOND_GAME = """\
  - id: seed-001
    kind: cluedo_days
    locale: en
    timezone: Europe/Moscow
    day_closes: "22:30"
    gm: other-gm@example.test
    seed: 99
    players:
      - {name: Ann, email: ann@example.test}
      - {name: Bob, email: bob@example.test}
      - {name: Cat, email: cat@example.test}
    cards:
      suspects: [Маша, Петя, Ваня]
      weapons: [Топор, Пистолет, Канделябр, Молоток, Веревка, Нож]
      rooms: [Столовая, Спальня, Библиотека]
    deal:
      solution: [Маша, Топор, Столовая]
      hands:
        Ann: [Петя, Ваня, Нож]
        Bob: [Спальня, Пистолет, Молоток]
        Cat: [Библиотека, Канделябр, Веревка]
"""
DIGEST_RU = "Сводка за сутки"
DIGEST_EN = "Daily digest"
LURE = "Your invoice https://pay.example.test/x"
NOON = utc(2026, 12, 1, 12)


def owed_table(directory: Path, *, mail: str = "", second_gm: str | None = None) -> Table:
    """Seed 000's table with ``mail`` lines added to games.yaml's ``mail:`` and, with
    ``second_gm`` (an address: :data:`OTHER_GM`, or :data:`GM` too), a second game
    ``seed-001`` run by that GM; started at 17:00 UTC."""
    table = Table(directory)
    path = directory / "games.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("  personal_address: plus\n", "  personal_address: plus\n" + mail)
    second = SECOND_GAME.replace(OTHER_GM, second_gm) if second_gm else ""
    path.write_text(text + second, encoding="utf-8")
    table.store.close()
    table.config = load_config(path)
    table.store = Store(table.config.store)
    table.service = Service(
        table.config,
        table.store,
        Renderer(TEMPLATES, kinds=KINDS),
        inbox=MaildirInbox(table.inbox_path),
        transport=MaildirTransport(table.outbox_path),
        clock=lambda: table.now,
    )
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    return table


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = owed_table(tmp_path)
    yield table
    table.close()


def mail(
    table: Table,
    sender: str,
    to: str,
    text: str,
    *,
    at: datetime,
    subject: str = "ход",
    headers: Sequence[tuple[str, str]] = (),
) -> str:
    """Deliver a plain mail into the inbox; its Message-ID."""
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(at)
    message_id = make_msgid(domain="example.test")
    message["Message-ID"] = message_id
    for name, value in headers:
        message[name] = value
    message.set_content(text + "\n")
    deliver(table.inbox_path, bytes(message), at=at)
    return message_id


def personal(table: Table, player: str) -> str:
    return f"gm+{table.token(player)}@example.test"


def to(mails: Sequence[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in mails if m["To"] == address]


def digests(mails: Sequence[EmailMessage]) -> list[EmailMessage]:
    return [m for m in mails if DIGEST_RU in str(m["Subject"]) or DIGEST_EN in str(m["Subject"])]


# --- 1. strangers: never answered, one digest per GM -------------------------------------


def test_2000_forged_strangers_get_no_answer_no_notice_and_one_digest_per_gm(
    tmp_path: Path,
) -> None:
    """Backscatter: 2,000 mails with forged senders at third-party domains, a lure in
    each Subject. Not one answer, not one notice; at 09:00 Moscow each GM gets one
    digest: the count per reason and the first 50 lines; the lure is nowhere."""
    table = owed_table(tmp_path, second_gm=OTHER_GM)
    try:
        for i in range(2000):
            sender = f"billing{i}@shop{i % 17}.example.test"
            mail(
                table,
                sender,
                "gm@example.test",
                "Pay now",
                at=utc(2026, 12, 1, 17, 5) + timedelta(milliseconds=i),  # in this order
                subject=LURE,
            )
        started = time.monotonic()
        outcomes = table.run(utc(2026, 12, 1, 17, 10))
        elapsed = time.monotonic() - started
        assert outcomes == ["unknown_sender"] * 2000
        assert table.new_mail() == []
        assert len(table.store.kept()) == 2000
        # Not before the digest moment (05:59 UTC = 08:59 Moscow).
        table.run(utc(2026, 12, 2, 5, 59))
        assert digests(table.new_mail()) == []

        table.run(utc(2026, 12, 2, 6, 0))
        mails = table.new_mail()
        found = digests(mails)
        assert [(m["To"], m["Subject"]) for m in found] == [
            (GM, "[seed-000] Сводка за сутки: 2000 писем отложено или без ответа"),
            (OTHER_GM, "[seed-001] Daily digest: 2000 mails kept or not answered"),
        ]
        lines = body(found[0]).splitlines()
        assert "  2000 писем: отправитель не зарегистрирован ни в одной игре (без ответа)." in lines
        listed = [line for line in lines if line.startswith("№")]
        assert len(listed) == DIGEST_SHOWN == 50
        assert listed[0] == (
            "№1  1 декабря 2026 г., 20:05 по Москве  billing0@shop0.example.test  "
            "отправитель не зарегистрирован ни в одной игре (без ответа)"
        )
        assert "…и ещё 1950 строк: все перечисляет ОТЛОЖЕННЫЕ." in lines
        english = body(found[1]).splitlines()
        assert "  2000 mails: sender registered in no game (not answered)." in english
        assert "…and 1950 more lines: KEPT lists them all." in english
        # The lure never left pbp: no answer, notice or digest carries it.
        for sent in table.sent():
            assert "invoice" not in str(sent["Subject"]).lower()
            assert "pay.example.test" not in body(sent)
        # Once a day: later rounds of the day send no second digest.
        table.run(utc(2026, 12, 2, 12))
        assert digests(table.new_mail()) == []
        assert elapsed < 120  # measured 10.8 s for the 2,000 (2-core dev machine)
    finally:
        table.close()


def test_a_strangers_big_mail_is_kept_cut_and_stays_whole_in_the_mailbox(table: Table) -> None:
    """Disk growth: a flood of strangers' 2 MB mails went whole into the store."""
    text = "Купите наш товар!\n" * 60_000  # about 1.9 MB
    mail(table, "spam@shop.example.test", "gm@example.test", text, at=utc(2026, 12, 1, 17, 5))
    (delivered,) = (table.inbox_path / "new").iterdir()
    whole = delivered.read_bytes()
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["unknown_sender"]
    (kept,) = table.store.kept()
    assert len(whole) > 1_000_000
    assert kept.raw == whole[:STRANGER_KEPT_BYTES]
    assert (table.inbox_path / ".done" / "new" / delivered.name).read_bytes() == whole


def test_a_stranger_at_a_personal_address_is_answered_once_a_day_without_his_subject(
    table: Table,
) -> None:
    """Perhaps the player from another address: answered, but at most once in 24 h per
    sender address, with pbp's own Subject (never the stranger's)."""
    doug = personal(table, "Дуг")
    stranger = "somebody@elsewhere.example.test"
    mail(table, stranger, doug, "НЕТ ОПРОВЕРЖЕНИЯ", at=utc(2026, 12, 1, 17, 5), subject=LURE)
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["wrong_sender"]
    answers = to(table.new_mail(), stranger)
    assert [a["Subject"] for a in answers] == ["[seed-000] Письмо на чужой личный адрес"]
    assert answers[0]["Auto-Submitted"] == "auto-replied"

    mail(table, stranger, doug, "НЕТ ОПРОВЕРЖЕНИЯ", at=utc(2026, 12, 1, 18), subject=LURE)
    mail(table, stranger, doug, "НЕТ ОПРОВЕРЖЕНИЯ", at=utc(2026, 12, 2, 17, 5), subject=LURE)
    assert table.run(utc(2026, 12, 2, 17, 5)) == ["wrong_sender", "wrong_sender"]
    assert to(table.new_mail(), stranger) == []  # 23 h 59 min after the answer
    mail(table, stranger, doug, "НЕТ ОПРОВЕРЖЕНИЯ", at=utc(2026, 12, 2, 17, 6))
    assert table.run(utc(2026, 12, 2, 17, 6)) == ["wrong_sender"]
    assert [a["Subject"] for a in to(table.new_mail(), stranger)] == [
        "[seed-000] Письмо на чужой личный адрес"
    ]
    # Nothing applied, each kept; the GM sees them in his digest, not one by one.
    assert [k.reason for k in table.store.kept()] == ["wrong_sender"] * 4
    kinds = [s.event.kind for s in table.store.events("seed-000")]
    assert "no_refutation" not in kinds


def test_a_leaked_personal_address_answers_at_most_three_strangers_a_day(table: Table) -> None:
    """Backscatter through a leaked address: 10 forged senders at Дуг's personal
    address in a day get 3 answers (one each), all 10 kept; the next day 3 again."""
    doug = personal(table, "Дуг")
    for i in range(10):
        at = utc(2026, 12, 1, 17, 5) + timedelta(minutes=i)
        mail(table, f"forged{i}@shop.example.test", doug, "СТАТУС", at=at, subject=LURE)
    assert table.run(utc(2026, 12, 1, 17, 30)) == ["wrong_sender"] * 10
    answered = [str(m["To"]) for m in table.new_mail() if m["To"] != GM]
    assert answered == [f"forged{i}@shop.example.test" for i in range(3)]
    assert [k.reason for k in table.store.kept()] == ["wrong_sender"] * 10

    for i in range(10, 14):
        at = utc(2026, 12, 2, 17, 10) + timedelta(minutes=i)
        mail(table, f"forged{i}@shop.example.test", doug, "СТАТУС", at=at, subject=LURE)
    assert table.run(utc(2026, 12, 2, 17, 30)) == ["wrong_sender"] * 4
    answered = [str(m["To"]) for m in table.new_mail() if m["To"] != GM]
    assert answered == [f"forged{i}@shop.example.test" for i in range(10, 13)]


def test_a_stranger_at_the_gms_personal_address_is_told_it_is_someone_elses(
    table: Table,
) -> None:
    """The answer said "another player's personal address" of the GM's address too; a
    stranger is told his address is registered in no game, and the address he wrote
    to is a member's (the GM's), not a player's."""
    gm_address = f"gm+{table.store.player_token('seed-000', GM_SEAT)}@example.test"
    stranger = "somebody@elsewhere.example.test"
    mail(table, stranger, gm_address, "ПАУЗА", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["wrong_sender"]
    (answer,) = to(table.new_mail(), stranger)
    assert named_body(answer, "seed-000").splitlines()[0] == (
        f"Здравствуйте! Письмо с адреса {stranger} пришло на личный адрес участника игры,"
        " а этот адрес отправителя не зарегистрирован ни в одной игре, поэтому ходы из"
        " него не выполнены. ГМ узнает об этом."
    )
    assert answer["Reply-To"] is None  # he has no personal address of his own
    assert table.store.game("seed-000") is not None
    assert [k.reason for k in table.store.kept()] == ["wrong_sender"]


def test_a_players_mail_to_another_players_address_is_still_answered_and_noticed_at_once(
    table: Table,
) -> None:
    """A player is owed an answer; the GM hears of it at once (a token passed on). The
    answer tells him to write to his own personal address, and its Reply-To is that
    address (README walk-through, item 4), never anything of the seat he wrote to."""
    mail(table, "cross@example.test", personal(table, "Дуг"), "СТАТУС", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["wrong_sender"]
    mails = table.new_mail()
    assert [(m["To"], m["Subject"]) for m in mails] == [
        ("cross@example.test", "[seed-000] Re: ход"),
        (GM, "[seed-000] Отложено: письмо пришло на личный адрес другого игрока"),
    ]
    answer = mails[0]
    assert answer["Reply-To"] == personal(table, "Кросс")
    assert "на свой личный адрес" in body(answer)
    doug = str(table.token("Дуг"))
    assert all(doug not in str(value) for value in answer.values())
    assert doug not in body(answer) and "Дуг" not in body(answer)


# --- 2. the digest: once a day, never empty -----------------------------------------------


def test_the_digest_goes_once_a_day_and_never_empty(table: Table) -> None:
    stranger = "nobody@elsewhere.example.test"
    mail(table, stranger, "gm@example.test", "hi", at=utc(2026, 12, 1, 17, 5))
    mail(
        table,
        "cross@example.test",
        personal(table, "Кросс"),
        "В отпуске",
        at=utc(2026, 12, 1, 17, 6),
        headers=[("Auto-Submitted", "auto-replied")],
    )
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["unknown_sender", "automatic"]
    assert table.new_mail() == []

    table.run(utc(2026, 12, 2, 6, 3))  # the first round after 09:00 Moscow
    (digest,) = digests(table.new_mail())
    # A stranger's line is about no game: the Subject names every game of the GM (one).
    assert digest["Subject"] == "[seed-000] Сводка за сутки: 2 письма отложены или без ответа"
    assert digest["Auto-Submitted"] == "auto-generated"
    assert [line for line in body(digest).splitlines() if line[:1] in ("№", " ")] == [
        "  1 письмо: автоматическое письмо: возврат, автоответ, рассылка (RFC 3834; без ответа).",
        "  1 письмо: отправитель не зарегистрирован ни в одной игре (без ответа).",
        "№1  1 декабря 2026 г., 20:05 по Москве  nobody@elsewhere.example.test  "
        "отправитель не зарегистрирован ни в одной игре (без ответа)",
        "№2  1 декабря 2026 г., 20:06 по Москве  cross@example.test  "
        "автоматическое письмо: возврат, автоответ, рассылка (RFC 3834; без ответа)  [seed-000]",
    ]

    # A stranger after the digest: not before tomorrow's 09:00.
    mail(table, stranger, "gm@example.test", "hi again", at=utc(2026, 12, 2, 6, 30))
    table.run(utc(2026, 12, 2, 7))
    table.run(utc(2026, 12, 3, 5, 59))
    assert digests(table.new_mail()) == []
    table.run(utc(2026, 12, 3, 6))
    (digest,) = digests(table.new_mail())
    assert digest["Subject"] == "[seed-000] Сводка за сутки: 1 письмо отложено или без ответа"
    assert "№3  2 декабря 2026 г., 09:30 по Москве" in body(digest)
    # Nothing new: no digest at all.
    for day in (4, 5):
        table.run(utc(2026, 12, day, 6))
        assert digests(table.new_mail()) == []


def test_the_digest_hour_is_a_setting_in_the_games_local_time(tmp_path: Path) -> None:
    table = owed_table(tmp_path, mail="  digest_hour: 21\n")  # 21:00 Moscow = 18:00 UTC
    try:
        mail(table, "x@elsewhere.example.test", "gm@example.test", "hi", at=utc(2026, 12, 1, 17, 5))
        table.run(utc(2026, 12, 1, 17, 59))
        assert digests(table.new_mail()) == []
        table.run(utc(2026, 12, 1, 18))
        assert len(digests(table.new_mail())) == 1
    finally:
        table.close()


def test_digest_lines_are_inert() -> None:
    """Sender and detail: no control or format characters, one line, cut."""
    assert inert("evil\r\nBcc: x@example.test\x1b[31m\u202e", 80) == "evil Bcc: x@example.test [31m"
    assert inert("a" * 100, 10) == "a" * 9 + "…"


# --- 3. the rate limit ------------------------------------------------------------------------


def test_40_status_mails_in_an_hour_get_30_answers_a_slow_down_and_one_summary(
    table: Table,
) -> None:
    """Rate limit (mail: max_answers_per_hour, 30): the 31st mail is answered "slow
    down", the rest are still applied, and their answers come in one summary in the
    first round after the hour."""
    cross = personal(table, "Кросс")
    for i in range(40):
        text = "СТАТУС"
        if i == 35:
            text = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг\nСТАТУС"
        mail(table, "cross@example.test", cross, text, at=utc(2026, 12, 1, 17, 5, i))
    outcomes = table.run(utc(2026, 12, 1, 17, 10))
    assert outcomes == ["status"] * 35 + ["applied"] + ["status"] * 4
    mails = table.new_mail()
    answers = to(mails, "cross@example.test")
    assert len(answers) == 31
    assert all(a["Subject"] == "[seed-000] Re: ход" for a in answers)
    assert ["этот предел достигнут" in body(a) for a in answers] == [False] * 30 + [True]
    assert "до 1 декабря 2026 г., 21:10 по Москве" in body(answers[30])
    # His move is applied at once: Дуг is asked to refute it.
    suggestions = [
        s.event.data["suggester"]
        for s in table.store.events("seed-000")
        if s.event.kind == "suggestion_made"
    ]
    assert suggestions == ["Кросс"]
    assert len(to(mails, "doug@example.test")) == 1

    table.run(utc(2026, 12, 1, 18, 9))  # the hour is not over
    assert to(table.new_mail(), "cross@example.test") == []
    table.run(utc(2026, 12, 1, 18, 10))
    (summary,) = to(table.new_mail(), "cross@example.test")
    assert summary["Subject"] == "[seed-000] Ответы на ваши последние письма: 10 писем"
    assert summary["Reply-To"] == cross
    text = body(summary)
    assert text.count("=== Письмо прочитано 1 декабря 2026 г., 20:10 по Москве ===") == 10
    assert text.count("Понял: ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг") == 1
    # A new hour: answered one by one again; the summary went once.
    mail(table, "cross@example.test", cross, "СТАТУС", at=utc(2026, 12, 1, 18, 11))
    table.run(utc(2026, 12, 1, 18, 12))
    assert [a["Subject"] for a in to(table.new_mail(), "cross@example.test")] == [
        "[seed-000] Re: ход"
    ]


def test_the_rate_limit_is_a_setting(tmp_path: Path) -> None:
    table = owed_table(tmp_path, mail="  max_answers_per_hour: 2\n")
    try:
        cross = personal(table, "Кросс")
        for i in range(4):
            mail(table, "cross@example.test", cross, "СТАТУС", at=utc(2026, 12, 1, 17, 5, i))
        table.run(utc(2026, 12, 1, 17, 10))
        answers = to(table.new_mail(), "cross@example.test")
        assert ["этот предел достигнут" in body(a) for a in answers] == [False, False, True]
        assert "не больше чем на 2 письма в час" in body(answers[2])
    finally:
        table.close()


def test_a_status_flood_never_holds_back_the_gms_confirmation_nor_his_levers_result(
    tmp_path: Path,
) -> None:
    """Forged STATUS mails to the GM's address (it travels in every Reply-To) use up his
    answers of the hour; his own CLOSE DAY is still asked to confirm at once, at the
    confirmation address, and its result comes at once. The STATUS answers beyond the
    limit wait for the hourly summary, as any other answer does."""
    table = owed_table(tmp_path, mail="  max_answers_per_hour: 2\n")
    try:
        gm_address = f"gm+{table.store.player_token('seed-000', GM_SEAT)}@example.test"
        for i in range(4):
            mail(table, GM, gm_address, "STATUS", at=utc(2026, 12, 1, 17, 5, i))
        assert table.run(utc(2026, 12, 1, 17, 10)) == ["gm_applied"] * 4
        flood = table.new_mail()
        assert [str(m["Subject"]) for m in flood] == [
            "[seed-000] Только для ГМа: состояние игры",
            "[seed-000] Только для ГМа: состояние игры",
            "[seed-000] Слишком много писем: ответы придут позже одной сводкой",
        ]
        mail(table, GM, gm_address, "CLOSE DAY", at=utc(2026, 12, 1, 17, 11))
        assert table.run(utc(2026, 12, 1, 17, 12)) == ["gm_pending"]
        (asked,) = table.new_mail()
        assert str(asked["Subject"]) == "[seed-000] Подтвердите команды ГМа"
        # Its Reply-To is the confirmation address, not the GM address.
        code = str(asked["Reply-To"]).removeprefix("gm+").partition("@")[0]
        assert table.store.confirmation(code) is not None
        mail(table, GM, str(asked["Reply-To"]), "да", at=utc(2026, 12, 1, 17, 13))
        assert table.run(utc(2026, 12, 1, 17, 14)) == ["gm_applied"]
        mails = table.new_mail()
        assert [str(m["Subject"]) for m in mails][-1] == "[seed-000] Re: ход"
        assert "> CLOSE DAY\nДень 1 закрыт." in body(mails[-1])
    finally:
        table.close()


# --- 4. loops without RFC 3834 headers ------------------------------------------------------


class Vacation:
    """A player's auto-responder without RFC 3834 headers: it answers every mail pbp
    sends him, ``delay`` after it, threaded to it (In-Reply-To)."""

    def __init__(self, table: Table, delay: timedelta, address: str = "cross@example.test") -> None:
        self.table = table
        self.delay = delay
        self.address = address
        self.answered = 0

    def answer(self, mails: Sequence[EmailMessage], sent_at: datetime) -> datetime:
        """Answer every mail to ``address`` among ``mails``; the last arrival."""
        at = sent_at
        for sent in to(mails, self.address):
            at = sent_at + self.delay
            mail(
                self.table,
                self.address,
                str(sent["Reply-To"]),
                "Я в отпуске до понедельника, отвечу позже.",
                at=at,
                subject=f"Re: {sent['Subject']}",
                headers=[("In-Reply-To", str(sent["Message-ID"]))],
            )
            self.answered += 1
        return at


@pytest.mark.parametrize(
    ("delay", "answers"),
    [
        # Within seconds: its first answer is seen as a loop (an answer to ours).
        (timedelta(seconds=5), 1),
        # Slower: answered twice ("no command"); the third identical text is a loop.
        (timedelta(minutes=3), 3),
    ],
)
def test_a_vacation_responder_without_rfc3834_headers_makes_no_loop(
    table: Table, delay: timedelta, answers: int
) -> None:
    responder = Vacation(table, delay)
    now = utc(2026, 12, 1, 17, 5)
    mail(table, "cross@example.test", personal(table, "Кросс"), "СТАТУС", at=now)
    sent: list[EmailMessage] = []
    for _ in range(10):
        now += timedelta(seconds=1)
        table.run(now)
        fresh = table.new_mail()
        sent += to(fresh, "cross@example.test")
        arrived = responder.answer(fresh, now)
        now = max(now, arrived) + timedelta(seconds=5)
    # Mails exchanged: his STATUS, then our answers and one automatic answer to each.
    assert len(sent) == answers
    assert responder.answered == answers
    assert sent[0]["Subject"] == "[seed-000] Re: ход"
    assert [k.reason for k in table.store.kept()] == ["loop"]
    table.run(utc(2026, 12, 2, 6))
    (digest,) = digests(table.new_mail())
    assert "петля автоответчика (без ответа)" in body(digest)


@pytest.mark.parametrize(
    ("delay", "answers"), [(timedelta(seconds=5), 1), (timedelta(minutes=3), 3)]
)
def test_the_gms_vacation_responder_makes_no_loop(
    table: Table, delay: timedelta, answers: int
) -> None:
    """The GM's mail went unchecked: his auto-responder and pbp's answers to it (no
    command understood) went back and forth for ever."""
    responder = Vacation(table, delay, GM)
    gm_address = f"gm+{table.store.player_token('seed-000', GM_SEAT)}@example.test"
    now = utc(2026, 12, 1, 17, 5)
    mail(table, GM, gm_address, "ПОМОЩЬ", at=now)
    sent: list[EmailMessage] = []
    for _ in range(10):
        now += timedelta(seconds=1)
        table.run(now)
        fresh = [m for m in table.new_mail() if str(m["Reply-To"]) == gm_address]
        sent += to(fresh, GM)
        now = max(now, responder.answer(fresh, now)) + timedelta(seconds=5)
    # The answer to his HELP, then to the responder until its text is seen as a loop.
    assert len(sent) == answers
    assert responder.answered == answers
    assert [k.reason for k in table.store.kept()] == ["loop"]


def test_a_quick_reply_is_one_to_the_senders_own_mail_only(table: Table) -> None:
    """A mail without a command that names, within seconds, the Message-ID of our mail
    to another player (a Cc, a forward) is no quick reply: pbp's silence would tell
    the sender when that mail went out. Naming our mail to himself, it is one."""
    cross = personal(table, "Кросс")
    mail(table, "cross@example.test", cross, "СТАТУС", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 17, 5, 1))
    (answer,) = to(table.new_mail(), "cross@example.test")
    thread = [("In-Reply-To", str(answer["Message-ID"]))]
    text = "Спасибо, получила."
    rosa = personal(table, "Роза")
    mail(table, "rosa@example.test", rosa, text, at=utc(2026, 12, 1, 17, 5, 10), headers=thread)
    assert table.run(utc(2026, 12, 1, 17, 5, 11)) == ["refused"]
    assert len(to(table.new_mail(), "rosa@example.test")) == 1
    mail(table, "cross@example.test", cross, text, at=utc(2026, 12, 1, 17, 5, 20), headers=thread)
    assert table.run(utc(2026, 12, 1, 17, 5, 21)) == ["loop"]
    assert to(table.new_mail(), "cross@example.test") == []
    assert [k.reason for k in table.store.kept()] == ["loop"]


def test_the_same_status_mail_three_times_is_no_loop(table: Table) -> None:
    """A mail with a command pbp understood is always answered (within the rate limit)."""
    cross = personal(table, "Кросс")
    for minute in (5, 6, 7):
        mail(table, "cross@example.test", cross, "СТАТУС", at=utc(2026, 12, 1, 17, minute))
    assert table.run(utc(2026, 12, 1, 17, 8)) == ["status"] * 3
    assert len(to(table.new_mail(), "cross@example.test")) == 3


def test_a_player_answering_within_seconds_with_a_move_is_answered(table: Table) -> None:
    cross = personal(table, "Кросс")
    mail(table, "cross@example.test", cross, "СТАТУС", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 17, 5, 1))
    (answer,) = to(table.new_mail(), "cross@example.test")
    mail(
        table,
        "cross@example.test",
        cross,
        "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг",
        at=utc(2026, 12, 1, 17, 5, 10),
        headers=[("In-Reply-To", str(answer["Message-ID"]))],
    )
    assert table.run(utc(2026, 12, 1, 17, 5, 11)) == ["applied"]
    assert len(to(table.new_mail(), "cross@example.test")) == 1


# --- 5. crashes, and an old store ------------------------------------------------------------


def test_the_digest_names_the_game_every_line_is_about_else_every_game_of_the_gm(
    tmp_path: Path,
) -> None:
    """A GM of two games: a digest with a stranger's line (about no game) names both
    games in its Subject and first line; a digest of one game's lines names that game
    alone (a GM of one game: test_the_digest_goes_once_a_day_…)."""
    table = owed_table(tmp_path, second_gm=GM)
    try:
        cross = personal(table, "Кросс")
        mail(
            table,
            "nobody@elsewhere.example.test",
            "gm@example.test",
            "hi",
            at=utc(2026, 12, 1, 17, 5),
        )
        vacation = [("Auto-Submitted", "auto-replied")]
        mail(
            table,
            "cross@example.test",
            cross,
            "В отпуске",
            at=utc(2026, 12, 1, 17, 6),
            headers=vacation,
        )
        assert table.run(utc(2026, 12, 1, 17, 10)) == ["unknown_sender", "automatic"]
        table.run(utc(2026, 12, 2, 6, 3))
        (digest,) = digests(table.new_mail())
        assert digest["Subject"] == (
            "[seed-000, seed-001] Сводка за сутки: 2 письма отложены или без ответа"
        )
        assert body(digest).startswith(
            "Игры: seed-000, seed-001\n\nС прошлой сводки отложены или оставлены без ответа"
            " 2 письма (игры seed-000, seed-001):\n"
        )

        mail(
            table,
            "cross@example.test",
            cross,
            "В отпуске",
            at=utc(2026, 12, 2, 7),
            headers=vacation,
        )
        assert table.run(utc(2026, 12, 2, 7, 1)) == ["automatic"]
        table.run(utc(2026, 12, 3, 6, 3))
        (digest,) = digests(table.new_mail())
        assert digest["Subject"] == "[seed-000] Сводка за сутки: 1 письмо отложено или без ответа"
        assert body(digest).startswith(
            "Игра: seed-000\n\nС прошлой сводки отложено или оставлено без ответа 1 письмо"
            " (игры seed-000, seed-001):\n"
        )
    finally:
        table.close()


def test_a_strangers_mail_that_crashes_goes_to_the_digest_unanswered(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player's crash is a notice at once (tests/test_service.py); a stranger's waits
    for the digest and is never answered."""

    def crash(*_args: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(SenderRules, "_no_seat", crash)
    mail(table, "x@elsewhere.example.test", "gm@example.test", "hi", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["error"]
    assert table.new_mail() == []
    table.run(utc(2026, 12, 2, 6))
    (digest,) = digests(table.new_mail())
    assert (
        "№1  1 декабря 2026 г., 20:05 по Москве  x@elsewhere.example.test  "
        "письмо постороннего вызвало ошибку программы" in body(digest).splitlines()
    )


def test_a_store_made_before_the_digest_gets_its_tables_when_opened(tmp_path: Path) -> None:
    """An upgraded daemon opens an old store: the new tables appear (CREATE TABLE IF
    NOT EXISTS), the old rows stay."""
    path = tmp_path / "old.sqlite3"
    with Store(path) as store:
        store.add_token("tok", "seed-000", "Кросс", "cross@example.test")
    new_tables = (
        "digest",
        "digest_sent",
        "answer_windows",
        "deferred_answers",
        "bodies_seen",
        "stranger_answers",
    )
    db = sqlite3.connect(path)
    for name in new_tables:
        db.execute(f"DROP TABLE {name}")
    db.execute("PRAGMA user_version = 0")  # as a store from before schema versions
    db.commit()
    db.close()
    with Store(path) as store:
        seat = store.token("tok")
        assert seat is not None
        assert (seat.game_id, seat.player, seat.email) == (
            "seed-000",
            "Кросс",
            "cross@example.test",
        )
        with store.transaction():
            store.add_digest_entry(None, "unknown_sender", 1, "x@example.test", NOON, None, NOON)
        counts = store.digest_counts(0, ["seed-000"])
        assert {r: (c.count, c.last_id) for r, c in counts.items()} == {"unknown_sender": (1, 1)}


def test_a_flood_of_forged_levers_meets_the_confirmations_own_limit(tmp_path: Path) -> None:
    """The confirmation requests have a budget of their own (as large as the answers'):
    forged levers sent to the GM's address ask him to confirm at most that many times
    in the hour, then one "slow down" mail; the rest waits for the summary."""
    table = owed_table(tmp_path, mail="  max_answers_per_hour: 2\n")
    try:
        gm_address = f"gm+{table.store.player_token('seed-000', GM_SEAT)}@example.test"
        for i in range(4):
            mail(table, GM, gm_address, "PAUSE", at=utc(2026, 12, 1, 17, 5, i))
        assert table.run(utc(2026, 12, 1, 17, 10)) == ["gm_pending"] * 4
        assert [str(m["Subject"]) for m in table.new_mail()] == [
            "[seed-000] Подтвердите команды ГМа",
            "[seed-000] Подтвердите команды ГМа",
            "[seed-000] Слишком много писем: ответы придут позже одной сводкой",
        ]
        # His STATUS answers are counted apart: they still come.
        mail(table, GM, gm_address, "STATUS", at=utc(2026, 12, 1, 17, 11))
        assert table.run(utc(2026, 12, 1, 17, 12)) == ["gm_applied"]
        assert [str(m["Subject"]) for m in table.new_mail()] == [
            "[seed-000] Только для ГМа: состояние игры"
        ]
    finally:
        table.close()
