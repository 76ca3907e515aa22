"""The shapes both Cluedo variants share (rules C1–C7 of RULES.md): the cards, the deal,
the events of :mod:`pbp.games.cluedo.engine`, the views of :mod:`pbp.games.cluedo.views`
and the mails of :class:`pbp.games.cluedo.kind.CluedoKind`, as ``TypedDict`` classes
that mypy checks and the templates name in their headers.

Each is a plain dict at run time (stored as JSON in events, passed to the templates,
which read it with ``.key``). Names are seats (``str``), cards as written in
``games.yaml``; times are ISO 8601 strings in UTC (``"2026-12-01T17:05:00+00:00"``).
A variant's period is its game day (``day``) or its turn (``turn``): a field that
carries one carries either (:class:`Period`). Each variant's own shapes are in
:mod:`pbp.games.cluedo_days.shapes` and :mod:`pbp.games.cluedo_rounds.shapes`, which
build on these (and hold each variant's mail context, which names
:class:`~pbp.games.cluedo.wording.Wording`). Imports nothing of Cluedo, so every module
of it may use them.
"""

from __future__ import annotations

from typing import Literal, TypedDict

# --- the cards and the deal (C1, C2) ---


class SolutionJson(TypedDict):
    """The three cards of a murder: the solution (C2), or an accusation's (C6)."""

    suspect: str
    weapon: str
    room: str


class CardsJson(TypedDict):
    """The cards in play (C1), each deck in its configured order
    (:func:`pbp.games.cluedo.cards.cards_as_json`)."""

    suspects: list[str]
    weapons: list[str]
    rooms: list[str]


class DealJson(TypedDict):
    """The deal as the fairness commitment writes it (DESIGN.md;
    :func:`pbp.games.cluedo.cards.deal_as_json`): ``hands`` ``{player: [card...]}`` in
    dealt order."""

    solution: SolutionJson
    hands: dict[str, list[str]]


class Seat(TypedDict):
    """A seat as ``game_started`` lists it: the player and his ``character`` (None: none)."""

    name: str
    character: str | None


class Examples(TypedDict):
    """The command help's examples (``parts/commands.j2``): a suspect, a weapon and a
    room of the game, its last ``player`` and its ``first``
    (:func:`pbp.games.cluedo.views.commands_of`,
    :meth:`pbp.games.cluedo.config.CluedoGame.examples`)."""

    suspect: str
    weapon: str
    room: str
    player: str
    first: str


class Period(TypedDict, total=False):
    """The period an event belongs to: the game ``day`` (by days) or the ``turn`` (by
    rounds); each event of a variant carries its own."""

    day: int
    turn: int


# --- the events both variants log (pbp.games.cluedo.engine) ---


class Dealt(DealJson):
    """GM ``deal`` (C2): the deal, the ``seed`` it came from and the ``canonical``
    fairness text (DESIGN.md)."""

    seed: int
    canonical: str


class HandDealt(TypedDict):
    """PLAYER ``hand_dealt`` (C2): his ``character`` (None: none) and his ``hand``."""

    character: str | None
    hand: list[str]


class AccusationMade(Period):
    """GM ``accusation_made`` (C6): who accused, in which period, the three cards,
    whether ``correct``, ``at`` (ISO UTC)."""

    player: str
    suspect: str
    weapon: str
    room: str
    correct: bool
    at: str


class AccusationResult(SolutionJson):
    """PLAYER ``accusation_result`` (C6) to the accuser: his cards and whether ``correct``."""

    correct: bool


class AccusationWrong(Period):
    """PUBLIC ``accusation_wrong`` (C6): who is out, in which period; the three cards
    only when the game publishes wrong accusations, else None each."""

    player: str
    suspect: str | None
    weapon: str | None
    room: str | None


class PlayerRemoved(Period):
    """PUBLIC ``player_removed`` (C5): the GM removed ``player`` in that period."""

    player: str


class GameOver(DealJson):
    """PUBLIC ``game_over`` (C7): the ``winner`` (None: nobody, every player out), the
    solution and every hand, the ``canonical`` fairness text (DESIGN.md)."""

    winner: str | None
    canonical: str


class GameStarted(TypedDict):
    """What every PUBLIC ``game_started`` holds (C1, C2): the seats, the cards in play
    and the ``commitment`` (hex SHA-256 of the canonical text, DESIGN.md); each
    variant's adds its rules (``DaysGameStarted``, ``RoundsGameStarted``)."""

    game: str
    players: list[Seat]
    cards: CardsJson
    commitment: str


# --- the views both variants show (pbp.games.cluedo.views) ---


class StartView(GameStarted):
    """What the opening post and the welcome mail show of the game dealt
    (:func:`pbp.games.cluedo.views.start_view`): the ``game_started`` data (the
    variant's rules too: its ``DaysStartView``, ``RoundsStartView``), the help's
    ``commands`` (None: no game dealt) and whether any player plays a ``character``."""

    commands: Examples | None
    characters: bool


class FinalView(GameOver):
    """The ``final`` post (C7; :func:`pbp.games.cluedo.views.final_view`): the
    ``game_over`` data and the ``commitment`` the opening published (None: no
    ``game_started``)."""

    commitment: str | None


class HelpView(TypedDict):
    """``post_view("help")``: the help's examples from the game dealt (None: none)."""

    commands: Examples | None


class NoView(TypedDict):
    """A post that needs no view: its template lays out its ``events``."""


#: How a suggestion was answered: a card shown (never which, C4) or none.
Answer = Literal["refuted", "not_refuted"]


class SuggestionSeen(Period):
    """A suggestion as the public events tell it, joined with its answer
    (:func:`pbp.games.cluedo.views.suggestions`): the ``sugg`` fields both variants
    have, ``answer`` (None while unanswered) and ``by_gm`` (the GM gave it, C5); the
    days variant's have more (``DaysSuggestionSeen``)."""

    number: int
    suggester: str
    suspect: str
    weapon: str
    room: str
    at: str
    answer: Answer | None
    by_gm: bool


# --- the mails both variants send (pbp.games.cluedo.kind) ---


class RemovedMail(TypedDict):
    """``mail/removed.j2`` (C5) to the player the GM removed: ``over``: the removal left
    nobody to play (C7)."""

    removed: PlayerRemoved
    over: bool


class GameOverMail(TypedDict):
    """``mail/game_over.j2`` (C7) to every player: ``won``: the winner is he."""

    result: GameOver
    won: bool


class GmAccusationMail(TypedDict):
    """``mail/gm_accusation.j2`` to the GM (C6)."""

    accusation: AccusationMade
