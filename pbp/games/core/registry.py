"""The game kinds the daemon knows, by their ``kind:`` name in ``games.yaml``.

The daemon, the configuration and the CLI find a game only here: nothing outside a
game's package names it. The bundled games are :data:`BUNDLED`; a test (or a plugin)
adds its own with :func:`register`.
"""

from __future__ import annotations

from pbp.games.cluedo_days import kind as cluedo_days
from pbp.games.cluedo_rounds import kind as cluedo_rounds
from pbp.games.core.kind import AnyKind
from pbp.games.maniac import kind as maniac

#: The bundled kinds, in the order `pbp` lists them.
BUNDLED: tuple[AnyKind, ...] = (cluedo_days.KIND, cluedo_rounds.KIND, maniac.KIND)

#: ``kind`` name → the kind (its adapter object).
KINDS: dict[str, AnyKind] = {kind.kind: kind for kind in BUNDLED}


def register(kind: AnyKind) -> AnyKind:
    """Add ``kind`` under its ``kind`` name and return it.

    :raises ValueError: another kind already has that name.
    """
    known = KINDS.get(kind.kind)
    if known is not None and known is not kind:
        raise ValueError(f"a game kind named {kind.kind!r} is registered already")
    KINDS[kind.kind] = kind
    return kind


def unregister(name: str) -> None:
    """Remove the kind ``name`` (a test's own kind, once the test is done).

    :raises KeyError: no kind of that name.
    """
    del KINDS[name]


def kind_named(name: str) -> AnyKind:
    """The kind registered as ``name``.

    :raises KeyError: none is; the message lists the known names.
    """
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"no game kind {name!r}; known kinds: {', '.join(KINDS)}") from None


def names() -> list[str]:
    """The registered kind names, in registration order."""
    return list(KINDS)


def extra_posts() -> dict[str, str]:
    """Every numbered post of a registered kind besides its period's, with the kinds
    that have it: ``{"evening": "maniac", "morning": "maniac"}``."""
    found: dict[str, list[str]] = {}
    for name, kind in KINDS.items():
        for post in kind.extra_posts:
            found.setdefault(post, []).append(name)
    return {post: ", ".join(kinds) for post, kinds in found.items()}
