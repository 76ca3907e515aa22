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
from typing import TypeVar, cast

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


#: The value :func:`renamed` is given: it returns one of the same shape.
T = TypeVar("T")


def renamed(value: T, names: Mapping[str, ShownName]) -> T:
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
    # Each branch returns ``value``'s shape (a ShownName is a str; a TypedDict a dict).
    found: object = value
    if type(found) is str:
        found = names.get(found, found)
    elif isinstance(found, Mapping):
        found = {renamed(k, names): renamed(v, names) for k, v in found.items()}
    elif type(found) is list:
        found = [renamed(v, names) for v in found]
    elif type(found) is tuple:
        found = tuple(renamed(v, names) for v in found)
    elif isinstance(found, Event) and found.kind != "gm_substitute":
        data, player = renamed(found.data, names), renamed(found.player, names)
        found = dataclasses.replace(found, data=data, player=player)
    return cast(T, found)
