"""Cluedo by rounds as a :class:`~pbp.games.core.kind.GameKind` (rules C1–C7, R1–R7; seed 000).

Glue only: the rules live in :mod:`pbp.games.cluedo_rounds.engine`, the reading of
commands in :mod:`pbp.games.cluedo.parse` (no addressee in this variant). The game's
period is the turn: events are logged with the turn number, and a public post
is mailed to the GM for every completed turn. Its views and its mails' contexts are the
``TypedDict`` classes of :mod:`pbp.games.cluedo_rounds.shapes` (and
:mod:`pbp.games.cluedo.shapes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
from pbp.games.cluedo_rounds import engine, views
from pbp.games.cluedo_rounds.config import CluedoRoundsGame
from pbp.games.cluedo_rounds.shapes import (
    Asked,
    AskedMail,
    CardShown,
    CardShownMail,
    DutiesView,
    GmAnsweredMail,
    GmRefutation,
    GmView,
    MailContext,
    NotRefutedMail,
    PostView,
    StatusView,
    SuggestionFacts,
    TurnSkipped,
    TurnSkippedMail,
    TurnStarted,
    YourTurnMail,
)
from pbp.games.cluedo_rounds.state import RoundsState
from pbp.games.core.events import Event, JsonMap, Step, Visibility
from pbp.games.core.kind import Outstanding, Owed, PrivateMail

#: Events after which the turn they belong to is complete (one public post each).
TURN_ENDS = ("round_ended", "turn_skipped", "accusation_wrong", "game_over")


class CluedoRounds(CluedoKind[RoundsState, CluedoRoundsGame]):
    """The ``cluedo_rounds`` game kind. No GM command passes its deadlines, and the GM
    voids nothing: a suggestion at once starts its answering round (R2), and an answer
    ends it; he acts for a player instead (``pbp act``)."""

    kind = "cluedo_rounds"
    config_model = CluedoRoundsGame
    addressed = False
    unfixable = CluedoKind.unfixable | {"not_your_turn", "one_move_per_turn", "not_asked"}
    period_post = "turn"
    own_period_posts: tuple[str, ...] = ("turn",)
    deadline_names: tuple[str, ...] = ("turn",)

    def load(self, data: Mapping[str, Any]) -> RoundsState:
        """Stored JSON → state."""
        return engine.load_state(data)

    def dump(self, state: RoundsState) -> JsonMap:
        """State → JSON."""
        return engine.dump_state(state)

    def is_over(self, state: RoundsState) -> bool:
        """True once somebody won or everybody is out (C7)."""
        return engine.is_over(state)

    def apply(
        self, state: RoundsState, player: str, move: CluedoMove, at: datetime
    ) -> Step[RoundsState]:
        """One move; raises :class:`~pbp.games.core.events.MoveError`."""
        return engine.apply(state, player, move, at)

    def remove(self, state: RoundsState, player: str, at: datetime) -> Step[RoundsState]:
        """The GM removes ``player``: his seat stays, answered by the GM (C5)."""
        return engine.remove(state, player, at)

    def post_view(self, post: str, events: Sequence[Event], period: int | None) -> PostView:
        """What a post (or the welcome and help mails) shows of the game: a turn's
        suggestions with their answers round the table, whose turn follows:
        :func:`pbp.games.cluedo_rounds.views.post_view`."""
        return views.post_view(post, events, period)

    def reply_events(
        self,
        game: object,
        state: object,
        events: Sequence[Event],
        player: str,
        deadline: datetime | None,
    ) -> list[dict[str, object]]:
        """The move's events with his own answer and his own next turn marked:
        :func:`pbp.games.cluedo_rounds.views.reply_events`."""
        return views.reply_events(events, player)

    def status(
        self, game: CluedoRoundsGame, state: RoundsState, player: str, deadline: datetime | None
    ) -> StatusView:
        """The STATUS view (its deadlines are in the state or named by none)."""
        return engine.status(state, player)

    def gm_view(self, state: RoundsState, deadline: datetime | None = None) -> GmView:
        """The GM view (``pbp show``)."""
        return engine.gm_view(state)

    def setup(self, game: CluedoRoundsGame) -> engine.RoundsSetup:
        """The engine setup from a ``games.yaml`` game (C1's drop already applied)."""
        rules = engine.RoundsRules(
            auto_answer=game.auto_answer,
            turn_hours=game.turn_hours,
            answer_hours=game.answer_hours,
            publish_wrong_accusations=game.rules.publish_wrong_accusations,
        )
        return engine.RoundsSetup(
            game_id=game.id,
            players=tuple((p.name, p.character) for p in game.players),
            cards=game.to_cards(),
            rules=rules,
            deal=game.to_deal(),
        )

    def start(
        self, game: CluedoRoundsGame, seed: int, salt: bytes, at: datetime
    ) -> Step[RoundsState]:
        """Deal (C2) and start the first player's turn (R1) at ``at``."""
        return engine.start(self.setup(game), seed, salt, at)

    def mail_context(self, game: CluedoRoundsGame) -> MailContext:
        """The deadlines of a turn and of an answer, in hours (R7), and how the texts
        say the cards (``wording``: :meth:`pbp.games.cluedo.config.CluedoGame.wording`,
        rule P2)."""
        return {
            "turn_hours": game.turn_hours,
            "answer_hours": game.answer_hours,
            "wording": game.wording(),
            "examples": game.examples(),
        }

    def day(self, state: RoundsState) -> int:
        """The current turn number (the period of this kind)."""
        return int(state.turn)

    def first_deadline(
        self, game: CluedoRoundsGame, state: RoundsState, start: datetime
    ) -> datetime | None:
        """The first turn's deadline (R7)."""
        return engine.deadline(state)

    def next_deadline(
        self,
        game: CluedoRoundsGame,
        state: RoundsState,
        current: datetime | None,
        passed: datetime | None,
    ) -> datetime | None:
        """The current turn's or answer's deadline, whatever happened (R7)."""
        return engine.deadline(state)

    def with_history(
        self,
        state: RoundsState,
        events: Callable[[], Sequence[Event]],
        move: CluedoMove | None = None,
    ) -> RoundsState:
        """The suggestions and skipped turns before the latest one, from the event
        log, for the views (STATUS lists every card shown, ``pbp show`` every
        suggestion) and for an answer naming an older suggestion (R2)."""
        if move is None or engine.needs_history(state, move):
            return engine.with_history(state, events())
        return state

    def shift_deadline(self, state: RoundsState, delta: timedelta) -> RoundsState:
        """The turn's or answer's timeout ``delta`` later (R7 under a pause or extension)."""
        return engine.shift_deadline(state, delta)

    def deadline_name(self, state: RoundsState) -> str:
        """Deadlines end turns and answers: no GM command passes them."""
        return "turn"

    def on_deadline(self, state: RoundsState, at: datetime) -> Step[RoundsState]:
        """A missed turn is skipped; a missed answer is given by the GM (R7, C5)."""
        return engine.on_deadline(state, at)

    def posts(self, before: RoundsState, step: Step[RoundsState]) -> list[tuple[str, int]]:
        """One ``turn`` post per completed turn (the turn it completed)."""
        turns = [
            int(event.data["turn"])
            for event in step.events
            if event.kind in TURN_ENDS
            and event.visibility is Visibility.PUBLIC
            and "turn" in event.data
        ]
        return [("turn", turn) for turn in dict.fromkeys(turns)]

    def duties(
        self, state: RoundsState, player: str, deadline: datetime | None
    ) -> DutiesView | None:
        """His turn or his answer, when one is due (R7 reminders; the deadline is the
        state's own)."""
        return engine.duties(state, player)

    def outstanding(self, state: RoundsState, deadline: datetime | None = None) -> Outstanding:
        """Whose move it is (R7): ``turn`` with the turn's number, or, while his
        suggestion is answered, ``answer`` with its number for the player asked (R2)."""
        owed: list[Owed] = []
        for player in self.players(state):
            duties = engine.duties(state, player)
            if duties is None:
                continue
            number = duties["turn"] if duties["duty"] == "turn" else duties["number"]
            owed.append(Owed(player, duties["duty"], (number,)))
        return Outstanding(tuple(owed))

    def notifications(
        self,
        game: CluedoRoundsGame,
        state: RoundsState,
        events: Sequence[Event],
        deadline: datetime | None,
    ) -> list[PrivateMail]:
        """Who learns what by private mail after ``events``.

        - the player whose turn starts: his allowed rooms (R5) and deadline (R7);
        - the player whose turn was skipped at its deadline: when his next turn comes
          and what he may do until then (R7);
        - the player asked to answer: what he holds of the suggestion (R2, C4);
        - the suggester: the card shown to him (only to him) or that nobody refuted;
        - a player the GM answered for: what was shown (C5);
        - a player the GM removed: that he is removed and the GM answers for his seat
          (C5), nothing else until the end of the game;
        - the GM: every accusation; everybody: the end of the game (C7).
        """
        mails: list[PrivateMail] = []
        hands = {name: list(cards) for name, cards in state.deal.hands.items()}
        for event in events:
            # Each event's data as the engine logged it (pbp.games.cluedo_rounds.shapes).
            data = dict(event.data)
            if event.kind == "turn_started" and not engine.is_over(state):
                # The room he may not name (R5): his previous suggestion's, if any.
                previous = dict(state.last_rooms).get(data["player"])
                turn: YourTurnMail = {"turn": cast(TurnStarted, data), "previous_room": previous}
                mails.append(PrivateMail("your_turn", data["player"], turn))
            elif event.kind == "asked":
                suggestion = _suggestion(state, int(data["number"]))
                named = [suggestion["suspect"], suggestion["weapon"], suggestion["room"]]
                held = [card for card in named if card in hands[data["player"]]]
                # What the GM shows if he does not answer (C5); None: no refutation.
                gm_card = gm_default_card(hands[data["player"]], *named)
                asked: AskedMail = {
                    "asked": cast(Asked, data),
                    "suggestion": suggestion,
                    "held": held,
                    "gm_card": gm_card,
                }
                mails.append(PrivateMail("asked", data["player"], asked))
            elif event.kind == "card_shown" and event.visibility is Visibility.PLAYER:
                shown: CardShownMail = {"shown": cast(CardShown, data)}
                mails.append(PrivateMail("card_shown", event.player, shown))
            elif event.kind == "round_ended" and data["refuted_by"] is None:
                nobody: NotRefutedMail = {"suggestion": _suggestion(state, int(data["number"]))}
                mails.append(PrivateMail("not_refuted", data["suggester"], nobody))
            elif event.kind == "turn_skipped":
                # R7: his turn lapsed; the post says so publicly, he alone is told here
                # when his next turn comes (the players before it, R1, R4).
                before = engine.turns_before(state, data["player"])
                skipped: TurnSkippedMail = {"skipped": cast(TurnSkipped, data), "before": before}
                mails.append(PrivateMail("turn_skipped", data["player"], skipped))
            elif event.kind == "gm_refutation":
                answered: GmAnsweredMail = {"answer": cast(GmRefutation, data)}
                mails.append(PrivateMail("gm_answered", data["player"], answered))
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


def _suggestion(state: RoundsState, number: int) -> SuggestionFacts:
    """The public facts of suggestion ``number`` (never its answers: they may hold a
    card shown to someone else)."""
    found = engine.find_suggestion(state, number)
    assert found is not None, number  # the events name the latest suggestion
    return {
        "number": found.number,
        "turn": found.turn,
        "suggester": found.suggester,
        "suspect": found.suspect,
        "weapon": found.weapon,
        "room": found.room,
    }


#: The kind, registered by its entry point (group ``pbp.games``, pyproject.toml).
KIND = CluedoRounds()
