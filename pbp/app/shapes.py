"""The shapes of what the application hands the mail templates of its own: a player's
reply (``mail/reply.j2`` of each kind) and the GM's results (``common/mail/gm_result.j2``,
``gm_confirm.j2``), as ``TypedDict`` classes that mypy checks and the templates name
in their headers.

Each is a plain dict at run time, read by the templates with ``.key``; an optional key
is absent, never None, where a template asks ``is defined``. Views a kind computes
(a ``status``, an event's dict) are the kind's :data:`~pbp.games.core.kind.View`, typed
in the kind's own shapes (Maniac's: :mod:`pbp.games.maniac.shapes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, NotRequired, Required, TypedDict

from pbp.games.core.kind import View

if TYPE_CHECKING:
    from pbp.app.gmview import GameStatus


# --- a player's mail ---


class MoveResult(TypedDict, total=False):
    """One command line of a player's mail as its reply tells it
    (:meth:`pbp.app.playermoves.Moves.apply_command`; a mail with no command gets one
    with ``line`` ``""`` and its ``error``)."""

    #: The command as written (``""``: the mail had none).
    line: Required[str]
    #: The command as understood: ``{"type": class name lower-cased, **its fields}``
    #: (:func:`pbp.app.playermoves.move_dict`, ``common/understood.j2``).
    move: dict[str, object]
    #: The rendered refusal; ``code`` its code (:data:`pbp.app.playermoves.UNFIXABLE`).
    error: str
    code: str
    #: A private command's class name lower-cased (``"status"``, ``"help"``) and the
    #: player's STATUS view it shows (:meth:`pbp.games.core.kind.GameKind.status`).
    private: str
    status: View
    #: The move's events he may see (:meth:`pbp.games.core.kind.GameKind.reply_events`).
    events: Sequence[View]
    #: The ``move`` post in the first of the game's post formats (empty: never public).
    snippet: str


class ReplyResults(TypedDict):
    """A mail's results as the ``reply`` template gets them
    (:func:`pbp.app.playermoves.reply_results`): ``results`` in the mail's order,
    ``done`` (without an error) and ``not_done`` (with one), ``fix``: some refused line
    is one the player could mend."""

    results: list[MoveResult]
    done: list[MoveResult]
    not_done: list[MoveResult]
    fix: bool


class ReplyContext(ReplyResults, total=False):
    """What ``mail/reply.j2`` gets besides the mail's own keys
    (:meth:`pbp.app.mailer.Mailer.context`)."""

    player: Required[str]
    #: The GM entered the moves (``pbp act``).
    by_gm: bool
    #: Command lines that look quoted, never applied (``common/parts/looks_quoted.j2``).
    looks_quoted: list[str]
    #: Lines of the mail that are not commands (at most ten, cut), and how many more.
    ignored: list[str]
    ignored_more: int
    #: The mail carries a forwarded mail, never executed.
    forwarded: bool


# --- the GM's levers ---


class KeptLine(TypedDict):
    """One kept mail a KEPT lists (:meth:`pbp.app.gm.kept.KeptDesk.listing`)."""

    id: int
    arrived: datetime  #: aware
    zone: str
    sender: str | None
    game: str | None
    reason: str  #: its code
    held: bool


class Retried(TypedDict):
    """One kept mail a RETRY tried again: its ``outcome`` and whether it is still kept."""

    id: int
    outcome: str
    kept: bool


class ClockData(TypedDict, total=False):
    """The data of the GM's ``gm_pause``, ``gm_resume`` and ``gm_extend`` events
    (:class:`pbp.app.gm.levers.GmDesk`), which their results carry too: the ``period``
    and the ``deadline_name`` it ran to, the deadline after it (``deadline_at``, ISO UTC;
    None: none), the time a pause keeps (``remaining_seconds``; None: no deadline), how
    long the game was paused (``paused_seconds``), the hours an extension gives, and
    ``via``/``note``."""

    period: Required[int]
    deadline_name: Required[str]
    deadline_at: Required[str | None]
    remaining_seconds: int | None
    paused_seconds: int
    hours: float
    via: Required[str]
    note: Required[str | None]


class LeverDone(TypedDict, total=False):
    """What a lever returns for the ``gm_result`` template (``done``): its ``lever``
    and the keys that lever gives (:class:`pbp.app.gm.levers.GmDesk`, each lever's
    docstring; a ``gm_pause``/``gm_resume``/``gm_extend`` result also carries its
    event's data)."""

    #: The lever's name: ``"act"``, ``"pause"``, ``"close_day"``, … .
    lever: Required[str]
    #: act, remove, substitute, readdress: the seat.
    player: str
    #: act: each command line's result; retry: each mail's.
    results: list[MoveResult] | list[Retried]
    #: remove: who played the seat (None: its own player); substitute: the newcomer.
    name: str | None
    #: remove, a deadline passed: the game is over.
    over: bool
    #: substitute, readdress: the new address, the old one, the held mail dropped.
    email: str
    old_email: str
    dropped: list[int]
    #: pause, resume, extend (their event's data), a deadline passed.
    period: int
    deadline_name: str
    deadline_at: str | None  #: ISO UTC
    remaining_seconds: int | None
    paused_seconds: int
    hours: float
    via: str
    note: str | None
    #: resume: the held mail it applies.
    held: int
    #: a deadline passed: which (``"day"``, ``"night"``).
    deadline: str
    #: void: the event cancelled, its kind, whether it was announced.
    event: int
    voided_kind: str
    announced: bool
    #: status: ``all`` asked; the games (None: another STATUS line's); ``sent`` in a
    #: mail of its own.
    all: bool
    games: list[GameStatus] | None
    sent: bool
    #: kept, help asked before in the same mail: "answered above".
    repeat: bool
    #: export: the format and the story (mailed apart, then dropped).
    format: str
    text: str
    #: new address: the confirmations it ended.
    ended: int
    #: kept: the rows shown, how many more wait, how many are closed.
    rows: list[KeptLine]
    more: int
    closed: int
    #: dismiss: the rows closed.
    ids: list[int]


class Voidable(TypedDict):
    """A logged move VOID would cancel (:meth:`pbp.app.gm.levers.GmDesk.voidable`): its
    ``event`` number, ``kind``, the ``player`` who made it (None: none named) and ``day``."""

    event: int
    kind: str
    player: str | None
    day: int | None


class GmResult(TypedDict):
    """One line of the GM's mail and what became of it (``gm_result``, ``gm_confirm``):
    ``error`` (the rendered refusal) or ``done`` (what the lever returned)."""

    line: str  #: ``""``: the mail had no command
    lever: str | None
    error: NotRequired[str]
    done: NotRequired[LeverDone]
