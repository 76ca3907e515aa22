"""Reading the GM's commands (pbp.parse.gm): English and Russian keywords, notes, errors."""

from __future__ import annotations

import pytest

from pbp.parse.gm import GmCommand, parse_gm


@pytest.mark.parametrize(
    ("line", "lever", "args", "note"),
    [
        (
            "ACT Петя: SUGGEST Маша, нож, кухня TO Вася",
            "act",
            {"player": "Петя", "move": "SUGGEST Маша, нож, кухня TO Вася"},
            None,
        ),
        (
            "за Петю: ОПРОВЕРЖЕНИЕ 7 нож -- письмо потерялось",
            "act",
            {"player": "Петю", "move": "ОПРОВЕРЖЕНИЕ 7 нож"},
            "письмо потерялось",
        ),
        (
            "ACT Дуг: REFUTE нож — письмо Дуга потерялось",
            "act",
            {"player": "Дуг", "move": "REFUTE нож"},
            "письмо Дуга потерялось",
        ),
        ("PAUSE", "pause", {}, None),
        ("Пауза -- уехал на выходные", "pause", {}, "уехал на выходные"),
        ("ПАУЗА — уехал", "pause", {}, "уехал"),
        ("RESUME", "resume", {}, None),
        ("возобновить", "resume", {}, None),
        ("EXTEND 3", "extend", {"hours": 3.0}, None),
        ("ПРОДЛИТЬ 1,5 часа -- просили", "extend", {"hours": 1.5}, "просили"),
        (
            "SUBSTITUTE Петя BY Вова vova@example.test",
            "substitute",
            {"player": "Петя", "name": "Вова", "email": "vova@example.test"},
            None,
        ),
        (
            "ЗАМЕНА Петя НА Вова Сидоров <Vova@Example.test>",
            "substitute",
            {"player": "Петя", "name": "Вова Сидоров", "email": "vova@example.test"},
            None,
        ),
        ("REMOVE Петя", "remove", {"player": "Петя"}, None),
        ("VOID 17", "void", {"event": 17}, None),
        ("ОТМЕНИТЬ №17", "void", {"event": 17}, None),
        ("EXPORT html", "export", {"format": "html"}, None),
        ("ЭКСПОРТ", "export", {"format": "markdown"}, None),
    ],
)
def test_a_gm_command_is_read_with_its_arguments_and_note(
    line: str, lever: str, args: dict[str, object], note: str | None
) -> None:
    assert parse_gm(f"\n  {line}  \n") == [GmCommand(line, lever, args, note)]


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
        ("EXPORT pdf", "export"),
    ],
)
def test_a_gm_command_that_does_not_fit_names_its_syntax(line: str, lever: str) -> None:
    (command,) = parse_gm(line)
    assert command.error == "gm_syntax"
    assert command.lever == lever
    assert command.params["lever"] == lever


def test_lines_without_a_keyword_are_answered_as_not_gm_commands() -> None:
    assert parse_gm("Привет, как дела?\n\nCLOSE-DAY\nRETRY 1\nPAUSED") == [
        GmCommand("Привет, как дела?", None, error="gm_not_a_command"),
        GmCommand("CLOSE-DAY", None, error="gm_not_a_command"),
        GmCommand("RETRY 1", None, error="gm_not_a_command"),
        GmCommand("PAUSED", None, error="gm_not_a_command"),
    ]


@pytest.mark.parametrize("line", ["HELP", "помощь"])
def test_help_is_a_gm_command(line: str) -> None:
    assert parse_gm(line) == [GmCommand(line, "help")]
