"""Rendering of forum posts and private mails (pbp.text.render; DESIGN.md "render").

Events are built by hand from the catalogue in the docstring of
:mod:`pbp.games.cluedo_days.engine`. Names from the seeds (Неташка, Веталь, Кросс).
"""

from __future__ import annotations

import logging
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import pytest
from guessgame.kind import GuessKind

from pbp.app.playermoves import reply_results
from pbp.app.shapes import MoveResult
from pbp.games.cluedo.views import start_view
from pbp.games.cluedo.wording import wording
from pbp.games.core import registry
from pbp.games.core.events import Event, Visibility
from pbp.games.core.registry import KINDS
from pbp.text.fairness import commitment
from pbp.text.render import Renderer

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
PUBLIC = Visibility.PUBLIC


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(TEMPLATES, kinds=KINDS)


def sugg(
    number: int,
    day: int,
    ordinal: int,
    suggester: str,
    addressee: str,
    cards: tuple[str, str, str] = ("Краснова", "нож", "кухня"),
) -> dict[str, Any]:
    """The ``sugg`` fields of the event catalogue."""
    suspect, weapon, room = cards
    return {
        "number": number,
        "day": day,
        "ordinal": ordinal,
        "suggester": suggester,
        "addressee": addressee,
        "suspect": suspect,
        "weapon": weapon,
        "room": room,
    }


S7 = sugg(7, 2, 2, "Неташка", "Веталь")
CANONICAL = (
    '{"deal":{"hands":{"Веталь":["Зелёный","топор","бальный зал"],'
    '"Кросс":["библиотека","спальня","бильярдная"],"Неташка":["Краснова","нож","кухня"]},'
    '"solution":{"room":"столовая","suspect":"Горчица","weapon":"верёвка"}},'
    '"game":"exler-1","salt":"00ff"}'
)
HASH = commitment(CANONICAL)

GAME_STARTED = Event(
    "game_started",
    PUBLIC,
    {
        "day": 1,
        "players": [
            {"name": "Неташка", "character": "Краснова"},
            {"name": "Веталь", "character": "Зелёный"},
            {"name": "Кросс", "character": None},
        ],
        "cards": {
            "suspects": ["Краснова", "Зелёный", "Горчица"],
            "weapons": ["нож", "верёвка", "топор"],
            "rooms": ["кухня", "бальный зал", "библиотека", "столовая", "спальня", "бильярдная"],
        },
        "commitment": HASH,
        "suggestions_per_day": 3,
        "max_per_addressee_per_day": 3,
    },
)
GAME_OVER = Event(
    "game_over",
    PUBLIC,
    {
        "winner": "Неташка",
        "solution": {"suspect": "Горчица", "weapon": "верёвка", "room": "столовая"},
        "hands": {
            "Неташка": ["Краснова", "нож", "кухня"],
            "Веталь": ["Зелёный", "топор", "бальный зал"],
            "Кросс": ["библиотека", "спальня", "бильярдная"],
        },
        "canonical": CANONICAL,
    },
)


def day_one() -> list[Event]:
    """Day 1: #1 refuted by its addressee, #2 answered by the GM at the close (C5),
    #3 still open (answer_grace_hours), Кросс penalised (D6) and wrong (C6)."""
    s1 = sugg(1, 1, 1, "Неташка", "Веталь")
    s2 = sugg(2, 1, 1, "Веталь", "Кросс", ("Горчица", "топор", "спальня"))
    s3 = sugg(3, 1, 2, "Неташка", "Кросс")
    return [
        GAME_STARTED,
        Event("suggestion_made", PUBLIC, s1),
        Event("suggestion_made", PUBLIC, s2),
        Event("suggestion_made", PUBLIC, s3),
        Event("refuted", PUBLIC, {**s1, "by_gm": False}),
        Event(
            "accusation_wrong",
            PUBLIC,
            {"player": "Кросс", "day": 1, "suspect": None, "weapon": None, "room": None},
        ),
        Event("not_refuted", PUBLIC, {**s2, "by_gm": True}),
        Event(
            "day_closed",
            PUBLIC,
            {
                "day": 1,
                "gm_answered": [2],
                "penalties": {"Кросс": 1},
                "allowances": {"Неташка": 3, "Веталь": 3, "Кросс": 0},
                "out": ["Кросс"],
            },
        ),
    ]


# --- rule D4: the ready-to-paste snippet of one move ---

SUGGESTION_SNIPPETS = {
    ("ru", "bbcode"): (
        "[b]Предположение_2 для Веталь (№7)[/b]\n"
        "Я думаю, что убийца — [b]Краснова[/b], [b]ножом[/b] [b]на кухне[/b].\n"
    ),
    ("ru", "markdown"): (
        "**Предположение_2 для Веталь (№7)**\n\n"
        "Я думаю, что убийца — **Краснова**, **ножом** **на кухне**.\n"
    ),
    ("en", "bbcode"): (
        "[b]Suggestion_2 for Веталь (#7)[/b]\n"
        "I think it was [b]Краснова[/b] [b]with the нож[/b] [b]in the кухня[/b].\n"
    ),
    ("en", "markdown"): (
        "**Suggestion_2 for Веталь (#7)**\n\n"
        "I think it was **Краснова** **with the нож** **in the кухня**.\n"
    ),
}


@pytest.mark.parametrize(("locale", "fmt"), sorted(SUGGESTION_SNIPPETS))
def test_D4_suggestion_snippet_has_seed_heading_and_every_card_bold(
    renderer: Renderer, locale: str, fmt: Any
) -> None:
    post = renderer.public_post(
        "move",
        [Event("suggestion_made", PUBLIC, S7)],
        kind="cluedo_days",
        locale=locale,
        fmt=fmt,
        wording=wording(locale),
    )
    assert post == SUGGESTION_SNIPPETS[(locale, fmt)]


def test_D4_refutation_quotes_the_suggestion_with_cards_bold_ru_bbcode(
    renderer: Renderer,
) -> None:
    post = renderer.public_post(
        "move",
        [Event("refuted", PUBLIC, {**S7, "by_gm": False})],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        wording=wording("ru"),
    )
    assert post == (
        "[b]Опровержение для Неташки[/b]\n"
        "[quote][b]Предположение_2 для Веталь (№7)[/b]\n"
        "Я думаю, что убийца — [b]Краснова[/b], [b]ножом[/b] [b]на кухне[/b].[/quote]\n"
        "Карта показана приватом.\n"
    )


def test_D4_no_refutation_by_the_gm_quotes_the_suggestion_ru_markdown(
    renderer: Renderer,
) -> None:
    post = renderer.public_post(
        "move",
        [Event("not_refuted", PUBLIC, {**S7, "by_gm": True})],
        kind="cluedo_days",
        locale="ru",
        fmt="markdown",
        wording=wording("ru"),
    )
    assert post == (
        "**Отсутствие опровержения для Неташки** (за игрока Веталь ответил ГМ)\n\n"
        "> **Предположение_2 для Веталь (№7)**\n"
        ">\n"
        "> Я думаю, что убийца — **Краснова**, **ножом** **на кухне**.\n\n"
        "Опровергнуть нечем.\n"
    )


def test_D4_refutation_en_markdown(renderer: Renderer) -> None:
    post = renderer.public_post(
        "move",
        [Event("refuted", PUBLIC, {**S7, "by_gm": False})],
        kind="cluedo_days",
        locale="en",
        fmt="markdown",
        wording=wording("en"),
    )
    assert post == (
        "**Refutation for Неташка**\n\n"
        "> **Suggestion_2 for Веталь (#7)**\n"
        ">\n"
        "> I think it was **Краснова** **with the нож** **in the кухня**.\n\n"
        "The card was shown privately.\n"
    )


# --- rule D1: the opening post ---


def test_D1_opening_post_lists_players_characters_cards_and_commitment(
    renderer: Renderer,
) -> None:
    post = renderer.public_post(
        "opening",
        [GAME_STARTED],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        game="exler-1",
        day_closes="22:30",
        timezone="Europe/Moscow",
        wording=wording("ru"),
    )
    assert post == (
        "[b]Клуэдо «exler-1»: день 1 открыт[/b]\n"
        "\n"
        "[b]Игроки и их персонажи[/b]\n"
        "- Неташка — [b]Краснова[/b]\n"
        "- Веталь — [b]Зелёный[/b]\n"
        "- Кросс\n"
        "\n"
        "[b]Карты в игре[/b]\n"
        "Подозреваемые: [b]Краснова[/b], [b]Зелёный[/b], [b]Горчица[/b]\n"
        "Орудия: [b]нож[/b], [b]верёвка[/b], [b]топор[/b]\n"
        "Комнаты: [b]кухня[/b], [b]бальный зал[/b], [b]библиотека[/b], [b]столовая[/b], "
        "[b]спальня[/b], [b]бильярдная[/b]\n"
        "\n"
        "[b]Ход игры[/b]\n"
        "В день у каждого 3 предположения, а одному игроку все игроки вместе могут адресовать "
        "за день не больше 3 предположений. День закрывается в 22:30 по Москве. На "
        "предположение, оставшееся без ответа до закрытия дня, отвечает ГМ, а у адресата на "
        "следующий день на одно предположение меньше за каждый такой ответ ГМа: два — на два "
        "меньше.\n"
        "\n"
        "[b]Честность раздачи[/b]\n"
        f"SHA-256: {HASH}\n"
        "Это отпечаток строки с решением, картами всех игроков и случайной солью; в конце "
        "игры строка будет опубликована, и каждый сможет проверить, что раздача не менялась.\n"
    )


def test_D1_opening_post_en_markdown_without_optional_context(renderer: Renderer) -> None:
    post = renderer.public_post(
        "opening",
        [GAME_STARTED],
        kind="cluedo_days",
        locale="en",
        fmt="markdown",
        wording=wording("en"),
    )
    assert post == (
        "**Cluedo: day 1 is open**\n"
        "\n"
        "**Players and their characters**\n"
        "- Неташка — **Краснова**\n"
        "- Веталь — **Зелёный**\n"
        "- Кросс\n"
        "\n"
        "**Cards in the game**\n"
        "\n"
        "Suspects: **Краснова**, **Зелёный**, **Горчица**\n"
        "\n"
        "Weapons: **нож**, **верёвка**, **топор**\n"
        "\n"
        "Rooms: **кухня**, **бальный зал**, **библиотека**, **столовая**, **спальня**, "
        "**бильярдная**\n"
        "\n"
        "**How the days go**\n"
        "\n"
        "Each day every player has 3 suggestions, and at most 3 suggestions a day may be "
        "addressed to one player, by all players together.\n"
        "\n"
        "**Fairness of the deal**\n"
        "\n"
        f"SHA-256: {HASH}\n"
        "\n"
        "This is the fingerprint of a line holding the solution, every player's cards and a "
        "random salt; the line is published when the game ends, so anyone can check that the "
        "deal never changed.\n"
    )


# --- rule D7: the day summary ---


def test_D7_day_summary_marks_gm_answers_penalties_and_allowances_ru(
    renderer: Renderer,
) -> None:
    post = renderer.public_post(
        "day",
        day_one(),
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        day=1,
        wording=wording("ru"),
    )
    assert post == (
        "[b]Итоги дня 1[/b]\n"
        "\n"
        "[b]Предположения[/b]\n"
        "- №1, Неташка → Веталь: [b]Краснова[/b], [b]нож[/b], [b]кухня[/b] — опровергнуто\n"
        "- №2, Веталь → Кросс: [b]Горчица[/b], [b]топор[/b], [b]спальня[/b] — "
        "опровержения нет (за игрока Кросс ответил ГМ)\n"
        "- №3, Неташка → Кросс: [b]Краснова[/b], [b]нож[/b], [b]кухня[/b] — "
        "ответа пока нет\n"
        "\n"
        "[b]Ответы ГМа за не ответивших до закрытия дня[/b]\n"
        "\n"
        "[b]Отсутствие опровержения для игрока Веталь[/b] (за игрока Кросс ответил ГМ)\n"
        "[quote][b]Предположение_1 для Кросс (№2)[/b]\n"
        "Я думаю, что убийца — [b]Горчица[/b], [b]топором[/b] [b]в спальне[/b].[/quote]\n"
        "Опровергнуть нечем.\n"
        "\n"
        "[b]Штрафы: на одно предположение меньше за каждое, оставшееся без ответа[/b]\n"
        "- Кросс: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше\n"
        "\n"
        "[b]Неверные обвинения[/b]\n"
        "- Кросс — выбывает из игры\n"
        "\n"
        "[b]Вне игры[/b]: Кросс\n"
        "\n"
        "[b]Предположения на день 2[/b]\n"
        "- Неташка: 3 предположения\n"
        "- Веталь: 3 предположения\n"
        "- Кросс: 0 предположений\n"
    )


def test_D7_day_summary_en_markdown_with_earlier_gm_answer(renderer: Renderer) -> None:
    """Day 2 closes: #3 of day 1 (due at this close, D6 grace) is answered by the GM."""
    s3 = sugg(3, 1, 2, "Неташка", "Кросс")
    s4 = sugg(4, 2, 1, "Веталь", "Неташка", ("Зелёный", "нож", "столовая"))
    events = [
        *day_one(),
        Event("suggestion_made", PUBLIC, s4),
        Event("refuted", PUBLIC, {**s3, "by_gm": True}),
        Event(
            "day_closed",
            PUBLIC,
            {
                "day": 2,
                "gm_answered": [3],
                "penalties": {"Кросс": 1, "Веталь": 0},
                "allowances": {"Неташка": 3, "Веталь": 3, "Кросс": 0},
                "out": ["Кросс"],
            },
        ),
    ]
    post = renderer.public_post(
        "day", events, kind="cluedo_days", locale="en", fmt="markdown", day=2, wording=wording("en")
    )
    assert post == (
        "**Day 2 summary**\n"
        "\n"
        "**Suggestions**\n"
        "- #4, Веталь → Неташка: **Зелёный**, **нож**, **столовая** — no answer yet\n"
        "\n"
        "**Answers to suggestions of earlier days**\n"
        "- #3 (day 1), Неташка → Кросс: **Краснова**, **нож**, **кухня** — refuted "
        "(the GM answered for Кросс)\n"
        "\n"
        "**The GM's answers for those who did not answer by the close**\n"
        "\n"
        "**Refutation for Неташка** (the GM answered for Кросс)\n"
        "\n"
        "> **Suggestion_2 for Кросс (#3)**\n"
        ">\n"
        "> I think it was **Краснова** **with the нож** **in the кухня**.\n"
        "\n"
        "The card was shown privately.\n"
        "\n"
        "**Penalties: one suggestion fewer for each left unanswered**\n"
        "- Кросс: 1 suggestion unanswered, 1 fewer on day 3\n"
        "\n"
        "**Out of the game**: Кросс\n"
        "\n"
        "**Suggestions for day 3**\n"
        "- Неташка: 3 suggestions\n"
        "- Веталь: 3 suggestions\n"
        "- Кросс: 0 suggestions\n"
    )


# --- rule C7: the final post ---


def test_C7_final_post_reveals_solution_hands_and_canonical_string(renderer: Renderer) -> None:
    post = renderer.public_post(
        "final",
        [GAME_STARTED, GAME_OVER],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        wording=wording("ru"),
    )
    assert post == (
        "[b]Игра окончена[/b]\n"
        "\n"
        "Победитель — [b]Неташка[/b]: обвинение оказалось верным.\n"
        "\n"
        "[b]Разгадка[/b]\n"
        "Убийца — [b]Горчица[/b], [b]верёвкой[/b] [b]в столовой[/b].\n"
        "\n"
        "[b]Карты игроков[/b]\n"
        "- Неташка: [b]Краснова[/b], [b]нож[/b], [b]кухня[/b]\n"
        "- Веталь: [b]Зелёный[/b], [b]топор[/b], [b]бальный зал[/b]\n"
        "- Кросс: [b]библиотека[/b], [b]спальня[/b], [b]бильярдная[/b]\n"
        "\n"
        "[b]Проверка честности раздачи[/b]\n"
        "Строка раздачи (решение, карты игроков, соль):\n"
        f"[code]{CANONICAL}[/code]\n"
        f"Её SHA-256: {HASH}\n"
        f"В первом посте игры был опубликован SHA-256: {HASH}\n"
        "Чтобы проверить, посчитайте SHA-256 этой строки в кодировке UTF-8, без перевода "
        "строки в конце (например, в Python: "
        'hashlib.sha256(строка.encode("utf-8")).hexdigest()), '
        "и сравните с SHA-256 из первого поста.\n"
    )


def test_C7_final_post_without_winner_en_markdown(renderer: Renderer) -> None:
    over = Event("game_over", PUBLIC, {**GAME_OVER.data, "winner": None})
    post = renderer.public_post(
        "final", [over], kind="cluedo_days", locale="en", fmt="markdown", wording=wording("en")
    )
    assert post.startswith(
        "**The game is over**\n\nThere is no winner: every player is out of the game.\n\n"
    )
    assert f"```\n{CANONICAL}\n```\n\nIts SHA-256: {HASH}\n\nTo check," in post


@pytest.mark.parametrize(
    ("locale", "heading", "line"),
    [
        (
            "ru",
            "[b]День 1 (последний)[/b]",
            "- Неташка: [b]Краснова[/b], [b]нож[/b], [b]кухня[/b] — неверное обвинение, выбывает"
            " из игры",
        ),
        (
            "en",
            "[b]Day 1 (the last)[/b]",
            "- Неташка: [b]Краснова[/b], [b]нож[/b], [b]кухня[/b] — a wrong accusation, out of"
            " the game",
        ),
    ],
)
def test_C6_final_post_lists_the_wrong_accusations_of_the_day_that_never_closed(
    renderer: Renderer, locale: str, heading: str, line: str
) -> None:
    wrong = Event(
        "accusation_wrong",
        PUBLIC,
        {"player": "Неташка", "day": 1, "suspect": "Краснова", "weapon": "нож", "room": "кухня"},
    )
    post = renderer.public_post(
        "final",
        [wrong, GAME_OVER],
        kind="cluedo_days",
        locale=locale,
        fmt="bbcode",
        wording=wording(locale),
    )
    lines = post.splitlines()
    assert lines[lines.index(heading) + 1] == line


# --- plural forms (babel, CLDR) ---


@pytest.mark.parametrize(
    ("locale", "n", "expected"),
    [
        ("ru", 1, "1 предположение"),
        ("ru", 2, "2 предположения"),
        ("ru", 5, "5 предположений"),
        ("ru", 11, "11 предположений"),
        ("ru", 21, "21 предположение"),
        ("ru", 22, "22 предположения"),
        ("en", 1, "1 suggestion"),
        ("en", 2, "2 suggestions"),
    ],
)
def test_P2_a_count_takes_the_plural_form_of_the_locales_cldr_rule(
    tmp_path: Path, locale: str, n: int, expected: str
) -> None:
    # ngettext in a template, with a message of the real catalog.
    (tmp_path / "t.j2").write_text(
        '{% trans "each player has N a day" num=n %}{{ num }} suggestion'
        "{% pluralize %}{{ num }} suggestions{% endtrans %}",
        encoding="utf-8",
    )
    template = Renderer(tmp_path, kinds=KINDS)._env(locale, "text").get_template("t.j2")
    assert template.render(n=n) == expected


@pytest.mark.parametrize(
    ("name", "case", "genders", "expected"),
    [
        ("Пётр", "acc", {}, "Петра"),
        ("Лев", "gen", {}, "Льва"),
        ("Любовь", "acc", {}, "Любовь"),
        ("Любовь", "gen", {}, "Любови"),
        ("Павел", "gen", {}, "Павла"),
        ("Неташка", "dat", {}, "Неташке"),
        ("Мария", "dat", {}, "Марии"),
        ("Веталь", "gen", {}, "игрока Веталь"),  # its form needs a gender nobody gave
        ("Кэт", "dat", {}, "игроку Кэт"),
        ("Кэт", "dat", {"Кэт": "femn"}, "Кэт"),
        ("Саша", "ins", {}, "Сашей"),  # either gender, one form
        ("Веталь", "gen", {"Веталь": "masc"}, "Веталя"),
        ("Кросс", "dat", {"Кросс": "masc"}, "Кроссу"),
        ("Дуг", "dat", {"Дуг": "femn"}, "Дуг"),
        ("Шапо", "dat", {"Шапо": "masc"}, "Шапо"),
        ("Bob", "dat", {}, "Bob"),
        ("Дядя Ваня", "dat", {}, "Дядя Ваня"),
    ],
)
def test_P2_inflect_writes_a_name_in_the_case_with_the_gender_of_games_yaml(
    tmp_path: Path, name: str, case: str, genders: dict[str, str], expected: str
) -> None:
    (tmp_path / "t.j2").write_text("{{ name|inflect(case) }}", encoding="utf-8")
    ru = Renderer(tmp_path, kinds=KINDS)._env("ru", "text").get_template("t.j2")
    en = Renderer(tmp_path, kinds=KINDS)._env("en", "text").get_template("t.j2")
    assert ru.render(name=name, case=case, genders=genders) == expected
    assert en.render(name=name, case=case, genders=genders) == name


# --- rule C4: hidden information never reaches a public post ---

SECRET_CARDS = ("кочерга", "оранжерея", "Фиолетова", "гаечный ключ", "подвал")


def mixed_events() -> list[Event]:
    """Public events plus PLAYER and GM events whose cards appear nowhere else."""
    private = [
        Event(
            "hand_dealt",
            Visibility.PLAYER,
            {"character": "Краснова", "hand": ["кочерга", "оранжерея", "Фиолетова"]},
            player="Неташка",
        ),
        Event(
            "card_shown",
            Visibility.PLAYER,
            {**sugg(1, 1, 1, "Неташка", "Веталь"), "card": "гаечный ключ", "by_gm": False},
            player="Неташка",
        ),
        Event(
            "deal",
            Visibility.GM,
            {
                "solution": {"suspect": "Фиолетова", "weapon": "кочерга", "room": "подвал"},
                "hands": {"Веталь": ["гаечный ключ", "оранжерея"]},
                "seed": 1234,
                "canonical": '{"deal":"подвал"}',
            },
        ),
        Event(
            "gm_refutation",
            Visibility.GM,
            {**sugg(2, 1, 1, "Веталь", "Кросс", ("Горчица", "топор", "спальня")), "card": "подвал"},
        ),
        Event(
            "accusation_made",
            Visibility.GM,
            {
                "player": "Кросс",
                "suspect": "Фиолетова",
                "weapon": "кочерга",
                "room": "оранжерея",
                "correct": False,
            },
        ),
    ]
    events: list[Event] = []
    for public, secret in zip(day_one(), private + [private[0]] * 10, strict=False):
        events += [secret, public]
    return [*events, GAME_OVER]


@pytest.mark.parametrize("locale", ["ru", "en"])
@pytest.mark.parametrize("fmt", ["bbcode", "markdown"])
@pytest.mark.parametrize("name", ["opening", "day", "final", "move"])
def test_C4_private_cards_never_reach_a_public_post(
    renderer: Renderer, locale: str, fmt: Any, name: str
) -> None:
    post = renderer.public_post(
        name,
        mixed_events(),
        kind="cluedo_days",
        locale=locale,
        fmt=fmt,
        day=1,
        wording=wording(locale),
    )
    assert "Краснова" in post  # the post did render the public facts
    leaked = [card for card in SECRET_CARDS if card.lower() in post.lower()]
    assert leaked == []


def test_C4_public_post_filters_events_before_a_careless_template_sees_them(
    tmp_path: Path,
) -> None:
    posts = tmp_path / "cluedo_days" / "posts"
    posts.mkdir(parents=True)
    (posts / "dump.j2").write_text(
        "{% for e in events %}{{ e.kind }} {{ e.data }} {{ e.player }}\n{% endfor %}"
    )
    post = Renderer(tmp_path, kinds=KINDS).public_post(
        "dump", mixed_events(), kind="cluedo_days", locale="ru", fmt="bbcode"
    )
    kinds = [line.split(" ", 1)[0] for line in post.splitlines()]
    assert kinds == [e.kind for e in [*day_one(), GAME_OVER]]
    assert [c for c in SECRET_CARDS if c in post] == []


def test_C4_reply_never_shows_a_card_shown_to_the_suggester(renderer: Renderer) -> None:
    """The refuter's reply: the public snippet, never the card_shown fact."""
    shown = {
        "kind": "card_shown",
        "visibility": "player",
        "player": "Неташка",
        **S7,
        "card": "кочерга",
        "by_gm": False,
    }
    refuted = {"kind": "refuted", "visibility": "public", "player": None, **S7, "by_gm": False}
    snippet = renderer.public_post(
        "move",
        [Event("refuted", PUBLIC, {**S7, "by_gm": False})],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        wording=wording("ru"),
    )
    _subject, body = renderer.private_mail(
        "cluedo_days/reply",
        locale="ru",
        game="exler-1",
        player="Веталь",
        **reply_results(
            [{"line": "ОПРОВЕРЖЕНИЕ 7 нож", "events": [shown, refuted], "snippet": snippet}]
        ),
        wording=wording("ru"),
    )
    assert "кочерга" not in body
    assert "Принято: опровержение предположения №7. Неташка получит карту приватом." in body
    assert body.endswith(
        "Для форума (скопируйте в тред игры):\n\n"
        f"{snippet}\n"
        "СТАТУС — ваши карты и долги, ПОМОЩЬ — список команд.\n"
    )


# --- private mails ---


def test_reminder_lists_owed_answers_and_suggestions_left_ru(renderer: Renderer) -> None:
    subject, body = renderer.private_mail(
        "reminder",
        kind="cluedo_days",
        locale="ru",
        game="exler-1",
        player="Неташка",
        timezone="Europe/Moscow",
        close_at=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
        duties={"owed": [sugg(7, 2, 1, "Веталь", "Неташка")], "suggestions_left": 2},
        wording=wording("ru"),
    )
    assert subject == "Напоминание: день закрывается 1 декабря 2026 г., 22:30 по Москве"
    assert body == (
        "Неташка, игровой день закрывается 1 декабря 2026 г., 22:30 по Москве.\n"
        "\n"
        "- Вы должны ответить игроку Веталь на предположение №7 (Краснова, нож, кухня).\n"
        "- На сегодня у вас осталось 2 предположения.\n"
        "\n"
        "Если не ответить до закрытия дня, за вас ответит ГМ, а завтра у вас будет на одно "
        "предположение меньше за каждый такой ответ ГМа.\n"
    )


def test_reminder_en_with_one_suggestion_left(renderer: Renderer) -> None:
    subject, body = renderer.private_mail(
        "cluedo_days/reminder",
        locale="en",
        game="exler-1",
        player="Неташка",
        timezone="Europe/Moscow",
        close_at=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
        duties={"owed": [sugg(7, 2, 1, "Веталь", "Неташка")], "suggestions_left": 1},
        wording=wording("en"),
    )
    assert subject == "Reminder: the day closes December 1, 2026, 22:30 MSK"
    assert "- You owe Веталь an answer to suggestion #7 (Краснова, нож, кухня).\n" in body
    assert "- 1 suggestion left today.\n" in body


def test_C4_addressed_mail_names_the_held_cards_and_the_command(renderer: Renderer) -> None:
    subject, body = renderer.private_mail(
        "addressed",
        kind="cluedo_days",
        locale="ru",
        game="exler-1",
        player="Веталь",
        day_closes="22:30",
        timezone="Europe/Moscow",
        suggestion=S7,
        held=["нож"],
        gm_card="нож",
        closes={"day": 1, "at": datetime(2026, 12, 1, 19, 30, tzinfo=UTC)},
        penalty_day=2,
        wording=wording("ru"),
    )
    assert subject == "Предположение №7 от Неташки"
    assert body.startswith(
        "Веталь, Неташка адресует вам предположение №7:\n"
        "  убийца — Краснова, ножом на кухне.\n"
        "\n"
        "У вас есть нож. Вы обязаны показать эту карту. Ответьте строкой:\n"
        "    ОПРОВЕРЖЕНИЕ 7 нож\n"
    )


def test_C4_card_shown_mail_tells_the_suggester_the_card(renderer: Renderer) -> None:
    subject, body = renderer.private_mail(
        "card_shown",
        kind="cluedo_days",
        locale="en",
        game="exler-1",
        player="Неташка",
        shown={**S7, "card": "нож", "by_gm": True},
        wording=wording("en"),
    )
    assert subject == "Suggestion #7: a card was shown to you"
    assert body.splitlines()[:2] == [
        "Неташка, your suggestion #7 (Краснова, нож, кухня) was refuted.",
        "The GM answered for Веталь and showed you the card: нож.",
    ]


def test_welcome_mail_gives_hand_address_and_help(renderer: Renderer) -> None:
    status = {"character": "Краснова", "hand": ["Краснова", "нож", "кухня"]}
    subject, body = renderer.private_mail(
        "welcome",
        kind="cluedo_days",
        locale="ru",
        game="exler-1",
        player="Неташка",
        personal_address="gm+k3x9@example.test",
        subject_tag=None,
        day_closes="22:30",
        timezone="Europe/Moscow",
        status=status,
        events=[GAME_STARTED],
        view=start_view([GAME_STARTED]),
        wording=wording("ru"),
    )
    assert subject == "Клуэдо: ваши карты"
    assert "Ваши карты: Краснова, нож, кухня.\n" in body
    assert "Ваш личный адрес для ходов: gm+k3x9@example.test\n" in body
    assert "    ПРЕДПОЛОЖЕНИЕ Краснова, нож, кухня ДЛЯ Кросс\n" in body
    assert "    REFUTE 7 нож\n" in body


def test_private_mail_template_must_start_with_subject(tmp_path: Path) -> None:
    mail = tmp_path / "cluedo_days" / "mail"
    mail.mkdir(parents=True)
    (mail / "bad.j2").write_text("Hello\n\nbody\n")
    with pytest.raises(ValueError, match="must start with 'Subject: '"):
        Renderer(tmp_path, kinds=KINDS).private_mail("bad", locale="en", kind="cluedo_days")


def test_a_template_changed_on_disk_is_read_again_after_a_reload_only(tmp_path: Path) -> None:
    """No file is looked at once its template is loaded (issue 18: a stat at every
    lookup); :meth:`Renderer.reload` (``pbp run``'s SIGHUP) reads it again."""
    errors = tmp_path / "errors"
    errors.mkdir(parents=True)
    text = errors / "unknown_card.txt"
    text.write_text("Before.\n")
    renderer = Renderer(tmp_path, kinds=KINDS)
    assert renderer.error("unknown_card", {}, locale="en") == "Before."
    text.write_text("After, and longer.\n")
    assert renderer.error("unknown_card", {}, locale="en") == "Before."
    renderer.reload()
    assert renderer.error("unknown_card", {}, locale="en") == "After, and longer."


def test_unknown_locale_is_refused(renderer: Renderer) -> None:
    with pytest.raises(ValueError, match="unknown locale 'de'"):
        renderer.public_post(
            "move", [], kind="cluedo_days", locale="de", fmt="bbcode", wording=wording("de")
        )


# --- error texts ---


def test_error_renders_the_code_file(tmp_path: Path) -> None:
    errors = tmp_path / "errors"
    errors.mkdir(parents=True)
    (errors / "unknown_card.txt").write_text('Unknown card "{{ card }}".\n')
    text = Renderer(tmp_path, kinds=KINDS).error("unknown_card", {"card": "Кранова"}, locale="en")
    assert text == 'Unknown card "Кранова".'


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        (
            "ru",
            "Команда не выполнена (ошибка «no_such_code»: card = нож). Проверьте ход или "
            "напишите ПОМОЩЬ, чтобы получить список команд.",
        ),
        (
            "en",
            'The command was not carried out (error "no_such_code": card = нож). Check the '
            "move, or write HELP for the list of commands.",
        ),
    ],
)
def test_error_falls_back_to_a_generic_text_and_logs_a_warning(
    renderer: Renderer, caplog: pytest.LogCaptureFixture, locale: str, expected: str
) -> None:
    with caplog.at_level(logging.WARNING, logger="pbp.text.render"):
        text = renderer.error("no_such_code", {"card": "нож"}, locale=locale)
    assert text == expected
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            f"no error text 'no_such_code' (locale {locale}) in "
            f"{TEMPLATES}/errors/no_such_code.txt; using the generic one",
        )
    ]


def test_a_missing_refusal_text_of_a_kind_names_every_file_searched(
    renderer: Renderer, caplog: pytest.LogCaptureFixture
) -> None:
    """Found by a hostile tester: the warning named ``ru/errors/card_not_held.txt``,
    no file searched; a kind's refusal is looked for in its folders first."""
    with caplog.at_level(logging.WARNING, logger="pbp.text.render"):
        renderer.error("no_such_code", {}, locale="ru", kind="cluedo_days")
    searched = ", ".join(
        f"{TEMPLATES}/{folder}/no_such_code.txt"
        for folder in ("cluedo_days/errors", "cluedo/errors", "errors")
    )
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            f"no error text 'no_such_code' (locale ru) in {searched}; using the generic one",
        )
    ]


def test_a_refusal_is_the_text_of_the_kind_of_the_game_refused(tmp_path: Path) -> None:
    """Two kinds that make the same code (a second Mafia's ``kill_syntax``) each get
    their own text, looked up through the kind at hand; a code neither has is pbp's
    shared one (``templates/errors/``), and without a kind only pbp's are found."""
    (tmp_path / "errors").mkdir()
    (tmp_path / "errors" / "no_command.txt").write_text("No command.\n")
    shutil.copytree(TEMPLATES / "common", tmp_path / "common")  # the generic refusal
    kinds = []
    for name, said in (("mafia_a", "Kill whom?"), ("mafia_b", "KILL <player>, please.")):
        folder = tmp_path / "games" / name
        (folder / "errors").mkdir(parents=True)
        (folder / "errors" / "kill_syntax.txt").write_text(f"{said}\n")
        kinds.append(type(name, (GuessKind,), {"kind": name, "templates": (folder,)})())
    for kind in kinds:
        registry.register(kind)
    try:
        renderer = Renderer(tmp_path, kinds=KINDS)
        assert renderer.error("kill_syntax", {}, locale="en", kind="mafia_a") == "Kill whom?"
        said = renderer.error("kill_syntax", {}, locale="en", kind="mafia_b")
        assert said == "KILL <player>, please."
        assert renderer.error("no_command", {}, locale="en", kind="mafia_b") == "No command."
        assert "kill_syntax" in renderer.error("kill_syntax", {}, locale="en")  # generic
    finally:
        for kind in kinds:
            registry.unregister(kind.kind)


# --- rule P2 in the seed's sentence (issue 16, items 4 and 5) ---

#: The card names of the bundled games.yaml, the tests and the seeds.
SUSPECTS = ("Краснова", "Горчичников", "Белых", "Зеленович", "Голубева", "Черниченко")
WEAPONS = ("подсвечник", "нож", "труба", "топор", "веревка", "пистолет", "Молоток")
ROOMS = ("кухня", "танцевальный зал", "терраса", "бильярдная", "библиотека", "кабинет")


def _snippet(renderer: Renderer, s: dict[str, Any], genders: dict[str, str] | None = None) -> str:
    event = Event("suggestion_made", PUBLIC, s)
    return renderer.public_post(
        "move",
        [event],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        genders=genders or {},
        wording=wording("ru"),
    )


def test_P2_the_snippet_says_the_weapon_in_the_instrumental_and_the_room_on_which_it_is(
    renderer: Renderer,
) -> None:
    s = sugg(7, 2, 2, "Неташка", "Веталь", ("Краснова", "веревка", "терраса"))
    assert _snippet(renderer, s) == (
        "[b]Предположение_2 для Веталь (№7)[/b]\n"
        "Я думаю, что убийца — [b]Краснова[/b], [b]веревкой[/b] [b]на террасе[/b].\n"
    )


def test_P2_the_suggestion_snippet_declines_a_room_of_two_words(renderer: Renderer) -> None:
    s = sugg(3, 1, 1, "Дуг", "Моро", ("Горчичников", "подсвечник", "танцевальный зал"))
    assert _snippet(renderer, s) == (
        "[b]Предположение_1 для Моро (№3)[/b]\n"
        "Я думаю, что убийца — [b]Горчичников[/b], [b]подсвечником[/b] "
        "[b]в танцевальном зале[/b].\n"
    )


def test_P2_a_suspect_of_either_gender_gets_the_same_sentence(renderer: Renderer) -> None:
    s = sugg(4, 1, 2, "Дуг", "Моро", ("Белых", "Верёвка", "бильярдная"))
    assert _snippet(renderer, s) == (
        "[b]Предположение_2 для Моро (№4)[/b]\n"
        "Я думаю, что убийца — [b]Белых[/b], [b]Верёвкой[/b] [b]в бильярдной[/b].\n"
    )


def test_P2_a_card_the_dictionary_cannot_decline_gets_the_nominative(renderer: Renderer) -> None:
    s = sugg(5, 1, 3, "Дуг", "Моро", ("Краснова", "нож", "комната отдыха"))
    assert _snippet(renderer, s) == (
        "[b]Предположение_3 для Моро (№5)[/b]\n"
        "Я думаю, что убийца — [b]Краснова[/b], орудие — [b]нож[/b], комната — "
        "[b]комната отдыха[/b].\n"
    )


@pytest.mark.parametrize("suspect", SUSPECTS)
@pytest.mark.parametrize("weapon", WEAPONS)
@pytest.mark.parametrize("room", ROOMS)
def test_P2_the_snippet_a_player_pastes_is_read_back_as_the_same_suggestion(
    renderer: Renderer, suspect: str, weapon: str, room: str
) -> None:
    from pbp.games.cluedo.cards import Cards, Suggest
    from pbp.games.cluedo.parse import parse_cluedo

    cards = Cards(suspects=SUSPECTS, weapons=WEAPONS, rooms=ROOMS)
    players = ["Неташка", "Веталь", "Дуг"]
    snippet = _snippet(renderer, sugg(7, 2, 2, "Неташка", "Веталь", (suspect, weapon, room)))
    # As a player writes it (the seed's heading without pbp's «(№7)»: with it, the
    # snippet is pbp's own text mailed back, refused as pasted_snippet).
    written = snippet.replace(" (№7)", "")
    assert written != snippet
    (parsed,) = parse_cluedo(written, cards, players)
    assert parsed.error is None
    assert parsed.move == Suggest(suspect, weapon, room, addressee="Веталь")
    (pasted,) = parse_cluedo(snippet, cards, players)
    assert (pasted.move, pasted.error and pasted.error.code) == (None, "pasted_snippet")


def test_P2_the_refutation_heading_declines_the_suggesters_name(renderer: Renderer) -> None:
    s = sugg(7, 2, 2, "Неташка", "Веталь")
    refuted = Event("refuted", PUBLIC, {**s, "by_gm": False})
    none = Event("not_refuted", PUBLIC, {**sugg(8, 2, 1, "Кросс", "Неташка"), "by_gm": False})
    post = renderer.public_post(
        "move",
        [refuted, none],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        wording=wording("ru"),
    )
    assert post.split("\n")[0] == "[b]Опровержение для Неташки[/b]"
    assert "[b]Отсутствие опровержения для игрока Кросс[/b]\n" in post
    with_gender = renderer.public_post(
        "move",
        [none],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        genders={"Кросс": "masc"},
        wording=wording("ru"),
    )
    assert with_gender.split("\n")[:2] == [
        "[b]Отсутствие опровержения для Кросса[/b]",
        "[quote][b]Предположение_1 для Неташки (№8)[/b]",
    ]


def test_P2_the_solution_reads_as_the_suggestions_in_the_final_post_and_mail(
    renderer: Renderer,
) -> None:
    over = {
        **GAME_OVER.data,
        "solution": {"suspect": "Голубева", "weapon": "труба", "room": "танцевальный зал"},
    }
    post = renderer.public_post(
        "final",
        [GAME_STARTED, Event("game_over", PUBLIC, over)],
        kind="cluedo_days",
        locale="ru",
        fmt="bbcode",
        wording=wording("ru"),
    )
    assert (
        "[b]Разгадка[/b]\nУбийца — [b]Голубева[/b], [b]трубой[/b] [b]в танцевальном зале[/b].\n"
    ) in post
    _, mail = renderer.private_mail(
        "game_over",
        locale="ru",
        kind="cluedo_days",
        game="exler-1",
        player="Веталь",
        result=over,
        won=over["winner"] == "Веталь",
        wording=wording("ru"),
    )
    assert "\nРазгадка: убийца — Голубева, трубой в танцевальном зале.\n" in mail


# --- Cluedo by rounds: names in their cases, genders, one word per thing (rule P2) ---

ROUNDS_SUGG = {"number": 2, "turn": 2, "suggester": "Саша", "suspect": "Зеленов"}
ROUNDS_SUGG |= {"weapon": "Верёвка", "room": "Библиотека"}


def _gm_facts(renderer: Renderer, player: str, genders: dict[str, str], **data: Any) -> str:
    fact = {"kind": "gm_refutation", "player": player, **ROUNDS_SUGG, "card": "Библиотека", **data}
    _, body = renderer.private_mail(
        "gm_turn",
        locale="ru",
        kind="cluedo_rounds",
        game="t-1",
        day=2,
        part="private",
        private=[fact],
        genders=genders,
        wording=wording("ru"),
    )
    return body


@pytest.mark.parametrize(
    ("player", "genders", "line"),
    [
        (
            "Любовь",
            {},
            "  - №2: Любовь не ответила вовремя, ответ дал ГМ — показана карта «Библиотека»",
        ),
        ("Лев", {}, "  - №2: Лев не ответил вовремя, ответ дал ГМ — показана карта «Библиотека»"),
        (
            "Шапо",
            {},
            "  - №2: ответа от Шапо вовремя не было, ответ дал ГМ — показана карта «Библиотека»",
        ),
        (
            "Дуг",
            {"Дуг": "femn"},
            "  - №2: Дуг не ответила вовремя, ответ дал ГМ — показана карта «Библиотека»",
        ),
        (
            "Веталь",
            {},
            "  - №2: ответа от игрока Веталь вовремя не было, ответ дал ГМ — показана карта "
            "«Библиотека»",
        ),
    ],
)
def test_P2_the_rounds_gm_fact_of_a_late_answer_agrees_with_the_players_gender(
    renderer: Renderer, player: str, genders: dict[str, str], line: str
) -> None:
    assert _gm_facts(renderer, player, genders).split("\n")[1] == line


def test_P2_the_rounds_gm_fact_of_a_removed_player_agrees_with_the_players_gender(
    renderer: Renderer,
) -> None:
    assert _gm_facts(renderer, "Мария", {}, removed=True, card=None).split("\n")[1] == (
        "  - №2: Мария исключена, ответ дал ГМ — нет карт"
    )
    assert _gm_facts(renderer, "Шапо", {}, removed=True, card=None).split("\n")[1] == (
        "  - №2: ГМ исключил из игры Шапо и ответил сам — нет карт"
    )


def test_P2_the_rounds_texts_decline_the_names_they_used_to_frame(renderer: Renderer) -> None:
    turn = [
        Event("turn_started", PUBLIC, {"turn": 2, "player": "Саша"}),
        Event("suggestion_made", PUBLIC, ROUNDS_SUGG),
        Event("refuted", PUBLIC, {**ROUNDS_SUGG, "by": "Любовь", "by_gm": False, "auto": False}),
        Event("round_ended", PUBLIC, {**ROUNDS_SUGG, "refuted_by": "Любовь"}),
    ]
    post = renderer.public_post(
        "turn", turn, kind="cluedo_rounds", locale="ru", fmt="bbcode", day=2, wording=wording("ru")
    )
    assert "\nКарта показана Саше приватом.\n" in post
    shown = {**ROUNDS_SUGG, "by": "Любовь", "card": "Библиотека", "by_gm": True, "auto": False}
    _, mail = renderer.private_mail(
        "card_shown",
        locale="ru",
        kind="cluedo_rounds",
        game="t-1",
        player="Саша",
        shown=shown,
        wording=wording("ru"),
    )
    assert mail.split("\n")[1:4] == [
        "За Любовь ответил ГМ (время на ответ истекло) и показал вам карту «Библиотека».",
        "",
        "Эту карту знаете только вы и ГМ; остальные видят лишь, что у Любови есть карта.",
    ]
    answered = {**ROUNDS_SUGG, "player": "Любовь", "card": "Библиотека"}
    _, mail = renderer.private_mail(
        "gm_answered",
        locale="ru",
        kind="cluedo_rounds",
        game="t-1",
        player="Любовь",
        answer=answered,
        wording=wording("ru"),
    )
    assert mail.split("\n")[1] == (
        "ГМ ответил за вас и показал Саше вашу карту «Библиотека» (первую подходящую в порядке "
        "подозреваемый — орудие — комната)."
    )
    accusation = {"player": "Шапо", "turn": 4, "suspect": "Краснова", "weapon": "Верёвка"}
    accusation |= {"room": "Терраса", "correct": True}
    subject, _ = renderer.private_mail(
        "gm_accusation",
        locale="ru",
        kind="cluedo_rounds",
        game="t-1",
        accusation=accusation,
        wording=wording("ru"),
    )
    assert subject == "Обвинение Шапо: верное"
    subject, _ = renderer.private_mail(
        "gm_accusation",
        locale="ru",
        kind="cluedo_rounds",
        game="t-1",
        accusation={**accusation, "player": "Веталь"},
        wording=wording("ru"),
    )
    assert subject == "Обвинение игрока Веталь: верное"


def test_one_word_per_thing_the_asked_mail_names_the_murderer_as_the_other_rounds_texts(
    renderer: Renderer,
) -> None:
    asked = {"number": 2, "turn": 2, "suggester": "Саша", "player": "Любовь", "deadline": None}
    _, mail = renderer.private_mail(
        "asked",
        locale="ru",
        kind="cluedo_rounds",
        game="t-1",
        player="Любовь",
        timezone="Europe/Moscow",
        answer_hours=12,
        asked=asked,
        suggestion=ROUNDS_SUGG,
        held=["Библиотека"],
        gm_card="Библиотека",
        wording=wording("ru"),
    )
    assert mail.split("\n")[1] == (
        "Предположение №2 от Саши: убийца — Зеленов, Верёвкой в Библиотеке."
    )


def test_the_rounds_gm_sheet_prints_its_command_address_paragraph_once(
    renderer: Renderer,
) -> None:
    sheet = {
        "solution": {"suspect": "Горчица", "weapon": "верёвка", "room": "столовая"},
        "players": [
            {"name": p, "character": None, "hand": hand}
            for p, hand in GAME_OVER.data["hands"].items()
        ],
        "canonical": CANONICAL,
    }
    _, body = renderer.private_mail(
        "gm_sheet",
        locale="ru",
        kind="cluedo_rounds",
        game="t-1",
        seed=1234,
        view=sheet,
        gm_address="gm+token@example.test",
        wording=wording("ru"),
    )
    assert body.count("Ваш адрес ГМа для команд") == 1
    assert body.endswith(
        "\n\nВаш адрес ГМа для команд (ответ на любое письмо pbp тоже приходит на этот адрес): "
        "gm+token@example.test\n"
        # Cluedo by rounds has neither game days nor nights: no ЗАКРЫТЬ ДЕНЬ, ЗАВЕРШИТЬ НОЧЬ.
        "Команды, по одной в строке: ЗА <игрок>: <ход> · ПАУЗА · ПРОДОЛЖИТЬ · ПРОДЛИТЬ <часы> · "
        "ЗАМЕНА <игрок> НА <имя> <адрес> · АДРЕС <игрок> <новый адрес> · ИСКЛЮЧИТЬ <игрок> · "
        "ОТМЕНИТЬ <номер события> · ОТЛОЖЕННЫЕ · ПОВТОРИТЬ <номер> · ОТКЛОНИТЬ <номер> · "
        "ЭКСПОРТ markdown|bbcode|html · ПОМОЩЬ · СТАТУС [ВСЕ] · "
        "НОВЫЙ АДРЕС (пояснение — после « -- »).\n"
    )


@pytest.mark.parametrize(
    ("hours", "ru", "en"),
    [
        (1, "1 час", "1 hour"),
        (2.0, "2 часа", "2 hours"),
        (5, "5 часов", "5 hours"),
        (21, "21 час", "21 hours"),
        (24.0, "24 часа", "24 hours"),
        (1.5, "1,5 часа", "1.5 hours"),
        (0.25, "0,25 часа", "0.25 hours"),
        (1000, "1\xa0000 часов", "1,000 hours"),
        # Whole as written (a hostile probe: «0 часа», the plural of a fraction).
        (0.004, "0 часов", "0 hours"),
        (1.999, "2 часа", "2 hours"),
        (20.9999, "21 час", "21 hours"),
    ],
)
def test_hours_are_written_by_babel_for_the_locale(
    renderer: Renderer, hours: float, ru: str, en: str
) -> None:
    """``h|hours`` (rule R7's turn and answer times, the GM's EXTEND): the number in the
    locale's digits (ru: a decimal comma, a no-break space between thousands), whole
    hours by the catalog's plural of their count, a fraction in the form CLDR gives
    a fraction (ru «часа»)."""
    for locale, text in (("ru", ru), ("en", en)):
        for fmt in ("text", "bbcode", "markdown"):
            template = renderer._env(locale, fmt).from_string("{{ h|hours }}")
            assert template.render(h=hours) == text


@pytest.mark.parametrize(
    ("seconds", "ru", "en"),
    [
        (3959, "1 ч 5 мин", "1 h 5 min"),
        (59, "0 мин", "0 min"),
        (300, "5 мин", "5 min"),
        (90000, "25 ч", "25 h"),
    ],
)
def test_a_duration_is_whole_hours_and_minutes_without_a_zero_part(
    renderer: Renderer, seconds: int, ru: str, en: str
) -> None:
    """``seconds|duration`` (the time a paused deadline had left): whole hours and
    minutes in the catalog's words, the seconds dropped; no zero part («7 ч», not «7 ч 0
    мин»)."""
    for locale, text in (("ru", ru), ("en", en)):
        template = renderer._env(locale, "text").from_string("{{ s|duration }}")
        assert template.render(s=seconds) == text


def test_reply_results_splits_done_from_not_done_in_mail_order() -> None:
    first: MoveResult = {"line": "A"}
    refused: MoveResult = {"line": "B", "error": "no"}
    second: MoveResult = {"line": "C"}
    assert reply_results([first, refused, second]) == {
        "results": [first, refused, second],
        "done": [first, second],
        "not_done": [refused],
        "fix": True,
    }
    nothing: MoveResult = {"line": "", "error": "no command"}
    assert reply_results([nothing])["fix"] is False


def test_reply_lists_done_lines_before_not_done_and_asks_to_fix_only_then(
    renderer: Renderer,
) -> None:
    refused: MoveResult = {"line": "ГОЛОС за Шапо", "error": "Неизвестный игрок «Шапо»."}
    done: MoveResult = {"line": "СТАТУС", "events": []}
    context = {"game": "m-1", "player": "Лев", "day_closes": "20:00", "timezone": "UTC"}
    _subject, body = renderer.private_mail(
        "maniac/reply", locale="ru", **context, **reply_results([refused, done])
    )
    assert body == (
        "Лев, вот что сделано по вашему письму.\n\n"
        "Выполнено:\n\n> СТАТУС\n\n"
        "Не выполнено:\n\n> ГОЛОС за Шапо\nНеизвестный игрок «Шапо».\n\n"
        "Исправьте невыполненные строки и пришлите их снова ответом на это письмо.\n"
        "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.\n"
    )
    _subject, body = renderer.private_mail(
        "maniac/reply", locale="ru", **context, **reply_results([done])
    )
    assert "Не выполнено" not in body
    assert "Исправьте" not in body


def test_a_dicts_key_reads_as_jinja_reads_it_attribute_first(renderer: Renderer) -> None:
    """``d.key`` looks the key up first (issue 18) but means what Jinja2 means: a dict's
    own attribute (``items``) before a key of that name, undefined for neither."""
    for fmt in ("text", "bbcode"):
        template = renderer._env("ru", fmt).from_string(
            "{{ d.kind }}|{{ d.items is callable }}|{{ d.nope is defined }}|{{ o.real }}"
        )
        assert template.render(d={"kind": "vote_cast", "items": 1}, o=2) == "vote_cast|True|False|2"
    with pytest.raises(jinja2.UndefinedError, match="'dict object' has no attribute 'nope'"):
        renderer._env("ru", "text").from_string("{{ d.nope }}").render(d={})


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_a_gm_post_mail_without_gm_only_facts_renders_nothing(
    renderer: Renderer, locale: str
) -> None:
    """The mailer sends no GM-only mail beside a post, and renders none, when the kind
    lists no GM-only facts (issue 18): each ``gm_<post>`` template with ``part="private"``
    and no facts shows nothing but its Subject."""
    # Each kind's templates, those it shares with its family (templates/cluedo/) too.
    env = renderer._env(locale, "text")
    assert env.loader is not None
    kinds = {p.parent.name for p in TEMPLATES.glob("*/mail")} & set(registry.KINDS)
    found = [
        n
        for n in env.list_templates()
        if n.split("/")[0] in kinds and re.fullmatch(r"[^/]+/mail/gm_\w+\.j2", n)
    ]
    private = '{% if part == "private" %}'
    posts = [n for n in found if private in env.loader.get_source(env, n)[0]]
    assert len(posts) == 10  # maniac 4 (opening, evening, morning, final), each Cluedo 3
    for path in posts:
        name = path.removesuffix(".j2").replace("/mail/", "/")
        context: dict[str, Any] = {
            "game": "g-1",
            "day": 2,
            "part": "private",
            "private": [],
            "timezone": "UTC",
        }
        _subject, body = renderer.private_mail(name, locale=locale, **context)
        assert body.strip() == "", name


def test_a_mail_of_a_forwarded_mail_alone_is_not_asked_to_fix_lines(
    renderer: Renderer,
) -> None:
    # It has no line of the player's to fix: its refusal says what to send instead.
    refused: MoveResult = {
        "line": "",
        "error": "В письме нет ваших ходов: в нём только пересланное письмо.",
    }
    context = {"game": "d-1", "player": "Веталь", "timezone": "UTC"}
    for kind in ("maniac", "cluedo_days", "cluedo_rounds"):
        _subject, body = renderer.private_mail(
            f"{kind}/reply", locale="ru", **context, **reply_results([refused])
        )
        assert "Не выполнено:\n\nВ письме нет ваших ходов" in body, kind
        assert "Исправьте" not in body, kind


def test_prepare_compiles_what_a_game_renders_so_none_is_compiled_at_its_first_use(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``pbp run`` compiles a game's templates beside its loop (issue 18): mails, error
    texts and parts in the text environment, posts, the story and parts in a post
    format; none of another kind's."""
    # A copy of the tree: environments of their own (the suite shares the others').
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    fresh = Renderer(templates, kinds=KINDS)
    count = fresh.prepare([("ru", "text"), ("ru", "bbcode")], {"maniac"})
    # The shared refusal texts (templates/errors/) and the kind's own
    # (templates/maniac/errors/, found as maniac/errors/<code>.txt); none of another kind's.
    names = [
        str(p.relative_to(templates))
        for p in templates.rglob("*")
        if p.is_file() and p.parts[len(templates.parts)] in ("common", "errors", "maniac")
    ]
    text = [n for n in names if "/posts/" not in n and "/story/" not in n]
    posts = [n for n in names if "/mail/" not in n and "errors/" not in n]
    assert count == len(text) + len(posts)

    def compile_nothing(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a template was compiled at its first use")

    monkeypatch.setattr(jinja2.Environment, "compile", compile_nothing)
    _subject, body = fresh.private_mail(
        "maniac/reply",
        locale="ru",
        game="m-1",
        player="Лев",
        timezone="UTC",
        **reply_results([{"line": "СТАТУС", "events": []}]),
    )
    assert body.startswith("Лев, вот что сделано по вашему письму.\n")
    example = {"player": "Лев", "other": "Павел", "night": 2, "next_night": 3}
    params = {"line": "ГОЛОС", "players": ["Лев", "Павел"], "example": example}
    assert fresh.error("vote_syntax", params, locale="ru", kind="maniac").startswith(
        "Не понял, за кого голос:"
    )
    with pytest.raises(AssertionError, match="compiled at its first use"):
        fresh.private_mail(
            "cluedo_days/reply",
            locale="ru",
            game="d-1",
            player="Лев",
            timezone="UTC",
            **reply_results([]),
        )
