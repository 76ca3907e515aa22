"""The layers of pbp, checked (issues 15 and 35): the contracts in ``pyproject.toml``
(``[tool.importlinter]``: the layers cli > app > config > games > text > mail > store,
each importing only those below it, events the one exception; and the games import
no mail transport, store or rendering), imports made for type checking included, and
no import cycle among pbp's modules, counting the imports made for type checking and
the packages an import runs (issue 35: a lower module names a higher one's type
through a Protocol of its own, never by importing it)."""

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
    assert "Contracts: 2 kept, 0 broken." in out


def modules() -> dict[str, Path]:
    """pbp's modules by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted(PBP.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def packages_of(name: str) -> set[str]:
    """The packages ``name`` is in (``a.b.c``: ``a`` and ``a.b``), whose ``__init__``
    runs before it."""
    parts = name.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts))}


def imported(path: Path, known: dict[str, Path], importer: str = "") -> set[str]:
    """The pbp modules ``path`` (module ``importer``) imports: at import time, in a
    function or for type checking only (``if TYPE_CHECKING:``); any of them may close
    a cycle. Importing ``a.b.c`` runs ``a.b``'s ``__init__`` too (and ``a``'s), so
    those count; but for the importer's own packages, which ran before it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    with_packages = found.union(*map(packages_of, found)) - packages_of(importer)
    return with_packages & known.keys()


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


def test_imported_counts_the_packages_on_the_way(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("from pbp.a.b.c import C\nimport pbp.x.y\n", encoding="utf-8")
    known = {name: source for name in ("pbp", "pbp.a", "pbp.a.b", "pbp.a.b.c", "pbp.x", "pbp.x.y")}
    assert imported(source, known, "pbp.x.m") == {"pbp.a", "pbp.a.b", "pbp.a.b.c", "pbp.x.y"}


def graph_of(known: dict[str, Path]) -> dict[str, set[str]]:
    """Which of the ``known`` modules each imports (:func:`imported`), itself left out."""
    return {name: imported(path, known, name) - {name} for name, path in known.items()}


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


def test_a_cycle_through_a_package_init_is_seen(tmp_path: Path) -> None:
    # The intake package's __init__ imports its rules, a rule the moves, and the moves
    # name the intake's Message for type checking: importing pbp.p.intake.message runs
    # the package's __init__ first, so this is a cycle (issue 35).
    files = {
        "pbp.p.intake": "from pbp.p.intake.letters import LetterRules\n",
        "pbp.p.intake.letters": "from pbp.p.moves import Moves\n",
        "pbp.p.intake.message": "class Message: ...\n",
        "pbp.p.moves": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from pbp.p.intake.message import Message\n"
        ),
    }
    known: dict[str, Path] = {}
    for name, text in files.items():
        known[name] = tmp_path / f"{name}.py"
        known[name].write_text(text, encoding="utf-8")
    assert cycles(graph_of(known)) == [["pbp.p.intake", "pbp.p.intake.letters", "pbp.p.moves"]]
    # The Message below the package: no cycle.
    known["pbp.p.message"] = known.pop("pbp.p.intake.message")
    known["pbp.p.moves"].write_text("from pbp.p.message import Message\n", encoding="utf-8")
    assert cycles(graph_of(known)) == []


def test_pbp_has_no_import_cycle() -> None:
    known = modules()
    graph = graph_of(known)
    assert len(graph) > 60 and sum(map(len, graph.values())) > 200  # the graph is real
    assert cycles(graph) == []
