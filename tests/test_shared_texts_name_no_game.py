"""pbp's shared texts name no game (issue 35, item 2: a game owns its files). The
templates every game shares (``templates/common/``, the shared refusals
``templates/errors/``) tell pbp's own events (the GM's levers, the start and the end
pbp looks for by name) and ask a game's part for the game's own
(``<kind>/parts/event_kinds.j2``, ``story_line.j2``, ``gm_post.j2``, ``understood.j2``,
through the kind's folders): none of them names a bundled game's event, kind or
template folder. Their comments may point at a game's shapes (Jinja2 drops them: only
the template's code is read here)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import jinja2
from jinja2 import nodes

from pbp.games.core import registry

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
GAMES = ROOT / "pbp" / "games"
#: pbp's shared texts: every game's mails, posts, parts and refusals.
SHARED = (TEMPLATES / "common", TEMPLATES / "errors")

#: A game's event a shared text may name, each with its reason.
EXCEPTIONS = {
    # pbp.games.core.kind: "Events it looks for by name": the help mail and the story
    # read the players of the start, the final post and the story the end's winner.
    "game_started": "pbp looks for it by name (GameKind's contract)",
    "game_over": "pbp looks for it by name (GameKind's contract)",
}


def _parse(path: Path) -> nodes.Template:
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True)
    return env.parse(path.read_text(encoding="utf-8"))


def _templates(folders: Iterator[Path] | tuple[Path, ...]) -> list[Path]:
    return sorted(p for f in folders for p in f.rglob("*") if p.suffix in (".j2", ".txt"))


def _strings(path: Path) -> set[str]:
    """Every string constant of a template's code (not its comments, not its text)."""
    return {
        c.value for c in _parse(path).find_all(nodes.Const) if isinstance(c.value, str) and c.value
    }


def _game_folders() -> set[Path]:
    """The template folders of the bundled kinds (``templates/maniac``, ``templates/cluedo``…)."""
    return {
        folder if folder.is_absolute() else TEMPLATES / folder
        for kind in registry.KINDS.values()
        for folder in kind.templates
    }


def _logged_by_games() -> set[str]:
    """The kinds of the events the bundled games log: the literal first argument of every
    ``Event(…)`` in their packages (pbp/games/*, but the core), and the kinds their
    templates tell (``e.kind == "…"``, the keys of their ``parts/event_kinds.j2``): a
    kind the engine computes (``refuted``) is among these. Not the GM's levers
    (``gm_*``, logged by pbp.app.gm), which a game may tell in its own words."""
    found: set[str] = set()
    for source in GAMES.rglob("*.py"):
        if source.relative_to(GAMES).parts[0] == "core":
            continue
        for call in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "Event"
                and call.args
                and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str)
            ):
                found.add(call.args[0].value)
    for path in _templates(tuple(_game_folders())):
        tree = _parse(path)
        for compare in tree.find_all(nodes.Compare):
            if isinstance(compare.expr, nodes.Getattr) and compare.expr.attr == "kind":
                for operand in compare.ops:
                    if isinstance(operand.expr, nodes.Const) and isinstance(
                        operand.expr.value, str
                    ):
                        found.add(operand.expr.value)
        if path.name == "event_kinds.j2":
            for pair in tree.find_all(nodes.Pair):
                if isinstance(pair.key, nodes.Const) and isinstance(pair.value, nodes.Call):
                    found.add(pair.key.value)
    return {kind for kind in found if not kind.startswith("gm_")}


def test_the_games_events_are_found() -> None:
    """The games' events this test knows (so that an empty set passes nothing)."""
    events = _logged_by_games()
    assert {"suggestion_made", "refuted", "vote_cast", "order_placed", "turn_started"} <= events


def test_no_shared_text_names_a_games_event() -> None:
    """Every event kind a shared template names is pbp's: a lever's (``gm_*``, logged by
    pbp.app.gm) or one of :data:`EXCEPTIONS`; a game's own events are told by the game
    (``common/parts/event_kinds.j2`` asks ``<kind>/parts/event_kinds.j2``)."""
    games = _logged_by_games()
    found = sorted(
        f"{path.relative_to(ROOT)}: {value}"
        for path in _templates(SHARED)
        for value in _strings(path)
        if value in games and value not in EXCEPTIONS
    )
    assert found == []


def test_no_shared_text_names_a_game_or_its_folder() -> None:
    """No shared template names a bundled kind (``kind == "maniac"``) or reaches into a
    game's folder by name (``cluedo/parts/…``): a game's part is found through the
    game's kind (``"%s/parts/…"|format(kind)``, the kind's folders)."""
    names = set(registry.KINDS) | {folder.name for folder in _game_folders()}
    assert {"maniac", "cluedo", "cluedo_days"} <= names
    found = sorted(
        f"{path.relative_to(ROOT)}: {value}"
        for path in _templates(SHARED)
        for value in _strings(path)
        if value in names or value.split("/", 1)[0] in names
    )
    assert found == []
