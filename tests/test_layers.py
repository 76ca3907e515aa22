"""The layers of pbp, checked (issue 15): the contracts in ``pyproject.toml``
(``[tool.importlinter]``: engines are pure, the text layer knows no game, the app no
CLI) and no import cycle among pbp's modules."""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterator
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
    """The pbp modules ``path`` imports, at import time or in a function (either may
    close a cycle); not those imported only for type checking."""

    def walk(nodes: list[ast.stmt]) -> Iterator[str]:
        for node in nodes:
            for inner in ast.walk(node):
                if isinstance(inner, ast.If) and "TYPE_CHECKING" in ast.unparse(inner.test):
                    continue
                if isinstance(inner, ast.Import):
                    yield from (a.name for a in inner.names)
                elif isinstance(inner, ast.ImportFrom) and inner.module:
                    yield inner.module
                    yield from (f"{inner.module}.{a.name}" for a in inner.names)

    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = [
        n
        for n in tree.body
        if not (isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
    ]
    return {name for name in walk(body) if name in known}


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
