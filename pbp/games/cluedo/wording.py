"""How the texts of both Cluedo variants say a murder: the three cards of a
suggestion, an accusation or the solution in one sentence (rule P2).

The words are decided here, once per game, and the templates only lay them out
(``templates/cluedo/parts/murder.j2``):

- the suspect as written (the nominative: the sentence needs no gender, so one
  pattern serves every suspect of a post: Краснова, Зеленов, Белых alike);
- the weapon in the instrumental alone: «ножом», «верёвкой» (never «орудием ножом»);
  English "with the rope";
- the room with the preposition it takes and in its case: «на кухне», «в бильярдной»,
  «в танцевальном зале», «на террасе», «во флигеле»; English "in the ballroom", "on
  the terrace".

Russian forms come from the morphology library (:func:`pbp.text.cardforms.card_form`,
:func:`pbp.text.cardforms.room_phrase`); where it cannot tell («зимний сад»: «в зимнем
саду», a made-up word, Latin letters), ``games.yaml`` gives the card's phrase
(``cards.phrases``, :class:`pbp.games.cluedo.config.Decks`) and ``pbp check`` names the
cards that lack one (:meth:`Wording.unsaid`). A game in which some card has no words
says every murder in the nominative pattern instead («убийца — Белых, орудие — нож,
комната — зимний сад»), so that one game never mixes two patterns.

Pure: reads only the morphology libraries' packaged data.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from pbp.games.cluedo.cards import Cards
from pbp.text import cardforms

#: English rooms one is *on*, by their last word ("on the terrace"); every other room
#: takes "in" ("in the ballroom").
EN_ON_ROOMS = frozenset(
    {"balcony", "deck", "lawn", "patio", "porch", "roof", "stage", "terrace", "veranda"}
)


@dataclass(frozen=True)
class Murder:
    """The words of one murder as its sentence says them (rule P2).

    ``declined``: the sentence pattern. True: the weapon and the room in the words of
    the sentence (``weapon`` «ножом» / "with the rope", ``room`` «на кухне» / "in the
    kitchen": ru «убийца — Краснова, ножом на кухне», en "it was Mrs White with the
    rope in the kitchen"); False: each card named in the nominative («убийца — Белых,
    орудие — Colt, комната — зимний сад»), ``weapon`` and ``room`` as written.
    ``suspect`` is always as written.
    """

    declined: bool
    suspect: str
    weapon: str
    room: str


@dataclass(frozen=True)
class Wording:
    """How one game's texts say its cards (rule P2): ``locale`` (``"ru"``, ``"en"``),
    ``phrases`` (``games.yaml``'s ``cards.phrases``, ``((card, phrase), ...)``) and
    ``declined``: whether every weapon and room of the game has its words, which
    decides the pattern of every murder of the game (:class:`Murder`). Build it with
    :func:`wording`, which keeps one per game."""

    locale: str
    phrases: tuple[tuple[str, str], ...] = ()
    declined: bool = True

    def weapon(self, card: str) -> str | None:
        """The words of the weapon ``card`` after the suspect: its phrase from
        ``games.yaml``, else ru its instrumental («ножом», «верёвкой»), en "with the
        rope"; None when the dictionary cannot decline it (Colt, «комната отдыха»)."""
        given = dict(self.phrases).get(card)
        if given is not None:
            return given
        return _weapon_words(card, self.locale)

    def room(self, card: str) -> str | None:
        """The words of the room ``card``: its phrase from ``games.yaml``, else ru the
        preposition it takes and its prepositional («на кухне», «во флигеле»), en "in
        the ballroom" ("on the terrace": :data:`EN_ON_ROOMS`); None when the dictionary
        cannot place it («зимний сад», whose «в саду» it does not write)."""
        given = dict(self.phrases).get(card)
        if given is not None:
            return given
        return _room_words(card, self.locale)

    def murder(self, s: Mapping[str, object]) -> Murder:
        """The words of the murder ``s`` (``suspect``, ``weapon``, ``room``: a
        suggestion's, an accusation's or the solution's data).

        >>> wording("ru").murder({"suspect": "Белых", "weapon": "нож", "room": "кухня"})
        Murder(declined=True, suspect='Белых', weapon='ножом', room='на кухне')
        >>> wording("en").murder({"suspect": "White", "weapon": "rope", "room": "terrace"})
        Murder(declined=True, suspect='White', weapon='with the rope', room='on the terrace')
        >>> wording("ru").murder({"suspect": "Белых", "weapon": "нож", "room": "зимний сад"})
        Murder(declined=False, suspect='Белых', weapon='нож', room='зимний сад')
        """
        suspect, weapon, room = str(s["suspect"]), str(s["weapon"]), str(s["room"])
        with_weapon, in_room = self.weapon(weapon), self.room(room)
        if not self.declined or with_weapon is None or in_room is None:
            return Murder(False, suspect, weapon, room)
        return Murder(True, suspect, with_weapon, in_room)

    def unsaid(self, cards: Cards) -> list[tuple[str, str]]:
        """The weapons and rooms of ``cards`` this wording has no words for, as
        ``(category, card)`` in deck order: what ``pbp check`` lists, each with the
        ``cards.phrases`` entry to add.

        >>> wording("ru").unsaid(Cards(("Белых",), ("нож", "Colt"), ("кухня", "зимний сад")))
        [('weapon', 'Colt'), ('room', 'зимний сад')]
        """
        weapons = [("weapon", c) for c in cards.weapons if self.weapon(c) is None]
        return weapons + [("room", c) for c in cards.rooms if self.room(c) is None]


@functools.lru_cache(maxsize=256)
def wording(
    locale: str, cards: Cards | None = None, phrases: tuple[tuple[str, str], ...] = ()
) -> Wording:
    """The :class:`Wording` of a game in ``locale`` whose cards in play are ``cards``
    (None: cards not known, each murder is then worded on its own) and whose
    ``games.yaml`` gives ``phrases`` (``((card, phrase), ...)``); one per game, kept."""
    found = Wording(locale, phrases)
    if cards is not None and found.unsaid(cards):
        return Wording(locale, phrases, declined=False)
    return found


@functools.lru_cache(maxsize=4096)
def _weapon_words(card: str, locale: str) -> str | None:
    if locale == "ru":
        return cardforms.card_form(card, "ablt")
    if locale == "en":
        return f"with the {card}"
    return None


@functools.lru_cache(maxsize=4096)
def _room_words(card: str, locale: str) -> str | None:
    if locale == "ru":
        return cardforms.room_phrase(card)
    if locale == "en":
        last = card.split()[-1].lower() if card.split() else ""
        return f"{'on' if last in EN_ON_ROOMS else 'in'} the {card}"
    return None
