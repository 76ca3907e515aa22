"""What every GM lever does around its own work (:class:`Levers`): find the game running
and the seat a name names, log the lever's events, commit its engine step, and mail
the GM the post that announces it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pbp.app.deadlines import Deadlines
from pbp.app.mailer import Mailer
from pbp.app.running import game_and_kind, paused_since, running, seat_of
from pbp.app.settings import Configured, Settings
from pbp.app.table import GameTable
from pbp.config.model import Game
from pbp.games.core.events import Event, LeverRefused, Step, Visibility
from pbp.games.core.kind import AnyKind
from pbp.store import GameRow, Schedule, Store
from pbp.text.render import Renderer


class Levers(Configured):
    """The collaborators and helpers of the GM's levers on the games configured
    (:class:`pbp.app.gm.levers.GmDesk`, :class:`pbp.app.gm.newcomers.Newcomers`)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        table: GameTable,
        mail: Mailer,
        renderer: Renderer,
        deadlines: Deadlines,
    ) -> None:
        self.settings = settings
        self.store = store
        self.table = table
        self.mail = mail
        self.renderer = renderer
        self.deadlines = deadlines

    # --- helpers -----------------------------------------------------------------

    def _unpaused(self, game_id: str, now: datetime) -> tuple[Game, AnyKind]:
        """The game and its kind for a lever that needs it running and not paused,
        after whatever fell due before ``now`` (rule D8).

        :raises LeverRefused: not running (see :meth:`_running`), or paused (``gm_paused``).
        """
        game, kind = self.game_and_kind(game_id)
        self.running(game_id, kind)
        # First what fell due: an outage may pause the game there (rule P3).
        self.deadlines.advance(game_id, now)
        if paused_since(self.store, game_id) is not None:
            raise LeverRefused("gm_paused", game=game_id)
        return game, kind

    def game_and_kind(self, game_id: str) -> tuple[Game, AnyKind]:
        """:func:`pbp.app.running.game_and_kind`."""
        return game_and_kind(self.settings, game_id)

    def running(self, game_id: str, kind: AnyKind) -> tuple[GameRow, object]:
        """``(row, state)`` of a started game that is not over
        (:func:`pbp.app.running.running`)."""
        return running(self.store, game_id, kind)

    def _commit_step(
        self,
        game: Game,
        kind: AnyKind,
        step: Step[object],
        row: GameRow,
        *,
        now: datetime,
        day: int,
        via: str,
    ) -> None:
        """Commit a lever's engine ``step`` to the running game of ``row`` (source
        ``gm:{via}``), its schedule as ``row`` holds it: a lever moves no deadline."""
        self.table.commit(
            game,
            kind,
            step,
            at=now,
            day=day,
            source=f"gm:{via}",
            schedule=Schedule(row.over, row.deadline_at),
        )

    def seat_of(self, kind: AnyKind, state: object, text: str, game_id: str) -> str:
        """The seat ``text`` names: by its own name or by the name of whoever plays it
        now (a substitute's, :meth:`pbp.store.Store.substitutes`), any case form.

        :raises MoveError: ``unknown_name`` / ``ambiguous_name``."""
        return seat_of(self.store, kind, state, text, game_id)

    def log(self, game_id: str, events: Sequence[Event], at: datetime, day: int, via: str) -> None:
        self.table.log(game_id, events, at=at, day=day, source=f"gm:{via}")

    def announce(
        self, game: Game, events: Sequence[Event], now: datetime, note: str | None = None
    ) -> None:
        """Mail the GM the public post that announces ``events`` (public ones only),
        in the format(s) of the game's ``post_format`` (BBCode by default, Markdown, or
        both), to paste into the game thread; ``note``, the GM's note of a lever whose
        events carry none (remove, void), follows their headline. One mail per format,
        each holding the post alone (:meth:`Mailer.gm_paste`)."""
        context = {
            "game": game.id,
            "game_kind": game.kind,  # its own events told by <kind>/parts/gm_post.j2
            "timezone": game.timezone,
            "note": note,
            "genders": game.genders(),  # the names in the case the sentence needs (P2)
            # A seat a substitute plays, named as every post names it: «Вова (вместо Розы)».
            "substitutes": self.store.substitutes(game.id),
        }
        posts: dict[str, str] = {
            fmt: self.renderer.public_post(
                "gm", events, locale=game.locale, fmt=fmt, kind="common", **context
            )
            for fmt in game.post_formats
        }
        kinds = [e.kind for e in events if e.visibility is Visibility.PUBLIC]
        self.mail.gm_paste(game, "gm_announce", posts, {"kinds": kinds}, now)
