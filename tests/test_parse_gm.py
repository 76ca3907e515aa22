"""Reading the GM's commands (pbp.text.gmcommands): English and Russian keywords, notes, errors."""

from __future__ import annotations

import json

import pytest

from pbp.text.gmcommands import (
    Act,
    Dismiss,
    Export,
    Extend,
    GmLine,
    Help,
    Kept,
    Lever,
    PassDeadline,
    Pause,
    Remove,
    Resume,
    Retry,
    Substitute,
    Void,
    parse_gm,
)


@pytest.mark.parametrize(
    ("line", "name", "lever", "note"),
    [
        (
            "ACT Петя: SUGGEST Маша, нож, кухня TO Вася",
            "act",
            Act("Петя", "SUGGEST Маша, нож, кухня TO Вася"),
            None,
        ),
        (
            "за Петю: ОПРОВЕРЖЕНИЕ 7 нож -- письмо потерялось",
            "act",
            Act("Петю", "ОПРОВЕРЖЕНИЕ 7 нож"),
            "письмо потерялось",
        ),
        (
            "ACT Дуг: REFUTE нож — письмо Дуга потерялось",
            "act",
            Act("Дуг", "REFUTE нож"),
            "письмо Дуга потерялось",
        ),
        ("PAUSE", "pause", Pause(), None),
        ("Пауза -- уехал на выходные", "pause", Pause(), "уехал на выходные"),
        ("ПАУЗА — уехал", "pause", Pause(), "уехал"),
        ("RESUME", "resume", Resume(), None),
        ("возобновить", "resume", Resume(), None),
        ("EXTEND 3", "extend", Extend(3.0), None),
        ("ПРОДЛИТЬ 1,5 часа -- просили", "extend", Extend(1.5), "просили"),
        (
            "SUBSTITUTE Петя BY Вова vova@example.test",
            "substitute",
            Substitute("Петя", "Вова", "vova@example.test"),
            None,
        ),
        (
            "ЗАМЕНА Петя НА Вова Сидоров <Vova@Example.test>",
            "substitute",
            Substitute("Петя", "Вова Сидоров", "vova@example.test"),
            None,
        ),
        ("REMOVE Петя", "remove", Remove("Петя"), None),
        ("VOID 17", "void", Void(17), None),
        ("ОТМЕНИТЬ №17", "void", Void(17), None),
        ("VOID 9223372036854775807", "void", Void(2**63 - 1), None),
        ("EXPORT html", "export", Export("html"), None),
        ("ЭКСПОРТ", "export", Export("markdown"), None),
    ],
)
def test_a_gm_command_is_read_with_its_arguments_and_note(
    line: str, name: str, lever: Lever, note: str | None
) -> None:
    assert parse_gm(f"\n  {line}  \n") == [GmLine(line, name, lever, note)]


def test_a_lever_round_trips_through_the_json_of_a_pending_confirmation() -> None:
    (line,) = parse_gm("ЗАМЕНА Петя НА Вова vova@example.test -- уехал")
    assert line.to_json() == {
        "line": "ЗАМЕНА Петя НА Вова vova@example.test -- уехал",
        "lever": "substitute",
        "args": {"player": "Петя", "name": "Вова", "email": "vova@example.test"},
        "note": "уехал",
    }
    assert GmLine.from_json(line.to_json()) == line


def test_a_gm_line_is_read_as_a_players_line_is_markup_and_look_alikes_folded() -> None:
    # Cyrillic А and Е in PAUSE, bold from the forum, a list marker
    line = "1. [b]PАUSЕ[/b] -- отпуск"
    assert parse_gm(line) == [GmLine(line, "pause", Pause(), "отпуск")]


def test_a_misspelt_gm_keyword_is_answered_with_the_one_it_resembles() -> None:
    (line,) = parse_gm("ПАУЗУ")
    assert line.lever is None and line.error is not None
    assert (line.error.code, line.error.params) == ("gm_not_a_command", {"suggestion": "ПАУЗА"})


@pytest.mark.parametrize(
    ("line", "lever"),
    [
        ("ACT Петя SUGGEST", "act"),
        ("PAUSE now", "pause"),
        ("EXTEND", "extend"),
        ("ПРОДЛИТЬ 0", "extend"),
        ("ПРОДЛИТЬ много", "extend"),
        ("SUBSTITUTE Петя BY Вова", "substitute"),
        ("ЗАМЕНА Петя Вова vova@example.test", "substitute"),
        ("REMOVE", "remove"),
        ("VOID семнадцать", "void"),
        ("ОТМЕНИТЬ ²", "void"),
        ("VOID 1²", "void"),
        ("VOID 12345678901234567890", "void"),
        # 19 digits, one past SQLite's largest INTEGER (2**63 - 1): no lookup overflows.
        ("VOID 9223372036854775808", "void"),
        ("VOID " + "9" * 5000, "void"),
        ("EXPORT pdf", "export"),
    ],
)
def test_a_gm_command_that_does_not_fit_names_its_syntax(line: str, lever: str) -> None:
    (command,) = parse_gm(line)
    assert command.lever is None and command.error is not None
    assert (command.name, command.error.code, command.error.params["lever"]) == (
        lever,
        "gm_syntax",
        lever,
    )


def test_lines_without_a_keyword_are_answered_as_not_gm_commands() -> None:
    lines = parse_gm("Привет, как дела?\n\nSHOW\nЗАКРЫТЬ\nPAUSED")
    assert [(c.line, c.lever, c.error and (c.error.code, c.error.params)) for c in lines] == [
        ("Привет, как дела?", None, ("gm_not_a_command", {})),
        ("SHOW", None, ("gm_not_a_command", {})),
        ("ЗАКРЫТЬ", None, ("gm_not_a_command", {})),
        ("PAUSED", None, ("gm_not_a_command", {"suggestion": "PAUSE"})),
    ]


@pytest.mark.parametrize(
    ("text", "name", "lever"),
    [
        ("ЗАКРЫТЬ ДЕНЬ", "close_day", PassDeadline("close-day")),
        ("close day", "close_day", PassDeadline("close-day")),
        ("CLOSE-DAY", "close_day", PassDeadline("close-day")),
        ("Завершить ночь", "end_night", PassDeadline("end-night")),
        ("END NIGHT", "end_night", PassDeadline("end-night")),
        ("ОТЛОЖЕННЫЕ", "kept", Kept()),
        ("KEPT", "kept", Kept()),
        ("ПОВТОРИТЬ 12", "retry", Retry((12,))),
        ("RETRY 12, #13 12", "retry", Retry((12, 13))),
        ("ОТКЛОНИТЬ 4 5", "dismiss", Dismiss((4, 5))),
        ("DISMISS №7", "dismiss", Dismiss((7,))),
    ],
)
def test_the_closes_and_the_kept_mail_levers_read_in_both_languages(
    text: str, name: str, lever: Lever
) -> None:
    assert parse_gm(text) == [GmLine(text, name, lever)]


@pytest.mark.parametrize(
    "text",
    [
        *("ЗАКРЫТЬ ДЕНЬ 2", "KEPT all", "RETRY", "RETRY 1 два", "DISMISS ²", "ОТКЛОНИТЬ -3"),
        # Past SQLite's largest INTEGER (2**63 - 1): a syntax error, not an overflow.
        *("RETRY 9223372036854775808", "DISMISS 1 " + "9" * 19),
    ],
)
def test_the_closes_and_the_kept_mail_levers_refuse_what_does_not_fit(text: str) -> None:
    (line,) = parse_gm(text)
    assert line.lever is None and line.error is not None
    assert line.error.code == "gm_syntax"


def test_the_largest_kept_id_is_read() -> None:
    (line,) = parse_gm("RETRY 9223372036854775807")
    assert line.lever == Retry((2**63 - 1,))


def test_a_retry_line_survives_its_confirmation_record() -> None:
    (line,) = parse_gm("RETRY 3 4 -- после исправления")
    assert GmLine.from_json(json.loads(json.dumps(line.to_json()))) == line


@pytest.mark.parametrize("line", ["HELP", "помощь"])
def test_help_is_a_gm_command(line: str) -> None:
    assert parse_gm(line) == [GmLine(line, "help", Help())]
