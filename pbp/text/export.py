"""The post-game story (``pbp export``): the whole event log, private facts included.

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
from html import escape
from typing import TYPE_CHECKING, Any, Literal

from markdown_it import MarkdownIt

from pbp.games.core.events import LeverRefused, Visibility
from pbp.text.seatnames import ShownName, renamed

if TYPE_CHECKING:
    from pbp.app.service import Service
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
      announcement of it carries the note (:meth:`pbp.app.gm.levers.Levers.announce`).

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


def story(service: Service, game_id: str, fmt: str, *, force: bool = False) -> str:
    """The story of ``game_id`` in ``fmt`` (``markdown``, ``bbcode`` or ``html``: a
    whole UTF-8 page), grouped by the period each event was logged in (game day, or
    turn in a game by turns), times in the game's zone.

    :raises LeverRefused: ``gm_unknown_game``, ``gm_not_started``; ``gm_export_running``
        (the game is not over and ``force`` is False); ``gm_syntax`` (unknown format).
    """
    if fmt not in FORMATS:
        raise LeverRefused("gm_syntax", lever="export", syntax="EXPORT markdown|bbcode|html")
    try:
        game = service.game_config(game_id)
    except KeyError:
        raise LeverRefused("gm_unknown_game", game=game_id) from None
    row = service.store.game(game_id)
    if row is None:
        raise LeverRefused("gm_not_started", game=game_id)
    if not row.over and not force:
        raise LeverRefused("gm_export_running", game=game_id)
    kind = service.kind_of(game)
    periods: dict[int, list[dict[str, Any]]] = {}
    events = list(service.store.events(game_id))
    public = on_forum(events)
    # Who played each seat when: an event after a substitution names the seat by its
    # substitute («Дэйв (вместо Кэрол)»), one before it by the player who played then;
    # the substitution's second event, the seat's new personal address, is the
    # substitute's («у Дэйва (вместо Кэрол) новый личный адрес»).
    substitutes: dict[str, str] = {}
    names: dict[str, ShownName] = {}
    for stored in events:
        periods.setdefault(stored.day or 1, []).append(
            {
                "seq": stored.seq,
                "kind": stored.event.kind,
                "visibility": stored.event.visibility.value,
                "public": stored.seq in public,
                "player": renamed(stored.event.player, names),
                "at": stored.at,
                "source": stored.source,
                "data": renamed(dict(stored.event.data), names),
            }
        )
        if stored.event.kind == "gm_substitute":
            substitutes[stored.event.data["player"]] = stored.event.data["name"]
            names = service.renderer.shown_names(game.locale, substitutes, genders=game.genders())
    text = service.renderer.story(
        locale=game.locale,
        fmt="bbcode" if fmt == "bbcode" else "markdown",
        kind=kind.kind,
        game=game_id,
        title=game.display_title,
        timezone=game.timezone,
        genders=game.genders(),
        period=kind.period_post,
        over=row.over,
        periods=[{"number": n, "events": found} for n, found in sorted(periods.items())],
    )
    if fmt != "html":
        return text
    body = MarkdownIt("commonmark", {"html": False}).render(text)
    return (
        f'<!DOCTYPE html>\n<html lang="{game.locale}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(game.display_title)}</title>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )
