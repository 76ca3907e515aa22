"""Cluedo's cards and places in the cases a sentence needs, from the morphology libraries
of :mod:`pbp.text.morph` (issue 16, item 4): a weapon or room in a case
(:func:`card_form`), a room with its preposition (:func:`room_phrase`), a suspect's
gender (:func:`person_gender`), and a time zone's city in a case (:func:`place_form`).

Measured on the card names of the bundled games.yaml, the tests and the seeds
(pymorphy3 3.x with pymorphy3-dicts-ru; pytrovich 0.2), for the sentence of a
suggestion (:mod:`pbp.games.cluedo.wording`: «убийца — А, ножом на кухне»; the
suspect's gender was read for the seed's «убийство совершил(а) А», which pbp no
longer writes)::

    suspect      pymorphy3                 pytrovich (surname)   gender
    Краснова     Surn femn                 female                femn
    Белова       Surn femn                 female                femn
    Голубева     Surn femn                 female                femn
    Зеленов      Surn masc                 male                  masc
    Горчичников  (горчичник, plural only)  male                  masc
    Маша / Петя  Name femn / Name masc     —                     femn / masc
    Белых        Surn ms-f (indeclinable)  androgynous           None
    Черниченко   Surn ms-f (indeclinable)  androgynous           None
    Зеленович    not in the dictionary     androgynous           None
    Горчица      a common noun (mustard)   androgynous           None
    Зелёный      an adjective              male                  None (not a name)

    card                 instrumental             prepositional
    нож, топор, труба    ножом, топором, трубой   ноже, топоре, трубе
    веревка / верёвка    веревкой / верёвкой      веревке / верёвке
    подсвечник, молоток  подсвечником, молотком   подсвечнике, молотке
    кухня, терраса       кухней, террасой         кухне, террасе
    бильярдная, столовая бильярдной, столовой     бильярдной, столовой (noun and
                         (noun and adjective agree)                      adjective agree)
    танцевальный зал     танцевальным залом       танцевальном зале
    бальный зал          бальным залом            бальном зале
    зимний сад           зимним садом             None (сад has a second locative,
                                                  «в саду»: «в зимнем саде» ✗)

Every weapon and room of the lists declines with confidence: each word is known to
the dictionary and all its readings agree on the form. A card the dictionary does
not know (a made-up word, Latin letters, a noun with a dependent word after it:
«комната отдыха») gets None: games.yaml gives its words (``cards.phrases``), or the
game's sentences name every card in the nominative.

Pure: reads only the libraries' packaged data.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pbp.text.morph import (
    CASES,
    Case,
    Gender,
    Parse,
    analyzer,
    cyrillic_word,
    gender_detector,
    like_written,
)

#: A place's name: Cyrillic words joined by hyphens (Москва, Нью-Йорк).
_PLACE = re.compile(r"[А-ЯЁа-яё]+(?:-[А-ЯЁа-яё]+)*")


@lru_cache(maxsize=256)
def place_form(place: str, case: Case) -> str | None:
    """A city's name (``place``, nominative, as CLDR names a time zone's city) in
    ``case``, or None when the dictionary does not know it as a place (grammeme
    ``Geox``) or its readings disagree. Capitals follow ``place``; a name that does
    not decline stays as written (Алматы).

    >>> place_form("Москва", "datv"), place_form("Нью-Йорк", "datv")
    ('Москве', 'Нью-Йорку')
    >>> place_form("Алматы", "datv"), place_form("UTC", "datv")
    ('Алматы', None)

    :raises ValueError: ``case`` is not one of :data:`CASES`.
    """
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}: use one of {', '.join(CASES)}")
    if not _PLACE.fullmatch(place):
        return None
    word = place.lower()
    morph = analyzer()
    if not morph.word_is_known(word):
        return None
    places = [
        p
        for p in morph.parse(word)
        if "Geox" in p.tag and p.tag.case == "nomn" and p.tag.number == "sing"
    ]
    forms = {_thing_form(p, case) for p in places}
    if len(forms) != 1 or None in forms:
        return None
    return like_written(place, str(forms.pop()), places[0].word)


#: Grammemes of a word that may stand before the noun of a card and agree with it.
_AGREEING = ("ADJF", "PRTF")


def _nominatives(word: str, parts: tuple[str, ...]) -> list[Parse]:
    """pymorphy3's readings of ``word`` (known to its dictionary) as the nominative
    singular of one of ``parts`` of speech."""
    morph = analyzer()
    if not morph.word_is_known(word):
        return []
    return [
        p
        for p in morph.parse(word)
        if p.tag.POS in parts and p.tag.case == "nomn" and p.tag.number == "sing"
    ]


@lru_cache(maxsize=4096)
def card_form(card: str, case: Case) -> str | None:
    """``card`` (a weapon or room of Cluedo, nominative) in ``case``, or None when
    the dictionary cannot decline it with confidence (see the measurement above):
    a noun (нож → ножом), an adjective used as a noun (бильярдная → бильярдной) or
    adjectives before a noun, agreeing with it (танцевальный зал → танцевальном зале).
    Every word must be known, and all its readings must agree on the form. Capitals
    and ``е`` for ``ё`` follow ``card`` (веревка → веревкой).

    >>> card_form("верёвка", "ablt"), card_form("Терраса", "loct")
    ('верёвкой', 'Террасе')
    >>> card_form("танцевальный зал", "loct"), card_form("комната отдыха", "loct")
    ('танцевальном зале', None)

    :raises ValueError: ``case`` is not one of :data:`CASES`.
    """
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}: use one of {', '.join(CASES)}")
    words = card.split(" ")
    lowered = [cyrillic_word(w) for w in words]
    if not words or any(w is None for w in lowered):
        return None
    *before, head = [w for w in lowered if w is not None]
    heads = _nominatives(head, ("NOUN",) if before else ("NOUN", *_AGREEING))
    if not heads:
        return None
    forms = {_thing_form(p, case) for p in heads}
    if case == "loct" and any(_thing_form(p, "loc2") not in (None, *forms) for p in heads):
        return None  # «в саду», not «в саде»: the sentence's preposition would want loc2
    genders = {str(p.tag.gender) for p in heads}
    if len(forms) != 1 or None in forms or len(genders) != 1:
        return None
    gender = genders.pop()
    written = [like_written(words[-1], str(forms.pop()), heads[0].word)]
    for original, word in zip(words[:-1], before, strict=True):
        readings = [p for p in _nominatives(word, _AGREEING) if str(p.tag.gender) == gender]
        agreed = {_agreeing_form(p, case, heads[0]) for p in readings}
        if len(agreed) != 1 or None in agreed:
            return None
        written.insert(
            len(written) - 1, like_written(original, str(agreed.pop()), readings[0].word)
        )
    return " ".join(written)


#: Rooms said with «на», by their last word (на кухне, на террасе, на веранде; on a
#: roof, a street, a stage, a station, a pier: на крыше, на улице, на сцене, на
#: вокзале, на причале); every other room takes «в» (в спальне, в бильярдной, в
#: танцевальном зале).
_ON_ROOMS = frozenset(
    {
        "антресоль",
        "арена",
        "балкон",
        "веранда",
        "вокзал",
        "завод",
        "каток",
        "кладбище",
        "корт",
        "крыльцо",
        "крыша",
        "кухня",
        "лестница",
        "лоджия",
        "мельница",
        "мостик",
        "опушка",
        "остановка",
        "палуба",
        "парковка",
        "платформа",
        "площадка",
        "поляна",
        "почта",
        "пристань",
        "причал",
        "ринг",
        "рынок",
        "сцена",
        "стадион",
        "станция",
        "стоянка",
        "терраса",
        "улица",
        "фабрика",
        "ферма",
        "чердак",
        "этаж",
    }
)
#: Rooms said with «во» though their first letter would not ask for it (во дворе).
_WO_ROOMS = frozenset({"двор", "дворик"})


@lru_cache(maxsize=4096)
def room_phrase(room: str) -> str | None:
    """Where the murder happened, as a forum writer says it: the preposition a room
    takes (``на`` for the few rooms of :data:`_ON_ROOMS`, ``во`` before ``в``/``ф`` and
    a consonant, else ``в``) and ``room`` in the prepositional (:func:`card_form`), or
    None when the room does not decline with confidence.

    >>> room_phrase("кухня"), room_phrase("Бильярдная"), room_phrase("танцевальный зал")
    ('на кухне', 'в Бильярдной', 'в танцевальном зале')
    >>> room_phrase("флигель"), room_phrase("зимний сад")
    ('во флигеле', None)
    """
    where = card_form(room, "loct")
    if where is None:
        return None
    last = room.split(" ")[-1].lower().replace("ё", "е")
    if last in _ON_ROOMS:
        return f"на {where}"
    first = where.lower()
    if last in _WO_ROOMS or (first[:1] in "вф" and first[1:2] not in "аеёиоуыэюяьъ"):
        return f"во {where}"
    return f"в {where}"


def _thing_form(parse: Parse, case: str) -> str | None:
    """``parse`` (a thing's noun) in ``case``, singular."""
    found = parse.inflect({case, "sing"})
    return None if found is None else str(found.word)


def _agreeing_form(parse: Parse, case: Case, head: Parse) -> str | None:
    """An adjective's ``parse`` in ``case``, singular, agreeing with the noun ``head``
    (its gender; in the accusative, its animacy)."""
    grammemes = {case, "sing", str(head.tag.gender)}
    if case == "accs" and head.tag.gender == "masc":
        grammemes.add("anim" if "anim" in head.tag else "inan")
    found = parse.inflect(grammemes)
    return None if found is None else str(found.word)


@lru_cache(maxsize=4096)
def person_gender(name: str) -> Gender | None:
    """The gender of a character's name (a Cluedo suspect), when it can be told: a
    first name or surname the dictionary knows with one gender (Краснова, Зеленов,
    Маша), else a surname whose ending pytrovich's rules read as a man's or a
    woman's (Горчичников), else None (Белых, Черниченко, Зеленович, Горчица: either
    gender or not a name; several words; Latin letters).

    >>> person_gender("Краснова"), person_gender("Горчичников"), person_gender("Белых")
    ('femn', 'masc', None)
    """
    word = cyrillic_word(name)
    if word is None:
        return None
    morph = analyzer()
    readings = [
        p
        for p in morph.parse(word)
        if p.tag.case == "nomn" and p.tag.number == "sing" and p.tag.POS == "NOUN"
    ]
    if morph.word_is_known(word):
        people = [p for p in readings if "Name" in p.tag or "Surn" in p.tag]
        genders = {"ms-f" if "ms-f" in p.tag else str(p.tag.gender) for p in people}
        if genders in ({"masc"}, {"femn"}):
            return "masc" if genders == {"masc"} else "femn"
        if people or any("Fixd" in p.tag for p in readings):
            return None  # either gender (Белых), or indeclinable
        if any(p.tag.POS in ("NOUN", "ADJF") for p in morph.parse(word) if p.tag.case == "nomn"):
            return None  # a common noun or an adjective (Горчица, Зелёный): no one's name
    return _surname_gender(name)


def _surname_gender(name: str) -> Gender | None:
    """pytrovich's reading of ``name`` as a surname: ``"masc"``, ``"femn"`` or None."""
    from pytrovich.enums import Gender as PGender

    found = gender_detector().detect(lastname=name)
    if found == PGender.MALE:
        return "masc"
    if found == PGender.FEMALE:
        return "femn"
    return None
