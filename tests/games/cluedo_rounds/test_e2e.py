"""A whole game of Cluedo by rounds by mail, through real servers and a real ``pbp run``
(issue 3, last test item).

Dovecot (IMAP) and an aiosmtpd SMTP server delivering into it run on 127.0.0.1
(tests/kits/mailstack.py). The daemon reads ``gm@example.test`` over IMAP (IDLE), sends
over SMTP, and its APScheduler date jobs wake it at each reminder and deadline (R7).
Players send their moves with smtplib to their personal addresses (the Reply-To of
their mails); the test reads every mailbox over IMAP.

Turns and answers last 6 minutes (``turn_hours`` and ``answer_hours`` 0.1), reminders
come 3.6 s before a deadline (``remind_hours_before`` 0.001). The start and turns 1–3
are served by ``pbp run``'s loop in this process (:func:`kits.daemon.serve`), its clock
behind the wall clock; a new loop starts at each of the two deadlines the scheduler
passes, its clock :data:`LEAD` before the reminder, so the jobs come in seconds, not
minutes (the game's clock only moves forward and stays behind the wall clock). From
turn 4 on, the real command ``python -m pbp -c games.yaml run`` serves in a subprocess
on the wall clock.

The seed's table (Кросс, Дуг, Роза; the seed's fixed deal), ``auto_answer: no_match``
(R6):

1. Роза suggests during Кросс's turn: refused (R1).
2. Кросс lets turn 1 pass: a reminder, then at the deadline the turn is skipped (R7).
3. Дуг suggests Петя, Топор, Столовая: Роза holds none and is answered automatically
   (R6); Кросс is asked and shows Петя (R2, C4).
4. Роза suggests Ваня, Нож, Спальня: Кросс is asked and does not answer: a reminder,
   then at the deadline the GM shows Ваня for him (R7, C5: the suspect first).
5. Кросс accuses Маша, Топор, Столовая and wins (C7); the final post's fairness string
   hashes to the commitment of the opening post.

Then SIGTERM: the daemon exits 0, its log clean, and the loops in this process logged
no warning either. Takes about 20 s (the deadlines 18 s after their turn's start took 40).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar
from zoneinfo import ZoneInfo

import pytest
from kits.daemon import TROUBLE, DaemonProcess, serve
from kits.games import Imap, MailSection, Smtp, games_yaml
from kits.mail import Mailboxes, Received, mailbox, send, subjects
from kits.mailstack import Dovecot, SmtpServer
from kits.table import moscow_text

from pbp.app.daemon import Daemon
from pbp.cli import _service
from pbp.config.loading import load_config
from pbp.store import Store

T = TypeVar("T")

GAME = "table-e2e"
TAG = f"[{GAME}]"
DAEMON = "gm@example.test"
DAEMON_PASSWORD = "daemon-secret"
GM = "gm-person@example.test"
PASSWORD_ENV = "PBP_E2E_ROUNDS_IMAP_PASSWORD"
DONE = "$PbpDone"
CROSS, DOUG, ROSA = "Кросс", "Дуг", "Роза"
EMAIL = {CROSS: "cross@example.test", DOUG: "doug@example.test", ROSA: "rosa@example.test"}
HANDS = {
    CROSS: ["Петя", "Ваня", "Нож"],
    DOUG: ["Спальня", "Пистолет", "Молоток"],
    ROSA: ["Библиотека", "Канделябр", "Веревка"],
}
SOLUTION = ["Маша", "Топор", "Столовая"]  # suspect, weapon, room
TURN_HOURS = ANSWER_HOURS = 0.1  # 6 minutes (R7): no move races a reminder
REMIND_HOURS = 0.001  # 3.6 s
TURN = timedelta(hours=TURN_HOURS)
ANSWER = timedelta(hours=ANSWER_HOURS)
REMIND = timedelta(hours=REMIND_HOURS)
#: A loop that is to pass a deadline starts with the game's clock this long before the
#: deadline's reminder.
LEAD = timedelta(seconds=3)
#: How far the game's clock starts behind the wall clock: what the two loops that pass
#: a deadline skip of its wait, and a minute more. From turn 4 on, ``pbp run`` on the
#: wall clock is about that minute later than the game (turn 4's reminder is 6 minutes
#: away).
BEHIND = TURN + ANSWER - 2 * (REMIND + LEAD) + timedelta(minutes=1)
#: How long a loop that passes a deadline may take to do so, seconds (LEAD + REMIND after
#: its start; the rest is for a loaded machine).
PASSED = (LEAD + REMIND).total_seconds() + 15
#: How late after its moment a scheduled mail may go out. The mail loop alone would
#: wake up to 10 s late (pbp.app.daemon.POLL_SECONDS): on time means the scheduler woke it.
LATE = timedelta(seconds=3)
PERSONAL = re.compile(r"gm\+[a-z0-9]{10}@example\.test")
MSK = ZoneInfo("Europe/Moscow")


def config_text(imap_port: int, smtp_port: int) -> str:
    """A games.yaml with the seed's 3-player ``cluedo_rounds`` table and its fixed deal;
    its posts come in both formats (``post_format: both``: the Markdown ones are checked)."""
    players = "\n".join(
        f"      - {{name: {name}, email: {address}}}" for name, address in EMAIL.items()
    )
    hands = "\n".join(f"        {name}: [{', '.join(cards)}]" for name, cards in HANDS.items())
    mail = MailSection(
        address=DAEMON, inbox=Imap(imap_port, PASSWORD_ENV, username=DAEMON), outbox=Smtp(smtp_port)
    )
    return games_yaml(
        f"""\
  - id: {GAME}
    kind: cluedo_rounds
    locale: ru
    timezone: Europe/Moscow
    gm: {GM}
    turn_hours: {TURN_HOURS}
    answer_hours: {ANSWER_HOURS}
    auto_answer: no_match
    remind_hours_before: {REMIND_HOURS}
    post_format: both
    players:
{players}
    cards:
      suspects: [Маша, Петя, Ваня]
      weapons: [Топор, Пистолет, Канделябр, Молоток, Веревка, Нож]
      rooms: [Столовая, Спальня, Библиотека]
    deal:
      solution: [{", ".join(SOLUTION)}]
      hands:
{hands}
""",
        mail=mail,
    )


@dataclass
class Table:
    """The servers, the mailboxes the test reads, the config, and the ``pbp run``
    processes started (:meth:`pbp_run`)."""

    mail: Mailboxes
    smtp: SmtpServer
    config: Path
    daemons: list[DaemonProcess] = field(default_factory=list)

    @property
    def dovecot(self) -> Dovecot:
        return self.mail.dovecot

    def until(self, address: str, subject: str, timeout: float = 15.0) -> list[Received]:
        """``address``'s whole mailbox once a mail with ``subject`` is in it
        (:meth:`kits.mail.Mailboxes.until`)."""
        return self.mail.until(address, subject, timeout)

    def serve(self, steps: Callable[[Daemon], T], *, ahead: timedelta) -> T:
        """``steps`` beside ``pbp run``'s loop in this process, its clock ``ahead`` of the
        wall clock (:func:`kits.daemon.serve`); what ``steps`` returned."""
        return serve(_service(load_config(self.config), create=True), steps, ahead=ahead)

    def next_deadline(self) -> datetime:
        """The game's next deadline, as the store plans it."""
        with Store(self.config.parent / "pbp.sqlite3") as store:
            deadline = store.schedules()[GAME].deadline_at
        assert deadline is not None
        return deadline

    def pbp_run(self) -> DaemonProcess:
        """Start ``python -m pbp -c games.yaml run``; the mailboxes show its log."""
        daemon = DaemonProcess(self.config, env={PASSWORD_ENV: DAEMON_PASSWORD})
        self.daemons.append(daemon)
        self.mail.log = daemon.output
        return daemon


@pytest.fixture
def table(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Table]:
    dovecot.add_user(DAEMON, DAEMON_PASSWORD)
    dovecot.add_user(GM, "gm-person-secret")
    for address in EMAIL.values():
        dovecot.add_user(address, "player-secret")
    monkeypatch.setenv(PASSWORD_ENV, DAEMON_PASSWORD)  # for the loops in this process
    config = tmp_path / "games.yaml"
    config.write_text(config_text(dovecot.port, smtp_server.port), encoding="utf-8")
    found = Table(Mailboxes(dovecot, (GM, *EMAIL.values())), smtp_server, config)
    try:
        yield found
    finally:
        for daemon in found.daemons:
            daemon.stop()


#: The GM's mails of a post with GM-only facts beside it (issue 12), by Subject suffix.
PARTS = ("BBCode", "Markdown", "только для ГМа")


def post(mail: Received) -> str:
    """The post of a GM post mail: its whole body (issue 12: a post travels alone)."""
    assert mail.subject.endswith((" — BBCode", " — Markdown")), mail.subject
    return mail.body


def gm_only(mail: Received) -> str:
    """The GM-only facts beside a post: the body of their own mail after the line that
    names the game («Игра: table-e2e», asserted), stripped."""
    assert mail.subject.endswith(" — только для ГМа"), mail.subject
    head = f"Игра: {GAME}\n\n"
    assert mail.body.startswith(head), mail.body[:80]
    return mail.body.removeprefix(head).strip()


def titles(box: list[Received]) -> list[str]:
    """The Subjects of a mailbox, a reminder's deadline (known only later) cut off."""
    return [
        re.sub(r" до \d+ [а-я]+ \d{4} г\., \d\d:\d\d по Москве$", " до …", m.subject) for m in box
    ]


def assert_on_time(mail: Received, due: datetime) -> None:
    """``mail`` was written at ``due`` (its Date has whole seconds), not later than LATE."""
    assert due - timedelta(seconds=1) < mail.date <= due + LATE, (mail.subject, mail.date, due)


def msk_text(moment: datetime) -> str:
    """An aware time as ``|dt(timezone)`` shows it: ``1 декабря 2026 г., 20:00 по Москве``."""
    return moscow_text(moment)


TURN_1_POST = """\
[b]Ход 1: Кросс[/b]

Кросс: ход не сделан вовремя и пропущен.

[b]Следующий ход — Дуг.[/b]
"""

TURN_1_MARKDOWN = """\
**Ход 1: Кросс**

Кросс: ход не сделан вовремя и пропущен.

**Следующий ход — Дуг.**
"""

TURN_2_POST = """\
[b]Ход 2: Дуг[/b]

[b]Предположение №1[/b]
Дуг предполагает: убийца — [b]Петя[/b], [b]Топором[/b] [b]в Столовой[/b].

Ответы по кругу:
- Роза: нет опровержения
- Кросс: есть карта (показана приватом)

Карта показана игроку Дуг приватом.

[b]Следующий ход — Роза.[/b]
"""

TURN_3_POST = """\
[b]Ход 3: Роза[/b]

[b]Предположение №2[/b]
Роза предполагает: убийца — [b]Ваня[/b], [b]Ножом[/b] [b]в Спальне[/b].

Ответы по кругу:
- Кросс: есть карта (показана приватом; ответил ГМ: время на ответ истекло)

Карта показана Розе приватом.

[b]Следующий ход — Кросс.[/b]
"""

NOT_YOUR_TURN = (
    "> ПРЕДПОЛОЖЕНИЕ Маша, Нож, Спальня\n"
    "Понял: ПРЕДПОЛОЖЕНИЕ Маша, Нож, Спальня\n"
    "Сейчас не ваш ход: ход 1 — у игрока Кросс. Предположение или обвинение "
    "можно сделать только в свой ход; когда он наступит, придёт письмо.\n"
)

WELCOME = f"{TAG} Клуэдо: ваши карты"
TURN_REMINDER = f"{TAG} Напоминание: ваш ход до …"
TURN_SKIPPED = f"{TAG} Ваш ход пропущен (ход 1)"
ANSWER_REMINDER = f"{TAG} Напоминание: ответ на предположение №2 до …"
GAME_OVER = f"{TAG} Игра окончена"


def test_whole_game_by_rounds_R1_R2_R6_R7_C4_C5_C7_through_dovecot_smtp_and_pbp_run(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    dovecot, smtp = table.dovecot, table.smtp
    caplog.set_level(logging.INFO)
    table.mail.log = lambda: caplog.text

    # The start and R1 in this process, the game's clock BEHIND the wall clock.
    def the_start(daemon: Daemon) -> tuple[dict[str, Received], dict[str, str], str]:
        # --- start (C2, R1): hands with personal addresses, the GM sheet and opening post
        welcome: dict[str, Received] = {}
        personal: dict[str, str] = {}
        for name, address in EMAIL.items():
            (mail,) = table.until(address, WELCOME)
            assert mail.header("Auto-Submitted") == "auto-generated"
            reply_address = mail.header("Reply-To")
            assert reply_address is not None and PERSONAL.fullmatch(reply_address)
            assert f"Ваши карты: {', '.join(HANDS[name])}." in mail.lines
            assert f"Ваш личный адрес для ходов: {reply_address}" in mail.lines
            assert (
                "На ход даётся 0,1 часа, на ответ — 0,1 часа. Ход, не сделанный вовремя, "
                "пропускается; если вы не ответили вовремя, за вас ответит ГМ. Когда до вас "
                "дойдёт очередь ходить или отвечать, придёт письмо." in mail.lines
            )
            welcome[name], personal[name] = mail, reply_address
        assert len(set(personal.values())) == 3
        assert "Первый ход — Кросс." in welcome[DOUG].lines
        sheet, opening, _markdown = table.until(GM, f"{TAG} Первый пост игры — Markdown")
        assert sheet.subject == f"{TAG} Лист ГМа: решение и карты"
        assert "Решение: Маша, Топор, Столовая." in sheet.lines
        (commitment,) = re.findall(r"SHA-256: ([0-9a-f]{64})\n", post(opening))
        assert f"SHA-256 (опубликован в первом посте игры): {commitment}" in sheet.lines
        assert "[b]Первый ход — Кросс.[/b]" in post(opening)

        # --- R1: Роза suggests during Кросс's turn: refused, nothing else happens
        send(
            smtp,
            EMAIL[ROSA],
            personal[ROSA],
            "ПРЕДПОЛОЖЕНИЕ Маша, Нож, Спальня",
            reply_to=welcome[ROSA],
        )
        refused = table.until(EMAIL[ROSA], f"Re: {WELCOME}")[1]
        assert refused.header("Auto-Submitted") == "auto-replied"
        assert refused.header("Reply-To") == personal[ROSA]
        assert NOT_YOUR_TURN in refused.body
        assert "Принято" not in refused.body

        return welcome, personal, commitment

    ahead = -BEHIND
    welcome, personal, commitment = table.serve(the_start, ahead=ahead)

    # Turn 1's deadline to turn 3's question in a new loop, LEAD before the reminder.
    def turns_1_to_3(daemon: Daemon) -> tuple[Received, ...]:
        # --- R7: Кросс lets turn 1 pass: reminded, then skipped at the deadline (the
        # scheduler's job); the turn post goes to the GM and Дуг's turn starts
        doug_turn = table.until(EMAIL[DOUG], f"{TAG} Ваш ход (ход 2)", PASSED)[1]
        gm_box = table.until(GM, f"{TAG} Итоги хода 1 — Markdown")
        turn_1, turn_1_markdown = gm_box[3:]  # and nothing for the GM only: no such mail
        assert post(turn_1) == TURN_1_POST
        assert post(turn_1_markdown) == TURN_1_MARKDOWN
        # Only Кросс is told by mail that his turn was skipped (R7).
        assert titles(mailbox(dovecot, EMAIL[CROSS])) == [WELCOME, TURN_REMINDER, TURN_SKIPPED]

        # --- R2, R6: Дуг suggests; Роза has none (answered at once), Кросс must show Петя
        send(
            smtp,
            EMAIL[DOUG],
            personal[DOUG],
            "ПРЕДПОЛОЖЕНИЕ Петя, Топор, Столовая",
            reply_to=doug_turn,
        )
        doug_reply = table.until(EMAIL[DOUG], f"Re: {TAG} Ваш ход (ход 2)")[2]
        assert (
            "> ПРЕДПОЛОЖЕНИЕ Петя, Топор, Столовая\n"
            "Понял: ПРЕДПОЛОЖЕНИЕ Петя, Топор, Столовая\n"
            "Принято: предположение №1 (Петя, Топор, Столовая). Отвечают по кругу, начиная со "
            "следующего за вами игрока.\n"
            "Роза: нет опровержения.\n"
            "Сейчас отвечает Кросс.\n" in doug_reply.body
        )
        cross_asked = table.until(EMAIL[CROSS], f"{TAG} Ваша очередь отвечать на предположение №1")[
            3
        ]
        assert "У вас есть Петя. Вы обязаны показать эту карту. Ответьте строкой:" in (
            cross_asked.lines
        )
        assert subjects(dovecot, EMAIL[ROSA]) == [WELCOME, f"Re: {WELCOME}"]  # R6: not asked

        # --- C4: Кросс shows Петя, to Дуг alone; turn 3 is Роза's
        send(smtp, EMAIL[CROSS], personal[CROSS], "ОПРОВЕРЖЕНИЕ Петя", reply_to=cross_asked)
        cross_reply = table.until(
            EMAIL[CROSS], f"Re: {TAG} Ваша очередь отвечать на предположение №1"
        )[4]
        assert (
            "> ОПРОВЕРЖЕНИЕ Петя\n"
            "Понял: ОПРОВЕРЖЕНИЕ Петя\n"
            "Принято: опровержение предположения №1. Дуг получит карту приватом.\n"
            "Следующий ход — Роза.\n" in cross_reply.body
        )
        shown_1 = table.until(EMAIL[DOUG], f"{TAG} Предположение №1: вам показали карту")[3]
        assert "Кросс показывает вам карту «Петя»." in shown_1.lines
        turn_2, turn_2_markdown, turn_2_facts = table.until(
            GM, f"{TAG} Итоги хода 2 — только для ГМа"
        )[5:]
        assert post(turn_2) == TURN_2_POST
        assert gm_only(turn_2_facts) == "Только для ГМа:\n  - №1: Кросс → Дуг, карта «Петя»"
        rosa_turn = table.until(EMAIL[ROSA], f"{TAG} Ваш ход (ход 3)")[2]
        assert "Можно назвать комнаты: Столовая, Спальня, Библиотека." in rosa_turn.lines

        # --- R7, C5: Роза suggests; Кросс holds Ваня and Нож and does not answer: reminded,
        # then at the deadline the GM shows the suspect, Ваня, and the turn passes on
        send(
            smtp,
            EMAIL[ROSA],
            personal[ROSA],
            "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Спальня",
            reply_to=rosa_turn,
        )
        rosa_reply = table.until(EMAIL[ROSA], f"Re: {TAG} Ваш ход (ход 3)")[3]
        assert (
            "Принято: предположение №2 (Ваня, Нож, Спальня). Отвечают по кругу, начиная со "
            "следующего за вами игрока.\n"
            "Сейчас отвечает Кросс.\n" in rosa_reply.body
        )
        cross_asked_2 = table.until(
            EMAIL[CROSS], f"{TAG} Ваша очередь отвечать на предположение №2"
        )[5]
        assert (
            "У вас есть: Ваня, Нож. Вы обязаны его опровергнуть; какую из этих карт показать — "
            "решаете вы. Ответьте строкой, например:" in cross_asked_2.lines
        )
        return doug_turn, turn_1, turn_1_markdown, turn_2, turn_2_markdown, cross_asked_2

    before = table.next_deadline() - REMIND
    ahead = before - LEAD - datetime.now(UTC)
    doug_turn, turn_1, turn_1_markdown, turn_2, turn_2_markdown, cross_asked_2 = table.serve(
        turns_1_to_3, ahead=ahead
    )

    # The deadline of Кросс's answer in a third loop, LEAD before its reminder.
    def answer_2(daemon: Daemon) -> tuple[Received, Received, Received, Received, list[Received]]:
        turn_3, turn_3_markdown, turn_3_facts = table.until(
            GM, f"{TAG} Итоги хода 3 — только для ГМа", PASSED
        )[8:]
        assert post(turn_3) == TURN_3_POST
        assert gm_only(turn_3_facts) == (
            "Только для ГМа:\n"
            "  - №2: ответа от игрока Кросс вовремя не было, ответ дал ГМ — показана карта «Ваня»"
        )
        cross_box = table.until(EMAIL[CROSS], f"{TAG} Ваш ход (ход 4)")
        assert titles(cross_box) == [
            WELCOME,
            TURN_REMINDER,
            TURN_SKIPPED,
            f"{TAG} Ваша очередь отвечать на предположение №1",
            f"Re: {TAG} Ваша очередь отвечать на предположение №1",
            f"{TAG} Ваша очередь отвечать на предположение №2",
            ANSWER_REMINDER,
            f"{TAG} Предположение №2: за вас ответил ГМ",
            f"{TAG} Ваш ход (ход 4)",
        ]
        gm_answered = cross_box[7]
        assert (
            "ГМ ответил за вас и показал Розе вашу карту «Ваня» (первую подходящую в "
            "порядке подозреваемый — орудие — комната)." in gm_answered.lines
        )
        shown_2 = table.until(EMAIL[ROSA], f"{TAG} Предположение №2: вам показали карту")[4]
        assert (
            "За игрока Кросс ответил ГМ (время на ответ истекло) и показал вам карту «Ваня»."
            in shown_2.lines
        )
        return turn_3, turn_3_markdown, gm_answered, shown_2, cross_box

    before = table.next_deadline() - REMIND
    ahead = before - LEAD - datetime.now(UTC)
    turn_3, turn_3_markdown, gm_answered, shown_2, cross_box = table.serve(answer_2, ahead=ahead)

    # From turn 4 on, the real ``pbp run`` on the wall clock (it is later than the game's).
    daemon = table.pbp_run()
    # --- C7: Кросс accuses rightly and wins; the fairness string matches the opening
    cross_turn = cross_box[8]
    send(
        smtp, EMAIL[CROSS], personal[CROSS], "ОБВИНЕНИЕ Маша, Топор, Столовая", reply_to=cross_turn
    )
    gm_box = table.until(GM, f"{TAG} Игра окончена: финальный пост — только для ГМа")
    accusation, final, _final_markdown, _final_facts = gm_box[11:]
    assert accusation.subject == f"{TAG} Обвинение игрока Кросс: верное"
    assert "Ход 4. Кросс обвиняет: Маша, Топор, Столовая." in accusation.lines
    cross_won = table.until(EMAIL[CROSS], f"Re: {TAG} Ваш ход (ход 4)")[9]
    assert (
        "> ОБВИНЕНИЕ Маша, Топор, Столовая\n"
        "Понял: ОБВИНЕНИЕ Маша, Топор, Столовая\n"
        "Обвинение (Маша, Топор, Столовая) верное — вы победили!\n" in cross_won.body
    )
    bbcode = post(final)
    assert "Обвинение верное — победитель [b]Кросс[/b]!\n" in bbcode
    assert "Убийца — [b]Маша[/b], [b]Топором[/b] [b]в Столовой[/b].\n" in bbcode
    (canonical,) = re.findall(r"\[code\](.*)\[/code\]", bbcode)
    assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == commitment
    assert f"В первом посте игры был опубликован SHA-256: {commitment}" in bbcode
    for name, address in EMAIL.items():
        over = table.until(address, GAME_OVER)[-1]
        assert over.header("Reply-To") == personal[name]
        assert f"SHA-256: {commitment}" in over.lines
    assert "Вы победили — ваше обвинение верное!" in mailbox(dovecot, EMAIL[CROSS])[-1].lines
    assert "Победа за игроком Кросс." in mailbox(dovecot, EMAIL[ROSA])[-1].lines

    # --- SIGTERM: a clean exit, and nothing went wrong on the way
    assert daemon.stop() == 0, daemon.output()
    log = daemon.output()
    # A healthy server and a clean game: no error, no lost connection, no traceback.
    assert not TROUBLE.search(log), log
    in_process = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert in_process == [], in_process

    # --- the log: the deadlines and what happened at them (R7)
    with Store(table.config.parent / "pbp.sqlite3") as store:
        logged = store.events(GAME)
    assert [(e.event.kind, e.event.player) for e in logged] == [
        ("deal", None),
        ("hand_dealt", CROSS),
        ("hand_dealt", DOUG),
        ("hand_dealt", ROSA),
        ("game_started", None),
        ("turn_started", None),
        ("turn_skipped", None),
        ("turn_started", None),
        ("suggestion_made", None),
        ("not_refuted", None),
        ("asked", None),
        ("refuted", None),
        ("card_shown", DOUG),
        ("round_ended", None),
        ("turn_started", None),
        ("suggestion_made", None),
        ("asked", None),
        ("gm_refutation", None),
        ("refuted", None),
        ("card_shown", ROSA),
        ("round_ended", None),
        ("turn_started", None),
        ("accusation_made", None),
        ("accusation_result", CROSS),
        ("game_over", None),
    ]
    data = [e.event.data for e in logged]
    deadline_1 = datetime.fromisoformat(data[5]["started_at"]) + TURN
    assert data[5]["deadline"] == deadline_1.isoformat()
    assert data[6] == {
        "turn": 1,
        "player": CROSS,
        "deadline": deadline_1.isoformat(),
        "skipped_at": deadline_1.isoformat(),
    }
    assert (data[7]["turn"], data[7]["player"]) == (2, DOUG)
    assert data[7]["started_at"] == deadline_1.isoformat()  # turn 2 starts at the deadline
    assert (data[9]["by"], data[9]["auto"], data[9]["by_gm"]) == (ROSA, True, False)
    assert (data[11]["by"], data[11]["auto"], data[11]["by_gm"]) == (CROSS, False, False)
    assert data[12]["card"] == "Петя"
    deadline_2 = datetime.fromisoformat(data[16]["asked_at"]) + ANSWER
    assert (data[16]["player"], data[16]["deadline"]) == (CROSS, deadline_2.isoformat())
    assert data[17]["card"] == "Ваня"  # C5: suspect before weapon before room
    assert (data[18]["by"], data[18]["by_gm"], data[18]["answered_at"]) == (
        CROSS,
        True,
        deadline_2.isoformat(),
    )
    assert (data[21]["turn"], data[21]["player"]) == (4, CROSS)
    assert data[21]["started_at"] == deadline_2.isoformat()
    assert (data[24]["winner"], data[24]["canonical"]) == (CROSS, canonical)

    # --- the scheduler woke the daemon on time (the mail loop alone: up to 10 s late)
    remind_1, remind_2 = cross_box[1], cross_box[6]
    assert remind_1.subject == f"{TAG} Напоминание: ваш ход до {msk_text(deadline_1)}"
    assert remind_2.subject == (
        f"{TAG} Напоминание: ответ на предположение №2 до {msk_text(deadline_2)}"
    )
    assert_on_time(remind_1, deadline_1 - REMIND)
    assert_on_time(turn_1, deadline_1)
    assert_on_time(doug_turn, deadline_1)
    assert_on_time(remind_2, deadline_2 - REMIND)
    assert_on_time(turn_3, deadline_2)
    assert_on_time(gm_answered, deadline_2)
    assert_on_time(shown_2, deadline_2)
    assert (
        f"Первый ход — ваш: сделайте предположение или обвинение до {msk_text(deadline_1)}."
        in welcome[CROSS].lines
    )
    assert (
        f"Сделайте предположение или обвинение до {msk_text(deadline_1 + TURN)}; иначе ход "
        "будет пропущен." in doug_turn.lines
    )
    assert (
        f"Ответить нужно до {msk_text(deadline_2)}. Иначе за вас ответит ГМ (первой "
        "подходящей картой в порядке подозреваемый — орудие — комната)." in cross_asked_2.lines
    )

    # --- who received what, in order
    assert subjects(dovecot, EMAIL[CROSS]) == [
        WELCOME,
        remind_1.subject,
        TURN_SKIPPED,
        f"{TAG} Ваша очередь отвечать на предположение №1",
        f"Re: {TAG} Ваша очередь отвечать на предположение №1",
        f"{TAG} Ваша очередь отвечать на предположение №2",
        remind_2.subject,
        f"{TAG} Предположение №2: за вас ответил ГМ",
        f"{TAG} Ваш ход (ход 4)",
        f"Re: {TAG} Ваш ход (ход 4)",
        GAME_OVER,
    ]
    assert subjects(dovecot, EMAIL[DOUG]) == [
        WELCOME,
        f"{TAG} Ваш ход (ход 2)",
        f"Re: {TAG} Ваш ход (ход 2)",
        f"{TAG} Предположение №1: вам показали карту",
        GAME_OVER,
    ]
    assert subjects(dovecot, EMAIL[ROSA]) == [
        WELCOME,
        f"Re: {WELCOME}",
        f"{TAG} Ваш ход (ход 3)",
        f"Re: {TAG} Ваш ход (ход 3)",
        f"{TAG} Предположение №2: вам показали карту",
        GAME_OVER,
    ]
    assert subjects(dovecot, GM) == [
        f"{TAG} Лист ГМа: решение и карты",
        *(f"{TAG} Первый пост игры — {part}" for part in ("BBCode", "Markdown")),
        *(f"{TAG} Итоги хода 1 — {part}" for part in ("BBCode", "Markdown")),
        *(f"{TAG} Итоги хода {turn} — {part}" for turn in (2, 3) for part in PARTS),
        f"{TAG} Обвинение игрока Кросс: верное",
        *(f"{TAG} Игра окончена: финальный пост — {part}" for part in PARTS),
    ]
    # RFC 3834: every mail pbp sent is automatic; replies are exactly the Re: ones.
    for address in (GM, *EMAIL.values()):
        for mail in mailbox(dovecot, address):
            expected = "auto-replied" if mail.subject.startswith("Re: ") else "auto-generated"
            assert mail.header("Auto-Submitted") == expected, (address, mail.subject)

    # --- C4: a shown card reaches its suggester alone (and the GM's private list)
    shown = [
        (address, mail.subject, card)
        for address in (DAEMON, GM, *EMAIL.values())
        for mail in mailbox(dovecot, address)
        for card in ("Петя", "Ваня")
        if f"вам карту «{card}»" in mail.body  # shown by the player or by the GM
    ]
    assert shown == [
        (EMAIL[DOUG], f"{TAG} Предположение №1: вам показали карту", "Петя"),
        (EMAIL[ROSA], f"{TAG} Предположение №2: вам показали карту", "Ваня"),
    ]
    for mail in (turn_1, turn_1_markdown, turn_2, turn_2_markdown, turn_3, turn_3_markdown):
        assert "карта Петя" not in post(mail) and "карта Ваня" not in post(mail)

    # --- the daemon's mailbox: every move done by keyword, never marked \Seen
    processed = mailbox(dovecot, DAEMON)
    assert [mail.header("Delivered-To") for mail in processed] == [
        personal[ROSA],
        personal[DOUG],
        personal[CROSS],
        personal[ROSA],
        personal[CROSS],
    ]
    for mail in processed:
        assert DONE in mail.flags
        assert "\\Seen" not in mail.flags
