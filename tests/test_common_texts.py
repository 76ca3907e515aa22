"""The shared texts (templates/common, templates/errors): issue 16, items 4 and 5; rule P2.

Each test is named after the defect it holds and asserts the corrected text exactly:
words that follow a player's gender are chosen by ``name|gender`` among three whole
messages (a man's, a woman's, one that needs no gender); a verb agrees with a counted
subject by CLDR's plural form; numbers are in the locale's format (Babel).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pbp.app.intake.senders import megabytes
from pbp.app.playermoves import reply_results
from pbp.app.shapes import MoveResult
from pbp.games.cluedo.cards import Cards, Suggest
from pbp.games.cluedo.parse import parse_cluedo
from pbp.games.cluedo.wording import wording
from pbp.games.core import registry
from pbp.games.core.events import Event, Visibility
from pbp.games.core.registry import KINDS
from pbp.games.maniac.moves import Kill, Vote
from pbp.games.maniac.parse import parse_maniac
from pbp.text import catalogs
from pbp.text.filters import genders_of
from pbp.text.render import Renderer

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(TEMPLATES, kinds=KINDS)


def error(renderer: Renderer, code: str, locale: str = "ru", **params: Any) -> str:
    """A refusal as pbp writes it: with the words of a Cluedo game of ``locale``
    whose cards are not known (the kind's context, :meth:`pbp.app.playermoves.Moves.error_text`),
    in the kind that makes ``code`` (:func:`maker`)."""
    params = {"wording": wording(locale), **params}
    return renderer.error(code, params, locale=locale, kind=maker(code))


def maker(code: str) -> str | None:
    """The first registered kind whose template folders hold ``errors/<code>.txt``
    (None: a shared refusal of ``templates/errors/``)."""
    for name, kind in registry.KINDS.items():
        if any(
            (TEMPLATES / folder / "errors" / f"{code}.txt").is_file() for folder in kind.templates
        ):
            return name
    return None


def mail(renderer: Renderer, name: str, locale: str = "ru", **context: Any) -> tuple[str, str]:
    """A mail with the context every mail of a game gets (the words of a Cluedo game of
    ``locale`` whose cards are not known, :meth:`pbp.app.mailer.Mailer.context`)."""
    base: dict[str, Any] = {
        "game": "g-1",
        "timezone": "UTC",
        "genders": {},
        "wording": wording(locale),
    }
    return renderer.private_mail(name, locale=locale, **{**base, **context})


# --- 1. the remove lever: «Маша исключена», not «Маша исключён» ---


def _removed(renderer: Renderer, player: str, genders: dict[str, str] | None = None) -> str:
    done = {"lever": "remove", "player": player, "over": False, "announced": False}
    results = [{"line": f"ИСКЛЮЧИТЬ {player}", "lever": "remove", "done": done}]
    _subject, body = mail(renderer, "gm_result", results=results, genders=genders or {})
    return body.split("\n")[1]


def test_remove_result_follows_the_players_gender(renderer: Renderer) -> None:
    assert _removed(renderer, "Маша") == "Маша исключена из игры."
    assert _removed(renderer, "Петя") == "Петя исключён из игры."
    assert _removed(renderer, "Веталь") == "Игрок Веталь исключён из игры."
    assert _removed(renderer, "Дуг", {"Дуг": "femn"}) == "Дуг исключена из игры."


def test_act_result_follows_the_players_gender(renderer: Renderer) -> None:
    def line(player: str, locale: str = "ru") -> str:
        done = {"lever": "act", "player": player, "results": [{"line": "ГОЛОС Петя"}]}
        results = [{"line": "", "lever": "act", "done": done}]
        _subject, body = mail(renderer, "gm_result", locale, results=results)
        return body.split("\n")[2]

    assert line("Маша") == "Маша получила результат письмом, как если бы прислала ход сама."
    assert line("Петя") == "Петя получил результат письмом, как если бы прислал ход сам."
    assert line("Веталь") == (
        "Результат отправлен игроку Веталь письмом — так же, как на собственный ход."
    )
    assert line("Шапо") == "Результат отправлен Шапо письмом — так же, как на собственный ход."
    assert line("Веталь", "en") == ("Веталь got the result by mail, as for a move of their own.")
    assert line("Маша", "en") == (
        "Маша got the result by mail, as if she had sent the move herself."
    )


# --- 2. «убит(а)», «провёл(а)», «назван(а)», «победил(а)», «совершил(а)», «за него» ---


def test_target_dead_no_parenthesised_ending(renderer: Renderer) -> None:
    def text(target: str) -> str:
        return error(renderer, "target_dead", target=target, players=["Оля", "Вася"])

    tail = ": за убитых не голосуют и их не заказывают. Можно назвать: Оля, Вася."
    assert text("Маша") == "Маша убита" + tail
    assert text("Петя") == "Петя убит" + tail
    assert text("Веталь") == "Веталь — среди убитых" + tail


def test_target_in_prison_no_masculine_pronoun(renderer: Renderer) -> None:
    def text(target: str) -> str:
        return error(renderer, "target_in_prison", target=target, players=["Оля"])

    assert (
        text("Маша") == "Маша навсегда в тюрьме, за неё голосовать нельзя. Можно голосовать за Олю."
    )
    assert (
        text("Петя")
        == "Петя навсегда в тюрьме, за него голосовать нельзя. Можно голосовать за Олю."
    )
    assert text("Кросс") == (
        "Кросс навсегда в тюрьме: за заключённых не голосуют. Можно голосовать за Олю."
    )


def test_never_in_cell_no_parenthesised_ending(renderer: Renderer) -> None:
    def text(target: str) -> str:
        return error(renderer, "never_in_cell", target=target, players=[])

    tail = (
        " в камере, поэтому голос за тюрьму не принимается; ГОЛОС {0} — голос за камеру."
        " Из тех, за кого можно голосовать, в камере пока никто не сидел."
    )
    assert text("Маша") == "Маша ещё ни одной ночи не провела" + tail.format("Маша")
    assert text("Петя") == "Петя ещё ни одной ночи не провёл" + tail.format("Петя")
    assert text("Веталь") == "У игрока Веталь ещё не было ни одной ночи" + tail.format("Веталь")


def test_named_twice_no_parenthesised_ending(renderer: Renderer) -> None:
    rest = " в заказе дважды. Назовите одного игрока или двух разных и пришлите заказ ещё раз."
    assert error(renderer, "duplicate_target", player="Маша") == "Маша названа" + rest
    assert error(renderer, "duplicate_target", player="Петя") == "Петя назван" + rest
    assert error(renderer, "duplicate_target", player="Дуг") == "Игрок Дуг назван" + rest
    again = " в заказе дважды. Назовите двух разных игроков или одного: УБИТЬ <игрок> [И <игрок>]."
    assert error(renderer, "same_target_twice", target="Маша") == "Маша названа" + again
    assert error(renderer, "same_target_twice", target="Петя") == "Петя назван" + again
    assert error(renderer, "same_target_twice", target="Шапо") == "Игрок Шапо назван" + again


def test_named_twice_takes_the_gender_games_yaml_gives(renderer: Renderer) -> None:
    text = renderer.error(
        "duplicate_target",
        {"player": "Дуг", "genders": {"Дуг": "femn"}},
        locale="ru",
        kind="maniac",
    )
    assert text == (
        "Дуг названа в заказе дважды. Назовите одного игрока или двух разных и пришлите"
        " заказ ещё раз."
    )


def test_game_over_winner_no_parenthesised_ending(renderer: Renderer) -> None:
    assert error(renderer, "game_over", winner="Маша") == (
        "Игра окончена: победила Маша. Ходы больше не принимаются."
    )
    assert error(renderer, "game_over", winner="Петя") == (
        "Игра окончена: победил Петя. Ходы больше не принимаются."
    )
    assert error(renderer, "game_over", winner="Неташка") == (
        "Игра окончена, победитель — Неташка. Ходы больше не принимаются."
    )


def test_seat_gone_no_masculine_for_a_woman(renderer: Renderer) -> None:
    rest = ": заменять некого. Проверьте, того ли игрока вы назвали."
    assert error(renderer, "gm_seat_gone", player="Маша") == (
        "Маша уже не в игре (исключена ГМом или убита)" + rest
    )
    assert error(renderer, "gm_seat_gone", player="Петя") == (
        "Петя уже не в игре (исключён ГМом или убит)" + rest
    )
    assert error(renderer, "gm_seat_gone", player="Кросс") == (
        "Игрок Кросс уже не в игре (исключён ГМом или убит)" + rest
    )


def test_P2_suggest_syntax_forum_form_says_every_suspect_in_one_sentence(
    renderer: Renderer,
) -> None:
    def text(suspect: str) -> str:
        example = {"suspect": suspect, "weapon": "нож", "room": "кухня", "player": "Веталь"}
        return error(renderer, "suggest_syntax", example=example, addressed=True)

    head = (
        "Не удалось прочитать предположение: нужны три карты — персонаж, орудие и комната,"
        " и кому оно адресовано. Например:\n"
        "ПРЕДПОЛОЖЕНИЕ {0}, нож, кухня ДЛЯ Веталь\n"
        "или, как на форуме:\n"
        "Предположение_1 для Веталь\n"
    )
    # A woman, a man, a surname of either gender: one sentence, which needs none.
    for suspect in ("Мария", "Пётр", "Краснова", "Белых"):
        assert text(suspect) == head.format(suspect) + (
            f"Я думаю, что убийца — {suspect}, ножом на кухне."
        )


# --- 3. «Не выполнено:» once, not again on each line ---


def test_not_done_said_once(renderer: Renderer) -> None:
    results: list[MoveResult] = [{"line": "ГОЛОС Маришку", "error": "Неизвестный игрок «Маришку»."}]
    _subject, body = mail(
        renderer,
        "maniac/reply",
        **reply_results(results),
        player="Мария",
        looks_quoted=[],
        ignored=[],
        ignored_more=0,
        forwarded=False,
    )
    assert body.split("\n")[:7] == [
        "Мария, вот что сделано по вашему письму.",
        "",
        "Не выполнено:",
        "",
        "> ГОЛОС Маришку",
        "Неизвестный игрок «Маришку».",
        "",
    ]
    assert body.count("Не выполнено") == 1
    assert "Исправьте невыполненные строки и пришлите их снова ответом на это письмо." in body


# --- 4. agreement with the card kind and with a counted subject ---


def test_wrong_category_agrees_with_the_card_kind(renderer: Renderer) -> None:
    def text(category: str, locale: str = "ru") -> str:
        return error(
            renderer, "wrong_category", locale, card="нож", category=category, allowed=["кухня"]
        )

    order = " (порядок: персонаж, орудие, комната).\nВозможные карты: кухня."
    assert text("suspect") == "«нож» на этом месте не подходит: здесь нужен персонаж" + order
    assert text("weapon") == "«нож» на этом месте не подходит: здесь нужно орудие" + order
    assert text("room") == "«нож» на этом месте не подходит: здесь нужна комната" + order
    assert text("room", "en") == (
        '"нож" does not fit here: a room is needed (the order is suspect, weapon, room).\n'
        "Possible cards: кухня."
    )


def test_card_categories_no_assembled_plural(renderer: Renderer) -> None:
    def text(category: str, locale: str) -> str:
        allowed = {"suspects": ["Краснова"], "weapons": ["нож"], "rooms": ["кухня"]}
        full = error(
            renderer,
            "card_categories",
            locale,
            category=category,
            doubled=["нож", "топор"],
            missing=["room"],
            allowed=allowed,
        )
        return full.split("\n")[0]

    assert text("weapon", "ru") == (
        "Нужно по одной карте каждого вида: персонаж, орудие, комната."
        " Здесь несколько орудий: нож, топор; не хватает: комната."
    )
    assert text("weapon", "en") == (
        "One card of each kind is needed: a suspect, a weapon and a room."
        " Here several are weapons: нож, топор; missing: room."
    )


def test_addressee_limit_verb_agrees_with_the_count(renderer: Renderer) -> None:
    def text(limit: int) -> str:
        return error(renderer, "addressee_limit", addressee="Веталь", limit=limit, day=2, open=[])

    rest = (
        " от всех игроков вместе — это предел за день."
        " Сегодня больше некому адресовать предположение."
    )
    assert text(1) == "В день 2 игроку Веталь уже адресовано 1 предположение" + rest
    assert text(3) == "В день 2 игроку Веталь уже адресованы 3 предположения" + rest
    assert text(5) == "В день 2 игроку Веталь уже адресовано 5 предположений" + rest
    # A name whose dative is known takes it: not «Игроку Маша».
    sasha = error(renderer, "addressee_limit", addressee="Маша", limit=1, day=2, open=[])
    assert sasha == "В день 2 Маше уже адресовано 1 предположение" + rest


def test_answers_not_shown_verb_agrees_with_the_count(renderer: Renderer) -> None:
    def last(more: int) -> str:
        _subject, body = mail(renderer, "answers_summary", answers=[], more=more, total=more)
        return body.rstrip("\n").split("\n")[-1]

    status = ": пришлите СТАТУС, чтобы узнать положение сейчас."
    assert last(1) == "…и ещё 1 ответ здесь не показан" + status
    assert last(3) == "…и ещё 3 ответа здесь не показаны" + status
    assert last(5) == "…и ещё 5 ответов здесь не показано" + status


def test_digest_verb_agrees_with_the_count(renderer: Renderer) -> None:
    def head(total: int) -> tuple[str, str]:
        subject, body = mail(
            renderer,
            "gm_digest",
            games=["g-1"],
            total=total,
            counts=[],
            entries=[],
            more=0,
        )
        return subject, body.split("\n")[0]

    assert head(1) == (
        "Сводка за сутки: 1 письмо отложено или без ответа",
        "С прошлой сводки отложено или оставлено без ответа 1 письмо:",
    )
    assert head(2) == (
        "Сводка за сутки: 2 письма отложены или без ответа",
        "С прошлой сводки отложены или оставлены без ответа 2 письма:",
    )
    assert head(7) == (
        "Сводка за сутки: 7 писем отложено или без ответа",
        "С прошлой сводки отложено или оставлено без ответа 7 писем:",
    )


def test_digest_of_several_games_lists_them(renderer: Renderer) -> None:
    # The template names no game in its Subject: the mailer tags it with every game's
    # title (pbp.app.mailer.Mailer.gm, ``about``).
    subject, body = mail(
        renderer,
        "gm_digest",
        games=["g-1", "g-2"],
        total=2,
        counts=[],
        entries=[],
        more=0,
    )
    assert subject == "Сводка за сутки: 2 письма отложены или без ответа"
    assert body.split("\n")[0] == (
        "С прошлой сводки отложены или оставлены без ответа 2 письма (игры g-1, g-2):"
    )


def _night_outcome(renderer: Renderer, locale: str, **night: Any) -> str:
    base = {
        "night": 1,
        "order": {"targets": ["Петя"], "skip": False},
        "maniac_in_cell": False,
        "duty_officer_guards": True,
        "outcome": "kill",
        "targets": [{"player": "Петя", "result": "killed"}],
        "fan_in_cell": None,
        "dead": ["Петя"],
        "skip_restored": False,
    }
    _subject, body = mail(renderer, "maniac/gm_night", locale, night={**base, **night})
    return next(line for line in body.split("\n") if line.startswith(("Итог", "Outcome")))


def test_gm_night_outcome_says_each_death_once(renderer: Renderer) -> None:
    """The dead are the targets killed and the fan in the cell: named once, not again
    in a list of the dead; "nobody died" only when nobody did."""
    assert _night_outcome(renderer, "ru") == "Итог: Петя погибает."
    fan = {"fan_in_cell": "Дима", "dead": ["Петя", "Дима"]}
    assert _night_outcome(renderer, "en", **fan) == (
        "Outcome: Петя — dies; the fan Дима dies in the cell."
    )
    blocked = {"targets": [{"player": "Петя", "result": "blocked"}], "dead": []}
    assert _night_outcome(renderer, "ru", **blocked) == (
        "Итог: Петя не погибает — в камере под охраной дежурного; никто не погиб."
    )


def test_kill_order_count_verb_agrees(renderer: Renderer) -> None:
    def first(count: int) -> str:
        example = {"player": "Петя", "other": "Таня", "night": 2}
        return error(renderer, "kill_syntax", count=count, example=example).split(" Например")[0]

    rest = ", а можно одного (или двоих — один раз за игру, от 12 игроков)."
    assert first(3) == "В заказе названы 3 игрока" + rest
    assert first(5) == "В заказе названо 5 игроков" + rest


# --- 5. numbers by Babel, impersonal texts, real sentences ---


def test_too_large_size_in_the_locales_number_format(renderer: Renderer) -> None:
    def text(size: int, limit: int, locale: str) -> str:
        context = {
            "size_mb": megabytes(size, locale, over=limit),
            "limit_mb": megabytes(limit, locale),
        }
        _subject, body = mail(renderer, "too_large", locale, **context)
        return body.split("\n")[0]

    assert text(10_000_000, 2_000_000, "ru") == (
        "Здравствуйте! Ваше письмо не прочитано: его размер 10 МБ, а принимаются письма"
        " до 2 МБ. Поэтому ходы из него не выполнены. ГМ получил уведомление."
    )
    assert text(2_000_001, 2_000_000, "ru").startswith(
        "Здравствуйте! Ваше письмо не прочитано: его размер 2,1 МБ, а принимаются письма до 2 МБ."
    )
    assert text(3_100_000, 2_500_000, "en").startswith(
        "Hello! Your mail was not read: it is 3.1 MB, and mail up to 2.5 MB is accepted."
    )


def test_megabytes_by_babel() -> None:
    assert megabytes(10_000_000, "ru") == "10"
    assert megabytes(3_100_000, "ru") == "3,1"
    assert megabytes(3_100_000, "en") == "3.1"
    assert megabytes(2_000_001, "ru", up=True) == "2,1"
    # Over a limit: the nearest tenth, up only where it would not show as over it.
    assert megabytes(2_000_001, "ru", over=2_000_000) == "2,1"
    assert megabytes(205_941, "ru", over=100_000) == "0,2"  # not "0,3"
    assert megabytes(2_049_999, "en", over=2_000_000) == "2.1"
    assert megabytes(2_060_000, "en", over=2_000_000) == "2.1"
    assert megabytes(12_345_678_900, "ru") == "12\xa0345,7"


def test_line_too_long_impersonal(renderer: Renderer) -> None:
    assert error(renderer, "line_too_long", limit=1000) == (
        "Строка команды длиннее 1000 символов, поэтому она не прочитана."
        " Пишите каждую команду отдельной короткой строкой."
    )
    assert error(renderer, "line_too_long", limit=21) == (
        "Строка команды длиннее 21 символа, поэтому она не прочитана."
        " Пишите каждую команду отдельной короткой строкой."
    )
    assert error(renderer, "line_too_long", "en", limit=1000) == (
        "The command line is longer than 1000 characters and was not read."
        " Write each command on a short line of its own."
    )


def test_unknown_name_generic_list_is_a_sentence(renderer: Renderer) -> None:
    text = error(
        renderer,
        "unknown_name",
        word="Ктото",
        suggestion=None,
        kind="name",
        allowed=["Петя", "нож"],
    )
    assert text == "Неизвестное имя «Ктото».\nМожно назвать: Петя, нож."
    text = error(
        renderer, "unknown_name", "en", word="X", suggestion=None, kind="name", allowed=["Петя"]
    )
    assert text == 'Unknown name "X".\nYou may name: Петя.'


# --- 6. English ---


def test_void_answered_english(renderer: Renderer) -> None:
    def text(answer: str, by_gm: bool, locale: str = "en") -> str:
        return error(renderer, "void_answered", locale, number=4, answer=answer, by_gm=by_gm)

    assert text("voided", False) == "Suggestion #4 is voided already."
    assert text("refuted", False) == (
        "Suggestion #4 cannot be voided: it has been answered already, and only an"
        " unanswered suggestion can be voided."
    )
    assert text("refuted", True) == (
        "Suggestion #4 cannot be voided: the GM has answered it already, and only an"
        " unanswered suggestion can be voided."
    )
    assert text("refuted", False, "ru") == (
        "Предположение №4 отменить нельзя: на него уже ответили, а отменить можно только"
        " предположение без ответа."
    )


def test_not_your_turn_no_possessive_of_a_russian_name(renderer: Renderer) -> None:
    assert error(renderer, "not_your_turn", "en", turn=1, turn_player="Кросс") == (
        "It is not your turn: turn 1 belongs to Кросс. A suggestion or an accusation can be"
        " made only on your own turn; you will get a mail when it comes."
    )


def test_english_no_he_for_any_player(renderer: Renderer) -> None:
    assert error(renderer, "gm_address_taken", "en", email="a@example.test", player="Маша") == (
        "a@example.test already plays in this game (Маша): a substitute needs an address"
        " that is not used in the game."
    )
    assert error(renderer, "gm_address_reserved", "en", email="gm@example.test") == (
        "gm@example.test is the GM's address or the game's own: a substitute needs an"
        " address that is not used in the game. The seat stays with its player."
    )
    assert error(renderer, "self_target", "en", players=["Оля"]) == (
        "You cannot order your own death. You may name: Оля."
    )
    assert error(renderer, "self_target", players=["Оля"]) == (
        "Заказать себя нельзя. Можно назвать: Оля."
    )
    _subject, body = mail(renderer, "held_dropped", "en", seat="Кросс", substitute="Вова")
    assert body.rstrip("\n").endswith("The GM knows and will enter the move if it should count.")
    subject, body = mail(
        renderer,
        "gm_wrong_address",
        "en",
        player="Кросс",
        gm_address="gm@example.test",
        gm_command=False,
    )
    assert subject == "This is the personal address of Кросс"
    assert body.startswith("Your mail reached the personal address of Кросс, so nothing was done.")


def test_voided_suggestion_no_possessive_of_a_russian_name(renderer: Renderer) -> None:
    voided = {
        "number": 7,
        "suggester": "Неташка",
        "addressee": "Веталь",
        "suspect": "Краснова",
        "weapon": "нож",
        "room": "кухня",
    }
    _subject, body = mail(
        renderer, "cluedo_days/voided", "en", player="Веталь", voided=voided, what="suggestion"
    )
    assert (
        "the GM has voided suggestion #7 (Неташка → Веталь: Краснова, нож, кухня). It needs"
        " no answer and is not counted among the suggestions Неташка made that day."
    ) in body


def test_briefing_seat_is_neuter() -> None:
    message = (
        "The seat keeps its name, %(player)s: the forum posts show your name beside it, and"
        " the other players may name you by either. Everything it holds, was shown and owes"
        " is yours now:"
    )
    assert catalogs.translations("ru").gettext(message) == (
        "В игре вы по-прежнему %(player)s: в постах рядом будет стоять ваше имя, обращаться"
        " к вам можно по любому из двух имён. Всё, что есть у этого места, что ему"
        " показали и что за ним числится, теперь ваше:"
    )


# --- the GM lever's forum announcement (common/posts/gm.j2) ---


#: The game whose GM announcement tells each of these events (its <kind>/parts/gm_post.j2);
#: pbp's own levers (gm_*) are told alike in every game.
_GAME_OF = {
    "player_left": "maniac",
    "vote_voided": "maniac",
    "player_removed": "cluedo_days",
    "suggestion_voided": "cluedo_days",
}


def _announce(renderer: Renderer, kind: str, data: dict[str, Any], locale: str = "ru") -> str:
    event = Event(kind, Visibility.PUBLIC, data)
    game_kind = _GAME_OF.get(kind, "cluedo_days")
    return renderer.public_post(
        "gm",
        [event],
        locale=locale,
        fmt="bbcode",
        kind="common",
        timezone="UTC",
        note=None,
        game_kind=game_kind,
    )


def test_player_left_announcement_follows_the_players_gender(renderer: Renderer) -> None:
    def second(player: str, locale: str = "ru") -> str:
        return _announce(renderer, "player_left", {"player": player}, locale).split("\n")[2]

    assert second("Маша") == "Роль не раскрывается. Голоса, поданные ею и за неё, сняты."
    assert second("Петя") == "Роль не раскрывается. Голоса, поданные им и за него, сняты."
    assert second("Веталь") == (
        "Роль не раскрывается. Голоса, поданные этим игроком и за этого игрока, сняты."
    )
    assert second("Маша", "en") == (
        "The role is not revealed. The votes cast by her and for her are withdrawn."
    )
    assert second("Веталь", "en") == (
        "The role is not revealed. The votes cast by this player and for this player are withdrawn."
    )


def test_player_removed_announcement_follows_the_players_gender(renderer: Renderer) -> None:
    def second(player: str) -> str:
        return _announce(renderer, "player_removed", {"player": player}).split("\n")[2]

    # Rule C5: the first of the named cards the seat holds, suspect before weapon
    # before room, and "none" when it holds none, in words both variants use (days:
    # «нет опровержения», rounds: «нет карт»); «делать предположения», not «предлагать».
    order = "в порядке подозреваемый — орудие — комната, а если таких карт нет, так и отвечает."
    assert second("Маша") == (
        "Её место остаётся в игре: за неё отвечает ГМ — показывает первую из названных карт,"
        f" которая у неё есть, {order}"
        " Делать предположения и обвинения она больше не может."
    )
    assert second("Петя") == (
        "Его место остаётся в игре: за него отвечает ГМ — показывает первую из названных карт,"
        f" которая у него есть, {order}"
        " Делать предположения и обвинения он больше не может."
    )
    assert second("Дуг") == (
        "Место остаётся в игре: за него отвечает ГМ — показывает первую из названных карт,"
        f" которая есть у этого места, {order}"
        " Предположений и обвинений от этого места больше не будет."
    )


def test_substitute_announcement_seat_is_neuter(renderer: Renderer) -> None:
    text = _announce(renderer, "gm_substitute", {"player": "Маша", "name": "Вова", "note": None})
    assert text == (
        "[b]Вова заменяет Машу.[/b]\n\n"
        "Место сохраняет имя Маша со всем, что у него есть и что за ним числится."
        " В постах теперь будут оба имени, и годится любое из них.\n"
    )


def test_vote_voided_announcement_no_possessive_of_a_russian_name(renderer: Renderer) -> None:
    data = {"voter": "Вася", "target": "Таня"}
    assert _announce(renderer, "vote_voided", data, "en").split("\n")[0] == (
        "[b]The GM has voided the vote of Вася for Таня.[/b]"
    )


# --- the post-game story (common/story/story.j2) ---


def _story_line(
    renderer: Renderer, game_kind: str, kind: str, data: dict[str, Any], locale: str = "ru"
) -> str:
    """The words of the story's line of one event of ``kind`` in a game of ``game_kind``."""
    event = {
        "seq": 9,
        "kind": kind,
        "visibility": "public",
        "public": True,
        "player": None,
        "at": datetime(2026, 12, 2, 7, 0, tzinfo=UTC),
        "source": None,
        "data": data,
    }
    text = renderer.story(
        locale=locale,
        fmt="markdown",
        kind=game_kind,
        game="g-1",
        timezone="UTC",
        period="day",
        over=True,
        periods=[{"number": 2, "events": [event]}],
        genders={},
    )
    [line] = [line for line in text.split("\n") if line.startswith("- ")]
    return line.split(" · ", 2)[2]


def test_story_names_the_winning_team_in_words(renderer: Renderer) -> None:
    assert _story_line(renderer, "maniac", "game_over", {"winner_team": "town"}, "en") == (
        "the game is over: the town wins."
    )
    assert _story_line(renderer, "maniac", "game_over", {"winner_team": "maniac"}, "en") == (
        "the game is over: the maniac's team wins."
    )
    assert _story_line(renderer, "maniac", "game_over", {"winner_team": "town"}) == (
        "игра окончена: победил город."
    )


def test_story_tells_a_night_in_words_not_codes(renderer: Renderer) -> None:
    data = {
        "night": 1,
        "outcome": "kill",
        "targets": [
            {"player": "Маша", "result": "killed"},
            {"player": "Петя", "result": "blocked"},
        ],
        "fan_in_cell": None,
    }
    assert _story_line(renderer, "maniac", "night_resolution", data, "en") == (
        "night 1: a kill; Маша dies; Петя survives: the duty officer guards the cell."
    )
    assert _story_line(renderer, "maniac", "night_resolution", data) == (
        "ночь 1: убийство; Маша погибает; Петя остаётся в живых: камеру охраняет дежурный."
    )
    void = {"night": 2, "outcome": "void", "targets": [], "fan_in_cell": None}
    assert _story_line(renderer, "maniac", "night_resolution", void) == (
        "ночь 2: заказ не исполнен — маньяк в камере."
    )


def test_story_no_he_for_any_player(renderer: Renderer) -> None:
    answered = {"number": 3, "addressee": "Маша", "by_gm": True}
    assert (
        _story_line(renderer, "cluedo_days", "refuted", answered, "en")
        == "Маша refutes #3 (the GM answered)."
    )
    assert (
        _story_line(renderer, "cluedo_days", "refuted", answered)
        == "Маша опровергает №3 (ответил ГМ)."
    )
    assert _story_line(renderer, "cluedo_days", "not_refuted", answered) == (
        "у Маши нет карт из предположения №3 (ответил ГМ)."
    )
    assert _story_line(renderer, "cluedo_rounds", "asked", {"player": "Маша", "number": 3}) == (
        "очередь Маши отвечать на №3."
    )
    assert (
        _story_line(renderer, "cluedo_rounds", "turn_started", {"player": "Кросс"}, "en")
        == "the turn of Кросс."
    )
    rotated = {"player": "Маша", "via": "mail"}
    assert _story_line(renderer, "cluedo_days", "gm_address_rotated", rotated) == (
        "у Маши новый личный адрес (запрошен письмом)."
    )


def test_story_removed_follows_the_players_gender(renderer: Renderer) -> None:
    def line(player: str) -> str:
        return _story_line(renderer, "cluedo_days", "player_removed", {"player": player})

    assert line("Маша") == "Маша исключена: за её место отвечает ГМ."
    assert line("Петя") == "Петя исключён: за его место отвечает ГМ."
    assert line("Веталь") == "Игрок Веталь исключён: за это место отвечает ГМ."


def test_story_suggestion_names_in_the_genitive(renderer: Renderer) -> None:
    data = {
        "number": 2,
        "suggester": "Мария",
        "addressee": "Лев",
        "suspect": "Краснова",
        "weapon": "нож",
        "room": "кухня",
    }
    assert _story_line(renderer, "cluedo_days", "suggestion_made", data) == (
        "предположение №2 от Марии для Льва: **Краснова**, **нож**, **кухня**."
    )


# --- the GM levers' texts: names in the case the sentence needs (rule P2), no fixed
# «игрока» before a name in the nominative (the filter frames an undeclinable nickname) ---


def test_lever_announcements_decline_the_names(renderer: Renderer) -> None:
    def first(kind: str, data: dict[str, Any]) -> str:
        return _announce(renderer, kind, data).split("\n")[0]

    assert first("vote_voided", {"voter": "Вася", "target": "Саша"}) == (
        "[b]ГМ отменил голос Васи за Сашу.[/b]"
    )
    assert first("gm_substitute", {"player": "Оля", "name": "Любовь", "note": None}) == (
        "[b]Любовь заменяет Олю.[/b]"
    )
    assert first("player_removed", {"player": "Лев"}) == "[b]ГМ исключил Льва из игры.[/b]"
    assert first("player_left", {"player": "Лев"}) == "[b]Лев покидает игру.[/b]"
    assert first("player_removed", {"player": "Веталь"}) == (
        "[b]ГМ исключил игрока Веталь из игры.[/b]"
    )
    assert first("vote_voided", {"voter": "Веталь", "target": "Шапо"}) == (
        "[b]ГМ отменил голос игрока Веталь за Шапо.[/b]"
    )


def test_voided_vote_mail_declines_the_target(renderer: Renderer) -> None:
    _subject, body = mail(
        renderer,
        "maniac/voided",
        player="Вася",
        what="vote",
        voided={"voter": "Вася", "target": "Саша"},
    )
    assert body.split("\n")[0] == (
        "Вася, ГМ отменил ваш голос за Сашу: он не считается поданным, и в силе ваш прежний голос"
        " этого дня, если он был."
    )


def test_act_result_declines_the_player(renderer: Renderer) -> None:
    done = {"lever": "act", "player": "Петя", "results": [{"line": "ГОЛОС Таня"}]}
    _subject, body = mail(
        renderer, "gm_result", results=[{"line": "", "lever": "act", "done": done}]
    )
    assert body.split("\n")[0] == "Внесено за Петю:"


def test_act_refused_declines_the_player(renderer: Renderer) -> None:
    assert error(renderer, "gm_act_refused", player="Любовь", errors=["Нет хода."]) == (
        "За Любовь ничего не внесено: Нет хода."
    )
    assert error(renderer, "gm_act_refused", player="Петя", errors=["Нет хода."]) == (
        "За Петю ничего не внесено: Нет хода."
    )


def test_substitute_result_and_old_players_mails_decline_the_seat(renderer: Renderer) -> None:
    done = {
        "lever": "substitute",
        "player": "Оля",
        "name": "Вова",
        "email": "v@x.test",
        "dropped": [],
    }
    results = [{"line": "", "lever": "substitute", "done": done}]
    _subject, body = mail(renderer, "gm_result", results=results)
    assert body.split("\n")[0] == (
        "Вова (v@x.test) теперь играет за место Оли; старый личный адрес больше не действует."
        " Вводное письмо ушло на v@x.test."
    )
    _subject, body = mail(renderer, "replaced", seat="Оля")
    assert body.startswith("Здравствуйте! ГМ передал ваше место в игре «g-1» другому игроку,")
    _subject, body = mail(renderer, "held_dropped", seat="Оля", substitute="Вова")
    assert body.startswith("Пока игра стояла на паузе, ГМ передал ваше место Вове.")


def test_gm_wrong_address_declines_the_player(renderer: Renderer) -> None:
    subject, body = mail(
        renderer, "gm_wrong_address", player="Оля", gm_address="gm@x.test", gm_command=False
    )
    assert subject == "Это личный адрес Оли"
    assert body == (
        "Письмо пришло на личный адрес Оли, поэтому ничего не выполнено. Команды ГМа пишите "
        "на ваш адрес ГМа: gm@x.test. Чтобы внести ход за игрока, напишите туда строку\n"
        "    ЗА Олю: <ход>\n"
    )
    _subject, body = mail(
        renderer, "gm_wrong_address", player="Оля", gm_address="gm@x.test", gm_command=True
    )
    assert body == (
        "Письмо пришло на личный адрес Оли, поэтому ничего не выполнено. Команды ГМа пишите "
        "на ваш адрес ГМа: gm@x.test.\n"
    )


def test_confirmation_echo_declines_the_player(renderer: Renderer) -> None:
    pending = [
        {
            "line": "ЗА Петя: ГОЛОС Таня",
            "lever": "act",
            "args": {"player": "Петя", "move": "ГОЛОС Таня"},
            "note": None,
        },
        {"line": "ИСКЛЮЧИТЬ Лев", "lever": "remove", "args": {"player": "Лев"}, "note": "пропал"},
        {
            "line": "",
            "lever": "substitute",
            "args": {"player": "Оля", "name": "Вова", "email": "v@x.test"},
            "note": None,
        },
    ]
    _subject, body = mail(
        renderer,
        "gm_confirm",
        pending=pending,
        results=[],
        expires_at=datetime(2026, 12, 2, 6, 0, tzinfo=UTC),
        gm_address="gm@x.test",
    )
    lines = body.split("\n")
    assert lines[2:5] == [
        "  ЗА Петю: ГОЛОС Таня",
        "  ИСКЛЮЧИТЬ Льва -- пропал",
        "  ЗАМЕНА Оли НА Вова v@x.test",
    ]


def test_story_of_the_levers_declines_the_names(renderer: Renderer) -> None:
    assert _story_line(renderer, "cluedo_rounds", "turn_started", {"player": "Лев"}) == "ход Льва."
    assert _story_line(
        renderer, "maniac", "vote_cast", {"voter": "Коля", "target": "Саша", "prison": False}
    ) == ("Коля голосует за Сашу.")
    assert _story_line(
        renderer, "maniac", "vote_withdrawn", {"voter": "Коля", "target": "Лев"}
    ) == ("Коля снимает голос за Льва.")
    assert _story_line(
        renderer, "maniac", "vote_voided", {"voter": "Вася", "target": "Саша", "prison": False}
    ) == ("голос Васи за Сашу отменён.")
    assert _story_line(renderer, "cluedo_days", "gm_remove", {"player": "Лев", "note": None}) == (
        "ГМ исключает Льва."
    )
    assert _story_line(
        renderer, "cluedo_days", "gm_substitute", {"player": "Оля", "name": "Любовь", "note": None}
    ) == ("Любовь заменяет Олю.")
    act = {"player": "Петя", "move": "ГОЛОС Таня", "note": None}
    assert (
        _story_line(renderer, "cluedo_days", "gm_act", act)
        == "ГМ вносит ход за Петю: «ГОЛОС Таня»."
    )
    assert (
        _story_line(renderer, "cluedo_days", "gm_seat_address", {"player": "Оля"})
        == "у Оли новый личный адрес."
    )
    answer = {"number": 3, "player": "Лев", "card": "нож"}
    assert (
        _story_line(renderer, "cluedo_days", "gm_refutation", answer)
        == "ГМ отвечает на №3 за Льва: **нож**."
    )


# --- who died in a night (GM only): by count and gender, «никто не погиб» for none ---


def test_night_dead_by_count_and_gender(renderer: Renderer) -> None:
    env = renderer._env("ru", "text")
    t = env.from_string('{% import "maniac/parts/macros.j2" as m %}{{ m.dead(p) }}')
    assert t.render(p=[], locale="ru") == "никто не погиб"
    assert t.render(p=["Коля"], locale="ru") == "погиб Коля"
    assert t.render(p=["Маша"], locale="ru") == "погибла Маша"
    assert t.render(p=["Веталь"], locale="ru") == "погиб игрок Веталь"
    assert t.render(p=["Коля", "Маша"], locale="ru") == "погибли: Коля, Маша"
    assert (
        _story_line(renderer, "maniac", "night_ended", {"dead": ["Маша"]}) == "утро: погибла Маша."
    )
    assert _story_line(renderer, "maniac", "night_ended", {"dead": []}) == "утро: никто не погиб."


# --- a voided event in words, not by its internal code ---


def test_void_result_names_the_move_not_its_code(renderer: Renderer) -> None:
    def line(game: str, kind: str) -> str:
        done = {"lever": "void", "event": 30, "voided_kind": kind, "announced": False}
        _subject, body = mail(
            renderer, f"{game}/gm_result", results=[{"line": "", "lever": "void", "done": done}]
        )
        return body.split("\n")[0]

    assert line("maniac", "vote_cast") == "Голос (событие 30) отменён."
    assert line("cluedo_days", "suggestion_made") == "Предположение (событие 30) отменено."
    assert line("maniac", "order_placed") == "Заказ маньяка (событие 30) отменён."
    void = {"event": 30, "voided_kind": "vote_cast", "note": None}
    assert _story_line(renderer, "maniac", "gm_void", void) == "ГМ отменяет голос (событие 30)."


# --- the GM's note on its own line ---


def test_gm_note_is_a_paragraph_of_its_own(renderer: Renderer) -> None:
    pause = {"period": 1, "deadline_name": "day", "deadline_at": None, "note": "праздники"}
    assert _announce(renderer, "gm_pause", pause).split("\n")[:3] == [
        "[b]Игра приостановлена.[/b]",
        "",
        "Примечание ГМа: праздники",
    ]
    swap = {"player": "Кэт", "name": "Вова", "note": "Кэт уехала"}
    assert _announce(renderer, "gm_substitute", swap).split("\n")[:3] == [
        "[b]Вова заменяет игрока Кэт.[/b]",
        "",
        "Примечание ГМа: Кэт уехала",
    ]


# --- the announcement's Subject names the lever ---


def test_announcement_subject_names_the_lever(renderer: Renderer) -> None:
    def subject(kinds: list[str]) -> str:
        game = _GAME_OF.get(kinds[0], "cluedo_days")
        return mail(renderer, f"{game}/gm_announce", kinds=kinds, part="bbcode")[0]

    assert subject(["gm_pause"]) == "Объявление для форума: пауза — BBCode"
    assert subject(["gm_extend"]) == "Объявление для форума: продление срока — BBCode"
    assert subject(["gm_substitute"]) == "Объявление для форума: замена игрока — BBCode"
    assert subject(["player_left"]) == "Объявление для форума: игрок выбывает — BBCode"
    assert subject(["vote_voided"]) == "Объявление для форума: отмена голоса — BBCode"


# --- the kept mail's arrival time in the game's zone ---


def test_kept_mail_notice_shows_the_time_in_the_games_zone(renderer: Renderer) -> None:
    _subject, body = mail(
        renderer,
        "gm_notice",
        timezone="Europe/Moscow",
        reason="unreadable",
        detail=None,
        sender=None,
        subject="x",
        arrived="2026-12-02T06:53:18.857353+00:00",
        kept_id=3,
    )
    assert body.rstrip("\n").split("\n")[-3:] == [
        "  Получено: 2 декабря 2026 г., 09:53 по Москве",
        "",
        # It ends with the mail commands that act on it (issue 31), not console ones.
        "Ответьте ЗА <игрок>: <ход>, чтобы самому внести ходы из этого письма, или ОТКЛОНИТЬ 3,"
        " чтобы закрыть его, не применяя.",
    ]


@pytest.mark.parametrize(
    ("locale", "reason", "last"),
    [
        (
            "ru",
            "error",
            "Ответьте ПОВТОРИТЬ 3, когда ошибку исправят (обновление pbp), или ОТКЛОНИТЬ 3, "
            "чтобы закрыть его, не применяя.",
        ),
        (
            "en",
            "wrong_sender",
            "Reply RETRY 3 once the sender's address is right, ACT <player>: <move> to enter its "
            "moves yourself, or DISMISS 3 to close it unapplied.",
        ),
        ("en", "wrong_confirmer", "Reply DISMISS 3 to close it; it is never applied."),
    ],
)
def test_a_kept_mail_notice_ends_with_the_mail_commands_that_act_on_it(
    renderer: Renderer, locale: str, reason: str, last: str
) -> None:
    _subject, body = mail(
        renderer,
        "gm_notice",
        locale=locale,
        timezone="UTC",
        reason=reason,
        detail=None,
        sender="doug@example.test",
        subject="x",
        arrived="2026-12-02T06:53:18+00:00",
        kept_id=3,
    )
    assert "pbp " not in body
    assert body.rstrip("\n").split("\n")[-1] == last


# --- the kept mail's reason in the game's language (golden texts, issue 16) ---


def _notice_reason(renderer: Renderer, locale: str = "ru", **facts: Any) -> list[str]:
    _subject, body = mail(
        renderer,
        "gm_notice",
        locale=locale,
        timezone="UTC",
        sender="player8@example.test",
        subject="ход",
        arrived="2026-12-01T10:30:00+00:00",
        kept_id=1,
        **facts,
    )
    return body.split("\n")[1:4]


def test_kept_mail_notice_says_why_unreadable_in_the_games_language(renderer: Renderer) -> None:
    # The technical reason (in English) is not the GM's text: its code says it in words.
    technical = "no text/plain or text/html part (the message is application/pkcs7-mime)"
    lines = _notice_reason(renderer, reason="unreadable", detail=technical, code="encrypted")
    assert lines == [
        "  Причина: письмо не удалось прочитать — оно зашифровано или подписано так, что "
        "текст виден только после расшифровки (S/MIME или PGP)",
        "  Отправитель: player8@example.test",
        "  Тема: ход",
    ]
    en = _notice_reason(renderer, "en", reason="unreadable", detail=technical, code="encrypted")
    assert en[0] == (
        "  Reason: the mail could not be read: it is encrypted, or signed so that its text "
        "shows only once decrypted (S/MIME or PGP)"
    )


def test_kept_mail_notice_gives_a_large_mails_size_in_the_games_language(
    renderer: Renderer,
) -> None:
    technical = "205941 bytes, over the limit of 100000"
    facts: dict[str, Any] = {"reason": "too_large", "detail": technical}
    facts |= {"size": 205941, "limit": 100000}
    assert _notice_reason(renderer, **facts)[:2] == [
        "  Причина: письмо больше допустимого размера, оно не прочитано "
        "(205\u00a0941 байт при пределе 100\u00a0000)",
        "  Отправитель: player8@example.test",
    ]
    assert _notice_reason(renderer, "en", **facts)[0] == (
        "  Reason: the mail is larger than the size limit and was not read "
        "(205,941 bytes; the limit is 100,000)"
    )
    # Without the facts (a program error): the detail as it is, on the same line.
    error = _notice_reason(renderer, reason="error", detail="KeyError('x')")
    assert error[:2] == [
        "  Причина: при обработке произошла ошибка программы (KeyError('x'))",
        "  Отправитель: player8@example.test",
    ]


# --- Cluedo by days: a suggestion to a removed player (C5) ---


def test_suggester_is_told_the_gm_answered_for_a_removed_addressee(renderer: Renderer) -> None:
    sugg = {"number": 4, "day": 2, "ordinal": 1, "suggester": "Дуг", "addressee": "Веталь"}
    sugg |= {"suspect": "Белова", "weapon": "Молоток", "room": "Спальня"}
    events = [
        {"kind": "suggestion_made", **sugg, "gm_answers": True},
        {"kind": "refuted", **sugg, "by_gm": True},
    ]
    results = [{"line": "ПРЕДПОЛОЖЕНИЕ Белова, Молоток, Спальня ДЛЯ Веталя", "events": events}]
    context: dict[str, Any] = {"player": "Дуг", "results": results}
    context |= {"done": results, "not_done": []}
    genders = {"Веталь": "masc", "Дуг": "femn"}
    _subject, body = mail(renderer, "cluedo_days/reply", genders=genders, **context)
    assert body.split("\n")[5:7] == [
        "Принято: предположение №4 для Веталя (Белова, Молоток, Спальня).",
        "За Веталя ответил ГМ (игрок исключён из игры): предположение №4 опровергнуто, "
        "карта придёт вам отдельным письмом.",
    ]
    assert "по почте" not in body and "Карту Дуг получит" not in body
    events[1] = {"kind": "not_refuted", **sugg, "by_gm": True}
    _subject, body = mail(renderer, "cluedo_days/reply", "en", genders=genders, **context)
    assert body.split("\n")[5:7] == [
        "Accepted: suggestion #4 to Веталь (Белова, Молоток, Спальня).",
        "The GM answered for Веталь (removed from the game): no refutation of suggestion #4.",
    ]


# --- a NEW ADDRESS mail with nothing else in it ---


def test_new_address_asks_to_send_again_only_what_the_mail_had_besides(
    renderer: Renderer,
) -> None:
    context: dict[str, Any] = {"player": "Неташка", "personal_address": "gm+t@example.test"}
    context["subject_tag"] = None
    _subject, alone = mail(renderer, "new_address", asked=True, more=False, **context)
    assert "Больше ничего" not in alone
    _subject, more = mail(renderer, "new_address", asked=True, more=True, **context)
    assert more.rstrip("\n").split("\n")[-1] == (
        "Больше ничего из вашего письма не выполнено: пришлите ходы ещё раз на новый адрес "
        "(проще всего ответом на это письмо)."
    )


# --- the GM's resume post in Cluedo by rounds: the next deadline, a turn's or an answer's ---


def test_resume_post_of_a_turn_names_the_next_deadline_not_the_turns(renderer: Renderer) -> None:
    data = {
        "period": 1,
        "deadline_name": "turn",
        "deadline_at": datetime(2026, 12, 2, 9, 40, tzinfo=UTC),
        "note": None,
    }
    assert _announce(renderer, "gm_resume", data).split("\n")[2] == (
        "Ход 1: ближайший срок — 2 декабря 2026 г., 09:40 UTC."
    )
    assert _announce(renderer, "gm_resume", data, "en").split("\n")[2] == (
        "Turn 1: the next deadline is December 2, 2026, 09:40 UTC."
    )


# --- the story: who refuted, in his gender; to whom a card was shown, in the dative ---


def test_story_round_ended_follows_the_refuters_gender(renderer: Renderer) -> None:
    def line(player: str) -> str:
        return _story_line(
            renderer, "cluedo_rounds", "round_ended", {"number": 2, "refuted_by": player}
        )

    assert line("Любовь") == "ответы на №2 закончены, опровергла Любовь."
    assert line("Лев") == "ответы на №2 закончены, опроверг Лев."
    assert line("Саша") == "ответы на №2 закончены, опроверг игрок Саша."


def test_story_card_shown_names_the_suggester_in_the_dative(renderer: Renderer) -> None:
    data = {"number": 2, "suggester": "Саша", "addressee": "Любовь", "card": "Библиотека"}
    data |= {"by": "Любовь", "by_gm": False}
    assert _story_line(renderer, "cluedo_days", "card_shown", data) == (
        "Любовь показывает Саше карту **Библиотека**."
    )
    # A name whose form needs a gender nobody gave is framed: «игроку Веталь».
    assert _story_line(renderer, "cluedo_days", "card_shown", {**data, "suggester": "Веталь"}) == (
        "Любовь показывает игроку Веталь карту **Библиотека**."
    )


# --- Maniac's final post: a removed player is marked so ---


def test_maniac_final_post_marks_the_removed_player(renderer: Renderer) -> None:
    roles = {"Павел": "maniac", "Мария": "civilian"}
    events = [
        Event("player_left", Visibility.PUBLIC, {"player": "Мария", "day": 2, "phase": "day"}),
        Event("day_closed", Visibility.PUBLIC, {"day": 2, "to_prison": "Павел"}),
        Event(
            "game_over",
            Visibility.PUBLIC,
            {"winner_team": "town", "winners": ["Мария"], "roles": roles, "canonical": "x"},
        ),
    ]
    for locale, expected in (
        ("ru", "- Мария — [b]мирная жительница[/b]; вне игры со дня 2 по решению ГМа"),
        ("en", "- Мария — [b]civilian[/b]; out of the game since day 2 (removed by the GM)"),
    ):
        post = renderer.public_post("final", events, kind="maniac", locale=locale, fmt="bbcode")
        assert expected in post.split("\n"), locale


def _final_with_removed(renderer: Renderer, removed: str, locale: str) -> list[str]:
    """The final post's lines after the town won with ``removed``, a civilian, removed
    by the GM (his game_over from before the fix still lists him among the winners)."""
    roles = {"Лев": "civilian", "Павел": "maniac", removed: "civilian"}
    events = [
        Event("player_left", Visibility.PUBLIC, {"player": removed, "day": 2, "phase": "day"}),
        Event("day_closed", Visibility.PUBLIC, {"day": 3, "to_prison": "Павел"}),
        Event(
            "game_over",
            Visibility.PUBLIC,
            {"winner_team": "town", "winners": ["Лев", removed], "roles": roles, "canonical": "x"},
        ),
    ]
    post = renderer.public_post("final", events, kind="maniac", locale=locale, fmt="bbcode")
    return post.split("\n")


@pytest.mark.parametrize(
    ("removed", "locale", "line"),
    [
        ("Мария", "ru", "Мария не в числе победителей: ГМ исключил её из игры."),
        ("Илья", "ru", "Илья не в числе победителей: ГМ исключил его из игры."),
        ("Веталь", "ru", "Игрок Веталь не в числе победителей: ГМ исключил его из игры."),
        ("Мария", "en", "Мария is not among the winners: the GM removed her from the game."),
        ("Илья", "en", "Илья is not among the winners: the GM removed him from the game."),
        (
            "Веталь",
            "en",
            "Веталь is not among the winners, having been removed from the game by the GM.",
        ),
    ],
)
def test_M12_a_removed_player_is_not_among_the_winners_and_the_post_says_why(
    renderer: Renderer, removed: str, locale: str, line: str
) -> None:
    lines = _final_with_removed(renderer, removed, locale)
    winners = "Победители: Лев." if locale == "ru" else "Winners: Лев."
    assert lines[lines.index(winners) + 1] == line


@pytest.mark.parametrize(
    ("locale", "phase", "subject", "first"),
    [
        ("ru", "day", "Вы исключены из игры", "Мария, ГМ исключил вас из игры «g-1» в день 2."),
        ("ru", "night", "Вы исключены из игры", "Мария, ГМ исключил вас из игры «g-1» в ночь 2."),
        (
            "en",
            "day",
            "You have been removed from the game",
            'Мария, the GM has removed you from the game "g-1" on day 2.',
        ),
        (
            "en",
            "night",
            "You have been removed from the game",
            'Мария, the GM has removed you from the game "g-1" during night 2.',
        ),
    ],
)
def test_M12_the_removed_players_mail_names_the_game_and_the_moment(
    renderer: Renderer, locale: str, phase: str, subject: str, first: str
) -> None:
    left = {"player": "Мария", "day": 2, "phase": phase}
    got, body = mail(renderer, "maniac/removed", locale, player="Мария", left=left)
    assert (got, body.split("\n")[0]) == (subject, first)
    if locale == "en":
        assert body.split("\n")[2] == (
            "You take no further part in it: your votes are no longer accepted. The thread "
            "is told that you have left the game, without your role; every role is revealed "
            "when the game ends, and then you get its result by mail."
        )


@pytest.mark.parametrize(
    ("target", "locale", "text"),
    [
        (
            "Мария",
            "ru",
            "Мария исключена из игры ГМом: за неё не голосуют и её не заказывают. Можно "
            "назвать: Лев, Илья.",
        ),
        (
            "Илья",
            "ru",
            "Илья исключён из игры ГМом: за него не голосуют и его не заказывают. Можно "
            "назвать: Лев, Илья.",
        ),
        (
            "Веталь",
            "ru",
            "Игрок Веталь исключён из игры ГМом: за него не голосуют и его не заказывают. "
            "Можно назвать: Лев, Илья.",
        ),
        (
            "Мария",
            "en",
            "Мария has been removed from the game by the GM: she can be neither voted for nor "
            "ordered killed. You may name: Лев, Илья.",
        ),
    ],
)
def test_M12_a_removed_target_is_refused_as_removed_not_as_dead(
    renderer: Renderer, target: str, locale: str, text: str
) -> None:
    assert error(renderer, "target_removed", locale, target=target, players=["Лев", "Илья"]) == (
        text
    )
    own = {
        "ru": "ГМ исключил вас из игры: голосовать вы больше не можете.",
        "en": "The GM has removed you from the game: you can no longer vote.",
    }
    assert error(renderer, "removed_from_game", locale, player=target) == own[locale]


# --- a voided suggestion told to its suggester; a resume with no mail held ---


def test_voided_suggestion_is_told_to_its_suggester_as_hers(renderer: Renderer) -> None:
    voided = {"number": 1, "suggester": "Неташка", "addressee": "Веталь"}
    voided |= {"suspect": "Белова", "weapon": "Пистолет", "room": "Спальня"}
    context: dict[str, Any] = {"player": "Неташка", "voided": voided, "what": "suggestion"}
    _subject, body = mail(renderer, "cluedo_days/voided", genders={"Веталь": "masc"}, **context)
    assert body.split("\n")[0] == (
        "Неташка, ГМ отменил ваше предположение №1 (для Веталя: Белова, Пистолет, Спальня)."
        " Оно не в счёт ваших предположений дня: можно сделать новое."
    )
    _subject, body = mail(renderer, "cluedo_days/voided", "en", **context)
    assert body.split("\n")[0] == (
        "Неташка, the GM has voided your suggestion #1 (to Веталь: Белова, Пистолет, Спальня)."
        " It does not count among your suggestions of that day: you may make a new one."
    )


def test_resume_result_counts_held_mail_only_when_there_is_some(renderer: Renderer) -> None:
    def body(held: int) -> str:
        done = {"lever": "resume", "deadline_at": None, "held": held}
        results = [{"line": "ПРОДОЛЖИТЬ", "lever": "resume", "done": done}]
        return mail(renderer, "gm_result", results=results, gm_address="gm@x.test")[1]

    assert "отложенных на время паузы" not in body(0)
    assert "Писем, отложенных на время паузы: 2 (учитываются сейчас" in body(2)


# --- a stranger at a player's personal address is not called "another member" ---


def test_wrong_sender_tells_a_stranger_he_is_registered_in_no_game(renderer: Renderer) -> None:
    address = "maria.home@example.test"
    _subject, body = mail(renderer, "wrong_sender", address=address, registered=False)
    assert body.split("\n")[:2] == [
        "Здравствуйте! Письмо с адреса maria.home@example.test пришло на личный адрес"
        " участника игры, а этот адрес отправителя не зарегистрирован ни в одной игре,"
        " поэтому ходы из него не выполнены. ГМ узнает об этом.",
        "Если вы играете, пишите со своего зарегистрированного адреса на свой личный адрес"
        " (он указан в письмах игры).",
    ]
    _subject, body = mail(renderer, "wrong_sender", address="player3@example.test")
    assert "другого участника игры" in body.split("\n")[0]


# --- issue 34: a suggestion's number is written with its sign, «№2», in every text ---


@pytest.mark.parametrize(
    ("locale", "texts"),
    [
        (
            "ru",
            [
                "В этом ходу вы уже сделали предположение №2, на него сейчас отвечает Дуг. За ход"
                " — одно предположение или одно обвинение; обвинить можно только в начале своего"
                " следующего хода, вместо предположения.",
                "Предположения №9 нет. Вас ждут предположения: №3, №5.",
                "Вас ждут несколько предположений: №3, №5. Укажите номер, например:"
                " ОПРОВЕРЖЕНИЕ 3 <карта> или НЕТ ОПРОВЕРЖЕНИЯ 3.",
                "На предположение №2 уже дан ответ (опровержение); ответ изменить нельзя."
                " Вас ждут предположения: №3.",
            ],
        ),
        (
            "en",
            [
                "You have already made your move this turn: suggestion #2, which Дуг is answering"
                " now. One suggestion or one accusation per turn; an accusation only at the start"
                " of your next turn, instead of a suggestion.",
                "There is no suggestion #9. Waiting for your answer: #3, #5.",
                "Several suggestions are waiting for your answer: #3, #5. Give the number, for"
                " example: REFUTE 3 <card> or NO REFUTATION 3.",
                "Suggestion #2 has already been answered (refuted); an answer cannot be changed."
                " Waiting for your answer: #3.",
            ],
        ),
    ],
)
def test_suggestion_numbers_carry_their_sign_in_refusals(
    renderer: Renderer, locale: str, texts: list[str]
) -> None:
    """«вы уже сделали предположение 2» lacked «№»; a list of numbers waiting lacked it
    too. The commands keep the bare number (``REFUTE 3``): that is what a player types."""
    genders = {"genders": {"Дуг": "femn"}}
    assert [
        error(renderer, "one_move_per_turn", locale, number=2, asked="Дуг", **genders),
        error(renderer, "unknown_suggestion", locale, number=9, waiting=[3, 5]),
        error(renderer, "which_suggestion", locale, waiting=[3, 5]),
        error(
            renderer,
            "already_answered",
            locale,
            number=2,
            answer="refuted",
            by_gm=False,
            waiting=[3],
        ),
    ] == texts


# --- issue 34: the GM's texts name events and outcomes in words, never by their codes ---


@pytest.mark.parametrize(
    ("locale", "texts"),
    [
        (
            "ru",
            [
                "Это событие (отмена предположения ГМом) отменить нельзя. Отменить можно только:"
                " предположение, на которое ещё нет ответа.",
                "Это событие (опровержение) отменить нельзя. В этой игре ничего не отменяется;"
                " внесите за игрока правильный ход (ЗА <игрок>: <ход>).",
                "Это событие (закрепление заказа маньяка) отменить нельзя. Отменить можно только:"
                " действующий голос текущего дня и заказ маньяка, пока он не зафиксирован.",
                "Это событие отменить нельзя. Отменить можно только: предположение, на которое"
                " ещё нет ответа.",
            ],
        ),
        (
            "en",
            [
                "This event (the GM's void of a suggestion) cannot be voided. Only these can be"
                " voided: an unanswered suggestion.",
                "This event (a refutation) cannot be voided. Nothing can be voided in this game;"
                " enter the right move for the player instead (ACT <player>: <move>).",
                "This event (the maniac's order fixed) cannot be voided. Only these can be"
                " voided: a vote of today that still stands and a maniac's order not yet fixed.",
                "This event cannot be voided. Only these can be voided: an unanswered suggestion.",
            ],
        ),
    ],
)
def test_void_kind_refusal_names_the_event_in_words_not_its_kind(
    renderer: Renderer, locale: str, texts: list[str]
) -> None:
    """The GM's result mail said «Событие «suggestion_voided» отменить нельзя. Отменяются
    только: suggestion_made.» (Cluedo by days; Maniac: «vote_cast, order_placed»)."""
    cases = [
        ("cluedo_days", "suggestion_voided", ["suggestion_made"]),
        ("cluedo_rounds", "refuted", []),  # nothing can be voided
        ("maniac", "order_fixed", ["vote_cast", "order_placed"]),
        ("cluedo_days", "a_kind_of_a_new_game", ["suggestion_made"]),  # no words: no code either
    ]
    assert [
        renderer.error("void_kind", {"kind": k, "allowed": a}, locale=locale, kind=game)
        for game, k, a in cases
    ] == texts
    cli = renderer.error(
        "void_kind",
        {"kind": "refuted", "allowed": []},
        locale=locale,
        kind="cluedo_rounds",
        cli=True,
    )
    assert cli.endswith("(pbp act).")


@pytest.mark.parametrize(
    ("locale", "texts"),
    [
        (
            "ru",
            [
                "Отложенное письмо 3 уже обработано снова: применено отчасти, часть команд"
                " отклонена (отправителю ответили). Больше оно не ждёт.",
                "Этот pbp пока не умеет «ИСКЛЮЧИТЬ»; сделайте это вручную.",
            ],
        ),
        (
            "en",
            [
                "Kept mail 3 was processed again already: applied in part, some commands refused"
                " (the sender was told). It waits no more.",
                'This pbp cannot do "REMOVE" yet; ask for it or do it by hand.',
            ],
        ),
    ],
)
def test_gm_refusals_name_an_outcome_and_a_lever_in_words_not_their_codes(
    renderer: Renderer, locale: str, texts: list[str]
) -> None:
    """DISMISS of a mail retried already said «(partly_applied)»; a lever a game kind
    cannot pull said «"remove"»: the outcome in words, the lever by the GM's keyword."""
    assert [
        error(renderer, "kept_done", locale, id=3, outcome="partly_applied", via="mail"),
        error(renderer, "gm_unsupported", locale, lever="remove"),
    ] == texts


# --- rule P2: the echo of a command is a command pbp reads back ---

ECHO_PLAYERS = ["Веталь", "Неташка", "Дуг", "Оля", "Павел", "Шапо", "Коля", "Таня"]
#: Дуг is a woman by games.yaml; Веталь and Шапо have no gender anybody could tell.
ECHO_GENDERS = {"Дуг": "femn"}


def _echo(renderer: Renderer, move: dict[str, Any], game: str = "maniac") -> str:
    """The «Понял: …» line of a reply to ``move`` (``<game>/parts/understood.j2``, the
    game's own moves, the others as templates/common/understood.j2 says them), in a
    game whose players' genders are :data:`ECHO_GENDERS`."""
    env = renderer._env("ru", "text")
    template = env.from_string(
        '{% import "' + game + '/parts/understood.j2" as u %}{{ u.understood(move) }}'
    )
    with genders_of({"genders": ECHO_GENDERS}):
        return template.render(move=move, locale="ru")


@pytest.mark.parametrize(
    ("target", "vote", "kill"),
    [
        ("Оля", "ГОЛОС за Олю", "УБИТЬ Олю"),
        ("Павел", "ГОЛОС за Павла", "УБИТЬ Павла"),
        ("Дуг", "ГОЛОС за Дуг", "УБИТЬ Дуг"),
        ("Веталь", "ГОЛОС за Веталь", "УБИТЬ Веталь"),
        ("Шапо", "ГОЛОС за Шапо", "УБИТЬ Шапо"),
    ],
)
def test_P2_the_echo_of_a_maniac_command_is_one_pbp_reads_back(
    renderer: Renderer, target: str, vote: str, kill: str
) -> None:
    """«Понял: …» shows the command as pbp read it, its name in the case the command
    word takes where the name declines (УБИТЬ Олю); a nickname whose gender nobody gave
    stays as written (УБИТЬ Веталь), never framed as prose frames it («убить игрока
    Веталь»), which is no command: read back, the echo is the same move."""
    echoes = (
        _echo(renderer, {"type": "vote", "target": target, "prison": False}),
        _echo(renderer, {"type": "kill", "targets": [target], "night": None}),
    )
    assert echoes == (vote, kill)
    read = [line.move for echo in echoes for line in parse_maniac(echo, ECHO_PLAYERS)]
    assert read == [Vote(target), Kill((target,), None)]


@pytest.mark.parametrize(
    ("addressee", "echo"),
    [
        ("Неташка", "ПРЕДПОЛОЖЕНИЕ Белых, нож, кухня ДЛЯ Неташки"),
        ("Павел", "ПРЕДПОЛОЖЕНИЕ Белых, нож, кухня ДЛЯ Павла"),
        ("Дуг", "ПРЕДПОЛОЖЕНИЕ Белых, нож, кухня ДЛЯ Дуг"),
        ("Веталь", "ПРЕДПОЛОЖЕНИЕ Белых, нож, кухня ДЛЯ Веталь"),
    ],
)
def test_P2_the_echo_of_a_suggestion_names_its_addressee_after_DLYA_in_the_genitive(
    renderer: Renderer, addressee: str, echo: str
) -> None:
    """«Понял: ПРЕДПОЛОЖЕНИЕ … ДЛЯ Неташки», as the player wrote it and as «Принято:
    предположение №4 для Неташки» says it on the next line (it said «ДЛЯ Неташка»); a
    nickname of no known gender stays as written, and the echo reads back as the move."""
    move = {
        "type": "suggest",
        "suspect": "Белых",
        "weapon": "нож",
        "room": "кухня",
        "addressee": addressee,
    }
    assert _echo(renderer, move, "cluedo") == echo
    cards = Cards(("Белых", "Краснова"), ("нож", "топор"), ("кухня", "холл"))
    (line,) = parse_cluedo(echo, cards, ECHO_PLAYERS)
    assert line.move == Suggest("Белых", "нож", "кухня", addressee=addressee)
