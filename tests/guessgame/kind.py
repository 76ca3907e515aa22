"""The guessing game as a :class:`~pbp.games.core.kind.GameKind`: glue only."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from guessgame import engine
from guessgame.config import GuessGame
from guessgame.engine import GuessState
from guessgame.parse import parse_guess
from pbp.games.core.events import Event, IllegalMove, Step, event_dict
from pbp.games.core.kind import DeadlineCommand, Outstanding, ParsedCommand, PrivateMail


class Guess:
    """The ``guess`` kind: no deadlines, one period, texts in English only."""

    kind = "guess"
    config_model = GuessGame
    templates = Path(__file__).parent / "templates"
    period_post = "day"
    deadline_names: tuple[str, ...] = ()
    deadline_commands: tuple[DeadlineCommand, ...] = ()
    extra_posts: tuple[str, ...] = ()
    own_period_posts: tuple[str, ...] = ()

    def start(self, game: Any, seed: int, salt: bytes, at: datetime) -> Step:
        """G1: the secret from the seed."""
        assert isinstance(game, GuessGame)
        return engine.start(game.id, tuple(game.player_names()), game.high, seed)

    def mail_context(self, game: Any) -> dict[str, Any]:
        """No timing facts: the game has no deadlines."""
        return {}

    def load(self, data: Mapping[str, Any]) -> GuessState:
        """Stored JSON → state."""
        return engine.load_state(data)

    def dump(self, state: Any) -> dict[str, Any]:
        """State → JSON."""
        return engine.dump_state(state)

    def is_over(self, state: Any) -> bool:
        """G3: over once somebody guessed right."""
        return state.winner is not None

    def day(self, state: Any) -> int:
        """One period for the whole game."""
        return 1

    def players(self, state: Any) -> list[str]:
        """Every seat, in configured order."""
        return list(state.players)

    def parse(
        self, text: str, state: Any, aliases: Mapping[str, str] | None = None
    ) -> list[ParsedCommand]:
        """``GUESS N`` and ``STATUS`` lines (no names: ``aliases`` unused)."""
        return parse_guess(text)

    def apply(self, state: Any, player: str, move: Any, at: datetime) -> Step:
        """G2–G4."""
        return engine.apply(state, player, move, at)

    def remove(self, state: Any, player: str, at: datetime) -> Step:
        """Not offered."""
        raise IllegalMove("gm_unsupported", lever="remove")

    def void(self, state: Any, event: Event, at: datetime) -> Step:
        """Nothing can be voided."""
        raise IllegalMove("void_kind", kind=event.kind, allowed=[])

    def extra_post_number(self, which: str, number: int | None, state: Any) -> int:
        """No extra posts. :raises LookupError: always."""
        raise LookupError(f"no {which} posts")

    def first_deadline(self, game: Any, state: Any, start: datetime) -> datetime | None:
        """None: the game waits for the right guess."""
        return None

    def next_deadline(
        self, game: Any, state: Any, current: datetime | None, passed: datetime | None
    ) -> datetime | None:
        """None, always."""
        return None

    def shift_deadline(self, state: Any, delta: timedelta) -> Any:
        """No deadline to shift."""
        return state

    def deadline_name(self, state: Any) -> str:
        """There is none; the name no command passes."""
        return "none"

    def on_deadline(self, state: Any, at: datetime) -> Step:
        """Never called: there are no deadlines."""
        return Step(state, [])

    def posts(self, before: Any, step: Step) -> list[tuple[str, int]]:
        """No period posts (the final post is the service's, on ``game_over``)."""
        return []

    def with_history(
        self, state: Any, events: Callable[[], Sequence[Event]], move: Any = None
    ) -> Any:
        """The state holds everything."""
        return state

    def post_view(self, post: str, events: Sequence[Event], period: int | None) -> dict[str, Any]:
        """The opening post shows the game started, the final post the game's end (the
        data of those events); the others lay out their events."""
        wanted = {"opening": "game_started", "final": "game_over"}.get(post)
        found = [e.data for e in events if e.kind == wanted]
        if wanted is not None and not found:
            raise LookupError(f"no {wanted} event")
        return dict(found[-1]) if found else {}

    def gm_facts(
        self, post: str, period: int | None, private: Sequence[Mapping[str, Any]]
    ) -> list[Mapping[str, Any]]:
        """Every GM-only fact."""
        return list(private)

    def reply_events(
        self,
        game: Any,
        state: Any,
        events: Sequence[Event],
        player: str,
        deadline: datetime | None,
    ) -> list[dict[str, Any]]:
        """The move's events as they are."""
        return [event_dict(e) for e in events]

    def status(
        self, game: GuessGame, state: Any, player: str, deadline: datetime | None
    ) -> dict[str, Any]:
        """STATUS: the range and one's own guesses."""
        return engine.status(state, player)

    def gm_view(self, state: Any, deadline: datetime | None = None) -> dict[str, Any]:
        """``pbp show``: the secret and every guess."""
        return {
            "secret": state.secret,
            "guesses": [{"player": p, "number": n} for p, n, _at in state.guesses],
            "winner": state.winner,
        }

    def duties(self, state: Any, player: str, deadline: datetime | None) -> dict[str, Any] | None:
        """No reminders."""
        return None

    def outstanding(self, state: Any, deadline: datetime | None = None) -> Outstanding:
        """Nobody owes anything: a guess is never due."""
        return Outstanding()

    def notifications(
        self, game: Any, state: Any, events: Sequence[Event], deadline: datetime | None
    ) -> list[PrivateMail]:
        """Everybody learns the end of the game (G3)."""
        mails: list[PrivateMail] = []
        for event in events:
            if event.kind == "game_over":
                mails.extend(
                    PrivateMail("game_over", p, {"result": dict(event.data)}) for p in state.players
                )
        return mails


#: Registered by the tests that play it: ``pbp.games.core.registry.register(GUESS)``.
GUESS = Guess()
