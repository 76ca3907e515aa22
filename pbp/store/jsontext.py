"""The store's JSON text: the state snapshots (``games.state``) and the events' data
(``events.data``), written and read after every move. The one place that chooses how.

orjson, several times faster than the standard ``json`` (issue 18), with the same
values both ways: what the earlier ``json.dumps(…, ensure_ascii=False)`` wrote reads
back equal, and ``json.loads`` reads what :func:`dumps` writes. The text itself
differs (no spaces after ``,`` and ``:``); nothing compares it with text written by
``json`` (the writer's state cache, :meth:`pbp.app.table.GameTable.state`, compares the
store's text with the store's text). Where ``json`` and orjson differ:

- keys that are not strings (int, float, bool, None): written as ``json`` writes them
  (``1`` → ``"1"``, ``True`` → ``"true"``), on a second, slower try;
- integers beyond 64 bits (``json`` wrote them; orjson reads them back as floats):
  refused (:class:`TypeError`); pbp never stores one (a count, a day, a seed of a
  64-bit ``games.seed`` column);
- a datetime or a dataclass: refused (:class:`TypeError`) as ``json`` refuses it,
  rather than written as orjson would (a string, a dict) and read back as another
  value;
- NaN and the infinities: ``json`` wrote ``NaN``, ``Infinity``, which only it reads
  (:func:`loads` falls back to it); orjson writes ``null``. The only floats stored are
  a game's hours, which its config keeps finite.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

#: A datetime or a dataclass raises TypeError, as with ``json``.
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
#: The second try, for keys that are not strings (slower: not the first one's).
_NON_STR_KEYS = _OPTIONS | orjson.OPT_NON_STR_KEYS


def dumps(value: object) -> str:
    """``value`` as JSON text, non-ASCII kept as is (UTF-8 in the store), compact.

    >>> dumps({"by": "Веталь", "cards": ("нож", 7), 3: None})
    '{"by":"Веталь","cards":["нож",7],"3":null}'

    :raises TypeError: ``value`` holds something that is not JSON (a set, a datetime,
        a string with a lone surrogate) or an integer beyond 64 bits.
    """
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:
        # A key that is not a string, or a value refused again just below.
        return orjson.dumps(value, option=_NON_STR_KEYS).decode()


def loads(text: str | bytes) -> Any:  # as json.loads: read by the shape its writer gave it
    """The value of JSON ``text`` (as :func:`dumps` or ``json.dumps`` wrote it).

    >>> loads('{"by": "Веталь", "n": [1, 2.5, null]}')
    {'by': 'Веталь', 'n': [1, 2.5, None]}

    :raises ValueError: ``text`` is not JSON (a :class:`json.JSONDecodeError`).
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # What only json reads (NaN, Infinity) or nobody does (the error is json's).
        return json.loads(text)
