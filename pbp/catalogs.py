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
``pbp/locale/xx/keywords.yaml`` (:mod:`pbp.keywords`, which reads :data:`LOCALES` and
:data:`CATALOGS` from here), and add ``xx`` to :data:`LOCALES`.
"""

from __future__ import annotations

import functools
import gettext
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from babel.messages import mofile, pofile
from babel.support import Translations
from markupsafe import Markup

from pbp.inert import escape_bbcode, escape_markdown, strip_controls

#: The locales pbp speaks (``locale:`` of a game in ``games.yaml``).
LOCALES = ("ru", "en")
#: The locale the messages are written in: its catalog's entries are empty.
SOURCE = "en"
#: ``pbp/locale``: ``<locale>/LC_MESSAGES/pbp.po`` and the template ``pbp.pot``.
CATALOGS = Path(__file__).resolve().parent / "locale"
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
    with catalog_path(locale).open("rb") as source:
        catalog = pofile.read_po(source, locale=locale, domain=DOMAIN)
    compiled = io.BytesIO()
    mofile.write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def _filled(text: str, variables: Mapping[str, Any], fmt: str) -> str:
    """A translated ``text`` with its ``%(name)s`` placeholders filled.

    The text is template text (the catalog's), never escaped; each value is outside
    text made inert in a post format (a Markup value, a filter's output, passes as it
    is) and stripped of control characters in a mail (``text``), as every
    ``{{ value }}`` of a template is (:func:`pbp.render.inert`).
    """
    if fmt == "text":
        return text % {k: strip_controls(str(v)) for k, v in variables.items()}
    escape = escape_bbcode if fmt == "bbcode" else escape_markdown
    inert = {k: v if isinstance(v, Markup) else escape(str(v)) for k, v in variables.items()}
    return Markup(text % inert)


def gettext_callables(found: gettext.NullTranslations, fmt: str) -> dict[str, Any]:
    """The template globals ``gettext`` (also ``_``), ``ngettext``, ``pgettext`` and
    ``npgettext`` of one (catalog, format) environment: the translated message with its
    variables filled by :func:`_filled` (Jinja2's own "newstyle" callables would
    HTML-escape them). ``ngettext`` also fills ``num`` with the count, as Jinja2's do.
    """

    def gettext_(message: str, /, **variables: Any) -> str:
        return _filled(found.gettext(message), variables, fmt)

    def ngettext_(singular: str, plural: str, num: int, /, **variables: Any) -> str:
        variables.setdefault("num", num)
        return _filled(found.ngettext(singular, plural, num), variables, fmt)

    def pgettext_(context: str, message: str, /, **variables: Any) -> str:
        return _filled(found.pgettext(context, message), variables, fmt)

    def npgettext_(context: str, singular: str, plural: str, num: int, /, **variables: Any) -> str:
        variables.setdefault("num", num)
        return _filled(found.npgettext(context, singular, plural, num), variables, fmt)

    return {
        "gettext": gettext_,
        "_": gettext_,
        "ngettext": ngettext_,
        "pgettext": pgettext_,
        "npgettext": npgettext_,
    }
