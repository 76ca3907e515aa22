"""Valid players' moves for the benchmarks, found by trying candidates on the pure engines.

:class:`Bot` keeps each game's engine state (loaded from the store after the start)
and, asked for the next move of a game, tries candidate command lines (a suggestion
with random cards, an answer with each card of the hand, a vote for a random player,
UNVOTE, ...) through the game kind's own ``parse`` and ``apply`` until one is
accepted; that state becomes the game's. The service later applies the same lines in
the same order to the same state, so they are accepted again (engines are pure).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

from pbp.config.model import Config, Game
from pbp.games.cluedo.config import CluedoGame
from pbp.games.core.events import MoveError
from pbp.games.core.registry import KINDS
from pbp.store import Store


@dataclass(frozen=True)
class Move:
    """One player's mail: who, to which personal address, the command line."""

    game_id: str
    player: str
    sender: str
    to: str
    text: str
    message_id: str

    def message(self, date: datetime) -> bytes:
        """The mail as a phone client would send it (RFC 5322, UTF-8 text/plain)."""
        mail = EmailMessage()
        mail["From"] = self.sender
        mail["To"] = self.to
        mail["Subject"] = "ход"
        mail["Date"] = format_datetime(date)
        mail["Message-ID"] = self.message_id
        mail.set_content(self.text + "\n")
        return bytes(mail)


class Bot:
    """Next valid moves of the started games of ``config`` (see the module)."""

    def __init__(self, config: Config, store: Store, seed: int = 7) -> None:
        self.random = random.Random(seed)
        self.games: dict[str, Game] = {g.id: g for g in config.games}
        self.states: dict[str, Any] = {}
        self.address = config.mail.address
        self.tokens: dict[tuple[str, str], str] = {}
        # Hands never change and nobody leaves a game without a day close or an
        # accusation (the bot makes neither): the seats are read once.
        self.seats: dict[str, list[dict[str, Any]]] = {}
        for game in config.games:
            row = store.game(game.id)
            if row is None:
                raise RuntimeError(f"game {game.id} has not started")
            self.states[game.id] = state = KINDS[game.kind].load(row.state)
            # The kinds' GM views share ``players`` (each kind's own shape).
            view: Mapping[str, Any] = KINDS[game.kind].gm_view(state)
            self.seats[game.id] = [p for p in view["players"] if _playing(p)]
            for player in game.players:
                token = store.player_token(game.id, player.name)
                assert token is not None
                self.tokens[(game.id, player.name)] = token

    def personal(self, game_id: str, player: str) -> str:
        """The player's personal address ``gm+TOKEN@…`` (plus addressing)."""
        local, _, domain = self.address.partition("@")
        return f"{local}+{self.tokens[(game_id, player)]}@{domain}"

    def move(self, game_id: str, at: datetime) -> Move | None:
        """The next accepted move of ``game_id`` (its state advanced), None when none is found."""
        game = self.games[game_id]
        kind = KINDS[game.kind]
        state = self.states[game_id]
        if kind.is_over(state):
            return None
        players = self.seats[game_id]
        order = sorted(
            players,
            key=lambda p: (kind.duties(state, p["name"], None) is None, self.random.random()),
        )
        if game.kind == "cluedo_rounds":
            order = [p for p in order if kind.duties(state, p["name"], None) is not None]
        for seat in order[:4]:
            name = seat["name"]
            for text in self._candidates(game, kind.duties(state, name, None), seat, players):
                commands = kind.parse(text, state)
                if len(commands) != 1 or commands[0].error is not None or commands[0].private:
                    continue
                try:
                    step = kind.apply(state, name, commands[0].move, at)
                except MoveError:
                    continue
                self.states[game_id] = step.state
                email = next(p.email for p in game.players if p.name == name)
                return Move(
                    game_id,
                    name,
                    email,
                    self.personal(game_id, name),
                    text,
                    make_msgid(domain="example.test"),
                )
        return None

    def _candidates(
        self,
        game: Game,
        duties: Mapping[str, Any] | None,
        seat: dict[str, Any],
        seats: list[dict[str, Any]],
    ) -> list[str]:
        others = [p["name"] for p in seats if p["name"] != seat["name"]]
        pick = self.random.choice
        if game.kind == "maniac":
            votes = [f"VOTE {pick(others)}" for _ in range(4)]
            return [*votes, "UNVOTE", *[f"VOTE {name}" for name in others]]
        assert isinstance(game, CluedoGame)
        cards = game.to_cards()
        hand = list(seat.get("hand", []))
        owed = list((duties or {}).get("owed", []))
        if game.kind == "cluedo_days":
            answers = [
                line
                for sugg in owed
                for line in [
                    *[f"REFUTE {sugg['number']} {card}" for card in hand],
                    f"NO REFUTATION {sugg['number']}",
                ]
            ]
            suggestions = [
                f"SUGGEST {pick(cards.suspects)}, {pick(cards.weapons)}, {pick(cards.rooms)} "
                f"TO {pick(others)}"
                for _ in range(6)
            ]
            return [*answers, *suggestions]
        if duties is not None and duties.get("duty") == "turn":
            rooms = list(duties.get("allowed_rooms") or cards.rooms)
            return [
                f"SUGGEST {pick(cards.suspects)}, {pick(cards.weapons)}, {pick(rooms)}"
                for _ in range(10)
            ]
        return [*[f"REFUTE {card}" for card in hand], "NO REFUTATION"]


def _playing(seat: dict[str, Any]) -> bool:
    return (
        not seat.get("out", False) and seat.get("alive", True) and not seat.get("in_prison", False)
    )
