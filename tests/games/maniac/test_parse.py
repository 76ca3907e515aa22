"""Maniac commands in a mail body (issue 4, "Moves"; rules M3, M4, M5, M9, M11).

Players: the five of seed 002 (Вася, Петя, Таня, Оля, Саша) and made-up ones for a
12-player game; "Ник" and "Ника" share the form "Нику" (dative of one, accusative of
the other).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.games.core.events import AmbiguousMove, InvalidMove, MoveError
from pbp.games.core.registry import KINDS
from pbp.games.maniac.engine import Help, Kill, Skip, Status, Unvote, Vote
from pbp.games.maniac.parse import ERROR_CODES, ParsedLine, parse_maniac
from pbp.text.commands import COMMAND_LIMIT, LINE_LIMIT, PlayerNames, case_forms
from pbp.text.render import Renderer

PLAYERS = [
    "Вася",
    "Петя",
    "Таня",
    "Оля",
    "Саша",
    "Коля",
    "Маша",
    "Дима",
    "Андрей",
    "Мария",
    "Ник",
    "Ника",
]
EXAMPLE = {"player": "Вася", "other": "Петя", "night": 2, "next_night": 3}
RENDERER = Renderer(Path(__file__).resolve().parents[3] / "templates", kinds=KINDS)


def parse(text: str) -> list[ParsedLine]:
    return parse_maniac(text, PLAYERS)


def moves(text: str) -> list[Any]:
    lines = parse(text)
    assert [line.error for line in lines] == [None] * len(lines)
    return [line.move for line in lines]


def only_error(text: str) -> MoveError:
    [line] = parse(text)
    assert line.move is None
    assert isinstance(line.error, InvalidMove | AmbiguousMove)
    return line.error


def render(locale: str, error: MoveError) -> str:
    return RENDERER.error(error.code, error.params, locale=locale, kind="maniac")


# --- the Moves table of issue 4, both languages ---


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("VOTE Петя", Vote("Петя")),
        ("ГОЛОС Петя", Vote("Петя")),
        ("vote: Таня", Vote("Таня")),
        ("голос: Таню", Vote("Таня")),
        ("VOTE PRISON Петя", Vote("Петя", prison=True)),
        ("ГОЛОС ТЮРЬМА Петю", Vote("Петя", prison=True)),
        ("UNVOTE", Unvote()),
        ("СНЯТЬ ГОЛОС", Unvote()),
        ("KILL Вася", Kill(("Вася",), None)),
        ("УБИТЬ Васю", Kill(("Вася",), None)),
        ("KILL Вася AND Оля NIGHT 3", Kill(("Вася", "Оля"), 3)),
        ("УБИТЬ Васю И Олю НОЧЬ 3", Kill(("Вася", "Оля"), 3)),
        ("KILL Петя NIGHT 2", Kill(("Петя",), 2)),
        ("убить: Петю ночь 2", Kill(("Петя",), 2)),
        ("SKIP", Skip(None)),
        ("ПРОПУСК", Skip(None)),
        ("SKIP NIGHT 4", Skip(4)),
        ("ПРОПУСК НОЧЬ 4", Skip(4)),
        ("STATUS", Status()),
        ("статус", Status()),
        ("HELP", Help()),
        ("Помощь!", Help()),
    ],
)
def test_each_command_of_the_moves_table_gives_its_move(text: str, move: Any) -> None:
    assert parse(text) == [ParsedLine(1, text, move, None)]


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("ГОЛОС за Петю", Vote("Петя")),
        ("Голосую за Петю", Vote("Петя")),
        ("Голос против Пети", Vote("Петя")),
        ("VOTE for Петя", Vote("Петя")),
        ("Мой голос — Петя", Vote("Петя")),
        ("My vote: Петя", Vote("Петя")),
        ("ГОЛОС за Петю, он странный", Vote("Петя")),
        ("Голос: Таню (она молчит весь день)", Vote("Таня")),
        ("голос в тюрьму за Петю", Vote("Петя", prison=True)),
        ("ГОЛОС за Петю в тюрьму", Vote("Петя", prison=True)),
        ("VOTE prison: Петя", Vote("Петя", prison=True)),
        ("VOTE Петя to prison", Vote("Петя", prison=True)),
        ("ГОЛОС в камеру Сашу", Vote("Саша")),
        ("VOTE Саша to the cell", Vote("Саша")),
        ("Снимаю голос.", Unvote()),
        ("Отменяю голос", Unvote()),
        ("ГОЛОС снимаю", Unvote()),
        ("un-vote", Unvote()),
        ("withdraw vote", Unvote()),
        ("Убиваю Васю и Олю ночь 3", Kill(("Вася", "Оля"), 3)),
        ("УБИТЬ Васю, Олю", Kill(("Вася", "Оля"), None)),
        ("УБИТЬ Васю Олю", Kill(("Вася", "Оля"), None)),
        ("KILL Вася & Оля", Kill(("Вася", "Оля"), None)),
        ("УБИТЬ в ночь 3 Васю", Kill(("Вася",), 3)),
        ("УБИТЬ Сашу. Спасибо!", Kill(("Саша",), None)),
        ("ЗАКАЗ: Таня", Kill(("Таня",), None)),
        ("Заказ: 3 ночь - Таня", Kill(("Таня",), 3)),
        ("УБИТЬ: пропуск", Skip(None)),
        ("Пропускаю ночь 4", Skip(4)),
        ("Пропуск хода на 2-ю ночь", Skip(2)),
        ("SKIP 4", Skip(4)),
        ("skip a turn", Skip(None)),
    ],
)
def test_natural_variants_are_read_when_unambiguous(text: str, move: Any) -> None:
    assert moves(text) == [move]


# --- names in their case forms (seed 002's players and more) ---


@pytest.mark.parametrize(
    ("written", "player"),
    [
        ("Васю", "Вася"),
        ("Васи", "Вася"),
        ("Васе", "Вася"),
        ("Васей", "Вася"),
        ("Петю", "Петя"),
        ("Пети", "Петя"),
        ("Пете", "Петя"),
        ("Петей", "Петя"),
        ("Таню", "Таня"),
        ("Тане", "Таня"),
        ("Олю", "Оля"),
        ("Оли", "Оля"),
        ("Сашу", "Саша"),
        ("Саши", "Саша"),
        ("Сашей", "Саша"),
        ("Колю", "Коля"),
        ("Машу", "Маша"),
        ("Диму", "Дима"),
        ("Димой", "Дима"),
        ("Андрея", "Андрей"),
        ("Андрею", "Андрей"),
        ("Марию", "Мария"),
        ("Марии", "Мария"),
        ("ВАСЮ", "Вася"),
        ("[b]Петю[/b]", "Петя"),
    ],
)
def test_inflected_names_are_read_in_votes_and_orders(written: str, player: str) -> None:
    assert moves(f"ГОЛОС за {written}\nУБИТЬ {written} ночь 5") == [
        Vote(player),
        Kill((player,), 5),
    ]


def test_case_forms_of_a_name_ending_in_sya_which_snowball_cuts_to_va() -> None:
    assert case_forms("Вася") == {"вася", "васи", "васе", "васю", "васей", "васею"}
    assert case_forms("Андрей") == {"андрей", "андрея", "андрею", "андреем", "андрее"}
    assert case_forms("Ник") == {"ник", "ника", "нику", "ником", "нике"}
    assert case_forms("Mr Smith") == frozenset()
    assert case_forms("Bob") == {"bob"}


def test_the_exact_name_wins_over_another_players_case_form() -> None:
    names = PlayerNames(PLAYERS)
    assert names.match("Ника") == "Ника"  # also the genitive of "Ник"
    assert names.match("Ник") == "Ник"
    assert names.match("Ником") == "Ник"


def test_M3_a_kill_order_takes_no_name_that_is_one_seats_and_anothers_case_form() -> None:
    # «Ника» is Ника's name and Ник's accusative (the form pbp itself writes: «убить
    # Ника»): a vote may take the exact name, a kill order is refused until the maniac
    # writes the name as listed, in quotes.
    cast = ["Лев", "Ник", "Ника", "Мария"]
    [kill] = parse_maniac("УБИТЬ Ника", cast)
    assert kill.move is None
    assert isinstance(kill.error, AmbiguousMove)
    assert (kill.error.code, kill.error.params["candidates"]) == (
        "ambiguous_target",
        ["Ник", "Ника"],
    )
    assert [p.move for p in parse_maniac("УБИТЬ «Ника»", cast)] == [Kill(("Ника",))]
    assert [p.move for p in parse_maniac('KILL "Ника" NIGHT 2', cast)] == [Kill(("Ника",), 2)]
    assert [p.move for p in parse_maniac("УБИТЬ Ник", cast)] == [Kill(("Ник",))]
    assert [p.move for p in parse_maniac("УБИТЬ Марию", cast)] == [Kill(("Мария",))]
    assert [p.move for p in parse_maniac("ГОЛОС Ника", cast)] == [Vote("Ника")]
    [both] = parse_maniac("УБИТЬ Ника и Льва", cast)
    assert both.error is not None and both.error.code == "ambiguous_target"


@pytest.mark.parametrize(
    ("locale", "text"),
    [
        (
            "ru",
            "«Ника» может означать разных игроков: Ник, Ника. В заказе цель называют "
            "наверняка: напишите имя, как оно в списке, в кавычках, например: УБИТЬ «Ника».",
        ),
        (
            "en",
            '"Ника" may name several players: Ник, Ника. A kill order names its target for '
            "certain: write the name as it is listed, in quotes, for example: KILL «Ника».",
        ),
    ],
)
def test_M3_the_refusal_of_an_ambiguous_target_shows_the_way_out(locale: str, text: str) -> None:
    [kill] = parse_maniac("УБИТЬ Ника", ["Лев", "Ник", "Ника"])
    assert kill.error is not None
    assert RENDERER.error(kill.error.code, kill.error.params, locale=locale, kind="maniac") == text


# --- names refused ---


def test_a_typo_in_a_name_is_refused_with_did_you_mean() -> None:
    error = only_error("ГОЛОС за Ваюс")
    assert error.code == "unknown_name"
    assert error.params == {
        "word": "Ваюс",
        "suggestion": "Вася",
        "allowed": PLAYERS,
        "kind": "player",
        "line": "ГОЛОС за Ваюс",
    }
    players = ", ".join(PLAYERS)
    assert render("ru", error) == (
        f"Неизвестный игрок «Ваюс» — возможно, «Вася»?\nИгроки: {players}."
    )
    assert render("en", error) == (
        f'Unknown player "Ваюс" — did you mean "Вася"?\nPlayers: {players}.'
    )


def test_a_typo_in_the_second_target_names_that_word() -> None:
    error = only_error("УБИТЬ Васю и Пеут ночь 3")
    assert (error.code, error.params["word"], error.params["suggestion"]) == (
        "unknown_name",
        "Пеут",
        "Петя",
    )
    error = only_error("УБИТЬ Васю Пеут")
    assert (error.code, error.params["word"], error.params["suggestion"]) == (
        "unknown_name",
        "Пеут",
        "Петя",
    )


def test_a_name_matching_two_players_is_ambiguous() -> None:
    error = only_error("ГОЛОС Нику")
    assert isinstance(error, AmbiguousMove)
    assert error.params == {
        "word": "Нику",
        "candidates": ["Ник", "Ника"],
        "kind": "player",
        "line": "ГОЛОС Нику",
    }
    assert render("ru", error) == (
        "«Нику» подходит сразу к нескольким: Ник, Ника. "
        "Напишите имя полностью и пришлите ход ещё раз."
    )
    error = only_error("УБИТЬ Васю и Нику")  # in an order: ambiguous_target (M3)
    assert (error.code, error.params["candidates"]) == ("ambiguous_target", ["Ник", "Ника"])


# --- nights (M3) ---


@pytest.mark.parametrize(
    "night",
    [
        "ночь 3",
        "НОЧЬ 3",
        "в ночь 3",
        "на ночь 3",
        "ночь №3",
        "ночь: 3",
        "3 ночь",
        "на 3-ю ночь",
        "night 3",
        "NIGHT #3",
        "N3",
        "n3",
        "Н3",
        "нoчь 3",  # Latin o
    ],
)
def test_night_number_forms(night: str) -> None:
    assert moves(f"УБИТЬ Васю {night}\nПРОПУСК {night}\nKILL Петя and Оля {night}") == [
        Kill(("Вася",), 3),
        Skip(3),
        Kill(("Петя", "Оля"), 3),
    ]


def test_seed_002_order_timeline_in_the_seeds_own_form() -> None:
    """Seed 002, on rule 2: day 1 "1 ночь - Вася, 2 ночь - Петя"; day 2 "3 ночь - Таня"."""
    assert moves("Заказы:\n1 ночь - Вася\n2 ночь - Петя") == [
        Kill(("Вася",), 1),
        Kill(("Петя",), 2),
    ]
    assert moves("3 ночь - Таня") == [Kill(("Таня",), 3)]
    assert moves("Ночь 4: пропуск") == [Skip(4)]
    error = only_error("Заказы: 1 ночь - Вася, 2 ночь - Петя")
    assert (error.code, error.params) == (
        "several_nights",
        {"line": "Заказы: 1 ночь - Вася, 2 ночь - Петя", "nights": [1, 2], "example": EXAMPLE},
    )
    assert render("ru", error) == (
        "В одной строке несколько ночей (1, 2), а строка — это один заказ. "
        "Пишите каждый заказ отдельной строкой, например:\n"
        "УБИТЬ Васю НОЧЬ 2\n"
        "ПРОПУСК НОЧЬ 3"
    )


def test_a_night_line_that_names_nobody_is_chat() -> None:
    assert parse("Ночь 3: все живы, ура\n2 ночь - тишина") == []
    error = only_error("Ночь 3: Ваюс")  # resembles a player: refused, not ignored
    assert (error.code, error.params["suggestion"]) == ("unknown_name", "Вася")


def test_a_night_without_a_number_or_night_zero_is_refused() -> None:
    error = only_error("УБИТЬ Васю ночью")
    assert (error.code, error.params) == (
        "night_syntax",
        {"line": "УБИТЬ Васю ночью", "word": "ночью", "example": EXAMPLE},
    )
    assert render("en", error) == (
        'The night could not be read: "ночью". A night is given by its number, from 1, '
        "e.g. NIGHT 2 (or N2):\n"
        "KILL Вася NIGHT 2\n"
        "Without a number the order is for the earliest open night without an order."
    )
    error = only_error("ПРОПУСК ночь 0")
    assert (error.code, error.params["word"]) == ("night_syntax", "ночь 0")


# --- syntax errors of each command ---


def test_vote_without_a_player_is_refused_with_an_example() -> None:
    error = only_error("ГОЛОС")
    assert (error.code, error.params) == (
        "vote_syntax",
        {"line": "ГОЛОС", "players": PLAYERS, "example": EXAMPLE},
    )
    players = ", ".join(PLAYERS)
    assert render("ru", error) == (
        "Не понял, за кого голос: после ГОЛОС нужно имя одного игрока (и, если хотите, "
        "ТЮРЬМА — но не «камера» и «тюрьма» сразу). Например:\n"
        "ГОЛОС за Васю\n"
        "ГОЛОС ТЮРЬМА за Васю\n"
        f"Игроки: {players}."
    )
    assert only_error("VOTE PRISON").code == "vote_syntax"
    assert only_error("ГОЛОС в камеру за Петю в тюрьму").code == "vote_syntax"


def test_unvote_takes_no_name() -> None:
    error = only_error("СНЯТЬ ГОЛОС с Пети")
    assert (error.code, error.params) == (
        "unvote_syntax",
        {"line": "СНЯТЬ ГОЛОС с Пети", "word": "с Пети"},
    )
    assert render("ru", error).split("\n")[0] == (
        "После СНЯТЬ ГОЛОС ничего не пишется, а здесь стоит «с Пети». "
        "Команда снимает ваш текущий голос, за кого бы он ни был:"
    )


def test_kill_with_no_target_or_three_targets_is_refused() -> None:
    error = only_error("УБИТЬ ночь 3")
    assert (error.code, error.params) == (
        "kill_syntax",
        {"line": "УБИТЬ ночь 3", "count": 0, "example": EXAMPLE},
    )
    assert render("ru", error) == (
        "В заказе не назван игрок. Например:\n"
        "УБИТЬ Васю НОЧЬ 2\n"
        "УБИТЬ Васю И Петю НОЧЬ 2\n"
        "ПРОПУСК НОЧЬ 2\n"
        "Номер ночи можно не писать: тогда заказ — на ближайшую открытую ночь без заказа."
    )
    error = only_error("KILL Вася, Оля, Таня")
    assert (error.code, error.params["count"]) == ("kill_syntax", 3)
    assert render("en", error).split("\n")[0] == (
        "The order names 3 players, but one is allowed (or two — once per game, "
        "from 12 players). For example:"
    )
    assert render("ru", error).split("\n")[0] == (
        "В заказе названы 3 игрока, а можно одного (или двоих — один раз за игру, "
        "от 12 игроков). Например:"
    )


def test_kill_naming_one_player_twice_is_refused() -> None:
    error = only_error("УБИТЬ Васю и Васю")
    assert (error.code, error.params) == (
        "duplicate_target",
        {"line": "УБИТЬ Васю и Васю", "player": "Вася"},
    )
    assert render("en", error) == (
        "Вася is named twice in the order. Name one player or two different ones "
        "and send the order again."
    )


def test_skip_followed_by_a_name_is_refused() -> None:
    error = only_error("ПРОПУСК Васю")
    assert (error.code, error.params) == (
        "skip_syntax",
        {"line": "ПРОПУСК Васю", "word": "Васю", "example": EXAMPLE},
    )
    assert render("ru", error) == (
        "После ПРОПУСК пишется только ночь, а здесь стоит «Васю». Например:\n"
        "ПРОПУСК НОЧЬ 2\n"
        "Чтобы заказать убийство: УБИТЬ Васю НОЧЬ 2."
    )


@pytest.mark.parametrize(
    ("text", "word", "suggestion"),
    [
        ("Голсо за Петю", "Голсо", "ГОЛОС"),
        ("Голосование за Петю", "Голосование", "ГОЛОС"),
        ("Прапуск", "Прапуск", "ПРОПУСК"),
        ("Unvoet", "Unvoet", "UNVOTE"),
        ("СНЯТЬ ГОЛСО", "СНЯТЬ ГОЛСО", "СНЯТЬ ГОЛОС"),
        ("Заказываю Васю", "Заказываю", "УБИТЬ"),
        ("Статсу", "Статсу", "СТАТУС"),
    ],
)
def test_a_misspelt_keyword_is_refused_with_a_suggestion(
    text: str, word: str, suggestion: str
) -> None:
    error = only_error(text)
    assert error.code == "unknown_command"
    assert (error.params["word"], error.params["suggestion"]) == (word, suggestion)
    assert error.params["commands"] == {
        "ru": ["ГОЛОС", "ГОЛОС ТЮРЬМА", "СНЯТЬ ГОЛОС", "УБИТЬ", "ПРОПУСК", "СТАТУС", "ПОМОЩЬ"],
        "en": ["VOTE", "VOTE PRISON", "UNVOTE", "KILL", "SKIP", "STATUS", "HELP"],
    }
    assert render("ru", error).split("\n")[0] == (
        f"Не понял команду «{word}» — возможно, {suggestion}?"
    )


# --- chat, quotes, look-alike letters ---


def test_several_commands_in_one_mail_keep_their_line_numbers_and_chat_is_omitted() -> None:
    text = (
        "Привет всем!\n"
        "\n"
        "ГОЛОС за Петю\n"
        "Вася вчера молчал, подозрительно.\n"
        "Help me out here, please\n"
        "Убили Олю, жаль\n"
        "Статуя в парке\n"
        "УБИТЬ Васю и Олю ночь 3\n"
        "СТАТУС\n"
    )
    assert parse(text) == [
        ParsedLine(3, "ГОЛОС за Петю", Vote("Петя"), None),
        ParsedLine(8, "УБИТЬ Васю и Олю ночь 3", Kill(("Вася", "Оля"), 3), None),
        ParsedLine(9, "СТАТУС", Status(), None),
    ]


def test_quoted_forum_posts_are_not_moves() -> None:
    text = (
        "[quote=Петя]ГОЛОС за Васю\nУБИТЬ Таню ночь 2[/quote]\n"
        '[quote name="Оля"][spoiler]СНЯТЬ ГОЛОС[/spoiler][/quote]ГОЛОС ТЮРЬМА Петю\n'
        "[spoiler=Заказы]\n1 ночь - Вася\n[/spoiler]\n"
        "Согласен с Петей."
    )
    assert parse(text) == [
        ParsedLine(
            3,
            "ГОЛОС ТЮРЬМА Петю",
            Vote("Петя", prison=True),
            None,
        )
    ]


def test_latin_look_alikes_in_russian_keywords_and_names_are_read_as_cyrillic() -> None:
    # Latin o in "ГОЛOС", e in "Пeтю", B and c in "Bаcю", K and o in "нoчь" ...
    text = "ГОЛOС за Пeтю\nУБИТЬ Bаcю нoчь 2\nПРOПУСК N3\nСНЯТЬ ГOЛOС"
    assert any(ch in "oeBc" for ch in text)
    assert moves(text) == [Vote("Петя"), Kill(("Вася",), 2), Skip(3), Unvote()]


def test_cyrillic_look_alikes_in_english_keywords_are_read_as_latin() -> None:
    text = "VОТЕ Таня\nКILL Оля"  # Cyrillic О, Т, Е in VOTE; К in KILL
    assert moves(text) == [Vote("Таня"), Kill(("Оля",), None)]


# --- caps ---


def test_an_over_long_command_line_is_refused_unread_and_long_chat_is_ignored() -> None:
    line = "ГОЛОС " + "за Петю " * 100
    [parsed] = parse(line + "\n" + "бла " * 200)
    assert parsed.error is not None
    assert (parsed.error.code, parsed.error.params) == (
        "line_too_long",
        {"line": "ГОЛОС за Петю за Петю за Петю за Петю за Петю за Петю за Пет…", "limit": 500},
    )
    assert LINE_LIMIT == 500


def test_commands_after_the_limit_are_refused_once() -> None:
    lines = parse("STATUS\n" * (COMMAND_LIMIT + 5))
    assert len(lines) == COMMAND_LIMIT + 1
    assert lines[-1].error is not None
    assert (lines[-1].line_no, lines[-1].error.code, lines[-1].error.params) == (
        COMMAND_LIMIT + 1,
        "too_many_commands",
        {"line": "STATUS", "limit": COMMAND_LIMIT},
    )


# --- every error has its texts ---

SAMPLES = [
    "ГОЛОС за Ваюс",
    "ГОЛОС Нику",
    "УБИТЬ Нику",
    "ГОЛОС",
    "UNVOTE Петя",
    "УБИТЬ ночь 1",
    "УБИТЬ Васю и Васю",
    "УБИТЬ Васю ночь 1 ночь 2",
    "УБИТЬ Васю ночью",
    "ПРОПУСК Васю",
    "Голсо за Петю",
    "ГОЛОС " + "Петя " * 200,
    "STATUS\n" * (COMMAND_LIMIT + 1),
]


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_every_error_code_has_a_text_in_each_locale(locale: str) -> None:
    seen = set()
    for sample in SAMPLES:
        for line in parse(sample):
            if line.error is None:
                continue
            text = render(locale, line.error)
            assert text and "{" not in text
            seen.add(line.error.code)
    assert seen == set(ERROR_CODES)


def test_P2_a_name_framed_by_igroka_as_pbp_writes_it_is_read_when_copied_back() -> None:
    # «ГОЛОС за игрока Ник»: pbp's frame for a name it cannot decline, copied back.
    assert moves("ГОЛОС за игрока Ник\nУБИТЬ игрока Ника ночь 5") == [
        Vote("Ник"),
        Kill(("Ника",), 5),
    ]
