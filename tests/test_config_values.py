"""Values of games.yaml that ended ``pbp check`` or ``pbp run`` in a traceback, or that
``pbp check`` passed and ``pbp run`` then died of (the hostile pass of issue 32, item 3):
each is one sentence at its line, exit 1, from ``pbp check`` and ``pbp run --once``
alike.

The faults: a seed of 5,000 digits (Python's ValueError on int digits), a seed of
-10**26 (a TypeError storing it), ``!!timestamp 2026-13-45`` (datetime's ValueError), a
NUL (PyYAML's ReaderError), a time zone of 5,000 letters (OSError: file name too long)
or naming a directory (``Europe``: IsADirectoryError), ``store: /tmp`` (sqlite's
OperationalError), hours of 1e8, 1e9, 1e300 (OverflowError in ``pbp run``), a turn of
1e-9 hours (accepted: a turn closing every 0.4 s), a day close in full-width digits
(accepted as 22:30).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kits.cli import pbp

REPO = Path(__file__).resolve().parent.parent
GAMES = (REPO / "games.yaml").read_text(encoding="utf-8")

#: (name, text replaced in the bundled games.yaml, its replacement, where the
#: problem stands: the first line holding this, the message after "games.yaml:LINE: ").
CASES = [
    (
        "seed_of_5000_digits",
        "    remind_hours_before: 3 ",
        "    seed: " + "1" * 5000 + "\n    remind_hours_before: 3 ",
        "    seed: 1",
        "the value '1111111111111111111111111111111111111111…' cannot be read as !!int: "
        "a number of 5,000 digits: pbp reads at most 100",
    ),
    (
        "seed_negative_huge",
        "    remind_hours_before: 3 ",
        "    seed: -99999999999999999999999999\n    remind_hours_before: 3 ",
        "    seed:",
        "games[0].seed: seed -99999999999999999999999999: give a whole number from 0 to "
        "9223372036854775807 (2**63 - 1)",
    ),
    (
        "seed_of_2_to_the_63",
        "    remind_hours_before: 3 ",
        "    seed: 9223372036854775808\n    remind_hours_before: 3 ",
        "    seed:",
        "games[0].seed: seed 9223372036854775808: give a whole number from 0 to "
        "9223372036854775807 (2**63 - 1)",
    ),
    (
        "timestamp_of_month_13",
        "store:",
        "x-note: !!timestamp 2026-13-45\nstore:",
        "x-note:",
        "the value '2026-13-45' cannot be read as !!timestamp: month must be in 1..12",
    ),
    (
        "nul_byte_in_a_comment",
        "store:",
        "# \x00\nstore:",
        "# \x00",
        "the character U+0000 is not allowed in YAML, not even in a comment: remove it",
    ),
    (
        "timezone_of_5000_letters",
        "timezone: Europe/Moscow        #",
        "timezone: " + "A" * 5000 + " #",
        "timezone: A",
        "games[0].timezone: a time zone name of 5,000 characters: IANA names have at most 64 "
        "(such as 'Europe/Moscow')",
    ),
    (
        "timezone_a_directory",
        "timezone: Europe/Moscow        #",
        "timezone: Europe #",
        "timezone: Europe #",
        "games[0].timezone: unknown IANA time zone 'Europe'; did you mean 'Europe/Rome'?",
    ),
    (
        "store_a_directory",
        "store: ./pbp.sqlite3",
        "store: /tmp",
        "store:",
        "store: /tmp is a directory: give the path of pbp's SQLite file, such as /tmp/pbp.sqlite3",
    ),
    (
        "remind_hours_before_1e8",
        "remind_hours_before: 3 ",
        "remind_hours_before: 1e8 ",
        "remind_hours_before: 1e8",
        "games[0].remind_hours_before: 1e+08 hours is more than 8784 (366 days): give fewer",
    ),
    (
        "turn_hours_1e9",
        "turn_hours: 24 ",
        "turn_hours: 1e9 ",
        "turn_hours:",
        "games[1].turn_hours: 1e+09 hours is more than 8784 (366 days): give fewer",
    ),
    (
        "answer_hours_1e300",
        "answer_hours: 12 ",
        "answer_hours: 1e300 ",
        "answer_hours:",
        "games[1].answer_hours: 1e+300 hours is more than 8784 (366 days): give fewer",
    ),
    (
        "turn_hours_1e-9",
        "turn_hours: 24 ",
        "turn_hours: 1e-9 ",
        "turn_hours:",
        "games[1].turn_hours: 1e-09 hours is less than a minute (1/60 hour): give more",
    ),
    (
        "day_closes_in_full_width_digits",
        'day_closes: "22:30"',
        'day_closes: "２２:３０"',
        "day_closes:",
        'games[0].day_closes: expected a time "HH:MM" in the digits 0-9 such as "22:30", '
        "got '２２:３０'",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "marker", "said"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_a_value_that_ended_in_a_traceback_is_one_sentence_at_its_line(
    old: str, new: str, marker: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert GAMES.count(old) >= 1, old
    text = GAMES.replace(old, new, 1)
    monkeypatch.chdir(tmp_path)
    config = Path("games.yaml")
    config.write_text(text, encoding="utf-8")
    line = text[: text.index(marker)].count("\n") + 1
    for command in (["check"], ["run", "--once"]):
        result = pbp(config, *command)
        assert (result.code, result.out, result.err) == (1, [], [f"games.yaml:{line}: {said}"])


def test_the_bounds_let_in_a_minute_a_year_and_the_largest_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        GAMES.replace("turn_hours: 24 ", f"turn_hours: {1 / 60} ")
        .replace("answer_hours: 12 ", "answer_hours: 8784 ")
        .replace(
            "    remind_hours_before: 3 ",
            "    seed: 9223372036854775807\n    remind_hours_before: 3 ",
        )
    )
    monkeypatch.chdir(tmp_path)
    Path("games.yaml").write_text(text, encoding="utf-8")
    result = pbp(Path("games.yaml"), "check")
    assert result.code == 0, result.err
