"""Russian personal names in their cases, from morphology libraries (issue 16, item 4;
rule P2): the case forms a seat's name is read in (:func:`name_forms`), a name written
in the case a sentence needs (:func:`inflect`), and the gender a name tells
(:func:`gender_of`). Cluedo's cards and a time zone's city are
:mod:`pbp.text.cardforms`', declined with the same libraries (:func:`analyzer`).

Two libraries, chosen by measurement on the issue's cast (Лев, Павел, Пётр, Любовь,
Кэт, Ник, Ника, Мария, Илья, Никита, Саша, Катя, Петя, Таня, Вася, Оля, Маша) and
forum nicknames (Неташка, Веталь, Дуг, Кросс, Шапо):

- **pymorphy3** with its OpenCorpora dictionary (``pymorphy3-dicts-ru``): every name
  of the cast that the dictionary knows as a first name (grammeme ``Name``) is read
  and written right, with its gender (Саша is ``ms-f``: either); the nicknames are
  not first names to it (Дуг parses as a genitive plural of «дуга»).
- **pytrovich** (petrovich's rules, made for personal names): right for the
  nicknames when the gender is given (Веталь → Веталя, Кросс → Кросса for a man,
  Дуг unchanged for a woman, Шапо never declined) but wrong for names it must guess
  the gender of (Саша → «Сашы», «Сашой»; Кэт → «Кэта»), and its gender guess is
  weak (Катя, Таня, Маша undecided; Дуг "male" though seed 000's Дуг is a woman).
  The older port ``petrovich`` 2.0.1 leaves Никита and a man's Саша undeclined and
  writes «Никы», «Сашы», «Неташкы»: not used.

Measured (genitive / instrumental; ✗ wrong, = left as written)::

    name      pymorphy3         pytrovich 0.2 (gender given)   petrovich 2.0.1
    Лев       Льва / Львом      Льва / Львом                   Льва / Львом
    Любовь    Любови / Любовью  Любови / Любовью               Любови / Любовью
    Илья      Ильи / Ильёй      Ильи / Ильёй                   Ильи / Ильей
    Никита    Никиты / Никитой  Никиты / Никитой               = / = ✗
    Ника      Ники / Никой      Ники / Никой                   Никы ✗ / Никой
    Саша      Саши / Сашей      Саши / Сашей (androgynous:     = ✗ (м), Сашы ✗ /
                                Сашы ✗ / Сашой ✗)              Сашой ✗ (androgynous)
    Кэт (ж)   not a name        = / =                          = / =
    Неташка   not a name        Неташки / Неташкой             Неташкы ✗ / Неташкой
    Веталь    not a name        Веталя / Веталем (м)           Веталя / Веталем
    Кросс     not a name        Кросса / Кроссом (м)           Кросса / Кроссом
    Дуг (ж)   not a name        = / =                          = / =
    Шапо      not a name        = / =                          = / =
    reading   Льва→лев, Павла→павел, Петра→пётр, Любови→любовь, Ильи→илья,
              Никиты→никита, Катю→катя, Петю→петя (parses tagged Name); Кэт: none
    gender    from the dictionary; pytrovich's guess: Катя, Таня, Маша, Саша
              androgynous, Дуг male ✗

So a name the dictionary knows as a first name is declined by pymorphy3; any other
single Cyrillic word (a nickname) by pytrovich, with the gender given, or without one
only when the man's and the woman's forms agree (Неташка: the same either way; Кросс,
Дуг, Кэт: a man's name in a consonant declines, a woman's does not, and pytrovich
leaves a woman's Веталь as written too, so without a gender they stay as written;
Шапо, ending in ``-о``, is never declined). A nickname that is a common noun of the
dictionary (Колобок, Ветер) is declined as that noun when its gender is the one
given, since pytrovich does not know fleeting vowels outside its name lists
(«Колобока»). A double name of first names declines each part (Анна-Мария →
Анну-Марию), a first name and a surname of one gender both (Иван Петров → Ивана
Петрова); other names of several words, with Latin letters or a hyphen stay as
written.

Cases are pymorphy3's (OpenCorpora) names: ``nomn`` (именительный), ``gent``
(родительный), ``datv`` (дательный), ``accs`` (винительный), ``ablt``
(творительный), ``loct`` (предложный). Genders: ``masc``, ``femn``.

Cost: importing pymorphy3 and loading its dictionary takes about 0.2 s and 30 MB,
so it is done by the first call that needs it (never at import), once per process;
pytrovich's rules load in a few milliseconds. Each name costs about 0.25 ms once:
the functions are cached per name (:func:`name_forms` by its caller,
:func:`pbp.text.commands.seat_forms`).

Pure: reads only the libraries' packaged data.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Protocol, cast, get_args

if TYPE_CHECKING:
    from pytrovich.enums import Gender as PGender
    from pytrovich.maker import PetrovichDeclinationMaker

Case = Literal["nomn", "gent", "datv", "accs", "ablt", "loct"]
Gender = Literal["masc", "femn"]

#: The cases :func:`inflect` writes, in the order of Russian grammars.
CASES: tuple[Case, ...] = get_args(Case)
#: The cases a name is read in (:func:`name_forms`): every case but the nominative.
OBLIQUE: tuple[Case, ...] = CASES[1:]

_WORD = re.compile(r"[А-ЯЁа-яё]+")


class Tag(Protocol):
    """What pbp reads of a pymorphy3 tag (``OpencorporaTag``; pymorphy3 is untyped):
    whether it holds a grammeme (``"Name" in tag``) and the grammeme of a category
    (None: the word has none)."""

    @property
    def POS(self) -> str | None: ...
    @property
    def case(self) -> str | None: ...
    @property
    def number(self) -> str | None: ...
    @property
    def gender(self) -> str | None: ...
    def __contains__(self, grammeme: str) -> bool: ...


class Parse(Protocol):
    """What pbp reads of one pymorphy3 reading of a word (``pymorphy3.analyzer.Parse``):
    the word as written, lower case, its tag, and the word in other grammemes (None:
    the dictionary has no such form)."""

    @property
    def word(self) -> str: ...
    @property
    def tag(self) -> Tag: ...
    def inflect(self, required_grammemes: set[str]) -> Parse | None: ...


class Analyzer(Protocol):
    """What pbp asks pymorphy3's ``MorphAnalyzer``: whether its dictionary knows a
    word (lower case), and the word's readings (predicted ones for an unknown word)."""

    def word_is_known(self, word: str) -> bool: ...
    def parse(self, word: str) -> list[Parse]: ...


class GenderDetector(Protocol):
    """What pbp asks pytrovich's ``PetrovichGenderDetector`` (its ``detect`` is
    untyped): the gender a surname's ending tells (``ANDROGYNOUS`` when none)."""

    def detect(self, *, lastname: str) -> PGender: ...


_lock = threading.Lock()
#: The libraries' objects, each loaded by the first call that needs it.
_loaded: dict[str, object] = {}


def analyzer() -> Analyzer:
    """pymorphy3's analyzer, loaded once (about 0.2 s, 30 MB)."""
    with _lock:
        if "morph" not in _loaded:
            import pymorphy3

            # Its two INFO lines about loading the dictionary on every command are noise
            # in a GM's terminal and the service's log; its warnings still show.
            logging.getLogger("pymorphy3").setLevel(logging.WARNING)
            _loaded["morph"] = pymorphy3.MorphAnalyzer()
        return cast("Analyzer", _loaded["morph"])


def _maker() -> PetrovichDeclinationMaker:
    """pytrovich's inflector, loaded once (a few milliseconds)."""
    with _lock:
        if "maker" not in _loaded:
            from pytrovich.maker import PetrovichDeclinationMaker

            _loaded["maker"] = PetrovichDeclinationMaker()
        return cast("PetrovichDeclinationMaker", _loaded["maker"])


def gender_detector() -> GenderDetector:
    """pytrovich's gender detector, loaded once (a few milliseconds)."""
    with _lock:
        if "detector" not in _loaded:
            from pytrovich.detector import PetrovichGenderDetector

            _loaded["detector"] = PetrovichGenderDetector()
        return cast("GenderDetector", _loaded["detector"])


def cyrillic_word(name: str) -> str | None:
    """``name`` lower-cased when it is one Cyrillic word of two letters or more."""
    return name.lower() if len(name) > 1 and _WORD.fullmatch(name) else None


def _first_names(word: str) -> list[Parse]:
    """pymorphy3's parses of ``word`` as the nominative singular of a first name that
    its dictionary knows (predicted parses of unknown words are left out)."""
    morph = analyzer()
    if not morph.word_is_known(word):
        return []
    return [
        p
        for p in morph.parse(word)
        if "Name" in p.tag and p.tag.case == "nomn" and p.tag.number == "sing"
    ]


def _nouns(word: str) -> list[Parse]:
    """pymorphy3's parses of ``word`` as the nominative singular of a common noun its
    dictionary knows (a nickname such as Колобок, Кросс)."""
    morph = analyzer()
    if not morph.word_is_known(word):
        return []
    return [
        p
        for p in morph.parse(word)
        if p.tag.POS == "NOUN" and p.tag.case == "nomn" and p.tag.number == "sing"
    ]


def _form(parse: Parse, case: Case) -> str | None:
    """``parse`` in ``case``, singular; a person's accusative: animate (the genitive of
    a masculine noun the dictionary has as inanimate: Кросс → Кросса)."""
    if case == "accs" and "inan" in parse.tag and parse.tag.gender == "masc":
        case = "gent"
    found = parse.inflect({case, "sing"})
    return None if found is None else str(found.word)


def like_written(name: str, word: str, reference: str) -> str:
    """``word`` (lower case) with the capitals of ``name``, and without ``ё`` when
    ``name`` is written with ``е`` where the dictionary's nominative ``reference`` has
    ``ё`` (Семен → Семена, not Семёна)."""
    if "ё" in reference and "ё" not in name.lower():
        word = word.replace("ё", "е")
    if name.isupper():
        return word.upper()
    # The letters the form shares with the name from its start keep their capitals
    # (МаШа → МаШи, not Маши: a nickname's own spelling); what follows is lower case.
    same = next(
        (i for i, (a, b) in enumerate(zip(name.lower(), word, strict=False)) if a != b),
        min(len(name), len(word)),
    )
    kept = name[:same] + word[same:]
    return kept[:1].upper() + kept[1:] if name[:1].isupper() else kept


def _agreed(forms: list[str | None]) -> str | None:
    """The one form all of ``forms`` agree on, or None."""
    distinct = set(forms)
    if len(distinct) == 1 and None not in distinct:
        return forms[0]
    return None


def _fits(parse: Parse, gender: Gender | None) -> bool:
    """True when ``parse`` is a name for ``gender`` (any for None; Саша for either)."""
    return gender is None or "ms-f" in parse.tag or parse.tag.gender == gender


def _surnames(word: str) -> list[Parse]:
    """pymorphy3's parses of ``word`` as the nominative singular of a surname that its
    dictionary knows (Иванова, Петров; predicted parses of unknown words left out)."""
    morph = analyzer()
    if not morph.word_is_known(word):
        return []
    return [
        p
        for p in morph.parse(word)
        if "Surn" in p.tag and p.tag.case == "nomn" and p.tag.number == "sing"
    ]


@lru_cache(maxsize=4096)
def gender_of(name: str) -> Gender | None:
    """The gender of ``name`` when the dictionary is sure of it: ``"masc"`` or
    ``"femn"`` for a first name it knows with that gender only, or for a word that is
    no first name but a surname it knows with that gender only (a player called
    Иванова or Петров: «у Ивановой», not «у Ивановы»); else None (a name for either,
    such as Саша or Женя; a surname for either, such as Жук or Белых; a nickname;
    several words; Latin letters).

    >>> gender_of("Любовь"), gender_of("Лев"), gender_of("Саша"), gender_of("Дуг")
    ('femn', 'masc', None, None)
    >>> gender_of("Иванова"), gender_of("Петров"), gender_of("Жук")
    ('femn', 'masc', None)
    """
    parts = _double(name)
    if parts:
        told = {gender_of(part) for part in parts}
        return told.pop() if len(told) == 1 else None
    full = _full_name(name)
    if full is not None:
        return full[2]
    word = cyrillic_word(name)
    if word is None:
        return None
    parses = _first_names(word) or _surnames(word)
    genders = {"ms-f" if "ms-f" in p.tag else str(p.tag.gender) for p in parses}
    if genders == {"masc"}:
        return "masc"
    if genders == {"femn"}:
        return "femn"
    return None


@lru_cache(maxsize=4096)
def inflect(name: str, case: Case, gender: Gender | None = None) -> str:
    """``name`` (a player's name, nominative) in ``case``, for a sentence such as
    "голос за Льва" (:data:`CASES`; ``gender``: the player's when known, else the
    dictionary's sure guess, :func:`gender_of`).

    A double name of first names declines each part (Анна-Мария → Анну-Марию), a
    first name and a surname of one gender both (Иван Петров → Ивана Петрова). The
    name is returned as written when it is not one Cyrillic word, is
    indeclinable (Шапо; a woman's name ending in a consonant: Кэт, or Лев given
    ``"femn"``), when its form would depend on a gender that is not known (Кросс, Дуг,
    Веталь without a gender), or when it is a woman's name in ``-ь`` given
    ``"masc"`` (Любовь: no guess). A name in ``-а``/``-я`` declines alike for either
    gender (Маша given ``"masc"``: Маши). Capitals follow ``name``.

    >>> inflect("Лев", "gent"), inflect("Любовь", "ablt"), inflect("Пётр", "accs")
    ('Льва', 'Любовью', 'Петра')
    >>> inflect("Кросс", "datv"), inflect("Кросс", "datv", "masc"), inflect("Шапо", "gent")
    ('Кросс', 'Кроссу', 'Шапо')

    :raises ValueError: ``case`` is not one of :data:`CASES`, or ``gender`` not
        ``"masc"``, ``"femn"`` or None.
    """
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}: use one of {', '.join(CASES)}")
    if gender not in ("masc", "femn", None):
        raise ValueError(f"unknown gender {gender!r}: use 'masc', 'femn' or None")
    if case == "nomn":
        return name
    parts = _double(name)
    if parts:
        gender = gender or gender_of(name)
        return "-".join(inflect(part, case, gender) for part in parts)
    full = _full_name(name)
    if full is not None and gender in (None, full[2]):
        first, surname, told = full
        return f"{inflect(first, case, told)} {inflect(surname, case, told)}"
    word = cyrillic_word(name)
    if word is None:
        return name
    gender = gender or gender_of(name)
    names = _first_names(word)
    fitting = [p for p in names if _fits(p, gender)]
    if not fitting and word[-1] in "ая":
        fitting = names  # Маша for a man, Илья for a woman: the same forms
    if fitting:
        found = _agreed([_form(p, case) for p in fitting])
        return name if found is None else like_written(name, found, fitting[0].word)
    if names:
        return name  # Лев for a woman: indeclinable; Любовь for a man: no guess
    if gender is not None:
        nouns = [p for p in _nouns(word) if p.tag.gender == gender]
        found = _agreed([_form(p, case) for p in nouns]) if nouns else None
        if found is not None:
            return like_written(name, found, nouns[0].word)
        return _petrovich(name, case, gender)
    male, female = _petrovich(name, case, "masc"), _petrovich(name, case, "femn")
    return male if male == female else name


def _double(name: str) -> list[str]:
    """The parts of a double name whose every part is a first name of the dictionary
    (Анна-Мария, Жан-Поль), else none."""
    parts = name.split("-")
    if len(parts) < 2 or not all(
        cyrillic_word(part) and _first_names(part.lower()) for part in parts
    ):
        return []
    return parts


def _full_name(name: str) -> tuple[str, str, Gender] | None:
    """``(first name, surname, gender)`` of a name such as Иван Петров or Анна Петрова:
    a first name and a surname of the dictionary, one space between, whose genders
    agree; else None (Мисс Скарлет, Анна Петров)."""
    words = name.split(" ")
    if len(words) != 2 or not all(cyrillic_word(w) for w in words):
        return None
    first, surname = words
    gender = gender_of(first)
    if gender is None or gender != gender_of(surname) or _first_names(surname.lower()):
        return None
    return first, surname, gender


def _petrovich(name: str, case: Case, gender: Gender) -> str:
    from pytrovich.enums import Case as PCase
    from pytrovich.enums import Gender as PGender
    from pytrovich.enums import NamePart

    cases = {
        "gent": PCase.GENITIVE,
        "datv": PCase.DATIVE,
        "accs": PCase.ACCUSATIVE,
        "ablt": PCase.INSTRUMENTAL,
        "loct": PCase.PREPOSITIONAL,
    }
    sex = PGender.MALE if gender == "masc" else PGender.FEMALE
    return str(_maker().make(NamePart.FIRSTNAME, sex, cases[case], name))


@lru_cache(maxsize=4096)
def is_first_name(name: str) -> bool:
    """True when ``name`` is one Cyrillic word that the dictionary knows as a first
    name (Лев, Любовь, Саша; not Неташка, Дуг, Кэт).

    >>> is_first_name("Павел"), is_first_name("Веталь")
    (True, False)
    """
    word = cyrillic_word(name)
    return word is not None and bool(_first_names(word))


def name_forms(name: str) -> frozenset[str]:
    """The singular forms ``name`` may be written in, lower case, ``ё`` as ``е``: its
    nominative and what :func:`inflect` writes in each case with either gender or
    none. A first name of the dictionary: its own forms only (Лев: лев, льва, льву,
    львом, льве); a nickname: both genders' (Кросс: кросс, кросса, кроссу, кроссом,
    кроссе); a double name or a first name with a surname (Анна-Мария, Иван Петров):
    what :func:`inflect` writes of it. Other names (several words, Latin letters):
    just the name, lower case.

    Not cached (about 0.25 ms): :func:`pbp.text.commands.seat_forms` keeps them.

    >>> sorted(name_forms("Павел"))
    ['павел', 'павла', 'павле', 'павлом', 'павлу']
    """
    if _double(name) or _full_name(name):  # Анна-Мария, Иван Петров: as inflect writes
        genders: tuple[Gender | None, ...] = (None, "masc", "femn")
        written = {inflect(name, c, g).lower() for c in CASES for g in genders}
        return frozenset(f.replace("ё", "е") for f in written)
    word = cyrillic_word(name)
    if word is None:
        return frozenset({name.lower().replace("ё", "е")})
    forms = {word}
    names = _first_names(word)
    if names:
        forms |= {f for p in names for c in OBLIQUE if (f := _form(p, c)) is not None}
    else:
        forms |= {f for p in _nouns(word) for c in OBLIQUE if (f := _form(p, c)) is not None}
        forms |= {_petrovich(name, c, g).lower() for c in OBLIQUE for g in ("masc", "femn")}
    return frozenset(f.replace("ё", "е") for f in forms)
