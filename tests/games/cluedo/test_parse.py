"""Cluedo commands in a mail body (issue 2, "Fixed interface"; seed 001's own form).

Cards and players are those of seed 000 ("Список карт", "Порядок ходов").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kits import seed_000
from kits.seed_000 import CARDS, ROOMS, SUSPECTS, WEAPONS

from pbp.games.cluedo.cards import Accuse, Cards, Help, NoRefutation, Refute, Status, Suggest
from pbp.games.cluedo.parse import ERROR_CODES, ParsedLine, parse_cluedo
from pbp.games.cluedo.wording import wording
from pbp.games.core.events import AmbiguousMove, InvalidMove
from pbp.games.core.registry import KINDS
from pbp.text.render import Renderer

PLAYERS = list(seed_000.PLAYERS)
EXAMPLE = {"suspect": "Краснова", "weapon": "подсвечник", "room": "кухня", "player": "Алиен"}
TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def parse(text: str, *, addressed: bool = True) -> list[ParsedLine]:
    return parse_cluedo(text, CARDS, PLAYERS, addressed=addressed)


def moves(text: str, *, addressed: bool = True) -> list[Any]:
    lines = parse(text, addressed=addressed)
    assert [line.error for line in lines] == [None] * len(lines)
    return [line.move for line in lines]


def only_error(text: str, *, addressed: bool = True) -> InvalidMove | AmbiguousMove:
    [line] = parse(text, addressed=addressed)
    assert line.move is None
    assert isinstance(line.error, InvalidMove | AmbiguousMove)
    return line.error


# --- the fixed interface ---


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("SUGGEST Краснова, нож, кухня TO Веталь", Suggest("Краснова", "нож", "кухня", "Веталь")),
        ("suggest: Краснова, нож, кухня to Веталь", Suggest("Краснова", "нож", "кухня", "Веталь")),
        (
            "ПРЕДПОЛОЖЕНИЕ Горчичников, подсвечник, танцевальный зал ДЛЯ Неташки",
            Suggest("Горчичников", "подсвечник", "танцевальный зал", "Неташка"),
        ),
        (
            "Предположение: в бильярдной, Зеленовичем, трубой для Дуга",
            Suggest("Зеленович", "труба", "бильярдная", "Дуг"),
        ),
        (
            "SUGGEST Белых ножом в кухне TO Моро",
            Suggest("Белых", "нож", "кухня", "Моро"),
        ),
        (
            "[b]SUGGEST[/b] **Голубева**, [b]топор[/b], терраса TO Марии.",
            Suggest("Голубева", "топор", "терраса", "Мария"),
        ),
        ("REFUTE 7 нож", Refute("нож", 7)),
        ("refute нож", Refute("нож", None)),
        ("ОПРОВЕРЖЕНИЕ №12: Краснову", Refute("Краснова", 12)),
        ("Опровержение #3 в библиотеке", Refute("библиотека", 3)),
        ("REFUTE N7 пистолетом", Refute("пистолет", 7)),
        ("NO REFUTATION", NoRefutation(None)),
        ("NO REFUTATION 7", NoRefutation(7)),
        ("нет опровержения №7.", NoRefutation(7)),
        ("НЕТ ОПРОВЕРЖЕНИЯ: #12", NoRefutation(12)),
        ("ACCUSE Черниченко, веревка, холл", Accuse("Черниченко", "веревка", "холл")),
        ("обвинение: в гостиной, Белых, пистолет", Accuse("Белых", "пистолет", "гостиная")),
        ("STATUS", Status()),
        ("статус", Status()),
        ("HELP", Help()),
        ("Помощь!", Help()),
    ],
)
def test_each_command_form_gives_its_move(text: str, move: Any) -> None:
    assert parse(text) == [ParsedLine(1, text, move, None)]


def test_every_card_of_seed_000_is_read_in_a_suggestion_and_a_refutation() -> None:
    for suspect, weapon, room in zip(SUSPECTS * 2, WEAPONS * 2, ROOMS, strict=False):
        text = f"SUGGEST {room}, {suspect}, {weapon} TO Алиен"
        assert moves(text) == [Suggest(suspect, weapon, room, "Алиен")]
    for card in CARDS.all():
        assert moves(f"REFUTE 1 {card.upper()}") == [Refute(card, 1)]


def test_several_commands_in_one_mail_keep_their_line_numbers_and_chatter_is_omitted() -> None:
    text = (
        "Привет всем!\n"
        "\n"
        "SUGGEST Краснова, нож, кухня TO Веталь\n"
        "Вот так вот.\n"
        "NO REFUTATION 4\n"
        "Help me out here, please\n"
        "СТАТУС\n"
    )
    assert parse(text) == [
        ParsedLine(
            3,
            "SUGGEST Краснова, нож, кухня TO Веталь",
            Suggest("Краснова", "нож", "кухня", "Веталь"),
            None,
        ),
        ParsedLine(5, "NO REFUTATION 4", NoRefutation(4), None),
        ParsedLine(7, "СТАТУС", Status(), None),
    ]


def test_lines_inside_a_bbcode_quote_are_skipped() -> None:
    text = "[quote]\nSUGGEST Краснова, нож, кухня TO Веталь\n[/quote]\nNO REFUTATION 2"
    assert parse(text) == [ParsedLine(4, "NO REFUTATION 2", NoRefutation(2), None)]


def test_an_empty_or_chatty_mail_has_no_lines() -> None:
    assert parse("") == []
    assert parse("Всем привет, играю!\nДумаю, что это Белых.") == []


# --- seed 001's own form ---


def test_seed_001_heading_and_sentence_with_inflected_names() -> None:
    text = (
        "[b]Предположение_2 для Веталь[/b]\n"
        "\n"
        "Я думаю, что убийство совершила [b]Краснова[/b], орудием [b]ножом[/b] "
        "в комнате [b]кухне[/b]\n"
    )
    [line] = parse(text)
    assert line == ParsedLine(
        1,
        "[b]Предположение_2 для Веталь[/b]\nЯ думаю, что убийство совершила [b]Краснова[/b], "
        "орудием [b]ножом[/b] в комнате [b]кухне[/b]",
        Suggest("Краснова", "нож", "кухня", "Веталь"),
        None,
    )


@pytest.mark.parametrize(
    ("heading", "sentence", "move"),
    [
        (
            "Предположение 3 для Неташки",
            "Я думаю, что убийство совершил(а) Горчичников, орудием подсвечником "
            "в комнате танцевальном зале.",
            Suggest("Горчичников", "подсвечник", "танцевальный зал", "Неташка"),
        ),
        (
            "Предположение_1 для Дуга:",
            "«Я думаю, что убийство совершил Зеленович, орудием трубой в бильярдной»",
            Suggest("Зеленович", "труба", "бильярдная", "Дуг"),
        ),
        (
            "**Предположение_1 для Алиена**",
            "я думаю что убийство совершила Голубева топором в столовой",
            Suggest("Голубева", "топор", "столовая", "Алиен"),
        ),
    ],
)
def test_seed_001_sentence_variants(heading: str, sentence: str, move: Suggest) -> None:
    assert moves(f"{heading}\n{sentence}") == [move]


def test_seed_001_sentence_wrapped_by_the_client_is_joined() -> None:
    text = (
        "Предположение_1 для Моро\n"
        "Я думаю, что убийство совершил Белых, орудием веревкой в\n"
        "комнате библиотеке\n"
        "SUGGEST Краснова, нож, холл TO Марии"
    )
    assert moves(text) == [
        Suggest("Белых", "веревка", "библиотека", "Моро"),
        Suggest("Краснова", "нож", "холл", "Мария"),
    ]


def test_seed_001_heading_without_a_sentence_is_a_syntax_error() -> None:
    error = only_error("Предположение_1 для Моро\n\nНу вот.")
    assert error.code == "suggest_syntax"
    assert error.params == {
        "line": "Предположение_1 для Моро",
        "count": 0,
        "example": EXAMPLE,
        "addressed": True,
    }


def test_seed_001_sentence_without_heading_needs_an_addressee() -> None:
    error = only_error("Я думаю, что убийство совершил Белых, топором в библиотеке")
    assert error.code == "missing_addressee"
    assert error.params["players"] == PLAYERS


def test_seed_001_sentence_typo_names_the_card_and_suggests() -> None:
    error = only_error(
        "Предположение_1 для Моро\nЯ думаю, что убийство совершила Кранова, ножом в кухне"
    )
    assert error.code == "unknown_name"
    assert error.params["word"] == "Кранова"
    assert error.params["suggestion"] == "Краснова"


# --- errors ---


def test_typo_in_a_card_is_refused_with_a_suggestion() -> None:
    error = only_error("SUGGEST Кранова, нож, кухня TO Веталь")
    assert isinstance(error, InvalidMove)
    assert error.code == "unknown_name"
    assert error.params == {
        "word": "Кранова",
        "suggestion": "Краснова",
        "allowed": list(CARDS.all()),
        "kind": "card",
        "line": "SUGGEST Кранова, нож, кухня TO Веталь",
    }


def test_a_player_name_is_not_a_card_and_a_card_is_not_a_player() -> None:
    error = only_error("REFUTE 3 Веталь")
    assert (error.code, error.params["kind"], error.params["word"]) == (
        "unknown_name",
        "card",
        "Веталь",
    )
    error = only_error("SUGGEST Краснова, нож, кухня TO Белых")
    assert (error.code, error.params["kind"], error.params["word"]) == (
        "unknown_name",
        "player",
        "Белых",
    )
    assert error.params["allowed"] == PLAYERS


def test_two_cards_of_one_category_name_them() -> None:
    error = only_error("SUGGEST Краснова, нож, труба TO Веталь")
    assert error.code == "card_categories"
    assert error.params == {
        "line": "SUGGEST Краснова, нож, труба TO Веталь",
        "cards": ["Краснова", "нож", "труба"],
        "category": "weapon",
        "doubled": ["нож", "труба"],
        "missing": ["room"],
        "allowed": {"suspects": list(SUSPECTS), "weapons": list(WEAPONS), "rooms": list(ROOMS)},
    }


@pytest.mark.parametrize(
    ("text", "code", "count"),
    [
        ("SUGGEST Краснова, нож TO Веталь", "suggest_syntax", 2),
        ("SUGGEST", "suggest_syntax", 0),
        ("Предположение интересное", "suggest_syntax", 0),
        ("ACCUSE Краснова, нож, кухня, холл", "accuse_syntax", 4),
    ],
)
def test_not_three_cards_is_a_syntax_error_with_an_example(
    text: str, code: str, count: int
) -> None:
    error = only_error(text)
    assert error.code == code
    assert error.params == {"line": text, "count": count, "example": EXAMPLE, "addressed": True}


def test_suggestion_without_addressee() -> None:
    error = only_error("SUGGEST Краснова, нож, кухня")
    assert error.code == "missing_addressee"
    assert error.params == {
        "line": "SUGGEST Краснова, нож, кухня",
        "players": PLAYERS,
        "example": EXAMPLE,
    }


def test_refute_without_a_card() -> None:
    error = only_error("REFUTE 7")
    assert error.code == "refute_syntax"
    assert error.params == {"line": "REFUTE 7", "example": {"number": 7, "card": "подсвечник"}}


def test_no_refutation_with_extra_words() -> None:
    error = only_error("NO REFUTATION 7 нож")
    assert error.code == "no_refutation_syntax"
    assert error.params == {"line": "NO REFUTATION 7 нож", "example": {"number": 7}}


def test_ambiguous_card_name() -> None:
    cards = Cards(
        ("Краснов", "Краснова", "Белых"), ("нож", "труба", "топор"), ("кухня", "холл", "зал")
    )
    [line] = parse_cluedo("REFUTE Краснову", cards, PLAYERS)
    assert isinstance(line.error, AmbiguousMove)
    assert line.error.params == {
        "word": "Краснову",
        "candidates": ["Краснов", "Краснова"],
        "kind": "card",
        "line": "REFUTE Краснову",
    }


# --- rounds variant (no addressee) ---


def test_rounds_variant_takes_suggestions_without_addressee() -> None:
    text = (
        "SUGGEST Краснова, нож, кухня\n"
        "Я думаю, что убийство совершил Белых, орудием топором в комнате библиотеке\n"
    )
    assert moves(text, addressed=False) == [
        Suggest("Краснова", "нож", "кухня", None),
        Suggest("Белых", "топор", "библиотека", None),
    ]


def test_rounds_variant_refuses_an_addressee() -> None:
    error = only_error("SUGGEST Краснова, нож, кухня TO Веталя", addressed=False)
    assert error.code == "unexpected_addressee"
    assert error.params == {"line": "SUGGEST Краснова, нож, кухня TO Веталя", "player": "Веталь"}
    error = only_error(
        "Предположение_1 для Дуга\nЯ думаю, что убийство совершил Белых, топором в библиотеке",
        addressed=False,
    )
    assert (error.code, error.params["player"]) == ("unexpected_addressee", "Дуг")
    assert (
        parse_cluedo("SUGGEST Краснова, нож, кухня TO Веталь", CARDS, PLAYERS, addressed=False)[
            0
        ].error
        is not None
    )


# --- player-facing texts ---


def render(locale: str, code: str, params: dict[str, Any]) -> str:
    """The refusal's text as players get it (``templates/cluedo/errors/<code>.txt``, shared
    by both variants, else ``templates/errors/<code>.txt``)."""
    params = {"wording": wording(locale), **params}
    return Renderer(TEMPLATES, kinds=KINDS).error(code, params, locale=locale, kind="cluedo_days")


def test_unknown_card_text_suggests_and_lists_the_cards() -> None:
    error = only_error("SUGGEST Кранова, нож, кухня TO Веталь")
    cards = ", ".join(CARDS.all())
    assert render("ru", error.code, error.params) == (
        f"Неизвестная карта «Кранова» — возможно, «Краснова»?\nКарты в игре: {cards}."
    )
    assert render("en", error.code, error.params) == (
        f'Unknown card "Кранова" — did you mean "Краснова"?\nCards in the game: {cards}.'
    )


def test_card_categories_text() -> None:
    error = only_error("ACCUSE Краснова, нож, труба")
    assert render("ru", error.code, error.params).split("\n")[0] == (
        "Нужно по одной карте каждого вида: персонаж, орудие, комната. Здесь несколько "
        "орудий: нож, труба; не хватает: комната."
    )


def test_suggest_syntax_text_shows_both_forms() -> None:
    error = only_error("SUGGEST Краснова TO Веталь")
    assert render("ru", error.code, error.params) == (
        "Не удалось прочитать предположение: нужны три карты — персонаж, орудие и комната, "
        "и кому оно адресовано. Например:\n"
        "ПРЕДПОЛОЖЕНИЕ Краснова, подсвечник, кухня ДЛЯ Алиен\n"
        "или, как на форуме:\n"
        "Предположение_1 для Алиен\n"
        "Я думаю, что убийца — Краснова, подсвечником на кухне."
    )
    assert render("en", error.code, error.params) == (
        "The suggestion could not be read: it needs three cards — a suspect, a weapon and a "
        "room — and the player it is for. For example:\n"
        "SUGGEST Краснова, подсвечник, кухня TO Алиен"
    )


SAMPLES = [
    "SUGGEST Кранова, нож, кухня TO Веталь",
    "SUGGEST Краснова, нож, труба TO Веталь",
    "SUGGEST Краснова TO Веталь",
    "ACCUSE Краснова",
    "REFUTE 7",
    "NO REFUTATION 7 нож",
    "SUGGEST Краснова, нож, кухня",
    "Обвиняю Белых, нож, кухня",
    "REFUTE 1 " + "нож " * 200,
    "SUGGEST Краснова, нож, кухня TO Веталь, Дуг",
    "[b]Предположение_1 для Веталь (№3)[/b]\nЯ думаю, что убийство совершила Краснова, "
    "орудием ножом в комнате кухне.",
]


def test_C4_pbps_own_forum_snippet_pasted_back_is_refused_not_made_again() -> None:
    # The snippet pbp gives a player for the forum carries the game-wide «(№N)»: mailed
    # back, it is pbp's own text, never a second suggestion (a quote is never executed).
    snippet = (
        "[b]Предположение_1 для Веталь (№3)[/b]\n"
        "Я думаю, что убийство совершила [b]Краснова[/b], орудием [b]ножом[/b] в комнате "
        "[b]кухне[/b].\n"
        "СТАТУС"
    )
    lines = parse(snippet)
    assert [(line.line_no, line.move) for line in lines] == [(1, None), (3, Status())]
    error = lines[0].error
    assert isinstance(error, InvalidMove)
    assert (error.code, error.params["number"]) == ("pasted_snippet", 3)
    assert render("ru", error.code, error.params) == (
        "Это текст для форума, который pbp прислал вам для предположения №3 (его место — в "
        "треде игры): ничего не сделано, предположение №3 остаётся каким было. Новое "
        "предположение пишите командой, одной строкой."
    )
    # The seed's heading as a player writes it, without pbp's number, is a suggestion.
    written = parse(
        "Предположение_1 для Веталь\nЯ думаю, что убийство совершила Краснова, орудием "
        "ножом в комнате кухне."
    )
    assert [line.move for line in written] == [Suggest("Краснова", "нож", "кухня", "Веталь")]


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_every_error_code_has_a_text_in_each_locale(locale: str) -> None:
    cards = Cards(
        ("Краснов", "Краснова", "Белых"), ("нож", "труба", "топор"), ("кухня", "холл", "зал")
    )
    errors = [line.error for text in SAMPLES for line in parse(text)]
    errors.append(parse_cluedo("REFUTE Краснову", cards, PLAYERS)[0].error)
    errors.append(parse("SUGGEST Краснова, нож, кухня TO Веталь", addressed=False)[0].error)
    errors.append(parse("STATUS\n" * 51)[50].error)
    seen = set()
    for error in errors:
        assert error is not None
        text = render(locale, error.code, error.params)
        assert text and "{" not in text
        seen.add(error.code)
    assert seen == set(ERROR_CODES)
    assert render(locale, "no_command", {}).count("\n") == 0


# --- forum quotes and spoilers (attack report, item 1) ---

FORUM_POSTS = (
    "SUGGEST Белых, нож, кухня TO Веталь\nПредположение_2 для Дуга\n"
    "Я думаю, что убийство совершил Зеленович, орудием трубой в бильярдной"
)


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        ('[quote name="Неташка"]', "[/quote]"),
        ("[quote author=Неташка link=topic=1.msg2 date=1700000000]", "[/quote]"),
        ("[quote=Неташка]", "[/quote]"),
        ('[QUOTE="Неташка"]', "[/QUOTE]"),
        ("[spoiler]", "[/spoiler]"),
        ("[spoiler=Ходы дня]", "[/spoiler]"),
    ],
)
def test_quoted_forum_posts_with_attributes_are_not_moves(opening: str, closing: str) -> None:
    text = (
        f"{opening}{FORUM_POSTS}{closing}\n"
        f"{opening}\nACCUSE Белых, нож, кухня\n{closing}\n"
        "Согласен с Неташкой, интересный ход."
    )
    assert parse(text) == []


def test_nested_quotes_and_text_around_a_quote_on_one_line() -> None:
    text = (
        '[quote=Веталь][quote name="Неташка"]REFUTE 1 нож[/quote]\n'
        "SUGGEST Белых, нож, кухня TO Дуг\n"
        "[/quote]NO REFUTATION 4\n"
        "СТАТУС [spoiler]ACCUSE Белых, нож, кухня[/spoiler]\n"
    )
    assert parse(text) == [
        ParsedLine(3, "NO REFUTATION 4", NoRefutation(4), None),
        ParsedLine(4, "СТАТУС", Status(), None),
    ]


def test_an_unclosed_quote_hides_the_rest_of_the_mail() -> None:
    assert parse("STATUS\n[quote author=Дуг]\nREFUTE 1 нож\nHELP") == [
        ParsedLine(1, "STATUS", Status(), None)
    ]


# --- look-alike letters (item 5) ---


def test_latin_look_alikes_in_cyrillic_keywords_and_names_are_read_as_cyrillic() -> None:
    # Latin o in "Предпoложение" and "нoж", Latin e in "Вeталь", Latin a and c in "кaбинет".
    text = "Предпoложение Белых, нoж, кaбинет для Вeталь\nОПРОВЕРЖЕНИЕ 2 нoжом\nНЕТ OПРОВЕРЖЕНИЯ 3"
    assert "o" in text and "e" in text and "a" in text
    assert moves(text) == [
        Suggest("Белых", "нож", "кабинет", "Веталь"),
        Refute("нож", 2),
        NoRefutation(3),
    ]


def test_cyrillic_look_alikes_in_latin_names_are_read_as_latin() -> None:
    cards = Cards(("Mrs Peacock", "Colonel Mustard"), ("Knife", "Rope"), ("Kitchen", "Hall"))
    # Cyrillic К, е, с, о in otherwise Latin words.
    [line] = parse_cluedo("ACCUSE Mrs Pеacock, Кnife, Kitсhen", cards, PLAYERS)
    assert line.move == Accuse("Mrs Peacock", "Knife", "Kitchen")
    [line] = parse_cluedo("REFUTE 1 Rоpe", cards, PLAYERS)
    assert line.move == Refute("Rope", 1)


# --- keyword forms and near misses (item 6) ---


@pytest.mark.parametrize(
    ("text", "move"),
    [
        (
            "Предположения: Белых, нож, кухня для Веталь",
            Suggest("Белых", "нож", "кухня", "Веталь"),
        ),
        ("Нет опровержений", NoRefutation(None)),
        ("Нет опровержений на 7", NoRefutation(7)),
        ("Опровержения нет", NoRefutation(None)),
        ("Опровержения нет №7.", NoRefutation(7)),
        ("Опровержение: нет", NoRefutation(None)),
        ("No refutations 3", NoRefutation(3)),
        ("Обвинения: Белых, нож, кухня", Accuse("Белых", "нож", "кухня")),
        ("Suggestions Белых, нож, кухня to Моро", Suggest("Белых", "нож", "кухня", "Моро")),
    ],
)
def test_other_grammatical_forms_of_a_keyword_are_understood(text: str, move: Any) -> None:
    assert parse(text) == [ParsedLine(1, text, move, None)]


@pytest.mark.parametrize(
    ("text", "word", "suggestion"),
    [
        ("Предпложение Белых, нож, кухня для Веталь", "Предпложение", "ПРЕДПОЛОЖЕНИЕ"),
        ("Обвиняю Белых, нож, кухня", "Обвиняю", "ОБВИНЕНИЕ"),
        ("Опровергаю 1 нож", "Опровергаю", "ОПРОВЕРЖЕНИЕ"),
        ("Нет опровержниия 7", "Нет опровержниия", "НЕТ ОПРОВЕРЖЕНИЯ"),
        ("Sugest Белых, нож, кухня to Веталь", "Sugest", "SUGGEST"),
        ("Acuse Белых, нож, кухня", "Acuse", "ACCUSE"),
        ("Статс", "Статс", "СТАТУС"),
        ("Помошь!", "Помошь", "ПОМОЩЬ"),
    ],
)
def test_a_misspelt_keyword_is_refused_with_the_keyword_it_resembles(
    text: str, word: str, suggestion: str
) -> None:
    error = only_error(text)
    assert error.code == "unknown_command"
    assert error.params == {
        "line": text.rstrip("!"),
        "word": word,
        "suggestion": suggestion,
        "commands": {
            "ru": [
                "ПРЕДПОЛОЖЕНИЕ",
                "ОПРОВЕРЖЕНИЕ",
                "НЕТ ОПРОВЕРЖЕНИЯ",
                "ОБВИНЕНИЕ",
                "СТАТУС",
                "ПОМОЩЬ",
            ],
            "en": ["SUGGEST", "REFUTE", "NO REFUTATION", "ACCUSE", "STATUS", "HELP"],
        },
    }


@pytest.mark.parametrize(
    "text",
    [
        "Привет всем",
        "Подумаю и отвечу вечером",
        "Продолжение следует",
        "Положение отчаянное",
        "Нет, спасибо",
        "Статуя во дворе",
        "Hello",
        "Helo there",
        "Help me out here",
        "Status quo, as they say",
    ],
)
def test_chat_that_merely_begins_like_a_keyword_is_ignored(text: str) -> None:
    assert parse(text) == []


def test_unknown_command_text() -> None:
    error = only_error("Обвиняю Белых, нож, кухня")
    assert render("ru", error.code, error.params) == (
        "Не понял команду «Обвиняю» — возможно, ОБВИНЕНИЕ?\n"
        "Команды: ПРЕДПОЛОЖЕНИЕ, ОПРОВЕРЖЕНИЕ, НЕТ ОПРОВЕРЖЕНИЯ, ОБВИНЕНИЕ, СТАТУС, ПОМОЩЬ "
        "(или по-английски: SUGGEST, REFUTE, NO REFUTATION, ACCUSE, STATUS, HELP), каждая с "
        "начала строки."
    )
    error = only_error("Sugest Белых, нож, кухня to Веталь")
    assert render("en", error.code, error.params).split("\n")[0] == (
        'Unknown command "Sugest" — did you mean SUGGEST?'
    )


# --- natural word orders (item 7) ---


@pytest.mark.parametrize(
    ("text", "move"),
    [
        (
            "Предположение для Веталь: Белых, нож, кухня",
            Suggest("Белых", "нож", "кухня", "Веталь"),
        ),
        (
            "ПРЕДПОЛОЖЕНИЕ для Веталя — Белых, ножом, в кухне",
            Suggest("Белых", "нож", "кухня", "Веталь"),
        ),
        ("SUGGEST to Моро Белых, нож, кухня", Suggest("Белых", "нож", "кухня", "Моро")),
        ("Опровержение на 1 нож", Refute("нож", 1)),
        ("ОПРОВЕРЖЕНИЕ на №1 нож", Refute("нож", 1)),
        ("Опровержение на предположение 4: топором", Refute("топор", 4)),
        ("REFUTE to #5 Knife", None),
        ("Опровержение на кухне", Refute("кухня", None)),
        ("НЕТ ОПРОВЕРЖЕНИЯ на №7", NoRefutation(7)),
        (
            "SUGGEST Белых, нож, кухня для Веталь. Спасибо!",
            Suggest("Белых", "нож", "кухня", "Веталь"),
        ),
        (
            "Предположение Белых, нож, кухня для Дуга, если он не против",
            Suggest("Белых", "нож", "кухня", "Дуг"),
        ),
    ],
)
def test_natural_word_orders(text: str, move: Any) -> None:
    [line] = parse(text)
    if move is None:  # the number is read even when the card is unknown
        assert line.error is not None
        assert (line.error.code, line.error.params["word"]) == ("unknown_name", "Knife")
    else:
        assert line == ParsedLine(1, text, move, None)


def test_an_unknown_addressee_written_first_is_named() -> None:
    error = only_error("Предположение для Петя: Белых, нож, кухня")
    assert (error.code, error.params["word"], error.params["kind"]) == (
        "unknown_name",
        "Петя",
        "player",
    )
    error = only_error("SUGGEST Белых, нож, кухня TO Ваталь. Спасибо")
    assert (error.code, error.params["word"], error.params["suggestion"]) == (
        "unknown_name",
        "Ваталь",
        "Веталь",
    )


# --- bounded work (item 3) ---


def test_an_over_long_command_line_is_refused_unread() -> None:
    text = "SUGGEST Белых, нож, кухня" + " to Веталь x" * 2000
    excerpt = "SUGGEST Белых, нож, кухня to Веталь x to Веталь x to Веталь…"
    [line] = parse(text)
    assert line.line_no == 1
    assert line.text == excerpt
    assert line.move is None
    assert isinstance(line.error, InvalidMove)
    assert (line.error.code, line.error.params) == (
        "line_too_long",
        {"line": excerpt, "limit": 500},
    )
    assert render("ru", "line_too_long", line.error.params) == (
        "Строка команды длиннее 500 символов, поэтому она не прочитана. "
        "Пишите каждую команду отдельной короткой строкой."
    )


def test_line_limit_boundary_and_long_chat() -> None:
    padded = "SUGGEST Белых, нож, кухня TO Веталь. "
    exact = padded + "x" * (500 - len(padded))
    assert len(exact) == 500
    assert moves(exact) == [Suggest("Белых", "нож", "кухня", "Веталь")]
    assert only_error(exact + "x").code == "line_too_long"
    assert parse("Привет! " * 10_000) == []  # chat is never too long


def test_an_over_long_seed_sentence_is_refused() -> None:
    text = "Предположение_1 для Моро\nЯ думаю, что убийство совершил " + "Белых " * 100
    [line] = parse(text)
    assert line.line_no == 1
    assert line.error is not None
    assert line.error.code == "line_too_long"


def test_commands_beyond_the_limit_are_not_read() -> None:
    text = "СТАТУС\n" * 50 + "REFUTE 1 нож\nHELP\n"
    lines = parse(text)
    assert len(lines) == 51
    assert lines[49] == ParsedLine(50, "СТАТУС", Status(), None)
    assert lines[50].line_no == 51
    assert lines[50].move is None
    assert lines[50].error is not None
    assert (lines[50].error.code, lines[50].error.params) == (
        "too_many_commands",
        {"line": "REFUTE 1 нож", "limit": 50},
    )


@pytest.mark.parametrize(
    ("line", "addressee"),
    [
        ("ПРЕДПОЛОЖЕНИЕ Маша, Нож, Спальня ДЛЯ Васи", "Вася"),
        ("ПРЕДПОЛОЖЕНИЕ Маша, Нож, Спальня для Васе", "Вася"),
        ("SUGGEST Маша, Нож, Спальня TO Асю", "Ася"),
    ],
)
def test_addressee_names_in_sya_are_read_in_every_case(line: str, addressee: str) -> None:
    """Snowball cuts Вася to "ва" (as if -ся were reflexive): exact case forms first."""
    seed_cards = Cards(
        ("Маша", "Петя", "Ваня"),
        ("Топор", "Пистолет", "Канделябр", "Молоток", "Веревка", "Нож"),
        ("Столовая", "Спальня", "Библиотека"),
    )
    (parsed,) = parse_cluedo(line, seed_cards, ["Вася", "Ася", "Кросс"])
    assert parsed.error is None
    assert parsed.move == Suggest("Маша", "Нож", "Спальня", addressee)


def test_P2_a_name_framed_by_igroka_as_pbp_writes_it_is_read_when_copied_back() -> None:
    # pbp frames a name whose gender nobody gave («ДЛЯ игрока Веталь», render.inflect_name);
    # a player who copies the echo back must be read, not refused as an unknown name.
    assert moves("ПРЕДПОЛОЖЕНИЕ Краснова, нож, кухня ДЛЯ игрока Веталь") == [
        Suggest("Краснова", "нож", "кухня", "Веталь")
    ]
