"""Cluedo by game days as a :class:`~pbp.core.kind.GameKind` (rules C1–C7, D1–D8).

Glue only: the rules live in :mod:`pbp.games.cluedo_days.engine`, the reading of
commands in :mod:`pbp.games.cluedo.parse`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pbp.core.events import Event, IllegalMove, Step, Visibility
from pbp.core.kind import CLOSE_DAY, DeadlineCommand, PrivateMail
from pbp.games.cluedo.kind import CluedoKind
from pbp.games.cluedo_days import engine
from pbp.games.cluedo_days.config import CluedoDaysGame
from pbp.schedule import next_close


class CluedoDays(CluedoKind):
    """The ``cluedo_days`` game kind."""

    kind = "cluedo_days"
    config_model = CluedoDaysGame
    engine = engine
    addressed = True
    period_post = "day"
    extra_posts: tuple[str, ...] = ()
    own_period_posts: tuple[str, ...] = ()  # a day carries over earlier GM answers (D6)
    deadline_names: tuple[str, ...] = ("day",)
    deadline_commands: tuple[DeadlineCommand, ...] = (CLOSE_DAY,)

    def setup(self, game: Any) -> engine.DaysSetup:
        """The engine setup from a ``games.yaml`` game (C1's drop already applied)."""
        rules = engine.DaysRules(
            suggestions_per_day=game.rules.suggestions_per_day,
            max_per_addressee_per_day=game.rules.max_per_addressee_per_day,
            answer_grace_hours=game.rules.answer_grace_hours,
            publish_wrong_accusations=game.rules.publish_wrong_accusations,
        )
        return engine.DaysSetup(
            game_id=game.id,
            players=tuple((p.name, p.character) for p in game.players),
            cards=game.to_cards(),
            rules=rules,
            deal=game.to_deal(),
        )

    def start(self, game: Any, seed: int, salt: bytes, at: datetime) -> Step:
        """Deal (C2) and open day 1 (D1); ``at`` plays no part (days follow the clock)."""
        return engine.start(self.setup(game), seed, salt)

    def mail_context(self, game: Any) -> dict[str, Any]:
        """The daily close time ``{"day_closes": "22:30"}`` (D1)."""
        return {"day_closes": game.day_closes}

    def void(self, state: Any, event: Event, at: datetime) -> Step:
        """An unanswered suggestion can be voided (nothing else is a move to undo)."""
        if event.kind != "suggestion_made":
            raise IllegalMove("void_kind", kind=event.kind, allowed=["suggestion_made"])
        return engine.void(state, int(event.data["number"]), at)

    def day(self, state: Any) -> int:
        """The current game day."""
        return int(state.day)

    def first_deadline(self, game: Any, state: Any, start: datetime) -> datetime | None:
        """Day 1 closes at the first ``day_closes`` after the start (D1)."""
        return next_close(start, game.close_time, game.zone)

    def next_deadline(
        self, game: Any, state: Any, current: datetime | None, passed: datetime | None
    ) -> datetime | None:
        """Moves leave the close alone; after a close the next regular one follows.

        A close made early by hand (``pbp close-day``) keeps the regular schedule:
        the next day closes at the first regular close after the one that was due.
        """
        if passed is None:
            return current
        return next_close(max(passed, current or passed), game.close_time, game.zone)

    def deadline_name(self, state: Any) -> str:
        """Every deadline closes a game day."""
        return "day"

    def on_deadline(self, state: Any, at: datetime) -> Step:
        """Day close (D6, D7)."""
        return engine.close_day(state, at)

    def posts(self, before: Any, step: Step) -> list[tuple[str, int]]:
        """The day summary when a day closed (D7)."""
        if any(event.kind == "day_closed" for event in step.events):
            return [("day", int(before.day))]
        return []

    def duties(self, state: Any, player: str) -> dict[str, Any] | None:
        """Owed answers and unused suggestions of today and whether the player is out
        (no penalty for him, D6), or None when there is nothing to do."""
        if engine.is_over(state):
            return None
        status = engine.status(state, player)
        left = 0 if status["out"] else status["suggestions_left"]
        if not status["owed"] and not left:
            return None
        return {"owed": status["owed"], "suggestions_left": left, "out": status["out"]}

    def notifications(self, game: Any, state: Any, events: Sequence[Event]) -> list[PrivateMail]:
        """Who learns what by private mail after ``events``.

        - the addressee of a new suggestion: what he holds of it and how to answer (D3);
        - the suggester: the card shown to him (C4, only to him) or "no refutation";
        - an addressee the GM answered for at the close: what was shown, and the
          penalty (C5, D6);
        - the GM: every accusation (D5);
        - the suggester and the addressee: a suggestion the GM voided (pbp void);
        - everybody: the end of the game (C7).
        """
        mails: list[PrivateMail] = []
        hands = {name: list(cards) for name, cards in state.deal.hands.items()}
        for event in events:
            data = dict(event.data)
            if event.kind == "suggestion_made":
                named = [data["suspect"], data["weapon"], data["room"]]
                held = [card for card in named if card in hands[data["addressee"]]]
                context = {
                    "suggestion": data,
                    "held": held,
                    "penalised": data["addressee"] not in state.out,  # D6
                }
                mails.append(PrivateMail("addressed", data["addressee"], context))
            elif event.kind == "card_shown" and event.visibility is Visibility.PLAYER:
                mails.append(PrivateMail("card_shown", event.player, {"shown": data}))
            elif event.kind == "gm_refutation":
                # The addressee owns the card the GM showed for him (C5, D6).
                mails.append(PrivateMail("gm_answered", data["addressee"], {"answer": data}))
            elif event.kind == "not_refuted":
                mails.append(PrivateMail("not_refuted", data["suggester"], {"answer": data}))
            elif event.kind == "suggestion_voided":  # by the GM (pbp void)
                for name in (data["suggester"], data["addressee"]):
                    mails.append(
                        PrivateMail("voided", name, {"what": "suggestion", "voided": data})
                    )
            elif event.kind == "accusation_made":
                mails.append(PrivateMail("gm_accusation", None, {"accusation": data}))
            elif event.kind == "game_over":
                for name in self.players(state):
                    mails.append(PrivateMail("game_over", name, {"result": data}))
        # A player the GM removed gets nothing but the end of the game.
        return [m for m in mails if m.player not in state.removed or m.template == "game_over"]
