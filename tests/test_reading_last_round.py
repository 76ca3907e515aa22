"""The texts a Russian reader found wrong in the last reading (issue 34, last round of
Russian texts): the Cluedo-by-rounds rules and answers, and the mails and posts after
the GM's levers.

Every scripted game of :mod:`kits.golden` is played once in each locale; each test is
named after the fault, asserts the sentence pbp writes now (in English too where the
English changed) and that the old one is gone from every mail and post.
"""

from __future__ import annotations

import re

import pytest
from kits.golden import everywhere

# --- 1. «Не сделанный вовремя ход» (a participle with its own words is written apart) ---


def test_turn_not_taken_in_time_is_written_apart(texts: dict[str, dict[str, str]]) -> None:
    assert "Не сделанный вовремя ход пропускается;" in texts["ru"]["cluedo_rounds"]
    assert "Несделанный" not in everywhere(texts, "ru")


# --- 2, 3. R2: who shows a card, in the words of the commands (НЕТ ОПРОВЕРЖЕНИЯ) ---


def test_R2_rules_say_the_first_holding_any_of_the_cards_shows_one(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «первый, у кого карта есть, показывает одну из них»: «карта» was none named.
    rounds = texts["ru"]["cluedo_rounds"]
    assert (
        "На предположение отвечают по кругу, начиная со следующего игрока: у кого нет ни"
        " одной из названных карт, отвечает «нет опровержения»; первый, у кого есть хотя бы"
        " одна из них, приватом показывает спрашивающему одну такую карту, а всем отвечает"
        " «есть карта»."
    ) in rounds
    assert "Если у игрока нет ни одной из названных карт, ответ «нет опровержения» даётся" in (
        rounds
    )
    assert "у кого карта есть" not in everywhere(texts, "ru")
    assert (
        'a player holding none of the named cards answers "no refutation"; the first one'
        " holding at least one of them shows the suggester one such card privately"
    ) in texts["en"]["cluedo_rounds"]


def test_R2_answers_in_posts_use_the_words_of_the_commands(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «Саша: есть карта» / «нет карт» in posts, НЕТ ОПРОВЕРЖЕНИЯ / ОПРОВЕРЖЕНИЕ in mails.
    rounds, levers = texts["ru"]["cluedo_rounds"], texts["ru"]["cluedo_rounds_levers"]
    assert "\nСаша: есть карта (показана приватом)\n" in rounds
    assert "\n- Саша: есть карта (показана приватом)\n" in rounds
    assert (
        "\n- Любовь: есть карта (показана приватом; ответил ГМ: время на ответ истекло)\n" in rounds
    )
    assert "\n- Любовь: есть карта (показана приватом; ответил ГМ: Любовь исключена)\n" in levers
    ru = everywhere(texts, "ru")
    assert "«нет карт»" not in ru
    assert ": нет карт\n" not in ru
    assert ": есть карта\n" not in ru
    assert "\nСаша: has a card (shown privately)\n" in texts["en"]["cluedo_rounds"]


# --- 4. «Обвинение делается открыто» (not the calque «вслух») ---


def test_C6_accusation_is_made_openly(texts: dict[str, dict[str, str]]) -> None:
    assert (
        "Обвинение делается открыто: карты неверного обвинения публикуются."
        in (texts["ru"]["cluedo_rounds"])
    )
    assert "вслух" not in everywhere(texts, "ru")


# --- 5. the subject of the mail asking for an answer reads as a call, not a receipt ---


def test_R2_asked_mail_subject_says_it_is_your_turn_to_answer(
    texts: dict[str, dict[str, str]],
) -> None:
    assert (
        "Subject: [golden-cluedo-rounds] Ваша очередь отвечать на предположение №1\n"
        in (texts["ru"]["cluedo_rounds"])
    )
    assert "Ваш ответ на предположение" not in everywhere(texts, "ru")
    assert (
        "Subject: [golden-cluedo-rounds] Your turn to answer suggestion #1\n"
        in (texts["en"]["cluedo_rounds"])
    )
    assert "Your answer to suggestion" not in everywhere(texts, "en")


# --- 6. R4: only an accusation is limited to the start of the turn ---


def test_R4_skipped_turn_mail_limits_only_the_accusation_to_the_start_of_a_turn(
    texts: dict[str, dict[str, str]],
) -> None:
    assert (
        "(об этом придёт письмо); предположение — только в свой ход, обвинение — только"
        " в его начале."
    ) in texts["ru"]["cluedo_rounds"]
    assert "предположение или обвинение — только в начале" not in everywhere(texts, "ru")
    assert (
        "a suggestion only on your own turn, an accusation only at its start."
        in (texts["en"]["cluedo_rounds"])
    )


# --- 7. the suggester of a voided suggestion may make a new one ---


def test_voided_suggestion_mail_to_its_suggester_says_she_may_make_a_new_one(
    texts: dict[str, dict[str, str]],
) -> None:
    levers = texts["ru"]["cluedo_days_levers"]
    assert (
        "Неташка, ГМ отменил ваше предположение №1 (для Веталя: Белова, Пистолет, Спальня)."
        " Оно не в счёт ваших предположений дня: можно сделать новое.\n"
    ) in levers
    assert "ваше предположение №1 (для Веталя: Белова, Пистолет, Спальня). Отвечать" not in (levers)
    # The addressee's mail keeps «Отвечать на него не нужно».
    assert "Веталь, ГМ отменил предположение №1 (Неташка → Веталь: Белова, Пистолет," in levers
    assert (
        "It does not count among your suggestions of that day: you may make a new one."
        in (texts["en"]["cluedo_days_levers"])
    )


# --- 8. the pause post says which deadline stands still, in the kind's words ---


@pytest.mark.parametrize(
    ("scenario", "sentence"),
    [
        ("cluedo_rounds_levers", "Пока игра на паузе, сроки стоят: ход 1 не закроется."),
        ("maniac_levers", "Пока игра на паузе, сроки стоят: день 1 не закроется."),
    ],
)
def test_pause_post_says_the_current_deadline_stands_still(
    texts: dict[str, dict[str, str]], scenario: str, sentence: str
) -> None:
    assert f"\n{sentence} Ходы, присланные за это время, сохраняются" in texts["ru"][scenario]
    assert "ничего не закрывается" not in everywhere(texts, "ru")
    assert "Nothing closes while it is paused" not in everywhere(texts, "en")


# --- 10. a substitute «занимает место», and the posts «будут с обоими именами» ---


def test_substitute_texts_are_not_calques(texts: dict[str, dict[str, str]]) -> None:
    rounds, maniac = texts["ru"]["cluedo_rounds_levers"], texts["ru"]["maniac_levers"]
    assert "ГМ попросил вас с этого момента занять место Саши в игре «Клуэдо за столом»." in (
        rounds
    )
    assert (
        "В игре вы по-прежнему Никита: в постах рядом будет стоять ваше имя, обращаться к вам"
        " можно по любому из двух имён. Всё, что есть у этого места,"
    ) in maniac
    assert (
        "Место сохраняет имя Саша со всем, что у него есть и что за ним числится. В постах"
        " теперь будут оба имени, и годится любое из них."
    ) in rounds
    ru = everywhere(texts, "ru")
    for calque in ("играть за место", "посты на форуме показывают", "посты называют оба"):
        assert calque not in ru


# --- 14. the new personal address: no «Reply-To» in a Russian sentence ---


def test_new_address_mail_names_the_reply_address_in_russian(
    texts: dict[str, dict[str, str]],
) -> None:
    assert (
        "(не пересылайте письма pbp: этот адрес стоит в них как адрес для ответа)."
        in texts["ru"]["cluedo_days_levers"]
    )
    assert "Reply-To" not in everywhere(texts, "ru")


# --- 17. Maniac's mails and rules; the Cluedo winner in her gender ---


def test_M_killed_mail_sent_in_the_morning_names_the_morning_post(
    texts: dict[str, dict[str, str]],
) -> None:
    maniac = texts["ru"]["maniac"]
    assert (
        "Мария, этой ночью (ночь 1) вас убили. В утреннем посте назовут только ваше имя, без роли."
    ) in maniac
    assert "Утром об этом объявят" not in everywhere(texts, "ru")


def test_M_rules_speak_of_the_future_and_name_whoever_leaves_the_cell(
    texts: dict[str, dict[str, str]],
) -> None:
    ru = everywhere(texts, "ru")
    assert "Если вас отправят в тюрьму, вы проиграете." in ru
    assert "вы проиграли." not in ru
    assert "Днём каждый живой игрок, кроме сидящих в тюрьме, голосует, кто проведёт ночь" in ru
    assert "не из тюрьмы" not in ru
    assert "Утром объявляют только имена убитых и того, кто выходит из камеры." in ru
    assert (
        "In the morning only the names of the dead are announced, and the name of whoever"
        " leaves the cell."
    ) in everywhere(texts, "en")


def test_C7_game_over_mail_names_the_winner_in_her_gender(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «Победитель — Дуг.» of a woman; a name of no known gender: «Победа за …».
    assert "\nПобедила Дуг.\n" in texts["ru"]["cluedo_days"]
    assert "\nПобеда за Шапо.\n" in texts["ru"]["cluedo_rounds"]
    assert "\nПобеда за Неташкой.\n" in texts["ru"]["cluedo_days_levers"]
    assert "Победитель — Дуг." not in everywhere(texts, "ru")
    assert "\nThe winner is Дуг.\n" in texts["en"]["cluedo_days"]


# --- 13. a removed player in her gender (P2): «(Любовь исключена)» ---


def test_P2_gm_answer_for_a_removed_player_follows_her_gender(
    texts: dict[str, dict[str, str]],
) -> None:
    levers = texts["ru"]["cluedo_rounds_levers"]
    assert "За Любовь ответил ГМ (Любовь исключена) и показал вам карту «Библиотека»." in levers
    assert "\n- Любовь: есть карта (показана приватом; ответил ГМ: Любовь исключена)\n" in levers
    assert "Любовь: есть карта (показана приватом; ответил ГМ: игрок исключён)" not in levers
    assert "ответил ГМ (игрок исключён)" not in levers


# --- 18. a move the GM entered for a player is mailed under its own subject ---


@pytest.mark.parametrize("scenario", ["cluedo_days_levers", "maniac_levers"])
def test_move_entered_by_the_gm_is_mailed_as_such(
    texts: dict[str, dict[str, str]], scenario: str
) -> None:
    ru, en = texts["ru"][scenario], texts["en"][scenario]
    assert "] ГМ внёс за вас ход\n\nИгра: " in ru
    old = re.compile(r"Результаты ваших ходов\n\nИгра: [^\n]*\n\n[^\n]*ГМ внёс за вас ход")
    assert old.search(ru) is None
    assert "] The GM entered a move for you\n" in en
