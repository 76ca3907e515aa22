"""A count and its noun in English, for what the command line and the log print
(issue 31, item 9: "opened, 1 messages"): ``1 message``, ``2 messages``, by CLDR's
plural rule for English (Babel). Texts players and GMs receive by mail take their
plurals from the catalogs (``ngettext``) instead.

Pure.
"""

from __future__ import annotations

import functools

from babel import Locale


@functools.cache
def _english() -> Locale:
    return Locale.parse("en")


def counted(number: int, one: str, other: str | None = None) -> str:
    """``number`` and the noun in the form that count takes: ``one`` for CLDR's
    ``one`` (1), else ``other`` (default: ``one`` + ``s``).

    >>> counted(1, "message"), counted(0, "message"), counted(2, "reply", "replies")
    ('1 message', '0 messages', '2 replies')
    """
    singular = _english().plural_form(number) == "one"
    return f"{number} {one if singular else (other or one + 's')}"
