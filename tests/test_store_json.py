"""The store's JSON text (pbp.store.jsontext, orjson): the values ``json`` gives.

A store written by the earlier code (``json.dumps(…, ensure_ascii=False)``) must read
the same, and the earlier code must read what is written now: equal values both ways,
for a real game's state and events and for any JSON value; the cases where orjson and
``json`` part are decided in the module's docstring and pinned here.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kits.seed_000 import EXAMPLE as CARDS
from kits.seed_000 import HANDS, SOLUTION

from pbp.games.cluedo.cards import CluedoMove, Deal, NoRefutation, Refute, Suggest
from pbp.games.cluedo_days import engine as days
from pbp.games.cluedo_days.engine import DaysRules, DaysSetup, DaysState
from pbp.games.core.events import Event, Step, Visibility
from pbp.store import Store, jsontext

PLAYERS: tuple[tuple[str, str | None], ...] = (
    ("Кросс", "Краснова"),
    ("Дуг", None),
    ("Роза", "Белых"),
)
T0 = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (``1`` is not ``1.0`` nor ``True``,
    ``-0.0`` is not ``0.0``): ``json``'s own text of both is the same."""
    return bool(a == b and json.dumps(a) == json.dumps(b))


def mid_game() -> tuple[DaysState, list[Event]]:
    """A Cluedo (by days) game on day 1: dealt, two suggestions answered, one waiting."""
    setup = DaysSetup(
        "seed-000",
        PLAYERS,
        CARDS,
        DaysRules(answer_grace_hours=1.5),
        Deal(SOLUTION, HANDS),
    )
    steps: list[Step[days.DaysState]] = [days.start(setup, 2**63 - 1, bytes(range(32)))]
    moves: list[tuple[str, CluedoMove]] = [
        ("Кросс", Suggest("Маша", "Нож", "Спальня", "Дуг")),
        ("Дуг", Refute("Спальня", 1)),
        ("Роза", Suggest("Маша", "Топор", "Библиотека", "Кросс")),
        ("Кросс", NoRefutation(2)),
        ("Дуг", Suggest("Ваня", "Веревка", "Столовая", "Роза")),
    ]
    for minute, (player, move) in enumerate(moves, 1):
        steps.append(days.apply(steps[-1].state, player, move, T0 + timedelta(minutes=minute)))
    return steps[-1].state, [event for step in steps for event in step.events]


# --- a real game's state and events ---------------------------------------------


def test_a_real_state_reads_back_equal_whoever_wrote_it() -> None:
    state, _ = mid_game()
    dumped = days.dump_state(state)
    text = jsontext.dumps(dumped)

    assert "Кросс" in text and "\\u" not in text  # UTF-8 as is, as ensure_ascii=False
    assert same(jsontext.loads(text), dumped)
    assert days.load_state(jsontext.loads(text)) == state
    assert same(json.loads(text), dumped)  # the earlier code reads it
    for old in (
        json.dumps(dumped, ensure_ascii=False),
        json.dumps(dumped),
        json.dumps(dumped, indent=2),
    ):
        assert same(jsontext.loads(old), dumped)  # and it reads the earlier code's
    assert same(jsontext.loads(text.encode()), dumped)


def test_a_real_games_events_read_back_equal_whoever_wrote_them() -> None:
    _, events = mid_game()
    assert {"deal", "hand_dealt", "card_shown", "not_refuted"} <= {e.kind for e in events}
    for event in events:
        data = dict(event.data)
        assert same(json.loads(jsontext.dumps(event.data)), data)
        assert same(jsontext.loads(json.dumps(data, ensure_ascii=False)), data)


def test_a_store_written_by_json_reads_the_same_and_json_reads_the_new_one(
    tmp_path: Path,
) -> None:
    state, events = mid_game()
    dumped = days.dump_state(state)
    path = tmp_path / "pbp.sqlite3"
    with Store(path) as store:
        store.add_game("old", "cluedo_days", 7, b"salt", {}, T0, None)
        store.add_game("new", "cluedo_days", 7, b"salt", dumped, T0, None)
        store.append_events("new", events, at=T0, day=1)
        written = store.save_state("new", dumped, over=False, deadline_at=None)
        snapshot = store.state_text("new")
        assert snapshot is not None and snapshot[0] == written
    # The rows of "old" as the earlier code wrote them (json.dumps, spaces and all).
    with sqlite3.connect(path) as db:
        db.execute(
            "UPDATE games SET state = ? WHERE id = 'old'", (json.dumps(dumped, ensure_ascii=False),)
        )
        db.executemany(
            "INSERT INTO events (game_id, seq, at, day, kind, visibility, player, data, source) "
            "VALUES ('old', ?, ?, 1, ?, ?, ?, ?, NULL)",
            [
                (
                    seq,
                    T0.isoformat(),
                    e.kind,
                    e.visibility.value,
                    e.player,
                    json.dumps(dict(e.data), ensure_ascii=False),
                )
                for seq, e in enumerate(events, 1)
            ],
        )
        raw = db.execute("SELECT state FROM games WHERE id = 'new'").fetchone()[0]
        raw_data = [
            r[0] for r in db.execute("SELECT data FROM events WHERE game_id = 'new' ORDER BY seq")
        ]
    assert same(json.loads(raw), dumped)
    assert [json.loads(d) for d in raw_data] == [dict(e.data) for e in events]

    with Store(path) as store:
        for game_id in ("old", "new"):
            row = store.game(game_id)
            assert row is not None and same(row.state, dumped)
            assert days.load_state(row.state) == state
            stored = store.events(game_id)
            assert [s.event for s in stored] == events
            assert all(
                same(dict(s.event.data), dict(e.data)) for s, e in zip(stored, events, strict=True)
            )
            last = store.last_event(game_id, ["card_shown"])
            shown = [e for e in events if e.kind == "card_shown"][-1]
            assert last is not None and last.event == shown
            assert same(dict(last.event.data), dict(shown.data))


# --- any JSON value -----------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=24,
)


@given(VALUES)
def test_any_json_value_reads_back_equal_both_ways(value: Any) -> None:
    text = jsontext.dumps(value)
    assert same(jsontext.loads(text), value)
    assert same(json.loads(text), value)
    assert same(jsontext.loads(json.dumps(value, ensure_ascii=False)), value)
    assert same(jsontext.loads(json.dumps(value)), value)


def test_the_64_bit_integers_are_kept_exactly() -> None:
    for number in (2**64 - 1, 2**63, 2**63 - 1, -(2**63), 0, -1):
        assert same(jsontext.loads(jsontext.dumps({"seed": number})), {"seed": number})


def test_an_integer_beyond_64_bits_is_refused() -> None:
    # json wrote it; orjson would read it back as a float: never stored.
    for number in (2**64, -(2**63) - 1, 10**30):
        with pytest.raises(TypeError):
            jsontext.dumps({"seed": number})


def test_keys_that_are_not_strings_are_written_as_json_writes_them() -> None:
    value: dict[Any, Any] = {
        "a": 1,
        2: {3: [4, (5, 6)]},
        True: "да",
        None: "нет",
        1.5: "half",
    }
    text = jsontext.dumps(value)
    assert same(json.loads(text), json.loads(json.dumps(value)))
    assert same(
        jsontext.loads(text),
        {"a": 1, "2": {"3": [4, [5, 6]]}, "true": "да", "null": "нет", "1.5": "half"},
    )


def test_tuples_are_lists_and_str_enums_their_values() -> None:
    value = {"cards": ("нож", "топор"), "visibility": Visibility.PLAYER}
    assert jsontext.dumps(value) == '{"cards":["нож","топор"],"visibility":"player"}'
    assert same(jsontext.loads(jsontext.dumps(value)), json.loads(json.dumps(value)))


@dataclasses.dataclass
class Card:
    name: str


class Colour(enum.Enum):
    RED = 1


@pytest.mark.parametrize(
    "value",
    [
        {"at": datetime(2026, 1, 1, tzinfo=UTC)},
        {"on": date(2026, 1, 1)},
        {"card": Card("нож")},
        {"cards": {"нож"}},
        {"raw": b"bytes"},
        {"name": "\ud800"},  # a lone surrogate: no UTF-8 for it (sqlite refused it before)
        {2**64: "key"},
    ],
    ids=["datetime", "date", "dataclass", "set", "bytes", "surrogate", "big-int-key"],
)
def test_what_is_not_json_is_refused(value: dict[Any, Any]) -> None:
    with pytest.raises(TypeError):
        jsontext.dumps(value)


def test_a_plain_enum_is_its_value_unlike_json() -> None:
    # The one value orjson writes and json refuses; no state or event holds one.
    with pytest.raises(TypeError):
        json.dumps({"colour": Colour.RED})
    assert jsontext.loads(jsontext.dumps({"colour": Colour.RED})) == {"colour": 1}


def test_what_only_json_wrote_is_read_as_json_reads_it() -> None:
    for text in ('{"hours": NaN}', '{"hours": Infinity}', '{"hours": -Infinity}', "[1e400]"):
        assert repr(jsontext.loads(text)) == repr(json.loads(text))
    assert math.isnan(jsontext.loads("NaN"))


def test_text_that_is_not_json_raises_jsons_error() -> None:
    for text in ("", "{", '{"a": }', "[1,]", "nope"):
        with pytest.raises(json.JSONDecodeError):
            jsontext.loads(text)
