"""Jinja2 compiles each template once per test session, not once per test.

Every test builds its own :class:`pbp.text.render.Renderer` (the kits' tables, the command
line run in this process, a test's own), and each Renderer compiled again every
template it rendered: about a third of the CPU of the service tests. Here the
Renderers of the session share their Jinja2 environments, one per (templates
directory, the registered game kinds and their template folders, locale, format):
exactly what one Renderer builds for itself, so no text changes. As in the daemon, a
template file is read once (no environment looks at its modification time again):
:meth:`Renderer.reload` (``pbp run``'s SIGHUP) empties the templates of the shared
environments it used too, so the next use reads them again. A game kind registered
by a test (:mod:`guessgame`) gets environments of its own.

Example (what ``tests/conftest.py`` does for the session)::

    with shared_environments():
        renderer = Renderer(TEMPLATES, kinds=registry.KINDS)
        renderer.private_mail("welcome", locale="ru", kind="cluedo_days", …)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import jinja2
import pytest

from pbp.text.filters import Format
from pbp.text.render import Renderer

#: (templates directory, each of the renderer's kinds with its template folders, locale, format).
Key = tuple[str, tuple[str, ...], str, str]


@contextlib.contextmanager
def shared_environments() -> Iterator[dict[Key, jinja2.Environment]]:
    """While it lasts, every Renderer takes its environments from one cache (yielded,
    empty at first); :meth:`Renderer._build_env` is restored after."""
    build = Renderer._build_env
    cache: dict[Key, jinja2.Environment] = {}

    def shared(renderer: Renderer, locale: str, fmt: Format) -> jinja2.Environment:
        if renderer.translations:  # a test's own catalogs (the pseudo-locale): its own
            return build(renderer, locale, fmt)
        kinds = tuple(f"{n}={k.templates}" for n, k in renderer.kinds.items())
        key = (str(renderer.templates_dir), kinds, locale, fmt)
        env = cache.get(key)
        if env is None:
            env = cache[key] = build(renderer, locale, fmt)
        return env

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Renderer, "_build_env", shared)
        yield cache
