"""The ``pbp`` command line on a Maildir ``games.yaml`` (issue 2).

"The same game through Maildir, and through ``pbp run --once``": every test writes
its own ``games.yaml`` into ``tmp_path`` (Maildir inbox and outbox under it, a ``seed``
and a fixed ``deal:``), drives the game with ``pbp mail --at ISO`` (the delivery time
decides the game day, rule D8) and ``pbp run --once --now ISO`` (the daemon acts as at
that time), and reads what players and the GM received from the outbox Maildir. The
commands run in this process (:mod:`kits.cli`: exit status, stdout and stderr as a
child shows them); the refusal of a broken file by ``pbp run --once`` is checked in a
real child process.

Tokens (personal addresses) and the deal's salt are random; they are read from
the mails (the Reply-To of the welcome mails, the GM sheet) and put into the
expected texts. Game dates lie in the past (March 2025) so that the commands
that use the real clock (``pbp close-day``) act after them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from string import Template

import pytest
from kits.cli import Result, pbp
from kits.daemon import run_pbp
from kits.games import MailSection, games_yaml

from pbp.mail.maildir import deliver

GM = "gm-person@example.test"

# --- running pbp ------------------------------------------------------------------


class Table:
    """One ``games.yaml`` in a temp directory and the ``pbp`` commands run on it."""

    def __init__(self, directory: Path, config_text: str) -> None:
        self.dir = directory
        self.config = directory / "games.yaml"
        self.config.write_text(config_text, encoding="utf-8")
        self.inbox = directory / "mail" / "inbox"
        self.outbox = directory / "mail" / "outbox"
        self._seen: set[str] = set()

    def pbp(self, *args: str) -> Result:
        """``pbp -c games.yaml ARGS…`` in the table's directory, in this process."""
        return pbp(self.config, *args)

    def pbp_process(self, *args: str) -> Result:
        """The same as a real ``python -m pbp`` child process."""
        done = run_pbp(self.config, *args, timeout=60)
        return Result(done.returncode, done.stdout.splitlines(), done.stderr.splitlines())

    def ok(self, *args: str) -> list[str]:
        """Run ``pbp ARGS…``, check it succeeded without a traceback; its stdout lines."""
        result = self.pbp(*args)
        assert result.code == 0, result
        assert not any("Traceback" in line for line in result.err), result.err
        return result.out

    def run(self, now: str) -> list[str]:
        """``pbp run --once --now NOW``: its output lines (one per message handled)."""
        return self.ok("run", "--once", "--now", now)

    def mail(self, sender: str, to: str, at: str, *lines: str, subject: str = "pbp") -> str:
        """``pbp mail``: one message into the inbox, arriving at ``at``; its Maildir key."""
        out = self.ok(
            "mail", "--from", sender, "--to", to, "--subject", subject, "--at", at, *lines
        )
        assert len(out) == 1 and (self.inbox / "new" / out[0]).is_file(), out
        return out[0]

    def new_mail(self) -> list[EmailMessage]:
        """The outbox messages written since the last call, in the order they were sent.

        The Maildir names count up in the process that writes them (``…P<pid>Q<n>.host``;
        the commands run in this one): that counter gives the order.
        """
        folder = self.outbox / "new"
        names = sorted(
            (n for n in os.listdir(folder) if n not in self._seen) if folder.is_dir() else [],
            key=lambda n: int(re.search(r"Q(\d+)\.", n).group(1)),  # type: ignore[union-attr]
        )
        self._seen.update(names)
        parser = BytesParser(policy=policy.default)
        messages = []
        for name in names:
            parsed = parser.parsebytes((folder / name).read_bytes())
            assert isinstance(parsed, EmailMessage)
            messages.append(parsed)
        return messages


def body(message: EmailMessage) -> str:
    """The text of a single-part mail, with ``\\n`` line ends."""
    content = message.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def heads(messages: Sequence[EmailMessage]) -> list[tuple[str, str]]:
    """``(To, Subject)`` of each message."""
    return [(str(m["To"]), str(m["Subject"])) for m in messages]


def by_head(messages: Sequence[EmailMessage]) -> dict[tuple[str, str], EmailMessage]:
    """The messages by ``(To, Subject)``, which must be unique.

    The order of the mails of one run is not part of the interface; compare the keys
    of this dict with a set.
    """
    found = dict(zip(heads(messages), messages, strict=True))
    assert len(found) == len(messages), heads(messages)
    return found


def token_of(message: EmailMessage) -> str:
    """The token of a plus personal address in the Reply-To: ``gm+k3x9@…`` → ``k3x9``."""
    match = re.fullmatch(r"gm\+([a-z0-9]{10})@example\.test", str(message["Reply-To"]))
    assert match, message["Reply-To"]
    return match.group(1)


# --- the games --------------------------------------------------------------------

# Seed 001's players and cards; 3 players use 3·3+3 = 12 cards, so rule C1 drops
# Зеленович, топор and холл from the bottom of the decks.
RU_GAME = """\
  - id: ru-1
    kind: cluedo_days
    locale: ru
    timezone: Europe/Moscow
    day_closes: "22:30"
    gm: gm-person@example.test
    seed: 1234
    start: "2025-03-01T20:00"
    players:
      - {name: Неташка, email: netashka@example.test, character: Краснова, gender: f}
      - {name: Веталь, email: vetal@example.test, character: Горчичников, gender: m}
      - {name: Дуг, email: doug@example.test, character: Белых, gender: f}
    cards:
      suspects: [Краснова, Горчичников, Белых, Зеленович]
      weapons: [подсвечник, нож, труба, топор]
      rooms: [кухня, танцевальный зал, терраса, бильярдная, библиотека, кабинет, холл]
    deal:
      solution: [Белых, труба, кабинет]
      hands:
        Неташка: [Краснова, нож, кухня]
        Веталь: [Горчичников, танцевальный зал, терраса]
        Дуг: [подсвечник, бильярдная, библиотека]
"""

EN_GAME = """\
  - id: en-1
    kind: cluedo_days
    locale: en
    timezone: Europe/London
    day_closes: "21:00"
    gm: gm-person@example.test
    seed: 1234
    start: "2025-03-01T18:00"
    post_format: both
    players:
      - {name: Alice, email: alice@example.test, character: Scarlett}
      - {name: Bob, email: bob@example.test, character: Mustard}
      - {name: Carol, email: carol@example.test, character: White}
    cards:
      suspects: [Scarlett, Mustard, White, Green]
      weapons: [candlestick, knife, pipe, axe]
      rooms: [kitchen, ballroom, conservatory, billiard room, library, study, hall]
    deal:
      solution: [White, pipe, study]
      hands:
        Alice: [Scarlett, knife, kitchen]
        Bob: [Mustard, ballroom, conservatory]
        Carol: [candlestick, billiard room, library]
"""


@dataclass(frozen=True)
class Lang:
    """One locale's game: its config, its three seats, the moves and the expected texts.

    Seats: P1 suggests to P3 (who holds only the weapon named: he must refute with it,
    rule C4) and is refuted; P2 suggests to P1 naming two of P1's cards and gets no
    answer, so the GM shows the suspect at the close (rules C5, D6); on day 2 P3
    accuses right (rules C6, C7). Texts are :class:`string.Template` strings over
    ``$sha`` and ``$canonical`` (random salt), and for the welcome mail ``$name``,
    ``$character``, ``$hand`` and ``$address`` (random token).
    """

    yaml: str
    game: str
    seats: tuple[tuple[str, str, str, str], ...]  # (name, email, character, hand) of P1..P3
    deal: dict[str, object]  # the "deal" part of the canonical string (DESIGN.md)
    times: dict[str, str]  # local ISO times with their UTC offset
    moves: dict[str, tuple[str, ...]]  # the lines of each mail
    subjects: dict[str, str]
    texts: dict[str, str]
    labels: tuple[str, str, str, str]  # the GM post mails' Subject suffixes; the GM-only heading

    @property
    def markdown_mailed(self) -> bool:
        """The GM gets each post in Markdown too (``post_format: both``, the English
        game); else in BBCode alone (the default, the Russian game)."""
        return "post_format: both" in self.yaml

    @property
    def game_line(self) -> str:
        """The first line of every mail but a post to paste, and the blank line after."""
        return f"{'Игра' if self.game == 'ru-1' else 'Game'}: {self.game}\n\n"


RU = Lang(
    yaml=RU_GAME,
    game="ru-1",
    seats=(
        ("Неташка", "netashka@example.test", "Краснова", "Краснова, нож, кухня"),
        ("Веталь", "vetal@example.test", "Горчичников", "Горчичников, танцевальный зал, терраса"),
        ("Дуг", "doug@example.test", "Белых", "подсвечник, бильярдная, библиотека"),
    ),
    deal={
        "hands": {
            "Неташка": ["Краснова", "нож", "кухня"],
            "Веталь": ["Горчичников", "танцевальный зал", "терраса"],
            "Дуг": ["подсвечник", "бильярдная", "библиотека"],
        },
        "solution": {"room": "кабинет", "suspect": "Белых", "weapon": "труба"},
    },
    times={
        "start": "2025-03-01T20:05+03:00",
        "suggest": "2025-03-01T21:00+03:00",
        "after_suggest": "2025-03-01T21:05+03:00",
        "refute": "2025-03-01T21:10+03:00",
        "suggest2": "2025-03-01T21:20+03:00",
        "before_close": "2025-03-01T21:30+03:00",
        "close_utc": "2025-03-01T19:30:00+00:00",
        "after_close": "2025-03-01T22:31+03:00",
        "accuse": "2025-03-02T10:00+03:00",
        "after_accuse": "2025-03-02T10:05+03:00",
    },
    moves={
        "suggest": ("ПРЕДПОЛОЖЕНИЕ Белых, подсвечник, кухня ДЛЯ Дуг",),
        "refute": ("ОПРОВЕРЖЕНИЕ 1 подсвечник", "СТАТУС"),
        "suggest2": ("SUGGEST Краснова, нож, бильярдная TO Неташка",),
        "accuse": ("ОБВИНЕНИЕ Белых, труба, кабинет",),
    },
    subjects={
        "welcome": "[ru-1] Клуэдо: ваши карты",
        "sheet": "[ru-1] Лист ГМа: решение и карты",
        "opening": "[ru-1] Первый пост игры (день 1)",
        "addressed1": "[ru-1] Предположение №1 от Неташки",
        "shown1": "[ru-1] Предположение №1: вам показали карту",
        "addressed2": "[ru-1] Предположение №2 от Веталя",
        "gm_answered": "[ru-1] Предположение №2: за вас ответил ГМ",
        "shown2": "[ru-1] Предположение №2: вам показали карту",
        "day1": "[ru-1] Итоги дня 1",
        "accusation": "[ru-1] Обвинение Дуг: верное",
        "over": "[ru-1] Игра окончена",
        "final": "[ru-1] Игра окончена: финальный пост",
        "reply": "[ru-1] Re: pbp",
    },
    labels=(" — BBCode", " — Markdown", " — только для ГМа", "Только для ГМа:"),
    texts={
        "welcome": """\
Игра: ru-1

Здравствуйте, $name!

Начинается игра «ru-1» — Клуэдо по игровым дням.
Ваш персонаж: $character.
Ваши карты: $hand.
Их знаете только вы и ГМ.

Все карты в игре:
  Подозреваемые: Краснова, Горчичников, Белых
  Орудия: подсвечник, нож, труба
  Комнаты: кухня, танцевальный зал, терраса, бильярдная, библиотека, кабинет

Игроки:
  - Неташка (Краснова)
  - Веталь (Горчичников)
  - Дуг (Белых)

Ваш личный адрес для ходов: $address
Пишите ходы только на него — проще всего отвечать на это письмо.

Игровой день закрывается в 22:30 по Москве. Ход относится к тому дню, в который \
пришло письмо.
В день у вас 3 предположения, а одному игроку все игроки вместе могут адресовать за день не \
больше 3 предположений.
Если вы не ответите на предположение до закрытия дня, за вас ответит ГМ, а на следующий \
день у вас будет на одно предположение меньше за каждый такой ответ ГМа: два — на два \
меньше.

Команды пишите в тексте письма, по одной в строке; в одном письме можно несколько.
""",
        "welcome_help": "    ОПРОВЕРЖЕНИЕ 7 подсвечник\n    REFUTE 7 подсвечник\n",
        "sheet": """\
Игра: ru-1

Игра «ru-1». Никому не пересылайте это письмо.

Решение: Белых, труба, кабинет.

Карты игроков:
  - Неташка (Краснова): Краснова, нож, кухня
  - Веталь (Горчичников): Горчичников, танцевальный зал, терраса
  - Дуг (Белых): подсвечник, бильярдная, библиотека

Зерно раздачи (seed): 1234
Строка раздачи (будет опубликована в конце игры):
    $canonical
SHA-256 (опубликован в первом посте игры): $sha

Ваш адрес ГМа для команд (ответ на любое письмо pbp тоже приходит на этот адрес): $gm_address
Команды, по одной в строке: ЗА <игрок>: <ход> · ПАУЗА · ПРОДОЛЖИТЬ · ПРОДЛИТЬ <часы> · \
ЗАМЕНА <игрок> НА <имя> <адрес> · АДРЕС <игрок> <новый адрес> · ИСКЛЮЧИТЬ <игрок> · \
ОТМЕНИТЬ <номер события> · ЗАКРЫТЬ ДЕНЬ · ОТЛОЖЕННЫЕ · ПОВТОРИТЬ <номер> · ОТКЛОНИТЬ <номер> · \
ЭКСПОРТ markdown|bbcode|html · ПОМОЩЬ · СТАТУС [ВСЕ] · НОВЫЙ АДРЕС (пояснение — после « -- »).
""",
        "opening_bbcode": """\
[b]Клуэдо «ru-1»: день 1 открыт[/b]

[b]Игроки и их персонажи[/b]
- Неташка — [b]Краснова[/b]
- Веталь — [b]Горчичников[/b]
- Дуг — [b]Белых[/b]

[b]Карты в игре[/b]
Подозреваемые: [b]Краснова[/b], [b]Горчичников[/b], [b]Белых[/b]
Орудия: [b]подсвечник[/b], [b]нож[/b], [b]труба[/b]
Комнаты: [b]кухня[/b], [b]танцевальный зал[/b], [b]терраса[/b], [b]бильярдная[/b], \
[b]библиотека[/b], [b]кабинет[/b]

[b]Ход игры[/b]
В день у каждого 3 предположения, а одному игроку все игроки вместе могут адресовать за день не \
больше 3 предположений. День закрывается в 22:30 по Москве. На предположение, \
оставшееся без ответа до закрытия дня, отвечает ГМ, а у адресата на следующий день на одно \
предположение меньше за каждый такой ответ ГМа: два — на два меньше.

[b]Честность раздачи[/b]
SHA-256: $sha
Это отпечаток строки с решением, картами всех игроков и случайной солью; в конце игры \
строка будет опубликована, и каждый сможет проверить, что раздача не менялась.
""",
        "addressed1": """\
Игра: ru-1

Дуг, Неташка адресует вам предположение №1:
  убийца — Белых, подсвечником на кухне.

У вас есть подсвечник. Вы обязаны показать эту карту. Ответьте строкой:
    ОПРОВЕРЖЕНИЕ 1 подсвечник

Ответить нужно до закрытия дня 1 — 1 марта 2025 г., 22:30 по Москве. Иначе за вас ответит \
ГМ (первой подходящей картой в порядке подозреваемый — орудие — комната), а в день 2 у вас \
будет на одно предположение меньше.
""",
        "reply1": """\
Игра: ru-1

Неташка, вот что сделано по вашему письму.

Выполнено:

> ПРЕДПОЛОЖЕНИЕ Белых, подсвечник, кухня ДЛЯ Дуг
Понял: ПРЕДПОЛОЖЕНИЕ Белых, подсвечник, кухня ДЛЯ Дуг
Принято: предположение №1 для Дуг (Белых, подсвечник, кухня). Дуг получит его по почте.

Для форума (скопируйте в тред игры):

[b]Предположение_1 для Дуг (№1)[/b]
Я думаю, что убийца — [b]Белых[/b], [b]подсвечником[/b] [b]на кухне[/b].

СТАТУС — ваши карты и долги, ПОМОЩЬ — список команд.
""",
        "shown1": """\
Игра: ru-1

Неташка, ваше предположение №1 (Белых, подсвечник, кухня) опровергнуто.
Дуг показывает вам карту «подсвечник».

Эту карту знаете только вы и ГМ; остальные видят лишь, что предположение опровергнуто.
""",
        "reply_refute": """\
Игра: ru-1

Дуг, вот что сделано по вашему письму.

Выполнено:

> ОПРОВЕРЖЕНИЕ 1 подсвечник
Понял: ОПРОВЕРЖЕНИЕ 1 подсвечник
Принято: опровержение предположения №1. Неташка получит карту приватом.

Для форума (скопируйте в тред игры):

[b]Опровержение для Неташки[/b]
[quote][b]Предположение_1 для Дуг (№1)[/b]
Я думаю, что убийца — [b]Белых[/b], [b]подсвечником[/b] [b]на кухне[/b].[/quote]
Карта показана приватом.

> СТАТУС
Понял: СТАТУС
Игровой день 1.
Ваш персонаж: Белых.
Ваши карты: подсвечник, бильярдная, библиотека.

Вам показали:
  - пока ничего

Вы показали:
  - №1: подсвечник — Неташке

Вы должны ответить:
  - никому

Сегодня можно сделать ещё 3 предположения.
Сколько предположений вы ещё можете адресовать каждому игроку: Неташка — 3, Веталь — 3.

СТАТУС — ваши карты и долги, ПОМОЩЬ — список команд.
""",
        "addressed2": """\
Игра: ru-1

Неташка, Веталь адресует вам предположение №2:
  убийца — Краснова, ножом в бильярдной.

У вас есть: Краснова, нож. Вы обязаны его опровергнуть; какую из этих карт показать — \
решаете вы. Ответьте строкой, например:
    ОПРОВЕРЖЕНИЕ 2 Краснова

Ответить нужно до закрытия дня 1 — 1 марта 2025 г., 22:30 по Москве. Иначе за вас ответит \
ГМ (первой подходящей картой в порядке подозреваемый — орудие — комната), а в день 2 у вас \
будет на одно предположение меньше.
""",
        "reply2": """\
Игра: ru-1

Веталь, вот что сделано по вашему письму.

Выполнено:

> SUGGEST Краснова, нож, бильярдная TO Неташка
Понял: ПРЕДПОЛОЖЕНИЕ Краснова, нож, бильярдная ДЛЯ Неташки
Принято: предположение №2 для Неташки (Краснова, нож, бильярдная). Неташка получит его \
по почте.

Для форума (скопируйте в тред игры):

[b]Предположение_1 для Неташки (№2)[/b]
Я думаю, что убийца — [b]Краснова[/b], [b]ножом[/b] [b]в бильярдной[/b].

СТАТУС — ваши карты и долги, ПОМОЩЬ — список команд.
""",
        "day1_bbcode": """\
[b]Итоги дня 1[/b]

[b]Предположения[/b]
- №1, Неташка → Дуг: [b]Белых[/b], [b]подсвечник[/b], [b]кухня[/b] — опровергнуто
- №2, Веталь → Неташка: [b]Краснова[/b], [b]нож[/b], [b]бильярдная[/b] — опровергнуто \
(за Неташку ответил ГМ)

[b]Ответы ГМа за не ответивших до закрытия дня[/b]

[b]Опровержение для Веталя[/b] (за Неташку ответил ГМ)
[quote][b]Предположение_1 для Неташки (№2)[/b]
Я думаю, что убийца — [b]Краснова[/b], [b]ножом[/b] [b]в бильярдной[/b].[/quote]
Карта показана приватом.

[b]Штрафы: на одно предположение меньше за каждое, оставшееся без ответа[/b]
- Неташка: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше

[b]Предположения на день 2[/b]
- Неташка: 2 предположения
- Веталь: 3 предположения
- Дуг: 3 предположения
""",
        "day1_markdown": """\
**Итоги дня 1**

**Предположения**
- №1, Неташка → Дуг: **Белых**, **подсвечник**, **кухня** — опровергнуто
- №2, Веталь → Неташка: **Краснова**, **нож**, **бильярдная** — опровергнуто \
(за Неташку ответил ГМ)

**Ответы ГМа за не ответивших до закрытия дня**

**Опровержение для Веталя** (за Неташку ответил ГМ)

> **Предположение_1 для Неташки (№2)**
>
> Я думаю, что убийца — **Краснова**, **ножом** **в бильярдной**.

Карта показана приватом.

**Штрафы: на одно предположение меньше за каждое, оставшееся без ответа**
- Неташка: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше

**Предположения на день 2**
- Неташка: 2 предположения
- Веталь: 3 предположения
- Дуг: 3 предположения
""",
        "day1_private": """\
  - №1: Неташке показана карта «подсвечник» (от Дуг)
  - №2 (Веталь → Неташка): ГМ ответил за Неташку — показана карта «Краснова»
""",
        "gm_answered": """\
Игра: ru-1

Неташка, вы не ответили до закрытия дня на предположение №2 от Веталя (Краснова, нож, \
бильярдная).
ГМ ответил за вас и показал Веталю вашу карту «Краснова» (первую подходящую в порядке \
подозреваемый — орудие — комната).
За это предположение на следующий день у вас будет на одно предположение меньше.
""",
        "shown2": """\
Игра: ru-1

Веталь, ваше предположение №2 (Краснова, нож, бильярдная) опровергнуто.
За Неташку ответил ГМ и показал вам карту «Краснова».

Эту карту знаете только вы и ГМ; остальные видят лишь, что предположение опровергнуто.
""",
        "show_day2": """\
Game "ru-1", day 2.
Next day close: 2025-03-02 22:30 MSK
Solution: Белых, труба, кабинет.

Players:
  - Неташка (Краснова): Краснова, нож, кухня; 2 of 2 suggestions left today, penalty 1
    address for moves: $a1
  - Веталь (Горчичников): Горчичников, танцевальный зал, терраса; 3 of 3 suggestions left today
    address for moves: $a2
  - Дуг (Белых): подсвечник, бильярдная, библиотека; 3 of 3 suggestions left today
    address for moves: $a3

Waiting for an answer:
  - nothing

Seed: 1234
Deal SHA-256: $sha
Deal line:
    $canonical

Seats (who plays each now, from which address; who played it before):
  Неташка <netashka@example.test> since 2025-03-01 20:05 MSK
  Веталь <vetal@example.test> since 2025-03-01 20:05 MSK
  Дуг <doug@example.test> since 2025-03-01 20:05 MSK

GM address for commands: $gm
""",
        "accusation": """\
Игра: ru-1

Дуг обвиняет: Белых, труба, кабинет.
Обвинение верное: игра окончена, Дуг побеждает.
""",
        "over_winner": """\
Игра: ru-1

Дуг, игра «ru-1» окончена.
Вы победили — ваше обвинение верное!

Разгадка: убийца — Белых, трубой в кабинете.

Карты игроков:
  - Неташка: Краснова, нож, кухня
  - Веталь: Горчичников, танцевальный зал, терраса
  - Дуг: подсвечник, бильярдная, библиотека

Строка раздачи для проверки честности (её SHA-256 был опубликован в начале игры):
    $canonical
SHA-256: $sha
""",
        "final_private": "  - Обвинение Дуг: Белых, труба, кабинет — верное\n",
        "reply_accuse": """\
Игра: ru-1

Дуг, вот что сделано по вашему письму.

Выполнено:

> ОБВИНЕНИЕ Белых, труба, кабинет
Понял: ОБВИНЕНИЕ Белых, труба, кабинет
Обвинение (Белых, труба, кабинет) верное — вы победили!

СТАТУС — ваши карты и долги, ПОМОЩЬ — список команд.
""",
        "final_bbcode": """\
[b]Игра окончена[/b]

Победитель — [b]Дуг[/b]: обвинение оказалось верным.

[b]Разгадка[/b]
Убийца — [b]Белых[/b], [b]трубой[/b] [b]в кабинете[/b].

[b]Карты игроков[/b]
- Неташка: [b]Краснова[/b], [b]нож[/b], [b]кухня[/b]
- Веталь: [b]Горчичников[/b], [b]танцевальный зал[/b], [b]терраса[/b]
- Дуг: [b]подсвечник[/b], [b]бильярдная[/b], [b]библиотека[/b]

[b]Проверка честности раздачи[/b]
Строка раздачи (решение, карты игроков, соль):
[code]$canonical[/code]
Её SHA-256: $sha
В первом посте игры был опубликован SHA-256: $sha
Чтобы проверить, посчитайте SHA-256 этой строки в кодировке UTF-8, без перевода строки \
в конце (например, в Python: hashlib.sha256(строка.encode("utf-8")).hexdigest()), и \
сравните с SHA-256 из первого поста.
""",
        "final_markdown": """\
**Игра окончена**

Победитель — **Дуг**: обвинение оказалось верным.

**Разгадка**

Убийца — **Белых**, **трубой** **в кабинете**.

**Карты игроков**
- Неташка: **Краснова**, **нож**, **кухня**
- Веталь: **Горчичников**, **танцевальный зал**, **терраса**
- Дуг: **подсвечник**, **бильярдная**, **библиотека**

**Проверка честности раздачи**

Строка раздачи (решение, карты игроков, соль):

```
$canonical
```

Её SHA-256: $sha

В первом посте игры был опубликован SHA-256: $sha

Чтобы проверить, посчитайте SHA-256 этой строки в кодировке UTF-8, без перевода строки \
в конце (например, в Python: hashlib.sha256(строка.encode("utf-8")).hexdigest()), и \
сравните с SHA-256 из первого поста.
""",
    },
)

EN = Lang(
    yaml=EN_GAME,
    game="en-1",
    seats=(
        ("Alice", "alice@example.test", "Scarlett", "Scarlett, knife, kitchen"),
        ("Bob", "bob@example.test", "Mustard", "Mustard, ballroom, conservatory"),
        ("Carol", "carol@example.test", "White", "candlestick, billiard room, library"),
    ),
    deal={
        "hands": {
            "Alice": ["Scarlett", "knife", "kitchen"],
            "Bob": ["Mustard", "ballroom", "conservatory"],
            "Carol": ["candlestick", "billiard room", "library"],
        },
        "solution": {"room": "study", "suspect": "White", "weapon": "pipe"},
    },
    times={
        "start": "2025-03-01T18:05+00:00",
        "suggest": "2025-03-01T19:00+00:00",
        "after_suggest": "2025-03-01T19:05+00:00",
        "refute": "2025-03-01T19:10+00:00",
        "suggest2": "2025-03-01T19:20+00:00",
        "before_close": "2025-03-01T19:30+00:00",
        "close_utc": "2025-03-01T21:00:00+00:00",
        "after_close": "2025-03-01T21:01+00:00",
        "accuse": "2025-03-02T10:00+00:00",
        "after_accuse": "2025-03-02T10:05+00:00",
    },
    moves={
        "suggest": ("SUGGEST White, candlestick, kitchen TO Carol",),
        "refute": ("REFUTE candlestick", "STATUS"),
        "suggest2": ("ПРЕДПОЛОЖЕНИЕ Scarlett, knife, billiard room ДЛЯ Alice",),
        "accuse": ("ACCUSE White, pipe, study",),
    },
    subjects={
        "welcome": "[en-1] Cluedo: your cards",
        "sheet": "[en-1] GM sheet: solution and hands",
        "opening": "[en-1] Opening post (day 1)",
        "addressed1": "[en-1] Suggestion #1 from Alice",
        "shown1": "[en-1] Suggestion #1: a card was shown to you",
        "addressed2": "[en-1] Suggestion #2 from Bob",
        "gm_answered": "[en-1] Suggestion #2: the GM answered for you",
        "shown2": "[en-1] Suggestion #2: a card was shown to you",
        "day1": "[en-1] Day 1 summary",
        "accusation": "[en-1] Accusation by Carol: right",
        "over": "[en-1] The game is over",
        "final": "[en-1] Game over: the final post",
        "reply": "[en-1] Re: pbp",
    },
    labels=(" — BBCode", " — Markdown", " — GM only", "For the GM only:"),
    texts={
        "welcome": """\
Game: en-1

Hello, $name!

The game "en-1" — Cluedo by game days — begins.
Your character: $character.
Your cards: $hand.
Only you and the GM know them.

Every card in the game:
  Suspects: Scarlett, Mustard, White
  Weapons: candlestick, knife, pipe
  Rooms: kitchen, ballroom, conservatory, billiard room, library, study

Players:
  - Alice (Scarlett)
  - Bob (Mustard)
  - Carol (White)

Your personal address for moves: $address
Send your moves to it only — the easiest way is to reply to this mail.

A game day closes at 21:00 London time. A move belongs to the day in which its mail \
arrived.
Each day you have 3 suggestions, and at most 3 suggestions a day may be addressed to one \
player, by all players together.
If you have not answered a suggestion by the close, the GM answers for you and you have \
one suggestion fewer the next day for each such suggestion: two unanswered cost two.

Write commands in the body of the mail, one per line; one mail may hold several.
""",
        "welcome_help": "    REFUTE 7 candlestick\n    ОПРОВЕРЖЕНИЕ 7 candlestick\n",
        "sheet": """\
Game: en-1

Game "en-1". Do not forward this mail to anyone.

Solution: White, pipe, study.

Players' cards:
  - Alice (Scarlett): Scarlett, knife, kitchen
  - Bob (Mustard): Mustard, ballroom, conservatory
  - Carol (White): candlestick, billiard room, library

Shuffle seed: 1234
Deal line (published when the game ends):
    $canonical
SHA-256 (published in the opening post): $sha

Your GM address for commands (a reply to any mail of pbp goes there too): $gm_address
Commands, one per line: ACT <player>: <move> · PAUSE · RESUME · EXTEND <hours> · \
SUBSTITUTE <player> BY <name> <address> · ADDRESS <player> <new address> · REMOVE <player> · \
VOID <event> · CLOSE DAY · KEPT · RETRY <id> · DISMISS <id> · \
EXPORT markdown|bbcode|html · HELP · STATUS [ALL] · NEW ADDRESS (a note may follow " -- ").
""",
        "opening_bbcode": """\
[b]Cluedo "en-1": day 1 is open[/b]

[b]Players and their characters[/b]
- Alice — [b]Scarlett[/b]
- Bob — [b]Mustard[/b]
- Carol — [b]White[/b]

[b]Cards in the game[/b]
Suspects: [b]Scarlett[/b], [b]Mustard[/b], [b]White[/b]
Weapons: [b]candlestick[/b], [b]knife[/b], [b]pipe[/b]
Rooms: [b]kitchen[/b], [b]ballroom[/b], [b]conservatory[/b], [b]billiard room[/b], \
[b]library[/b], [b]study[/b]

[b]How the days go[/b]
Each day every player has 3 suggestions, and at most 3 suggestions a day may be \
addressed to one player, by all players together. A day closes at 21:00 London time. A \
suggestion still unanswered at the close is answered by the GM, and its addressee has one \
suggestion fewer the next day for each such suggestion: two unanswered cost two.

[b]Fairness of the deal[/b]
SHA-256: $sha
This is the fingerprint of a line holding the solution, every player's cards and a random \
salt; the line is published when the game ends, so anyone can check that the deal never \
changed.
""",
        "addressed1": """\
Game: en-1

Carol, you have suggestion #1 from Alice:
  it was White with the candlestick in the kitchen.

You hold candlestick. You must refute with this card. Answer with the line:
    REFUTE 1 candlestick

Answer before day 1 closes: March 1, 2025, 21:00 GMT. Otherwise the GM answers for you \
(with the first matching card in the order suspect, weapon, room) and you have one \
suggestion fewer on day 2.
""",
        "reply1": """\
Game: en-1

Alice, this is what was done with your mail.

Done:

> SUGGEST White, candlestick, kitchen TO Carol
Understood: SUGGEST White, candlestick, kitchen TO Carol
Accepted: suggestion #1 to Carol (White, candlestick, kitchen). Carol gets it by mail.

For the forum (paste it into the game thread):

[b]Suggestion_1 for Carol (#1)[/b]
I think it was [b]White[/b] [b]with the candlestick[/b] [b]in the kitchen[/b].

STATUS shows your cards and what you owe, HELP the commands.
""",
        "shown1": """\
Game: en-1

Alice, your suggestion #1 (White, candlestick, kitchen) was refuted.
Carol shows you the card: candlestick.

Only you and the GM know this card; the others only see that the suggestion was refuted.
""",
        "reply_refute": """\
Game: en-1

Carol, this is what was done with your mail.

Done:

> REFUTE candlestick
Understood: REFUTE candlestick
Accepted: refutation of suggestion #1. Alice gets the card privately.

For the forum (paste it into the game thread):

[b]Refutation for Alice[/b]
[quote][b]Suggestion_1 for Carol (#1)[/b]
I think it was [b]White[/b] [b]with the candlestick[/b] [b]in the kitchen[/b].[/quote]
The card was shown privately.

> STATUS
Understood: STATUS
Game day 1.
Your character: White.
Your cards: candlestick, billiard room, library.

Shown to you:
  - nothing yet

Shown by you:
  - #1: candlestick to Alice

You owe:
  - nothing

3 suggestions left today.
Suggestions you may still address to each player: Alice 3, Bob 3.

STATUS shows your cards and what you owe, HELP the commands.
""",
        "addressed2": """\
Game: en-1

Alice, you have suggestion #2 from Bob:
  it was Scarlett with the knife in the billiard room.

You hold Scarlett, knife. You must refute, and you choose which of these cards to show. \
Answer with a line such as:
    REFUTE 2 Scarlett

Answer before day 1 closes: March 1, 2025, 21:00 GMT. Otherwise the GM answers for you \
(with the first matching card in the order suspect, weapon, room) and you have one \
suggestion fewer on day 2.
""",
        "reply2": """\
Game: en-1

Bob, this is what was done with your mail.

Done:

> ПРЕДПОЛОЖЕНИЕ Scarlett, knife, billiard room ДЛЯ Alice
Understood: SUGGEST Scarlett, knife, billiard room TO Alice
Accepted: suggestion #2 to Alice (Scarlett, knife, billiard room). Alice gets it by mail.

For the forum (paste it into the game thread):

[b]Suggestion_1 for Alice (#2)[/b]
I think it was [b]Scarlett[/b] [b]with the knife[/b] [b]in the billiard room[/b].

STATUS shows your cards and what you owe, HELP the commands.
""",
        "day1_bbcode": """\
[b]Day 1 summary[/b]

[b]Suggestions[/b]
- #1, Alice → Carol: [b]White[/b], [b]candlestick[/b], [b]kitchen[/b] — refuted
- #2, Bob → Alice: [b]Scarlett[/b], [b]knife[/b], [b]billiard room[/b] — refuted \
(the GM answered for Alice)

[b]The GM's answers for those who did not answer by the close[/b]

[b]Refutation for Bob[/b] (the GM answered for Alice)
[quote][b]Suggestion_1 for Alice (#2)[/b]
I think it was [b]Scarlett[/b] [b]with the knife[/b] [b]in the billiard room[/b].[/quote]
The card was shown privately.

[b]Penalties: one suggestion fewer for each left unanswered[/b]
- Alice: 1 suggestion unanswered, 1 fewer on day 2

[b]Suggestions for day 2[/b]
- Alice: 2 suggestions
- Bob: 3 suggestions
- Carol: 3 suggestions
""",
        "day1_markdown": """\
**Day 1 summary**

**Suggestions**
- #1, Alice → Carol: **White**, **candlestick**, **kitchen** — refuted
- #2, Bob → Alice: **Scarlett**, **knife**, **billiard room** — refuted \
(the GM answered for Alice)

**The GM's answers for those who did not answer by the close**

**Refutation for Bob** (the GM answered for Alice)

> **Suggestion_1 for Alice (#2)**
>
> I think it was **Scarlett** **with the knife** **in the billiard room**.

The card was shown privately.

**Penalties: one suggestion fewer for each left unanswered**
- Alice: 1 suggestion unanswered, 1 fewer on day 2

**Suggestions for day 2**
- Alice: 2 suggestions
- Bob: 3 suggestions
- Carol: 3 suggestions
""",
        "day1_private": """\
  - #1: Alice was shown candlestick (by Carol)
  - #2 (Bob → Alice): the GM answered for Alice — showed Scarlett
""",
        "gm_answered": """\
Game: en-1

Alice, you did not answer suggestion #2 from Bob (Scarlett, knife, billiard room) before \
the day closed.
The GM answered for you and showed Bob your card "Scarlett" (the first matching one in the \
order suspect, weapon, room).
For this suggestion you will have one suggestion fewer the next day.
""",
        "shown2": """\
Game: en-1

Bob, your suggestion #2 (Scarlett, knife, billiard room) was refuted.
The GM answered for Alice and showed you the card: Scarlett.

Only you and the GM know this card; the others only see that the suggestion was refuted.
""",
        "show_day2": """\
Game "en-1", day 2.
Next day close: 2025-03-02 21:00 GMT
Solution: White, pipe, study.

Players:
  - Alice (Scarlett): Scarlett, knife, kitchen; 2 of 2 suggestions left today, penalty 1
    address for moves: $a1
  - Bob (Mustard): Mustard, ballroom, conservatory; 3 of 3 suggestions left today
    address for moves: $a2
  - Carol (White): candlestick, billiard room, library; 3 of 3 suggestions left today
    address for moves: $a3

Waiting for an answer:
  - nothing

Seed: 1234
Deal SHA-256: $sha
Deal line:
    $canonical

Seats (who plays each now, from which address; who played it before):
  Alice <alice@example.test> since 2025-03-01 18:05 GMT
  Bob <bob@example.test> since 2025-03-01 18:05 GMT
  Carol <carol@example.test> since 2025-03-01 18:05 GMT

GM address for commands: $gm
""",
        "accusation": """\
Game: en-1

Carol accuses: White, pipe, study.
The accusation is right: the game is over, Carol wins.
""",
        "over_winner": """\
Game: en-1

Carol, the game "en-1" is over.
You win — your accusation is right!

The solution: it was White with the pipe in the study.

Players' cards:
  - Alice: Scarlett, knife, kitchen
  - Bob: Mustard, ballroom, conservatory
  - Carol: candlestick, billiard room, library

The deal line, to check the fairness of the game (its SHA-256 was published at the start):
    $canonical
SHA-256: $sha
""",
        "final_private": "  - Accusation by Carol: White, pipe, study — right\n",
        "reply_accuse": """\
Game: en-1

Carol, this is what was done with your mail.

Done:

> ACCUSE White, pipe, study
Understood: ACCUSE White, pipe, study
Your accusation (White, pipe, study) is right — you win!

STATUS shows your cards and what you owe, HELP the commands.
""",
        "final_bbcode": """\
[b]The game is over[/b]

The winner is [b]Carol[/b]: the accusation was right.

[b]The solution[/b]
It was [b]White[/b] [b]with the pipe[/b] [b]in the study[/b].

[b]Players' cards[/b]
- Alice: [b]Scarlett[/b], [b]knife[/b], [b]kitchen[/b]
- Bob: [b]Mustard[/b], [b]ballroom[/b], [b]conservatory[/b]
- Carol: [b]candlestick[/b], [b]billiard room[/b], [b]library[/b]

[b]Checking the fairness of the deal[/b]
The deal line (solution, players' cards, salt):
[code]$canonical[/code]
Its SHA-256: $sha
The opening post of the game published: $sha
To check, compute the SHA-256 of this line encoded in UTF-8, without a final newline \
(in Python: hashlib.sha256(line.encode("utf-8")).hexdigest()), and compare it with the \
sum in the opening post.
""",
        "final_markdown": """\
**The game is over**

The winner is **Carol**: the accusation was right.

**The solution**

It was **White** **with the pipe** **in the study**.

**Players' cards**
- Alice: **Scarlett**, **knife**, **kitchen**
- Bob: **Mustard**, **ballroom**, **conservatory**
- Carol: **candlestick**, **billiard room**, **library**

**Checking the fairness of the deal**

The deal line (solution, players' cards, salt):

```
$canonical
```

Its SHA-256: $sha

The opening post of the game published: $sha

To check, compute the SHA-256 of this line encoded in UTF-8, without a final newline \
(in Python: hashlib.sha256(line.encode("utf-8")).hexdigest()), and compare it with the \
sum in the opening post.
""",
    },
)


def fill(text: str, **values: str) -> str:
    """``text`` with ``$name`` placeholders filled in."""
    return Template(text).substitute(values)


def gm_posts(
    lang: Lang, subject: str, bbcode: str, markdown: str, private: str | None = None
) -> dict[tuple[str, str], str]:
    """The GM's mails of one public post, ``{(to, Subject): body}`` (issue 12): the post
    alone in each format the game mails (``markdown`` only with ``post_format: both``),
    and the GM-only facts in a mail of their own when any, after the game's line."""
    bb, md, gm_only, heading = lang.labels
    mails = {(GM, subject + bb): bbcode}
    if lang.markdown_mailed:
        mails[GM, subject + md] = markdown
    if private is not None:
        mails[GM, subject + gm_only] = f"{lang.game_line}{heading}\n{private}"
    return mails


def sent(table: Table, key: str) -> EmailMessage:
    """A message of the inbox after it was processed: it must be in ``.done``."""
    assert not (table.inbox / "new" / key).exists()
    parsed = BytesParser(policy=policy.default).parsebytes(
        (table.inbox / ".done" / "new" / key).read_bytes()
    )
    assert isinstance(parsed, EmailMessage)
    return parsed


def output(lines: list[str]) -> str:
    """Output lines as one text with one final newline."""
    return "\n".join(lines).rstrip("\n") + "\n"


def post(table: Table, game: str, *args: str) -> str:
    """``pbp post GAME ARGS…``: the post text (one final newline)."""
    return output(table.ok("post", game, *args))


def at(iso: str) -> datetime:
    """An ISO time with offset as an aware datetime."""
    return datetime.fromisoformat(iso)


# --- pbp check --------------------------------------------------------------------------


def test_check_prints_one_ok_line_naming_every_game(tmp_path: Path) -> None:
    table = Table(tmp_path, games_yaml(RU_GAME, EN_GAME))

    result = table.pbp("check")

    assert result == Result(
        0,
        [f"{table.config}: OK: ru-1 (cluedo_days, 3 players), en-1 (cluedo_days, 3 players)"],
        [],
    )


def test_check_names_file_line_and_yaml_path_of_each_problem_and_exits_1(tmp_path: Path) -> None:
    text = (
        games_yaml(RU_GAME)
        .replace("email: vetal@example.test", "email: vetal.example.test")
        .replace('day_closes: "22:30"', 'day_closes: "25:30"')
    )
    table = Table(tmp_path, text)
    lines = text.splitlines()
    closes = lines.index('    day_closes: "25:30"') + 1
    email = next(i for i, line in enumerate(lines) if "vetal.example.test" in line) + 1

    result = table.pbp("check")

    assert (closes, email) == (12, 18)
    assert result == Result(
        1,
        [],
        [
            f'{table.config}:12: games[0].day_closes: expected a time "HH:MM" such as '
            "\"22:30\", got '25:30'",
            f"{table.config}:18: games[0].players[1].email: value is not a valid email "
            "address: 'vetal.example.test'",
        ],
    )
    # Every other command refuses the broken file the same way (a real process: its
    # exit status).
    assert table.pbp_process("run", "--once") == result


# --- a whole game -------------------------------------------------------------------------


def start(table: Table, lang: Lang) -> tuple[dict[str, str], str, str]:
    """``pbp run --once`` at the game's start; checks the start mails (rules C2, D1).

    Returns the personal address of each player, the deal's canonical string and
    its SHA-256 (from the GM sheet).
    """
    t, x, s = lang.times, lang.texts, lang.subjects
    assert table.run(t["start"]) == []
    mails = table.new_mail()
    assert heads(mails) == [
        *((email, s["welcome"]) for _name, email, _c, _h in lang.seats),
        (GM, s["sheet"]),
        (GM, s["opening"] + lang.labels[0]),
        *([(GM, s["opening"] + lang.labels[1])] if lang.markdown_mailed else []),
    ]
    addresses = {}
    for (name, _email, character, hand), mail in zip(lang.seats, mails, strict=False):
        token_of(mail)
        addresses[name] = str(mail["Reply-To"])
        text = body(mail)
        assert text.startswith(
            fill(x["welcome"], name=name, character=character, hand=hand, address=addresses[name])
        ), text
        assert x["welcome_help"] in text
    assert len(set(addresses.values())) == 3
    for mail in mails:
        assert mail["Auto-Submitted"] == "auto-generated"
        assert mail["Date"].datetime == at(t["start"])
        assert mail["From"] == "pbp <gm@example.test>"

    sheet = body(mails[3])
    found = re.search(r"^    (\{.*\})$", sheet, re.MULTILINE)
    assert found is not None, sheet
    canonical = found.group(1)
    sha = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    document = json.loads(canonical)
    assert re.fullmatch(r"[0-9a-f]{64}", document.pop("salt"))
    assert document == {"deal": lang.deal, "game": lang.game}
    gm_address = mails[3]["Reply-To"]
    assert re.fullmatch(r"gm\+[a-z0-9]{10}@example\.test", str(gm_address))
    assert sheet == fill(x["sheet"], canonical=canonical, sha=sha, gm_address=gm_address)

    opening = fill(x["opening_bbcode"], sha=sha)
    assert post(table, lang.game, "--which", "opening") == opening
    markdown = post(table, lang.game, "--which", "opening", "--format", "markdown")
    assert f"SHA-256: {sha}\n" in markdown
    assert {head: body(m) for head, m in by_head(mails[4:]).items()} == gm_posts(
        lang, s["opening"], opening, markdown
    )
    return addresses, canonical, sha


@pytest.mark.parametrize("lang", [RU, EN], ids=["ru", "en"])
def test_a_whole_game_through_maildir_and_pbp_run_once(tmp_path: Path, lang: Lang) -> None:
    table = Table(tmp_path, games_yaml(lang.yaml))
    t, x, s, game = lang.times, lang.texts, lang.subjects, lang.game
    (p1, e1, _, _), (p2, e2, _, _), (p3, e3, _, _) = lang.seats

    addresses, canonical, sha = start(table, lang)

    # D4: a suggestion is answered with the forum snippet; the addressee is asked.
    key = table.mail(e1, addresses[p1], t["suggest"], *lang.moves["suggest"])
    assert table.run(t["after_suggest"]) == [f"maildir:{key}: applied {game}"]
    mails = by_head(table.new_mail())
    assert set(mails) == {(e3, s["addressed1"]), (e1, s["reply"])}
    addressed, reply = mails[e3, s["addressed1"]], mails[e1, s["reply"]]
    assert body(addressed) == x["addressed1"]
    assert addressed["Reply-To"] == addresses[p3]
    assert body(reply) == x["reply1"]
    assert reply["Reply-To"] == addresses[p1]
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply["In-Reply-To"] == sent(table, key)["Message-ID"]
    assert reply["Date"].datetime == at(t["after_suggest"])

    # C4: the refutation's card goes to the suggester alone (no other mail names it);
    # a second suggestion waits for its addressee.
    refute = table.mail(e3, addresses[p3], t["refute"], *lang.moves["refute"])
    suggest2 = table.mail(e2, addresses[p2], t["suggest2"], *lang.moves["suggest2"])
    assert table.run(t["before_close"]) == [
        f"maildir:{refute}: applied {game}",
        f"maildir:{suggest2}: applied {game}",
    ]
    mails = by_head(table.new_mail())
    assert {head: body(m) for head, m in mails.items()} == {
        (e1, s["shown1"]): x["shown1"],
        (e3, s["reply"]): x["reply_refute"],
        (e1, s["addressed2"]): x["addressed2"],
        (e2, s["reply"]): x["reply2"],
    }

    # D6, D7: the close after its time happens once: GM answer (C5), summary, penalty.
    closing = table.pbp("run", "--once", "--now", t["after_close"])
    assert (closing.code, closing.out) == (0, [])
    assert [line for line in closing.log if "closed" in line] == [
        f"INFO pbp.app.deadlines: game {game}: day 1 closed at {t['close_utc']}"
    ]
    mails = by_head(table.new_mail())
    assert {head: body(m) for head, m in mails.items()} == {
        **gm_posts(lang, s["day1"], x["day1_bbcode"], x["day1_markdown"], x["day1_private"]),
        (e1, s["gm_answered"]): x["gm_answered"],
        (e2, s["shown2"]): x["shown2"],
    }
    assert table.run(t["after_close"]) == []
    assert table.run(t["accuse"]) == []
    assert table.new_mail() == []

    assert post(table, game, "--day", "1") == x["day1_bbcode"]
    assert post(table, game, "--day", "1", "--format", "bbcode") == x["day1_bbcode"]
    assert post(table, game, "--day", "1", "--format", "markdown") == x["day1_markdown"]
    assert output(table.ok("show", game)) == fill(
        x["show_day2"],
        sha=sha,
        canonical=canonical,
        a1=addresses[p1],
        a2=addresses[p2],
        a3=addresses[p3],
        gm=json.loads("\n".join(table.ok("show", game, "--json")))["gm_address"],
    )

    # C6, C7: a right accusation ends the game; the final post reveals the deal.
    accuse = table.mail(e3, addresses[p3], t["accuse"], *lang.moves["accuse"])
    assert table.run(t["after_accuse"]) == [f"maildir:{accuse}: applied {game}"]
    mails = by_head(table.new_mail())
    final = fill(x["final_bbcode"], sha=sha, canonical=canonical)
    final_markdown = fill(x["final_markdown"], sha=sha, canonical=canonical)
    final_mails = gm_posts(lang, s["final"], final, final_markdown, x["final_private"])
    assert set(mails) == {
        *final_mails,
        (GM, s["accusation"]),
        (e1, s["over"]),
        (e2, s["over"]),
        (e3, s["over"]),
        (e3, s["reply"]),
    }
    assert body(mails[GM, s["accusation"]]) == x["accusation"]
    assert body(mails[e3, s["over"]]) == fill(x["over_winner"], sha=sha, canonical=canonical)
    assert body(mails[e3, s["reply"]]) == x["reply_accuse"]

    assert {head: body(mails[head]) for head in final_mails} == final_mails
    printed = post(table, game, "--which", "final")
    assert printed == final
    assert post(table, game) == final  # the default once the game is over
    assert post(table, game, "--which", "final", "--format", "markdown") == final_markdown
    # Fairness (DESIGN.md): the revealed string hashes to the opening post's commitment.
    revealed = re.search(r"\[code\](.*)\[/code\]", printed)
    published = re.search(r"SHA-256: ([0-9a-f]{64})\n", post(table, game, "--which", "opening"))
    assert revealed is not None and published is not None
    assert hashlib.sha256(revealed.group(1).encode("utf-8")).hexdigest() == published.group(1)

    # Nothing is left to do: no more closes (the game is over), no more mail.
    assert table.run("2025-03-09T12:00+00:00") == []
    assert table.new_mail() == []


def test_post_prints_the_games_post_format_by_default(tmp_path: Path) -> None:
    """``pbp post`` without ``--format`` prints what the GM's mails hold: the game's
    ``post_format`` (Markdown here; BBCode when it is ``both``: the whole-game test)."""
    table = Table(
        tmp_path,
        games_yaml(RU_GAME.replace('    start: "', '    post_format: markdown\n    start: "')),
    )
    assert table.run(RU.times["start"]) == []
    (opening,) = [m for m in table.new_mail() if "Первый пост игры" in str(m["Subject"])]
    assert opening["Subject"] == "[ru-1] Первый пост игры (день 1) — Markdown"
    markdown = post(table, "ru-1", "--which", "opening", "--format", "markdown")
    assert post(table, "ru-1", "--which", "opening") == markdown == body(opening)
    assert markdown.startswith("**Клуэдо «ru-1»: день 1 открыт**\n")
    bbcode = post(table, "ru-1", "--which", "opening", "--format", "bbcode")
    assert bbcode.startswith("[b]Клуэдо «ru-1»: день 1 открыт[/b]\n")


def test_post_without_day_prints_the_open_day_so_far(tmp_path: Path) -> None:
    """README: ``pbp post exler-1`` is "today's public summary so far" (rule D7's post
    for the open day, every suggestion with its answer or none yet)."""
    table = Table(tmp_path, games_yaml(RU_GAME))
    addresses, _canonical, _sha = start(table, RU)
    table.mail(
        "netashka@example.test",
        addresses["Неташка"],
        "2025-03-01T21:00+03:00",
        "ПРЕДПОЛОЖЕНИЕ Белых, подсвечник, кухня ДЛЯ Дуг",
    )
    table.run("2025-03-01T21:05+03:00")

    result = table.pbp("post", "ru-1")

    assert not any("Traceback" in line for line in result.err), result.err[-1:]
    assert result.code == 0
    assert (
        "- №1, Неташка → Дуг: [b]Белых[/b], [b]подсвечник[/b], [b]кухня[/b] — ответа пока нет"
        in result.out
    )


def test_D8_one_run_catches_up_two_missed_closes_each_once_in_time_order(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path, games_yaml(RU_GAME))
    addresses, _canonical, _sha = start(table, RU)
    # Day 1 (until 2025-03-01 22:30 MSK) and day 2 each get a suggestion to Дуг, which
    # he never answers; the daemon is down until day 3.
    day1 = table.mail(
        "netashka@example.test",
        addresses["Неташка"],
        "2025-03-01T21:00+03:00",
        "ПРЕДПОЛОЖЕНИЕ Белых, подсвечник, кухня ДЛЯ Дуг",
    )
    day2 = table.mail(
        "vetal@example.test",
        addresses["Веталь"],
        "2025-03-02T10:00+03:00",
        "ПРЕДПОЛОЖЕНИЕ Краснова, труба, бильярдная ДЛЯ Дуг",
    )

    caught_up = table.pbp("run", "--once", "--now", "2025-03-03T12:00+03:00", "--catch-up", "ru-1")
    assert caught_up.out[0] == "ru-1: catching up any missed deadlines, in time order"
    del caught_up.out[0]

    assert caught_up.out == [f"maildir:{day1}: applied ru-1", f"maildir:{day2}: applied ru-1"]
    assert [line for line in caught_up.log if "closed" in line] == [
        "INFO pbp.app.deadlines: game ru-1: day 1 closed at 2025-03-01T19:30:00+00:00",
        "INFO pbp.app.deadlines: game ru-1: day 2 closed at 2025-03-02T19:30:00+00:00",
    ]
    mails = table.new_mail()
    summaries = [m for m in mails if m["To"] == GM]
    assert heads(summaries) == [
        (GM, f"[ru-1] Итоги дня {day} — {part}")
        for day in (1, 2)
        for part in ("BBCode", "только для ГМа")  # the default post_format: BBCode alone
    ]
    # Rule D8: day 1 was closed before the mail that arrived on day 2 was applied.
    order = heads(mails)
    assert order.index((GM, "[ru-1] Итоги дня 1 — BBCode")) < order.index(
        ("vetal@example.test", "[ru-1] Re: pbp")
    )
    assert sorted(heads(mails)) == sorted(
        [
            *heads(summaries),
            ("doug@example.test", "[ru-1] Предположение №1 от Неташки"),
            ("doug@example.test", "[ru-1] Предположение №2 от Веталя"),
            ("doug@example.test", "[ru-1] Предположение №1: за вас ответил ГМ"),
            ("doug@example.test", "[ru-1] Предположение №2: за вас ответил ГМ"),
            ("netashka@example.test", "[ru-1] Re: pbp"),
            ("netashka@example.test", "[ru-1] Предположение №1: вам показали карту"),
            ("vetal@example.test", "[ru-1] Re: pbp"),
            ("vetal@example.test", "[ru-1] Предположение №2: вам показали карту"),
        ]
    )
    # Each move is in the day it arrived in (D8); each day its own GM answers (C5, D6).
    assert post(table, "ru-1", "--day", "1") == DAY1_CAUGHT_UP
    assert post(table, "ru-1", "--day", "2") == DAY2_CAUGHT_UP
    assert output(table.ok("show", "ru-1")).startswith(
        'Game "ru-1", day 3.\nNext day close: 2025-03-03 22:30 MSK\n'
    )

    # Again at the same time, and just before day 3 closes: nothing more happens.
    assert table.run("2025-03-03T12:00+03:00") == []
    assert table.run("2025-03-03T22:29+03:00") == []
    assert table.new_mail() == []


DAY1_CAUGHT_UP = """\
[b]Итоги дня 1[/b]

[b]Предположения[/b]
- №1, Неташка → Дуг: [b]Белых[/b], [b]подсвечник[/b], [b]кухня[/b] — опровергнуто \
(за Дуг ответил ГМ)

[b]Ответы ГМа за не ответивших до закрытия дня[/b]

[b]Опровержение для Неташки[/b] (за Дуг ответил ГМ)
[quote][b]Предположение_1 для Дуг (№1)[/b]
Я думаю, что убийца — [b]Белых[/b], [b]подсвечником[/b] [b]на кухне[/b].[/quote]
Карта показана приватом.

[b]Штрафы: на одно предположение меньше за каждое, оставшееся без ответа[/b]
- Дуг: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше

[b]Предположения на день 2[/b]
- Неташка: 3 предположения
- Веталь: 3 предположения
- Дуг: 2 предположения
"""
DAY2_CAUGHT_UP = """\
[b]Итоги дня 2[/b]

[b]Предположения[/b]
- №2, Веталь → Дуг: [b]Краснова[/b], [b]труба[/b], [b]бильярдная[/b] — опровергнуто \
(за Дуг ответил ГМ)

[b]Ответы ГМа за не ответивших до закрытия дня[/b]

[b]Опровержение для Веталя[/b] (за Дуг ответил ГМ)
[quote][b]Предположение_1 для Дуг (№2)[/b]
Я думаю, что убийца — [b]Краснова[/b], [b]трубой[/b] [b]в бильярдной[/b].[/quote]
Карта показана приватом.

[b]Штрафы: на одно предположение меньше за каждое, оставшееся без ответа[/b]
- Дуг: 1 предположение осталось без ответа — в день 3 на 1 предположение меньше

[b]Предположения на день 3[/b]
- Неташка: 3 предположения
- Веталь: 3 предположения
- Дуг: 2 предположения
"""


# --- GM commands ------------------------------------------------------------------------


def test_close_day_closes_the_current_day_now_once_started(tmp_path: Path) -> None:
    table = Table(tmp_path, games_yaml(RU_GAME))
    # Before its start (20:00 MSK) the game does not exist yet.
    assert table.run("2025-03-01T19:59+03:00") == []
    assert table.new_mail() == []
    for command in (("show", "ru-1"), ("close-day", "ru-1"), ("post", "ru-1")):
        assert table.pbp(*command) == Result(
            1, [], ["Error: game ru-1 has not started yet (run `pbp run`)"]
        )
    assert table.pbp("close-day", "nope") == Result(
        1, [], ["Error: no game 'nope'; known games: ru-1"]
    )
    start(table, RU)

    before = datetime.now(UTC)
    assert table.ok("close-day", "ru-1") == ["ru-1: day 1 closed"]
    # The GM's close is logged for him (the story, his STATUS), never in a post.
    story = [line for line in table.ok("export", "ru-1", "--force") if "ГМ" in line]
    assert [line.split(" · ", 2)[2] for line in story] == ["ГМ закрывает день 1 до срока."]
    assert " 🔒" in story[0]

    # In BBCode alone (the default post_format); nothing for the GM only: no mail.
    (summary,) = table.new_mail()
    assert (summary["To"], summary["Subject"]) == (GM, "[ru-1] Итоги дня 1 — BBCode")
    assert before.replace(microsecond=0) <= summary["Date"].datetime <= datetime.now(UTC)
    bbcode = post(table, "ru-1", "--day", "1")
    assert bbcode == (
        "[b]Итоги дня 1[/b]\n"
        "\n"
        "[b]Предположения[/b]\n"
        "- Предположений не было.\n"
        "\n"
        "[b]Предположения на день 2[/b]\n"
        "- Неташка: 3 предположения\n"
        "- Веталь: 3 предположения\n"
        "- Дуг: 3 предположения\n"
    )
    markdown = post(table, "ru-1", "--day", "1", "--format", "markdown")
    assert {head: body(m) for head, m in by_head([summary]).items()} == (
        gm_posts(RU, "[ru-1] Итоги дня 1", bbcode, markdown)
    )
    assert table.ok("show", "ru-1")[0] == 'Game "ru-1", day 2.'


# --- mail that gets no answer -------------------------------------------------------------

VACATION = """\
From: Неташка <netashka@example.test>
To: {address}
Subject: =?utf-8?q?=D0=9E=D1=82=D0=BF=D1=83=D1=81=D0=BA?=
Message-ID: <vacation-1@example.test>
Auto-Submitted: auto-replied
Content-Type: text/plain; charset=utf-8

Я в отпуске до 10 марта.
"""

DSN = """\
From: Mail Delivery System <MAILER-DAEMON@example.test>
To: gm@example.test
Subject: Undelivered Mail Returned to Sender
Message-ID: <dsn-1@example.test>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain; charset=us-ascii

Your message could not be delivered to vetal@example.test.
--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.test

Final-Recipient: rfc822; vetal@example.test
Action: failed
Status: 5.1.1
--b1--
"""


def test_automatic_mail_is_kept_for_the_gm_and_never_answered(tmp_path: Path) -> None:
    """RFC 3834: no answer to an auto-reply or a delivery report (RFC 3464); ``pbp kept``
    lists both."""
    table = Table(tmp_path, games_yaml(RU_GAME))
    addresses, _canonical, _sha = start(table, RU)
    vacation = deliver(
        table.inbox,
        VACATION.format(address=addresses["Неташка"]).encode().replace(b"\n", b"\r\n"),
        at=at("2025-03-01T21:00+03:00"),
    )
    dsn = deliver(
        table.inbox, DSN.encode().replace(b"\n", b"\r\n"), at=at("2025-03-01T21:01+03:00")
    )

    assert table.run("2025-03-01T21:05+03:00") == [
        f"maildir:{vacation}: automatic",
        f"maildir:{dsn}: automatic",
    ]

    assert table.new_mail() == []
    listed = json.loads("\n".join(table.ok("kept", "--json")))
    words = "automatic mail: bounce, auto-reply, list (not answered)"
    assert [
        (k["id"], k["arrived"], k["source"], k["reason_text"], k["status"]) for k in listed
    ] == [
        (1, "2025-03-01T21:00+03:00", f"maildir:{vacation}", words, "waiting"),
        (2, "2025-03-01T21:01+03:00", f"maildir:{dsn}", words, "waiting"),
    ]
    sent(table, vacation)
    sent(table, dsn)
    assert table.run("2025-03-01T21:10+03:00") == []


# --- personal address as a Subject tag ----------------------------------------------------


def test_subject_tag_mode_reads_the_token_from_the_subject(tmp_path: Path) -> None:
    """``personal_address: subject_tag``: every player writes to gm@example.test and keeps
    ``[pbp-TOKEN]`` in the Subject (DESIGN.md, "Who is who in mail")."""
    table = Table(tmp_path, games_yaml(RU_GAME, mail=MailSection(personal_address="subject_tag")))
    assert table.run("2025-03-01T20:05+03:00") == []
    welcome = {m["To"]: m for m in table.new_mail() if m["To"] != GM}
    tags = {}
    for email, mail in welcome.items():
        found = re.fullmatch(
            r"\[ru-1\] Клуэдо: ваши карты (\[pbp-[a-z0-9]{10}\])", str(mail["Subject"])
        )
        assert found, mail["Subject"]
        tags[email] = found.group(1)
        assert mail["Reply-To"] == "gm@example.test"
        assert (
            "Ваш личный адрес для ходов: gm@example.test\n"
            f"Оставляйте метку {tags[email]} в теме каждого письма с ходами (в ответах она "
            "сохраняется).\n"
            "Пишите ходы только на него — проще всего отвечать на это письмо.\n"
        ) in body(mail)
    assert len(set(tags.values())) == 3
    subject = str(welcome["netashka@example.test"]["Subject"])

    key = table.mail(
        "netashka@example.test",
        "gm@example.test",
        "2025-03-01T21:00+03:00",
        "ПРЕДПОЛОЖЕНИЕ Белых, подсвечник, кухня ДЛЯ Дуг",
        subject=f"Re: {subject}",
    )
    untagged = table.mail(
        "netashka@example.test", "gm@example.test", "2025-03-01T21:01+03:00", "СТАТУС"
    )

    assert table.run("2025-03-01T21:05+03:00") == [
        f"maildir:{key}: applied ru-1",
        f"maildir:{untagged}: token_missing ru-1",
    ]
    doug_tag, netashka_tag = tags["doug@example.test"], tags["netashka@example.test"]
    mails = by_head(table.new_mail())
    reply = mails.pop(("netashka@example.test", f"Re: {subject}"))
    assert body(reply) == RU.texts["reply1"]
    assert reply["Reply-To"] == "gm@example.test"
    addressed = mails.pop(("doug@example.test", f"[ru-1] Предположение №1 от Неташки {doug_tag}"))
    assert body(addressed) == RU.texts["addressed1"]
    assert addressed["Reply-To"] == "gm@example.test"
    # The answer to the untagged mail says "reply to this mail": so it carries the tag.
    [(head, missing)] = mails.items()
    assert head == ("netashka@example.test", f"[ru-1] Re: pbp {netashka_tag}")
    assert body(missing) == (
        "Игра: ru-1\n"
        "\n"
        "Здравствуйте! Ваше письмо пришло не на личный адрес, поэтому ходы из него не "
        "выполнены.\n"
        "\n"
        f"Игра «ru-1», игрок Неташка: gm@example.test, с меткой {netashka_tag} в теме письма\n"
        "\n"
        "Пишите ходы на этот адрес — проще всего отвечать на это письмо или на письма игры.\n"
    )


def test_players_are_fixed_once_a_game_started_and_check_run_retry_say_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """README finding 9: games.yaml edited after the start (a new player, a new address)
    changes no seat; ``pbp check`` (the store present), ``pbp run`` and ``pbp retry``
    warn."""
    from click.testing import CliRunner
    from kits.table import Table, utc

    from pbp.cli import main

    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.close()
    config = tmp_path / "games.yaml"
    runner = CliRunner()
    assert runner.invoke(main, ["-c", str(config), "check"]).stderr == ""
    edited = tmp_path / "games2.yaml"
    edited.write_text(
        config.read_text(encoding="utf-8")
        .replace("Роза", "Стас")
        .replace("rosa@example.test", "stranger@example.test")
        .replace("doug@example.test", "doug2@example.test"),
        encoding="utf-8",
    )
    result = runner.invoke(main, ["-c", str(edited), "check"])
    assert (result.exit_code, result.stdout) == (
        0,
        f"{edited}: OK: seed-000 (cluedo_days, 3 players)\n",
    )
    assert result.stderr.splitlines() == [
        f"{edited}: warning: seed-000: Дуг's seat plays from doug@example.test, not "
        "doug2@example.test as games.yaml says: players are fixed once a game has started "
        "(pbp readdress changes a seat's address; pbp substitute gives the seat to someone "
        "new)",
        f"{edited}: warning: seed-000: Стас <stranger@example.test> in games.yaml has no "
        "seat: players are fixed once a game has started (pbp substitute gives a seat to "
        "someone new)",
    ]
    for command in (["run", "--once", "--now", "2026-12-01T17:30:00+00:00"], ["retry", "1"]):
        caplog.clear()
        runner.invoke(main, ["-c", str(edited), *command])
        warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        assert [w.split(":")[0] for w in warned] == ["seed-000", "seed-000"], command
        assert "Стас <stranger@example.test> in games.yaml has no seat" in warned[1]


def test_pbp_run_logs_one_info_line_per_message_without_its_text(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """README finding 14: source, outcome, game and player; never the body (a card)."""
    from kits.table import Table, utc

    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.send(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 18)
        )
        table.send(
            "Кросс",
            "СТАТУС",
            at=utc(2026, 12, 1, 18, 1),
            sender="x@example.test",
            to="gm@example.test",
        )
        caplog.set_level("INFO", logger="pbp.app.intake")
        assert table.run(utc(2026, 12, 1, 18, 2)) == ["applied", "unknown_sender"]
    finally:
        table.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "pbp.app.intake"]
    assert [re.sub(r"^message maildir:\S+: ", "", line) for line in lines] == [
        "applied game seed-000 player Кросс",
        "unknown_sender",
    ]
    assert not any("Спальня" in line or "СТАТУС" in line for line in lines)


@pytest.mark.parametrize(
    "when", ["0001-01-01T00:00+14:00", "9999-12-31T23:59-14:00", "1969-12-31T23:59+00:00"]
)
def test_a_time_at_the_edge_of_the_calendar_is_refused_in_one_sentence(
    tmp_path: Path, when: str
) -> None:
    """``--now`` / ``--at`` at year 1 or 9999 overflowed into a traceback (issue 31's
    hostile pass): a game's time lies between 1970 and 2999."""
    table = Table(tmp_path, games_yaml(RU_GAME))
    result = table.pbp("games", "--now", when)
    assert result.code == 2
    assert result.err[-1] == (
        f"Error: Invalid value: '{when}': a game's time lies between the years 1970 and 2999"
    )
