"""What every game engine shares: events with visibility, move errors, the engine protocol.

Engines are pure (functional core): no I/O, no clock, no global randomness. The
shell (``pbp.app.service``) passes in the time of each move (timezone-aware, UTC) and
the stored seed; engines return new state plus a list of :class:`Event`.

Every event carries its visibility, so that a private fact (a hand, a shown card,
a role) cannot reach a public post by accident: public templates receive only
events whose ``visibility`` is :attr:`Visibility.PUBLIC`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: A JSON value, as :mod:`json` writes it: what pbp stores (a kind's snapshot,
#: :meth:`pbp.games.core.kind.GameKind.dump`) and passes on unread. The containers are
#: the read-only ``Sequence`` and ``Mapping``, so that a ``list[str]`` or a
#: ``dict[str, int]`` is one too. Where code reads stored JSON by its known shape (an
#: engine reading its snapshot or an event's ``data``), the value is typed ``Any``:
#: the shape is the writer's, documented where it is written.
Json: TypeAlias = "str | int | float | bool | Sequence[Json] | Mapping[str, Json] | None"
#: A JSON object.
JsonMap: TypeAlias = Mapping[str, Json]

#: The seat name of the GM's own token in the store (:mod:`pbp.store` keeps it beside
#: the players' seats, and the GM's records name it as their player), so no player may
#: be called so (:func:`pbp.games.core.playernames.seat_name_problem`). A word of the
#: seam's vocabulary, as events are: the store and the games both speak it.
GM_SEAT = "@gm"


class Visibility(enum.StrEnum):
    """Who may see an event."""

    PUBLIC = "public"  #: everybody: goes into forum posts
    PLAYER = "player"  #: exactly one player (``Event.player``) and the GM
    GM = "gm"  #: the GM only


@dataclass(frozen=True)
class Event:
    """One thing that happened in a game.

    ``data`` holds only JSON values (str, int, bool, None, lists, dicts).
    Example: ``Event("refuted", Visibility.PUBLIC, {"number": 7, "by": "Веталь"})``
    or ``Event("card_shown", Visibility.PLAYER, {"number": 7, "card": "нож"},
    player="Неташка")``.
    """

    kind: str
    visibility: Visibility
    data: Mapping[str, Any] = field(default_factory=dict)
    player: str | None = None

    def __post_init__(self) -> None:
        if (self.visibility is Visibility.PLAYER) != (self.player is not None):
            raise ValueError("a PLAYER event names exactly one player; others name none")

    def visible_to(self, player: str | None) -> bool:
        """True when ``player`` may see this event (``None`` = the public)."""
        if self.visibility is Visibility.PUBLIC:
            return True
        return player is not None and self.visibility is Visibility.PLAYER and self.player == player


def event_dict(event: Event) -> dict[str, Json]:
    """An event as one flat dict for templates: kind, visibility, player and its data.

    >>> event_dict(Event("refuted", Visibility.PUBLIC, {"number": 7}))
    {'kind': 'refuted', 'visibility': 'public', 'player': None, 'number': 7}
    """
    return {
        "kind": event.kind,
        "visibility": event.visibility.value,
        "player": event.player,
        **dict(event.data),
    }


def flat_dict(record: DataclassInstance) -> dict[str, Json]:
    """``dataclasses.asdict`` for a dataclass whose fields hold plain values (str, int,
    bool, None): a shallow copy, many times faster (``asdict`` deep-copies every value),
    for the state snapshots written after every move.

    >>> @dataclass(frozen=True)
    ... class Vote:
    ...     voter: str
    ...     day: int
    >>> flat_dict(Vote("Вася", 2))
    {'voter': 'Вася', 'day': 2}
    """
    return {name: getattr(record, name) for name in record.__dataclass_fields__}


def utc_iso(at: datetime) -> str:
    """An aware time as ISO 8601 text in UTC, as engine states and events store it.

    >>> from datetime import timezone, timedelta
    >>> utc_iso(datetime(2026, 12, 1, 22, 30, tzinfo=timezone(timedelta(hours=3))))
    '2026-12-01T19:30:00+00:00'

    :raises ValueError: ``at`` is naive (rule D8: a move's time is its arrival, aware).
    """
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"rule D8: times must be timezone-aware, got {at!r}")
    return at.astimezone(UTC).isoformat()


class SetupError(ValueError):
    """A game that cannot be set up as given: a rule of its setup broken (the players,
    the cards, the roles, a rule's number, the fairness salt), found by its engine at
    the start. ``pbp check`` finds the same in ``games.yaml`` first, each at its line;
    this is the engines' own guard (a ``ValueError``, as a bad value is)."""


class Refusal(Exception):
    """Something pbp refuses, answered in words: ``code`` names the text
    ``templates/<locale>/errors/<code>.txt``, rendered with ``params`` (JSON values), so
    engines and levers stay free of language. ``str()`` is a short English description
    for logs. Two kinds: a player's move (:class:`MoveError`) and a GM's lever
    (:class:`LeverRefused`)."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params: dict[str, Any] = params  # JSON, read back by its shape (the text's)
        detail = ", ".join(f"{k}={v!r}" for k, v in params.items())
        super().__init__(f"{code}: {detail}" if detail else code)


class MoveError(Refusal):
    """A move that is refused: :class:`InvalidMove`, :class:`AmbiguousMove` or
    :class:`IllegalMove`."""


class LeverRefused(Refusal):
    """A GM lever that does not fit the game's state (:mod:`pbp.app.gm`), or a GM command
    that is none."""


class InvalidMove(MoveError):
    """Syntax: the text is not a move (unknown keyword, missing part, unknown name)."""


class AmbiguousMove(MoveError):
    """A name matches several cards or players equally well."""


class IllegalMove(MoveError):
    """A well-formed move that the rules forbid in this state."""


#: The state a :class:`Step` holds (covariant: the shell takes any kind's as a
#: ``Step[object]``).
StateCo = TypeVar("StateCo", covariant=True)


@dataclass(frozen=True)
class Step(Generic[StateCo]):
    """Result of an engine call: the new state and what happened, typed by the state
    (``Step[ManiacState]``).

    ``state`` is engine-specific and opaque to the shell except through
    :meth:`pbp.games.core.kind.GameKind.dump` / :meth:`pbp.games.core.kind.GameKind.load`.
    """

    state: StateCo
    events: Sequence[Event]


#: An engine's state (:class:`Engine`).
EngineState = TypeVar("EngineState")


class Engine(Protocol[EngineState]):
    """The shape of a game engine module object (one per game kind), typed by its state
    (``Engine[ManiacState]``)."""

    kind: str

    def dump_state(self, state: EngineState) -> JsonMap:
        """State → JSON-able dict (stored after every transaction)."""

    def load_state(self, data: Mapping[str, Any]) -> EngineState:
        """Inverse of :meth:`dump_state` (``data`` read by its shape)."""

    def is_over(self, state: EngineState) -> bool:
        """True once the game has ended (won, or no one left)."""

    def status(self, state: EngineState, player: str) -> Mapping[str, object]:
        """The private STATUS view of one player (the kind's ``TypedDict`` of JSON
        values)."""
