"""The game of tests/games/maniac/test_e2e.py: Maniac by mail through the real mail stack.

Built on :mod:`kits.mail` (mailboxes over IMAP, smtplib players, :class:`~kits.mail.Mailboxes`),
:mod:`kits.daemon` (``pbp run`` as a process, or its loop in this one with a clock off
the wall clock) and :mod:`kits.games` (the ``games.yaml``):

* :func:`past_deadlines` picks ``day_closes`` / ``night_ends`` ("HH:MM" local times in
  the game's zone): the two whole minutes just before the test's start. The daemons of
  days 1 and night 1 run with their clocks that far behind the wall clock
  (:func:`kits.daemon.serve`), so that their APScheduler jobs close day 1 and end night
  1 seconds later; the game's clock never gets ahead of the wall clock, which ``pbp
  run`` and the GM's commands keep from then on.
* :func:`post` / :func:`gm_only` read a GM post mail, :func:`md` / :func:`facts` name
  the Markdown and GM-only mails beside a BBCode post's Subject.
* The game itself: ten players (seed 002's names) with a fixed deal (``ROLES``), its
  ``games.yaml`` (:func:`games_yaml`), the Subjects of its mails and small checks.

Example::

    close, dawn = past_deadlines(datetime.now(UTC), ZoneInfo("Europe/Moscow"))
    close.strftime("%H:%M")   # "14:30" — the games.yaml ``day_closes``
    table.one("kolya@example.test", "[maniac-e2e] Маньяк: ваша роль")
    run_ok(config, "close-day", "maniac-e2e", env={"PBP_E2E_MANIAC_IMAP_PASSWORD": "…"})
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from .games import Imap, MailSection, Smtp
from .games import games_yaml as games_file
from .mail import Received


def past_deadlines(now: datetime, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """(day close, night end): the whole local minute before the last one at or before
    ``now`` (aware), and that last one, both aware in ``zone``.

    >>> from datetime import UTC
    >>> msk = ZoneInfo("Europe/Moscow")
    >>> close, dawn = past_deadlines(datetime(2026, 12, 1, 11, 31, 50, tzinfo=UTC), msk)
    >>> close.isoformat(), dawn.isoformat()
    ('2026-12-01T14:30:00+03:00', '2026-12-01T14:31:00+03:00')

    :raises ValueError: ``now`` is naive.
    """
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    dawn = now.astimezone(zone).replace(second=0, microsecond=0)
    return dawn - timedelta(minutes=1), dawn


def post(mail: Received) -> str:
    """The post of a GM post mail: its whole body (issue 12: a post travels alone)."""
    assert mail.subject.endswith((" — BBCode", " — Markdown")), mail.subject
    return mail.body


def gm_only(mail: Received) -> str:
    """The GM-only facts beside a post: the body of their own mail after the line that
    names the game (:data:`GAME_LINE`, asserted), stripped."""
    assert mail.subject.endswith(" — только для ГМа"), mail.subject
    assert mail.body.startswith(GAME_LINE), mail.body[:80]
    return mail.body.removeprefix(GAME_LINE).strip()


def md(subject: str) -> str:
    """The Subject of the Markdown mail of the post whose BBCode mail has ``subject``."""
    return subject.replace(" — BBCode", " — Markdown")


def facts(subject: str) -> str:
    """The Subject of the GM-only mail beside the post whose BBCode mail has ``subject``."""
    return subject.replace(" — BBCode", " — только для ГМа")


# --- the game of tests/games/maniac/test_e2e.py -------------------------------------------

GAME = "maniac-e2e"
TAG = f"[{GAME}]"
#: The first line of every mail but a post to paste, and the blank line after it.
GAME_LINE = f"Игра: {GAME}\n\n"
DAEMON = "gm@example.test"
DAEMON_PASSWORD = "daemon-secret"
GM = "gm-person@example.test"
PASSWORD_ENV = "PBP_E2E_MANIAC_IMAP_PASSWORD"
ENV = {PASSWORD_ENV: DAEMON_PASSWORD}
DONE = "$PbpDone"
VASYA, PETYA, TANYA, OLYA, SASHA, MASHA = "Вася", "Петя", "Таня", "Оля", "Саша", "Маша"
MANIAC, DUTY, FAN, KATYA = "Коля", "Дима", "Лена", "Катя"
PLAYERS = (VASYA, PETYA, TANYA, OLYA, SASHA, MASHA, MANIAC, DUTY, FAN, KATYA)
EMAIL = {
    VASYA: "vasya@example.test",
    PETYA: "petya@example.test",
    TANYA: "tanya@example.test",
    OLYA: "olya@example.test",
    SASHA: "sasha@example.test",
    MASHA: "masha@example.test",
    MANIAC: "kolya@example.test",
    DUTY: "dima@example.test",
    FAN: "lena@example.test",
    KATYA: "katya@example.test",
}
ROLES = {p: "civilian" for p in PLAYERS} | {MANIAC: "maniac", DUTY: "duty_officer", FAN: "fan"}
ROLE_WORDS = {"civilian": "мирный житель", "maniac": "маньяк", "duty_officer": "дежурный"}
ROLE_WORDS["fan"] = "фанат"
#: The players whose gender the dictionary surely guesses feminine, and their role words
#: (rule P2: «Таня — мирная жительница»; «маньяк» and «фанат» serve both genders).
WOMEN = frozenset({"Таня", "Оля", "Маша", "Лена", "Катя"})
WOMEN_ROLE_WORDS = {**ROLE_WORDS, "civilian": "мирная жительница", "duty_officer": "дежурная"}


def role_word(player: str, role: str) -> str:
    """``role`` in words, in ``player``'s gender (P2)."""
    return (WOMEN_ROLE_WORDS if player in WOMEN else ROLE_WORDS)[role]


MSK = ZoneInfo("Europe/Moscow")
#: Day 1 closes this long after the day's daemon starts, on the game's clock (its reminder
#: 7.4 s after that start; day 1's mails were answered before, at a moment of the test's).
LEAD = timedelta(seconds=11)
#: Night 1 ends this long after the night's daemon starts, on the game's clock.
NIGHT_LEAD = timedelta(seconds=5)
REMIND_HOURS = 0.001  # 3.6 s
REMIND = timedelta(hours=REMIND_HOURS)
#: How late after its moment a scheduled mail may go out. The mail loop alone would
#: wake up to 10 s late (pbp.app.daemon.POLL_SECONDS): on time means the scheduler woke it.
LATE = timedelta(seconds=3)
#: The daemon sends what a GM command queued at its next round: at most 10 s later.
AFTER_COMMAND = 20.0
PERSONAL = re.compile(r"gm\+[a-z0-9]{10}@example\.test")


#: The game's item of ``games.yaml`` (:func:`games_yaml` fills it in).
GAME_ITEM = """\
  - id: {game}
    kind: maniac
    locale: ru
    timezone: Europe/Moscow
    gm: {gm}
    day_closes: "{day_closes}"
    night_ends: "{night_ends}"
    remind_hours_before: {remind_hours}
    vote_count_mail: true
    post_format: both
    players:
{players}
    roles:
{roles}
"""


def games_yaml(imap_port: int, smtp_port: int, day_closes: str, night_ends: str) -> str:
    """A games.yaml with the ten-player ``maniac`` game and its fixed deal, the daemon
    reading ``DAEMON``'s mailbox over IMAP and sending by SMTP (a test's Dovecot and
    aiosmtpd)."""
    item = GAME_ITEM.format(
        game=GAME,
        gm=GM,
        day_closes=day_closes,
        night_ends=night_ends,
        remind_hours=REMIND_HOURS,
        players="\n".join(f"      - {{name: {p}, email: {EMAIL[p]}}}" for p in PLAYERS),
        roles="\n".join(f"      {p}: {ROLES[p]}" for p in PLAYERS),
    )
    inbox = Imap(imap_port, PASSWORD_ENV, username=DAEMON)
    return games_file(item, mail=MailSection(address=DAEMON, inbox=inbox, outbox=Smtp(smtp_port)))


def assert_on_time(mail: Received, due: datetime) -> None:
    """``mail`` was written at ``due`` (its Date has whole seconds), not later than LATE."""
    assert due - timedelta(seconds=1) < mail.date <= due + LATE, (mail.subject, mail.date, due)


def accepted_vote(line: str, accusative: str, cast_no: int = 1, prison: bool = False) -> str:
    """The reply section of an accepted vote (templates/ru/maniac/mail/reply.j2)."""
    mark, post_mark = (" (в тюрьму)", " — в тюрьму") if prison else ("", "")
    return (
        f"> {line}\n"
        f"Понял: ГОЛОС {'ТЮРЬМА ' if prison else ''}за {accusative}\n"
        f"Принято: ваш голос — за {accusative}{mark}. Сегодня это ваш {cast_no}-й голос за "
        "этого игрока.\n"
        "\n"
        "Для форума (скопируйте в тред игры):\n"
        "\n"
        f"[b]Голосую за {accusative}{post_mark}[/b]\n"
    )


WELCOME = f"{TAG} Маньяк: ваша роль"
SHEET = f"{TAG} Лист ГМа: роли"
OPENING = f"{TAG} Первый пост игры (день 1) — BBCode"
VOTES = [f"{TAG} Голоса дня {day}" for day in (1, 2, 3)]
EVENING = [f"{TAG} Вечер дня {day}: итоги голосования — BBCode" for day in (1, 2, 3)]
MORNING = [f"{TAG} Утро после ночи {night} — BBCode" for night in (1, 2)]
NIGHT = [f"{TAG} Ночь {night}: как она прошла" for night in (1, 2)]
FIXED = [f"{TAG} Заказ на ночь {night} зафиксирован" for night in (1, 2, 3)]
KILLED = f"{TAG} Вас убили в ночь 1"
GAME_OVER = f"{TAG} Игра окончена"
FINAL = f"{TAG} Игра окончена: финальный пост — BBCode"
DAY_1 = f"Re: {WELCOME}"  # day 1's moves answer the welcome mail
DAY_2, DAY_3 = f"{TAG} Re: день 2", f"{TAG} Re: день 3"  # later moves are new mails
FOOTER = "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.\n"
#: The headings of the reply's sections (templates/ru/*/mail/reply.j2).
APPLIED = "Выполнено:\n\n"
REFUSED = "Не выполнено:\n\n"
FIX_THESE = "Исправьте невыполненные строки и пришлите их снова ответом на это письмо.\n"


# --- the posts the GM gets (BBCode), exactly -----------------------------------------

EVENING_1 = """\
[b]Вечер дня 1: итоги голосования[/b]

- [b]Лена[/b] (5): Петя, Таня, Оля, Саша, Маша
- [b]Петя[/b] (3): Вася, Лена, Коля
- [b]Коля[/b] (1): Дима

Не проголосовали: Катя.

[b]В камеру отправляется Лена.[/b]

[b]Наступает ночь 1.[/b]
"""

MORNING_1 = """\
[b]Утро дня 2[/b]

Этой ночью убиты игроки: [b]Вася[/b], [b]Лена[/b].

В игре (живы и на свободе): Петя, Таня, Оля, Саша, Маша, Коля, Дима, Катя.

[b]День 2 открыт: голосуйте, кто проведёт ночь 2 в камере.[/b]
"""

MORNING_1_MARKDOWN = """\
**Утро дня 2**

Этой ночью убиты игроки: **Вася**, **Лена**.

В игре (живы и на свободе): Петя, Таня, Оля, Саша, Маша, Коля, Дима, Катя.

**День 2 открыт: голосуйте, кто проведёт ночь 2 в камере.**
"""

DAY_2_COUNT = """\
[b]День 2: голоса на данный момент (день ещё идёт)[/b]

- [b]Коля[/b] (4): Дима, Таня, Катя, Петя
- [b]Катя[/b] (1): Коля

Не проголосовали: Оля, Саша, Маша.
"""

EVENING_2 = """\
[b]Вечер дня 2: итоги голосования[/b]

- [b]Коля[/b] (4): Дима, Таня, Катя, Петя
- [b]Катя[/b] (1): Коля

Не проголосовали: Оля, Саша, Маша.

[b]В камеру отправляется Коля.[/b]

[b]Наступает ночь 2.[/b]
"""

MORNING_2 = """\
[b]Утро дня 3[/b]

Этой ночью никто не погиб.

Коля выходит из камеры.

В игре (живы и на свободе): Петя, Таня, Оля, Саша, Маша, Коля, Дима, Катя.

[b]День 3 открыт: голосуйте, кто проведёт ночь 3 в камере.[/b]
"""

EVENING_3 = """\
[b]Вечер дня 3: итоги голосования[/b]

- [b]Коля[/b] (3): Дима (в тюрьму), Петя, Катя (в тюрьму)

Не проголосовали: Таня, Оля, Саша, Маша, Коля.

[b]Коля отправляется в тюрьму навсегда[/b]: второй раз подряд в камеру — значит, в тюрьму.

У Коли 2 голоса за тюрьму и 1 голос за камеру.

[b]Игра окончена: итоги — в финальном посте.[/b]
"""

FINAL_ROLES = """\
[b]Роли[/b]
- Вася — [b]мирный житель[/b]; жертва ночи 1
- Петя — [b]мирный житель[/b]
- Таня — [b]мирная жительница[/b]
- Оля — [b]мирная жительница[/b]
- Саша — [b]мирный житель[/b]
- Маша — [b]мирная жительница[/b]
- Коля — [b]маньяк[/b]; в тюрьме со дня 3
- Дима — [b]дежурный[/b]
- Лена — [b]фанат[/b]; жертва ночи 1
- Катя — [b]мирная жительница[/b]
"""

#: Texts that tell someone's role or the maniac's doings: who may see them before the end.
SECRETS = (
    *("Коля — маньяк", "Маньяк — Коля", "Ваш фанат — Лена", "Лена — фанат", "Дима — дежурный"),
    *("Заказ маньяка", "убить Васю", "убить Петю", "не исполнен", "под охраной дежурного"),
)
