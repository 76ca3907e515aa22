"""The texts a newcomer GM and a Russian reader found wrong in the third reading (issue
34, texts, third round).

Every scripted game of :mod:`kits.golden` is played once in each locale; each test is
named after the fault, asserts the sentence pbp writes now (in English too where the
English changed) and that the old one is gone from every mail and post. The running day
post, which no script prints, is printed by ``pbp post`` on the seed-000 table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kits.cli import run_ok
from kits.golden import LOCALES, everywhere
from kits.table import Table, utc

from pbp.games.core.registry import KINDS
from pbp.text.catalogs import translations
from pbp.text.gmcommands import SYNTAX
from pbp.text.render import Renderer

README = Path(__file__).resolve().parents[1] / "README.md"
TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


# --- 1. the limit per addressee has a subject: «все игроки вместе» ---


def test_limit_per_addressee_says_who_addresses_them_all_together(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «одному игроку все вместе могут адресовать …»: «все вместе» had no noun.
    ru = texts["ru"]["cluedo_days"]
    assert (
        "В день у вас 3 предположения, а одному игроку все игроки вместе могут адресовать"
        " за день не больше 3 предположений."
    ) in ru
    assert (
        "В день у каждого 3 предположения, а одному игроку все игроки вместе могут адресовать"
        " за день не больше 3 предположений. День закрывается в 22:30 по Москве."
    ) in ru
    assert "все вместе" not in everywhere(texts, "ru")


# --- 2. the day post while the day runs: «Предположений пока нет» (P1) ---


@pytest.mark.parametrize(
    ("locale", "running", "closed"),
    [
        ("ru", "- Предположений пока нет.", "- Предположений не было."),
        ("en", "- No suggestions yet.", "- No suggestions were made."),
    ],
)
def test_P1_running_day_post_says_no_suggestions_yet_and_the_closed_day_none_were_made(
    tmp_path: Path, locale: str, running: str, closed: str
) -> None:
    table = Table(tmp_path, locale=locale)
    try:
        table.run(utc(2026, 12, 1, 17))  # the start
        games_yaml = table.directory / "games.yaml"
        so_far = run_ok(games_yaml, "post", "seed-000", "--day", "1").splitlines()
        assert so_far[2:4] == [
            {"ru": "[b]Предположения[/b]", "en": "[b]Suggestions[/b]"}[locale],
            running,
        ]
        assert closed not in so_far
        table.run(utc(2026, 12, 1, 19, 31))  # day 1 closes (22:30 Moscow)
        summary = run_ok(games_yaml, "post", "seed-000", "--day", "1").splitlines()
        assert summary[3] == closed
        assert running not in summary
    finally:
        table.close()


# --- 3. a card named in a sentence reads as a name: «вашу карту «нож»» ---


def test_card_named_in_a_sentence_is_quoted_in_every_mail(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «показал Веталю вашу карту Библиотека», «показана карта Библиотека».
    days, rounds = texts["ru"]["cluedo_days"], texts["ru"]["cluedo_rounds"]
    assert (
        "ГМ ответил за вас и показал Веталю вашу карту «Библиотека» (первую подходящую"
        " в порядке подозреваемый — орудие — комната)."
    ) in days
    assert "Веталь показывает вам карту «Пистолет»." in days
    assert "  - №3 (Веталь → Дуг): ГМ ответил за Дуг — показана карта «Библиотека»" in days
    assert "  - №1: Неташке показана карта «Пистолет» (от Веталя)" in days
    assert "  - №1: Саша → Шапо, карта «Спальня»" in rounds
    assert "Саша показывает вам карту «Спальня»." in rounds
    assert (
        "  - №2: Любовь не ответила вовремя, ответ дал ГМ — показана карта «Библиотека»" in rounds
    )
    # («…, карта придёт вам отдельным письмом» names no card.)
    unmarked = re.compile(r"(вашу карту|показана карта|, карта|вам карту:?) (?!«|придёт)")
    assert unmarked.findall(everywhere(texts, "ru")) == []
    en = everywhere(texts, "en")
    assert (
        'The GM answered for you and showed Веталь your card "Библиотека" (the first'
        " matching one in the order suspect, weapon, room)."
    ) in texts["en"]["cluedo_days"]
    assert '  - #1: Саша → Шапо: card "Спальня"' in texts["en"]["cluedo_rounds"]
    assert re.findall(r"(your card|: card) [^\"]", en) == []


# --- 4. one tense a sentence: «ответил ГМ и показал вам карту» ---


def test_gm_answer_for_a_player_is_told_in_the_past_tense(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «За Дуг ответил ГМ и показывает вам карту: Библиотека.»; a player's own
    # answer stays in the present: «Веталь показывает вам карту «Пистолет».».
    assert "За Дуг ответил ГМ и показал вам карту «Библиотека»." in texts["ru"]["cluedo_days"]
    rounds = everywhere(texts, "ru")
    assert "За Любовь ответил ГМ (Любовь исключена) и показал вам карту «Библиотека»." in rounds
    assert "За Любовь ответил ГМ (время на ответ истекло) и показал вам карту «Библиотека»." in (
        rounds
    )
    assert re.findall(r"ответил ГМ[^.]* и показывает", everywhere(texts, "ru")) == []
    assert (
        "The GM answered for Дуг and showed you the card: Библиотека."
        in (texts["en"]["cluedo_days"])
    )
    assert re.findall(r"The GM answered for [^.]* and shows", everywhere(texts, "en")) == []


# --- 5. the GM's commands: placeholders in brackets, only the kind's deadlines ---

SHEET = {
    "ru": (
        "Команды, по одной в строке: ЗА <игрок>: <ход> · ПАУЗА · ПРОДОЛЖИТЬ · ПРОДЛИТЬ <часы>"
        " · ЗАМЕНА <игрок> НА <имя> <адрес> · АДРЕС <игрок> <новый адрес> · ИСКЛЮЧИТЬ <игрок>"
        " · ОТМЕНИТЬ <номер события> · {deadlines}ОТЛОЖЕННЫЕ · ПОВТОРИТЬ <номер>"
        " · ОТКЛОНИТЬ <номер> · ЭКСПОРТ markdown|bbcode|html · ПОМОЩЬ · СТАТУС [ВСЕ]"
        " · НОВЫЙ АДРЕС (пояснение — после « -- »)."
    ),
    "en": (
        "Commands, one per line: ACT <player>: <move> · PAUSE · RESUME · EXTEND <hours>"
        " · SUBSTITUTE <player> BY <name> <address> · ADDRESS <player> <new address>"
        " · REMOVE <player> · VOID <event> · {deadlines}KEPT · RETRY <id> · DISMISS <id>"
        " · EXPORT markdown|bbcode|html · HELP · STATUS [ALL]"
        ' · NEW ADDRESS (a note may follow " -- ").'
    ),
}
DEADLINES = {
    ("ru", "maniac"): "ЗАКРЫТЬ ДЕНЬ · ЗАВЕРШИТЬ НОЧЬ · ",
    ("ru", "cluedo_days"): "ЗАКРЫТЬ ДЕНЬ · ",
    ("ru", "cluedo_rounds"): "",
    ("en", "maniac"): "CLOSE DAY · END NIGHT · ",
    ("en", "cluedo_days"): "CLOSE DAY · ",
    ("en", "cluedo_rounds"): "",
}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("kind", ["maniac", "cluedo_days", "cluedo_rounds"])
def test_gm_sheet_writes_placeholders_in_brackets_and_the_kinds_deadline_levers_only(
    texts: dict[str, dict[str, str]], locale: str, kind: str
) -> None:
    # Was «ЗА ИГРОК: ХОД · … · АДРЕС ИГРОК НОВЫЙ · … · ЗАКРЫТЬ ДЕНЬ · ЗАВЕРШИТЬ НОЧЬ»
    # in every kind: placeholders that read as keywords, levers the game has not.
    line = SHEET[locale].format(deadlines=DEADLINES[locale, kind])
    assert line in texts[locale][kind].splitlines()


def test_gm_help_lists_the_kinds_levers_with_placeholders_in_brackets(
    texts: dict[str, dict[str, str]],
) -> None:
    # Cluedo by rounds has no game days and no nights: its HELP lists neither lever.
    ru = texts["ru"]["cluedo_rounds_levers"].splitlines()
    start = ru.index("Команды ГМа (по одной в строке, пояснение — после « -- »):")
    assert ru[start + 1 : start + 8] == [
        "  ЗА <игрок>: <ход> — внести ход за игрока (потерянное письмо)",
        "  ПАУЗА / ПРОДОЛЖИТЬ — остановить и возобновить игру",
        "  ПРОДЛИТЬ <часы> — отодвинуть срок",
        "  ЗАМЕНА <игрок> НА <имя> <адрес> — передать место новому игроку",
        "  АДРЕС <игрок> <новый адрес> — игрок играет с нового адреса (без объявления)",
        "  ИСКЛЮЧИТЬ <игрок> — исключить игрока",
        "  ОТМЕНИТЬ <номер события> — отменить ход по номеру события (номера — в pbp show)",
    ]
    assert ru[start + 8] == "  ОТЛОЖЕННЫЕ — отложенные письма ваших игр"
    en = texts["en"]["cluedo_rounds_levers"]
    assert "  ACT <player>: <move> — enter a move for a player (a lost mail)" in en
    assert "  RETRY <id> — process a kept mail again (several ids allowed)" in en
    for locale in LOCALES:
        assert re.findall(r"ИГРОК|ХОД\b|ЧАСЫ|НОМЕР\b", everywhere(texts, locale)) == []
        assert re.findall(r"PLAYER|\bMOVE\b|HOURS|\bID\b", everywhere(texts, locale)) == []


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("ru", "Пишите так: ЗА <игрок>: <ход> (или по-английски: ACT <player>: <move>)."),
        ("en", "Write it so: ACT <player>: <move>."),
    ],
)
def test_gm_syntax_refusal_writes_placeholders_in_brackets(locale: str, said: str) -> None:
    text = Renderer(TEMPLATES, kinds=KINDS).error(
        "gm_syntax", {"lever": "act", "syntax": SYNTAX["act"]}, locale=locale
    )
    assert text.endswith(said)


# --- 6. the kept-mail notice: ACT with the seat, digits grouped ---


def test_kept_mail_notice_acts_for_the_senders_seat_and_groups_the_digits(
    texts: dict[str, dict[str, str]],
) -> None:
    # Was «Ответьте ЗА ИГРОК: ХОД, …» though the sender's seat is known, and
    # «(205841 байт при пределе 100000)».
    ru = texts["ru"]["cluedo_days_levers"]
    assert (
        "  Причина: письмо больше допустимого размера, оно не прочитано"
        " (205\u00a0841 байт при пределе 100\u00a0000)"
    ) in ru
    assert (
        "Ответьте ЗА Веталя: <ход>, чтобы самому внести ходы из этого письма, или ОТКЛОНИТЬ 1,"
        " чтобы закрыть его, не применяя."
    ) in ru
    # Дуг wrote from his own address to Неташка's: the moves are his.
    assert (
        "Ответьте ПОВТОРИТЬ 2, когда адрес отправителя будет верным, ЗА Дуг: <ход>, чтобы"
        " самому внести ходы из этого письма, или ОТКЛОНИТЬ 2, чтобы закрыть его, не применяя."
    ) in ru
    assert "Ответьте ЗА Марию: <ход>, чтобы" in texts["ru"]["maniac_levers"]
    en = texts["en"]["cluedo_days_levers"]
    assert (
        "  Reason: the mail is larger than the size limit and was not read"
        " (205,827 bytes; the limit is 100,000)"
    ) in en
    assert (
        "Reply ACT Веталь: <move> to enter its moves yourself, or DISMISS 1 to close it unapplied."
    ) in en
    assert re.findall(r"\d{4,} (байт|bytes)|пределе \d{4,}|limit is \d{4,}", ru + en) == []


# --- 7. the story's line: no colon after the time, the words have their own ---


@pytest.mark.parametrize(
    ("locale", "line"),
    [
        ("ru", "- событие 5 · 1 декабря 2026 г., 20:00 · игра начинается: Неташка, Веталь, Дуг."),
        ("en", "- event 5 · December 1, 2026, 20:00 · the game starts: Неташка, Веталь, Дуг."),
    ],
)
def test_story_line_sets_its_words_apart_without_a_second_colon(
    texts: dict[str, dict[str, str]], locale: str, line: str
) -> None:
    # Was «- событие 5 · 1 декабря 2026 г., 20:00: игра начинается: Неташка, …».
    assert line in texts[locale]["cluedo_days_levers"].splitlines()
    story = [
        found
        for found in everywhere(texts, locale).splitlines()
        if re.match(r"- (событие|event) \d+ · ", found)
    ]
    assert len(story) > 50
    assert [found for found in story if ": " in found.split(" · ")[1]] == []


# --- 8. README quotes the per-deadline mails as they read now ---


def test_readme_quotes_the_per_deadline_mails_as_the_catalog_writes_them() -> None:
    ru = translations("ru")
    forum = ru.gettext("For the forum: %(titles)s") % {"titles": "…"}
    gm_only = ru.gettext("For the GM only: %(titles)s") % {"titles": "…"}
    assert (forum, gm_only) == ("Для форума — …", "Только для ГМа — …")
    readme = README.read_text(encoding="utf-8")
    assert f"(`{forum}` / `For the forum: …`)" in readme
    assert f"(`{gm_only}` / `For the GM only: …`)" in readme
    assert "`Для форума: …`" not in readme and "`Только для ГМа: …`" not in readme
