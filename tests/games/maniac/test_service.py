"""Maniac (rules M1–M12, seed 002) through :class:`pbp.app.service.Service`.

Maildir transports and a test-controlled clock (:mod:`kits.maniac_table`): ten players with a
fixed deal — Коля the maniac, Дима the duty officer, Лена the fan, the rest civilians —
in Europe/Moscow; days close at 22:00 (19:00 UTC), nights end at 10:00 (07:00 UTC).
Asserted: who receives which mail (To, Subject), the exact texts players read, the
forum posts mailed to the GM in exact BBCode, the seed's worked examples, and that no
role reaches a player who may not know it before the game is over (M1, M6, M8).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.maniac_table import (
    EMAILS,
    GAME,
    PLAYERS,
    ROLES,
    START,
    ManiacTable,
    bbcode,
    close,
    dawn,
    gm_facts,
    posted,
    seed_tie,
)
from kits.table import GM, TEMPLATES, body, named_body, summary, utc

from pbp.cli import main
from pbp.games.core.events import Event, Visibility
from pbp.games.core.registry import KINDS
from pbp.games.maniac import engine, views
from pbp.games.maniac.config import ManiacGame
from pbp.games.maniac.kind import Maniac
from pbp.games.maniac.shapes import FixedBy, GmView
from pbp.text.fairness import commitment
from pbp.text.render import Renderer

RE = "[seed-002] Re: ход"
WELCOME = "[seed-002] Маньяк: ваша роль"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    table.run(START)
    yield table
    table.close()


def lines(mail: EmailMessage) -> list[str]:
    """The lines of a mail's text after the line naming its game (asserted)."""
    return named_body(mail, GAME).splitlines()


def section(mail: EmailMessage, line: str) -> list[str]:
    """The reply lines answering the command ``line``: from ``> line`` to the next blank,
    without the ``Понял: …`` line (tests/test_real_mail.py checks that one)."""
    text = lines(mail)
    start = text.index(f"> {line}")
    end = text.index("", start)
    return [s for s in text[start + 1 : end] if not s.startswith(("Понял: ", "Understood: "))]


def pbp_post(table: ManiacTable, *args: str) -> str:
    """``pbp post seed-002 ARGS…`` on the table's games.yaml: the printed post."""
    result = CliRunner().invoke(main, ["-c", str(table.path), "post", GAME, *args])
    assert result.exit_code == 0, result.output
    return result.output


TIE_COUNT = (
    "- [b]Таня[/b] (2): Петя, Вася\n"
    "- [b]Петя[/b] (2): Таня, Оля\n"
    "\n"
    "Не проголосовали: Саша, Маша, Коля, Дима, Лена, Катя.\n"
)
EVENING_1 = (
    "[b]Вечер дня 1: итоги голосования[/b]\n"
    "\n" + TIE_COUNT + "\n"
    "Ничья — по 2 голоса: Таня, Петя. По правилу ничьей уходит тот, за кого раньше подан "
    "голос, так и не изменённый до конца дня: это голос Пети за Таню.\n"
    "\n"
    "[b]В камеру отправляется Таня.[/b]\n"
    "\n"
    "[b]Наступает ночь 1.[/b]\n"
)
#: The morning after night 1 when nobody died and Таня spent the night in the cell.
MORNING_1 = (
    "[b]Утро дня 2[/b]\n"
    "\n"
    "Этой ночью никто не погиб.\n"
    "\n"
    "Таня выходит из камеры.\n"
    "\n"
    "В игре (живы и на свободе): Вася, Петя, Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.\n"
    "\n"
    "[b]День 2 открыт: голосуйте, кто проведёт ночь 2 в камере.[/b]\n"
)


# --- M1: the roles ------------------------------------------------------------------------


def test_M1_each_player_learns_his_role_and_the_maniac_and_fan_each_others_name(
    tmp_path: Path,
) -> None:
    table = ManiacTable(tmp_path)
    table.run(START)
    start = table.new_mail()

    assert summary(start) == [
        *((EMAILS[p], WELCOME) for p in PLAYERS),
        (GM, "[seed-002] Лист ГМа: роли"),
        *posted("[seed-002] Первый пост игры (день 1)"),
    ]
    welcome = {p: lines(start[i]) for i, p in enumerate(PLAYERS)}

    def role_block(player: str) -> list[str]:
        text = welcome[player]
        return text[text.index(f"Здравствуйте, {player}!") + 4 : text.index("Игроки:") - 1]

    assert role_block("Коля") == [
        "Ваша роль: МАНЬЯК.",
        "Ваш фанат — Лена: ваш союзник, который знает, кто вы. Фанат не может убивать "
        "и помогает вам только голосованием.",
        "Вы заказываете убийства письмом: на ночи 1 и 2 — в день 1 или в ночь 1, и оба "
        "заказа можно менять до конца ночи 1; дальше в каждый день — на ночь со следующим "
        "номером (в день 2 — на ночь 3, в день 3 — на ночь 4 и т. д.), и такой заказ можно "
        "менять до закрытия этого дня. "
        "Без заказа ночь пройдёт без убийства (это промах, а не пропуск).",
        "Пропустить выстрел можно 3 раза за игру, но не две ночи подряд.",
        "Пока дежурный жив и сам не сидит, того, кто в камере, убить нельзя. Если в камере "
        "вы сами, заказ на эту ночь не исполняется (пропуск при этом не тратится).",
        "Вы побеждаете, когда на свободе остаётся не больше одного игрока города (если фанат "
        "мёртв или в тюрьме) или не больше двух (если фанат жив и на свободе); город — это "
        "мирные жители и дежурный. Если вас отправят в тюрьму, вы проиграете.",
        "Ваши роли знаете только вы двое и ГМ. Роли откроются в конце игры.",
    ]
    assert role_block("Лена") == [
        "Ваша роль: ФАНАТ.",
        "Маньяк — Коля. Вы играете на стороне маньяка, и маньяк знает, кто вы. "
        "Убивать вы не можете — помогайте голосованием.",
        "Если вас отправят в камеру или в тюрьму, вы умрёте в ту же ночь.",
        "Команда маньяка побеждает, когда на свободе остаётся не больше двух игроков города "
        "(мирные жители и дежурный), пока вы живы и на свободе, или не больше одного, если "
        "вы мертвы или в тюрьме.",
        "Ваши роли знаете только вы двое и ГМ. Роли откроются в конце игры.",
    ]
    assert role_block("Дима") == [
        "Ваша роль: ДЕЖУРНЫЙ.",
        "Вы играете за город (мирные жители и дежурный). Пока вы живы и сами не сидите в "
        "камере или тюрьме, маньяк не может убить того, кто сидит в камере. О покушениях "
        "вам не сообщают.",
        "Город побеждает, когда маньяк отправлен в тюрьму.",
        "Вашу роль знаете только вы и ГМ. Роли откроются в конце игры.",
    ]
    assert role_block("Вася") == [
        "Ваша роль: МИРНЫЙ ЖИТЕЛЬ.",
        "Вы играете за город (мирные жители и дежурный): найдите маньяка и отправьте его в "
        "тюрьму — тогда город победит.",
        "Вашу роль знаете только вы и ГМ. Роли откроются в конце игры.",
    ]
    # Outside the list of players and the help's examples (the last seats but the
    # reader's, whatever their roles), only the maniac's mail names the fan and only the
    # fan's names the maniac.
    for player in PLAYERS:
        others = {"Коля": ["Лена"], "Лена": ["Коля"]}.get(player, ["Коля", "Лена"])
        named = [
            x
            for x in welcome[player]
            if any(o in x for o in others) and not x.startswith(("  - ", "    "))
        ]
        assert len(named) == (1 if player in ("Коля", "Лена") else 0), (player, named)
    vasya = welcome["Вася"]
    assert f"Ваш личный адрес для ходов: gm+{table.token('Вася')}@example.test" in vasya
    assert (
        "День закрывается в 22:00 по Москве, ночь заканчивается в 10:00 по Москве. Голос или "
        "заказ относится к тому дню, в который пришло письмо." in vasya
    )
    assert "    ГОЛОС за Катю" in vasya  # the help, with this game's players
    assert "УБИТЬ <игрок> [НОЧЬ n] — заказ на убийство (принимается только от маньяка)" in vasya

    sheet = lines(start[10])
    assert sheet[sheet.index("Роли:") + 1 : sheet.index("Роли:") + 11] == [
        f"  - {p}: {role}"
        for p, role in zip(
            PLAYERS,
            [
                "мирный житель",
                "мирный житель",
                "мирная жительница",
                "мирная жительница",
                "мирный житель",
                "мирная жительница",
                "маньяк",
                "дежурный",
                "фанат",
                "мирная жительница",
            ],
            strict=True,
        )
    ]
    opening = bbcode(start[11])
    assert opening.startswith(
        "[b]Маньяк «seed-002»: день 1 открыт[/b]\n\n[b]Игроки[/b]\n- Вася\n- Петя\n- Таня\n"
    )
    assert "В игре один маньяк, один дежурный, один фанат, остальные — мирные жители." in opening
    sha = re.search(r"SHA-256: ([0-9a-f]{64})", opening)
    assert sha is not None
    canonical = sheet[sheet.index("Строка раздачи (будет опубликована в конце игры):") + 1]
    assert commitment(canonical.strip()) == sha.group(1)
    assert (
        "  - Роли: Вася — мирный житель, Петя — мирный житель, Таня — мирная жительница, Оля — "
        "мирная жительница, Саша — мирный житель, Маша — мирная жительница, Коля — маньяк, Дима — "
        "дежурный, Лена — фанат, Катя — мирная жительница" in lines(start[12])
    )
    table.close()


# --- M9, M10: votes -------------------------------------------------------------------------


def test_M10_seed_tie_sends_tanya_to_the_cell_not_petya(table: ManiacTable) -> None:
    table.new_mail()
    moves = seed_tie(table)

    first = moves[0]
    assert summary(first) == [(EMAILS["Вася"], RE)]  # no vote_count_mail: no GM mail
    assert lines(first[0]) == [
        "Вася, вот что сделано по вашему письму.",
        "",
        "Выполнено:",
        "",
        "> ГОЛОС за Петю",
        "Понял: ГОЛОС за Петю",
        "Принято: ваш голос — за Петю. Сегодня это ваш 1-й голос за этого игрока.",
        "",
        "Для форума (скопируйте в тред игры):",
        "",
        "[b]Голосую за Петю[/b]",
        "",
        "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.",
    ]
    assert "[b]Голосую за Таню[/b]" in lines(moves[2][0])
    assert section(moves[4][0], "Голосую за Петю")[0] == (
        "Принято: ваш голос — за Петю. Сегодня это ваш 1-й голос за этого игрока."
    )

    # During the day `pbp post` prints the count so far (the usual forum form).
    assert pbp_post(table) == (
        "[b]День 1: голоса на данный момент (день ещё идёт)[/b]\n\n" + TIE_COUNT
    )

    mails = table.at(close(1))
    # M3: the close of day 1 fixes no order, so no GM-only facts and no mail to the maniac
    assert summary(mails) == posted("[seed-002] Вечер дня 1: итоги голосования", private=False)
    assert bbcode(mails[0]) == EVENING_1
    # After the close `pbp post` prints the day's result.
    assert pbp_post(table, "--day", "1") == EVENING_1.replace(
        "[b]Вечер дня 1: итоги голосования[/b]", "[b]День 1: итоги голосования[/b]"
    ).replace("\n\n[b]Наступает ночь 1.[/b]\n", "\n")


def pbp_show(table: ManiacTable) -> list[str]:
    """``pbp show seed-002``: the printed lines."""
    result = CliRunner().invoke(main, ["-c", str(table.path), "show", GAME])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_P1_a_voided_vote_leaves_the_live_count_and_the_evening_at_once(
    table: ManiacTable,
) -> None:
    """Rule P1 (issue 16): the GM voids Вася's vote for Таня in seed 002's tie, so his
    vote for Петя stands again (M9). The live count of ``pbp post``, ``pbp show`` and
    the evening post at the close agree at once: Петя leads 3 to 1 and goes to the cell.
    (The day post used to recount the votes in Jinja, blind to ``vote_voided``: it kept
    the tie "Таня (2): Петя, Вася", Таня first, while the evening sent Петя.)"""
    table.new_mail()
    seed_tie(table)
    seq = next(
        s.seq
        for s in table.store.events(GAME)
        if s.event.kind == "vote_cast" and s.event.data["target"] == "Таня"
        if s.event.data["voter"] == "Вася"
    )
    table.now = utc(2026, 12, 1, 11)
    table.service.gm.void(GAME, seq, now=table.now, via="cli", note=None)
    table.at(utc(2026, 12, 1, 11, 1))  # the GM's announcement of the void goes out

    count = (
        "- [b]Петя[/b] (3): Вася, Таня, Оля\n"
        "- [b]Таня[/b] (1): Петя\n"
        "\n"
        "Не проголосовали: Саша, Маша, Коля, Дима, Лена, Катя.\n"
    )
    assert pbp_post(table) == ("[b]День 1: голоса на данный момент (день ещё идёт)[/b]\n\n" + count)
    show = pbp_show(table)
    votes = show.index("Votes of day 1:")
    assert show[votes : votes + 5] == [
        "Votes of day 1:",
        "- Петя (3): Вася, Таня, Оля",
        "- Таня (1): Петя",
        "",
        "Not voted: Саша, Маша, Коля, Дима, Лена, Катя.",
    ]

    mails = table.at(close(1))
    evening = (
        "[b]Вечер дня 1: итоги голосования[/b]\n"
        "\n" + count + "\n"
        "[b]В камеру отправляется Петя.[/b]\n"
        "\n"
        "[b]Наступает ночь 1.[/b]\n"
    )
    assert bbcode(mails[0]) == evening
    assert pbp_post(table, "--which", "evening", "--day", "1") == evening
    assert pbp_post(table, "--day", "1") == (
        "[b]День 1: итоги голосования[/b]\n\n" + count + "\n[b]В камеру отправляется Петя.[/b]\n"
    )


def test_M9_seed_vote_limit_a_third_cast_on_the_same_player_is_refused(
    table: ManiacTable,
) -> None:
    table.new_mail()
    mails = table.move(
        "Вася",
        "ГОЛОС Петя",
        "ГОЛОС Таня",
        "ГОЛОС Петя",
        "ГОЛОС Саша",
        "ГОЛОС Петя",
        at=utc(2026, 12, 1, 10),
    )

    assert summary(mails) == [(EMAILS["Вася"], RE)]
    text = body(mails[0])
    assert text.count("Принято: ваш голос") == 4
    assert "Принято: ваш голос — за Петю. Сегодня это ваш 2-й голос за этого игрока." in text
    assert text.endswith(
        "Не выполнено:\n"
        "\n"
        "> ГОЛОС Петя\n"
        "Понял: ГОЛОС за Петю\n"
        "За Петю в день 1 вы уже голосовали максимальное число раз (2): "
        "больше за одного игрока в один день нельзя (голоса за камеру и за тюрьму считаются "
        "вместе). Проголосуйте за другого игрока или снимите голос: СНЯТЬ ГОЛОС.\n"
        "\n"
        "Исправьте невыполненные строки и пришлите их снова ответом на это письмо.\n"
        "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.\n"
    )
    # His last vote (Саша) stands; withdrawing is not a cast.
    mails = table.move("Вася", "СНЯТЬ ГОЛОС", "СТАТУС", at=utc(2026, 12, 1, 10, 5))
    assert section(mails[0], "СНЯТЬ ГОЛОС") == ["Принято: ваш голос за Сашу снят."]
    assert "[b]Снимаю голос с Саши[/b]" in lines(mails[0])
    assert (
        "Сколько раз сегодня вы ещё можете голосовать за каждого: Петя — 0, Таня — 1, Оля — 2, "
        "Саша — 1, Маша — 2, Коля — 2, Дима — 2, Лена — 2, Катя — 2." in lines(mails[0])
    )
    assert "Вы сегодня ещё не голосовали." in lines(mails[0])


def test_vote_count_mail_sends_the_gm_the_count_after_every_change(tmp_path: Path) -> None:
    table = ManiacTable(tmp_path, extra="vote_count_mail: true\n")
    table.run(START)
    table.new_mail()

    mails = table.move("Вася", "ГОЛОС за Петю", at=utc(2026, 12, 1, 10))
    assert summary(mails) == [(EMAILS["Вася"], RE), (GM, "[seed-002] Голоса дня 1")]
    assert lines(mails[1]) == [
        "День 1: голоса на данный момент",
        "",
        "- Петя (1): Вася",
        "",
        "Не проголосовали: Петя, Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.",
    ]
    mails = table.move("Вася", "СНЯТЬ ГОЛОС", at=utc(2026, 12, 1, 10, 5))
    assert summary(mails) == [(EMAILS["Вася"], RE), (GM, "[seed-002] Голоса дня 1")]
    assert lines(mails[1])[2:] == [
        "Голосов нет.",
        "",
        "Не проголосовали: Вася, Петя, Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.",
    ]
    # An order changes no vote: no count.
    mails = table.move("Коля", "ПРОПУСК", at=utc(2026, 12, 1, 10, 10))
    assert summary(mails) == [(EMAILS["Коля"], RE)]
    table.close()


# --- M3, M4: orders -----------------------------------------------------------------------


def test_a_refusal_by_role_is_not_asked_to_be_fixed_and_a_misspelt_name_is(
    table: ManiacTable,
) -> None:
    """Only the maniac orders kills (M3): a fan's УБИТЬ is nothing he can fix, so his
    answer does not ask him to fix the line and send it again; a name nobody has is."""
    table.new_mail()
    (mail,) = table.move("Вася", "УБИТЬ Олю", at=utc(2026, 12, 1, 11))
    assert lines(mail) == [
        "Вася, вот что сделано по вашему письму.",
        "",
        "Не выполнено:",
        "",
        "> УБИТЬ Олю",
        "Понял: УБИТЬ Олю",
        "Заказы на убийство и пропуски (УБИТЬ, ПРОПУСК) делает только маньяк. "
        "Вы можете голосовать: ГОЛОС <игрок>.",
        "",
        "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.",
    ]
    (mail,) = table.move("Вася", "УБИТЬ Олю", "ГОЛОС Зина", at=utc(2026, 12, 1, 11, 5))
    assert lines(mail)[-6:] == [
        "> ГОЛОС Зина",
        "Неизвестный игрок «Зина».",
        "Игроки: Вася, Петя, Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.",
        "",
        "Исправьте невыполненные строки и пришлите их снова ответом на это письмо.",
        "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.",
    ]


def test_M3_orders_with_and_without_a_night_and_skips_only_from_the_maniac(
    table: ManiacTable,
) -> None:
    table.new_mail()
    mails = table.move("Коля", "УБИТЬ Сашу", "ПРОПУСК", "УБИТЬ Олю НОЧЬ 2", at=utc(2026, 12, 1, 11))

    assert summary(mails) == [(EMAILS["Коля"], RE)]
    assert lines(mails[0])[2:] == [
        "Выполнено:",
        "",
        "> УБИТЬ Сашу",
        "Понял: УБИТЬ Сашу",
        "Принято: заказ на ночь 1 — убить Сашу. Его можно изменить до конца ночи 1 — "
        "до 2 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ — в тред его "
        "не пишите.",
        "",
        "> ПРОПУСК",
        "Понял: ПРОПУСК",
        "Принято: заказ на ночь 2 — пропуск. Его можно изменить до конца ночи 1 — до "
        "2 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ — в тред его не "
        "пишите.",
        "",
        "> УБИТЬ Олю НОЧЬ 2",
        "Понял: УБИТЬ Олю НОЧЬ 2",
        "Принято: заказ на ночь 2 изменён, теперь — убить Олю. Его можно изменить до "
        "конца ночи 1 — до 2 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ "
        "— в тред его не пишите.",
        "",
        "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.",
    ]  # an order is never public: no forum snippet

    refusal = (
        "Заказы на убийство и пропуски (УБИТЬ, ПРОПУСК) делает только маньяк. "
        "Вы можете голосовать: ГОЛОС <игрок>."
    )
    for player, line in (("Вася", "УБИТЬ Таню"), ("Лена", "ПРОПУСК НОЧЬ 2")):
        mails = table.move(player, line, at=utc(2026, 12, 1, 12))
        assert summary(mails) == [(EMAILS[player], RE)]
        assert section(mails[0], line) == [refusal]

    mails = table.move("Коля", "СТАТУС", at=utc(2026, 12, 1, 13))
    status = lines(mails[0])
    assert status[status.index("Ваши заказы:") :] == [
        "Ваши заказы:",
        "  - ночь 1: убить Сашу (можно изменить до конца ночи 1)",
        "  - ночь 2: убить Олю (можно изменить до конца ночи 1)",
        "Сейчас можно заказать или изменить: ночи 1 и 2.",
        "Пропусков осталось: 3.",
        "Двойное убийство: недоступно (меньше 12 игроков).",
        "",
        "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.",
    ]

    # M3: the close of day 1 fixes neither order (they may change until night 1 ends).
    mails = table.at(close(1))
    assert summary(mails) == posted("[seed-002] Вечер дня 1: итоги голосования", private=False)
    # Nobody voted: nobody goes to the cell (M10).
    assert bbcode(mails[0]).endswith(
        "Голосов нет.\n\n"
        "Не проголосовали: Вася, Петя, Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.\n\n"
        "[b]Голосов не было: никто не отправляется в камеру.[/b]\n\n"
        "[b]Наступает ночь 1.[/b]\n"
    )

    # Night 1: Саша dies; the dead player is told, the morning names him only (M8).
    # The end of night 1 fixes the order for night 2: the maniac is told, the GM sees it
    # beside the post (M3).
    mails = table.at(dawn(1))
    assert summary(mails) == [
        *posted("[seed-002] Утро после ночи 1"),
        (EMAILS["Коля"], "[seed-002] Заказ на ночь 2 зафиксирован"),
        (GM, "[seed-002] Ночь 1: как она прошла"),
        (EMAILS["Саша"], "[seed-002] Вас убили в ночь 1"),
    ]
    assert gm_facts(mails[1]) == (
        "Только для ГМа:\n"
        "  - Заказ маньяка на ночь 2 зафиксирован: убить Олю\n"
        "  - Ночь 1: Саша погибает\n"
    )
    assert lines(mails[2]) == [
        "Коля, ночь 1 закончилась, и ваш заказ на ночь 2 изменить уже нельзя.",
        "Заказ: убить Олю.",
    ]
    assert bbcode(mails[0]).startswith(
        "[b]Утро дня 2[/b]\n\nЖертва этой ночи — [b]Саша[/b].\n\n"
        "В игре (живы и на свободе): Вася, Петя, Таня, Оля, Маша, Коля, Дима, Лена, Катя.\n"
    )
    assert lines(mails[4])[0] == (
        "Саша, этой ночью (ночь 1) вас убили. В утреннем посте назовут только ваше имя, без роли."
    )
    # M8: the dead take no further part.
    mails = table.move("Саша", "ГОЛОС Петя", at=utc(2026, 12, 2, 8))
    assert section(mails[0], "ГОЛОС Петя")[0].startswith(
        "Вы убиты (Саша): убитые больше не участвуют в игре"
    )

    # M3 timeline: on day 2 an order without a night is for night 3.
    mails = table.move("Коля", "УБИТЬ Таню", at=utc(2026, 12, 2, 9))
    assert section(mails[0], "УБИТЬ Таню") == [
        "Принято: заказ на ночь 3 — убить Таню. Его можно изменить до закрытия дня 2 — до "
        "2 декабря 2026 г., 22:00 по Москве. Заказ видите только вы и ГМ — в тред его не "
        "пишите."
    ]


def test_M3_orders_for_nights_1_and_2_may_be_given_during_night_1_by_mail(
    tmp_path: Path,
) -> None:
    """M3 "в первый игровой день (или ночь)": mails arriving during night 1 place and
    change the orders for nights 1 and 2; the reminder before night 1 ends names the
    night still without an order; the end of night 1 fixes them."""
    table = ManiacTable(tmp_path, extra="remind_hours_before: 2\n")
    table.run(START)
    table.new_mail()
    assert summary(table.at(close(1))) == posted(
        "[seed-002] Вечер дня 1: итоги голосования", private=False
    )  # no order yet, and nothing fixed at this close

    mails = table.move("Коля", "УБИТЬ Сашу", at=utc(2026, 12, 1, 21))  # 00:00 in Moscow
    assert summary(mails) == [(EMAILS["Коля"], RE)]
    assert section(mails[0], "УБИТЬ Сашу") == [
        "Принято: заказ на ночь 1 — убить Сашу. Его можно изменить до конца ночи 1 — до "
        "2 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ — в тред его не "
        "пишите."
    ]

    mails = table.at(utc(2026, 12, 2, 5))  # two hours before night 1 ends
    subject = "[seed-002] Напоминание: ночь 1 заканчивается 2 декабря 2026 г., 10:00 по Москве"
    assert summary(mails) == [(EMAILS["Коля"], subject)]  # nobody votes at night
    assert lines(mails[0]) == [
        "Коля, ночь 1 заканчивается 2 декабря 2026 г., 10:00 по Москве.",
        "",
        "- Нет заказа на ночь 2: УБИТЬ <игрок> НОЧЬ 2 или ПРОПУСК НОЧЬ 2. Ночь без заказа "
        "пройдёт без убийства, и это промах, а не пропуск.",
    ]

    mails = table.move("Коля", "УБИТЬ Олю НОЧЬ 2", "УБИТЬ Машу НОЧЬ 1", at=utc(2026, 12, 2, 6))
    assert section(mails[0], "УБИТЬ Олю НОЧЬ 2") == [
        "Принято: заказ на ночь 2 — убить Олю. Его можно изменить до конца ночи 1 — до "
        "2 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ — в тред его не "
        "пишите."
    ]
    assert section(mails[0], "УБИТЬ Машу НОЧЬ 1") == [
        "Принято: заказ на ночь 1 изменён, теперь — убить Машу. Его можно изменить до "
        "конца ночи 1 — до 2 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ "
        "— в тред его не пишите."
    ]

    mails = table.at(dawn(1))
    assert summary(mails) == [
        *posted("[seed-002] Утро после ночи 1"),
        (EMAILS["Коля"], "[seed-002] Заказ на ночь 2 зафиксирован"),
        (GM, "[seed-002] Ночь 1: как она прошла"),
        (EMAILS["Маша"], "[seed-002] Вас убили в ночь 1"),
    ]
    assert "Этой ночью убита [b]Маша[/b]." in bbcode(mails[0])
    assert lines(mails[2]) == [
        "Коля, ночь 1 закончилась, и ваш заказ на ночь 2 изменить уже нельзя.",
        "Заказ: убить Олю.",
    ]

    mails = table.move("Коля", "УБИТЬ Таню НОЧЬ 2", at=utc(2026, 12, 2, 8))
    assert section(mails[0], "УБИТЬ Таню НОЧЬ 2") == [
        "Заказ на ночь 2 сейчас нельзя сделать или изменить. Заказы на ночи 1 "
        "и 2 делают в день 1 или в ночь 1 и могут менять, пока ночь 1 не закончится; "
        "дальше в каждый день заказывают ночь со следующим номером (в день 2 — ночь 3 и т. "
        "д.), и этот заказ можно менять до закрытия дня. Сейчас открыта ночь 3, например: "
        "УБИТЬ <игрок> НОЧЬ 3."
    ]
    table.close()


def _maniac_states() -> dict[str, engine.ManiacState]:
    """Day 1, night 1 and day 2 of a game dealt by ``ROLES`` with no move made."""
    setup = engine.ManiacSetup(GAME, tuple((p, None) for p in PLAYERS), roles=ROLES)
    day_1: engine.ManiacState = engine.start(setup, 7, bytes(32), START).state
    night_1 = engine.close_day(day_1, START + timedelta(hours=1)).state
    day_2 = engine.end_night(night_1, START + timedelta(hours=2)).state
    return {"day 1": day_1, "night 1": night_1, "day 2": day_2}


@pytest.mark.parametrize(
    ("locale", "line"),
    [
        ("ru", "Идёт ночь 1; день 2 откроется утром."),
        ("en", "It is night 1; day 2 opens in the morning."),
    ],
)
def test_M2_status_at_night_names_the_day_that_follows(locale: str, line: str) -> None:
    """M2: night d is followed by day d + 1, the status's ``next_day``."""
    status = engine.status(_maniac_states()["night 1"], "Вася")
    assert (status["day"], status["next_day"]) == (1, 2)
    _s, text = Renderer(TEMPLATES, kinds=KINDS).private_mail(
        "maniac/status", locale=locale, game=GAME, player="Вася", status=status
    )
    assert line in text.splitlines()


@pytest.mark.parametrize(
    ("when", "locale", "line"),
    [
        (
            "day 1",
            "en",
            "- No order for nights 1 and 2: KILL <player> NIGHT 1 or SKIP NIGHT 1. These orders "
            "may be given and changed until night 1 ends. A night without an order passes "
            "without a kill: a miss, not a skip.",
        ),
        (
            "day 1",
            "ru",
            "- Нет заказа на ночи 1 и 2: УБИТЬ <игрок> НОЧЬ 1 или ПРОПУСК НОЧЬ 1. Эти заказы "
            "можно сделать и изменить до конца ночи 1. Ночь без заказа пройдёт без убийства, "
            "и это промах, а не пропуск.",
        ),
        (
            "night 1",
            "en",
            "- No order for nights 1 and 2: KILL <player> NIGHT 1 or SKIP NIGHT 1. A night "
            "without an order passes without a kill: a miss, not a skip.",
        ),
        (
            "day 2",
            "ru",
            "- Нет заказа на ночь 3: УБИТЬ <игрок> НОЧЬ 3 или ПРОПУСК НОЧЬ 3. Ночь без заказа "
            "пройдёт без убийства, и это промах, а не пропуск.",
        ),
    ],
)
def test_M3_the_reminder_says_an_order_stays_open_past_the_day_only_on_day_1(
    when: str, locale: str, line: str
) -> None:
    """M3: the orders for nights 1 and 2 stay open past day 1's close, until night 1 ends
    (duties' ``fixed_later``); at the end of night 1 and at a later day's close the
    deadline reminded of is the one that fixes them, and the reminder says no more."""
    state = _maniac_states()[when]
    duties = engine.duties(state, "Коля")
    assert duties is not None
    assert duties["fixed_later"] is (when == "day 1")
    _subject, text = Renderer(TEMPLATES, kinds=KINDS).private_mail(
        "maniac/reminder",
        locale=locale,
        game=GAME,
        player="Коля",
        timezone="Europe/Moscow",
        close_at=START,
        duties=duties,
    )
    assert text.splitlines()[-1] == line


def test_reminder_goes_to_players_without_a_vote_and_to_the_maniac_with_an_order_due(
    tmp_path: Path,
) -> None:
    table = ManiacTable(tmp_path, extra="remind_hours_before: 2\n")
    table.run(START)
    table.new_mail()
    for player in PLAYERS[:6]:
        table.move(player, "ГОЛОС Катю", at=utc(2026, 12, 1, 10))
    table.move("Коля", "УБИТЬ Сашу НОЧЬ 1", at=utc(2026, 12, 1, 11))

    mails = table.at(utc(2026, 12, 1, 17, 30))

    subject = "[seed-002] Напоминание: день 1 закрывается 1 декабря 2026 г., 22:00 по Москве"
    assert summary(mails) == [(EMAILS[p], subject) for p in ("Коля", "Дима", "Лена", "Катя")]
    assert lines(mails[0]) == [
        "Коля, день 1 закрывается 1 декабря 2026 г., 22:00 по Москве.",
        "",
        "- Вы сегодня ещё не голосовали: ГОЛОС <игрок>.",
        "- Нет заказа на ночь 2: УБИТЬ <игрок> НОЧЬ 2 или ПРОПУСК НОЧЬ 2. Этот заказ можно "
        "сделать и изменить до конца ночи 1. Ночь без заказа пройдёт без убийства, и это "
        "промах, а не пропуск.",
    ]
    assert lines(mails[1]) == [
        "Дима, день 1 закрывается 1 декабря 2026 г., 22:00 по Москве.",
        "",
        "- Вы сегодня ещё не голосовали: ГОЛОС <игрок>.",
    ]
    table.close()


# --- M6, M7: the night -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "outcome"),
    [
        (
            "УБИТЬ Таню НОЧЬ 1",
            "Итог: Таня не погибает — в камере под охраной дежурного; никто не погиб.",
        ),
        ("ПРОПУСК НОЧЬ 1", "Итог: пропуск; никто не погиб."),
        (None, "Итог: заказа не было — промах; никто не погиб."),
    ],
    ids=["blocked", "skip", "miss"],
)
def test_M6_a_blocked_cell_kill_gives_the_same_morning_as_a_skip_or_a_miss(
    tmp_path: Path, order: str | None, outcome: str
) -> None:
    table = ManiacTable(tmp_path)
    table.run(START)
    seed_tie(table)  # Таня goes to the cell; Дима, the duty officer, is alive and free
    if order is not None:
        table.move("Коля", order, at=utc(2026, 12, 1, 11))
    table.at(close(1))

    mails = table.at(dawn(1))

    # Only the GM hears of the night; every player sees the same post (M6).
    assert summary(mails) == [
        *posted("[seed-002] Утро после ночи 1"),
        (EMAILS["Коля"], "[seed-002] Заказа на ночь 2 нет"),
        (GM, "[seed-002] Ночь 1: как она прошла"),
    ]
    assert bbcode(mails[0]) == MORNING_1
    assert outcome in lines(mails[3])
    # Дима learns nothing either: his status tells who was in the cell, no attempt.
    mails = table.move("Дима", "СТАТУС", at=utc(2026, 12, 2, 8))
    assert not [x for x in lines(mails[0]) if "покушен" in x or "Таню" in x]
    table.close()


def test_M6_the_maniac_in_the_cell_voids_his_kill(tmp_path: Path) -> None:
    table = ManiacTable(tmp_path)
    table.run(START)
    table.move("Коля", "УБИТЬ Сашу", at=utc(2026, 12, 1, 10))
    table.move("Вася", "ГОЛОС Колю", at=utc(2026, 12, 1, 11))
    table.at(close(1))

    mails = table.at(dawn(1))

    assert summary(mails) == [
        *posted("[seed-002] Утро после ночи 1"),
        (EMAILS["Коля"], "[seed-002] Заказа на ночь 2 нет"),
        (GM, "[seed-002] Ночь 1: как она прошла"),
    ]
    assert bbcode(mails[0]) == MORNING_1.replace("Таня выходит", "Коля выходит")
    assert lines(mails[3])[:5] == [
        "Ночь 1.",
        "Заказ маньяка: убить Сашу.",
        "Маньяк в камере или в тюрьме: да — заказ не исполняется.",
        "Дежурный охраняет камеру: да.",
        "Итог: заказ (убить Сашу) не исполнен — маньяк в камере или в тюрьме; никто не погиб.",
    ]
    table.close()


def test_M7_the_fan_put_in_the_cell_dies_and_is_reported_killed(table: ManiacTable) -> None:
    table.move("Вася", "ГОЛОС Лену", at=utc(2026, 12, 1, 10))
    table.move("Коля", "ПРОПУСК", at=utc(2026, 12, 1, 11))
    table.at(close(1))

    mails = table.at(dawn(1))

    assert summary(mails) == [
        *posted("[seed-002] Утро после ночи 1"),
        (EMAILS["Коля"], "[seed-002] Заказа на ночь 2 нет"),
        (GM, "[seed-002] Ночь 1: как она прошла"),
        (EMAILS["Лена"], "[seed-002] Вас убили в ночь 1"),
    ]
    assert bbcode(mails[0]) == (
        "[b]Утро дня 2[/b]\n"
        "\n"
        "Этой ночью убита [b]Лена[/b].\n"
        "\n"
        "В игре (живы и на свободе): Вася, Петя, Таня, Оля, Саша, Маша, Коля, Дима, Катя.\n"
        "\n"
        "[b]День 2 открыт: голосуйте, кто проведёт ночь 2 в камере.[/b]\n"
    )
    assert "Итог: пропуск; фанат Лена умирает в камере." in lines(mails[3])


# --- M11, M12: prison and the end --------------------------------------------------------


def test_M12_the_town_wins_when_the_maniac_goes_to_prison(table: ManiacTable) -> None:
    opening = bbcode(table.new_mail()[11])
    table.move("Вася", "ГОЛОС Колю", at=utc(2026, 12, 1, 10))
    table.at(close(1))
    table.at(dawn(1))
    table.move("Петя", "ГОЛОС ТЮРЬМА Колю", at=utc(2026, 12, 2, 8))
    table.move("Вася", "ГОЛОС Колю", at=utc(2026, 12, 2, 8, 5))

    mails = table.at(close(2))

    assert summary(mails) == [
        *posted("[seed-002] Вечер дня 2: итоги голосования", private=False),
        *((EMAILS[p], "[seed-002] Игра окончена") for p in PLAYERS),
        *posted("[seed-002] Игра окончена: финальный пост", private=False),
    ]
    assert bbcode(mails[0]) == (
        "[b]Вечер дня 2: итоги голосования[/b]\n"
        "\n"
        "- [b]Коля[/b] (2): Петя (в тюрьму), Вася\n"
        "\n"
        "Не проголосовали: Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.\n"
        "\n"
        "[b]Коля отправляется в тюрьму навсегда[/b]: второй раз подряд в камеру — значит, "
        "в тюрьму.\n"
        "\n"
        "У Коли 1 голос за тюрьму и 1 голос за камеру.\n"  # M11: both counts
        "\n"
        "[b]Игра окончена: итоги — в финальном посте.[/b]\n"
    )
    assert lines(mails[1])[:2] == [
        "Вася, игра «seed-002» окончена: победил город (мирные жители и дежурный).",
        "Вы в команде победителей!",
    ]
    assert lines(mails[7])[1] == "Ваша команда проиграла."  # Коля
    final = bbcode(mails[-1])
    sha = re.search(r"SHA-256: ([0-9a-f]{64})", opening)
    assert sha is not None
    canonical = re.search(r"\[code\](.*)\[/code\]", final)
    assert canonical is not None
    assert commitment(canonical.group(1)) == sha.group(1)
    assert final.startswith(
        "[b]Игра окончена[/b]\n"
        "\n"
        "Победил город (мирные жители и дежурный): маньяк отправлен в тюрьму.\n"
        "\n"
        "Победители: Вася, Петя, Таня, Оля, Саша, Маша, Дима, Катя.\n"
        "\n"
        "[b]Роли[/b]\n"
        "- Вася — [b]мирный житель[/b]\n"
        "- Петя — [b]мирный житель[/b]\n"
        "- Таня — [b]мирная жительница[/b]\n"
        "- Оля — [b]мирная жительница[/b]\n"
        "- Саша — [b]мирный житель[/b]\n"
        "- Маша — [b]мирная жительница[/b]\n"
        "- Коля — [b]маньяк[/b]; в тюрьме со дня 2\n"
        "- Дима — [b]дежурный[/b]\n"
        "- Лена — [b]фанат[/b]\n"
        "- Катя — [b]мирная жительница[/b]\n"
        "\n"
        "[b]Проверка честности раздачи[/b]\n"
    )
    assert f"В первом посте игры был опубликован SHA-256: {sha.group(1)}" in final


@pytest.mark.parametrize(
    ("locale", "prison_vote", "title", "lines_"),
    [
        (
            "ru",
            "ГОЛОС ТЮРЬМА Петю",
            "[seed-002] Вечер дня 3: итоги голосования",
            [
                "[b]Вечер дня 3: итоги голосования[/b]",
                "",
                "- [b]Петя[/b] (6): Вася (в тюрьму), Таня, Оля, Саша, Маша, Катя",
                "",
                "Не проголосовали: Петя, Коля, Дима, Лена.",
                "",
                "[b]В камеру отправляется Петя.[/b]",
                "",
                "У Пети 1 голос за тюрьму и 5 голосов за камеру: в тюрьму отправляют, только "
                "когда голосов за тюрьму больше, чем за камеру.",
                "",
                "[b]Наступает ночь 3.[/b]",
            ],
        ),
        (
            "en",
            "VOTE PRISON Петя",
            "[seed-002] Evening of day 3: the vote",
            [
                "[b]Evening of day 3: the vote[/b]",
                "",
                "- [b]Петя[/b] (6): Вася (prison), Таня, Оля, Саша, Маша, Катя",
                "",
                "Not voted: Петя, Коля, Дима, Лена.",
                "",
                "[b]Петя goes to the cell.[/b]",
                "",
                "Петя has 1 vote for prison and 5 votes for the cell: prison needs more votes "
                "for prison than for the cell.",
                "",
                "[b]Night 3 falls.[/b]",
            ],
        ),
    ],
)
def test_M11_the_evening_post_gives_both_counts_when_prison_votes_were_cast(
    tmp_path: Path, locale: str, prison_vote: str, title: str, lines_: list[str]
) -> None:
    """M11: the chosen player has a prison vote, so the evening post gives his prison
    and cell votes (plural forms: 1 голос, 5 голосов), and players see why he went
    to the cell only."""
    table = ManiacTable(tmp_path, locale=locale)
    table.run(START)
    table.move("Вася", "VOTE Петя", at=utc(2026, 12, 1, 10))
    for when in (close(1), dawn(1), close(2), dawn(2)):
        table.at(when)  # Петя: the cell on night 1, out on night 2
    table.move("Вася", prison_vote, at=utc(2026, 12, 3, 8))
    for voter in ("Таня", "Оля", "Саша", "Маша", "Катя"):
        table.move(voter, "VOTE Петя", at=utc(2026, 12, 3, 9))

    mails = table.at(close(3))

    evening = [m for m in mails if str(m["Subject"]) == f"{title} — BBCode"]
    assert bbcode(evening[0]).splitlines() == lines_
    assert pbp_post(table, "--which", "evening", "--day", "3") == bbcode(evening[0])
    table.close()


# --- hidden information -----------------------------------------------------------------

#: Words that name a role (ru), as stems: any case form matches.
ROLE_WORDS = {
    "maniac": "маньяк",
    "duty_officer": "дежурн",
    "fan": "фанат",
    "civilian": "мирн",
}


def role_leaks(text: str, reader: str | None) -> list[str]:
    """Lines of ``text`` naming another player together with his role word (a role
    leak), or holding the deal line; ``reader``: the player reading (None: the public)."""
    leaks = []
    for line in text.splitlines():
        low = line.lower()
        if '"roles"' in line or "civilian" in line:
            leaks.append(line)
        for player, role in ROLES.items():
            if player != reader and player in line and ROLE_WORDS[role] in low:
                leaks.append(line)
    return leaks


def test_M1_M8_no_role_reaches_a_town_player_or_a_public_post_before_the_game_is_over(
    table: ManiacTable,
) -> None:
    """Hidden information: a whole game (votes, orders, refusals, STATUS, HELP, a kill,
    the fan dying in the cell, a void night) until the town wins."""
    moves = [
        ("Коля", ("УБИТЬ Сашу", "ПРОПУСК НОЧЬ 2", "СТАТУС"), utc(2026, 12, 1, 10)),
        ("Вася", ("ГОЛОС Лену", "УБИТЬ Таню", "СТАТУС", "ПОМОЩЬ"), utc(2026, 12, 1, 11)),
        ("Лена", ("ГОЛОС Васю", "СТАТУС"), utc(2026, 12, 1, 12)),
        ("Дима", ("ГОЛОС Лену", "СТАТУС"), utc(2026, 12, 1, 13)),
        ("Таня", ("ГОЛОС ТЮРЬМА Лену", "СТАТУС"), utc(2026, 12, 1, 14)),
        ("Коля", ("УБИТЬ Олю", "СТАТУС"), utc(2026, 12, 2, 8)),
        ("Вася", ("ГОЛОС Колю", "СТАТУС"), utc(2026, 12, 2, 9)),
        ("Дима", ("СТАТУС",), utc(2026, 12, 3, 8)),
        ("Петя", ("ГОЛОС Колю",), utc(2026, 12, 3, 9)),
    ]
    clock = [close(1), dawn(1), close(2), dawn(2), close(3)]
    mails = table.new_mail()
    for player, commands, at in moves:
        while clock and clock[0] < at:
            mails += table.at(clock.pop(0))
        mails += table.move(player, *commands, at=at)
    mails += table.at(clock.pop(0))
    over = next(i for i, m in enumerate(mails) if m["Subject"] == "[seed-002] Игра окончена")
    before = mails[:over]

    # The game ran as scripted: Лена died in the cell, Оля was killed, Коля imprisoned.
    assert [
        (str(m["To"]), str(m["Subject"])) for m in before if "Вас убили" in str(m["Subject"])
    ] == [(EMAILS[p], "[seed-002] Вас убили в ночь 1") for p in ("Саша", "Лена")]
    assert str(mails[over - 1]["Subject"]) == "[seed-002] Вечер дня 3: итоги голосования — BBCode"
    by_address = {address: name for name, address in EMAILS.items()}
    checked = 0
    for mail in before:
        reader = by_address.get(str(mail["To"]))
        if reader is None:  # the GM: only the posts in it are public
            subject = str(mail["Subject"])
            public = [body(mail)] if subject.endswith((" — BBCode", " — Markdown")) else []
            for text in public:
                assert role_leaks(text, None) == [], mail["Subject"]
                checked += 1
        elif ROLES[reader] not in ("maniac", "fan"):
            assert role_leaks(body(mail), reader) == [], (reader, mail["Subject"])
            checked += 1
    # 6 posts in BBCode (opening, evenings 1–3, mornings 1–2); to the 8 town players:
    # 8 welcomes, 6 replies and Саша's death notice. (The GM's own sheet, night reports
    # and GM-only lines are his to read.)
    assert checked == 21
    # The maniac's and the fan's mails do name each other (M1), and nobody else.
    partners = [
        (by_address[str(m["To"])], line)
        for m in before
        if str(m["To"]) in (EMAILS["Коля"], EMAILS["Лена"])
        for line in role_leaks(body(m), by_address[str(m["To"])])
    ]
    assert {reader for reader, _ in partners} == {"Коля", "Лена"}
    assert all(
        ("Лена" in line) if reader == "Коля" else ("Коля" in line) for reader, line in partners
    )


# --- the GM's tools ----------------------------------------------------------------------


def test_pbp_show_lists_every_role_and_the_orders(table: ManiacTable) -> None:
    table.move("Коля", "УБИТЬ Сашу", at=utc(2026, 12, 1, 10))

    result = CliRunner().invoke(main, ["-c", str(table.path), "show", GAME])

    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert out[0] == 'Game "seed-002": day 1.'
    assert out[1] == "The day closes: 2026-12-01 22:00 MSK"
    assert "  - Коля: maniac" in out
    assert "  - Лена: fan" in out
    orders = out.index("The maniac's orders:")
    assert out[orders + 1 : orders + 4] == [
        "  - night 1: kill Саша",
        "Open for orders: nights 1 and 2.",
        "Skips: 0 of 3. Double kill: not available (fewer than 12 players).",
    ]


def _double_kill_line(view: GmView, locale: str) -> str:
    """The double-kill line of ``pbp show`` (templates/<locale>/maniac/mail/gm_show.j2)."""
    _subject, text = Renderer(TEMPLATES, kinds=KINDS).private_mail(
        "maniac/gm_show", locale=locale, game=GAME, view=view
    )
    return next(x for x in text.splitlines() if "Double kill" in x or "Двойное" in x)


def test_show_double_kill_not_available_under_12_players(table: ManiacTable) -> None:
    """M5: with fewer than 12 players the double kill does not exist, so ``pbp show``
    says "not available", never "not used"; from 12 players: not used / night N."""
    result = CliRunner().invoke(main, ["-c", str(table.path), "show", GAME])
    assert result.exit_code == 0, result.output
    assert "Skips: 0 of 3. Double kill: not available (fewer than 12 players)." in (
        result.output.splitlines()
    )

    def started(names: list[str]) -> engine.ManiacState:
        roles = {p: ROLES.get(p, "civilian") for p in names}
        setup = engine.ManiacSetup(GAME, tuple((p, None) for p in names), roles=roles)
        state: engine.ManiacState = engine.start(setup, 7, bytes(32), START).state
        return state

    assert _double_kill_line(engine.gm_view(started(list(PLAYERS))), "ru") == (
        "Пропусков: 0 из 3. Двойное убийство: недоступно (меньше 12 игроков)."
    )
    big = started([*PLAYERS, "Гоша", "Ира"])
    assert _double_kill_line(engine.gm_view(big), "en") == "Skips: 0 of 4. Double kill: not used."
    ordered = engine.apply(big, "Коля", engine.Kill(("Вася", "Петя"), 2), START).state
    assert (
        _double_kill_line(engine.gm_view(ordered), "en") == "Skips: 0 of 4. Double kill: night 2."
    )
    assert _double_kill_line(engine.gm_view(ordered), "ru") == (
        "Пропусков: 0 из 4. Двойное убийство: ночь 2."
    )


def _own_double_kill(state: engine.ManiacState, locale: str) -> str:
    """The double kill's line of the maniac's (Коля's) STATUS (M5)."""
    _s, text = Renderer(TEMPLATES, kinds=KINDS).private_mail(
        "maniac/status",
        locale=locale,
        game=GAME,
        player="Коля",
        status=engine.status(state, "Коля"),
        timezone="Europe/Moscow",
    )
    (line,) = [x for x in text.splitlines() if x.startswith(("Double kill", "Двойное убийство"))]
    return line


def test_M5_status_tells_the_double_kill_booked_fixed_used_and_voided() -> None:
    """M5 (with M3, M6): the maniac's STATUS says where his one double kill stands —
    available; booked for a night and until when it may be changed; fixed; used once
    its night has passed; and, when the cell voided it, available again (not used
    up) — never a bare «недоступно» once it is booked."""
    names = [*PLAYERS, "Гоша", "Ира"]
    setup = engine.ManiacSetup(
        GAME, tuple((p, None) for p in names), roles={p: ROLES.get(p, "civilian") for p in names}
    )
    clock = iter(START + timedelta(minutes=m) for m in range(1, 100))
    state: engine.ManiacState = engine.start(setup, 7, bytes(32), START).state
    seen: dict[str, engine.ManiacState] = {"available": state}
    state = engine.apply(state, "Коля", engine.Kill(("Вася", "Петя"), 1), next(clock)).state
    seen["booked on day 1"] = state
    state = engine.apply(state, "Вася", engine.Vote("Коля"), next(clock)).state
    state = engine.close_day(state, next(clock)).state
    state = engine.end_night(state, next(clock)).state  # Коля in the cell: void (M6)
    seen["voided"] = state
    state = engine.apply(state, "Коля", engine.Kill(("Таня", "Оля")), next(clock)).state
    seen["booked on day 2"] = state
    state = engine.close_day(state, next(clock)).state
    seen["fixed"] = state
    state = engine.end_night(state, next(clock)).state
    state = engine.close_day(state, next(clock)).state
    state = engine.end_night(state, next(clock)).state  # night 3: Таня and Оля die
    seen["used"] = state
    expected = {
        "available": (
            "Двойное убийство: доступно (один раз за игру).",
            "Double kill: available (once per game).",
        ),
        "booked on day 1": (
            "Двойное убийство: заказано на ночь 1; заказ можно изменить до конца ночи 1.",
            "Double kill: ordered for night 1; the order may be changed until night 1 ends.",
        ),
        "voided": (
            "Двойное убийство: снова доступно (один раз за игру) — заказ на ночь 1 "
            "не исполнен, потому что вы были в камере, и не считается использованным.",
            "Double kill: available again (once per game): the one ordered for night 1 was "
            "void, as you were in the cell, and is not used up.",
        ),
        "booked on day 2": (
            "Двойное убийство: заказано на ночь 3; заказ можно изменить до закрытия дня 2.",
            "Double kill: ordered for night 3; the order may be changed until day 2 closes.",
        ),
        "fixed": (
            "Двойное убийство: заказано на ночь 3; заказ уже не изменить.",
            "Double kill: ordered for night 3; the order is fixed.",
        ),
        "used": (
            "Двойное убийство: использовано в ночь 3.",
            "Double kill: used on night 3.",
        ),
    }
    assert {k: (_own_double_kill(s, "ru"), _own_double_kill(s, "en")) for k, s in seen.items()} == (
        expected
    )


def test_M3_the_open_nights_are_one_or_several_by_their_count() -> None:
    """M3: ``pbp show`` and the maniac's STATUS name the nights open for orders: one
    night (day 2: night 3) or several joined by "and" (day 1: nights 1 and 2), the
    plural chosen by ngettext on their count."""
    day_1, day_2 = _maniac_states()["day 1"], _maniac_states()["day 2"]

    def shown(state: engine.ManiacState, locale: str) -> tuple[str, str]:
        renderer = Renderer(TEMPLATES, kinds=KINDS)
        _s, show = renderer.private_mail(
            "maniac/gm_show", locale=locale, game=GAME, view=engine.gm_view(state)
        )
        _s, status = renderer.private_mail(
            "maniac/status",
            locale=locale,
            game=GAME,
            player="Коля",
            status=engine.status(state, "Коля"),
            timezone="Europe/Moscow",
        )
        words = ("Open for orders", "для заказа", "можно заказать")
        (gm,) = [x for x in show.splitlines() if any(w in x for w in words)]
        (own,) = [x for x in status.splitlines() if any(w in x for w in words)]
        return gm, own

    assert shown(day_1, "en") == (
        "Open for orders: nights 1 and 2.",
        "Open for orders now: nights 1 and 2.",
    )
    assert shown(day_2, "en") == ("Open for orders: night 3.", "Open for orders now: night 3.")
    assert shown(day_1, "ru") == (
        "Открыты для заказа: ночи 1 и 2.",
        "Сейчас можно заказать или изменить: ночи 1 и 2.",
    )
    assert shown(day_2, "ru") == (
        "Открыта для заказа: ночь 3.",
        "Сейчас можно заказать или изменить: ночь 3.",
    )


def test_M3_during_night_1_pbp_show_and_status_list_nights_1_and_2_only(
    table: ManiacTable,
) -> None:
    """M3: night 3 is ordered from day 2 on, so during night 1 ``pbp show`` and the
    maniac's STATUS list nights 1 and 2 as open, and an order for night 3 is refused
    with the open nights; during night 2 nothing is open, and ``KILL`` says when the
    next order is given. One rule (``engine.open_nights``) for all of them."""
    table.at(close(1))
    result = CliRunner().invoke(main, ["-c", str(table.path), "show", GAME])
    assert result.exit_code == 0, result.output
    assert "Open for orders: nights 1 and 2." in result.output.splitlines()
    assert "night 3" not in result.output
    mails = table.move("Коля", "СТАТУС", "УБИТЬ Олю НОЧЬ 3", at=utc(2026, 12, 1, 20))
    text = lines(mails[0])
    assert "Сейчас можно заказать или изменить: ночи 1 и 2." in text
    assert section(mails[0], "УБИТЬ Олю НОЧЬ 3") == [
        "Заказ на ночь 3 сейчас нельзя сделать или изменить. Заказы на ночи 1 и 2 делают в "
        "день 1 или в ночь 1 и могут менять, пока ночь 1 не закончится; дальше в каждый "
        "день заказывают ночь со следующим номером (в день 2 — ночь 3 и т. д.), и этот заказ "
        "можно менять до закрытия дня. Сейчас "
        "открыты ночи 1 и 2, например: УБИТЬ <игрок> НОЧЬ 1."
    ]
    table.at(dawn(1))
    table.at(close(2))
    result = CliRunner().invoke(main, ["-c", str(table.path), "show", GAME])
    assert "Open for orders" not in result.output
    mails = table.move("Коля", "СТАТУС", "УБИТЬ Олю", at=utc(2026, 12, 2, 20))
    assert not [x for x in lines(mails[0]) if x.startswith("Сейчас можно заказать")]
    assert (
        "Сейчас заказы не принимаются: заказ на ночь 4 делают в день 3, с утра и до закрытия дня."
    ) in lines(mails[0])
    assert section(mails[0], "УБИТЬ Олю") == [
        "Сейчас заказы не принимаются: заказ на ночь 4 делают в день 3, с утра и до закрытия дня."
    ]


def test_english_locale_welcome_and_evening(tmp_path: Path) -> None:
    table = ManiacTable(tmp_path, locale="en")
    table.run(START)
    start = table.new_mail()
    assert summary(start)[6] == (EMAILS["Коля"], "[seed-002] Maniac: your role")
    kolya = lines(start[6])
    assert kolya[4:6] == [
        "Your role: MANIAC.",
        "Your fan is Лена: your ally, who knows who you are. The fan cannot kill "
        "and helps you by voting only.",
    ]
    assert lines(start[8])[4:6] == [
        "Your role: FAN.",
        "The maniac is Коля. You play on the maniac's side, and the maniac knows who "
        "you are. You cannot kill — help by voting.",
    ]
    seed_tie(table)

    mails = table.at(close(1))

    assert bbcode(mails[0]) == (
        "[b]Evening of day 1: the vote[/b]\n"
        "\n"
        "- [b]Таня[/b] (2): Петя, Вася\n"
        "- [b]Петя[/b] (2): Таня, Оля\n"
        "\n"
        "Not voted: Саша, Маша, Коля, Дима, Лена, Катя.\n"
        "\n"
        "A tie — 2 votes each: Таня, Петя. By the tie rule, the one whose vote, still standing "
        "at the close, was cast first goes: Петя's vote for Таня.\n"
        "\n"
        "[b]Таня goes to the cell.[/b]\n"
        "\n"
        "[b]Night 1 falls.[/b]\n"
    )
    table.close()


def test_P1_past_posts_print_after_the_end_what_they_printed_at_their_moment(
    table: ManiacTable,
) -> None:
    """Rule P1: the posts of day 1, its evening and the morning of day 2, printed by
    ``pbp post`` when each moment ended, print the same after the game ended on day 2
    (the referees saw the evening end "Игра окончена…" and the morning lose its list
    of players still in the game); only the current day's post grew meanwhile."""
    table.new_mail()
    table.move("Вася", "ГОЛОС Колю", at=utc(2026, 12, 1, 10))
    table.at(close(1))
    at_close = {
        "day": pbp_post(table, "--day", "1"),
        "evening": pbp_post(table, "--which", "evening", "--day", "1"),
    }
    table.at(dawn(1))
    at_dawn = pbp_post(table, "--which", "morning", "--day", "2")
    table.move("Петя", "ГОЛОС ТЮРЬМА Колю", at=utc(2026, 12, 2, 8))
    growing = pbp_post(table, "--day", "2")
    table.move("Вася", "ГОЛОС Колю", at=utc(2026, 12, 2, 8, 5))
    assert pbp_post(table, "--day", "2") != growing  # the current day's post grows
    table.at(close(2))  # the town wins: Коля goes to prison (M12)

    assert at_close["evening"].endswith("[b]Наступает ночь 1.[/b]\n")
    assert pbp_post(table, "--which", "evening", "--day", "1") == at_close["evening"]
    assert pbp_post(table, "--day", "1") == at_close["day"]
    assert pbp_post(table, "--which", "morning", "--day", "2") == at_dawn
    assert "Игра окончена" not in at_dawn + at_close["evening"] + at_close["day"]


# --- the texts of issue 16 (rule P2; items 2, 4, 5): each defect with its corrected text ---

RENDERER = Renderer(TEMPLATES, kinds=KINDS)


def _text(template: str, locale: str, fmt: str = "bbcode", **context: object) -> str:
    """``template`` (a string of the one tree) rendered in ``locale`` and ``fmt``."""
    env = RENDERER._env(locale, fmt)  # type: ignore[arg-type]
    return env.from_string(template).render(context).strip()


def _tie(votes: int) -> dict[str, object]:
    return {
        "to_cell": "Таня",
        "to_prison": None,
        "chosen": "Таня",
        "prison_reason": None,
        "tie": {"tied": ["Петя", "Таня"], "votes": votes, "voter": "Петя"},
        "vote_split": None,
    }


@pytest.mark.parametrize(
    ("votes", "locale", "first"),
    [
        (1, "ru", "Ничья — по одному голосу: Петя, Таня."),
        (2, "ru", "Ничья — по 2 голоса: Петя, Таня."),
        (5, "ru", "Ничья — по 5 голосов: Петя, Таня."),
        (21, "ru", "Ничья — по 21 голосу: Петя, Таня."),
        (1, "en", "A tie — one vote each: Петя, Таня."),
        (2, "en", "A tie — 2 votes each: Петя, Таня."),
    ],
)
def test_P2_the_tie_reads_po_odnomu_golosu(votes: int, locale: str, first: str) -> None:
    """Issue 16: "Ничья — по 1 голос" was the tie's line; «по» takes the dative of one
    (P2's own example) and CLDR's plural of the others."""
    text = _text(
        '{% import "maniac/parts/macros.j2" as m %}{{ m.result(r) }}', locale, r=_tie(votes)
    )
    assert text.split("\n")[0].startswith(first + " ")


def _morning(dead: list[str]) -> list[Event]:
    players = ["Лев", "Мария", "Веталь", "Илья"]
    started = {"players": [{"name": p, "character": None} for p in players]}
    night = {"night": 1, "day": 2, "dead": dead, "released": None}
    return [
        Event("game_started", Visibility.PUBLIC, started),
        Event("night_ended", Visibility.PUBLIC, night),
    ]


@pytest.mark.parametrize(
    ("dead", "genders", "locale", "line"),
    [
        (["Мария"], {}, "ru", "Этой ночью убита [b]Мария[/b]."),
        (["Лев"], {}, "ru", "Этой ночью убит [b]Лев[/b]."),
        (["Веталь"], {"Веталь": "masc"}, "ru", "Этой ночью убит [b]Веталь[/b]."),
        (["Веталь"], {"Веталь": "femn"}, "ru", "Этой ночью убита [b]Веталь[/b]."),
        (["Веталь"], {}, "ru", "Жертва этой ночи — [b]Веталь[/b]."),
        (["Лев", "Мария"], {}, "ru", "Этой ночью убиты игроки: [b]Лев[/b], [b]Мария[/b]."),
        ([], {}, "ru", "Этой ночью никто не погиб."),
        (["Мария"], {}, "en", "Killed last night: [b]Мария[/b]."),
        (["Веталь"], {}, "en", "Killed last night: [b]Веталь[/b]."),
        ([], {}, "en", "Nobody died last night."),
    ],
)
def test_P2_the_morning_death_agrees_with_the_gender_or_needs_none(
    dead: list[str], genders: dict[str, str], locale: str, line: str
) -> None:
    """Issue 16: "Этой ночью убит игрок [b]Мария[/b]" — «убита» for a woman, «убит» for
    a man, and for a name whose gender nobody knows a sentence that needs none («Жертва
    этой ночи — …», as the final post's «жертва ночи 1»; «погиб игрок Мария» would not
    be gender-free, and «маньяк убил» would say who killed, M7). English: last night."""
    text = RENDERER.public_post(
        "morning", _morning(dead), locale=locale, fmt="bbcode", kind="maniac", genders=genders
    )
    assert text.split("\n")[2] == line


def test_M8_the_morning_view_counts_who_is_free_up_to_that_morning() -> None:
    """Issue 16 item 2: who is still in the game is computed once in Python (it was
    worked out in parts/roster.j2), up to that morning only (rule P1)."""
    events = _morning(["Мария"])
    later = Event(
        "night_ended", Visibility.PUBLIC, {"night": 2, "day": 3, "dead": ["Лев"], "released": None}
    )
    assert engine.post_view("morning", [*events, later], 1) == {
        "night": 1,
        "day": 2,
        "dead": ["Мария"],
        "released": None,
        "game_over": False,
        "free": ["Лев", "Веталь", "Илья"],
        "prison": [],
    }


def test_no_maniac_template_works_out_game_logic() -> None:
    """Issue 16 item 2: the Maniac templates lay out what views.py computed; none
    collects into a dict or list while looping (``{% set _ = x.update(…) %}``,
    ``.append``), and parts/roster.j2 is gone."""
    root = TEMPLATES / "maniac"
    assert not (root / "parts" / "roster.j2").exists()
    found = {
        str(path.relative_to(root)): hit
        for path in sorted(root.rglob("*.j2"))
        for hit in re.findall(r"\{%-? set _\w* =|\.update\(|\.append\(", path.read_text())
    }
    assert found == {}


def _commands(casts: int, locale: str) -> str:
    status = {"commands": views.commands_view(["Лев", "Мария", "Илья"], casts, False)}
    return _text('{% include "maniac/parts/commands.j2" %}', locale, "text", status=status)


@pytest.mark.parametrize(
    ("casts", "locale", "limit"),
    [
        (1, "ru", "игрока можно голосовать не больше 1 раза за день (снятие голоса не в счёт)."),
        (2, "ru", "игрока можно голосовать не больше 2 раз за день (снятие голоса не в счёт)."),
        (5, "ru", "игрока можно голосовать не больше 5 раз за день (снятие голоса не в счёт)."),
        (21, "ru", "игрока можно голосовать не больше 21 раза за день (снятие голоса не в счёт)."),
        (1, "en", "for the same player at most once a day (withdrawing does not count)."),
        (2, "en", "for the same player at most 2 times a day (withdrawing does not count)."),
    ],
)
def test_P2_the_vote_limit_is_counted_by_plural(casts: int, locale: str, limit: str) -> None:
    """Issue 16: "at most %(casts)s times a day" / "не больше %(casts)s раз" whatever
    the number; now CLDR's plural in both languages (the help and the opening post)."""
    vote_again = {
        "ru": "Переголосовывать можно сколько угодно; действует последний голос. За одного",
        "en": "You may change your vote any number of times; your last vote stands. You may vote",
    }[locale]
    assert f"  {vote_again} {limit}" in _commands(casts, locale).split("\n")
    events = [
        Event(
            "game_started",
            Visibility.PUBLIC,
            {
                "players": [{"name": "Лев", "character": None}],
                "commitment": "0" * 64,
                "fan": True,
                "skips": 3,
                "double_kill": False,
                "casts_per_target": casts,
            },
        )
    ]
    opening = RENDERER.public_post("opening", events, locale=locale, fmt="bbcode", kind="maniac")
    wanted = {
        ("ru", 1): "за одного игрока — не больше 1 раза за день.",
        ("ru", 2): "за одного игрока — не больше 2 раз за день.",
        ("ru", 5): "за одного игрока — не больше 5 раз за день.",
        ("ru", 21): "за одного игрока — не больше 21 раза за день.",
        ("en", 1): "but at most once a day on the same player.",
        ("en", 2): "but at most 2 times a day on the same player.",
    }[(locale, casts)]
    assert wanted in opening


def test_P2_the_prison_vote_list_follows_a_noun_not_a_bare_preposition(
    table: ManiacTable,
) -> None:
    """Issue 16: "голосовать за: Петя, Таня" — a list after a bare preposition and a
    colon; now «за этого игрока: …» / «за этих игроков: …»."""
    seed_tie(table)  # Таня to the cell on day 1 (M10)
    table.at(close(1))
    table.at(dawn(1))
    reply = table.move("Оля", "СТАТУС", at=utc(2026, 12, 2, 8))
    assert "Сразу в тюрьму можно голосовать за этого игрока: Таня." in lines(reply[0])
    row = table.store.game(GAME)
    assert row is not None
    status = {
        **engine.status(engine.load_state(row.state), "Оля"),
        "prison_vote_for": ["Петя", "Таня"],
    }
    text = _text('{% include "maniac/parts/status.j2" %}', "ru", "text", status=status)
    assert "Сразу в тюрьму можно голосовать за этих игроков: Петя, Таня." in text.split("\n")


def test_HELP_reply_shows_the_games_own_players_and_rules_like_the_welcome(
    table: ManiacTable,
) -> None:
    """Issue 16: the reply to ПОМОЩЬ showed invented names (Петя, Таня) and the double
    kill of a game of 10 (M5: from 12); it shows this game's players and rules, the
    same text as the welcome's command help."""
    welcome = body(next(m for m in table.sent() if str(m["To"]) == EMAILS["Катя"]))
    mails = table.move("Катя", "ПОМОЩЬ", at=utc(2026, 12, 1, 10))
    reply = body(next(m for m in mails if str(m["Subject"]) == "[seed-002] Re: ход"))
    help_part = reply[reply.index("Команды пишите") : reply.index("НОВЫЙ АДРЕС")]
    assert help_part == welcome[welcome.index("Команды пишите") : welcome.index("НОВЫЙ АДРЕС")]
    examples = [line.strip() for line in help_part.split("\n") if line.startswith("    ")]
    # Катя is the last seat: the examples name the last but her (M9: not herself).
    assert examples == [
        "ГОЛОС за Лену",
        "VOTE Лена",
        "ГОЛОС ТЮРЬМА за Лену",
        "VOTE PRISON Лена",
        "UNVOTE",
        "УБИТЬ Лену НОЧЬ 2",
        "KILL Лена NIGHT 2",
        "ПРОПУСК НОЧЬ 3",
        "SKIP NIGHT 3",
    ]


def test_english_texts_without_he_his_and_with_last_night() -> None:
    """Issue 16 item 6: "Each player has been told his role", "an order he mails",
    "put in the cell, he dies", "locked up himself" in the opening post."""
    events = [
        Event(
            "game_started",
            Visibility.PUBLIC,
            {
                "players": [{"name": "Лев", "character": None}],
                "commitment": "0" * 64,
                "fan": True,
                "skips": 3,
                "double_kill": False,
                "casts_per_target": 2,
            },
        )
    ]
    opening = RENDERER.public_post("opening", events, locale="en", fmt="bbcode", kind="maniac")
    assert re.findall(r"\b(?:he|his|him|himself)\b", opening) == []
    assert "The GM has told every player their role in private." in opening
    assert (
        "- The fan plays for the maniac, and they know each other. The fan does not kill, "
        "and a fan put in the cell dies there that night.\n" in opening
    )


def test_P2_pbp_show_tells_a_death_without_a_gendered_word(table: ManiacTable) -> None:
    """Issue 16: the GM view wrote «убит» of every dead player, Маша included; it gives
    the night instead («жертва ночи 1»), which needs no gender."""
    table.move("Коля", "УБИТЬ Машу", at=utc(2026, 12, 1, 10))
    table.at(close(1))
    table.at(dawn(1))
    assert "  - Маша: civilian; killed on night 1" in pbp_show(table)
    row = table.store.game(GAME)
    assert row is not None
    view = engine.gm_view(engine.load_state(row.state))
    _subject, text = RENDERER.private_mail("maniac/gm_show", locale="ru", game=GAME, view=view)
    assert "  - Маша: мирная жительница; жертва ночи 1" in text.split("\n")


# --- early closes and real deadlines (README: close-day keeps the regular schedule) ---


def _early(table: ManiacTable, name: str, period: int, at: datetime) -> None:
    """``pbp close-day`` / ``pbp end-night`` at ``at``, as the CLI passes it."""
    table.now = at
    assert table.service.close_day(GAME, at, at, expect=(name, period)) is not None


def _deadline(table: ManiacTable) -> datetime | None:
    schedule = table.store.schedule(GAME)
    assert schedule is not None
    return schedule.deadline_at


def test_an_early_close_or_night_end_keeps_the_regular_schedule(table: ManiacTable) -> None:
    """README's command table, ``close-day``: "the next deadline is the first regular one
    after the close that was due" — for Maniac's nights and days as for Cluedo's days."""
    table.at(close(1) + timedelta(minutes=1))  # day 1 closes 01.12 22:00
    assert _deadline(table) == dawn(1)  # night 1 until 02.12 10:00
    # end-night at 01.12 23:00 (due 02.12 10:00): day 2 closes 02.12 22:00, as due
    _early(table, "night", 1, utc(2026, 12, 1, 20))
    assert _deadline(table) == close(2)
    # close-day at 02.12 09:56 (due 02.12 22:00): night 2 until 03.12 10:00, not 02.12
    # 10:00 (a night of four minutes)
    _early(table, "day", 2, utc(2026, 12, 2, 6, 56))
    assert _deadline(table) == dawn(2) == utc(2026, 12, 3, 7)
    # end-night at 02.12 21:00 (due 03.12 10:00): day 3 closes 03.12 22:00, not 02.12
    # 22:00 (a day of one hour)
    _early(table, "night", 2, utc(2026, 12, 2, 18))
    assert _deadline(table) == close(3) == utc(2026, 12, 3, 19)
    # a close made late keeps the regular schedule after it (the night at its next end)
    _early(table, "day", 3, utc(2026, 12, 3, 20))
    assert _deadline(table) == dawn(3)


def test_an_early_close_in_kaliningrad_keeps_the_regular_schedule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same in another zone (UTC+2): day 2 closed at 09:04, the night ends at
    tomorrow's 10:00 (08:00 UTC), not in 56 minutes."""
    kit = sys.modules[ManiacTable.__module__]
    plain = kit.games_yaml
    monkeypatch.setattr(
        kit,
        "games_yaml",
        lambda *a: (
            plain(*a)
            .replace("Europe/Moscow", "Europe/Kaliningrad")
            .replace('start: "2026-12-01T12:00"', 'start: "2026-12-01T11:00"')
        ),
    )
    table = ManiacTable(tmp_path)
    try:
        table.run(START)
        assert _deadline(table) == utc(2026, 12, 1, 20)  # 22:00 Kaliningrad
        table.at(utc(2026, 12, 1, 20, 1))
        assert _deadline(table) == utc(2026, 12, 2, 8)  # night 1 until 02.12 10:00
        _early(table, "night", 1, utc(2026, 12, 1, 21))
        assert _deadline(table) == utc(2026, 12, 2, 20)
        _early(table, "day", 2, utc(2026, 12, 2, 7, 4))  # 09:04 Kaliningrad
        assert _deadline(table) == utc(2026, 12, 3, 8)  # 03.12 10:00 Kaliningrad
    finally:
        table.close()


@pytest.mark.parametrize(
    ("locale", "line"),
    [
        (
            "ru",
            "Принято: заказ на ночь 3 — убить Петю. Его можно изменить до закрытия дня 2 — до "
            "3 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ — в тред его не "
            "пишите.",
        ),
        (
            "en",
            "Accepted: the order for night 3: kill Петя. It may be changed until day 2 closes, "
            "December 3, 2026, 10:00 MSK. Only you and the GM see it — never post it in "
            "the thread.",
        ),
    ],
)
def test_M3_an_order_receipt_gives_the_real_close_of_its_day_after_an_extend(
    tmp_path: Path, locale: str, line: str
) -> None:
    """M3: the order for night 3 may be changed until day 2 closes — at its real time,
    03.12 10:00 after the GM's 12 hours, not games.yaml's 22:00 of 02.12."""
    table = ManiacTable(tmp_path, locale=locale)
    try:
        table.run(START)
        table.at(close(1) + timedelta(minutes=1))
        table.at(dawn(1) + timedelta(minutes=1))  # day 2, due 02.12 22:00
        table.new_mail()
        done = table.service.gm.extend(GAME, 12, now=utc(2026, 12, 2, 8), via="cli", note=None)
        assert done["deadline_at"] == "2026-12-03T07:00:00+00:00"
        move = "УБИТЬ Петю НОЧЬ 3" if locale == "ru" else "KILL Петя NIGHT 3"
        mails = table.move("Коля", move, at=utc(2026, 12, 2, 9))
        reply = next(m for m in mails if m["To"] == EMAILS["Коля"])  # after the GM's posts
        assert section(reply, move) == [line]
    finally:
        table.close()


def test_M3_an_order_fixed_by_the_deadline_after_an_extended_one_gets_its_real_time(
    table: ManiacTable,
) -> None:
    """M3: on day 1 the orders for nights 1 and 2 stay open until night 1 ends, the first
    10:00 after day 1's close; with day 1 extended to 02.12 11:00 that is 03.12 10:00,
    for the maniac's own mail and for the GM's ACT alike — and the night does end then."""
    table.new_mail()
    done = table.service.gm.extend(GAME, 13, now=utc(2026, 12, 1, 10), via="cli", note=None)
    assert done["deadline_at"] == "2026-12-02T08:00:00+00:00"  # 02.12 11:00 in Moscow
    mails = table.move("Коля", "УБИТЬ Сашу", at=utc(2026, 12, 1, 11))
    reply = next(m for m in mails if m["To"] == EMAILS["Коля"])
    assert section(reply, "УБИТЬ Сашу") == [
        "Принято: заказ на ночь 1 — убить Сашу. Его можно изменить до конца ночи 1 — до "
        "3 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ — в тред его не "
        "пишите."
    ]
    table.service.gm.act(
        GAME, "Коля", "УБИТЬ Олю НОЧЬ 2", now=utc(2026, 12, 1, 12), via="cli", note=None
    )
    table.service.flush_outbox(utc(2026, 12, 1, 12))
    (acted,) = [m for m in table.new_mail() if m["To"] == EMAILS["Коля"]]
    assert section(acted, "УБИТЬ Олю НОЧЬ 2") == [
        "Принято: заказ на ночь 2 — убить Олю. Его можно изменить до конца ночи 1 — до "
        "3 декабря 2026 г., 10:00 по Москве. Заказ видите только вы и ГМ — в тред его не "
        "пишите."
    ]
    table.at(utc(2026, 12, 2, 8, 1))  # the extended close of day 1
    assert _deadline(table) == utc(2026, 12, 3, 7)  # night 1 ends 03.12 10:00, as promised


def test_M3_order_until_walks_the_deadlines_from_the_current_one(table: ManiacTable) -> None:
    """M3: the real time of an order's deadline: the stored current one when it is that
    one, else the regular times after it; without a stored one, the regular times after
    the order."""
    kind = Maniac()
    (game,) = [g for g in table.config.games if g.id == GAME]
    assert isinstance(game, ManiacGame)
    day_1 = _maniac_states()["day 1"]
    night_1: FixedBy = {"phase": "night", "number": 1}
    day_1_close: FixedBy = {"phase": "day", "number": 1}
    extended = utc(2026, 12, 2, 8)  # day 1 extended to 02.12 11:00 Moscow
    at = utc(2026, 12, 1, 10)
    assert kind.order_until(game, day_1, day_1_close, extended, at) == extended
    assert kind.order_until(game, day_1, night_1, extended, at) == utc(2026, 12, 3, 7)
    assert kind.order_until(game, day_1, night_1, None, at) == dawn(1)
    assert kind.order_until(game, day_1, {"phase": "day", "number": 2}, None, at) == close(2)
