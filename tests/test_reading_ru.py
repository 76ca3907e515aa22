"""The Russian texts read as a forum player and a strict GM read them (issue 34, item 4).

Every scripted game of :mod:`kits.golden` (one of each kind, with the GM's levers, and
Cluedo by days with a grace window) is played once in Russian; each test is named after
a sentence no Russian would write, asserts the sentence pbp writes now, and that the old
one is gone from every mail and post.
"""

from __future__ import annotations

import pytest
from kits.golden import Transcripts


@pytest.fixture
def ru(texts: Transcripts) -> dict[str, str]:
    """Each scenario's transcript (every mail and post) in Russian."""
    return texts["ru"]


def everywhere(ru: dict[str, str]) -> str:
    return "\n".join(ru.values())


def test_final_post_names_the_hash_as_the_opening_post_does(ru: dict[str, str]) -> None:
    # The opening post calls it «SHA-256»; the final post called it «сумма».
    assert "В первом посте игры был опубликован SHA-256: <hex 2>" in ru["cluedo_days"]
    assert "и сравните с SHA-256 из первого поста." in ru["maniac"]
    assert "сумм" not in everywhere(ru)


def test_must_refute_has_one_colon_and_names_the_suggester_in_the_genitive(
    ru: dict[str, str],
) -> None:
    # Was: «Предположение №3 (Веталь): у вас есть Библиотека: НЕТ ОПРОВЕРЖЕНИЯ нельзя, …».
    assert (
        "Предположение №3 от Веталя: у вас есть Библиотека, поэтому ответить «НЕТ ОПРОВЕРЖЕНИЯ»"
        " нельзя — покажите эту карту.\nНапример: ОПРОВЕРЖЕНИЕ 3 Библиотека"
    ) in ru["cluedo_days"]
    assert "(Веталь): у вас есть" not in everywhere(ru)


def test_status_says_what_the_per_addressee_numbers_count(ru: dict[str, str]) -> None:
    # Was: «Кому сколько: Веталь — 2, Дуг — 2.» (D2): a newcomer cannot tell what is counted.
    assert (
        "Сколько предположений вы ещё можете адресовать каждому игроку: Веталь — 2, Дуг — 2."
    ) in ru["cluedo_days"]
    assert "Кому сколько" not in everywhere(ru)


def test_voided_mail_greets_on_the_line_it_speaks(ru: dict[str, str]) -> None:
    # Was «Кэт,» alone on a line (an English letter's greeting), and the order in the
    # nominative: «ГМ отменил ваш заказ на ночь 1 (Мария)».
    assert "Кэт, ГМ отменил ваш голос за Петра: он не считается поданным" in ru["maniac_levers"]
    assert "Павел, ГМ отменил ваш заказ на ночь 1 (убить Марию)." in ru["maniac_levers"]
    assert "Неташка, ГМ отменил ваше предположение №1 (для Веталя:" in ru["cluedo_days_levers"]
    assert "Кэт,\n" not in ru["maniac_levers"]


def test_removal_post_says_suggestions_not_offers_and_no_days_word_in_rounds(
    ru: dict[str, str],
) -> None:
    # Was «Предлагать и обвинять она больше не может» (to offer, not to suggest), and
    # the removal post named the answer in the days variant's words; it now says
    # «так и отвечает», true of both variants (the rounds posts now also write «нет
    # опровержения», the words of the command, test_reading_last_round).
    assert (
        "а если таких карт нет, так и отвечает. Делать предположения и обвинения она больше"
        " не может."
    ) in ru["cluedo_rounds_levers"]
    assert "Делать предположения и обвинения он больше не может." in ru["cluedo_days_levers"]
    assert "Предлагать" not in everywhere(ru)


def test_kept_mail_notice_says_mail_once_and_numbers_with_the_sign(ru: dict[str, str]) -> None:
    # Was «Письмо отложено: письмо не удалось прочитать», «Причина: письмо не удалось
    # прочитать: письмо зашифровано…», «(номер 1; …)» beside «(№ 1, 2)» and «#2».
    levers = ru["maniac_levers"]
    assert "Subject: [Маньяк 2] Отложено: письмо не удалось прочитать\n" in levers
    assert (
        "  Причина: письмо не удалось прочитать — оно зашифровано или подписано так, что текст"
        " виден только после расшифровки (S/MIME или PGP)\n"
    ) in levers
    assert "Ваше письмо не удалось прочитать: оно зашифровано или подписано" in levers
    assert (
        "Письмо не обработано и отложено под №1; все отложенные письма перечисляет команда"
        " ОТЛОЖЕННЫЕ.\n"
    ) in levers
    assert "Отложенные письма этой игры ждут решения: 3 (№1, №2, №3)." in levers
    assert "\n№2  1 декабря 2026 г., 13:40 по Москве  maria.home@example.test" in levers
    assert "Письмо отложено: письмо" not in everywhere(ru)


def test_extension_says_what_was_extended(ru: dict[str, str]) -> None:
    # Was «Продлено на 2 часа.»: a participle without its noun.
    assert "[b]Срок продлён на 2 часа.[/b]" in ru["cluedo_rounds_levers"]
    assert "[b]Закрытие дня 1 отложено на 30 минут.[/b]" in ru["maniac_levers"]
    assert "Продлено" not in everywhere(ru)


def test_rounds_names_the_suggester_after_ot_not_in_parentheses(ru: dict[str, str]) -> None:
    # Was «Предположение №2 (Вова (вместо Саши)): …», «(Шапо: Краснова, Пистолет,
    # Спальня)» and «У вас есть: Пистолет, Спальня — покажите одну из них: ОПРОВЕРЖЕНИЕ …».
    rounds, levers = ru["cluedo_rounds"], ru["cluedo_rounds_levers"]
    assert "Предположение №2 от Саши: убийца — Зеленов, Верёвкой в Библиотеке." in rounds
    assert "Предположение №2 от Вовы (вместо Саши): убийца — Зеленов" in levers
    assert (
        "Любовь, вы не ответили вовремя на предположение №2 от Саши (Зеленов, Верёвка, Библиотека)."
    ) in rounds
    assert (
        "Вова, напоминаем: вы должны ответить на предположение №1 от Шапо (Краснова, Пистолет,"
        " Спальня) до"
    ) in levers
    assert (
        "У вас есть Пистолет, Спальня — покажите одну из этих карт, например: ОПРОВЕРЖЕНИЕ 1"
        " Пистолет"
    ) in levers
    assert "(Шапо: " not in levers
    assert "(Вова (вместо Саши))" not in levers


def test_the_displaced_player_is_told_of_his_own_seat_as_his(ru: dict[str, str]) -> None:
    # Was «ГМ передал место Саши другому игроку (Вова)» in a mail to Саша, and «Ваше
    # письмо, …, поэтому учтено не будет»; the GM read «(он получил объяснение): 1 в pbp
    # kept».
    assert (
        "Пока игра стояла на паузе, ГМ передал ваше место Вове. Поэтому ваше письмо,"
        " сохранённое на время паузы, учтено не будет, а ваш личный адрес для этой игры"
        " больше не действует."
    ) in ru["cluedo_rounds_levers"]
    assert ("Здравствуйте! ГМ передал ваше место в игре «Маньяк 2» другому игроку") in ru[
        "maniac_levers"
    ]
    assert (
        "Письма прежнего игрока, сохранённые на время паузы, учтены не будут (ему объяснили"
        " почему); в списке ОТЛОЖЕННЫЕ это №1."
    ) in ru["cluedo_rounds_levers"]
    assert "ГМ передал место" not in everywhere(ru)


def test_maniac_says_each_thing_one_way(ru: dict[str, str]) -> None:
    # Was «больше не меняется»; «заказ … аннулирован: маньяк в камере» beside «заказ не
    # исполняется»; «в тюрьме с 2-го дня» (with «со»), «вне игры с 2-го дня (исключение
    # ГМом)»; the story's «закреплён» beside «зафиксирован», «победили мирные» beside
    # «победил город», «(тюрьма)» beside «(в тюрьму)», «маньяк заказывает на ночь 1:
    # Мария», «Время: Europe/Moscow».
    levers = ru["maniac_levers"]
    assert (
        "Павел, ночь 1 закончилась, а заказа на ночь 2 вы не сделали; теперь его уже не сделать."
        in levers
    )
    assert "Итог: заказ (убить Льва) не исполнен — маньяк в камере или в тюрьме;" in levers
    assert "- Павел — [b]маньяк[/b]; в тюрьме со дня 2\n" in levers
    assert "- Мария — [b]мирная жительница[/b]; вне игры со дня 2 по решению ГМа\n" in levers
    assert " · заказ маньяка на ночь 1 — убить Марию.\n" in levers
    assert " · заказ маньяка на ночь 1 (убить Марию) отменён.\n" in levers
    assert " · заказа на ночь 2 нет (промах).\n" in levers
    assert " · Лев голосует за Павла (в тюрьму).\n" in levers
    assert " · игра окончена: победил город.\n" in levers
    assert "Время — по Москве." in levers
    text = everywhere(ru)
    for old in ("аннулирован", "-го дня", "закреплён", "победили мирные", "(тюрьма)", "Время: "):
        assert old not in text, old


def test_a_gm_digest_subject_says_gm_only_once_and_opens_with_a_dash(ru: dict[str, str]) -> None:
    # Was «Только для ГМа: Утро после ночи 1; Ночь 1: как она прошла (только для ГМа)».
    levers = ru["maniac_levers"]
    assert (
        "Subject: [Маньяк 2] Только для ГМа — Утро после ночи 1; Ночь 1: как она прошла\n"
    ) in levers
    assert (
        "Subject: [Маньяк 2] Для форума — Вечер дня 2: итоги голосования; Игра окончена:"
        " финальный пост — BBCode\n"
    ) in levers
    assert "Subject: [golden-maniac] Ночь 1: как она прошла\n" in ru["maniac"]
    assert "(только для ГМа)" not in everywhere(ru)


def test_a_time_left_has_no_zero_part(ru: dict[str, str]) -> None:
    # Was «До срока оставалось 7 ч 0 мин», «После ПРОДОЛЖИТЬ до срока останется 7 ч 0 мин».
    levers = ru["maniac_levers"]
    assert "Игра на паузе. До срока оставалось 7 ч; это время вернётся" in levers
    assert "После команды ПРОДОЛЖИТЬ до срока останется 7 ч." in levers
    assert " 0 мин" not in everywhere(ru)


def test_a_refusal_says_fix_and_resend_once(ru: dict[str, str]) -> None:
    # Was «Исправьте и пришлите ход ещё раз.» and, a line below, the reply's «Исправьте
    # невыполненные строки и пришлите их снова ответом на это письмо.»
    assert (
        "Неизвестный игрок «Маришку».\n"
        "Игроки: Лев, Павел, Пётр, Любовь, Кэт, Ник, Ника, Мария, Илья, Никита.\n\n"
        "Исправьте невыполненные строки и пришлите их снова ответом на это письмо.\n"
    ) in ru["maniac"]
    assert "Исправьте и пришлите ход ещё раз." not in everywhere(ru)


def test_where_the_post_went_is_said_without_a_colon_chain(ru: dict[str, str]) -> None:
    # Was «Объявление для форума — отдельным письмом, в Markdown: в нём только пост.» and
    # «Вся история игры (bbcode) пришла отдельным письмом, в нём только история: для
    # треда после игры.»
    assert (
        "Объявление для форума — отдельным письмом в Markdown; в нём только текст поста."
    ) in ru["cluedo_days_levers"]
    assert (
        "Объявление для форума — двумя отдельными письмами, в BBCode и в Markdown; в каждом"
        " только текст поста."
    ) in ru["maniac_levers"]
    assert (
        "Вся история игры (BBCode) — отдельным письмом; в нём только история, для треда после игры."
    ) in ru["cluedo_days_levers"]
    assert "в нём только пост" not in everywhere(ru)


def test_gm_status_says_who_plays_each_seat_in_word_order(ru: dict[str, str]) -> None:
    # Was «кто играет за каждое сейчас и с какого адреса».
    assert ("Игроки (кто сейчас за кого играет, с какого адреса, кто играл раньше):") in ru[
        "cluedo_days_levers"
    ]


def test_rounds_gm_only_card_line_has_one_colon(ru: dict[str, str]) -> None:
    # Was «№1: Саша → Шапо: карта Спальня».
    assert "  - №1: Саша → Шапо, карта «Спальня»\n" in ru["cluedo_rounds"]
    assert "  - №1: Вова (вместо Саши) → Шапо, карта «Пистолет»\n" in ru["cluedo_rounds_levers"]


def test_final_post_heads_an_earlier_days_answer_as_the_day_post_does(
    ru: dict[str, str],
) -> None:
    # Was «[b]День 3 (последний)[/b]» over «- №4 (день 2), …»: a day-2 suggestion under
    # a day-3 heading, with no heading of its own (the day post has one).
    assert ("[b]Ответы на предположения прошлых дней[/b]\n- №4 (день 2), Веталь → Неташка:") in ru[
        "cluedo_days_grace"
    ]
    assert "День 3 (последний)" not in ru["cluedo_days_grace"]


def test_english_final_post_numbers_a_suggestion_with_the_hash_sign(texts: Transcripts) -> None:
    # The English final post wrote «- №4, Дуг → Веталь: …», the Russian sign.
    text = texts["en"]["cluedo_days_levers"]
    assert "- #4, Дуг → Веталь: **Белова**, **Молоток**, **Спальня** — refuted" in text
    assert "№" not in text


def test_final_post_says_why_a_player_is_out(ru: dict[str, str]) -> None:
    # Was «- Веталь — выбывает из игры» among the last day's suggestions, with no reason.
    assert "- Веталь — неверное обвинение, выбывает из игры\n" in ru["cluedo_days"]


def test_gm_night_outcome_puts_no_dash_between_a_name_and_its_verb(ru: dict[str, str]) -> None:
    # Was «Итог: Мария — погибает.»: a dash between subject and verb.
    assert "Итог: Мария погибает." in ru["maniac"]
    assert "  - Ночь 1: Мария погибает\n" in ru["maniac"]
    assert "— погибает" not in everywhere(ru)


def test_kept_mail_notice_says_enter_its_moves_yourself_in_russian_order(
    ru: dict[str, str],
) -> None:
    # Was «чтобы внести его ходы самому».
    assert (
        "Ответьте ЗА Веталя: <ход>, чтобы самому внести ходы из этого письма, или ОТКЛОНИТЬ 1,"
        " чтобы закрыть его, не применяя."
    ) in ru["cluedo_days_levers"]
    assert "ходы самому" not in everywhere(ru)
