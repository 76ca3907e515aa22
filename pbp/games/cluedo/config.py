"""What both Cluedo kinds read from ``games.yaml``: the decks (rule C1) and an optional
fixed deal (C2)."""

from __future__ import annotations

from pydantic import Field

from pbp import keywords
from pbp.core.gameconfig import ConfigModel, GameBase, Name, command_word
from pbp.games.cluedo.cards import CardCountError, Cards, Deal, cards_for_players, deal_problems
from pbp.games.cluedo.parse import reserved_card_word
from pbp.yamlmarks import Found


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

    @classmethod
    def players_least(cls) -> tuple[int, str]:
        return 3, "C1"

    @classmethod
    def keyword_sections(cls) -> tuple[str, ...]:
        """The common commands, the GM's levers and Cluedo's (SUGGEST, REFUTE, …)."""
        return ("common", "gm", "cluedo")

    def _cluedo_problems(self) -> Found:
        """Rule C1's players and decks, rule C2's fixed deal, and each card's name: none
        may begin as a refutation's word (:func:`reserved_card_word`) nor hold a word of
        the commands cards stand in (STATUS, HELP, SUGGEST, REFUTE, ACCUSE in the
        game's language; a word that parts names, as «для», is read right in a card:
        «Комната для гостей»)."""
        found = self.player_problems(*self.players_least())
        words = keywords.name_words(self.locale, ("common", "cluedo"), separators=False)
        for deck in ("suspects", "weapons", "rooms"):
            for i, card in enumerate(getattr(self.cards, deck)):
                command = command_word(card, words)
                if command is not None:
                    message = (
                        f"card {card!r} holds {command!r}, a command word of the game's "
                        "language, which a mail would read as part of a command: give the "
                        "card another name"
                    )
                    found.append((("cards", deck, i), message))
                    continue
                word = reserved_card_word(card)
                if word is not None:
                    message = (
                        f"card {card!r}: a player's REFUTE reads {word!r} as part of the "
                        "command (REFUTE No… is NO REFUTATION, REFUTE 12… refutes "
                        "suggestion #12): give the card a name that begins with another word"
                    )
                    found.append((("cards", deck, i), message))
        if len(self.players) >= 3:
            try:
                cards = self.to_cards()
            except CardCountError as exc:
                found.append((("cards",), str(exc)))
            else:
                if self.deal is not None:
                    found += deal_problems(
                        cards, self.player_names(), self.deal.solution, self.deal.hands
                    )
        return found
