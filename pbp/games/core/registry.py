"""The game kinds the daemon knows, by their ``kind:`` name in ``games.yaml``.

The daemon, the configuration and the CLI find a game only here: nothing outside a
game's package names it. A game is registered by one line: an entry point of the group
:data:`GROUP` in its distribution's ``pyproject.toml``, as pytest and Flask find their
plugins (pbp's own games are pbp's)::

    [project.entry-points."pbp.games"]
    maniac = "pbp.games.maniac.kind:KIND"

The entry points are loaded at the first use of :data:`KINDS` (never at import, so
that importing the registry costs no game), in the order of their names. A test (or a
plugin loaded otherwise) adds its own with :func:`register`. An installed
distribution's entry points are its metadata: after a change of them, install it again
(``scripts/install`` does when ``pyproject.toml`` changed).
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib.metadata import entry_points

from pbp.games.core.kind import AnyKind, GameKind

#: The entry-point group a game's distribution registers its kind in.
GROUP = "pbp.games"


class _Kinds(MutableMapping[str, AnyKind]):
    """``kind`` name → the kind (its adapter object): those of the entry points of
    :data:`GROUP`, loaded at the first lookup, then those :func:`register` adds."""

    def __init__(self) -> None:
        self._kinds: dict[str, AnyKind] | None = None

    def _loaded(self) -> dict[str, AnyKind]:
        if self._kinds is None:
            self._kinds = _entry_point_kinds()
        return self._kinds

    def __getitem__(self, name: str) -> AnyKind:
        return self._loaded()[name]

    def __setitem__(self, name: str, kind: AnyKind) -> None:
        self._loaded()[name] = kind

    def __delitem__(self, name: str) -> None:
        del self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __repr__(self) -> str:
        return f"KINDS({list(self._loaded())})"


def _entry_point_kinds() -> dict[str, AnyKind]:
    """The kinds of the entry points of :data:`GROUP`, by name, in the order of the entry
    points' names.

    :raises TypeError: an entry point's object is not a :class:`GameKind`, or its name
        is not the kind's name.
    :raises LookupError: there is none: pbp's own metadata is older than its
        ``pyproject.toml`` (an editable install made before the games were entry points).
    """
    found: dict[str, AnyKind] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        kind = point.load()
        if not isinstance(kind, GameKind) or kind.kind != point.name:
            raise TypeError(
                f"entry point {point.name} = {point.value!r} of group {GROUP!r} is not the "
                f"GameKind named {point.name!r}"
            )
        found.setdefault(point.name, kind)
    if not found:
        raise LookupError(
            f"no game kinds: no entry point of group {GROUP!r} is installed; "
            "install pbp again (scripts/install, or pip install -e .)"
        )
    return found


#: ``kind`` name → the kind (its adapter object); the installed games' first.
KINDS: MutableMapping[str, AnyKind] = _Kinds()


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
