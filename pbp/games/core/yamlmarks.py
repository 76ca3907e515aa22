"""YAML with line numbers, and pydantic errors as YAML paths, for messages that point at a line.

Used by :mod:`pbp.config.loading` and :mod:`pbp.config.model`, and by the games' own
models (:mod:`pbp.games.core.gameconfig` and each game's ``config.py``): it lives in the
seam, below the configuration that reads ``games.yaml``.

:func:`load_marked` parses a document once with PyYAML, keeping the node tree's marks:
every path in the document (``("games", 0, "players", 2, "email")``) is mapped to its
1-based line — a mapping entry to the line of its key, a sequence item to the line
where it starts.

Scalars follow the YAML 1.2 core schema rather than PyYAML's YAML 1.1: only
``true``/``false`` (any case style) are booleans (``no`` stays the text "no"), an
unquoted ``22:30`` stays the text "22:30" (YAML 1.1 reads the number 1350), ``010``
is the integer 10, and dates stay text.

A document is read within bounds (:class:`YamlLimits`): at most ``nodes`` nodes (a
scalar, a list, a mapping; the keys too) counted with every alias expanded, nested at
most ``depth`` deep, and no alias inside the node it names. The count is kept as the
parser's events come, before any node or Python object is built, so an alias bomb
("billion laughs": ten aliases of ten aliases of …, 747 bytes standing for 10**9
nodes) is refused in about a millisecond with under 100 KB allocated, where it used to
grow the memory without bound.

:func:`explain` turns one pydantic error into (YAML path, message) pairs: union tags
are taken out of pydantic's ``loc``, unknown keys get "did you mean", and problems
that a model validator raised with :func:`checks_error` come out one per path.
"""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic_core import ErrorDetails, PydanticCustomError

from pbp.text.counted import counted

YamlPath = tuple[str | int, ...]
"""A path into a document: mapping keys (str) and sequence indices (int)."""

Found = list[tuple[YamlPath, str]]
"""Problems found by a model's own checks: (path relative to the model, message)."""


class YamlSyntaxError(ValueError):
    """The text is not well-formed YAML. ``line`` is 1-based (None when unknown)."""

    def __init__(self, line: int | None, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line else message)


class YamlValueError(ValueError):
    """The text is well-formed YAML but a value in it cannot be read: a character YAML
    forbids (a NUL, an ESC, even in a comment), a tagged value that is no such value
    (``!!timestamp 2026-13-45``), an integer of more than :data:`MAX_DIGITS` digits.
    ``line`` is 1-based; ``message`` one sentence, e.g. ``"the character U+0000 is not
    allowed in YAML, not even in a comment: remove it"``."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


#: The most digits of an integer in a document (a seed of 2**63 has 19): a longer one
#: is a :class:`YamlValueError` (Python refuses 4,300 and more with its own words).
MAX_DIGITS = 100


class YamlLimitError(ValueError):
    """The text is well-formed so far but over a bound of :class:`YamlLimits`; ``line``
    (1-based) is where the bound was crossed, ``message`` says which, e.g. ``"the
    document nests lists and mappings more than 50 deep"``."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class YamlLimits:
    """What :func:`load_marked` reads at most.

    ``nodes``: nodes of the document (scalars, lists, mappings, the keys included),
    each alias counted as the whole node it names, so that the Python value and the
    walks over it stay as large as a document without aliases could be. ``depth``:
    lists and mappings nested in each other (``[[[x]]]`` is 3).
    """

    nodes: int = 262_144
    depth: int = 50


class _Budget:
    """The count of :class:`YamlLimits` over one document, fed with its parser's events
    in order (:meth:`take` for each node's first event, :meth:`close` for a list's or a
    mapping's end).

    An alias counts the nodes of what it names (known at the named node's end); an
    alias of an anchor the document has not given counts 1 (the composer refuses it).

    :raises YamlLimitError: from :meth:`take`, at the event that crosses a bound.
    """

    def __init__(self, limits: YamlLimits) -> None:
        self.limits = limits
        self.nodes = 0
        self.open: list[tuple[str | None, int]] = []  # (anchor, nodes before it), outermost first
        self.sizes: dict[str, int] = {}  # anchor -> nodes of the node it names

    def take(self, event: yaml.Event) -> None:
        """Count the node that ``event`` (an alias, scalar, sequence or mapping start) begins."""
        if type(event) is yaml.ScalarEvent:  # most nodes: first, and short
            self.nodes += 1
            if event.anchor is not None:
                self.sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            anchor = str(event.anchor)
            if any(name == anchor for name, _before in self.open):
                raise YamlLimitError(
                    _line(event), f"the alias *{anchor} stands inside the node it names (a loop)"
                )
            self.nodes += self.sizes.get(anchor, 1)
        elif isinstance(event, yaml.CollectionStartEvent):
            if len(self.open) >= self.limits.depth:
                deep = self.limits.depth
                raise YamlLimitError(
                    _line(event), f"the document nests lists and mappings more than {deep} deep"
                )
            self.open.append((event.anchor, self.nodes))
            self.nodes += 1
        if self.nodes > self.limits.nodes:
            raise YamlLimitError(
                _line(event),
                f"the document holds more than {self.limits.nodes:,} nodes (values, keys, "
                "lists, mappings) with its aliases expanded (an alias bomb?)",
            )

    def close(self) -> None:
        """The innermost open list or mapping ended."""
        anchor, before = self.open.pop()
        if anchor is not None:
            self.sizes[anchor] = self.nodes - before


def _line(event: yaml.Event) -> int:
    """The 1-based line where ``event`` starts (1 when unknown)."""
    return event.start_mark.line + 1 if event.start_mark is not None else 1


@dataclass(frozen=True)
class Marked:
    """A parsed document with the line of every path.

    ``data``: the plain Python value (dicts, lists, str, int, float, bool, None), read
    by its type (``isinstance``): it is what the file holds, not yet checked.
    ``lines``: path → 1-based line, e.g. ``{(): 1, ("store",): 7, ("games", 0): 9}``.
    ``duplicates``: (path, line) of each repeated mapping key after its first occurrence.
    """

    data: object
    lines: Mapping[YamlPath, int]
    duplicates: list[tuple[YamlPath, int]]

    def line_of(self, path: YamlPath) -> int | None:
        """The line of ``path``, or of its nearest ancestor present in the document."""
        for n in range(len(path), -1, -1):
            if path[:n] in self.lines:
                return self.lines[path[:n]]
        return None


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema scalars; with a :class:`_Budget` in
    ``budget``, its composer counts every node before composing it."""

    budget: _Budget | None = None

    def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
        return _construct(super().construct_object, node, deep)

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.budget is None:
            return super().compose_node(parent, index)
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
        self.budget.take(event)
        node = super().compose_node(parent, index)
        if isinstance(event, yaml.CollectionStartEvent):
            self.budget.close()
        return node


_Loader.yaml_implicit_resolvers = {
    first: [
        (tag, rx)
        for tag, rx in resolvers
        if tag.rsplit(":", 1)[-1] not in {"bool", "int", "float", "timestamp"}
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _construct_int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    digits = str(node.value).lstrip("+-")
    if len(digits) > MAX_DIGITS:
        raise ValueError(f"a number of {len(digits):,} digits: pbp reads at most {MAX_DIGITS}")
    return int(str(node.value), 10)


def _construct(
    construct: Callable[[yaml.Node, bool], object], node: yaml.Node, deep: bool
) -> object:
    """``construct(node, deep)`` (a loader's ``construct_object``), with a value that
    its constructor cannot make (``!!timestamp 2026-13-45``: ValueError; ``!!bool
    maybe``: KeyError) as a :class:`YamlValueError` at the node's line.

    :raises YamlValueError: the value cannot be made.
    """
    try:
        return construct(node, deep)
    except (yaml.YAMLError, YamlValueError, YamlLimitError, MemoryError, RecursionError):
        raise
    except Exception as exc:
        tag = str(node.tag).rsplit(":", 1)[-1]
        shown = str(node.value) if isinstance(node, yaml.ScalarNode) else ""
        shown = shown if len(shown) <= 40 else f"{shown[:40]}…"
        why = (
            "no such value"
            if isinstance(exc, KeyError) or not str(exc)
            else str(exc).splitlines()[0]
        )
        raise YamlValueError(
            node.start_mark.line + 1, f"the value {shown!r} cannot be read as !!{tag}: {why}"
        ) from None


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)

_FastLoader: type[yaml.CSafeLoader] | None = None
if getattr(yaml, "__with_libyaml__", False):

    class _CLoader(yaml.CSafeLoader):
        """:class:`_Loader` with libyaml's parser: a games file of 1,000 games takes
        0.3 s instead of 5 s (the daemon's start-up). A document it refuses is read
        again by :class:`_Loader`, whose error messages ``pbp check`` quotes."""

        def construct_object(self, node: yaml.Node, deep: bool = False) -> object:
            return _construct(super().construct_object, node, deep)

    _CLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
    _CLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    _FastLoader = _CLoader


def _index(
    node: yaml.Node, path: YamlPath, lines: dict[YamlPath, int], dups: list[tuple[YamlPath, int]]
) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "?"
            child = (*path, key)
            line = key_node.start_mark.line + 1
            if child in lines:
                dups.append((child, line))
            else:
                lines[child] = line
            _index(value_node, child, lines, dups)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            _index(item, (*path, i), lines, dups)


def _unclosed_quote(text: str, line: int) -> int | None:
    """The 1-based line at or above ``line`` (at most 50 back) whose value opens a quote
    it does not close (an odd count of ``"`` outside a comment), or None."""
    lines = text.splitlines()
    for number in range(min(line, len(lines)), max(0, line - 50), -1):
        source = lines[number - 1]
        code = source.split(" #", 1)[0] if not source.lstrip().startswith("#") else ""
        if code.replace('\\"', "").count('"') % 2:
            return number
    return None


def _check_events(loader: yaml.CSafeLoader, limits: YamlLimits) -> None:
    """Run ``loader``'s parser over the whole document, counting it with a
    :class:`_Budget` (libyaml's composer cannot be hooked: its events are counted in a
    pass before it; each event is dropped once counted).

    :raises YamlLimitError: a bound crossed.
    :raises yaml.YAMLError: the text is not well-formed.
    """
    budget = _Budget(limits)
    take, close, get = budget.take, budget.close, loader.get_event
    while loader.check_event():
        event = get()
        if isinstance(event, yaml.CollectionEndEvent):
            close()
        elif isinstance(event, yaml.NodeEvent):
            take(event)


def _read_fast(
    loader_class: type[yaml.CSafeLoader], text: str, limits: YamlLimits
) -> Marked | None:
    """``text`` read by libyaml (``loader_class``) within ``limits``: its events counted
    first (:func:`_check_events`), then composed and built. None when libyaml finds the
    text not well-formed: :class:`_Loader` reads it again for the error message.

    :raises YamlLimitError: a bound crossed.
    """
    counter = loader_class(text)
    try:
        _check_events(counter, limits)
    except yaml.YAMLError:
        return None
    finally:
        counter.dispose()
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return _marked(data, node)


def load_marked(text: str, limits: YamlLimits | None = None) -> Marked:
    """Parse one YAML document (an empty text gives ``data=None``) within ``limits``
    (default :class:`YamlLimits`).

    >>> m = load_marked("a:\\n  - x\\n  - 22:30\\n")
    >>> m.data, m.lines[("a", 1)]
    ({'a': ['x', '22:30']}, 3)

    :raises YamlSyntaxError: the text is not well-formed YAML (or holds several documents).
    :raises YamlLimitError: the document crosses a bound of ``limits``; nothing of it
        was composed beyond that point.
    :raises YamlValueError: a character YAML forbids (a NUL, an ESC, even in a
        comment), or a value that cannot be made (``!!timestamp 2026-13-45``, an
        integer of more than :data:`MAX_DIGITS` digits).
    """
    limits = limits or YamlLimits()
    if _FastLoader is not None:
        fast = _read_fast(_FastLoader, text, limits)
        if fast is not None:
            return fast
    try:
        loader = _Loader(text)  # its reader refuses a NUL, an ESC … here, at once
    except yaml.reader.ReaderError as exc:
        raise _forbidden(text, exc) from None
    loader.budget = _Budget(limits)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = str(exc.problem or exc.context or "not well-formed")
        # The parser notices a broken line where the next one starts, and an unclosed
        # quote runs on over the lines below it: name the likely line, in words.
        line = mark.line + 1 if mark else None
        quote = _unclosed_quote(text, line) if line else None
        if quote is not None:
            line, hint = quote, f"{message} (an unclosed quote on this line?)"
        else:
            where = (
                f" (look at this line and line {line - 1} above it" if line and line > 1 else " ("
            )
            hint = (
                f"{message}{where}: an unclosed quote, a missing ':' or a wrong indent is the "
                "usual cause)"
            )
        raise YamlSyntaxError(line, hint) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(None, str(exc)) from exc
    finally:
        loader.dispose()
    return _marked(data, node)


def _forbidden(text: str, error: yaml.reader.ReaderError) -> YamlValueError:
    """The character PyYAML's reader refused (``error``: a C0 control but tab and line
    breaks, DEL, a C1 control, U+FFFE …; YAML 1.1 §5.1) as a :class:`YamlValueError`
    at its line."""
    line = text.count("\n", 0, error.position) + 1
    return YamlValueError(
        line,
        f"the character U+{error.character:04X} is not allowed in YAML, not even in a "
        "comment: remove it",
    )


def _marked(data: object, node: yaml.Node | None) -> Marked:
    lines: dict[YamlPath, int] = {(): 1}
    dups: list[tuple[YamlPath, int]] = []
    if node is not None:
        _index(node, (), lines, dups)
    return Marked(data, lines, dups)


def show_path(path: YamlPath) -> str:
    """``("games", 0, "deal", "hands", "Дуг")`` → ``"games[0].deal.hands.Дуг"``.

    Keys that are not identifiers (hyphens allowed) are quoted: ``hands['Мария Ивановна']``.
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.replace("-", "_").isidentifier():
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """``"; did you mean 'нож'?"`` for the closest of ``choices``, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def checks_error(problems: Found) -> PydanticCustomError:
    """An error for a model validator to raise, carrying several problems at their own paths.

    Example: ``raise checks_error([(("players", 2, "name"), "duplicate name 'Дуг'")])``;
    :func:`explain` reports each at its path below the model's.
    """
    return PydanticCustomError(
        "pbp_checks", counted(len(problems), "problem"), {"problems": problems}
    )


def _unwrap(tp: object) -> object:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _models(tp: object) -> list[type[BaseModel]]:
    """The model classes of ``tp``, a model or a union of models (None ignored)."""
    tp = _unwrap(tp)
    options = get_args(tp) if get_origin(tp) in (Union, types.UnionType) else (tp,)
    return [o for o in map(_unwrap, options) if isinstance(o, type) and issubclass(o, BaseModel)]


def _walk(
    root: type[BaseModel], loc: Sequence[int | str], tag: str
) -> tuple[YamlPath, type[BaseModel] | None]:
    """The YAML path of pydantic's ``loc`` (union tags and ``[key]`` left out), and the
    model class the path ends at, if any."""
    path: list[str | int] = []
    tp: object = root
    for part in loc:
        models = _models(tp)
        tagged = [
            m
            for m in models
            if tag in m.model_fields and get_args(m.model_fields[tag].annotation) == (part,)
        ]
        if tagged:  # a discriminated union's tag: not part of the YAML path
            tp = tagged[0]
            continue
        if part == "[key]":
            continue
        path.append(part)
        inner = _unwrap(tp)
        if len(models) == 1 and isinstance(part, str) and part in models[0].model_fields:
            tp = models[0].model_fields[part].annotation
        elif get_origin(inner) in (list, tuple):
            tp = get_args(inner)[0]
        elif get_origin(inner) is dict:
            tp = get_args(inner)[1]
        else:
            tp = None
    models = _models(tp)
    return tuple(path), models[0] if len(models) == 1 else None


def explain(root: type[BaseModel], err: ErrorDetails, tag: str = "kind") -> Found:
    """One error of ``ValidationError.errors()`` (``root`` validated) as (path, message) pairs.

    ``tag`` is the discriminator field of the discriminated unions in ``root``. Example:
    ``{"type": "missing", "loc": ("games", 0, "cluedo_days", "gm"), ...}`` →
    ``[(("games", 0, "gm"), "required key is missing")]``.
    """
    kind = err["type"]
    path, _ = _walk(root, err["loc"], tag)
    if kind == "pbp_checks":
        return [((*path, *rel), msg) for rel, msg in err["ctx"]["problems"]]
    if kind == "extra_forbidden":
        _, parent = _walk(root, err["loc"][:-1], tag)
        key = str(path[-1])
        allowed = sorted(parent.model_fields) if parent else []
        hint = did_you_mean(key, allowed)
        return [(path, f"unknown key {key!r}{hint} (allowed: {', '.join(allowed)})")]
    if kind == "missing":
        return [(path, "required key is missing")]
    if kind == "union_tag_not_found":
        return [((*path, tag), "required key is missing")]
    if kind == "union_tag_invalid":
        ctx = err["ctx"]
        return [((*path, tag), f"unknown {tag} {ctx['tag']!r} (known: {ctx['expected_tags']})")]
    if kind == "value_error":
        return [(path, str(err["ctx"]["error"]))]
    value = err.get("input")
    got = f", got {value!r}" if isinstance(value, str | int | float | bool) or value is None else ""
    return [(path, f"{err['msg']}{got}")]
