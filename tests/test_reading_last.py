"""The texts a Russian reader found wrong in the last reading (issue 34, last round).

Every scripted game of :mod:`kits.golden` is played once in each locale; each test is
named after the fault, asserts the sentence pbp writes now and that the old one is gone
from every mail and post.
"""

from __future__ import annotations

import pytest
from kits.golden import LOCALES, SCENARIOS, play


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Each scenario's transcript (every mail and post), by locale then scenario."""
    return {
        locale: {
            scenario: play(
                tmp_path_factory.mktemp(f"{scenario}-{locale}"), scenario, locale
            ).transcript()
            for scenario in SCENARIOS
        }
        for locale in LOCALES
    }


def everywhere(texts: dict[str, dict[str, str]], locale: str) -> str:
    return "\n".join(texts[locale].values())


def mails(text: str) -> list[str]:
    """A transcript's entries, each from its ``====`` line."""
    return ["====" + part for part in text.split("\n====")[1:]]


# --- 1. a player's forum snippet in the game's post format (Markdown) ---


def test_forum_snippet_of_a_move_is_in_the_games_post_format(
    texts: dict[str, dict[str, str]],
) -> None:
    # cluedo_days_levers posts in Markdown; the players' snippets were BBCode.
    ru = texts["ru"]["cluedo_days_levers"]
    assert (
        "Для форума (скопируйте в тред игры):\n\n"
        "**Предположение_1 для Веталя (№1)**\n\n"
        "Я думаю, что убийца — **Белова**, **Пистолетом** **в Спальне**.\n"
    ) in ru
    assert (
        "**Опровержение для Дуг**\n\n"
        "> **Предположение_1 для Неташки (№2)**\n>\n"
        "> Я думаю, что убийца — **Краснова**, **Ножом** **на Террасе**.\n"
    ) in ru
    replies = [m for m in mails(ru) if "Для форума (скопируйте в тред игры):" in m]
    assert len(replies) == 5
    assert not [m for m in replies if "[b]" in m or "[quote]" in m]
    # A BBCode game keeps BBCode.
    assert "[b]" in texts["ru"]["cluedo_days"]


# --- 2. a titled game's opening post names the title alone ---


@pytest.mark.parametrize(
    ("scenario", "heading", "old"),
    [
        (
            "cluedo_days_levers",
            "**«Клуэдо по дням»: день 1 открыт**",
            "Клуэдо «Клуэдо по дням»",
        ),
        (
            "cluedo_rounds_levers",
            "[b]«Клуэдо за столом»: игра по кругу начинается[/b]",
            "Клуэдо «Клуэдо за столом»",
        ),
        ("maniac_levers", "[b]«Маньяк 2»: день 1 открыт[/b]", "Маньяк «Маньяк 2»"),
    ],
)
def test_titled_game_opening_post_names_the_title_without_the_kind_word(
    texts: dict[str, dict[str, str]], scenario: str, heading: str, old: str
) -> None:
    ru = texts["ru"][scenario]
    assert heading in ru
    assert old not in ru
    # Without a title the heading keeps the kind word and the game's id.
    assert "[b]Клуэдо «golden-cluedo-days»: день 1 открыт[/b]" in texts["ru"]["cluedo_days"]
    assert '[b]Maniac "golden-maniac": day 1 is open[/b]' in texts["en"]["maniac"]


# --- 3. the story names the game by its title and the zone by its city ---


@pytest.mark.parametrize(
    ("scenario", "heading"),
    [
        ("cluedo_days_levers", "[b]Игра «Клуэдо по дням»: вся история[/b]\n"),
        ("cluedo_rounds_levers", "**Игра «Клуэдо за столом»: вся история**\n"),
        ("maniac_levers", "**Игра «Маньяк 2»: вся история**\n"),
    ],
)
def test_story_names_the_game_by_its_title_and_the_zone_by_its_city(
    texts: dict[str, dict[str, str]], scenario: str, heading: str
) -> None:
    ru = texts["ru"][scenario]
    assert heading in ru
    assert "Здесь рассказано всё, в том числе тайное (помечено 🔒). Время — по Москве.\n" in ru
    assert (
        "Every fact is told here, the private ones too (marked 🔒). Times: MSK.\n"
        in (texts["en"][scenario])
    )
    assert "по часовому поясу" not in ru
    assert ": вся история" not in ru.replace(heading.split(":")[0] + ":", "")


# --- 4. story lines: the deal, a new personal address, the answers to a suggestion ---


def test_story_lines_say_whom_cards_were_dealt_who_got_a_new_address_and_answers_ended(
    texts: dict[str, dict[str, str]],
) -> None:
    days = texts["ru"]["cluedo_days_levers"]
    rounds = texts["ru"]["cluedo_rounds_levers"]
    assert " · Неташке сданы карты: [b]Зеленов[/b], [b]Белова[/b], [b]Нож[/b].\n" in days
    assert " · Веталю сданы карты: [b]Спальня[/b]" in days
    assert " · Любови сданы карты: **Библиотека**, **Канделябр**, **Топор**.\n" in rounds
    # The substitution's second event: the substitute got the seat's new personal address.
    assert " · у Вовы (вместо Саши) новый личный адрес.\n" in rounds
    assert " · ответы на №1 закончены, опроверг Вова (вместо Саши).\n" in rounds
    assert " · ответы на №2 закончены, опровергла Любовь.\n" in rounds
    text = everywhere(texts, "ru")
    for old in ("получает [b]", "получает **", "у места", "круг №"):
        assert old not in text, old


# --- 5. the GM sheet: «первый пост игры»; where a reply to pbp's mail goes ---


def test_gm_texts_say_first_post_of_the_game_and_where_a_reply_to_pbp_goes(
    texts: dict[str, dict[str, str]],
) -> None:
    ru = texts["ru"]["cluedo_days"]
    assert "Subject: [golden-cluedo-days] Первый пост игры (день 1) — BBCode\n" in ru
    assert "SHA-256 (опубликован в первом посте игры): <hex 2>\n" in ru
    assert (
        "Ваш адрес ГМа для команд (ответ на любое письмо pbp тоже приходит на этот адрес):"
        " gm+<token of GM>@example.test\n"
    ) in ru
    assert (
        "Subject: [Клуэдо за столом] Первый пост игры — BBCode\n"
        in (texts["ru"]["cluedo_rounds_levers"])
    )
    text = everywhere(texts, "ru")
    for old in ("открытия", "туда же уходит"):
        assert old not in text, old


# --- 6. the GM's status lists the players, not «места» ---


def test_gm_status_lists_players_who_plays_whom_from_which_address(
    texts: dict[str, dict[str, str]],
) -> None:
    ru = texts["ru"]["cluedo_days_levers"]
    assert "\nИгроки (кто сейчас за кого играет, с какого адреса, кто играл раньше):\n" in ru
    assert "Места (кто" not in everywhere(texts, "ru")


# --- 8. a kept mail named by the GM's mail command, not by the owner's CLI ---


def test_substitution_result_by_mail_names_the_kept_list_by_the_gm_command(
    texts: dict[str, dict[str, str]],
) -> None:
    ru = texts["ru"]["cluedo_rounds_levers"]
    assert (
        "Письма прежнего игрока, сохранённые на время паузы, учтены не будут (ему объяснили"
        " почему); в списке ОТЛОЖЕННЫЕ это №1. Если ход должен засчитаться, внесите его"
        " командой ЗА.\n"
    ) in ru
    assert "in the KEPT list" in texts["en"]["cluedo_rounds_levers"]
    assert "в pbp kept" not in ru
