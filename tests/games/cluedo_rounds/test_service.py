"""Cluedo by rounds (rules C1–C7, R1–R7) through :class:`pbp.app.service.Service`.

Maildir transports and a test-controlled clock (:mod:`kits.rounds_table`): seed 000's worked
example with its fixed deal, players Кросс, Дуг, Роза in this turn order, Europe/Moscow,
start 2026-12-01 20:00 Moscow (17:00 UTC), 24 hours a turn, 12 an answer. Asserted:
who receives which mail in which order (To, Subject), the key lines of the bodies,
the GM's public posts in exact BBCode, and the refusals' exact texts.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from kits.rounds_table import START, RoundsTable
from kits.table import GM, body, named_body, summary, utc

from pbp.games.cluedo.wording import wording
from pbp.games.core.registry import KINDS

CROSS, DOUG, ROSA = "cross@example.test", "doug@example.test", "rosa@example.test"
WELCOME = "[seed-000] Клуэдо: ваши карты"
RE = "[seed-000] Re: ход"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RoundsTable]:
    table = RoundsTable(tmp_path)
    table.run(START)
    yield table
    table.close()


def bbcode(mail: EmailMessage) -> str:
    """The BBCode post of a ``gm_<post>`` mail: its whole body (issue 12: alone)."""
    assert str(mail["Subject"]).endswith(" — BBCode"), mail["Subject"]
    return body(mail)


def posted(title: str, *, private: bool = False) -> list[tuple[str, str]]:
    """The GM's mails of one post: BBCode (the default ``post_format``), then the GM-only
    facts when any."""
    gm_only = "GM only" if title.endswith(("post", "Opening post")) else "только для ГМа"
    parts = ["BBCode", *([gm_only] if private else [])]
    return [(GM, f"{title} — {part}") for part in parts]


def lines(mail: EmailMessage) -> list[str]:
    """The lines of a mail's text after the line naming its game (asserted)."""
    return named_body(mail, "seed-000").splitlines()


def play(table: RoundsTable, player: str, line: str, minute: int) -> list[EmailMessage]:
    """``player`` sends ``line`` at 17:``minute`` UTC; the daemon runs a minute later."""
    table.send(player, line, at=utc(2026, 12, 1, 17, minute))
    assert table.run(utc(2026, 12, 1, 17, minute + 1)) == ["applied"]
    return table.new_mail()


TURN_1 = (
    "[b]Ход 1: Кросс[/b]\n"
    "\n"
    "[b]Предположение №1[/b]\n"
    "Кросс предполагает: убийца — [b]Петя[/b], [b]Молотком[/b] [b]в Спальне[/b].\n"
    "\n"
    "Ответы по кругу:\n"
    "- Дуг: есть карта (показана приватом)\n"
    "\n"
    "Карта показана Кроссу приватом.\n"
    "\n"
    "[b]Следующий ход — Дуг.[/b]\n"
)
TURN_2 = (
    "[b]Ход 2: Дуг[/b]\n"
    "\n"
    "[b]Предположение №2[/b]\n"
    "Дуг предполагает: убийца — [b]Петя[/b], [b]Топором[/b] [b]в Столовой[/b].\n"
    "\n"
    "Ответы по кругу:\n"
    "- Роза: нет опровержения\n"
    "- Кросс: есть карта (показана приватом)\n"
    "\n"
    "Карта показана Дуг приватом.\n"
    "\n"
    "[b]Следующий ход — Роза.[/b]\n"
)
TURN_3 = (
    "[b]Ход 3: Роза[/b]\n"
    "\n"
    "[b]Предположение №3[/b]\n"
    "Роза предполагает: убийца — [b]Маша[/b], [b]Канделябром[/b] [b]в Столовой[/b].\n"
    "\n"
    "Ответы по кругу:\n"
    "- Кросс: нет опровержения\n"
    "- Дуг: нет опровержения\n"
    "\n"
    "Опровергнуть никто не смог.\n"
    "\n"
    "[b]Следующий ход — Кросс.[/b]\n"
)


def test_seed_000_worked_example_by_mail(table: RoundsTable) -> None:
    """The seed's example, reconstructed (issue 3): R1–R3, R6, C3, C4, C6, C7."""
    start = table.new_mail()
    assert summary(start) == [
        (CROSS, WELCOME),
        (DOUG, WELCOME),
        (ROSA, WELCOME),
        (GM, "[seed-000] Лист ГМа: решение и карты"),
        *posted("[seed-000] Первый пост игры"),
    ]
    assert "Ваши карты: Петя, Ваня, Нож." in lines(start[0])
    assert "Можно назвать комнаты: Столовая, Спальня, Библиотека." in lines(start[0])
    assert "Первый ход — Кросс." in lines(start[1])
    assert "Первый ход — Кросс." in lines(start[2])
    opening = bbcode(start[4])
    assert "1. Кросс\n2. Дуг\n3. Роза" in opening
    assert opening.endswith("[b]Первый ход — Кросс.[/b]\n")
    commitment = re.search(r"SHA-256: ([0-9a-f]{64})", opening)
    assert commitment is not None

    # Turn 1: Дуг holds Молоток and Спальня and chooses; Роза is never asked (R2).
    mails = play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
    assert summary(mails) == [
        (CROSS, RE),
        (DOUG, "[seed-000] Ваша очередь отвечать на предположение №1"),
    ]
    reply = lines(mails[0])
    assert (
        "Принято: предположение №1 (Петя, Молоток, Спальня). Отвечают по кругу, начиная "
        "со следующего за вами игрока." in reply
    )
    assert "Сейчас отвечает Дуг." in reply
    assert "[b]Предположение №1[/b]" in reply
    asked = lines(mails[1])
    assert "Предположение №1 от Кросса: убийца — Петя, Молотком в Спальне." in asked
    assert (
        "У вас есть: Молоток, Спальня. Вы обязаны его опровергнуть; какую из этих карт "
        "показать — решаете вы. Ответьте строкой, например:" in asked
    )

    mails = play(table, "Дуг", "ОПРОВЕРЖЕНИЕ Молоток", 10)
    assert summary(mails) == [
        (DOUG, RE),
        (CROSS, "[seed-000] Предположение №1: вам показали карту"),
        (DOUG, "[seed-000] Ваш ход (ход 2)"),
        *posted("[seed-000] Итоги хода 1", private=True),
    ]
    assert "Принято: опровержение предположения №1. Кросс получит карту приватом." in lines(
        mails[0]
    )
    assert "Дуг: есть карта (показана приватом)" in lines(
        mails[0]
    )  # the forum snippet, never the card
    assert "Дуг показывает вам карту «Молоток»." in lines(mails[1])
    assert "Можно назвать комнаты: Столовая, Спальня, Библиотека." in lines(mails[2])
    assert bbcode(mails[3]) == TURN_1
    assert "  - №1: Дуг → Кросс, карта «Молоток»" in lines(mails[4])  # the GM-only mail
    assert not [m for m in mails[3:4] if "карта «Молоток»" in body(m)]  # never beside the post
    # C4: the shown card reaches the suggester (and the GM) only.
    assert [m["To"] for m in mails if "карту «Молоток»" in body(m)] == [CROSS]

    # Turn 2: Роза has none and is answered at once (R6); Кросс must show Петя.
    mails = play(table, "Дуг", "ПРЕДПОЛОЖЕНИЕ Петя, Топор, Столовая", 15)
    assert summary(mails) == [
        (DOUG, RE),
        (CROSS, "[seed-000] Ваша очередь отвечать на предположение №2"),
    ]
    assert [
        line
        for line in lines(mails[0])
        if line in ("Роза: нет опровержения.", "Сейчас отвечает Кросс.")
    ] == ["Роза: нет опровержения.", "Сейчас отвечает Кросс."]
    assert "У вас есть Петя. Вы обязаны показать эту карту. Ответьте строкой:" in lines(mails[1])
    assert "    ОПРОВЕРЖЕНИЕ 2 Петя" in lines(mails[1])

    mails = play(table, "Кросс", "ОПРОВЕРЖЕНИЕ Петя", 20)
    assert summary(mails) == [
        (CROSS, RE),
        (DOUG, "[seed-000] Предположение №2: вам показали карту"),
        (ROSA, "[seed-000] Ваш ход (ход 3)"),
        *posted("[seed-000] Итоги хода 2", private=True),
    ]
    assert "Кросс показывает вам карту «Петя»." in lines(mails[1])
    assert "Следующий ход — Роза." in lines(mails[0])
    assert bbcode(mails[3]) == TURN_2

    # Turn 3: Роза names her own Канделябр (C3); nobody refutes, the round ends at her (R3).
    mails = play(table, "Роза", "ПРЕДПОЛОЖЕНИЕ Маша, Канделябр, Столовая", 25)
    assert summary(mails) == [
        (ROSA, RE),
        (ROSA, "[seed-000] Предположение №3: никто не опроверг"),
        (CROSS, "[seed-000] Ваш ход (ход 4)"),
        *posted("[seed-000] Итоги хода 3"),
    ]
    assert [line for line in lines(mails[0]) if line.endswith(("нет опровержения.", "смог."))] == [
        "Кросс: нет опровержения.",
        "Дуг: нет опровержения.",
        "Опровергнуть никто не смог.",
    ]
    assert lines(mails[1]) == [
        "Роза, ваше предположение №3 (Маша, Канделябр, Столовая) никто не опроверг: ни у "
        "одного другого игрока нет ни одной из этих карт."
    ]
    # R5: Кросс named Спальня last time.
    assert "Можно назвать комнаты: Столовая, Библиотека." in lines(mails[2])
    assert bbcode(mails[3]) == TURN_3

    # Turn 4: Кросс accuses at the start of his turn (R4) and wins (C6, C7).
    mails = play(table, "Кросс", "ОБВИНЕНИЕ Маша, Топор, Столовая", 30)
    over = "[seed-000] Игра окончена"
    assert summary(mails) == [
        (CROSS, RE),
        (GM, "[seed-000] Обвинение Кросса: верное"),
        (CROSS, over),
        (DOUG, over),
        (ROSA, over),
        *posted("[seed-000] Игра окончена: финальный пост", private=True),
    ]
    assert "Обвинение (Маша, Топор, Столовая) верное — вы победили!" in lines(mails[0])
    assert "Победил Кросс." in lines(mails[3])
    final = bbcode(mails[5])
    assert final.startswith(
        "[b]Игра окончена[/b]\n"
        "\n"
        "Кросс обвиняет: убийца — [b]Маша[/b], [b]Топором[/b] [b]в Столовой[/b].\n"
        "Обвинение верное — победитель [b]Кросс[/b]!\n"
        "\n"
        "[b]Разгадка[/b]\n"
        "Убийца — [b]Маша[/b], [b]Топором[/b] [b]в Столовой[/b].\n"
        "\n"
        "[b]Карты игроков[/b]\n"
        "- Кросс: [b]Петя[/b], [b]Ваня[/b], [b]Нож[/b]\n"
        "- Дуг: [b]Спальня[/b], [b]Пистолет[/b], [b]Молоток[/b]\n"
        "- Роза: [b]Библиотека[/b], [b]Канделябр[/b], [b]Веревка[/b]\n"
    )
    canonical = re.search(r"\[code\](.*)\[/code\]", final)
    assert canonical is not None
    assert hashlib.sha256(canonical.group(1).encode()).hexdigest() == commitment.group(1)
    assert f"В первом посте игры был опубликован SHA-256: {commitment.group(1)}" in final
    row = table.store.game("seed-000")
    assert row is not None and row.over and row.deadline_at is None


def test_R1_a_move_out_of_turn_is_refused_with_whose_turn_it_is(table: RoundsTable) -> None:
    table.new_mail()
    mails = refused(table, "Дуг", "ПРЕДПОЛОЖЕНИЕ Петя, Топор, Столовая")
    assert (
        "Сейчас не ваш ход: ход 1 — у Кросса. Предположение или обвинение "
        "можно сделать только в свой ход; когда он наступит, придёт письмо." in lines(mails[0])
    )


def test_R4_an_accusation_after_ones_own_suggestion_is_refused(table: RoundsTable) -> None:
    play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
    mails = refused(table, "Кросс", "ОБВИНЕНИЕ Маша, Топор, Столовая")
    assert (
        "В этом ходу вы уже сделали предположение №1, на него сейчас отвечает "
        "Дуг. За ход — одно предположение или одно обвинение; обвинить можно только в начале "
        "своего следующего хода, вместо предположения." in lines(mails[0])
    )
    assert "accusation_made" not in [s.event.kind for s in table.store.events("seed-000")]


def test_R5_the_room_of_ones_previous_suggestion_is_refused(table: RoundsTable) -> None:
    play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
    play(table, "Дуг", "ОПРОВЕРЖЕНИЕ Спальня", 10)
    play(table, "Дуг", "ПРЕДПОЛОЖЕНИЕ Петя, Топор, Столовая", 15)
    play(table, "Кросс", "ОПРОВЕРЖЕНИЕ Петя", 20)
    play(table, "Роза", "ПРЕДПОЛОЖЕНИЕ Маша, Канделябр, Столовая", 25)
    mails = refused(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Спальня")
    assert (
        "В вашем предыдущем предположении уже была комната «Спальня»: одну "
        "комнату нельзя называть в двух предположениях подряд. Сейчас можно назвать: "
        "Столовая, Библиотека." in lines(mails[0])
    )


def refused(table: RoundsTable, player: str, line: str) -> list[EmailMessage]:
    """``player`` sends ``line`` at 17:40 UTC; it must be refused with one reply only."""
    table.new_mail()
    table.send(player, line, at=utc(2026, 12, 1, 17, 40))
    assert table.run(utc(2026, 12, 1, 17, 41)) == ["refused"]
    mails = table.new_mail()
    assert summary(mails) == [({"Кросс": CROSS, "Дуг": DOUG, "Роза": ROSA}[player], RE)]
    return mails


def test_R7_a_missed_turn_is_skipped_at_its_deadline_with_a_public_post(
    table: RoundsTable,
) -> None:
    table.new_mail()
    table.run(utc(2026, 12, 2, 16, 59))
    assert table.new_mail() == []
    table.run(utc(2026, 12, 2, 17, 1))
    mails = table.new_mail()
    # Only Кросс is told privately (R7); the others read the skip in the post.
    assert summary(mails) == [
        *posted("[seed-000] Итоги хода 1"),
        (CROSS, "[seed-000] Ваш ход пропущен (ход 1)"),
        (DOUG, "[seed-000] Ваш ход (ход 2)"),
    ]
    assert bbcode(mails[0]) == (
        "[b]Ход 1: Кросс[/b]\n"
        "\n"
        "Кросс: ход не сделан вовремя и пропущен.\n"
        "\n"
        "[b]Следующий ход — Дуг.[/b]\n"
    )
    row = table.store.game("seed-000")
    assert row is not None and row.deadline_at == utc(2026, 12, 3, 17)
    (skip,) = [s for s in table.store.events("seed-000") if s.event.kind == "turn_skipped"]
    assert (skip.at, skip.day) == (utc(2026, 12, 2, 17), 1)


def test_R7_a_player_whose_turn_lapsed_is_told_so_by_mail(table: RoundsTable) -> None:
    """R7: the turn's deadline passes; the skipped player gets one mail in the game's
    language naming the game: when his turn was skipped, whose turns come before his
    next one, what he may do meanwhile."""
    table.new_mail()
    table.run(utc(2026, 12, 2, 17, 1))
    (skipped,) = [m for m in table.new_mail() if m["To"] == CROSS]
    assert named_body(skipped, "seed-000") == (
        "Кросс, ваш ход (ход 1) пропущен: до срока — 2 декабря 2026 г., 20:00 по Москве — "
        "от вас не пришло ни предположения, ни обвинения.\n"
        "\n"
        "Ваш следующий ход — после Дуг и Розы; когда он начнётся, вам придёт письмо.\n"
        "А пока, как обычно, отвечайте на предположения, когда до вас дойдёт очередь (об "
        "этом придёт письмо); предположение — только в свой ход, обвинение — только в его начале.\n"
        "\n"
        "СТАТУС — ваши карты и показанные вам карты, ПОМОЩЬ — список команд.\n"
    )
    # Дуг lets his turn lapse too: Роза's and Кросс's turns come before his next one.
    table.run(utc(2026, 12, 3, 17, 1))
    mails = table.new_mail()
    assert summary(mails) == [
        *posted("[seed-000] Итоги хода 2"),
        (DOUG, "[seed-000] Ваш ход пропущен (ход 2)"),
        (ROSA, "[seed-000] Ваш ход (ход 3)"),
    ]
    assert "Ваш следующий ход — после Розы и Кросса; когда он начнётся, вам придёт письмо." in (
        lines(mails[1])
    )


def test_R7_the_turn_skipped_mail_in_english(tmp_path: Path) -> None:
    table = RoundsTable(tmp_path, locale="en")
    try:
        table.run(START)
        table.new_mail()
        table.run(utc(2026, 12, 2, 17, 1))
        mails = table.new_mail()
        assert summary(mails) == [
            *posted("[seed-000] Turn 1 post"),
            (CROSS, "[seed-000] Your turn was skipped (turn 1)"),
            (DOUG, "[seed-000] Your turn (turn 2)"),
        ]
        assert named_body(mails[1], "seed-000") == (
            "Кросс, your turn (turn 1) was skipped: no suggestion or accusation came from "
            "you by its deadline, December 2, 2026, 20:00 MSK.\n"
            "\n"
            "Your next turn comes after the turns of Дуг and Роза; you will get a mail when "
            "it starts.\n"
            "Until then, answer suggestions as usual when the answering comes to you (a mail "
            "will tell you); a suggestion only on your own turn, an accusation only at its "
            "start.\n"
            "\n"
            "STATUS shows your cards and the cards shown to you, HELP the commands.\n"
        )
        assert "Кросс: the turn was not taken in time and is skipped." in bbcode(mails[0])
    finally:
        table.close()


def test_R7_C5_a_missed_answer_is_given_by_the_gm_at_its_deadline(table: RoundsTable) -> None:
    play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
    # Дуг is asked at 17:05 UTC with 12 hours to answer: due 2026-12-02 05:05 UTC.
    table.run(utc(2026, 12, 2, 5, 4))
    assert table.new_mail() == []
    table.run(utc(2026, 12, 2, 5, 6))
    mails = table.new_mail()
    assert summary(mails) == [
        *posted("[seed-000] Итоги хода 1", private=True),
        (DOUG, "[seed-000] Предположение №1: за вас ответил ГМ"),
        (CROSS, "[seed-000] Предположение №1: вам показали карту"),
        (DOUG, "[seed-000] Ваш ход (ход 2)"),
    ]
    assert bbcode(mails[0]) == TURN_1.replace(
        "- Дуг: есть карта (показана приватом)\n",
        "- Дуг: есть карта (показана приватом; ответил ГМ: время на ответ истекло)\n",
    )
    assert "  - №1: Дуг не ответила вовремя, ответ дал ГМ — показана карта «Молоток»" in lines(
        mails[1]
    )
    # C5: the first held card in the order suspect, weapon, room: Молоток, not Спальня.
    assert named_body(mails[2], "seed-000") == (
        "Дуг, вы не ответили вовремя на предположение №1 от Кросса (Петя, Молоток, Спальня).\n"
        "ГМ ответил за вас и показал Кроссу вашу карту «Молоток» (первую подходящую в "
        "порядке подозреваемый — орудие — комната).\n"
    )
    assert "За Дуг ответил ГМ (время на ответ истекло) и показал вам карту «Молоток»." in lines(
        mails[3]
    )
    row = table.store.game("seed-000")
    assert row is not None and row.deadline_at == utc(2026, 12, 3, 5, 5)


def test_D8_a_move_that_arrived_before_a_missed_deadline_is_applied_before_it(
    table: RoundsTable,
) -> None:
    """The daemon is down from 17:00 on Dec 1 to Dec 3, 12:00 UTC. Дуг's answer arrived
    at 05:00 on Dec 2, before its deadline (05:05): it is his, not the GM's; his own
    turn, started then, was missed at 05:00 on Dec 3 and is skipped then (R7)."""
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", at=utc(2026, 12, 1, 17, 5))
    table.send("Дуг", "ОПРОВЕРЖЕНИЕ Спальня", at=utc(2026, 12, 2, 5))
    assert table.run(utc(2026, 12, 3, 12)) == ["applied", "applied"]
    assert table.public_kinds() == [
        ("turn_started", "2026-12-01T17:00:00+00:00"),
        ("suggestion_made", "2026-12-01T17:05:00+00:00"),
        ("asked", "2026-12-01T17:05:00+00:00"),
        ("refuted", "2026-12-02T05:00:00+00:00"),
        ("round_ended", "2026-12-02T05:00:00+00:00"),
        ("turn_started", "2026-12-02T05:00:00+00:00"),
        ("turn_skipped", "2026-12-03T05:00:00+00:00"),
        ("turn_started", "2026-12-03T05:00:00+00:00"),
    ]
    kinds = [s.event.kind for s in table.store.events("seed-000")]
    assert "gm_refutation" not in kinds
    shown = [
        body(m)
        for m in table.sent()
        if m["Subject"] == "[seed-000] Предположение №1: вам показали карту"
    ]
    assert len(shown) == 1 and "Дуг показывает вам карту «Спальня»." in shown[0]
    posts = [m for m in table.sent() if str(m["Subject"]).startswith("[seed-000] Итоги хода")]
    assert [str(m["Subject"]) for m in posts] == [
        "[seed-000] Итоги хода 1 — BBCode",
        "[seed-000] Итоги хода 1 — только для ГМа",
        "[seed-000] Итоги хода 2 — BBCode",
    ]
    assert bbcode(posts[2]) == (
        "[b]Ход 2: Дуг[/b]\n\nДуг: ход не сделан вовремя и пропущен.\n\n"
        "[b]Следующий ход — Роза.[/b]\n"
    )


def test_R7_the_reminder_goes_only_to_the_player_whose_turn_or_answer_is_due(
    tmp_path: Path,
) -> None:
    table = RoundsTable(tmp_path, extra="remind_hours_before: 2\n")
    try:
        table.run(START)
        table.new_mail()
        # Turn 1 is due 2026-12-02 17:00 UTC (20:00 Moscow): reminded at 15:00 UTC.
        table.run(utc(2026, 12, 2, 14, 59))
        assert table.new_mail() == []
        table.run(utc(2026, 12, 2, 15, 1))
        table.run(utc(2026, 12, 2, 15, 30))
        mails = table.new_mail()
        assert summary(mails) == [
            (CROSS, "[seed-000] Напоминание: ваш ход до 2 декабря 2026 г., 20:00 по Москве")
        ]
        assert lines(mails[0]) == [
            "Кросс, напоминаем: сейчас ваш ход (ход 1). Сделайте предположение или обвинение "
            "до 2 декабря 2026 г., 20:00 по Москве, иначе ход будет пропущен.",
            "Можно назвать комнаты: Столовая, Спальня, Библиотека.",
        ]
        # An answer: Дуг is asked at 15:40 UTC, due 03:40 UTC (06:40 Moscow), reminded at 01:40.
        table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", at=utc(2026, 12, 2, 15, 40))
        assert table.run(utc(2026, 12, 2, 15, 41)) == ["applied"]
        table.new_mail()
        table.run(utc(2026, 12, 3, 1, 41))
        mails = table.new_mail()
        assert summary(mails) == [
            (
                DOUG,
                "[seed-000] Напоминание: ответ на предположение №1 до 3 декабря 2026 г., "
                "06:40 по Москве",
            )
        ]
        assert lines(mails[0]) == [
            "Дуг, напоминаем: вы должны ответить на предположение №1 от Кросса (Петя, Молоток, "
            "Спальня) до 3 декабря 2026 г., 06:40 по Москве.",
            "У вас есть: Молоток, Спальня. Покажите одну из них, например:",
            "    ОПРОВЕРЖЕНИЕ 1 Молоток",
            "Иначе за вас ответит ГМ (первой подходящей картой в порядке подозреваемый — "
            "орудие — комната).",
        ]
    finally:
        table.close()


def test_C6_a_wrong_accusation_is_published_with_its_cards(table: RoundsTable) -> None:
    """Seed 000 accuses aloud (publish_wrong_accusations defaults to true here)."""
    table.new_mail()
    mails = play(table, "Кросс", "ОБВИНЕНИЕ Петя, Топор, Столовая", 5)
    assert summary(mails) == [
        (CROSS, RE),
        (GM, "[seed-000] Обвинение Кросса: неверное"),
        (DOUG, "[seed-000] Ваш ход (ход 2)"),
        *posted("[seed-000] Итоги хода 1", private=True),
    ]
    assert (
        "Обвинение (Петя, Топор, Столовая) неверное: вы выбываете из игры. Ходить вы больше "
        "не будете, но на предположения по-прежнему нужно отвечать." in lines(mails[0])
    )
    wrong = (
        "Кросс обвиняет: убийца — [b]Петя[/b], [b]Топором[/b] [b]в Столовой[/b].\n"
        "Обвинение неверное: Кросс выбывает из игры — больше не предполагает и не обвиняет, "
        "но по-прежнему отвечает на предположения.\n"
    )
    assert bbcode(mails[3]) == (f"[b]Ход 1: Кросс[/b]\n\n{wrong}\n[b]Следующий ход — Дуг.[/b]\n")
    assert (
        "[b]Обвинение[/b]\nКросс обвиняет: убийца — [b]Петя[/b], [b]Топором[/b] [b]в Столовой[/b]."
        "\nОбвинение неверное: Кросс выбывает из игры." in body(mails[0])
    )


def test_R6_an_automatic_answer_looks_exactly_like_a_manual_one(tmp_path: Path) -> None:
    """With ``auto_answer: none`` Роза answers turn 2 herself: the same public post."""
    table = RoundsTable(tmp_path, extra="auto_answer: none\n")
    try:
        table.run(START)
        play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
        play(table, "Дуг", "ОПРОВЕРЖЕНИЕ Молоток", 10)
        mails = play(table, "Дуг", "ПРЕДПОЛОЖЕНИЕ Петя, Топор, Столовая", 15)
        assert summary(mails) == [
            (DOUG, RE),
            (ROSA, "[seed-000] Ваша очередь отвечать на предположение №2"),
        ]
        assert "Ни одной из этих карт у вас нет. Ответьте строкой:" in lines(mails[1])
        play(table, "Роза", "НЕТ ОПРОВЕРЖЕНИЯ", 17)
        mails = play(table, "Кросс", "ОПРОВЕРЖЕНИЕ Петя", 20)
        (post,) = [m for m in mails if m["Subject"] == "[seed-000] Итоги хода 2 — BBCode"]
        assert bbcode(post) == TURN_2
    finally:
        table.close()


def test_status_tells_the_turn_the_shown_cards_and_the_allowed_rooms(table: RoundsTable) -> None:
    play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
    play(table, "Дуг", "ОПРОВЕРЖЕНИЕ Молоток", 10)
    table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 17, 12))
    assert table.run(utc(2026, 12, 1, 17, 13)) == ["status"]
    (mail,) = table.new_mail()
    assert lines(mail)[2:] == [
        "Выполнено:",
        "",
        "> СТАТУС",
        "Понял: СТАТУС",
        "Ход 2, ходит Дуг.",
        "",
        "Ваши карты: Петя, Ваня, Нож.",
        "В следующем предположении можно назвать комнаты: Столовая, Библиотека.",
        "",
        "Вам показали:",
        "  - №1: Молоток (от Дуг)",
        "",
        "СТАТУС — ваши карты и чего ждут от вас, ПОМОЩЬ — список команд.",
    ]


def test_help_shows_the_rounds_grammar_without_an_addressee(table: RoundsTable) -> None:
    # The reply to HELP gives this game's own cards as its examples.
    table.send("Роза", "ПОМОЩЬ", at=utc(2026, 12, 1, 17, 2))
    assert table.run(utc(2026, 12, 1, 17, 3)) == ["status"]
    (mail,) = table.new_mail()[-1:]
    text = lines(mail)
    for line in (
        "ПРЕДПОЛОЖЕНИЕ <подозреваемый>, <орудие>, <комната> — только в свой ход. Адресата нет:"
        " отвечают по кругу, начиная со следующего за вами игрока.",
        "    SUGGEST Маша, Топор, Столовая",
        "ОПРОВЕРЖЕНИЕ [N] <карта> — показать карту, когда до вас дошла очередь отвечать"
        " на предположение N (придёт письмо)",
        "НЕТ ОПРОВЕРЖЕНИЯ [N] — у вас нет ни одной из названных карт",
        "ОБВИНЕНИЕ <подозреваемый>, <орудие>, <комната> — только в начале своего хода, вместо"
        " предположения (сделав предположение, обвинить можно лишь в следующий свой ход)."
        " Верное обвинение приносит победу, неверное выводит из игры (отвечать на"
        " предположения всё равно придётся).",
        "СТАТУС (STATUS) — ваши карты, показанные вам карты, чей ход и чего ждут от вас.",
        "ПОМОЩЬ (HELP) — эта справка.",
    ):
        assert line in text
    assert not [line for line in text if "ДЛЯ" in line or " TO " in line]


def test_gm_show_and_the_post_command_of_a_running_game(table: RoundsTable) -> None:
    """`pbp show` renders ``cluedo_rounds/gm_show``; `pbp post` asks for ``day`` N."""
    play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
    row = table.store.game("seed-000")
    assert row is not None
    kind = KINDS["cluedo_rounds"]
    view = dict(kind.gm_view(kind.load(row.state)))
    view["deadline_at"] = "2026-12-02T08:05+03:00"
    _subject, text = table.service.renderer.private_mail(
        "cluedo_rounds/gm_show", locale="ru", game="seed-000", view=view, timezone="Europe/Moscow"
    )
    assert text.splitlines()[:12] == [
        "Игра «seed-000», ход 1, ходит Кросс.",
        "",
        "Сейчас отвечает Дуг на предположение №1.",
        "Срок: 2 декабря 2026 г., 08:05 по Москве",
        "Решение: Маша, Топор, Столовая.",
        "Правила: на ход 24 часа, на ответ 12 часов; автоответ: no_match; неверные обвинения "
        "публикуются.",
        "",
        "Игроки (порядок ходов):",
        "  - Кросс: Петя, Ваня, Нож",
        "  - Дуг: Спальня, Пистолет, Молоток",
        "  - Роза: Библиотека, Канделябр, Веревка",
        "",
    ]
    assert "  - №1 (ход 1), Кросс: Петя, Молоток, Спальня — отвечает Дуг" in text.splitlines()
    events = [s.event for s in table.store.events("seed-000", public_only=True)]
    post = table.service.renderer.public_post(
        "day",
        events,
        locale="ru",
        fmt="bbcode",
        kind="cluedo_rounds",
        game="seed-000",
        day=1,
        wording=wording("ru"),
    )
    assert post == TURN_1.replace(
        "- Дуг: есть карта (показана приватом)\n\nКарта показана Кроссу приватом.\n\n"
        "[b]Следующий ход — Дуг.[/b]\n",
        "- пока нет\n\nХод ещё идёт: отвечает Дуг.\n",
    )


def test_seed_000_worked_example_in_english(tmp_path: Path) -> None:
    table = RoundsTable(tmp_path, locale="en")
    try:
        table.run(START)
        assert [s for _, s in summary(table.new_mail())] == [
            "[seed-000] Cluedo: your cards",
            "[seed-000] Cluedo: your cards",
            "[seed-000] Cluedo: your cards",
            "[seed-000] GM sheet: solution and hands",
            "[seed-000] Opening post — BBCode",
        ]
        play(table, "Кросс", "SUGGEST Петя, Молоток, Спальня", 5)
        mails = play(table, "Дуг", "REFUTE Молоток", 10)
        assert summary(mails) == [
            (DOUG, RE),
            (CROSS, "[seed-000] Suggestion #1: a card was shown to you"),
            (DOUG, "[seed-000] Your turn (turn 2)"),
            *posted("[seed-000] Turn 1 post", private=True),
        ]
        assert bbcode(mails[3]) == (
            "[b]Turn 1: Кросс[/b]\n"
            "\n"
            "[b]Suggestion #1[/b]\n"
            "Кросс suggests: it was [b]Петя[/b] [b]with the Молоток[/b] [b]in the Спальня[/b].\n"
            "\n"
            "Answers round the table:\n"
            "- Дуг: has a card (shown privately)\n"
            "\n"
            "The card was shown to Кросс privately.\n"
            "\n"
            "[b]Next turn: Дуг.[/b]\n"
        )
        play(table, "Дуг", "SUGGEST Петя, Топор, Столовая", 15)
        play(table, "Кросс", "REFUTE Петя", 20)
        mails = play(table, "Роза", "SUGGEST Маша, Канделябр, Столовая", 25)
        assert "- Кросс: no refutation\n- Дуг: no refutation\n\nNobody could refute.\n" in bbcode(
            mails[-1]
        )
        mails = play(table, "Кросс", "ACCUSE Маша, Топор, Столовая", 30)
        assert summary(mails)[-2:] == posted("[seed-000] Game over: the final post", private=True)
        assert "The accusation is right — the winner is [b]Кросс[/b]!" in bbcode(mails[-2])
    finally:
        table.close()


def test_R7_your_turn_gives_the_deadline_in_the_games_time_zone(table: RoundsTable) -> None:
    welcome = lines(table.new_mail()[0])
    assert (
        "Первый ход — ваш: сделайте предположение или обвинение до 2 декабря 2026 г., "
        "20:00 по Москве." in welcome
    )
    play(table, "Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", 5)
    mails = play(table, "Дуг", "ОПРОВЕРЖЕНИЕ Молоток", 10)
    assert (
        "Сделайте предположение или обвинение до 2 декабря 2026 г., 20:10 по Москве; иначе ход "
        "будет пропущен." in lines(mails[2])
    )


def test_R7_C5_reminder_gm_answer_status_and_gm_show_in_english(tmp_path: Path) -> None:
    table = RoundsTable(tmp_path, locale="en", extra="remind_hours_before: 2\n")
    try:
        table.run(START)
        play(table, "Кросс", "SUGGEST Петя, Молоток, Спальня", 5)
        # Дуг's answer is due 2026-12-02 05:05 UTC (08:05 Moscow), reminded at 03:05 UTC.
        table.run(utc(2026, 12, 2, 3, 6))
        table.run(utc(2026, 12, 2, 5, 6))
        mails = table.new_mail()
        assert summary(mails) == [
            (
                DOUG,
                "[seed-000] Reminder: your answer to suggestion #1, by December 2, 2026, 08:05 MSK",
            ),
            *posted("[seed-000] Turn 1 post", private=True),
            (DOUG, "[seed-000] Suggestion #1: the GM answered for you"),
            (CROSS, "[seed-000] Suggestion #1: a card was shown to you"),
            (DOUG, "[seed-000] Your turn (turn 2)"),
        ]
        assert (
            "- Дуг: has a card (shown privately; answered by the GM: the time to answer ran out)"
            in lines(mails[1])
        )
        assert (
            'The GM answered for you and showed Кросс your card "Молоток" (the first matching '
            "one in the order suspect, weapon, room)." in lines(mails[3])
        )
        table.send("Кросс", "STATUS", at=utc(2026, 12, 2, 5, 10))
        assert table.run(utc(2026, 12, 2, 5, 11)) == ["status"]
        (status,) = table.new_mail()
        assert "  - #1: Молоток (by Дуг; the GM answered)" in lines(status)
        assert "Rooms you may name in your next suggestion: Столовая, Библиотека." in lines(status)
        row = table.store.game("seed-000")
        assert row is not None
        kind = KINDS["cluedo_rounds"]
        _subject, text = table.service.renderer.private_mail(
            "cluedo_rounds/gm_show",
            locale="en",
            game="seed-000",
            view=kind.gm_view(kind.load(row.state)),
        )
        assert "  - #1 (turn 1), Кросс: Петя, Молоток, Спальня — refuted (Дуг)" in text.splitlines()
        assert "      Дуг: Молоток (GM)" in text.splitlines()
    finally:
        table.close()


@pytest.mark.parametrize(
    ("locale", "subject", "text"),
    [
        (
            "ru",
            "[seed-000] Предположение №1: за вас ответил ГМ",
            "Дуг, вы не ответили вовремя на предположение №1 от Кросса (Маша, Топор, Столовая).\n"
            "ГМ ответил за вас: опровержения нет.\n",
        ),
        (
            "en",
            "[seed-000] Suggestion #1: the GM answered for you",
            "Дуг, you did not answer suggestion #1 from Кросс (Маша, Топор, Столовая) in time.\n"
            "The GM answered for you: no refutation.\n",
        ),
    ],
)
def test_C5_R7_the_gm_answer_for_a_lapsed_answer_is_mailed_as_in_the_days_variant(
    tmp_path: Path, locale: str, subject: str, text: str
) -> None:
    """C5, R7: as in the days variant (D6), the player the GM answered for gets one mail
    saying so — here with no card to show (``auto_answer: none`` asks him anyway)."""
    table = RoundsTable(tmp_path, locale=locale, extra="auto_answer: none\n")
    try:
        table.run(START)
        play(table, "Кросс", "SUGGEST Маша, Топор, Столовая", 5)
        table.run(utc(2026, 12, 2, 5, 6))
        mails = [m for m in table.new_mail() if m["To"] == DOUG]
        assert [str(m["Subject"]) for m in mails] == [subject]
        assert named_body(mails[0], "seed-000") == text
    finally:
        table.close()
