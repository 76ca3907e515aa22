"""A whole game of Cluedo by game days through real servers (issue 2).

Dovecot (IMAP) and an aiosmtpd SMTP server that delivers into it run on 127.0.0.1,
started by the suite (tests/kits/mailstack.py). The :class:`~pbp.app.service.Service` reads its
mailbox ``gm@example.test`` over IMAP and sends over SMTP; players send their moves by
SMTP to their personal addresses (``gm+TOKEN@example.test``; the SMTP server strips the
``+TOKEN`` for delivery and keeps it in ``Delivered-To``), and the test reads what every
player and the GM (``gm-person@example.test``) received, over IMAP.

Time: Dovecot stamps a delivered message with the real time of its delivery (it
ignores future APPEND dates), so the game starts ten minutes before the real current
time and its daily close is two hours after it. Day 1 is closed by the GM command
(:meth:`Service.close_day`, what ``pbp close-day`` does) at a whole second after the
day's moves arrived; every other time the service sees is given explicitly
(``run_once(now)`` and an injected clock).
"""

from __future__ import annotations

import hashlib
import json
import re
import smtplib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from kits.games import Imap, MailSection, Smtp, games_yaml
from kits.mail import Received, mailbox, subjects
from kits.mailstack import Dovecot, SmtpServer

from pbp.app.outcome import Outcome
from pbp.app.service import Service
from pbp.config.loading import load_config
from pbp.games.core.registry import KINDS
from pbp.mail.imap import ImapInbox
from pbp.mail.smtp import SmtpTransport
from pbp.store import Store
from pbp.text.render import Renderer

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
MSK = ZoneInfo("Europe/Moscow")
GAME = "e2e-1"
DAEMON = "gm@example.test"
DAEMON_PASSWORD = "daemon-secret"
GM = "gm-person@example.test"
PASSWORD_ENV = "PBP_E2E_IMAP_PASSWORD"
DONE = "$PbpDone"
NETASHKA, VETAL, DOUG, MORO = "Неташка", "Веталь", "Дуг", "Моро"
#: Their genders in games.yaml (rule P2): Дуг is a woman, as in seed 000.
GENDER = {NETASHKA: "f", VETAL: "m", DOUG: "f", MORO: "m"}
EMAIL = {
    NETASHKA: "netashka@example.test",
    VETAL: "vetal@example.test",
    DOUG: "doug@example.test",
    MORO: "moro@example.test",
}
HANDS = {
    NETASHKA: ["Краснова", "нож", "кухня"],
    VETAL: ["Горчичников", "труба", "терраса"],
    DOUG: ["Зеленович", "подсвечник", "бильярдная"],
    MORO: ["танцевальный зал", "библиотека", "холл"],
}
SOLUTION = ["Белых", "топор", "кабинет"]
PERSONAL = re.compile(r"gm\+[a-z0-9]{10}@example\.test")


def config_text(imap_port: int, smtp_port: int, start: datetime, close: datetime) -> str:
    """A games.yaml with one 4-player ``cluedo_days`` game (locale ru) and a fixed deal.

    ``start`` and ``close`` are aware; written as Europe/Moscow wall-clock times.
    """
    start_local = start.astimezone(MSK).strftime("%Y-%m-%dT%H:%M")
    close_local = close.astimezone(MSK).strftime("%H:%M")
    players = "\n".join(
        f"      - {{name: {name}, email: {address}, gender: {GENDER[name]}}}"
        for name, address in EMAIL.items()
    )
    hands = "\n".join(f"        {name}: [{', '.join(cards)}]" for name, cards in HANDS.items())
    mail = MailSection(
        address=DAEMON, inbox=Imap(imap_port, PASSWORD_ENV, username=DAEMON), outbox=Smtp(smtp_port)
    )
    return games_yaml(
        f"""\
  - id: {GAME}
    kind: cluedo_days
    locale: ru
    timezone: Europe/Moscow
    day_closes: "{close_local}"
    gm: {GM}
    seed: 20261201
    start: "{start_local}"
    players:
{players}
    cards:
      suspects: [Краснова, Горчичников, Белых, Зеленович]
      weapons: [подсвечник, нож, труба, топор]
      rooms: [кухня, танцевальный зал, терраса, бильярдная, библиотека, кабинет, холл]
    deal:
      solution: [{", ".join(SOLUTION)}]
      hands:
{hands}
""",
        mail=mail,
    )


# --- reading mailboxes ---------------------------------------------------------------


def snapshot(dovecot: Dovecot) -> dict[str, list[tuple[int, str]]]:
    """(UID, Subject) of every message of every mailbox of the test."""
    return {
        address: [(r.uid, r.subject) for r in mailbox(dovecot, address)]
        for address in (DAEMON, GM, *EMAIL.values())
    }


def post(mail: Received) -> str:
    """The post of a GM post mail: its whole body (issue 12: a post travels alone)."""
    assert mail.subject.endswith((" — BBCode", " — Markdown")), mail.subject
    return mail.body


def gm_only(mail: Received) -> str:
    """The GM-only facts beside a post: the body of their own mail after the line that
    names the game («Игра: e2e-1», asserted), stripped."""
    assert mail.subject.endswith(" — только для ГМа"), mail.subject
    head = f"Игра: {GAME}\n\n"
    assert mail.body.startswith(head), mail.body[:80]
    return mail.body.removeprefix(head).strip()


# --- players' mail -----------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    """A player's mail as sent: its Message-ID and References (oldest first)."""

    message_id: str
    references: tuple[str, ...]


def send(
    smtp: SmtpServer,
    sender: str,
    to: str,
    body: str,
    *,
    subject: str = "ход",
    reply_to: Received | None = None,
    quote: bool = False,
) -> Sent:
    """Send a player's plain-text mail by SMTP (as a mail client does).

    ``reply_to``: the mail answered (Subject ``Re: …``, In-Reply-To and References point
    to it, RFC 5322 §3.6.4); with ``quote`` its body is quoted below the new text under
    a Russian attribution line, as Thunderbird does.
    """
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message_id = make_msgid(domain="example.test")
    message["Message-ID"] = message_id
    message["Date"] = format_datetime(datetime.now(UTC))
    references: tuple[str, ...] = ()
    if reply_to is not None:
        parent = reply_to.header("Message-ID")
        assert parent is not None
        references = (*(reply_to.header("References") or "").split(), parent)
        message["Subject"] = f"Re: {reply_to.subject}"
        message["In-Reply-To"] = parent
        message["References"] = " ".join(references)
        if quote:
            quoted = "".join(f"> {line}".rstrip() + "\n" for line in reply_to.body.splitlines())
            body = f"{body}\n\n29.11.2026 22:20, pbp пишет:\n{quoted}"
    else:
        message["Subject"] = subject
    message.set_content(body)
    with smtplib.SMTP(smtp.host, smtp.port, timeout=10) as client:
        client.send_message(message)
    return Sent(message_id, references)


def assert_reply_to(reply: Received, sent: Sent) -> None:
    """``reply`` answers ``sent``: RFC 3834 auto-replied, threaded (RFC 5322 §3.6.4)."""
    assert reply.header("Auto-Submitted") == "auto-replied"
    assert reply.header("In-Reply-To") == sent.message_id
    assert reply.header("References") == " ".join([*sent.references, sent.message_id])


def assert_unprompted(mail: Received) -> None:
    """Mail pbp sends on its own: RFC 3834 auto-generated, answering nothing."""
    assert mail.header("Auto-Submitted") == "auto-generated"
    assert mail.header("In-Reply-To") is None
    assert mail.header("References") is None


# --- the service ---------------------------------------------------------------------


class Clock:
    """The service's injected clock: returns :attr:`now` (aware, UTC), set by the test."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def real(self) -> datetime:
        """Set to the real current time (the arrival times Dovecot gives) and return it."""
        self.now = datetime.now(UTC)
        return self.now


def next_whole_second() -> datetime:
    """Sleep to the next whole second and return it (INTERNALDATEs have 1 s resolution)."""
    now = datetime.now(UTC)
    target = now.replace(microsecond=0) + timedelta(seconds=1)
    time.sleep((target - now).total_seconds())
    return target


@dataclass
class Stack:
    """The running mail servers and the games.yaml that points at them."""

    dovecot: Dovecot
    smtp: SmtpServer
    config_path: Path
    start: datetime
    close: datetime


@pytest.fixture
def stack(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Stack:
    dovecot.add_user(DAEMON, DAEMON_PASSWORD)
    dovecot.add_user(GM, "gm-person-secret")
    for address in EMAIL.values():
        dovecot.add_user(address, "player-secret")
    monkeypatch.setenv(PASSWORD_ENV, DAEMON_PASSWORD)
    real = datetime.now(UTC)
    start = (real - timedelta(minutes=10)).replace(second=0, microsecond=0)
    close = (real + timedelta(hours=2)).replace(second=0, microsecond=0)
    path = tmp_path / "games.yaml"
    path.write_text(config_text(dovecot.port, smtp_server.port, start, close), encoding="utf-8")
    return Stack(dovecot, smtp_server, path, start, close)


MakeService = Callable[[Clock], Service]


def stop(service: Service) -> None:
    """What stopping the daemon does to its connections and store (safe to call twice)."""
    assert service.inbox is not None and service.transport is not None
    service.inbox.close()
    service.transport.close()
    service.store.close()


@pytest.fixture
def make_service(stack: Stack) -> Iterator[MakeService]:
    """Builds a Service as ``pbp run`` does, from the games.yaml of ``stack``."""
    built: list[Service] = []

    def make(clock: Clock) -> Service:
        config = load_config(stack.config_path)
        imap, smtp = config.mail.inbox.imap, config.mail.outbox.smtp
        assert imap is not None and smtp is not None
        password = imap.password()
        assert password == DAEMON_PASSWORD
        service = Service(
            config,
            Store(config.store),
            Renderer(TEMPLATES, kinds=KINDS),
            inbox=ImapInbox(imap.host, imap.port, imap.username, password, tls=imap.tls),
            transport=SmtpTransport(smtp.host, smtp.port, tls=smtp.tls),
            clock=clock,
        )
        built.append(service)
        return service

    yield make
    for service in built:
        stop(service)


def outcomes(results: list[Outcome]) -> list[tuple[str, str | None]]:
    return [(o.outcome, o.player) for o in results]


# --- the whole game ------------------------------------------------------------------

DAY_1_POST = """\
[b]Итоги дня 1[/b]

[b]Предположения[/b]
- №1, Неташка → Веталь: [b]Белых[/b], [b]топор[/b], [b]терраса[/b] — опровергнуто
- №2, Неташка → Моро: [b]Горчичников[/b], [b]подсвечник[/b], [b]кухня[/b] — опровержения нет
- №3, Неташка → Дуг: [b]Зеленович[/b], [b]труба[/b], [b]бильярдная[/b] — опровергнуто \
(за Дуг ответил ГМ)

[b]Ответы ГМа за не ответивших до закрытия дня[/b]

[b]Опровержение для Неташки[/b] (за Дуг ответил ГМ)
[quote][b]Предположение_3 для Дуг (№3)[/b]
Я думаю, что убийца — [b]Зеленович[/b], [b]трубой[/b] [b]в бильярдной[/b].[/quote]
Карта показана приватом.

[b]Штрафы: на одно предположение меньше за каждое, оставшееся без ответа[/b]
- Дуг: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше

[b]Предположения на день 2[/b]
- Неташка: 3 предположения
- Веталь: 3 предположения
- Дуг: 2 предположения
- Моро: 3 предположения
"""

VETAL_REPLY = """\
Игра: e2e-1

Веталь, вот что сделано по вашему письму.

Выполнено:

> ОПРОВЕРЖЕНИЕ 1 терраса
Понял: ОПРОВЕРЖЕНИЕ 1 терраса
Принято: опровержение предположения №1. Неташка получит карту приватом.

Для форума (скопируйте в тред игры):

[b]Опровержение для Неташки[/b]
[quote][b]Предположение_1 для Веталя (№1)[/b]
Я думаю, что убийца — [b]Белых[/b], [b]топором[/b] [b]на террасе[/b].[/quote]
Карта показана приватом.

Не выполнено:

> REFUTE 1 кухня
Понял: ОПРОВЕРЖЕНИЕ 1 кухня
В предположении №1 от Неташки названы Белых, топор, терраса; \
карты «кухня» среди них нет.
Опровергните одной из ваших названных карт: терраса.

Исправьте невыполненные строки и пришлите их снова ответом на это письмо.
СТАТУС — ваши карты и долги, ПОМОЩЬ — список команд.
"""

CARD_SHOWN_1 = """\
Игра: e2e-1

Неташка, ваше предположение №1 (Белых, топор, терраса) опровергнуто.
Веталь показывает вам карту «терраса».

Эту карту знаете только вы и ГМ; остальные видят лишь, что предположение опровергнуто.
"""

DOUG_STATUS_DAY_1 = """\
> STATUS
Понял: СТАТУС
Игровой день 1.
Ваши карты: Зеленович, подсвечник, бильярдная.

Вам показали:
  - пока ничего

Вы должны ответить:
  - на предположение №3 от Неташки (Зеленович, труба, бильярдная)

Сегодня можно сделать ещё 3 предположения.
Сколько предположений вы ещё можете адресовать каждому игроку: Неташка — 3, Веталь — 2, Моро — 2.
"""

DOUG_STATUS_DAY_2 = """\
> СТАТУС
Понял: СТАТУС
Игровой день 2.
Ваши карты: Зеленович, подсвечник, бильярдная.

Вам показали:
  - пока ничего

Вы показали:
  - №3: Зеленович — Неташке (за вас ответил ГМ)

Вы должны ответить:
  - никому

Сегодня можно сделать ещё 2 предположения.
"""


def test_whole_game_C4_C5_C6_C7_D6_D7_through_dovecot_and_smtp(
    stack: Stack, make_service: MakeService
) -> None:
    dovecot, smtp = stack.dovecot, stack.smtp
    clock = Clock(datetime.now(UTC))
    service = make_service(clock)

    # --- start (C2, D1): hands with personal addresses, the GM sheet and opening post
    assert service.run_once(clock.real()) == []
    welcome: dict[str, Received] = {}
    personal: dict[str, str] = {}
    close_local = stack.close.astimezone(MSK).strftime("%H:%M")
    for name, address in EMAIL.items():
        (mail,) = mailbox(dovecot, address)
        assert mail.subject == "[e2e-1] Клуэдо: ваши карты"
        assert_unprompted(mail)
        reply_address = mail.header("Reply-To")
        assert reply_address is not None and PERSONAL.fullmatch(reply_address)
        lines = mail.body.splitlines()
        assert f"Здравствуйте, {name}!" in lines
        assert f"Ваши карты: {', '.join(HANDS[name])}." in lines
        assert f"Ваш личный адрес для ходов: {reply_address}" in lines
        assert (
            f"Игровой день закрывается в {close_local} по Москве. "
            "Ход относится к тому дню, в который пришло письмо." in lines
        )
        welcome[name], personal[name] = mail, reply_address
    assert len(set(personal.values())) == 4
    # The post in BBCode alone: the default post_format.
    sheet, opening = mailbox(dovecot, GM)
    assert (sheet.subject, opening.subject) == (
        "[e2e-1] Лист ГМа: решение и карты",
        "[e2e-1] Первый пост игры (день 1) — BBCode",
    )
    assert sheet.body.startswith("Игра: e2e-1\n\nИгра «e2e-1». Никому не пересылайте")
    assert_unprompted(sheet)
    assert_unprompted(opening)
    assert "Решение: Белых, топор, кабинет." in sheet.body.splitlines()
    published = re.findall(r"^SHA-256: ([0-9a-f]{64})$", post(opening), re.MULTILINE)
    assert len(published) == 1
    commitment = published[0]
    assert mailbox(dovecot, DAEMON) == []

    # --- day 1: three suggestions and a wrong command in one mail (D2, D4)
    netashka_moves = send(
        smtp,
        EMAIL[NETASHKA],
        personal[NETASHKA],
        "SUGGEST Белых, топор, терраса TO Веталь\n"
        "ПРЕДПОЛОЖЕНИЕ Горчичников, подсвечник, кухня ДЛЯ Моро\n"
        "SUGGEST Зеленович, труба, бильярдная TO Дуг\n"
        "SUGGEST Белых, верёвка, холл TO Моро\n",
        reply_to=welcome[NETASHKA],
    )
    assert outcomes(service.run_once(clock.real())) == [("partly_applied", NETASHKA)]
    _, reply = mailbox(dovecot, EMAIL[NETASHKA])
    assert reply.subject == "Re: [e2e-1] Клуэдо: ваши карты"
    assert reply.header("Reply-To") == personal[NETASHKA]
    assert_reply_to(reply, netashka_moves)
    assert (
        "> SUGGEST Белых, топор, терраса TO Веталь\n"
        "Понял: ПРЕДПОЛОЖЕНИЕ Белых, топор, терраса ДЛЯ Веталя\n"
        "Принято: предположение №1 для Веталя (Белых, топор, терраса). "
        "Веталь получит его по почте.\n\n"
        "Для форума (скопируйте в тред игры):\n\n"
        "[b]Предположение_1 для Веталя (№1)[/b]\n"
        "Я думаю, что убийца — [b]Белых[/b], [b]топором[/b] [b]на террасе[/b].\n" in reply.body
    )
    assert "Принято: предположение №2 для Моро (Горчичников, подсвечник, кухня)." in reply.body
    assert "Принято: предположение №3 для Дуг (Зеленович, труба, бильярдная)." in reply.body
    assert (
        "> SUGGEST Белых, верёвка, холл TO Моро\n"
        "Неизвестная карта «верёвка».\n"
        "Карты в игре: Краснова, Горчичников, Белых, Зеленович, подсвечник, нож, труба, "
        "топор, кухня, танцевальный зал, терраса, бильярдная, библиотека, кабинет, холл.\n"
        "\nИсправьте невыполненные строки" in reply.body
    )
    addressed = {name: mailbox(dovecot, EMAIL[name])[1] for name in (VETAL, MORO, DOUG)}
    assert {name: mail.subject for name, mail in addressed.items()} == {
        VETAL: "[e2e-1] Предположение №1 от Неташки",
        MORO: "[e2e-1] Предположение №2 от Неташки",
        DOUG: "[e2e-1] Предположение №3 от Неташки",
    }
    for mail in addressed.values():
        assert_unprompted(mail)
    assert "У вас есть терраса. Вы обязаны показать эту карту." in addressed[VETAL].body
    assert "Ни одной из этих карт у вас нет. Ответьте строкой:" in addressed[MORO].body
    assert "У вас есть: Зеленович, бильярдная. Вы обязаны его опровергнуть;" in addressed[DOUG].body

    # --- day 1: a refused and an accepted refutation, quoting the mail answered (C4);
    # a no refutation (D3); STATUS from the player who will not answer
    vetal_answer = send(
        smtp,
        EMAIL[VETAL],
        personal[VETAL],
        "REFUTE 1 кухня\nОПРОВЕРЖЕНИЕ 1 терраса",
        reply_to=addressed[VETAL],
        quote=True,
    )
    moro_answer = send(
        smtp, EMAIL[MORO], personal[MORO], "нет опровержения 2", reply_to=addressed[MORO]
    )
    doug_status = send(smtp, EMAIL[DOUG], personal[DOUG], "STATUS", reply_to=addressed[DOUG])
    assert outcomes(service.run_once(clock.real())) == [
        ("partly_applied", VETAL),
        ("applied", MORO),
        ("status", DOUG),
    ]
    vetal_reply = mailbox(dovecot, EMAIL[VETAL])[2]
    assert vetal_reply.subject == "Re: [e2e-1] Предположение №1 от Неташки"
    assert_reply_to(vetal_reply, vetal_answer)
    assert vetal_reply.body == VETAL_REPLY  # the quoted command was not applied twice
    moro_reply = mailbox(dovecot, EMAIL[MORO])[2]
    assert_reply_to(moro_reply, moro_answer)
    assert (
        "> нет опровержения 2\nПонял: НЕТ ОПРОВЕРЖЕНИЯ 2\n"
        "Принято: нет опровержения на предположение №2.\n" in moro_reply.body
    )
    doug_reply = mailbox(dovecot, EMAIL[DOUG])[2]
    assert_reply_to(doug_reply, doug_status)
    assert DOUG_STATUS_DAY_1 in doug_reply.body
    card_shown, not_refuted = mailbox(dovecot, EMAIL[NETASHKA])[2:]
    assert card_shown.subject == "[e2e-1] Предположение №1: вам показали карту"
    assert_unprompted(card_shown)
    assert card_shown.body == CARD_SHOWN_1
    assert not_refuted.subject == "[e2e-1] Предположение №2: опровержения нет"
    assert (
        "Неташка, на ваше предположение №2 (Горчичников, подсвечник, кухня) опровержения нет: "
        "у Моро нет ни одной из этих карт." in not_refuted.body.splitlines()
    )

    # --- the GM closes day 1: GM answer for Дуг (C5), his penalty (D6), the summary (D7)
    close_1 = next_whole_second()
    service.close_day(GAME, close_1, clock.real())
    assert service.run_once(clock.real()) == []
    gm_answer = mailbox(dovecot, EMAIL[NETASHKA])[4]
    assert gm_answer.subject == "[e2e-1] Предположение №3: вам показали карту"
    assert "За Дуг ответил ГМ и показал вам карту «Зеленович»." in gm_answer.body.splitlines()
    summary, summary_facts = mailbox(dovecot, GM)[2:4]
    assert summary.subject == "[e2e-1] Итоги дня 1 — BBCode"
    assert_unprompted(summary)
    assert post(summary) == DAY_1_POST
    assert gm_only(summary_facts) == (
        "Только для ГМа:\n"
        "  - №1: Неташке показана карта «терраса» (от Веталя)\n"
        "  - №3 (Неташка → Дуг): ГМ ответил за Дуг — показана карта «Зеленович»"
    )

    # --- day 2: Дуг's allowance is 2 (D6); a wrong accusation puts Моро out (C6), then
    # his suggestion is refused; a right accusation ends the game (C7), in arrival order
    doug_status_2 = send(smtp, EMAIL[DOUG], personal[DOUG], "СТАТУС")
    moro_accusation = send(
        smtp,
        EMAIL[MORO],
        personal[MORO],
        "ACCUSE Белых, топор, холл\nSUGGEST Белых, нож, кухня TO Дуг",
        subject="обвинение",
    )
    vetal_accusation = send(
        smtp, EMAIL[VETAL], personal[VETAL], "ОБВИНЕНИЕ Белых, топор, кабинет", subject="обвинение"
    )
    assert outcomes(service.run_once(clock.real())) == [
        ("status", DOUG),
        ("partly_applied", MORO),
        ("applied", VETAL),
    ]
    doug_reply_2 = mailbox(dovecot, EMAIL[DOUG])[4]
    assert doug_reply_2.subject == "[e2e-1] Re: ход"
    assert_reply_to(doug_reply_2, doug_status_2)
    assert DOUG_STATUS_DAY_2 in doug_reply_2.body
    moro_reply_2 = next(
        r for r in mailbox(dovecot, EMAIL[MORO]) if r.subject == "[e2e-1] Re: обвинение"
    )
    assert_reply_to(moro_reply_2, moro_accusation)
    assert (
        "> ACCUSE Белых, топор, холл\n"
        "Понял: ОБВИНЕНИЕ Белых, топор, холл\n"
        "Обвинение (Белых, топор, холл) неверное: вы выбываете из игры. "
        "Предположения и обвинения вам больше недоступны, но на адресованные вам "
        "предположения по-прежнему нужно отвечать.\n\n"
        "Не выполнено:\n\n"
        "> SUGGEST Белых, нож, кухня TO Дуг\n"
        "Понял: ПРЕДПОЛОЖЕНИЕ Белых, нож, кухня ДЛЯ Дуг\n"
        "Вы выбыли после ошибочного обвинения: предположения и обвинения вам "
        "больше недоступны. Отвечать на адресованные вам предположения (ОПРОВЕРЖЕНИЕ или "
        "НЕТ ОПРОВЕРЖЕНИЯ) по-прежнему нужно.\n" in moro_reply_2.body
    )
    vetal_reply_2 = next(
        r for r in mailbox(dovecot, EMAIL[VETAL]) if r.subject == "[e2e-1] Re: обвинение"
    )
    assert_reply_to(vetal_reply_2, vetal_accusation)
    assert (
        "> ОБВИНЕНИЕ Белых, топор, кабинет\n"
        "Понял: ОБВИНЕНИЕ Белых, топор, кабинет\n"
        "Обвинение (Белых, топор, кабинет) верное — вы победили!\n" in vetal_reply_2.body
    )
    final = next(
        r
        for r in mailbox(dovecot, GM)
        if r.subject == "[e2e-1] Игра окончена: финальный пост — BBCode"
    )
    assert_unprompted(final)
    bbcode = post(final)
    assert "Победитель — [b]Веталь[/b]: обвинение оказалось верным.\n" in bbcode
    assert "Убийца — [b]Белых[/b], [b]топором[/b] [b]в кабинете[/b].\n" in bbcode
    (canonical,) = re.findall(r"\[code\](.*)\[/code\]", bbcode)
    assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == commitment
    document = json.loads(canonical)
    assert document["game"] == GAME
    assert re.fullmatch(r"[0-9a-f]{64}", document["salt"])
    assert document["deal"] == {
        "solution": dict(zip(("suspect", "weapon", "room"), SOLUTION, strict=True)),
        "hands": HANDS,
    }
    assert f"SHA-256 (опубликован в первом посте игры): {commitment}" in sheet.body.splitlines()
    for name, address in EMAIL.items():
        over = next(r for r in mailbox(dovecot, address) if r.subject == "[e2e-1] Игра окончена")
        assert_unprompted(over)
        assert over.header("Reply-To") == personal[name]
        assert f"    {canonical}" in over.body.splitlines()
        assert f"SHA-256: {commitment}" in over.body.splitlines()

    # --- who received what, in order
    assert subjects(dovecot, EMAIL[NETASHKA]) == [
        "[e2e-1] Клуэдо: ваши карты",
        "Re: [e2e-1] Клуэдо: ваши карты",
        "[e2e-1] Предположение №1: вам показали карту",
        "[e2e-1] Предположение №2: опровержения нет",
        "[e2e-1] Предположение №3: вам показали карту",
        "[e2e-1] Игра окончена",
    ]
    assert subjects(dovecot, EMAIL[VETAL]) == [
        "[e2e-1] Клуэдо: ваши карты",
        "[e2e-1] Предположение №1 от Неташки",
        "Re: [e2e-1] Предположение №1 от Неташки",
        "[e2e-1] Re: обвинение",
        "[e2e-1] Игра окончена",
    ]
    assert subjects(dovecot, EMAIL[DOUG]) == [
        "[e2e-1] Клуэдо: ваши карты",
        "[e2e-1] Предположение №3 от Неташки",
        "Re: [e2e-1] Предположение №3 от Неташки",
        "[e2e-1] Предположение №3: за вас ответил ГМ",
        "[e2e-1] Re: ход",
        "[e2e-1] Игра окончена",
    ]
    assert subjects(dovecot, EMAIL[MORO]) == [
        "[e2e-1] Клуэдо: ваши карты",
        "[e2e-1] Предположение №2 от Неташки",
        "Re: [e2e-1] Предположение №2 от Неташки",
        "[e2e-1] Re: обвинение",
        "[e2e-1] Игра окончена",
    ]
    assert subjects(dovecot, GM) == [
        "[e2e-1] Лист ГМа: решение и карты",
        "[e2e-1] Первый пост игры (день 1) — BBCode",
        "[e2e-1] Итоги дня 1 — BBCode",
        "[e2e-1] Итоги дня 1 — только для ГМа",
        "[e2e-1] Обвинение Моро: неверное",
        "[e2e-1] Обвинение Веталя: верное",
        "[e2e-1] Игра окончена: финальный пост — BBCode",
        "[e2e-1] Игра окончена: финальный пост — только для ГМа",
    ]
    # RFC 3834: every mail pbp sent is automatic; replies are exactly the Re: ones
    # (after the game's tag unless the Subject answered had it).
    for address in (GM, *EMAIL.values()):
        for mail in mailbox(dovecot, address):
            if mail.subject.removeprefix(f"[{GAME}] ").startswith("Re: "):
                assert mail.header("Auto-Submitted") == "auto-replied"
            else:
                assert_unprompted(mail)

    # --- hidden information (C4): the shown cards reach the suggester alone
    for address in (DAEMON, GM, *EMAIL.values()):
        for mail in mailbox(dovecot, address):
            if address == EMAIL[NETASHKA]:
                continue
            assert "вам показали карту" not in mail.subject, (address, mail.subject)
            assert "вам карту «" not in mail.body, (address, mail.subject)
    revealing = [
        mail.subject for mail in mailbox(dovecot, EMAIL[NETASHKA]) if "вам карту «" in mail.body
    ]
    assert revealing == [
        "[e2e-1] Предположение №1: вам показали карту",
        "[e2e-1] Предположение №3: вам показали карту",
    ]

    # --- the daemon's mailbox: every move done by keyword, never marked \Seen
    processed = mailbox(dovecot, DAEMON)
    assert [mail.header("Delivered-To") for mail in processed] == [
        personal[NETASHKA],
        personal[VETAL],
        personal[MORO],
        personal[DOUG],
        personal[DOUG],
        personal[MORO],
        personal[VETAL],
    ]
    for mail in processed:
        assert DONE in mail.flags
        assert "\\Seen" not in mail.flags

    # --- once more: nothing is applied twice, nobody gets a second mail
    before = snapshot(dovecot)
    events = len(service.store.events(GAME))
    assert service.run_once(clock.real()) == []
    assert service.run_once(clock.now + timedelta(days=3)) == []
    assert snapshot(dovecot) == before
    assert len(service.store.events(GAME)) == events


def test_D8_message_sent_while_the_service_is_down_is_processed_exactly_once(
    stack: Stack, make_service: MakeService
) -> None:
    """The daemon is down when Неташка's suggestion arrives and stays down past the day's
    close. On the next run the suggestion counts in day 1 (the day it arrived, D8), then
    day 1 closes at its own time with the GM answering for Веталь (C5, D6)."""
    dovecot, smtp = stack.dovecot, stack.smtp
    clock = Clock(datetime.now(UTC))
    first = make_service(clock)
    assert first.run_once(clock.real()) == []
    (welcome,) = mailbox(dovecot, EMAIL[NETASHKA])
    personal = welcome.header("Reply-To")
    assert personal is not None
    stop(first)

    sent = send(
        smtp,
        EMAIL[NETASHKA],
        personal,
        "SUGGEST Белых, топор, терраса TO Веталь",
        reply_to=welcome,
    )
    (waiting,) = mailbox(dovecot, DAEMON)
    assert DONE not in waiting.flags
    assert subjects(dovecot, EMAIL[NETASHKA]) == ["[e2e-1] Клуэдо: ваши карты"]

    later = stack.close + timedelta(hours=1)
    second = make_service(clock)
    assert outcomes(second.run_once(later)) == [("applied", NETASHKA)]
    reply, shown = mailbox(dovecot, EMAIL[NETASHKA])[1:]
    assert_reply_to(reply, sent)
    assert "Принято: предположение №1 для Веталя (Белых, топор, терраса)." in reply.body
    assert shown.subject == "[e2e-1] Предположение №1: вам показали карту"
    assert "За Веталя ответил ГМ и показал вам карту «терраса»." in shown.body.splitlines()
    assert subjects(dovecot, EMAIL[VETAL]) == [
        "[e2e-1] Клуэдо: ваши карты",
        "[e2e-1] Предположение №1 от Неташки",
        "[e2e-1] Предположение №1: за вас ответил ГМ",
    ]
    summary = mailbox(dovecot, GM)[-2]  # then the GM-only facts; no Markdown (the default)
    assert summary.subject == "[e2e-1] Итоги дня 1 — BBCode"
    day_post = post(summary)
    assert (
        "- №1, Неташка → Веталь: [b]Белых[/b], [b]топор[/b], [b]терраса[/b] — опровергнуто "
        "(за Веталя ответил ГМ)\n" in day_post
    )
    penalty = "- Веталь: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше"
    assert penalty + "\n" in day_post
    (closed,) = [e for e in second.store.events(GAME) if e.event.kind == "day_closed"]
    assert closed.at == stack.close
    (made,) = [e for e in second.store.events(GAME) if e.event.kind == "suggestion_made"]
    assert (made.day, made.event.data["day"]) == (1, 1)
    (done,) = mailbox(dovecot, DAEMON)
    assert DONE in done.flags and "\\Seen" not in done.flags

    before = snapshot(dovecot)
    assert second.run_once(later) == []
    stop(second)
    third = make_service(clock)
    assert third.run_once(later + timedelta(minutes=5)) == []
    assert snapshot(dovecot) == before


def test_a_move_whose_done_keyword_was_lost_or_that_was_sent_twice_is_applied_once(
    stack: Stack, make_service: MakeService
) -> None:
    """A crash between the commit and the keyword STORE, and a client that submits the
    same mail twice (same Message-ID, a new UID): both come back as new messages, and
    neither is applied or answered a second time."""
    dovecot, smtp = stack.dovecot, stack.smtp
    clock = Clock(datetime.now(UTC))
    service = make_service(clock)
    service.run_once(clock.real())
    (welcome,) = mailbox(dovecot, EMAIL[NETASHKA])
    personal = welcome.header("Reply-To")
    assert personal is not None
    send(smtp, EMAIL[NETASHKA], personal, "SUGGEST Белых, топор, терраса TO Веталь")
    assert outcomes(service.run_once(clock.real())) == [("applied", NETASHKA)]
    before = snapshot(dovecot)
    events = len(service.store.events(GAME))

    (move,) = mailbox(dovecot, DAEMON)
    with dovecot.master_login(DAEMON) as client:
        client.select_folder("INBOX")
        client.remove_flags([move.uid], [DONE])
        client.unselect_folder()
    assert DONE not in mailbox(dovecot, DAEMON)[0].flags
    assert [o.outcome for o in service.run_once(clock.real())] == ["duplicate"]
    assert DONE in mailbox(dovecot, DAEMON)[0].flags

    with smtplib.SMTP(smtp.host, smtp.port, timeout=10) as client:
        client.sendmail(EMAIL[NETASHKA], [personal], move.message.as_bytes())
    assert [o.outcome for o in service.run_once(clock.real())] == ["duplicate"]

    after = snapshot(dovecot)
    assert [uid for uid, _ in after[DAEMON]] == [move.uid, move.uid + 1]
    assert {a: m for a, m in after.items() if a != DAEMON} == {
        a: m for a, m in before.items() if a != DAEMON
    }
    assert len(service.store.events(GAME)) == events
