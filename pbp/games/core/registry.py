"""The game kinds the daemon knows, by their ``kind:`` name in ``games.yaml``.

The daemon, the configuration and the CLI find a game only here: nothing outside a
game's package names it. A game is registered by one line: an entry point of the group
:data:`GROUP` in its distribution's ``pyproject.toml``, as pytest and Flask find their
plugins (pbp's own games are pbp's)::

    [project.entry-points."pbp.games"]
    maniac = "pbp.games.maniac.kind:KIND"

The entry points are loaded at the first use of :data:`KINDS` (never at import, so
that importing the registry costs no game), in the order of their names. pbp's own
games win a clash of names: another distribution's entry point of the same name is
left out with a warning, and so is one that cannot be loaded or is no
:class:`~pbp.games.core.kind.GameKind` of its name; the other games still load. A test (or a
plugin loaded otherwise) adds its own with :func:`register`. An installed
distribution's entry points are its metadata: after a change of them, install it again
(``scripts/install`` does when ``pyproject.toml`` changed).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, MutableMapping
from importlib.metadata import EntryPoint, entry_points

from pbp.games.core.kind import AnyKind, GameKind

#: The entry-point group a game's distribution registers its kind in.
GROUP = "pbp.games"

#: pbp's own distribution (``name`` in its ``pyproject.toml``): its games win a clash.
OWN_DISTRIBUTION = "pbp"

log = logging.getLogger(__name__)


class NoKindsError(LookupError):
    """No game kind is installed: pbp's own metadata is older than its ``pyproject.toml``
    (install pbp again)."""


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


def _distribution(point: EntryPoint) -> str:
    """The name of the distribution that declares ``point`` (``"?"`` when unknown)."""
    dist = getattr(point, "dist", None)
    return str(dist.name) if dist is not None else "?"


def _is_own(distribution: str) -> bool:
    """Whether ``distribution`` is pbp's own (names compared normalized, PEP 503)."""
    return re.sub(r"[-_.]+", "-", distribution).lower() == OWN_DISTRIBUTION


def _entry_point_kinds() -> dict[str, AnyKind]:
    """The kinds of the entry points of :data:`GROUP`, by name, in the order of the entry
    points' names.

    pbp's own distribution's kind wins a clash of names, whatever the order of the
    entry points; of two other distributions', the first in the order of the
    distributions' names does. The loser of a clash, an entry point that cannot be
    loaded, and one whose object is not the :class:`GameKind` of its name are left out,
    each with one warning naming its distribution and itself.

    :raises NoKindsError: no kind is left: pbp's own metadata is older than its
        ``pyproject.toml`` (an editable install made before the games were entry points).
    """
    found: dict[str, tuple[str, AnyKind]] = {}
    points = sorted(
        entry_points(group=GROUP),
        key=lambda p: (p.name, not _is_own(_distribution(p)), _distribution(p)),
    )
    for point in points:
        distribution = _distribution(point)
        where = (
            f"entry point {point.name} = {point.value!r} of group {GROUP!r} "
            f"of distribution {distribution!r}"
        )
        known = found.get(point.name)
        if known is not None:
            log.warning(
                "%s is left out: the game kind %r is distribution %r's",
                where,
                point.name,
                known[0],
            )
            continue
        try:
            kind = point.load()
        except Exception as error:  # a plugin's import may fail any way: leave it out
            log.warning("%s is left out: it cannot be loaded: %r", where, error)
            continue
        if not isinstance(kind, GameKind) or kind.kind != point.name:
            log.warning("%s is left out: it is not the GameKind named %r", where, point.name)
            continue
        found[point.name] = (distribution, kind)
    if not found:
        raise NoKindsError(
            f"no game kinds: no entry point of group {GROUP!r} is installed; "
            "install pbp again (scripts/install, or pip install -e .)"
        )
    return {name: kind for name, (_, kind) in found.items()}


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
