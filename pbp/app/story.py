"""The post-game story (``pbp export``, EXPORT by mail): the whole event log, private
facts included, told by the templates (:meth:`pbp.text.render.Renderer.story`); which
facts reached the forum is :func:`pbp.text.export.on_forum`'s to say.
"""

from __future__ import annotations

from html import escape
from typing import Protocol

from markdown_it import MarkdownIt

from pbp.config.model import Game
from pbp.games.core.events import LeverRefused
from pbp.games.core.kind import AnyKind
from pbp.store import Store
from pbp.text.export import FORMATS, on_forum
from pbp.text.render import Renderer
from pbp.text.seatnames import ShownName, renamed


class StorySource(Protocol):
    """Where a story is read from: the store, the renderer and the games configured
    (:class:`pbp.app.service.Service`, :class:`pbp.app.gm.levers.GmDesk`)."""

    @property
    def store(self) -> Store: ...

    @property
    def renderer(self) -> Renderer: ...

    def game_config(self, game_id: str) -> Game: ...

    def kind_of(self, game: Game | str) -> AnyKind: ...


def story(service: StorySource, game_id: str, fmt: str, *, force: bool = False) -> str:
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
    periods: dict[int, list[dict[str, object]]] = {}
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
