"""The words players and GMs type, per locale (issue 16): command keywords (``ГОЛОС`` /
``VOTE``), the forms the help and the refusals show, and the words around them
(``тюрьма`` / ``prison``, ``ночь`` / ``night``, ``НОВЫЙ АДРЕС`` / ``NEW ADDRESS``).

pbp's own sections (``common``, ``gm`` and the top level's ``new_address``) live beside
each locale's translation catalog, in ``pbp/locale/<locale>/keywords.yaml``
(:func:`keywords_path`, entries :data:`SCHEMA`); a game's section lives in its own
package, declared by the module that reads it (:class:`Section`, :func:`declare`: its
name, its entries, and its folder of ``<locale>.yaml`` files, e.g.
``pbp/games/maniac/keywords/ru.yaml``), so that a game outside pbp ships its words as
it ships its code. This module is their only reader, and :func:`current` merges them
into one :class:`Vocabulary`; the parsers (:mod:`pbp.games.maniac.parse`,
:mod:`pbp.games.cluedo.parse`, :mod:`pbp.text.gmcommands`, :mod:`pbp.text.commands`)
accept the words of every locale of :data:`pbp.text.catalogs.LOCALES` at once (a Russian
game reads ``VOTE`` too) and show a command in the locale of the word it was written
in. Adding a language is its catalog, its ``keywords.yaml`` and each game's
``<locale>.yaml``, with every entry of their schemas: no code changes.

Why a game's words are in its package rather than under ``templates/<game>/``: they
are its parser's data, read wherever the parser runs (``pbp check``, a test), not texts
a GM's copy of the templates (``$PBP_TEMPLATES``) may change; the package is where a
game outside pbp keeps what its code reads.

Why a file of its own rather than catalog entries: a keyword list is data with a shape
(a shown form, the words read, lists that are empty in one language: Russian has no
one-word UNVOTE, English no noun that heads a list of orders like «Заказы:»), while a
gettext entry is one string whose source side is the English text, kept in Python
(the msgid): an empty English list cannot be written (``msgid ""`` is the catalog's
header), an empty translation means "untranslated, show the English", and the English
words would live in Python source, not in English data.

Two kinds of entries (:data:`SCHEMA`, :attr:`Section.schema`):

- a **command**: ``{shown: ГОЛОС, read: [голос, голосую]}``; ``shown`` is the form of
  the help and of ``unknown_command``'s suggestion, ``read`` the words any grammatical
  form of which is the command (Snowball stems; may be empty when the command is read
  from two words, as ``СНЯТЬ ГОЛОС``);
- a **list** of words read as written (lower case for players' words, upper case for
  the GM's, compared after upper-casing); ``word*`` stands for any word that begins
  with ``word`` (``тюрьм*``: тюрьма, тюрьму, тюрьмой).

Loaded once per process (:func:`current`, about 3 ms for the two locales with
PyYAML's C loader, on the first line a parser reads, never at import; again when a
game's section is declared after) and checked against the schemas as loaded: a locale
that lacks an entry, or has a command without its ``shown`` form, is refused with the
file and the entry named.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, cast

import yaml

#: What every locale's ``keywords.yaml`` holds, by section (``""``: the top level):
#: ``"command"`` entries (``{shown, read}``), ``"list"`` entries (at least one word) and
#: ``"list?"`` entries (may be empty in a locale). A game's sections are its own
#: (:class:`Section`).
SCHEMA: Mapping[str, Mapping[str, str]] = {
    "common": {"status": "command", "help": "command", "and": "list"},
    "gm": {
        "act": "list",
        "pause": "list",
        "resume": "list",
        "extend": "list",
        "substitute": "list",
        "readdress": "list",
        "remove": "list",
        "void": "list",
        "export": "list",
        "help": "list",
        "status": "list",
        "all": "list",
        "close_day": "list",
        "end_night": "list",
        "kept": "list",
        "retry": "list",
        "dismiss": "list",
        "by": "list",
        "hours": "list",
        "confirm": "list",
    },
    "": {"new_address": "list"},
}
FILENAME = "keywords.yaml"

#: The lists of section ``gm`` read around a lever rather than naming one (a unit of
#: EXTEND, ALL after STATUS, the confirmation's words): no name is refused for them.
_GM_AROUND = frozenset({"by", "hours", "all", "confirm"})
#: The lists whose words part the names within a command line, by section of pbp's
#: own: «и» / "and" between the players of a vote, «НА» / "BY" between a seat and its
#: substitute (GM); a game's are :attr:`Section.separators`. A player's name may not
#: hold them (:func:`name_words`).
SEPARATORS: Mapping[str, tuple[str, ...]] = {
    "common": ("and",),
    "gm": ("by",),
}


@dataclass(frozen=True, eq=False)
class Section:
    """A game's own section of the words players type: ``name`` (``"maniac"``, how its
    parser asks for its words), ``folder`` (``<locale>.yaml`` for each locale of
    :data:`pbp.text.catalogs.LOCALES`, the section's entries at the file's top level;
    in the game's package, shipped with it), ``schema`` (entry → ``"command"``,
    ``"list"`` or ``"list?"``, as :data:`SCHEMA`) and ``separators`` (its lists whose
    words part names in a command line, as :data:`SEPARATORS`: «против» / "against").
    Made known by :func:`declare`."""

    name: str
    folder: Path
    schema: Mapping[str, str]
    separators: tuple[str, ...] = ()

    def path(self, locale: str) -> Path:
        """``<folder>/<locale>.yaml``."""
        return self.folder / f"{locale}.yaml"


#: The games' sections declared so far, by name (:func:`declare`).
_DECLARED: dict[str, Section] = {}


def declare(section: Section) -> Section:
    """Make a game's ``section`` known to :func:`current` and return it: the module that
    reads it declares it as it is imported (``SECTION = keywords.declare(Section(…))``),
    so every parser of a section finds it; a section declared after the vocabulary was
    loaded is read at the next :func:`current` (a new :class:`Vocabulary`).

    :raises ValueError: ``section`` names one of pbp's own sections, or another
        section of the same name is declared.
    """
    known = _DECLARED.get(section.name)
    if section.name in SCHEMA or (known is not None and known is not section):
        raise ValueError(f"a keywords section named {section.name!r} is declared already")
    _DECLARED[section.name] = section
    return section


def sections() -> tuple[Section, ...]:
    """The games' sections declared, in the order of their declaration."""
    return tuple(_DECLARED.values())


def keywords_path(locale: str, root: Path | None = None) -> Path:
    """``pbp/locale/<locale>/keywords.yaml`` (``root``: another ``pbp/locale``)."""
    from pbp.text import catalogs

    return (root or catalogs.CATALOGS) / locale / FILENAME


class CommandEntry(TypedDict):
    """A ``"command"`` entry of a keywords file, as :func:`_check` let it through."""

    shown: str
    read: list[str]


@dataclass(frozen=True)
class Command:
    """One command's words in one locale: ``shown`` (as in the help) and ``read``."""

    shown: str
    read: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """The words of every locale, in the order of ``locales`` (the first locale's words
    first). Hashed by identity: a parser caches what it builds from one vocabulary
    (``functools.cache`` on it), and a new vocabulary (:func:`reload`) builds anew."""

    locales: tuple[str, ...]
    #: locale → section → its entries (``{key: entry}``), and each top-level entry by its
    #: key: the files as read, checked by :func:`_check` against ``schema``.
    entries: Mapping[str, Mapping[str, object]]
    #: Each section's schema (pbp's :data:`SCHEMA` and its games' sections').
    schema: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: SCHEMA)
    #: Each section's lists that part names (:data:`SEPARATORS` and its games').
    separators: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: SEPARATORS)

    def _entry(self, locale: str, section: str, key: str) -> object:
        entries = self.entries[locale]
        return entries[key] if section == "" else cast(Mapping[str, object], entries[section])[key]

    def command(self, section: str, key: str, locale: str) -> Command:
        """Command ``key`` of ``section`` in ``locale``."""
        entry = cast(CommandEntry, self._entry(locale, section, key))
        return Command(str(entry["shown"]), tuple(str(w) for w in entry["read"]))

    def shown(self, section: str, key: str) -> dict[str, str]:
        """Command ``key``'s shown form in each locale: ``{"ru": "ГОЛОС", "en": "VOTE"}``."""
        return {locale: self.command(section, key, locale).shown for locale in self.locales}

    def read(self, section: str, key: str) -> tuple[str, ...]:
        """Command ``key``'s words read, of every locale (first locale first, no repeats)."""
        words = (w for loc in self.locales for w in self.command(section, key, loc).read)
        return tuple(dict.fromkeys(words))

    def words(self, section: str, key: str, locale: str | None = None) -> tuple[str, ...]:
        """List ``key`` of ``section`` in ``locale``, or of every locale (no repeats)."""
        chosen = self.locales if locale is None else (locale,)
        found = (str(w) for loc in chosen for w in cast(list[str], self._entry(loc, section, key)))
        return tuple(dict.fromkeys(found))

    def locale_of(self, section: str, key: str) -> dict[str, str]:
        """Each word of list ``key`` → the first locale that lists it."""
        found: dict[str, str] = {}
        for locale in self.locales:
            for word in self.words(section, key, locale):
                found.setdefault(word, locale)
        return found


def name_words(locale: str, sections: tuple[str, ...], *, separators: bool) -> tuple[str, ...]:
    """The words and phrases of ``locale`` that a player's or card's name may not hold
    (``games.yaml``, :mod:`pbp.games.core.playernames`), as ``keywords.yaml`` writes them
    (``word*``: any word that begins with ``word``; a phrase: its words in a row): of
    each section of ``sections`` every command's shown form and the words it is read
    by, and the GM's lever keywords (section ``gm``, not the words read around a lever);
    ``NEW ADDRESS``; with ``separators``, the words that part names in a command line
    (:data:`SEPARATORS`). A name holding one would be read as part of a command.

    The words of every locale, ``locale``'s first: a mail is read in every locale
    whatever its game's (module docstring), so ``Дуг TO Роза`` in a Russian game would be
    read as two names as surely as ``Дуг ДЛЯ Роза``.

    >>> name_words("en", ("common", "gm"), separators=True)[:4]
    ('STATUS', 'status', 'HELP', 'help')
    >>> import pbp.games.cluedo.reader  # a game's section: declared by its reader
    >>> "to" in name_words("ru", ("common", "cluedo"), separators=True)
    True

    :raises KeyError: ``locale`` or a section unknown (a game's: not declared, its
        module not imported).
    """
    vocabulary = current()
    if locale not in vocabulary.locales:
        raise KeyError(locale)
    found: list[str] = []
    for each in (locale, *(other for other in vocabulary.locales if other != locale)):
        for section in sections:
            for key, kind in vocabulary.schema[section].items():
                if kind == "command":
                    command = vocabulary.command(section, key, each)
                    found += [command.shown, *command.read]
                else:
                    lever = section == "gm" and key not in _GM_AROUND
                    parting = separators and key in vocabulary.separators.get(section, ())
                    if lever or parting:
                        found += vocabulary.words(section, key, each)
        found += vocabulary.words("", "new_address", each)
    return tuple(dict.fromkeys(found))


def alternation(words: tuple[str, ...]) -> str:
    """A regex group matching any of ``words`` (``word*``: the word's beginning and more
    letters of its script): ``("тюрьм*", "prison")`` → ``(?:тюрьм[а-яё]*|prison)``.
    Meant for patterns compiled with ``re.IGNORECASE``.

    >>> alternation(("в", "to", "камер*"))
    '(?:в|to|камер[а-яё]*)'
    """
    parts = []
    for word in words:
        if word.endswith("*"):
            prefix = word[:-1]
            letters = "[а-яё]" if re.search(r"[а-яё]", prefix, re.IGNORECASE) else "[a-z]"
            parts.append(re.escape(prefix) + letters + "*")
        else:
            parts.append(r"\s+".join(re.escape(w) for w in word.split()))
    return "(?:" + "|".join(parts) + ")"


def _check(
    path: Path, data: object, schema: Mapping[str, Mapping[str, str]], top: str = ""
) -> Mapping[str, object]:
    """``data`` (a file as read) if it holds every entry of ``schema`` (by section,
    ``""``: the file's top level, named ``top`` in an error: a game's section).

    :raises ValueError: a section or entry missing or of the wrong shape, named.
    """
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a mapping of sections")
    for section, keys in schema.items():
        entries = data if section == "" else data.get(section)
        if not isinstance(entries, dict):
            raise ValueError(f"{path}: section {section!r} missing")
        for key, kind in keys.items():
            name = section or top
            where = f"{path}: {name + '.' if name else ''}{key}"
            entry = entries.get(key)
            if kind == "command":
                if not (
                    isinstance(entry, dict)
                    and isinstance(entry.get("shown"), str)
                    and entry["shown"].strip()
                    and isinstance(entry.get("read"), list)
                    and all(isinstance(w, str) and w for w in entry["read"])
                ):
                    raise ValueError(f"{where}: needs {{shown: FORM, read: [words]}}")
            elif not (
                isinstance(entry, list)
                and all(isinstance(w, str) and w for w in entry)
                and (entry or kind == "list?")
            ):
                raise ValueError(f"{where}: needs a list of words")
    return data


def load(
    locales: tuple[str, ...],
    root: Path | None = None,
    games: tuple[Section, ...] | None = None,
) -> Vocabulary:
    """The vocabulary of ``locales``: pbp's own sections read from ``root`` (default
    ``pbp/locale``), each section of ``games`` (default: those declared,
    :func:`sections`) from its folder.

    :raises OSError: a file cannot be read. :raises ValueError: it lacks an entry.
    """
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def read(
        path: Path, schema: Mapping[str, Mapping[str, str]], top: str = ""
    ) -> dict[str, object]:
        with path.open(encoding="utf-8") as source:
            return dict(_check(path, yaml.load(source, Loader=loader), schema, top))

    games = sections() if games is None else games
    entries: dict[str, Mapping[str, object]] = {}
    for locale in locales:
        merged = read(keywords_path(locale, root), SCHEMA)
        for game in games:
            own = read(game.path(locale), {"": game.schema}, game.name)
            merged[game.name] = {key: own[key] for key in game.schema}
        entries[locale] = merged
    schema = {**SCHEMA, **{game.name: game.schema for game in games}}
    separators = {**SEPARATORS, **{game.name: game.separators for game in games}}
    return Vocabulary(tuple(locales), entries, schema, separators)


def current() -> Vocabulary:
    """The vocabulary of :data:`pbp.text.catalogs.LOCALES` from ``pbp/locale`` and the
    games' sections declared (read once, cached for the process; read again when a
    section is declared after)."""
    return _current(sections())


@functools.cache
def _current(games: tuple[Section, ...]) -> Vocabulary:
    from pbp.text import catalogs

    return load(tuple(catalogs.LOCALES), catalogs.CATALOGS, games)


def problems() -> list[str]:
    """What is wrong with the keywords files pbp ships and the games' sections declared
    (read again): a file that cannot be read, is not YAML, or lacks an entry; empty when
    none (:func:`pbp.text.catalogs.problems`
    for the catalogs)."""
    reload()
    try:
        current()
    except (OSError, ValueError, yaml.YAMLError) as error:
        return [f"keywords: {error}"]
    return []


def reload() -> None:
    """Forget the loaded vocabulary: the next :func:`current` reads the files again (a
    test's made-up locale)."""
    _current.cache_clear()
