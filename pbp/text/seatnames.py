"""How texts name a seat a substitute plays (``pbp substitute``): «Дэйв (вместо
Кэрол)» in posts, vote lists and the story, «Дэйв» in his own mails.

The engines know seats by the names they were dealt; who plays a seat now is the
shell's (:meth:`pbp.store.Store.substitutes`). The text layer replaces a seat's name by
a :class:`ShownName` in what a template gets (:func:`renamed`), once, in Python
(:meth:`pbp.text.render.Renderer.shown_names` makes them, in the text's language), and the
templates only lay it out; ``name|inflect`` declines the substitute's name and keeps the
parenthesis (rule P2). Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pbp.games.core.events import Event


class ShownName(str):
    """A seat's name as a text shows it while a substitute plays the seat (``pbp
    substitute``): the string is the whole label, «Дэйв (вместо Кэрол)» (in his own
    mails only «Дэйв»); ``person`` is the substitute's name, the word a sentence
    declines and whose gender it follows (:func:`pbp.text.filters.inflect_name`,
    :func:`pbp.text.filters.gender_of_name`:
    «голос за Дэйва (вместо Кэрол)»); ``rest`` the parenthesis, kept as it is; ``seat``
    the seat's own name. Made once per text by :meth:`pbp.text.render.Renderer.shown_names`."""

    person: str
    rest: str
    seat: str

    def __new__(cls, person: str, rest: str, seat: str) -> ShownName:
        shown = super().__new__(cls, person + rest)
        shown.person, shown.rest, shown.seat = person, rest, seat
        return shown


def renamed(value: Any, names: Mapping[str, ShownName]) -> Any:
    """``value`` with every seat name of ``names`` replaced by how the text shows it:
    a ``str`` equal to one, as a value or a dict key, inside dicts, lists, tuples and
    events (their ``data`` and ``player``); anything else as it is. A ``gm_substitute``
    event is kept as logged: it tells the change itself («Дэйв заменяет Кэрол»).
    Exact equality only, so a card or a word is never taken for a name it contains.

    >>> shown = {"Кэрол": ShownName("Дэйв", " (вместо Кэрол)", "Кэрол")}
    >>> renamed({"votes": [{"voter": "Кэрол", "target": "Алиса"}]}, shown)
    {'votes': [{'voter': 'Дэйв (вместо Кэрол)', 'target': 'Алиса'}]}
    """
    if not names:
        return value
    if type(value) is str:
        return names.get(value, value)
    if isinstance(value, Mapping):
        return {renamed(k, names): renamed(v, names) for k, v in value.items()}
    if type(value) is list:
        return [renamed(v, names) for v in value]
    if type(value) is tuple:
        return tuple(renamed(v, names) for v in value)
    if isinstance(value, Event) and value.kind != "gm_substitute":
        return dataclasses.replace(
            value, data=renamed(value.data, names), player=renamed(value.player, names)
        )
    return value
