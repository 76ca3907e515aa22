"""What the text layer needs of a game kind, and the kinds a :class:`~pbp.text.render.Renderer`
is given (issue 35: :mod:`pbp.text` imports no game module but the seam's vocabulary,
:mod:`pbp.games.core.events`).

Whoever builds the renderer (the command line, a test) passes the kinds by name; in pbp
that is the registry's :data:`pbp.games.core.registry.KINDS`, every
:class:`pbp.games.core.kind.GameKind` being a :class:`KindTexts`. The mapping is read at
each use, so a kind registered later is found as the registry's own lookups find it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from pbp.games.core.events import Event


class DeadlineLever(Protocol):
    """A deadline command of a kind, as a text names it
    (:class:`pbp.games.core.kind.DeadlineCommand`)."""

    @property
    def lever(self) -> str:
        """The GM's lever by mail that passes the deadline (``"close_day"``)."""
        ...


class KindTexts(Protocol):
    """What the text layer reads of one game kind (:class:`pbp.games.core.kind.GameKind`)."""

    @property
    def templates(self) -> Sequence[Path]:
        """The folders of the kind's texts, searched in order; a relative one is under
        pbp's template tree (:attr:`pbp.games.core.kind.GameKind.templates`)."""
        ...

    @property
    def catalogs(self) -> Path | None:
        """The folder of the kind's own translation catalogs, or None
        (:attr:`pbp.games.core.kind.GameKind.catalogs`)."""
        ...

    @property
    def deadline_commands(self) -> Sequence[DeadlineLever]:
        """The kind's deadline commands (:attr:`pbp.games.core.kind.GameKind.deadline_commands`)."""
        ...

    def post_view(
        self, post: str, events: Sequence[Event], period: int | None
    ) -> Mapping[str, object]:
        """What the public post ``post`` shows of the PUBLIC ``events``, of period
        ``period`` (:meth:`pbp.games.core.kind.GameKind.post_view`)."""
        ...


#: The game kinds a renderer knows, by name (``{"maniac": kind, …}``): in pbp the
#: registry's :data:`~pbp.games.core.registry.KINDS`.
Kinds = Mapping[str, KindTexts]
