"""Templates hold no game logic (issue 16, item 2): each game computes what a post or
mail shows (its views), templates only lay it out. A static check over every
template's syntax tree, and the views' exact values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest
from guessgame.kind import GUESS
from jinja2 import nodes

from pbp.games.cluedo import views as cluedo
from pbp.games.cluedo.wording import wording
from pbp.games.cluedo_days import views as days
from pbp.games.cluedo_rounds import views as rounds
from pbp.games.core.events import Event, Visibility
from pbp.games.core.registry import KINDS
from pbp.games.maniac import views as maniac
from pbp.text.filters import Format
from pbp.text.render import Renderer

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
#: The globals that worked on raw events, and Jinja2's accumulator: game logic.
FORBIDDEN = {"of_kind", "one", "suggestions", "namespace"}
PUBLIC = Visibility.PUBLIC


def _templates() -> list[Path]:
    trees = [TEMPLATES, *GUESS.templates]
    return sorted(p for t in trees for p in t.rglob("*") if p.suffix in (".j2", ".txt"))


def test_no_template_uses_the_event_globals_or_namespace() -> None:
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True)
    found = []
    for path in _templates():
        tree = env.parse(path.read_text(encoding="utf-8"))
        # A call of one of them (a template's own variable may be called "one").
        for call in tree.find_all(nodes.Call):
            if isinstance(call.node, nodes.Name) and call.node.name in FORBIDDEN:
                found.append(f"{path.relative_to(ROOT)}:{call.lineno}: {call.node.name}")
    assert len(_templates()) > 100
    assert found == []


def test_the_renderer_offers_no_event_globals() -> None:
    env = Renderer(TEMPLATES, kinds=KINDS)._env("en", "text")
    assert FORBIDDEN & set(env.globals) == {"namespace"}  # Jinja2's own; the check above


def _e(kind: str, **data: Any) -> Event:
    return Event(kind, PUBLIC, data)


STARTED = _e(
    "game_started",
    players=[{"name": "Лев", "character": None}, {"name": "Мария", "character": "Краснова"}],
    cards={"suspects": ["Краснова", "Белых"], "weapons": ["нож"], "rooms": ["кухня"]},
    commitment="abc",
)


def _sugg(number: int, day: int, **more: Any) -> dict[str, Any]:
    return {
        "number": number,
        "day": day,
        "turn": day,
        "suggester": "Лев",
        "addressee": "Мария",
        "suspect": "Белых",
        "weapon": "нож",
        "room": "кухня",
        **more,
    }


def test_suggestions_are_joined_with_their_answers_and_a_voided_one_left_out() -> None:
    events = [
        _e("suggestion_made", **_sugg(1, 1)),
        _e("suggestion_made", **_sugg(2, 1)),
        _e("refuted", **_sugg(1, 1), by_gm=True),
        _e("suggestion_made", **_sugg(3, 2)),
        _e("suggestion_voided", number=3),
    ]
    assert cluedo.suggestions(events) == [
        {**_sugg(1, 1), "answer": "refuted", "by_gm": True},
        {**_sugg(2, 1), "answer": None, "by_gm": False},
    ]


def test_the_start_view_gives_the_game_dealt_and_the_help_examples() -> None:
    examples = {
        "suspect": "Краснова",
        "weapon": "нож",
        "room": "кухня",
        "player": "Мария",
        "first": "Лев",
    }
    assert cluedo.commands_of([STARTED]) == examples
    assert cluedo.commands_of([]) is None
    assert cluedo.start_view([STARTED]) == {
        **STARTED.data,
        "commands": examples,
        "characters": True,
    }
    assert days.post_view("help", [STARTED], None) == {"commands": examples}


def test_cluedo_gm_facts_are_answers_shown_cards_and_accusations() -> None:
    private = [{"kind": k} for k in ("deal", "gm_refutation", "hand", "card_shown")]
    assert cluedo.gm_facts("day", 2, private) == [{"kind": "gm_refutation"}, {"kind": "card_shown"}]


def test_the_day_view_of_a_closed_day() -> None:
    events = [
        STARTED,
        _e("suggestion_made", **_sugg(1, 1)),
        _e("day_closed", day=1, gm_answered=[], penalties={}, out=[], allowances={}),
        _e("suggestion_made", **_sugg(2, 2)),
        _e("suggestion_made", **_sugg(3, 2)),
        _e("not_refuted", **_sugg(3, 2)),
        _e("refuted", **_sugg(1, 1), by_gm=True),
        _e("refuted", **_sugg(2, 2), by_gm=True),
        _e("accusation_wrong", day=2, player="Лев", suspect=None, weapon=None, room=None),
        _e(
            "day_closed",
            day=2,
            gm_answered=[1, 2],
            penalties={"Мария": 2, "Лев": 0},
            out=["Лев"],
            allowances={"Мария": 1},
        ),
    ]
    one = {**_sugg(1, 1), "answer": "refuted", "by_gm": True}
    two = {**_sugg(2, 2), "answer": "refuted", "by_gm": True}
    three = {**_sugg(3, 2), "answer": "not_refuted", "by_gm": False}
    wrong = {"day": 2, "player": "Лев", "suspect": None, "weapon": None, "room": None}
    assert days.day_view(events, None) == {
        "day": 2,
        "next": 3,
        "closed": True,
        "over": True,
        "today": [{**two, "due_day": None}, {**three, "due_day": None}],
        "earlier": [one],
        "by_gm": [one, two],
        "penalties": [["Мария", 2]],
        "wrong": [wrong],
        "out": ["Лев"],
        "allowances": [["Мария", 1]],
    }
    # Day 3 is still open: the summary so far, nothing of a close.
    assert days.day_view(events, 3) == {
        "day": 3,
        "next": 4,
        "closed": False,
        "over": False,
        "today": [],
        "earlier": [],
        "by_gm": [],
        "penalties": [],
        "wrong": [],
        "out": [],
        "allowances": [],
    }


def test_the_final_view_of_days_gives_the_last_day_that_never_closed() -> None:
    over = {"winner": "Мария", "solution": {}, "hands": {}, "canonical": "x"}
    events = [
        STARTED,
        _e("day_closed", day=1, gm_answered=[], penalties={}, out=[], allowances={}),
        _e("suggestion_made", **_sugg(4, 2)),
        _e("game_over", **over),
    ]
    assert days.final_view(events) == {
        **over,
        "commitment": "abc",
        "day": 2,
        "last": [{**_sugg(4, 2), "answer": None, "by_gm": False, "due_day": None, "ended": True}],
        "earlier": [],
        "wrong": [],
    }


def test_the_turn_view_of_rounds() -> None:
    events = [
        STARTED,
        _e("turn_started", turn=1, player="Лев"),
        _e("suggestion_made", **_sugg(1, 1)),
        _e("not_refuted", **_sugg(1, 1), by="Мария"),
        _e("asked", turn=1, number=1, player="Ник"),
    ]
    assert rounds.opening_view(events)["first"] == "Лев"
    answer = {"answer": {**_sugg(1, 1), "by": "Мария"}, "refuted": False}
    running = {"s": _sugg(1, 1), "answers": [answer], "end": "running", "now": "Ник"}
    assert rounds.turn_view(events, None) == {
        "turn": 1,
        "player": "Лев",
        "suggestions": [running],
        "skipped": [],
        "wrong": [],
        "next": None,
        "over": None,
        "running": False,
    }
    events += [
        _e("round_ended", turn=1, number=1, refuted_by="Ник"),
        _e("turn_started", turn=2, player="Мария"),
    ]
    view = rounds.turn_view(events, 1)
    assert (view["suggestions"][0]["end"], view["suggestions"][0]["now"]) == ("shown", None)
    assert view["next"] == "Мария"
    assert rounds.turn_view(events, 2)["running"] is True


def test_maniac_gm_facts_by_rule_m3() -> None:
    private = [{"kind": k} for k in ("roles", "order_fixed", "night_resolution")]
    kinds = {
        (post, period): [f["kind"] for f in maniac.gm_facts(post, period, private)]
        for post, period in [("opening", 1), ("evening", 1), ("morning", 1), ("morning", 2)]
    }
    assert kinds == {
        ("opening", 1): ["roles", "order_fixed", "night_resolution"],
        ("evening", 1): ["order_fixed"],
        ("morning", 1): ["order_fixed", "night_resolution"],
        ("morning", 2): ["night_resolution"],
    }
    assert [f["kind"] for f in maniac.gm_facts("final", None, private)] == ["night_resolution"]


def test_maniac_start_view_is_the_game_started() -> None:
    started = _e("game_started", players=[{"name": "Лев", "character": None}], fan=False)
    assert maniac.post_view("opening", [started], None) == {
        "players": [{"name": "Лев", "character": None}],
        "fan": False,
    }


def test_and_list_joins_by_the_catalog() -> None:
    renderer = Renderer(TEMPLATES, kinds=KINDS)
    cases: list[tuple[str, Format]] = [("ru", "text"), ("en", "bbcode")]
    shown = {
        (locale, fmt): renderer._env(locale, fmt)
        .from_string("{{ items|and_list }}")
        .render(items=["Саша", "[b]Оля[/b]", "3"])
        for locale, fmt in cases
    }
    assert shown == {
        ("ru", "text"): "Саша, [b]Оля[/b] и 3",
        ("en", "bbcode"): "Саша, [\u200bb]Оля[\u200b/b] and 3",
    }
    text = renderer._env("ru", "text")
    assert text.from_string(
        "{{ [1, 2]|and_list }}|{{ [3]|and_list }}|{{ []|and_list }}|"
    ).render() == ("1 и 2|3||")


def _answer(kind: str, by: str, *, auto: bool = False, by_gm: bool = False) -> Event:
    return _e(kind, **_sugg(1, 1), by=by, auto=auto, by_gm=by_gm, answered_at="t")


def test_R2_R6_R7_a_rounds_move_shows_the_players_own_answer_only() -> None:
    """The move snippet of Мария's answer: hers, not the automatic (R6) and GM (R7) ones
    after it; the winner's right accusation, not a game over without one."""
    own = _answer("not_refuted", "Мария")
    auto = _answer("not_refuted", "Ник", auto=True)
    gm = _answer("refuted", "Лев", by_gm=True)
    over: dict[str, Any] = {"winner": None, "solution": {}, "hands": {}, "canonical": "x"}
    events = [own, auto, gm, _e("game_over", **over)]
    assert rounds.post_view("move", events, None) == {
        "moves": [{"kind": "not_refuted", "s": own.data}]
    }
    won = _e("game_over", **{**over, "winner": "Мария"})
    wrong = _e("accusation_wrong", turn=1, player="Ник", suspect=None, weapon=None, room=None)
    made = _e("suggestion_made", **_sugg(2, 1))
    assert rounds.move_view([made, wrong, won]) == {
        "moves": [
            {"kind": "suggestion_made", "s": made.data},
            {"kind": "accusation_wrong", "s": wrong.data},
            {"kind": "game_over", "s": won.data},
        ]
    }


def test_R2_R6_R7_a_rounds_reply_marks_the_players_own_answer_and_turn() -> None:
    own = _answer("refuted", "Мария")
    auto = _answer("not_refuted", "Ник", auto=True)
    gm = _answer("not_refuted", "Лев", by_gm=True)
    events = [own, auto, gm, _e("turn_started", turn=2, player="Мария")]
    told = rounds.reply_events(events, "Мария")
    assert [(e["kind"], e.get("own_answer"), e.get("own_turn")) for e in told] == [
        ("refuted", True, None),
        ("not_refuted", False, None),
        ("not_refuted", False, None),
        ("turn_started", None, True),
    ]
    assert told[0] == {
        "kind": "refuted",
        "visibility": "public",
        "player": None,
        **own.data,
        "own_answer": True,
    }
    # Ник's reply to the same events: none of them is his own.
    assert [e.get("own_answer", e.get("own_turn")) for e in rounds.reply_events(events, "Ник")] == [
        False,
        False,
        False,
        False,
    ]


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        (
            "ru",
            "[b]Ответ на предположение №1[/b]\n[quote]Лев предполагает: убийца — [b]Белых[/b], "
            "[b]ножом[/b] [b]на кухне[/b].[/quote]\nМария: нет опровержения\n",
        ),
        (
            "en",
            "[b]Answer to suggestion #1[/b]\n[quote]Лев suggests: it was [b]Белых[/b] "
            "[b]with the нож[/b] [b]in the кухня[/b].[/quote]\nМария: no refutation\n",
        ),
    ],
)
def test_R6_the_rounds_move_snippet_lays_out_its_view(locale: str, expected: str) -> None:
    events = [_answer("not_refuted", "Мария"), _answer("not_refuted", "Ник", auto=True)]
    post = Renderer(TEMPLATES, kinds=KINDS).public_post(
        "move", events, locale=locale, fmt="bbcode", kind="cluedo_rounds", wording=wording(locale)
    )
    assert post == expected


def test_maniac_final_view_marks_a_player_the_gm_removed() -> None:
    # The final post must not list a removed player as if he had played to the end.
    roles = {"Лев": "civilian", "Павел": "maniac", "Мария": "civilian"}
    over = {"winner_team": "town", "winners": ["Лев", "Мария"], "roles": roles}
    events = [
        _e("player_left", player="Мария", day=2, phase="day"),
        _e("day_closed", day=2, to_prison="Павел"),
        _e("game_over", **over, canonical="x"),
    ]
    assert [r["left_day"] for r in maniac.final_view(events)["roles"]] == [None, None, 2]


def test_days_reply_events_mark_a_suggestion_the_gm_answered_at_once() -> None:
    # C5: to a removed addressee; no mail went to him, the answer is the GM's.
    made = Event("suggestion_made", PUBLIC, _sugg(4, 2))
    answer = Event("refuted", PUBLIC, {**_sugg(4, 2), "by_gm": True, "answered_at": "t"})
    told = days.reply_events([made, answer])
    assert (told[0]["kind"], told[0]["gm_answers"]) == ("suggestion_made", True)
    assert days.reply_events([made])[0]["gm_answers"] is False
