"""The words players and GMs type, per locale (issue 16): command keywords (``ГОЛОС`` /
``VOTE``), the forms the help and the refusals show, and the words around them
(``тюрьма`` / ``prison``, ``ночь`` / ``night``, ``НОВЫЙ АДРЕС`` / ``NEW ADDRESS``).

They live beside each locale's translation catalog, in
``pbp/locale/<locale>/keywords.yaml`` (:func:`keywords_path`), and this module is their
only reader; the parsers (:mod:`pbp.games.maniac.parse`, :mod:`pbp.games.cluedo.parse`,
:mod:`pbp.text.gmcommands`, :mod:`pbp.text.commands`) accept the words of every locale of
:data:`pbp.text.catalogs.LOCALES` at once (a Russian game reads ``VOTE`` too) and show a
command in the locale of the word it was written in. Adding a language is its catalog
and its ``keywords.yaml``, with every entry of :data:`SCHEMA`: no code changes.

Why a file of its own rather than catalog entries: a keyword list is data with a shape
(a shown form, the words read, lists that are empty in one language: Russian has no
one-word UNVOTE, English no noun that heads a list of orders like «Заказы:»), while a
gettext entry is one string whose source side is the English text, kept in Python
(the msgid): an empty English list cannot be written (``msgid ""`` is the catalog's
header), an empty translation means "untranslated, show the English", and the English
words would live in Python source, not in English data.

Two kinds of entries (:data:`SCHEMA`):

- a **command**: ``{shown: ГОЛОС, read: [голос, голосую]}``; ``shown`` is the form of
  the help and of ``unknown_command``'s suggestion, ``read`` the words any grammatical
  form of which is the command (Snowball stems; may be empty when the command is read
  from two words, as ``СНЯТЬ ГОЛОС``);
- a **list** of words read as written (lower case for players' words, upper case for
  the GM's, compared after upper-casing); ``word*`` stands for any word that begins
  with ``word`` (``тюрьм*``: тюрьма, тюрьму, тюрьмой).

Loaded once per process (:func:`current`, about 3 ms for the two locales with
PyYAML's C loader, on the first line a parser reads, never at import) and checked
against :data:`SCHEMA` as loaded: a locale that lacks an entry, or has a command
without its ``shown`` form, is refused with the file and the entry named.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

#: What every locale's ``keywords.yaml`` holds, by section (``""``: the top level):
#: ``"command"`` entries (``{shown, read}``), ``"list"`` entries (at least one word) and
#: ``"list?"`` entries (may be empty in a locale).
SCHEMA: Mapping[str, Mapping[str, str]] = {
    "common": {"status": "command", "help": "command", "and": "list"},
    "maniac": {
        "vote": "command",
        "unvote": "command",
        "kill": "command",
        "skip": "command",
        "withdraw": "list",
        "possessive": "list",
        "orders_heading": "list?",
        "prison": "command",
        "cell": "command",
        "place_prepositions": "list",
        "against": "list",
        "night": "command",
        "night_bare": "list?",
        "night_prepositions": "list",
        "skip_fillers": "list",
    },
    "cluedo": {
        "suggest": "command",
        "refute": "command",
        "no_refutation": "command",
        "accuse": "command",
        "negation": "list",
        "addressee": "list",
        "number_prepositions": "list",
        "suggestion_forms": "list",
        "forum_heading": "list?",
    },
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
#: The lists whose words part the names within a command line, by section: «и» / "and"
#: between the players of a vote (Maniac), «против» / "against" before one, «для» /
#: "to" before a suggestion's addressee (Cluedo), «НА» / "BY" between a seat and its
#: substitute (GM). A player's name may not hold them (:func:`name_words`).
SEPARATORS: Mapping[str, tuple[str, ...]] = {
    "common": ("and",),
    "maniac": ("against",),
    "cluedo": ("addressee",),
    "gm": ("by",),
}


def keywords_path(locale: str, root: Path | None = None) -> Path:
    """``pbp/locale/<locale>/keywords.yaml`` (``root``: another ``pbp/locale``)."""
    from pbp.text import catalogs

    return (root or catalogs.CATALOGS) / locale / FILENAME


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
    entries: Mapping[str, Mapping[str, Mapping[str, Any]]]  # locale → section → entries

    def _entry(self, locale: str, section: str, key: str) -> Any:
        entries = self.entries[locale]
        return entries[key] if section == "" else entries[section][key]

    def command(self, section: str, key: str, locale: str) -> Command:
        """Command ``key`` of ``section`` in ``locale``."""
        entry = self._entry(locale, section, key)
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
        found = (str(w) for loc in chosen for w in self._entry(loc, section, key))
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
    >>> "to" in name_words("ru", ("common", "cluedo"), separators=True)
    True

    :raises KeyError: ``locale`` or a section unknown.
    """
    vocabulary = current()
    if locale not in vocabulary.locales:
        raise KeyError(locale)
    found: list[str] = []
    for each in (locale, *(other for other in vocabulary.locales if other != locale)):
        for section in sections:
            for key, kind in SCHEMA[section].items():
                if kind == "command":
                    command = vocabulary.command(section, key, each)
                    found += [command.shown, *command.read]
                else:
                    lever = section == "gm" and key not in _GM_AROUND
                    parting = separators and key in SEPARATORS.get(section, ())
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


def _check(path: Path, data: Any) -> Mapping[str, Any]:
    """``data`` (a locale's file as read) if it holds every entry of :data:`SCHEMA`.

    :raises ValueError: a section or entry missing or of the wrong shape, named.
    """
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a mapping of sections")
    for section, keys in SCHEMA.items():
        entries = data if section == "" else data.get(section)
        if not isinstance(entries, dict):
            raise ValueError(f"{path}: section {section!r} missing")
        for key, kind in keys.items():
            where = f"{path}: {section + '.' if section else ''}{key}"
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


def load(locales: tuple[str, ...], root: Path | None = None) -> Vocabulary:
    """The vocabulary of ``locales`` read from ``root`` (default ``pbp/locale``).

    :raises OSError: a file cannot be read. :raises ValueError: it lacks an entry.
    """
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    entries: dict[str, Mapping[str, Any]] = {}
    for locale in locales:
        path = keywords_path(locale, root)
        with path.open(encoding="utf-8") as source:
            entries[locale] = _check(path, yaml.load(source, Loader=loader))
    return Vocabulary(tuple(locales), entries)


@functools.cache
def current() -> Vocabulary:
    """The vocabulary of :data:`pbp.text.catalogs.LOCALES` from ``pbp/locale`` (read once,
    cached for the process)."""
    from pbp.text import catalogs

    return load(tuple(catalogs.LOCALES), catalogs.CATALOGS)


def problems() -> list[str]:
    """What is wrong with the keywords files pbp ships (read again): a file that cannot
    be read, is not YAML, or lacks an entry; empty when none (:func:`pbp.text.catalogs.problems`
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
    current.cache_clear()
