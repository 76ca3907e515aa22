"""The texts every player gets that a native Russian reader found wrong in the last
reading (issue 34, Russian texts, fourth round).

Every scripted game of :mod:`kits.golden` is played once in each locale; each test is
named after the fault, asserts the sentence pbp writes now (in English too where the
English changed) and that the old one is gone from every mail and post.
"""

from __future__ import annotations

import pytest
from kits.golden import everywhere, mails

# --- 1. the command help is not hard-wrapped: one paragraph a line (ragged on a phone) ---


def test_command_help_writes_each_paragraph_on_one_line(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was wrapped at 80 columns: «…русские и английские\nслова равноправны.», the notes too.
    ru, en = texts["ru"], texts["en"]
    case = "Регистр не важен, двоеточие после команды можно ставить; русские и английские слова"
    for scenario in ("cluedo_days", "cluedo_rounds"):
        assert f"\n{case} равноправны.\n" in ru[scenario]
    assert (
        f"\n{case} равноправны. Имя игрока можно писать в любом падеже и с предлогом.\n"
        in (ru["maniac"])
    )
    assert (
        "\nОБВИНЕНИЕ <подозреваемый>, <орудие>, <комната> — уходит только ГМу; верное обвинение"
        " приносит победу, неверное выводит из игры (отвечать на предположения всё равно"
        " придётся).\n    ОБВИНЕНИЕ Краснова, Топор, Терраса\n"
    ) in ru["cluedo_days"]
    assert (
        "\nПРЕДПОЛОЖЕНИЕ <подозреваемый>, <орудие>, <комната> — только в свой ход. Адресата нет:"
        " отвечают по кругу, начиная со следующего за вами игрока.\n"
    ) in ru["cluedo_rounds"]
    assert (
        "\nОПРОВЕРЖЕНИЕ [N] <карта> — показать карту, когда до вас дошла очередь отвечать на"
        " предположение N (придёт письмо)\n"
    ) in ru["cluedo_rounds"]
    assert (
        "\nОБВИНЕНИЕ <подозреваемый>, <орудие>, <комната> — только в начале своего хода, вместо"
        " предположения (сделав предположение, обвинить можно лишь в следующий свой ход). Верное"
        " обвинение приносит победу, неверное выводит из игры (отвечать на предположения всё"
        " равно придётся).\n"
    ) in ru["cluedo_rounds"]
    assert (
        "\n  Переголосовывать можно сколько угодно; действует последний голос. За одного игрока"
        " можно голосовать не больше 2 раз за день (снятие голоса не в счёт).\n"
    ) in ru["maniac"]
    assert (
        "\nCase does not matter, a colon after the keyword is fine; English and Russian keywords"
        " are both accepted.\n"
    ) in en["cluedo_days"]
    assert (
        "\n  You may change your vote any number of times; your last vote stands. You may vote"
        " for the same player at most 2 times a day (withdrawing does not count).\n"
    ) in en["maniac"]
    # No line of any help goes on on the next line: the wrapped tails are gone.
    for tail in (
        "\nслова равноправны.",
        "\n  обвинение приносит победу",
        "\n  нет: отвечают по кругу",
        "\n  на предположение N (придёт письмо)",
        "\n  вместо предположения",
        "\n  игрока можно голосовать",
        "\n  Ночи 1 и 2 заказывают",
    ):
        assert tail not in everywhere(texts, "ru")
    for tail in ("\nkeywords are both accepted.", "\nwords work alike.", "\n  for the same player"):
        assert tail not in everywhere(texts, "en")


# --- 2. M3: on day d the maniac orders for night d+1 («ночь через одну» is every other) ---


def test_M3_later_orders_are_for_the_night_numbered_after_the_day_not_every_other_night(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «в каждый следующий день — ночь через одну», which reads "every other night".
    maniac = texts["ru"]["maniac"]
    assert (
        "  Без номера ночи заказ идёт на ближайшую открытую ночь, на которую заказа ещё нет."
        " Ночи 1 и 2 заказывают в день 1 или в ночь 1 (менять можно до конца ночи 1), дальше в"
        " каждый день — ночь со следующим номером: в день 2 — ночь 3, в день 3 — ночь 4 и т. д."
        " (менять можно до закрытия дня).\n"
    ) in maniac
    assert (
        "Вы заказываете убийства письмом: на ночи 1 и 2 — в день 1 или в ночь 1, и оба заказа"
        " можно менять до конца ночи 1; дальше в каждый день — на ночь со следующим номером"
        " (в день 2 — на ночь 3, в день 3 — на ночь 4 и т. д.), и такой заказ можно менять до"
        " закрытия этого дня."
    ) in maniac
    assert (
        "Ночью маньяк убивает по заказу, который присылает ГМу: на ночи 1 и 2 — в день 1 или в"
        " ночь 1, дальше в каждый день — на ночь со следующим номером (в день 2 — на ночь 3 и"
        " т. д.)."
    ) in maniac
    assert "через одну" not in everywhere(texts, "ru")


# --- 3. D6 in the welcome and the opening post: tenses agree, one «предположение» ---


def test_D6_penalty_sentence_agrees_in_tense_and_counts_the_gm_answers(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «Если вы не ответили … за вас ответит ГМ, … меньше за каждое такое
    # предположение: два без ответа — на два меньше.»
    days = texts["ru"]["cluedo_days"]
    assert (
        "Если вы не ответите на предположение до закрытия дня, за вас ответит ГМ, а на следующий"
        " день у вас будет на одно предположение меньше за каждый такой ответ ГМа: два — на два"
        " меньше.\n"
    ) in days
    assert (
        "На предположение, оставшееся без ответа до закрытия дня, отвечает ГМ, а у адресата на"
        " следующий день на одно предположение меньше за каждый такой ответ ГМа: два — на два"
        " меньше."
    ) in days
    assert (
        "Если не ответить до закрытия дня, за вас ответит ГМ, а завтра у вас будет на одно"
        " предположение меньше за каждый такой ответ ГМа."
    ) in texts["ru"]["cluedo_days_grace"]
    ru = everywhere(texts, "ru")
    assert "Если вы не ответили на предположение" not in ru
    assert "два без ответа" not in ru
    assert "меньше за каждое такое предположение: два" not in ru
    assert "завтра у вас будет на одно предположение меньше за каждое такое" not in ru


# --- 4. D6 in the addressee's mail: one suggestion, its close and its day named ---


def test_D6_addressed_mail_names_the_close_and_the_day_of_the_lost_suggestion(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «Ответить нужно до закрытия игрового дня (22:30 по Москве). Иначе …, а на
    # следующий день у вас будет на одно предположение меньше за каждое такое предположение.»
    assert (
        "\nОтветить нужно до закрытия дня 1 — 1 декабря 2026 г., 22:30 по Москве. Иначе за вас"
        " ответит ГМ (первой подходящей картой в порядке подозреваемый — орудие — комната), а в"
        " день 2 у вас будет на одно предположение меньше.\n"
    ) in texts["ru"]["cluedo_days"]
    assert (
        "по Москве. Иначе за вас ответит ГМ (первой подходящей картой в порядке подозреваемый —"
        " орудие — комната), а в день 3 у вас будет на одно предположение меньше.\n"
    ) in texts["ru"]["cluedo_days_grace"]
    assert (
        "\nAnswer before day 1 closes: December 1, 2026, 22:30 MSK. Otherwise the GM answers for"
        " you (with the first matching card in the order suspect, weapon, room) and you have one"
        " suggestion fewer on day 2.\n"
    ) in texts["en"]["cluedo_days"]
    ru, en = everywhere(texts, "ru"), everywhere(texts, "en")
    assert "за каждое такое предположение" not in ru
    assert "до закрытия игрового дня (" not in ru
    assert "on day 3 for each such suggestion" not in en
    assert "Answer before the game day closes" not in en


# --- 7. a refutation shows a card: «показать эту карту», not «опровергнуть этой картой» ---


def test_refutation_wording_shows_the_card_in_both_cluedo_variants(
    texts: dict[str, dict[str, str]],
) -> None:
    days, rounds = texts["ru"]["cluedo_days"], texts["ru"]["cluedo_rounds"]
    assert "У вас есть Нож. Вы обязаны показать эту карту. Ответьте строкой:" in days
    assert (
        "У вас есть: Пистолет, Спальня. Вы обязаны его опровергнуть; какую из этих карт"
        " показать — решаете вы. Ответьте строкой, например:"
    ) in days
    assert "Принято: опровержение предположения №1. Неташка получит карту приватом." in days
    assert (
        "Предположение №3 от Веталя: у вас есть Библиотека, поэтому ответить «НЕТ ОПРОВЕРЖЕНИЯ»"
        " нельзя — покажите эту карту."
    ) in days
    assert "получит карту приватом." in rounds
    ru = everywhere(texts, "ru")
    for old in (
        "опровергнуть этой картой",
        "сами выбираете, какую",
        "Карту Неташка получит",
        "поэтому НЕТ ОПРОВЕРЖЕНИЯ нельзя",
        "опровергните",
    ):
        assert old not in ru


# --- 6. the forum form in the help: what each quoted line is ---


def test_forum_form_in_the_help_names_the_heading_and_the_line_below(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «Подойдёт и форма с форума: «Предположение_1 для Дуг» и строкой ниже «Я думаю, …»»;
    # the two quotes stand at the top level of the line, so «…» (not „…“) is right.
    assert (
        "\n  Подойдёт и форма с форума: заголовок «Предположение_1 для Дуг», а строкой ниже —"
        " «Я думаю, что убийца — Краснова, Топором на Террасе.»\n"
    ) in texts["ru"]["cluedo_days"]
    assert "» и строкой ниже «" not in everywhere(texts, "ru")


# --- 7. a player's forum snippet in the game's post format (Markdown) ---


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
