"""Every text the suite renders, recorded and rendered again: a check that a change to
the text layer (issue 16: one template tree, translation catalogs) changes no text.

Record while the suite runs (``tests/conftest.py`` does it when ``PBP_RECORD_RENDERS``
names a file), then replay the records against the templates of now::

    PBP_RECORD_RENDERS=/tmp/renders.pickle .venv/bin/python -m pytest -q
    .venv/bin/python tests/kits/render_log.py /tmp/renders.pickle [--only maniac/]

The replay prints each text that differs (a unified diff, at most ``--show`` of them)
and a count per template; it exits 1 when any differs. A record is one call of
:class:`pbp.text.render.Renderer`'s public methods on the repository's ``templates/`` (a
test's own template directory is not recorded): the method, its arguments and what it
returned, kept once per distinct call.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import pickle
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pbp.games.core import registry  # noqa: E402
from pbp.text.render import Renderer  # noqa: E402

TEMPLATES = ROOT / "templates"
METHODS = ("public_post", "private_mail", "error", "story")


def _template_of(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """A short name of what a call rendered, to group the replay's counts."""
    name = str(args[0]) if args else ""
    if method == "public_post":
        return f"{kwargs.get('kind')}/posts/{name}"
    if method == "private_mail":
        return name if "/" in name else f"{kwargs.get('kind') or 'common'}/mail/{name}"
    if method == "error":
        return f"errors/{name}"
    return "common/story"


@contextlib.contextmanager
def recording(path: Path) -> Iterator[None]:
    """While it lasts, every call of the Renderer's public methods on ``TEMPLATES``
    is appended to ``path`` (pickled ``(method, args, kwargs, result)``), once per
    distinct call; a call whose arguments cannot be pickled is left out."""
    seen: set[bytes] = set()
    out = path.open("ab")

    def wrap(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(self: Renderer, *args: Any, **kwargs: Any) -> Any:
            result = original(self, *args, **kwargs)
            if Path(self.templates_dir) != TEMPLATES:
                return result
            try:
                key = pickle.dumps((method, args, kwargs))
            except Exception:  # a test's own object in the context: not recorded
                return result
            digest = hashlib.sha256(key).digest()
            if digest not in seen:
                seen.add(digest)
                pickle.dump((method, args, kwargs, result), out)
            return result

        return recorded

    with pytest.MonkeyPatch.context() as patch:
        for method in METHODS:
            patch.setattr(Renderer, method, wrap(method, getattr(Renderer, method)))
        try:
            yield
        finally:
            out.close()


def records(path: Path) -> Iterator[tuple[str, tuple[Any, ...], dict[str, Any], Any]]:
    """The records of ``path``, in the order they were made."""
    with path.open("rb") as source:
        while True:
            try:
                yield pickle.load(source)
            except EOFError:
                return


def replay(path: Path, only: str = "", show: int = 5) -> int:
    """Render every record of ``path`` again; print the differences; 0 when none.

    The test game kind ``guess`` (tests/guessgame) is registered for the replay, as
    the tests that played it did.
    """
    sys.path.insert(0, str(ROOT / "tests"))
    from guessgame.kind import GUESS

    if GUESS.kind not in registry.KINDS:
        registry.register(GUESS)
    renderer = Renderer(TEMPLATES, kinds=registry.KINDS)
    same: Counter[str] = Counter()
    differ: Counter[str] = Counter()
    shown = 0
    for method, args, kwargs, expected in records(path):
        name = _template_of(method, args, kwargs)
        if not name.startswith(only):
            continue
        try:
            got = getattr(renderer, method)(*args, **kwargs)
        except Exception as exc:  # shown as a difference
            got = f"{type(exc).__name__}: {exc}"
        if got == expected:
            same[name] += 1
            continue
        differ[name] += 1
        if shown < show:
            shown += 1
            print(f"--- {name} ({method}, {kwargs.get('locale')}, {kwargs.get('fmt', 'text')})")
            was = "\n".join(map(str, expected)) if isinstance(expected, tuple) else str(expected)
            now = "\n".join(map(str, got)) if isinstance(got, tuple) else str(got)
            print("".join(difflib.unified_diff(was.splitlines(True), now.splitlines(True))))
    for name in sorted(set(same) | set(differ)):
        mark = "DIFFERS" if differ[name] else "same"
        print(f"{mark:8} {name}: {same[name]} same, {differ[name]} differ")
    print(f"{sum(same.values())} same, {sum(differ.values())} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--only", default="", help="templates whose name starts so")
    parser.add_argument("--show", type=int, default=5, help="diffs to print at most")
    options = parser.parse_args()
    return replay(options.path, options.only, options.show)


if __name__ == "__main__":
    sys.exit(main())
