"""What both Cluedo kinds read from ``games.yaml``: the decks (rule C1) and an optional
fixed deal (C2)."""

from __future__ import annotations

from pydantic import Field

from pbp.core.gameconfig import ConfigModel, GameBase, Name
from pbp.games.cluedo.cards import CATEGORIES, CardCountError, Cards, Deal, cards_for_players
from pbp.yamlmarks import Found, YamlPath, did_you_mean, show_path


class Decks(ConfigModel):
    """The three decks in order; rule C1 drops from the bottom of each."""

    suspects: list[Name] = Field(min_length=1)
    weapons: list[Name] = Field(min_length=1)
    rooms: list[Name] = Field(min_length=1)


class FixedDeal(ConfigModel):
    """A deal given in the config: ``solution`` (suspect, weapon, room) and a hand per player."""

    solution: tuple[str, str, str]
    hands: dict[str, list[str]]


class CluedoGame(GameBase):
    """What both Cluedo kinds share: the decks (rule C1) and an optional fixed deal (C2)."""

    cards: Decks
    deal: FixedDeal | None = None

    def to_cards(self) -> Cards:
        """The cards in play after rule C1's drop.

        :raises CardCountError: the decks cannot come to 3M+3 (never after :func:`load_config`).
        """
        d = self.cards
        return cards_for_players(d.suspects, d.weapons, d.rooms, len(self.players))

    def to_deal(self) -> Deal | None:
        """The fixed deal from the config (rule C2 checked by :func:`load_config`), or None."""
        if self.deal is None:
            return None
        hands = {name: tuple(self.deal.hands[name]) for name in self.player_names()}
        return Deal(solution=self.deal.solution, hands=hands)

    def _cluedo_problems(self) -> Found:
        found = self._player_problems(3, "C1")
        if len(self.players) >= 3:
            try:
                cards = self.to_cards()
            except CardCountError as exc:
                found.append((("cards",), str(exc)))
            else:
                if self.deal is not None:
                    found += _deal_problems(self.deal, cards, self.player_names())
        return found


def _deal_problems(deal: FixedDeal, cards: Cards, players: list[str]) -> Found:
    """Rule C2 for a fixed deal: one card of each deck in the solution, 3 cards per hand,
    every card in play used exactly once."""
    found: Found = []
    in_play = cards.all()
    seen: dict[str, str] = {}

    def place(card: str, path: YamlPath, shown: str) -> bool:
        if card not in in_play:
            found.append((path, f"{card!r} is not a card in play{did_you_mean(card, in_play)}"))
            return False
        if card in seen:
            found.append((path, f"card {card!r} is dealt twice (also {seen[card]})"))
            return False
        seen[card] = shown
        return True

    for i, (card, category) in enumerate(zip(deal.solution, CATEGORIES, strict=True)):
        path: YamlPath = ("deal", "solution", i)
        if place(card, path, show_path(path)) and cards.category_of(card) != category:
            found.append(
                (path, f"{card!r} is not a {category}: the solution is suspect, weapon, room")
            )
    for name, hand in deal.hands.items():
        if name not in players:
            found.append(
                (("deal", "hands", name), f"{name!r} is not a player{did_you_mean(name, players)}")
            )
            continue
        if len(hand) != 3:
            found.append(
                (("deal", "hands", name), f"rule C2: a hand holds 3 cards, got {len(hand)}")
            )
        for j, card in enumerate(hand):
            place(card, ("deal", "hands", name, j), show_path(("deal", "hands", name, j)))
    missing = [p for p in players if p not in deal.hands]
    if missing:
        found.append((("deal", "hands"), f"no hand for {', '.join(missing)}"))
    return found  # with these checks passed, every card in play is used exactly once
