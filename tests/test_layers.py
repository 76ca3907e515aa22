"""The layers of pbp, checked (issue 15): the contracts in ``pyproject.toml``
(``[tool.importlinter]``: engines are pure, the text layer knows no game, the app no
CLI) and no import cycle among pbp's modules, counting the imports made for type
checking too (issue 35: a lower module names a higher one's type through a Protocol
of its own, never by importing it)."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parent.parent
PBP = REPO / "pbp"


def test_the_import_contracts_hold(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    # import-linter configures logging as a command does (existing loggers disabled):
    # give every logger back its state, or later tests' caplog sees nothing.
    loggers = [
        (logger, logger.disabled, logger.level)
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)
    ]
    root = (logging.root.level, list(logging.root.handlers))
    try:
        code = lint_imports(config_filename="pyproject.toml", no_cache=True, no_logo=True)
    finally:
        for logger, disabled, level in loggers:
            logger.disabled, logger.level = disabled, level
        logging.root.setLevel(root[0])
        logging.root.handlers[:] = root[1]
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Contracts: 3 kept, 0 broken." in out


def modules() -> dict[str, Path]:
    """pbp's modules by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted(PBP.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imported(path: Path, known: dict[str, Path]) -> set[str]:
    """The pbp modules ``path`` imports: at import time, in a function or for type
    checking only (``if TYPE_CHECKING:``); any of them may close a cycle."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found & known.keys()


def test_imported_counts_type_checking_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import pbp.a\n"
        "if TYPE_CHECKING:\n"
        "    from pbp.b import B\n"
        "def f() -> None:\n"
        "    from pbp import c\n",
        encoding="utf-8",
    )
    known = {name: source for name in ("pbp.a", "pbp.b", "pbp.c", "pbp.d")}
    assert imported(source, known) == {"pbp.a", "pbp.b", "pbp.c"}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycles_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_pbp_has_no_import_cycle() -> None:
    known = modules()
    graph = {name: imported(path, known) - {name} for name, path in known.items()}
    assert len(graph) > 60 and sum(map(len, graph.values())) > 200  # the graph is real
    assert cycles(graph) == []
