"""The GM's texts a native Russian reader found wrong in the last reading (issue 34,
last fixes): the confirmation request, an extension, the gathered posts, the kept-mail
digest, a substitute's briefing during a pause, a voided kill order.

Every scripted game of :mod:`kits.golden` is played once in each locale; each test is
named after the fault, asserts the sentence pbp writes now and that the old one is gone.
"""

from __future__ import annotations

from kits.golden import everywhere, mails

# --- 1. the confirmation request: one command is «команда», a published note is told ---


def test_gm_confirm_of_one_command_is_singular(texts: dict[str, dict[str, str]]) -> None:
    ru = everywhere(texts, "ru")
    assert "pbp получил команду ГМа для игры «Клуэдо по дням» и пока не выполнил её:\n" in ru
    assert "\nЧтобы выполнить её, ответьте на это письмо" in ru
    assert "выполняет команду один раз; автоответ («я в отпуске») её не выполнит." in ru
    assert "\nЕсли вы не посылали этой команды, не отвечайте: её написал кто-то" in ru
    assert "и пока не выполнил ни одной" not in ru  # the scenarios send one lever a mail
    assert "Чтобы выполнить их по порядку" not in ru


def test_gm_confirm_says_the_note_goes_into_the_forum_post(
    texts: dict[str, dict[str, str]],
) -> None:
    ru = texts["ru"]
    told = "\nПояснение после « -- » попадёт в пост для форума.\n"
    # VOID of a suggestion: its note is printed in the post («Примечание ГМа: не та комната»).
    request = next(m for m in mails(ru["cluedo_days_levers"]) if "ОТМЕНИТЬ 6 -- не та комната" in m)
    assert told in request
    # A lever without a note, or whose note stays in the log, is not told so.
    for scenario in ("cluedo_days_levers", "cluedo_rounds_levers", "maniac_levers"):
        for mail in mails(ru[scenario]):
            if "pbp получил команд" in mail and " -- " not in mail.replace(told, ""):
                assert told not in mail
    assert 'A note after " -- " goes into the post for the forum.' in everywhere(texts, "en")


# --- 2. an extension in minutes or hours, and which deadline it moves ---


def test_extension_names_the_deadline_and_minutes(texts: dict[str, dict[str, str]]) -> None:
    ru, en = texts["ru"], texts["en"]
    assert "[b]Закрытие дня 1 отложено на 30 минут.[/b]" in ru["maniac_levers"]
    assert "**Закрытие дня 1 отложено на 30 минут.**" in ru["maniac_levers"]
    assert "ГМ продлевает срок на 30 минут." in ru["maniac_levers"]
    assert "0,5 часа" not in everywhere(texts, "ru")
    # Cluedo by rounds: the event does not tell a turn's deadline from an answer's.
    assert "[b]Срок продлён на 2 часа.[/b]" in ru["cluedo_rounds_levers"]
    assert "The close of day 1 is put off by 30 minutes." in en["maniac_levers"]
    assert "0.5 hours" not in everywhere(texts, "en")


# --- 3. a cut line between two gathered posts ---


def test_gathered_posts_have_a_cut_line_between_them(texts: dict[str, dict[str, str]]) -> None:
    cut = "\n———— ✂ здесь разрезать: дальше следующий пост ————\n\n"
    gathered = [
        m for m in mails(texts["ru"]["maniac_levers"]) if "Subject: [Маньяк 2] Для форума — " in m
    ]
    assert gathered
    for mail in gathered:
        assert cut + "**Игра окончена**\n" in mail or cut + "[b]Игра окончена[/b]\n" in mail
    assert "итоги — в финальном посте.**\n\n**Игра окончена**" not in texts["ru"]["maniac_levers"]


# --- 4. the digest: one sentence per kind of kept mail, commands offered plainly ---


def test_digest_counts_each_kind_in_a_sentence(texts: dict[str, dict[str, str]]) -> None:
    ru = texts["ru"]["maniac_levers"]
    assert (
        "\n  1 письмо: посторонний написал на личный адрес игрока (ответ не чаще раза в сутки).\n"
        in ru
    )
    assert "  1 — посторонний" not in ru
    assert (
        "\nОтвечать на это письмо не обязательно. Если нужно, ответьте на него командами:"
        " ОТЛОЖЕННЫЕ — список отложенных писем," in ru
    )
    assert "Ответом на него:" not in ru


# --- 5. a substitute's briefing during a pause names no deadline that will move ---


def test_briefing_in_a_pause_names_no_answer_deadline(texts: dict[str, dict[str, str]]) -> None:
    ru = texts["ru"]["cluedo_rounds_levers"]
    assert (
        "\nВы должны ответить на предположение №1 от Шапо (Краснова, Пистолет, Спальня)."
        " Срок ответа назовём, когда игра продолжится (сейчас пауза).\n" in ru
    )
    assert "(Краснова, Пистолет, Спальня) до 2 декабря 2026 г., 08:20 по Москве." not in ru


# --- 6. a voided kill order: by when to send a new one, as a date ---


def test_voided_order_gives_the_time_of_the_deadline(texts: dict[str, dict[str, str]]) -> None:
    ru = texts["ru"]["maniac_levers"]
    assert (
        "Заказа на эту ночь сейчас нет: пришлите новый до конца ночи 1"
        " — 2 декабря 2026 г., 10:00 по Москве.\n" in ru
    )
    assert "пришлите новый до конца ночи 1.\n" not in ru
