"""The shapes of Cluedo by game days (rules C1–C7, D1–D8 of RULES.md): its events'
data, views and mails' contexts, as ``TypedDict`` classes that mypy checks and the
templates name in their headers; those both variants share are in
:mod:`pbp.games.cluedo.shapes`.

Each is a plain dict at run time. ``sugg`` (:class:`Sugg`) stands for the suggestion
fields of the event catalogue (:mod:`pbp.games.cluedo_days.engine`); ``day`` counts
from 1; times in events and views are ISO 8601 strings in UTC, those named ``at`` in a
mail's ``due`` or ``closes`` aware datetimes. Who builds each: the engine (the events),
:mod:`pbp.games.cluedo_days.views` (the views) and
:class:`pbp.games.cluedo_days.kind.CluedoDays` (the mails' contexts).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, NotRequired, TypedDict

from pbp.games.cluedo.shapes import (
    AccusationWrong,
    Examples,
    FinalView,
    GameStarted,
    HelpView,
    NoView,
    SolutionJson,
    StartView,
    SuggestionSeen,
)
from pbp.games.cluedo.wording import Wording

# --- the events' data (the catalogue is in pbp.games.cluedo_days.engine) ---


class Sugg(TypedDict):
    """PUBLIC ``suggestion_made`` (D2), and the ``sugg`` fields of every event about a
    suggestion: ``number`` (game-wide from 1), ``ordinal`` (the suggester's count of
    the day, D2), ``at`` its arrival (ISO UTC, D8)."""

    number: int
    day: int
    ordinal: int
    suggester: str
    addressee: str
    suspect: str
    weapon: str
    room: str
    at: str


class DaysGameStarted(GameStarted):
    """PUBLIC ``game_started`` (D1, D2, D6): the day (1) and the rules;
    ``answer_grace_hours`` is absent from games started before it was logged."""

    day: int
    suggestions_per_day: int
    max_per_addressee_per_day: int
    answer_grace_hours: NotRequired[float]


class Answered(Sugg):
    """PUBLIC ``refuted`` / ``not_refuted`` (D3, C4: never the card): ``by_gm`` (the GM
    answered, C5), ``answered_at`` (ISO UTC)."""

    by_gm: bool
    answered_at: str


class CardShown(Sugg):
    """PLAYER ``card_shown`` to the suggester alone (C4)."""

    card: str
    by_gm: bool


class GmRefutation(Sugg):
    """GM ``gm_refutation`` (C5): what the GM showed for the addressee (None: no
    refutation); ``penalised``: the addressee has one suggestion fewer for it (D6)."""

    card: str | None
    penalised: bool


class SuggestionVoided(Sugg):
    """PUBLIC ``suggestion_voided``: the GM cancelled it (``pbp void``) at ``voided_at``."""

    voided_at: str


class ClosedSugg(Sugg):
    """A suggestion in ``day_closed``: its answer (None: none yet) and ``by_gm``."""

    answer: str | None
    by_gm: bool


class DayClosed(TypedDict):
    """PUBLIC ``day_closed`` (D6, D7): the suggestions the GM answered, the penalties
    and allowances of the next day (players still in), who is ``out``, ``closed_at``
    (ISO UTC), those ``carried`` to the next close (D6) and of them those an early
    close carried (``carried_early``; both absent from older events), who accused
    wrongly that day, and the day's suggestions (never a card)."""

    day: int
    closed_at: str
    gm_answered: list[int]
    penalties: dict[str, int]
    allowances: dict[str, int]
    out: list[str]
    suggestions: list[ClosedSugg]
    carried: NotRequired[list[int]]
    carried_early: NotRequired[list[int]]
    accused_wrongly: list[str]


class AccusationJson(TypedDict):
    """One accusation as kept (:class:`pbp.games.cluedo_days.state.Accusation`; ``at``
    ISO UTC)."""

    player: str
    day: int
    at: str
    suspect: str
    weapon: str
    room: str
    correct: bool


# --- the views: STATUS, reminders, the GM ---


class Due(TypedDict):
    """D6: the close a suggestion is due at when the grace carries it: the ``day`` and
    its close ``at`` (aware; None: not known)."""

    day: int
    at: datetime | None


class SuggDue(Sugg):
    """An unanswered suggestion and the close it is due at (``due`` None: the current
    day's; D6)."""

    due: Due | None


class ShownToMe(TypedDict):
    """A card shown to the player (C4): by whom, and whether the GM showed it (C5)."""

    number: int
    card: str
    by: str
    by_gm: bool


class ShownByMe(TypedDict):
    """A card the player showed (or the GM for him, C5), to whom."""

    number: int
    card: str
    to: str
    by_gm: bool


class StatusView(TypedDict):
    """A player's ``STATUS`` (:func:`pbp.games.cluedo_days.views.status`;
    ``parts/status.j2``): ``owed`` (what he must answer), ``awaiting`` (his unanswered
    suggestions), ``per_addressee_left`` ({player: n}, D2), ``removed`` (by the GM,
    C5; ``out`` too)."""

    game: str
    day: int
    over: bool
    winner: str | None
    out: bool
    removed: bool
    character: str | None
    hand: list[str]
    shown_to_me: list[ShownToMe]
    shown_by_me: list[ShownByMe]
    owed: list[SuggDue]
    awaiting: list[SuggDue]
    suggestions_left: int
    per_addressee_left: dict[str, int]


class LaterSugg(Sugg):
    """A suggestion the grace carries to the next close (D6): ``due_day``, the day at
    whose close it is due."""

    due_day: int


class DaysDuties(TypedDict):
    """What is open for a player (:func:`pbp.games.cluedo_days.views.duties`): the
    answers due at the close (``owed``), those due later (D6), suggestions left (D2)."""

    day: int
    owed: list[Sugg]
    later: list[LaterSugg]
    suggestions_left: int


class DutiesView(TypedDict):
    """What a reminder says (``mail/reminder.j2``;
    :meth:`pbp.games.cluedo_days.kind.CluedoDays.duties`): as :class:`DaysDuties`,
    without the day, and whether he is ``out`` (no penalty then, D6)."""

    owed: list[Sugg]
    later: list[LaterSugg]
    suggestions_left: int
    out: bool


class Pending(Sugg):
    """A suggestion waiting for an answer as the GM sees it
    (:func:`pbp.games.cluedo_days.views.pending`): ``due_day`` the next day when the
    grace carries it (D6), else None."""

    due_day: int | None


class GmPlayer(TypedDict):
    """One seat in ``pbp show``: his hand, ``allowance`` (D2, D6), what is left today,
    his ``penalty`` (D6)."""

    name: str
    character: str | None
    hand: list[str]
    out: bool
    allowance: int
    suggestions_left: int
    penalty: int


class GmView(TypedDict):
    """Everything the GM sees (``pbp show``, ``mail/gm_show.j2``, ``mail/gm_sheet.j2``;
    :func:`pbp.games.cluedo_days.views.gm_view`): the ``commitment`` (hex) of the
    ``canonical`` deal text."""

    game: str
    day: int
    over: bool
    winner: str | None
    seed: int
    solution: SolutionJson
    players: list[GmPlayer]
    pending: list[Pending]
    accusations: list[AccusationJson]
    commitment: str
    canonical: str


class OutstandingView(TypedDict):
    """What is open, in the GM's ``STATUS`` (``parts/gm_status.j2``,
    :attr:`pbp.games.core.kind.Outstanding.view`): every suggestion waiting for an
    answer (D3)."""

    pending: list[Pending]


# --- the public posts ---


class DaysStartView(StartView):
    """The ``opening`` post and the ``welcome`` mail
    (:func:`pbp.games.cluedo.views.start_view` of a :class:`DaysGameStarted`):
    ``answer_grace_hours`` 0 for a game logged before its ``game_started`` told it."""

    day: int
    suggestions_per_day: int
    max_per_addressee_per_day: int
    answer_grace_hours: float


class DaysSuggestionSeen(SuggestionSeen):
    """A suggestion of the public events with its answer
    (:func:`pbp.games.cluedo.views.suggestions`), the days variant's fields too (its
    ``day`` always)."""

    ordinal: int
    addressee: str


class DaySugg(DaysSuggestionSeen):
    """A suggestion of the day post: ``due_day`` d + 1 when the grace carried it (D6)."""

    due_day: int | None


#: ``[player, n]``: a penalty or an allowance of the day post.
PlayerCount = list[str | int]


class DayView(TypedDict):
    """The ``day`` post (``posts/day.j2``; :func:`pbp.games.cluedo_days.views.day_view`):
    ``day`` (None: no day yet), ``next``, whether ``closed`` and ``over``, the day's
    suggestions (``today``), those of ``earlier`` days answered this day, those the
    GM answered at the close (``by_gm``), ``penalties`` and ``allowances`` of the next
    day, the day's ``wrong`` accusations and who is ``out``."""

    day: int | None
    next: int | None
    closed: bool
    over: bool
    today: list[DaySugg]
    earlier: list[DaysSuggestionSeen]
    by_gm: list[DaysSuggestionSeen]
    penalties: list[PlayerCount]
    wrong: list[AccusationWrong]
    out: list[str]
    allowances: list[PlayerCount]


class EndedSugg(DaysSuggestionSeen):
    """A suggestion of the final post: ``ended`` True when the game ended before its
    answer (C7); those of the last day also carry ``due_day`` (:class:`DaySugg`)."""

    ended: bool


class DaysFinalView(FinalView):
    """The ``final`` post (``posts/final.j2``; :func:`pbp.games.cluedo_days.views.final_view`):
    the end of the game and its last ``day``, which never closed (D7): its suggestions
    (``last``), the ``earlier`` ones answered that day or still waiting, its ``wrong``
    accusations."""

    day: int
    last: list[EndedSugg]
    earlier: list[EndedSugg]
    wrong: list[AccusationWrong]


#: What :func:`pbp.games.cluedo_days.views.post_view` gives: the opening and the welcome
#: :class:`DaysStartView`, ``help`` :class:`~pbp.games.cluedo.shapes.HelpView`, ``day``
#: :class:`DayView`, ``final`` :class:`DaysFinalView`, any other post ``{}``.
PostView = DaysStartView | HelpView | DayView | DaysFinalView | NoView


# --- the contexts of the kind's mails (pbp.games.cluedo_days.kind.CluedoDays) ---


class MailContext(TypedDict):
    """What every mail and post of the game gets
    (:meth:`~pbp.games.cluedo_days.kind.CluedoDays.mail_context`): the daily close
    (``"22:30"``, D1), how its texts say the cards (rule P2), the help's examples."""

    day_closes: str
    wording: Wording
    examples: Examples


class Closes(TypedDict):
    """The close of the current ``day`` at ``at`` (aware; None: not known)."""

    day: int
    at: datetime | None


class DueFields(TypedDict):
    """D6, D7: when a suggestion is due, for its addressee
    (:meth:`~pbp.games.cluedo_days.kind.CluedoDays._due`): ``due`` None and the
    ``closes`` of the current day, or the ``due`` close the grace carries it to and
    ``grace_hours``; ``penalty_day``: the day he has a suggestion fewer if it is left
    unanswered."""

    due: Due | None
    closes: NotRequired[Closes]
    grace_hours: NotRequired[float]
    penalty_day: int


class AddressedMail(DueFields):
    """``mail/addressed.j2`` to the addressee (D3, C4): the named cards he ``held``,
    the card the GM shows for him if he does not answer (``gm_card``, C5; None: none),
    whether he is ``penalised`` for a silence (D6)."""

    suggestion: Sugg
    held: list[str]
    gm_card: str | None
    penalised: bool


class CarriedMail(TypedDict):
    """``mail/carried.j2`` (D6): the GM's early close of ``closed_day`` carried the
    suggestion to the next close."""

    suggestion: Sugg
    gm_card: str | None
    penalised: bool
    closed_day: int
    due: Due
    grace_hours: float
    penalty_day: int


class CardShownMail(TypedDict):
    """``cluedo/mail/card_shown.j2`` to the suggester (C4)."""

    shown: CardShown


class GmAnsweredMail(TypedDict):
    """``mail/gm_answered.j2`` to the addressee the GM answered for (C5, D6)."""

    answer: GmRefutation


class NotRefutedMail(TypedDict):
    """``mail/not_refuted.j2`` to the suggester (D3)."""

    answer: Answered


class VoidedMail(TypedDict):
    """``mail/voided.j2`` to the suggester and the addressee (``pbp void``)."""

    what: Literal["suggestion"]
    voided: SuggestionVoided
