"""The Maniac texts a native Russian reader found wrong in the last reading (issue 34,
last fixes).

The scripted Maniac games of :mod:`kits.golden` are played once in each locale; each
test is named after the fault, asserts the sentence pbp writes now (in English too
where the English changed) and that the old one is gone from every mail and post.
"""

from __future__ import annotations

from kits.golden import Transcripts
from kits.golden import everywhere as all_of

MANIAC = ("maniac", "maniac_levers")


def everywhere(texts: Transcripts, locale: str) -> str:
    """The Maniac scenarios' transcripts in ``locale``."""
    return all_of(texts, locale, MANIAC)


# --- 1. P2: a role in the player's gender («Любовь — дежурная», «мирная жительница») ---


def test_P2_role_names_follow_the_players_gender(texts: dict[str, dict[str, str]]) -> None:
    ru = everywhere(texts, "ru")
    # The GM sheet, the final post, the game-over mail, the story: a woman's role is feminine.
    assert "  - Любовь: дежурная\n  - Кэт: мирная жительница\n" in ru
    assert "- Любовь — [b]дежурная[/b]\n- Кэт — [b]мирная жительница[/b]\n" in ru
    assert "  - Любовь — дежурная\n  - Кэт — мирная жительница\n" in ru
    assert "Любовь получает роль: дежурная." in ru
    assert "Ваша роль: ДЕЖУРНАЯ." in ru
    assert "Ваша роль: мирная жительница." in ru
    # A man's stays masculine; «маньяк» and «фанат» are the same for both.
    assert "  - Лев — мирный житель\n  - Павел — маньяк\n" in ru
    assert "Ник — фанат" in ru
    for old in (
        "Любовь — дежурный",
        "Любовь: дежурный",
        "Кэт — мирный житель",
        "Мария — [b]мирный житель",
        "Ваша роль: ДЕЖУРНЫЙ.",
    ):
        assert old not in ru
    en = everywhere(texts, "en")
    # English has one form for both.
    assert "  - Любовь: duty officer\n  - Кэт: civilian\n" in en


# --- 2. M3: no order is not "fixed": the mail says there is none and what follows ---


def test_M3_a_missing_order_is_told_as_missing_not_as_fixed(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «Subject: Заказ на ночь 2 зафиксирован» then «Заказа на эту ночь нет: …».
    ru, en = texts["ru"]["maniac"], texts["en"]["maniac"]
    assert (
        "Subject: [golden-maniac] Заказа на ночь 2 нет\n\nИгра: golden-maniac\n\n"
        "Павел, ночь 1 закончилась, а заказа на ночь 2 вы не сделали; теперь его уже не сделать.\n"
        "В ночь 2 от вашей руки никто не умрёт (это промах, пропуски не тратятся).\n"
    ) in ru
    assert (
        "Subject: [golden-maniac] Заказа на ночь 3 нет\n\nИгра: golden-maniac\n\n"
        "Павел, день 2 закрыт, а заказа на ночь 3 вы не сделали; теперь его уже не сделать.\n"
        "В ночь 3 от вашей руки никто не умрёт (это промах, пропуски не тратятся).\n"
    ) in ru
    assert "  - Заказа маньяка на ночь 2 нет (промах)\n" in ru
    assert "  - Заказа маньяка на ночь 3 нет (промах)\n" in ru
    assert " · заказа на ночь 2 нет (промах).\n" in texts["ru"]["maniac_levers"]
    assert (
        "Subject: [golden-maniac] No order for night 2\n\nGame: golden-maniac\n\n"
        "Павел, night 1 has ended and you gave no order for night 2; it can no longer be given.\n"
        "Nobody dies by your hand on night 2 (a miss: no skip is used up).\n"
    ) in en
    assert "Павел, day 2 has closed and you gave no order for night 3;" in en
    assert "  - No order from the maniac for night 3 (a miss)\n" in en
    for text in (everywhere(texts, "ru"), everywhere(texts, "en")):
        for old in (
            "Заказ на ночь 2 зафиксирован",
            "зафиксирован: заказа нет",
            "зафиксирован — заказа нет",
            "Заказа на эту ночь нет",
            "Your order for night 2 is fixed",
            "is fixed: no order",
            "There is no order for that night",
        ):
            assert old not in text, old


# --- 3. M9: the help's examples never vote for or kill the reader himself ---


def mails_to(text: str, name: str) -> str:
    """The entries of a transcript (the first one too) that go to ``name``."""
    entries = ["====" + part for part in ("\n" + text).split("\n====")[1:]]
    return "\n".join(e for e in entries if f" → {name} <" in e.split("\n", 1)[0])


def test_M9_help_examples_name_another_player_than_the_reader(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «ГОЛОС за Никиту» in the help Никита got (welcome, reply to HELP), «ГОЛОС за Вову /
    # УБИТЬ Вову» in the briefing Вова got on taking over Никита's seat.
    nikita = mails_to(texts["ru"]["maniac"], "Никита")
    assert nikita.count("\n    ГОЛОС за Илью\n    VOTE Илья\n") >= 2  # the welcome and HELP
    assert "\n    УБИТЬ Илью НОЧЬ 2\n    KILL Илья NIGHT 2\n" in nikita
    vova = mails_to(texts["ru"]["maniac_levers"], "Вова")
    assert "\n    ГОЛОС за Илью\n    VOTE Илья\n" in vova
    assert "\n    УБИТЬ Илью НОЧЬ 2\n" in vova
    # Another reader keeps the last player as the example, in the accusative.
    assert "\n    ГОЛОС за Никиту\n    VOTE Никита\n" in mails_to(texts["ru"]["maniac"], "Лев")
    assert "\n    VOTE Илья\n    ГОЛОС Илья\n" in mails_to(texts["en"]["maniac"], "Никита")
    for old in ("ГОЛОС за Никиту", "ГОЛОС ТЮРЬМА за Никиту", "УБИТЬ Никиту"):
        assert old not in nikita, old
    for old in ("ГОЛОС за Вову", "УБИТЬ Вову", "ГОЛОС ТЮРЬМА за Вову"):
        assert old not in vova, old
    for old in ("VOTE Никита", "KILL Никита"):
        assert old not in mails_to(texts["en"]["maniac"], "Никита"), old


def test_M9_an_unknown_name_is_not_suggested_to_be_the_voters_own(
    texts: dict[str, dict[str, str]],
) -> None:
    # Мария voted «ГОЛОС Маришку»: pbp asked her «возможно, «Мария»?», her own name,
    # for a vote no player may cast for himself (M9).
    maniac = texts["ru"]["maniac"]
    assert "Неизвестный игрок «Маришку» — возможно, «Мария»?" not in maniac
    assert "> ГОЛОС Маришку\nНеизвестный игрок «Маришку».\nИгроки: Лев," in maniac
