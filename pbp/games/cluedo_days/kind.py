"""Cluedo by game days as a :class:`~pbp.games.core.kind.GameKind` (rules C1–C7, D1–D8).

Glue only: the rules live in :mod:`pbp.games.cluedo_days.engine`, the reading of
commands in :mod:`pbp.games.cluedo.parse`. Its views and its mails' contexts are the
``TypedDict`` classes of :mod:`pbp.games.cluedo_days.shapes` (and
:mod:`pbp.games.cluedo.shapes`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from pbp.games.cluedo.cards import CluedoMove, gm_default_card
from pbp.games.cluedo.kind import CluedoKind
from pbp.games.cluedo.shapes import (
    AccusationMade,
    GameOver,
    GameOverMail,
    GmAccusationMail,
    PlayerRemoved,
)
from pbp.games.cluedo_days import engine
from pbp.games.cluedo_days.config import CluedoDaysGame
from pbp.games.cluedo_days.shapes import (
    AddressedMail,
    Answered,
    CardShown,
    CardShownMail,
    CarriedMail,
    DayClosed,
    DueFields,
    DutiesView,
    GmAnsweredMail,
    GmRefutation,
    GmView,
    MailContext,
    NotRefutedMail,
    OutstandingView,
    PostView,
    StatusView,
    Sugg,
    SuggestionVoided,
    VoidedMail,
)
from pbp.games.cluedo_days.state import DaysState
from pbp.games.core.events import Event, IllegalMove, JsonMap, Step, Visibility
from pbp.games.core.kind import CLOSE_DAY, DeadlineCommand, Outstanding, Owed, PrivateMail
from pbp.games.core.schedule import next_close


class CluedoDays(CluedoKind[DaysState, CluedoDaysGame]):
    """The ``cluedo_days`` game kind (no ``own_period_posts``: a day carries over
    earlier GM answers, D6)."""

    kind = "cluedo_days"
    config_model = CluedoDaysGame
    addressed = True
    unfixable = CluedoKind.unfixable | {"no_suggestions_left", "not_addressee"}
    deadline_names: tuple[str, ...] = ("day",)
    deadline_commands: tuple[DeadlineCommand, ...] = (CLOSE_DAY,)

    def load(self, data: Mapping[str, Any]) -> DaysState:
        """Stored JSON → state."""
        return engine.load_state(data)

    def dump(self, state: DaysState) -> JsonMap:
        """State → JSON."""
        return engine.dump_state(state)

    def is_over(self, state: DaysState) -> bool:
        """True once somebody won or everybody is out (C7)."""
        return engine.is_over(state)

    def apply(
        self, state: DaysState, player: str, move: CluedoMove, at: datetime
    ) -> Step[DaysState]:
        """One move; raises :class:`~pbp.games.core.events.MoveError`."""
        return engine.apply(state, player, move, at)

    def reply_events(
        self,
        game: CluedoDaysGame,
        state: DaysState,
        events: Sequence[Event],
        player: str,
        deadline: datetime | None,
    ) -> list[dict[str, object]]:
        """The move's events, a suggestion the GM answered at once marked so
        (:func:`pbp.games.cluedo_days.views.reply_events`), and each new suggestion with
        the close its answer may come by, as its addressee's mail says (D6: ``due``
        None at the close at ``deadline``, else {day, at} with ``grace_hours``:
        :meth:`_due`)."""
        told = engine.reply_events(events)  # one item per event, in order
        for event, item in zip(events, told, strict=True):
            if event.kind == "suggestion_made":
                item.update(self._due(game, state, int(event.data["number"]), deadline))
        return told

    def remove(self, state: DaysState, player: str, at: datetime) -> Step[DaysState]:
        """The GM removes ``player``: his seat stays, answered by the GM (C5)."""
        return engine.remove(state, player, at)

    def shift_deadline(self, state: DaysState, delta: timedelta) -> DaysState:
        """The deadline is the stored one (the day's close), moved by the service; the
        state keeps by how much the GM moved it (``close_moved``), so that the grace
        counts from the close as scheduled (D6: a suggestion carried to the next close
        stays so after an extension or a pause; one due at the close as scheduled that
        an early close carries is told to its addressee, :meth:`notifications`)."""
        moved = state.close_moved + delta.total_seconds()
        return dataclasses.replace(state, close_moved=moved)

    def post_view(self, post: str, events: Sequence[Event], period: int | None) -> PostView:
        """What a post (or the welcome and help mails) shows of the game: the day's
        suggestions with their answers, penalties and allowances (D6, D7), the final
        post's last day: :func:`pbp.games.cluedo_days.views.post_view`."""
        return engine.post_view(post, events, period)

    def status(
        self, game: CluedoDaysGame, state: DaysState, player: str, deadline: datetime | None
    ) -> StatusView:
        """The STATUS view: :func:`pbp.games.cluedo_days.views.status`, each answer owed
        and each suggestion awaiting one with the close it is due at (D6: ``due`` {day,
        at} when the grace carries it past the close at ``deadline``, the next day's
        close, aware UTC)."""
        following = next_close(deadline, game.close_time, game.zone) if deadline else None
        return engine.status(state, player, deadline, following)

    def gm_view(self, state: DaysState, deadline: datetime | None = None) -> GmView:
        """The GM view (``pbp show``): :func:`pbp.games.cluedo_days.views.gm_view`, each
        suggestion waiting for an answer with the day at whose close the grace makes it
        due (``due_day``, D6; None: at the close at ``deadline``, or not known)."""
        return engine.gm_view(state, deadline)

    def setup(self, game: CluedoDaysGame) -> engine.DaysSetup:
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

    def start(self, game: CluedoDaysGame, seed: int, salt: bytes, at: datetime) -> Step[DaysState]:
        """Deal (C2) and open day 1 (D1); ``at`` plays no part (days follow the clock)."""
        return engine.start(self.setup(game), seed, salt)

    def mail_context(self, game: CluedoDaysGame) -> MailContext:
        """The daily close time (``day_closes``: ``"22:30"``, D1) and how the texts say
        the cards (``wording``: :meth:`pbp.games.cluedo.config.CluedoGame.wording`, rule
        P2)."""
        return {
            "day_closes": game.day_closes,
            "wording": game.wording(),
            "examples": game.examples(),
        }

    def void(self, state: DaysState, event: Event, at: datetime) -> Step[DaysState]:
        """An unanswered suggestion can be voided (nothing else is a move to undo)."""
        if event.kind != "suggestion_made":
            raise IllegalMove("void_kind", kind=event.kind, allowed=["suggestion_made"])
        return engine.void(state, int(event.data["number"]), at)

    def day(self, state: DaysState) -> int:
        """The current game day."""
        return int(state.day)

    def first_deadline(
        self, game: CluedoDaysGame, state: DaysState, start: datetime
    ) -> datetime | None:
        """Day 1 closes at the first ``day_closes`` after the start (D1)."""
        return next_close(start, game.close_time, game.zone)

    def next_deadline(
        self,
        game: CluedoDaysGame,
        state: DaysState,
        current: datetime | None,
        passed: datetime | None,
    ) -> datetime | None:
        """Moves leave the close alone; after a close the next regular one follows.

        A close made early by hand (``pbp close-day``) keeps the regular schedule:
        the next day closes at the first regular close after the one that was due.
        """
        if passed is None:
            return current
        return next_close(max(passed, current or passed), game.close_time, game.zone)

    def deadline_name(self, state: DaysState) -> str:
        """Every deadline closes a game day."""
        return "day"

    def on_deadline(self, state: DaysState, at: datetime) -> Step[DaysState]:
        """Day close (D6, D7)."""
        return engine.close_day(state, at)

    def posts(self, before: DaysState, step: Step[DaysState]) -> list[tuple[str, int]]:
        """The day summary when a day closed (D7)."""
        if any(event.kind == "day_closed" for event in step.events):
            return [("day", int(before.day))]
        return []

    def duties(self, state: DaysState, player: str, deadline: datetime | None) -> DutiesView | None:
        """Owed answers and unused suggestions of today and whether the player is out
        (no penalty for him, D6), or None when there is nothing to do: ``{"owed":
        [sugg...] (due at the close at ``deadline``), "later": [sugg + due_day...] (the
        grace carries them to the next close, D6), "suggestions_left": n, "out": bool}``."""
        if engine.is_over(state):
            return None
        due = engine.duties(state, player, deadline)
        out = player in state.out
        left = 0 if out else due["suggestions_left"]
        if not due["owed"] and not due["later"] and not left:
            return None
        return {"owed": due["owed"], "later": due["later"], "suggestions_left": left, "out": out}

    def outstanding(self, state: DaysState, deadline: datetime | None = None) -> Outstanding:
        """Each answer owed (D3), ``answer`` with the suggestion's number, by addressee in
        seat order; ``view["pending"]``: every suggestion waiting for an answer, as
        ``pbp show`` lists them (``sugg`` of the event catalogue with ``due_day``, D6:
        :func:`pbp.games.cluedo_days.views.pending`). Unused suggestions are no debt: a
        player may make none."""
        if engine.is_over(state):
            return Outstanding()
        owed = [
            Owed(player, "answer", (int(s["number"]),))
            for player in self.players(state)
            for s in engine.duties(state, player)["owed"]
        ]
        view: OutstandingView = {"pending": engine.pending(state, deadline)}
        return Outstanding(tuple(owed), view)

    def notifications(
        self,
        game: CluedoDaysGame,
        state: DaysState,
        events: Sequence[Event],
        deadline: datetime | None,
    ) -> list[PrivateMail]:
        """Who learns what by private mail after ``events`` (``deadline``: the close of
        the current day as stored, aware; None: not known).

        - the addressee of a new suggestion: what he holds of it, how to answer, and
          by which close (D3, D6: the grace carries one made late to the next day's,
          ``due`` {day, at} in his mail's context, with ``penalty_day``);
        - the suggester: the card shown to him (C4, only to him) or "no refutation";
        - an addressee the GM answered for at the close: what was shown, and the
          penalty (C5, D6);
        - the addressee of a suggestion due at the close as scheduled that the GM's
          early close carried to the next (``carried_early`` of ``day_closed``, D6): that
          it is due at the next day's close now (``deadline``), once;
        - the GM: every accusation (D5);
        - the suggester and the addressee: a suggestion the GM voided (pbp void);
        - a player the GM removed: that he is removed and the GM answers for his seat
          (C5), nothing else until the end of the game;
        - everybody: the end of the game (C7).
        """
        mails: list[PrivateMail] = []
        hands = {name: list(cards) for name, cards in state.deal.hands.items()}
        for event in events:
            # Each event's data as the engine logged it (pbp.games.cluedo_days.shapes).
            data = dict(event.data)
            if event.kind == "suggestion_made":
                sugg = cast(Sugg, data)
                named = [sugg["suspect"], sugg["weapon"], sugg["room"]]
                held = [card for card in named if card in hands[sugg["addressee"]]]
                context: AddressedMail = {
                    "suggestion": sugg,
                    "held": held,
                    # What the GM shows if he does not answer (C5); None: no refutation.
                    "gm_card": gm_default_card(hands[sugg["addressee"]], *named),
                    "penalised": sugg["addressee"] not in state.out,  # D6
                    **self._due(game, state, int(sugg["number"]), deadline),
                }
                mails.append(PrivateMail("addressed", sugg["addressee"], context))
            elif event.kind == "day_closed" and deadline is not None:  # D6: an early close
                closed = cast(DayClosed, data)
                for number in closed.get("carried_early", ()):
                    mails.append(self._carried_early(game, state, number, deadline, closed))
            elif event.kind == "card_shown" and event.visibility is Visibility.PLAYER:
                shown: CardShownMail = {"shown": cast(CardShown, data)}
                mails.append(PrivateMail("card_shown", event.player, shown))
            elif event.kind == "gm_refutation":
                # The addressee owns the card the GM showed for him (C5, D6).
                answered: GmAnsweredMail = {"answer": cast(GmRefutation, data)}
                mails.append(PrivateMail("gm_answered", data["addressee"], answered))
            elif event.kind == "not_refuted":
                nobody: NotRefutedMail = {"answer": cast(Answered, data)}
                mails.append(PrivateMail("not_refuted", data["suggester"], nobody))
            elif event.kind == "suggestion_voided":  # by the GM (pbp void)
                voided: VoidedMail = {"what": "suggestion", "voided": cast(SuggestionVoided, data)}
                for name in (data["suggester"], data["addressee"]):
                    mails.append(PrivateMail("voided", name, voided))
            elif event.kind == "accusation_made":
                accusation: GmAccusationMail = {"accusation": cast(AccusationMade, data)}
                mails.append(PrivateMail("gm_accusation", None, accusation))
            elif event.kind == "player_removed":  # by the GM (pbp remove): C5 from now on
                mails.append(self.removal_mail(cast(PlayerRemoved, data), events))
            elif event.kind == "game_over":
                over = cast(GameOver, data)
                for name in self.players(state):
                    won = over["winner"] == name  # C6: his accusation was right
                    result: GameOverMail = {"result": over, "won": won}
                    mails.append(PrivateMail("game_over", name, result))
        return self.told_when_removed(mails, state.removed)

    def _carried_early(
        self,
        game: CluedoDaysGame,
        state: DaysState,
        number: int,
        deadline: datetime,
        closed: DayClosed,
    ) -> PrivateMail:
        """D6: the mail ``carried`` to the addressee of suggestion ``number``, told it is
        due at the close of day ``closed["day"]``, which the GM made early: ``state`` is
        the next day's (at whose close, ``deadline``, it is due now). Context as for
        ``addressed`` (``suggestion``, ``gm_card``, ``penalised``, ``due``,
        ``grace_hours``, ``penalty_day``) and ``closed_day``."""
        s = state.suggestions[number - 1]
        named = (s.suspect, s.weapon, s.room)
        context: CarriedMail = {
            "suggestion": s.public(),
            "gm_card": gm_default_card(state.deal.hands[s.addressee], *named),
            "penalised": s.addressee not in state.out,  # D6
            "closed_day": int(closed["day"]),
            "due": {"day": state.day, "at": deadline},
            "grace_hours": state.rules.answer_grace_hours,
            "penalty_day": state.day + 1,
        }
        return PrivateMail("carried", s.addressee, context)

    def _due(
        self, game: CluedoDaysGame, state: DaysState, number: int, deadline: datetime | None
    ) -> DueFields:
        """D6, D7: when suggestion ``number`` is due, for its addressee's mail: ``{"due":
        None, "closes": {"day": the current day, "at": ``deadline`` (aware; None: not
        known)}, "penalty_day": the next day}`` at the close of the current day, or, when
        the grace carries it, ``{"due": {"day": the next day, "at": its close (aware
        UTC)}, "grace_hours": h, "penalty_day": the day after that close}``."""
        suggestion = state.suggestions[number - 1]
        if (
            deadline is None
            or suggestion.answer is not None
            or not engine.carried_past(state, suggestion, deadline)
        ):
            return {
                "due": None,
                "closes": {"day": state.day, "at": deadline},
                "penalty_day": state.day + 1,
            }
        return {
            "due": {"day": state.day + 1, "at": next_close(deadline, game.close_time, game.zone)},
            "grace_hours": state.rules.answer_grace_hours,
            "penalty_day": state.day + 2,
        }


#: The kind, registered by its entry point (group ``pbp.games``, pyproject.toml).
KIND = CluedoDays()
