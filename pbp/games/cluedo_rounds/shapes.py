"""The shapes of Cluedo by rounds (rules C1–C7, R1–R7 of RULES.md): its events' data,
views and mails' contexts, as ``TypedDict`` classes that mypy checks and the templates
name in their headers; those both variants share are in :mod:`pbp.games.cluedo.shapes`.

Each is a plain dict at run time. ``sugg`` (:class:`Sugg`) stands for the suggestion
fields of the event catalogue (:mod:`pbp.games.cluedo_rounds.engine`); ``turn`` and
``number`` count from 1; every time is an ISO 8601 string in UTC
(``"2026-12-01T17:05:00+00:00"``; a deadline None: the game is over). Who builds each:
the engine (the events), :mod:`pbp.games.cluedo_rounds.views` (STATUS, reminders, the
GM's view, the posts) and
:class:`pbp.games.cluedo_rounds.kind.CluedoRounds` (the mails' contexts).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pbp.games.cluedo.shapes import (
    AccusationWrong,
    Examples,
    FinalView,
    GameOver,
    GameStarted,
    HelpView,
    NoView,
    SolutionJson,
    StartView,
)
from pbp.games.cluedo.wording import Wording

# --- the events' data (the catalogue is in pbp.games.cluedo_rounds.engine) ---


class SuggestionFacts(TypedDict):
    """The public facts of a suggestion (R1): ``number`` game-wide, the ``turn`` it was
    made in, who made it, its three cards."""

    number: int
    turn: int
    suggester: str
    suspect: str
    weapon: str
    room: str


class Sugg(SuggestionFacts):
    """PUBLIC ``suggestion_made`` (R1), and the ``sugg`` fields of every event about a
    suggestion: :class:`SuggestionFacts` and ``at``, its arrival (D8)."""

    at: str


class RoundsGameStarted(GameStarted):
    """PUBLIC ``game_started`` (R1, R6, R7, C6): the ``turn_order`` and the rules."""

    turn_order: list[str]
    auto_answer: str
    turn_hours: float
    answer_hours: float
    publish_wrong_accusations: bool


class TurnStarted(TypedDict):
    """PUBLIC ``turn_started`` (R1, R5, R7): whose ``turn``, the rooms he may name, when
    it started and its ``deadline``."""

    turn: int
    player: str
    allowed_rooms: list[str]
    started_at: str
    deadline: str | None


class Asked(TypedDict):
    """PUBLIC ``asked`` (R2): ``player`` must answer suggestion ``number`` now, by
    ``deadline`` (R7)."""

    number: int
    turn: int
    suggester: str
    player: str
    asked_at: str
    deadline: str | None


class AnswerFlags(TypedDict):
    """Who answered (``by``) and how: ``auto`` by the engine (R6), ``by_gm`` by the GM
    (R7, C5), ``removed`` (only when true: the GM answered for a removed player, C5)."""

    by: str
    auto: bool
    by_gm: bool
    removed: NotRequired[bool]


class Answered(Sugg, AnswerFlags):
    """PUBLIC ``refuted`` / ``not_refuted`` (R2, C4: never the card) at ``answered_at``."""

    answered_at: str


class CardShown(Sugg, AnswerFlags):
    """PLAYER ``card_shown`` to the suggester alone (C4)."""

    card: str


class RoundEnded(TypedDict):
    """PUBLIC ``round_ended`` (R2, R3): who showed a card (None: nobody could)."""

    number: int
    turn: int
    suggester: str
    refuted_by: str | None
    ended_at: str


class TurnSkipped(TypedDict):
    """PUBLIC ``turn_skipped`` (R7): ``player`` let his turn's ``deadline`` pass."""

    turn: int
    player: str
    deadline: str
    skipped_at: str


class GmRefutation(Sugg):
    """GM ``gm_refutation`` (R7, C5): what the GM showed for ``player`` (None: no
    refutation); ``removed`` only when he answered for a removed player."""

    player: str
    card: str | None
    removed: NotRequired[bool]


# --- what the state keeps, as the GM sees it ---


class RulesJson(TypedDict):
    """The rules (:class:`pbp.games.cluedo_rounds.state.RoundsRules`)."""

    auto_answer: str
    turn_hours: float
    answer_hours: float
    publish_wrong_accusations: bool


class AnswerJson(TypedDict):
    """One answer (:class:`pbp.games.cluedo_rounds.state.Answer`): the ``card`` shown
    (None: no refutation), ``at`` ISO UTC."""

    player: str
    card: str | None
    auto: bool
    by_gm: bool
    at: str


class SuggestionJson(Sugg):
    """A suggestion (:func:`pbp.games.cluedo_rounds.state.suggestion_as_json`): its
    answers in answering order, who is ``asked`` since ``asked_at``, when it
    ``ended_at``."""

    answers: list[AnswerJson]
    asked: str | None
    asked_at: str | None
    ended_at: str | None


class GmSuggestion(SuggestionJson):
    """A suggestion in ``pbp show``: also who showed a card (``refuted_by``)."""

    refuted_by: str | None


class AccusationJson(TypedDict):
    """One accusation (:class:`pbp.games.cluedo_rounds.state.Accusation`)."""

    player: str
    turn: int
    at: str
    suspect: str
    weapon: str
    room: str
    correct: bool


class SkipJson(TypedDict):
    """A turn skipped at its deadline (:class:`pbp.games.cluedo_rounds.state.Skip`)."""

    turn: int
    player: str
    at: str


# --- the views: STATUS, reminders, the GM ---


class AskedView(Sugg):
    """The suggestion a player must answer now: the named cards he ``held``, the
    ``deadline`` (R7)."""

    held: list[str]
    deadline: str | None


class ShownToMe(TypedDict):
    """A card shown to the player (C4), by whom, how (R6, C5)."""

    number: int
    card: str | None
    by: str
    auto: bool
    by_gm: bool


class ShownByMe(TypedDict):
    """A card the player showed (or the GM for him), to whom."""

    number: int
    card: str | None
    to: str
    auto: bool
    by_gm: bool


class StatusView(TypedDict):
    """A player's ``STATUS`` (:func:`pbp.games.cluedo_rounds.views.status`;
    ``parts/status.j2``): ``my_turn`` (he must suggest or accuse now) and its
    ``turn_deadline``, the ``allowed_rooms`` of his next suggestion (R5), what he is
    ``asked`` (R2), ``removed`` (by the GM, C5; ``out`` too)."""

    game: str
    turn: int
    turn_player: str | None
    over: bool
    winner: str | None
    out: bool
    removed: bool
    character: str | None
    hand: list[str]
    my_turn: bool
    turn_deadline: str | None
    allowed_rooms: list[str]
    asked: AskedView | None
    shown_to_me: list[ShownToMe]
    shown_by_me: list[ShownByMe]


class TurnDuty(TypedDict):
    """A reminder of his turn (R7): its ``deadline``, the rooms he may name (R5)."""

    duty: Literal["turn"]
    turn: int
    deadline: str | None
    allowed_rooms: list[str]


class AnswerDuty(TypedDict):
    """A reminder of his answer (R2, R7): the named cards he ``held``, what the GM
    shows for him if he does not answer (``gm_card``, C5; None: no refutation)."""

    duty: Literal["answer"]
    number: int
    suggestion: Sugg
    held: list[str]
    gm_card: str | None
    deadline: str | None


#: What a reminder says (``mail/reminder.j2``;
#: :func:`pbp.games.cluedo_rounds.views.duties`).
DutiesView = TurnDuty | AnswerDuty


class GmPlayer(TypedDict):
    """One seat in ``pbp show``."""

    name: str
    character: str | None
    hand: list[str]
    out: bool
    allowed_rooms: list[str]


class Awaiting(TypedDict):
    """Who must answer which suggestion now (R2)."""

    player: str
    number: int


class GmView(TypedDict):
    """Everything the GM sees (``pbp show``, ``mail/gm_show.j2``, ``mail/gm_sheet.j2``;
    :func:`pbp.games.cluedo_rounds.views.gm_view`): ``suggestions`` and ``skipped`` as
    far as the state holds them (its history given), the ``commitment`` (hex) of the
    ``canonical`` deal text."""

    game: str
    turn: int
    turn_player: str | None
    over: bool
    winner: str | None
    seed: int
    rules: RulesJson
    solution: SolutionJson
    players: list[GmPlayer]
    awaiting: Awaiting | None
    deadline: str | None
    suggestions: list[GmSuggestion]
    accusations: list[AccusationJson]
    skipped: list[SkipJson]
    commitment: str
    canonical: str


# --- the public posts ---


class RoundsStartView(StartView):
    """The ``welcome`` mail (:func:`pbp.games.cluedo.views.start_view` of a
    :class:`RoundsGameStarted`)."""

    turn_order: list[str]
    auto_answer: str
    turn_hours: float
    answer_hours: float
    publish_wrong_accusations: bool


class OpeningView(RoundsStartView):
    """The ``opening`` post (``posts/opening.j2``;
    :func:`pbp.games.cluedo_rounds.views.opening_view`): also who plays ``first``
    (None before the first turn started)."""

    first: str | None


class TurnAnswer(TypedDict):
    """One answer in a turn post: the refuted / not_refuted data, ``refuted``."""

    answer: Answered
    refuted: bool


class TurnSuggestion(TypedDict):
    """A suggestion in a turn post: its data ``s``, the answers round the table, how the
    round ``end``-ed (``"running"``: still asked) and who answers ``now``."""

    s: Sugg
    answers: list[TurnAnswer]
    end: Literal["shown", "nobody", "running"]
    now: str | None


class TurnView(TypedDict):
    """The ``turn`` post (``posts/turn.j2``; :func:`pbp.games.cluedo_rounds.views.turn_view`):
    whose ``turn`` (``player``), its suggestions, a ``skipped`` turn, ``wrong``
    accusations, whose turn is ``next``, the ``game_over`` data when it ended, and
    ``running``: nothing happened in it yet."""

    turn: int
    player: str | None
    suggestions: list[TurnSuggestion]
    skipped: list[TurnSkipped]
    wrong: list[AccusationWrong]
    next: str | None
    over: GameOver | None
    running: bool


#: The data of a move in the ``move`` snippet.
MoveData = Sugg | Answered | AccusationWrong | GameOver


class Move(TypedDict):
    """One move in the ``move`` snippet: the event's ``kind`` and its data ``s``
    (``suggestion_made``, ``refuted`` / ``not_refuted``, ``accusation_wrong``,
    ``game_over``)."""

    kind: str
    s: MoveData


class MoveView(TypedDict):
    """The ``move`` snippet (``posts/move.j2``; :func:`pbp.games.cluedo_rounds.views.move_view`):
    what the player did himself, in order."""

    moves: list[Move]


#: What :func:`pbp.games.cluedo_rounds.views.post_view` gives: ``opening``
#: :class:`OpeningView`, ``welcome`` :class:`RoundsStartView`, ``help``
#: :class:`~pbp.games.cluedo.shapes.HelpView`, ``turn`` and ``day`` :class:`TurnView`,
#: ``final`` :class:`~pbp.games.cluedo.shapes.FinalView`, ``move`` :class:`MoveView`,
#: any other post ``{}``.
PostView = OpeningView | RoundsStartView | HelpView | TurnView | FinalView | MoveView | NoView


# --- the contexts of the kind's mails (pbp.games.cluedo_rounds.kind.CluedoRounds) ---


class MailContext(TypedDict):
    """What every mail and post of the game gets
    (:meth:`~pbp.games.cluedo_rounds.kind.CluedoRounds.mail_context`): the hours of a
    turn and of an answer (R7), how its texts say the cards (rule P2), the help's
    examples."""

    turn_hours: float
    answer_hours: float
    wording: Wording
    examples: Examples


class YourTurnMail(TypedDict):
    """``mail/your_turn.j2`` (R1, R5, R7): the room of his previous suggestion, which he
    may not name (None: none yet)."""

    turn: TurnStarted
    previous_room: str | None


class AskedMail(TypedDict):
    """``mail/asked.j2`` (R2, C4): the named cards he ``held``, what the GM shows for
    him if he does not answer (``gm_card``, C5)."""

    asked: Asked
    suggestion: SuggestionFacts
    held: list[str]
    gm_card: str | None


class CardShownMail(TypedDict):
    """``cluedo/mail/card_shown.j2`` to the suggester (C4)."""

    shown: CardShown


class NotRefutedMail(TypedDict):
    """``mail/not_refuted.j2`` to the suggester (R2, R3)."""

    suggestion: SuggestionFacts


class TurnSkippedMail(TypedDict):
    """``mail/turn_skipped.j2`` (R7): the players whose turns come ``before`` his next."""

    skipped: TurnSkipped
    before: list[str]


class GmAnsweredMail(TypedDict):
    """``mail/gm_answered.j2`` to the player the GM answered for (R7, C5)."""

    answer: GmRefutation
