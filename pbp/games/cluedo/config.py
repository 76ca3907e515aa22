"""What both Cluedo kinds read from ``games.yaml``: the decks (rule C1), how the texts
say a card the dictionary cannot decline (P2) and an optional fixed deal (C2)."""

from __future__ import annotations

from pydantic import Field

from pbp.games.cluedo.cards import CardCountError, Cards, Deal, cards_for_players, deal_problems
from pbp.games.cluedo.reader import card_read, reserved_card_word
from pbp.games.cluedo.shapes import Examples
from pbp.games.cluedo.wording import Wording, wording
from pbp.games.core.gameconfig import ConfigModel, GameBase
from pbp.games.core.playernames import Name, command_word
from pbp.games.core.yamlmarks import Found, did_you_mean
from pbp.text import keywords
from pbp.text.names import normalize


class Decks(ConfigModel):
    """The three decks in order; rule C1 drops from the bottom of each.

    ``phrases``: how the texts say a weapon or a room that the dictionary cannot
    decline (rule P2, :mod:`pbp.games.cluedo.wording`), ``{card: phrase}`` in the
    game's language: a room with its preposition and case (``зимний сад: в зимнем
    саду``; en ``pool: by the pool``), a weapon as "with what" (ru the instrumental:
    ``бита для гольфа: битой для гольфа``; en ``with the cue``). In a language whose
    players may copy a suggestion's sentence from a post as their own (the forum form,
    keywords ``cluedo.forum_heading``: Russian), a phrase must name its card as a
    player's mail reads it (:func:`pbp.games.cluedo.reader.card_read`). ``pbp check``
    lists the cards in play that have no words (:meth:`CluedoGame.check_warnings`)."""

    suspects: list[Name] = Field(min_length=1)
    weapons: list[Name] = Field(min_length=1)
    rooms: list[Name] = Field(min_length=1)
    phrases: dict[Name, Name] = Field(default_factory=dict)


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

    def wording(self) -> Wording:
        """How this game's texts say its cards (rule P2): :func:`pbp.games.cluedo.wording.wording`
        of its locale, cards in play and ``cards.phrases``; kept, one per game."""
        return wording(self.locale, self.to_cards(), tuple(self.cards.phrases.items()))

    def examples(self) -> Examples:
        """The command help's examples from this game (the reply to HELP, which has no
        dealt game at hand): its first suspect, weapon and room in play and its last
        and first players, ``{"suspect", "weapon", "room", "player", "first"}``, as
        :func:`pbp.games.cluedo.views.commands_of` gives them from the deal."""
        cards = self.to_cards()
        return {
            "suspect": cards.suspects[0],
            "weapon": cards.weapons[0],
            "room": cards.rooms[0],
            "player": self.players[-1].name,
            "first": self.players[0].name,
        }

    def check_warnings(self) -> list[str]:
        """One line per weapon or room in play that the texts cannot say as a speaker
        of the game's language would (rule P2: :meth:`Wording.unsaid`), with the
        ``cards.phrases`` entry to add; until it is added, every murder of the game
        is told card by card in the nominative."""
        how = {
            "weapon": "with what, as «ножом» says нож",
            "room": "where: the preposition and the case, as «на кухне» says кухня",
        }
        return [
            f"cards.{category}s: the texts cannot tell how to say {card!r} in a sentence "
            f"(the dictionary does not decline it): add its phrase to cards.phrases, "
            f"e.g. 'phrases: {{{card}: …}}' ({how[category]}; rule P2). Until then every "
            "suggestion of the game names its cards in the nominative"
            for category, card in self.wording().unsaid(self.to_cards())
        ]

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
        found += self._phrase_problems()
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

    def _phrase_problems(self) -> Found:
        """Each ``cards.phrases`` entry: of a weapon or a room of the decks; where
        players copy a post's sentence as a suggestion (the forum form: Russian), a
        phrase that names its card as a player's mail reads it (:func:`card_read`); in
        every language one that names no other card, is not the words of another card
        (two cards would read the same in a post) and is not a player's name."""
        d = self.cards
        decks = Cards(tuple(d.suspects), tuple(d.weapons), tuple(d.rooms))
        said = [*d.weapons, *d.rooms]
        vocabulary = keywords.current()
        copied = self.locale in vocabulary.locales and bool(
            vocabulary.words("cluedo", "forum_heading", self.locale)
        )
        found: Found = []
        for card, phrase in d.phrases.items():
            path = ("cards", "phrases", card)
            if card in d.suspects:
                found.append((path, f"{card!r} is a suspect: the texts name suspects as written"))
            elif card not in said:
                hint = did_you_mean(card, said)
                found.append((path, f"{card!r} is not a weapon or room of the decks{hint}"))
            elif copied and card_read(phrase, decks) != card:
                found.append(
                    (
                        path,
                        f"the phrase {phrase!r} does not name the card {card!r} as a "
                        "player's mail reads it (a player who copies it from a post must "
                        "be understood): write a form of the card in it, as «в зимнем саду» "
                        "holds зимний сад",
                    )
                )
            else:
                clash = self._phrase_clash(card, phrase, decks)
                if clash is not None:
                    found.append((path, clash))
        return found

    def _phrase_clash(self, card: str, phrase: str, decks: Cards) -> str | None:
        """Why ``phrase``, the ``cards.phrases`` entry of ``card``, would make a post
        tell something else (rule P2, in every language), or None: it names another
        card (:func:`card_read`: «with the knife» for the rope); it is the words of
        another card, said by the dictionary or by a phrase given above it (two cards
        would read alike: «on the terrace» for the pool); it is a player's name."""
        d = self.cards
        read = card_read(phrase, decks)
        if read is not None and read != card:
            return (
                f"the phrase {phrase!r} names the card {read!r}, not {card!r}: a post would "
                "tell one card for another"
            )
        words = wording(self.locale, phrases=tuple(d.phrases.items()))
        given = list(d.phrases)
        for other in [*d.weapons, *d.rooms]:
            if other == card or (other in d.phrases and given.index(other) > given.index(card)):
                continue
            said = words.weapon(other) if other in d.weapons else words.room(other)
            if said is not None and said.casefold() == phrase.casefold():
                return (
                    f"the phrase {phrase!r} is how the texts say {other!r} too: two cards "
                    f"would read the same in a post; give {card!r} words of its own"
                )
        if " ".join(normalize(phrase)) in {" ".join(normalize(p.name)) for p in self.players}:
            return (
                f"the phrase {phrase!r} is a player's name: a post would name a player for a card"
            )
        return None
