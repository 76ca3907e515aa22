"""What players read (issue 16): Russian that reads right, rules P2, C5, D6, R5.

Each test is named after the defect it holds and asserts the corrected text exactly.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from test_common_texts import TEMPLATES, error, mail

from pbp.games.core import registry
from pbp.text.render import Renderer


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(TEMPLATES, kinds=registry.KINDS)


# --- 1. «у игрока Лев»: the name takes the case the sentence needs (P2) ---


def test_not_refuted_mail_names_the_addressee_in_the_genitive(renderer: Renderer) -> None:
    def line(addressee: str, locale: str = "ru") -> str:
        answer = {
            "number": 4,
            "day": 1,
            "ordinal": 1,
            "suggester": "Неташка",
            "addressee": addressee,
            "suspect": "Краснова",
            "weapon": "нож",
            "room": "кухня",
            "by_gm": False,
        }
        _subject, body = mail(
            renderer, "not_refuted", locale, kind="cluedo_days", player="Неташка", answer=answer
        )
        return body.split("\n")[0]

    head = "Неташка, на ваше предположение №4 (Краснова, нож, кухня) опровержения нет: "
    assert line("Лев") == head + "у Льва нет ни одной из этих карт."
    assert line("Маша") == head + "у Маши нет ни одной из этих карт."
    assert line("Шапо") == head + "у Шапо нет ни одной из этих карт."
    # A nickname whose genitive needs a gender nobody gave: framed by «игрока».
    assert line("Веталь") == head + "у игрока Веталь нет ни одной из этих карт."
    assert line("Лев", "en") == (
        "Неташка, your suggestion #4 (Краснова, нож, кухня) was not refuted:"
        " Лев holds none of these cards."
    )


def test_not_your_turn_names_the_turns_player_in_the_genitive(renderer: Renderer) -> None:
    def text(player: str) -> str:
        return error(renderer, "not_your_turn", turn=3, turn_player=player)

    tail = (
        ". Предположение или обвинение можно сделать только в свой ход;"
        " когда он наступит, придёт письмо."
    )
    assert text("Петя") == "Сейчас не ваш ход: ход 3 — у Пети" + tail
    assert text("Любовь") == "Сейчас не ваш ход: ход 3 — у Любови" + tail
    assert text("Веталь") == "Сейчас не ваш ход: ход 3 — у игрока Веталь" + tail


def test_vote_limit_names_the_target_in_the_accusative(renderer: Renderer) -> None:
    def text(target: str) -> str:
        return error(renderer, "vote_limit", target=target, limit=2, day=3)

    tail = (
        " в день 3 вы уже голосовали максимальное число раз (2): больше за одного игрока"
        " в один день нельзя (голоса за камеру и за тюрьму считаются вместе)."
        " Проголосуйте за другого игрока или снимите голос: СНЯТЬ ГОЛОС."
    )
    assert text("Таня") == "За Таню" + tail
    assert text("Петя") == "За Петю" + tail
    assert text("Веталь") == "За игрока Веталь" + tail


def test_not_addressee_names_the_addressee_in_the_dative(renderer: Renderer) -> None:
    def text(addressee: str) -> str:
        return error(renderer, "not_addressee", number=7, addressee=addressee, waiting=[])

    tail = ", и ответить на него может только адресат. Вам сейчас отвечать не на что."
    assert text("Маша") == "Предположение №7 адресовано Маше" + tail
    assert text("Веталь") == "Предположение №7 адресовано игроку Веталь" + tail


def test_never_in_cell_of_a_nickname_frames_the_genitive_only(renderer: Renderer) -> None:
    text = error(renderer, "never_in_cell", target="Веталь", players=[])
    assert text == (
        "У игрока Веталь ещё не было ни одной ночи в камере, поэтому голос за тюрьму"
        " не принимается; ГОЛОС Веталь — голос за камеру."
        " Из тех, за кого можно голосовать, в камере пока никто не сидел."
    )


def test_story_names_the_suggester_shown_a_card_in_the_dative(renderer: Renderer) -> None:
    def line(suggester: str) -> str:
        data = {"number": 2, "suggester": suggester, "by": "Лев", "card": "нож"}
        event = {
            "seq": 9,
            "kind": "card_shown",
            "visibility": "player",
            "public": False,
            "player": suggester,
            "at": datetime(2026, 12, 2, 7, 0, tzinfo=UTC),
            "source": None,
            "data": data,
        }
        text = renderer.story(
            locale="ru",
            fmt="markdown",
            kind="cluedo_days",
            game="g-1",
            timezone="UTC",
            period="day",
            over=True,
            periods=[{"number": 2, "events": [event]}],
            genders={},
        )
        [found] = [line for line in text.split("\n") if line.startswith("- ")]
        return found.split(" · ", 2)[2]

    assert line("Маша") == "Лев показывает Маше карту **нож**."
    assert line("Кросс") == "Лев показывает игроку Кросс карту **нож**."


# --- 2. «ГМ ответит первой подходящей картой» only when the addressee holds one (C5) ---

SUGG = {
    "number": 7,
    "day": 2,
    "ordinal": 2,
    "suggester": "Неташка",
    "addressee": "Веталь",
    "suspect": "Краснова",
    "weapon": "нож",
    "room": "кухня",
}


def _addressed_last_line(renderer: Renderer, held: list[str], penalised: bool = True) -> str:
    _subject, body = mail(
        renderer,
        "addressed",
        kind="cluedo_days",
        player="Веталь",
        day_closes="22:30",
        timezone="Europe/Moscow",
        suggestion=SUGG,
        held=held,
        gm_card=held[0] if held else None,
        penalised=penalised,
        closes={"day": 1, "at": datetime(2026, 12, 1, 19, 30, tzinfo=UTC)},
        penalty_day=2,
    )
    return body.rstrip("\n").split("\n")[-1]


def test_addressed_mail_promises_the_first_matching_card_only_to_a_holder(
    renderer: Renderer,
) -> None:
    head = "Ответить нужно до закрытия дня 1 — 1 декабря 2026 г., 22:30 по Москве."
    tail = ", а в день 2 у вас будет на одно предположение меньше."
    assert _addressed_last_line(renderer, ["нож"]) == (
        f"{head} Иначе за вас ответит ГМ (первой подходящей картой в порядке подозреваемый —"
        f" орудие — комната){tail}"
    )
    assert _addressed_last_line(renderer, []) == (
        f"{head} Иначе за вас ответит ГМ — «нет опровержения»{tail}"
    )
    assert _addressed_last_line(renderer, [], penalised=False) == (
        f"{head} Иначе за вас ответит ГМ — «нет опровержения»."
    )


def test_asked_mail_promises_the_first_matching_card_only_to_a_holder(
    renderer: Renderer,
) -> None:
    asked = {
        "number": 2,
        "turn": 2,
        "suggester": "Саша",
        "player": "Любовь",
        "deadline": "2026-12-02T09:00:00+00:00",
    }
    suggestion = {"number": 2, "turn": 2, "suggester": "Саша", "suspect": "Зеленов"}
    suggestion |= {"weapon": "Верёвка", "room": "Библиотека"}

    def last(held: list[str]) -> str:
        _subject, body = mail(
            renderer,
            "asked",
            kind="cluedo_rounds",
            player="Любовь",
            answer_hours=12,
            asked=asked,
            suggestion=suggestion,
            held=held,
            gm_card=held[0] if held else None,
        )
        return body.rstrip("\n").split("\n")[-1]

    assert last(["Библиотека"]) == (
        "Ответить нужно до 2 декабря 2026 г., 09:00 UTC. Иначе за вас ответит ГМ "
        "(первой подходящей картой в порядке подозреваемый — орудие — комната)."
    )
    assert last([]) == (
        "Ответить нужно до 2 декабря 2026 г., 09:00 UTC. Иначе за вас ответит ГМ — "
        "«нет опровержения»."
    )


# --- 4. the room of the previous suggestion, named, and only when there is one (R5) ---


def _your_turn(renderer: Renderer, previous: str | None, locale: str = "ru") -> list[str]:
    turn = {
        "turn": 4,
        "player": "Саша",
        "allowed_rooms": ["Терраса", "Библиотека"],
        "started_at": "2026-12-03T09:00:00+00:00",
        "deadline": None,
    }
    _subject, body = mail(
        renderer,
        "your_turn",
        locale,
        kind="cluedo_rounds",
        player="Саша",
        turn_hours=24,
        answer_hours=12,
        turn=turn,
        previous_room=previous,
    )
    return body.split("\n")


def test_your_turn_names_the_previous_room_only_after_a_suggestion(renderer: Renderer) -> None:
    later = _your_turn(renderer, "Спальня")
    at = later.index("Можно назвать комнаты: Терраса, Библиотека.")
    assert later[at + 1] == (
        "(В вашем предыдущем предположении была комната «Спальня»: сейчас её называть нельзя.)"
    )
    first = _your_turn(renderer, None)
    at = first.index("Можно назвать комнаты: Терраса, Библиотека.")
    assert first[at + 1] == ""
    assert not [line for line in first if "предыдущ" in line]
    assert "(Спальня was the room of your previous suggestion: you may not name it now.)" in (
        _your_turn(renderer, "Спальня", "en")
    )


# --- 6. «Игроки и их персонажи» only when the players play characters (D1) ---


def _opening_heading(renderer: Renderer, characters: list[str | None], locale: str = "ru") -> str:
    from pbp.games.core.events import Event, Visibility

    names = ["Неташка", "Веталь"]
    started = Event(
        "game_started",
        Visibility.PUBLIC,
        {
            "day": 1,
            "players": [
                {"name": n, "character": c} for n, c in zip(names, characters, strict=True)
            ],
            "cards": {"suspects": ["Краснова"], "weapons": ["нож"], "rooms": ["кухня"]},
            "commitment": "0" * 64,
            "suggestions_per_day": 3,
            "max_per_addressee_per_day": 3,
        },
    )
    post = renderer.public_post(
        "opening", [started], kind="cluedo_days", locale=locale, fmt="markdown", game="g-1"
    )
    return post.split("\n")[2]


def test_opening_post_heading_names_characters_only_when_played(renderer: Renderer) -> None:
    assert _opening_heading(renderer, [None, None]) == "**Игроки**"
    assert _opening_heading(renderer, [None, None], "en") == "**Players**"
    assert _opening_heading(renderer, ["Краснова", None]) == "**Игроки и их персонажи**"


# --- 8. «Можно голосовать за: Петя, Таня»: the names after «за» in the accusative ---


def test_vote_refusals_list_the_candidates_in_the_accusative(renderer: Renderer) -> None:
    players = ["Петя", "Таня", "Веталь"]
    assert error(renderer, "self_vote", players=players) == (
        "Голосовать за себя нельзя. Можно голосовать за Петю, Таню и игрока Веталь."
    )
    assert error(renderer, "target_in_prison", target="Маша", players=players[:2]) == (
        "Маша навсегда в тюрьме, за неё голосовать нельзя. Можно голосовать за Петю и Таню."
    )
    assert error(renderer, "never_in_cell", target="Маша", players=["Петя"]).endswith(
        " ГОЛОС ТЮРЬМА принимается за Петю."
    )
    assert error(renderer, "self_vote", "en", players=players) == (
        "You cannot vote for yourself. You may vote for Петя, Таня and Веталь."
    )


# --- 9. «без ответа 1 — на день 2 на 1 предположение меньше» (D6) ---


def test_day_summary_penalty_lines_read_as_russian(renderer: Renderer) -> None:
    from pbp.games.core.events import Event, Visibility

    started = Event(
        "game_started",
        Visibility.PUBLIC,
        {
            "day": 1,
            "players": [{"name": n, "character": None} for n in ("Неташка", "Веталь", "Дуг")],
            "cards": {"suspects": ["Краснова"], "weapons": ["нож"], "rooms": ["кухня"]},
            "commitment": "0" * 64,
            "suggestions_per_day": 3,
            "max_per_addressee_per_day": 3,
        },
    )
    closed = Event(
        "day_closed",
        Visibility.PUBLIC,
        {
            "day": 1,
            "gm_answered": [],
            "penalties": {"Неташка": 1, "Веталь": 2, "Дуг": 5},
            "allowances": {"Неташка": 2, "Веталь": 1, "Дуг": 0},
            "out": [],
        },
    )

    def lines(locale: str) -> list[str]:
        post = renderer.public_post(
            "day", [started, closed], kind="cluedo_days", locale=locale, fmt="markdown", day=1
        )
        return [line for line in post.split("\n") if line.startswith("- ") and ": " in line][:3]

    assert lines("ru") == [
        "- Неташка: 1 предположение осталось без ответа — в день 2 на 1 предположение меньше",
        "- Веталь: 2 предположения остались без ответа — в день 2 на 2 предположения меньше",
        "- Дуг: 5 предположений осталось без ответа — в день 2 на 5 предположений меньше",
    ]
    assert lines("en") == [
        "- Неташка: 1 suggestion unanswered, 1 fewer on day 2",
        "- Веталь: 2 suggestions unanswered, 2 fewer on day 2",
        "- Дуг: 5 suggestions unanswered, 5 fewer on day 2",
    ]


# --- 5. the GM sheet lists every GM command, from the keywords the GM parser reads ---


#: A view of each bundled kind's GM sheet (the shape of its ``gm_view``).
_CLUEDO_VIEW: dict[str, Any] = {
    "solution": {"suspect": "Краснова", "weapon": "нож", "room": "кухня"},
    "players": [{"name": "Петя", "character": None, "hand": ["Белых"]}],
    "canonical": "{}",
}
SHEET_VIEWS: dict[str, dict[str, Any]] = {
    "maniac": {
        "players": [{"name": "Петя", "character": None, "role": "maniac"}],
        "skip_limit": 2,
        "double_kill_allowed": False,
        "canonical": "{}",
    },
    "cluedo_days": _CLUEDO_VIEW,
    "cluedo_rounds": _CLUEDO_VIEW,
}


def _sheet_commands(renderer: Renderer, kind: str, locale: str) -> str:
    _subject, body = mail(
        renderer,
        "gm_sheet",
        locale,
        kind=kind,
        seed=7,
        view=SHEET_VIEWS[kind],
        gm_address="gm+token@example.test",
    )
    return body.rstrip("\n").split("\n")[-1]


def _assert_lists_every_gm_keyword(line: str, kind: str, locale: str) -> None:
    from pbp.games.core.registry import KINDS
    from pbp.text import gmcommands as gm
    from pbp.text import keywords

    vocabulary = keywords.current()
    # A deadline lever only where the kind has that deadline (Cluedo by rounds: none).
    deadlines = {c.lever for c in KINDS[kind].deadline_commands}
    for lever in (*gm.NAMES.values(), "end_night"):
        word = vocabulary.words("gm", lever, locale)[0]
        listed = f" {word}" in line or f": {word}" in line
        assert listed == (lever not in gm.DEADLINE_LEVERS or lever in deadlines), (lever, word)
    assert f" {vocabulary.words('gm', 'by', locale)[0]} " in line


@pytest.mark.parametrize("kind", SHEET_VIEWS)
@pytest.mark.parametrize("locale", ["ru", "en"])
def test_the_gm_sheet_lists_every_gm_keyword(renderer: Renderer, kind: str, locale: str) -> None:
    """The bundled kinds' GM sheets (a kind's sheet is its own text, its view its own
    shape: each kind of pbp is tried here with a view of its shape)."""
    _assert_lists_every_gm_keyword(_sheet_commands(renderer, kind, locale), kind, locale)


@pytest.mark.parametrize("kind", registry.names())
@pytest.mark.parametrize("locale", ["ru", "en"])
def test_the_gm_command_line_lists_every_gm_keyword_for_every_kind(
    renderer: Renderer, kind: str, locale: str
) -> None:
    """The GM command line every kind's texts share (``common/parts/gm_commands.j2``),
    in the context of each registered kind: it needs no view, so a new kind is
    checked with no edit here."""
    line = _gm_line(renderer, kind, locale)
    _assert_lists_every_gm_keyword(f"Commands: {line}", kind, locale)


def _gm_line(renderer: Renderer, kind: str, locale: str) -> str:
    """``gm.line()`` of ``common/parts/gm_commands.j2`` rendered for ``kind``."""
    source = '{% import "common/parts/gm_commands.j2" as gm with context %}{{ gm.line() }}'
    return renderer._env(locale, "text").from_string(source).render(kind=kind)


def test_the_gm_sheet_command_line_reads_in_each_language(renderer: Renderer) -> None:
    assert _sheet_commands(renderer, "cluedo_days", "ru") == (
        "Команды, по одной в строке: ЗА <игрок>: <ход> · ПАУЗА · ПРОДОЛЖИТЬ · ПРОДЛИТЬ <часы>"
        " · ЗАМЕНА <игрок> НА <имя> <адрес> · АДРЕС <игрок> <новый адрес> · ИСКЛЮЧИТЬ <игрок>"
        " · ОТМЕНИТЬ <номер события> · ЗАКРЫТЬ ДЕНЬ · ОТЛОЖЕННЫЕ · ПОВТОРИТЬ <номер>"
        " · ОТКЛОНИТЬ <номер>"
        " · ЭКСПОРТ markdown|bbcode|html · ПОМОЩЬ · СТАТУС [ВСЕ] · "
        "НОВЫЙ АДРЕС (пояснение — после « -- »)."
    )
    assert _sheet_commands(renderer, "maniac", "en") == (
        "Commands, one per line: ACT <player>: <move> · PAUSE · RESUME · EXTEND <hours>"
        " · SUBSTITUTE <player> BY <name> <address> · ADDRESS <player> <new address>"
        " · REMOVE <player> · VOID <event> · CLOSE DAY · END NIGHT · KEPT · RETRY <id>"
        " · DISMISS <id>"
        " · EXPORT markdown|bbcode|html · HELP · STATUS [ALL]"
        ' · NEW ADDRESS (a note may follow " -- ").'
    )


# --- 7. the help's forum example reads as Russian and is read back as the suggestion ---


@pytest.mark.parametrize(
    ("suspect", "sentence"),
    [
        ("Краснова", "Я думаю, что убийца — Краснова, подсвечником на кухне."),
        ("Пётр", "Я думаю, что убийца — Пётр, подсвечником на кухне."),
        ("Белых", "Я думаю, что убийца — Белых, подсвечником на кухне."),
    ],
)
def test_the_forum_example_reads_as_russian_and_parses_back(
    renderer: Renderer, suspect: str, sentence: str
) -> None:
    from pbp.games.cluedo.cards import Cards, Suggest
    from pbp.games.cluedo.parse import parse_cluedo

    example = {"suspect": suspect, "weapon": "подсвечник", "room": "кухня", "player": "Веталь"}
    text = error(renderer, "suggest_syntax", example=example, addressed=True)
    heading, written = text.split("\n")[-2:]
    assert (heading, written) == ("Предположение_1 для Веталь", sentence)
    cards = Cards((suspect, "Зеленов"), ("подсвечник", "нож"), ("кухня", "терраса"))
    [line] = parse_cluedo(f"{heading}\n{written}", cards, ["Неташка", "Веталь"])
    assert line.move == Suggest(suspect, "подсвечник", "кухня", "Веталь")


def test_the_forum_form_is_shown_where_the_keywords_have_its_heading(
    renderer: Renderer,
) -> None:
    from pbp.text import keywords

    example = {"suspect": "Краснова", "weapon": "нож", "room": "кухня", "player": "Веталь"}
    for locale in ("ru", "en"):
        text = error(renderer, "suggest_syntax", locale, example=example, addressed=True)
        shows = "Предположение_1 для Веталь" in text
        assert shows == bool(keywords.current().words("cluedo", "forum_heading", locale))


def test_the_removed_players_refusal_fits_both_variants(renderer: Renderer) -> None:
    # Cluedo by rounds addresses no suggestion: the GM answers when one asks him (C5).
    assert error(renderer, "removed_by_gm") == (
        "ГМ исключил вас из игры: предположения и обвинения вам больше недоступны."
        " Когда предположение требует от вас ответа, за вас отвечает ГМ."
    )


# --- a refusal of pbp's shared texts names no game's commands ---


def test_an_unknown_command_without_the_games_commands_points_at_help(
    renderer: Renderer,
) -> None:
    """``errors/unknown_command.txt`` lists the commands its parser passes (each bundled
    parser does); a game's parser that passes none gets HELP, no other game's words."""
    assert error(renderer, "unknown_command", word="Foo", suggestion="FOLD") == (
        "Не понял команду «Foo» — возможно, FOLD?\n"
        "Список команд — по команде ПОМОЩЬ в начале строки."
    )
    assert error(renderer, "unknown_command", "en", word="Foo", suggestion=None) == (
        'Unknown command "Foo".\nFor the list of commands, write HELP at the start of a line.'
    )
