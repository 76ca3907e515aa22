"""The translation catalogs of pbp's texts (issue 16): one gettext ``.po`` per locale.

Every text players and GMs read is written once, in English, in the templates of
``templates/`` (``{% trans %}`` blocks and ``_()`` calls, :mod:`jinja2.ext.i18n`); a
locale's catalog ``pbp/locale/<locale>/LC_MESSAGES/pbp.po`` gives each message in its
language. The English catalog is the messages themselves (its entries are empty, so
the message is the text). ``scripts/catalogs`` extracts the messages (Babel, mapping
``babel.cfg``) and brings every catalog up to date; ``tests/test_catalogs.py`` checks
that no catalog lacks a message, keeps one no template uses, or leaves one
untranslated.

A catalog is compiled when it is first loaded (Babel reads the ``.po`` and writes a
``.mo`` in memory): nothing compiled is kept in the repository or must be rebuilt at
install. Plural forms come from the catalog's ``Plural-Forms`` header, which Babel
writes from CLDR's rule for the locale (Russian: one, few, many).

Adding a language: ``pybabel init -D pbp -d pbp/locale -i pbp/locale/pbp.pot -l xx``,
translate ``pbp/locale/xx/LC_MESSAGES/pbp.po``, write the words its players type in
``pbp/locale/xx/keywords.yaml`` and each game's ``keywords/xx.yaml``
(:mod:`pbp.text.keywords`, which reads :data:`LOCALES` and :data:`CATALOGS` from here),
and add ``xx`` to :data:`LOCALES`.
"""

from __future__ import annotations

import copy
import functools
import gettext
import io
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from babel.messages import mofile, pofile
from babel.messages.catalog import Catalog, Message
from babel.support import Translations
from markupsafe import Markup

from pbp.mail.safetext import strip_controls
from pbp.text.inert import escape_bbcode, escape_markdown
from pbp.text.kindtexts import Kinds

#: The locales pbp speaks (``locale:`` of a game in ``games.yaml``).
LOCALES = ("ru", "en")
#: The locale the messages are written in: its catalog's entries are empty.
SOURCE = "en"
#: ``pbp/locale``: ``<locale>/LC_MESSAGES/pbp.po`` and the template ``pbp.pot``.
CATALOGS = Path(__file__).resolve().parents[1] / "locale"
DOMAIN = "pbp"


def catalog_path(locale: str) -> Path:
    """``pbp/locale/<locale>/LC_MESSAGES/pbp.po``."""
    return CATALOGS / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(locale: str) -> gettext.NullTranslations:
    """The compiled catalog of ``locale`` (cached for the process).

    Fuzzy entries are left out (they are not translations yet), so their message shows
    in English rather than a wrong text.

    :raises ValueError: ``locale`` is not one of :data:`LOCALES`.
    :raises OSError: its ``.po`` file cannot be read.
    """
    if locale not in LOCALES:
        raise ValueError(f"unknown locale {locale!r}: use one of {LOCALES}")
    compiled = io.BytesIO()
    catalog = _parsed(locale)
    mofile.write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def own_catalog_path(folder: Path, domain: str, locale: str) -> Path:
    """A game's own catalog of ``locale``: ``<folder>/<locale>/LC_MESSAGES/<domain>.po``."""
    return folder / locale / "LC_MESSAGES" / f"{domain}.po"


def _read(path: Path, locale: str, domain: str) -> Catalog:
    """The catalog at ``path`` as Babel reads it (never cut short).

    :raises OSError: the file cannot be read.
    :raises babel.messages.pofile.PoFileError: a line cannot be parsed.
    """
    with path.open("rb") as source:
        return pofile.read_po(source, locale=locale, domain=domain, abort_invalid=True)


@functools.cache
def own_translations(folder: Path, domain: str, locale: str) -> gettext.NullTranslations | None:
    """A game's own catalog of ``locale``: ``<folder>/<locale>/LC_MESSAGES/<domain>.po``
    (:attr:`pbp.games.core.kind.GameKind.catalogs`: a game outside pbp ships its
    translations in its package), compiled as pbp's are, fuzzy entries left out; None
    when the game has none for ``locale`` (cached for the process).

    :raises OSError: the file cannot be read.
    :raises babel.messages.pofile.PoFileError: a line cannot be parsed.
    """
    path = own_catalog_path(folder, domain, locale)
    if not path.is_file():
        return None
    catalog = _read(path, locale, domain)
    compiled = io.BytesIO()
    mofile.write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=domain)


def chained(
    first: gettext.NullTranslations, fallbacks: Sequence[gettext.NullTranslations]
) -> gettext.NullTranslations:
    """``first`` with ``fallbacks`` asked in order for a message it lacks (gettext's
    ``add_fallback``): pbp's catalog, then the games' own. Copies are chained: the
    cached catalogs themselves are never changed."""
    head = copy.copy(first)
    for fallback in fallbacks:
        head.add_fallback(copy.copy(fallback))
    return head


@functools.cache
def _parsed(locale: str) -> Catalog:
    """The catalog of ``locale`` as Babel reads it (cached for the process).

    :raises OSError: the file cannot be read.
    :raises babel.messages.pofile.PoFileError: a line cannot be parsed (a catalog is
        never read cut short).
    """
    return _read(catalog_path(locale), locale, DOMAIN)


def problems(kinds: Kinds | None = None) -> list[str]:
    """What is wrong with the texts pbp ships, and with the own catalogs
    (:attr:`~pbp.text.kindtexts.KindTexts.catalogs`) of ``kinds`` (the game kinds by
    name, :mod:`pbp.text.kindtexts`; in pbp the registry's), one sentence each (empty
    when none): a catalog that cannot be read or parsed, a translation whose
    ``%(name)s`` placeholders or ``%`` signs do not fit its message (Babel's checkers).
    A kind's catalog of a locale it lacks is no problem (its messages are pbp's). ``pbp
    check`` prints them, with :func:`pbp.text.keywords.problems`, and ``pbp run`` refuses
    to start with them, so that a damaged installation or game shows at once instead of
    as English texts or a failed move later.
    """
    found: list[str] = []
    for locale in LOCALES:
        path = catalog_path(locale)
        try:
            catalog = _parsed(locale)
        except (OSError, ValueError, pofile.PoFileError) as error:
            found.append(f"{path}: cannot be read: {error}")
            continue
        found.extend(_catalog_problems(path, catalog))
    for name, kind in (kinds or {}).items():
        if kind.catalogs is None:
            continue
        for locale in LOCALES:
            path = own_catalog_path(kind.catalogs, name, locale)
            if not path.is_file():
                continue
            try:
                catalog = _read(path, locale, name)
            except (OSError, ValueError, pofile.PoFileError) as error:
                found.append(f"{path}: cannot be read: {error}")
                continue
            found.extend(_catalog_problems(path, catalog))
    return found


def _catalog_problems(path: Path, catalog: Catalog) -> list[str]:
    """The problems of one read ``catalog`` (at ``path``), as :func:`problems` words them."""
    found: list[str] = []
    for message, errors in catalog.check():
        for checked in errors:
            found.append(f"{path}:{message.lineno}: {message.id!r}: {checked}")
    for message in catalog:
        if message.id:
            found.extend(_unfillable(path, message))
    return found


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _unfillable(path: Path, message: Message) -> list[str]:
    """The translations of ``message`` that :func:`_filled` could not fill with the
    variables its message names (a stray ``%``, an unknown placeholder)."""
    ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
    names = {name for text in ids for name in _PLACEHOLDER.findall(text)} | {"num"}
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    found: list[str] = []
    for text in strings:
        if not text:
            continue
        try:
            text % dict.fromkeys(names, "x")
        except (KeyError, ValueError, TypeError) as error:
            found.append(f"{path}:{message.lineno}: {text!r}: cannot be filled ({error!r})")
    return found


def _filled(text: str, variables: Mapping[str, object], fmt: str) -> str:
    """A translated ``text`` with its ``%(name)s`` placeholders filled.

    The text is template text (the catalog's), never escaped; each value is outside
    text made inert in a post format (a Markup value, a filter's output, passes as it
    is) and stripped of control characters in a mail (``text``), as every
    ``{{ value }}`` of a template is (:func:`pbp.text.filters.inert`).
    """
    if not variables and "%" not in text:  # nothing to fill (most messages)
        return text if fmt == "text" else Markup(text)
    if fmt == "text":
        return text % {k: _without_controls(str(v)) for k, v in variables.items()}
    escape = _bbcode if fmt == "bbcode" else _markdown
    inert = {k: v if isinstance(v, Markup) else escape(str(v)) for k, v in variables.items()}
    return Markup(text % inert)


# The values a message is filled with recur (players' and cards' names, numbers): each
# made inert once (issue 18).
_without_controls = functools.lru_cache(maxsize=4096)(strip_controls)
_bbcode = functools.lru_cache(maxsize=4096)(escape_bbcode)
_markdown = functools.lru_cache(maxsize=4096)(escape_markdown)


def gettext_callables(found: gettext.NullTranslations, fmt: str) -> dict[str, Callable[..., str]]:
    """The template globals ``gettext`` (also ``_``), ``ngettext``, ``pgettext`` and
    ``npgettext`` of one (catalog, format) environment: the translated message with its
    variables filled by :func:`_filled` (Jinja2's own "newstyle" callables would
    HTML-escape them). ``ngettext`` also fills ``num`` with the count, as Jinja2's do.
    """

    def gettext_(message: str, /, **variables: object) -> str:
        return _filled(found.gettext(message), variables, fmt)

    def ngettext_(singular: str, plural: str, num: int, /, **variables: object) -> str:
        variables.setdefault("num", num)
        return _filled(found.ngettext(singular, plural, num), variables, fmt)

    def pgettext_(context: str, message: str, /, **variables: object) -> str:
        return _filled(found.pgettext(context, message), variables, fmt)

    def npgettext_(
        context: str, singular: str, plural: str, num: int, /, **variables: object
    ) -> str:
        variables.setdefault("num", num)
        return _filled(found.npgettext(context, singular, plural, num), variables, fmt)

    return {
        "gettext": gettext_,
        "_": gettext_,
        "ngettext": ngettext_,
        "pgettext": pgettext_,
        "npgettext": npgettext_,
    }
