"""The post-game story (``pbp export``): the whole event log, private facts included;
what of it reached the forum (:func:`on_forum`) and the formats it is written in. The
story itself is put together by :func:`pbp.app.story.story`.

After the game a forum thread loves to see everything that was hidden: the deal or
the roles, every shown card, every kill order, every GM action, day by day. The
story is rendered from ``templates/common/story/story.j2``, each game event told by
its kind (``<kind>/parts/story_line.j2``), in Markdown or BBCode; HTML is the
Markdown rendered by markdown-it-py (CommonMark, raw HTML in names escaped, never
passed through). It is refused while the game runs, unless forced (the GM's own look
at it): a story mailed or pasted too early would give the game away.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from pbp.games.core.events import Visibility

if TYPE_CHECKING:
    from pbp.store import StoredEvent

ExportFormat = Literal["markdown", "bbcode", "html"]
FORMATS: tuple[ExportFormat, ...] = ("markdown", "bbcode", "html")


def on_forum(events: Sequence[StoredEvent]) -> set[int]:
    """The numbers (``seq``) of the events whose fact reached the forum: the PUBLIC ones,
    and the private record of a fact a public post told too —

    - ``accusation_made``, when wrong and its PUBLIC ``accusation_wrong`` (logged with
      it) names the cards (``publish_wrong_accusations``: the posts show them), or when
      right (the game's end, PUBLIC ``game_over`` with him the winner: the final post
      names him and the solution);
    - the GM's ``gm_void`` and ``gm_remove`` (his note included), when the lever's own
      events (logged with it, same time and source) hold a PUBLIC one: the GM's
      announcement of it carries the note (:meth:`pbp.app.gm.common.Levers.announce`).

    Everything else private is marked so in the story."""
    shown: set[int] = set()
    together: dict[tuple[datetime, str | None], list[StoredEvent]] = {}
    for stored in events:
        together.setdefault((stored.at, stored.source), []).append(stored)
    for stored in events:
        event = stored.event
        if event.visibility is Visibility.PUBLIC:
            shown.add(stored.seq)
            continue
        beside = [
            other.event
            for other in together[(stored.at, stored.source)]
            if other.event.visibility is Visibility.PUBLIC
        ]
        if event.kind == "accusation_made":
            player = event.data.get("player")
            if any(
                (
                    other.kind == "accusation_wrong"
                    and other.data.get("player") == player
                    and other.data.get("suspect") is not None
                )
                or (other.kind == "game_over" and other.data.get("winner") == player)
                for other in beside
            ):
                shown.add(stored.seq)
        elif event.kind in ("gm_void", "gm_remove") and beside:
            shown.add(stored.seq)
    return shown
