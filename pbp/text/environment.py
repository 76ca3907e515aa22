"""The Jinja2 environments of pbp's texts (:class:`pbp.text.render.Renderer` keeps one
per locale and format): where templates are found, the filters and globals
(:mod:`pbp.text.filters`) and the locale's catalog installed, and in a post format
every value made inert (issue 12, item 7: no outside text is ever read as BBCode or
Markdown, nor HTML-escaped).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import TypedDict, Unpack

import jinja2
import jinja2.compiler
import jinja2.nodes
from markupsafe import Markup

from pbp.text import catalogs
from pbp.text.fairness import commitment
from pbp.text.filters import (
    Format,
    PostFormat,
    and_list,
    bold,
    card_list,
    clock_filter,
    code,
    datetime_filter,
    duration_filter,
    gender_of_name,
    gm_deadline_levers,
    gm_keywords,
    hours_filter,
    inert,
    inflect_name,
    keyword_words,
    markup,
    number_filter,
    quote,
    span_filter,
    strip_controls_of,
    zone_filter,
)
from pbp.text.kindtexts import Kinds


def template_loader(root: Path, kinds: Mapping[str, Sequence[Path]]) -> jinja2.BaseLoader:
    """Where an environment finds a template by its name: ``<kind>/…`` in the folders
    ``kinds`` gives that kind (``{kind name: folders}``, first found first:
    :attr:`pbp.games.core.kind.GameKind.templates`, relative ones under ``root``), its
    refusal texts among them (``<kind>/errors/<code>.txt``); any other name under
    ``root``, pbp's template tree (``common/…``, the shared refusals
    ``errors/<code>.txt``)."""
    folders = {name: [root / folder for folder in found] for name, found in kinds.items()}
    return jinja2.ChoiceLoader(
        [
            jinja2.PrefixLoader({name: jinja2.FileSystemLoader(f) for name, f in folders.items()}),
            jinja2.FileSystemLoader(root),
        ]
    )


class _Options(TypedDict):
    """The options :func:`build_environment` gives every environment
    (:class:`jinja2.Environment`'s keyword arguments)."""

    loader: jinja2.BaseLoader
    undefined: type[jinja2.Undefined]
    trim_blocks: bool
    lstrip_blocks: bool
    keep_trailing_newline: bool
    extensions: Sequence[str]
    auto_reload: bool
    cache_size: int


def build_environment(
    loader: jinja2.BaseLoader,
    locale: str,
    fmt: Format,
    found: gettext.NullTranslations,
    post: Callable[..., str],
    kinds: Kinds,
) -> jinja2.Environment:
    """A new environment of ``locale`` and ``fmt`` reading templates from ``loader``:
    ``StrictUndefined``, ``trim_blocks`` and ``lstrip_blocks``, the filters of
    :mod:`pbp.text.filters`, the catalog ``found`` installed (its ``{{ variables }}``
    made inert) and the globals ``fmt``, ``locale``, ``br``, ``post`` (given: a public
    post rendered from inside a mail), ``gm_keywords``, ``gm_deadline_levers`` (of
    ``kinds``, :mod:`pbp.text.kindtexts`) and ``keyword_words``."""
    options: _Options = {
        "loader": loader,
        "undefined": jinja2.StrictUndefined,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
        "extensions": ["jinja2.ext.i18n"],
        # A template is read once (no stat of its file at every lookup, about 15 a
        # move); :meth:`pbp.text.render.Renderer.reload` (SIGHUP) reads every template again.
        "auto_reload": False,
        # Every template kept in a plain dict: the templates are a fixed set of a
        # few hundred, and Jinja2's LRU cache moved the key in a deque (a linear
        # remove) under a lock at each lookup, dozens a move (issue 18).
        "cache_size": -1,
    }
    env: jinja2.Environment
    if fmt == "text":
        # Mails: control characters removed from every {{ value }}.
        env = _Environment(finalize=strip_controls_of, **options)
    else:
        # Posts: every {{ value }} made inert unless it is Markup (a filter's or a
        # macro's output); autoescape makes macros and {% set %} blocks Markup.
        env = _PostEnvironment(fmt, **options)
    filters: dict[str, Callable[..., object]] = {
        "b": lambda value: bold(value, fmt),
        "quote": lambda value: quote(value, fmt),
        "code": lambda value: code(value, fmt),
        "card_list": lambda cards, emphasis=True: card_list(cards, fmt, emphasis),
        "inflect": inflect_name,
        "gender": gender_of_name,
        "and_list": and_list,
        "dt": datetime_filter(fmt),
        "clock": clock_filter(fmt),
        "zone": zone_filter(fmt),
        "hours": hours_filter,
        "number": number_filter,
        "duration": duration_filter,
        "span": span_filter,
        "sha256": lambda text: commitment(str(text)),
    }
    if fmt != "text":
        # Jinja2's join would HTML-escape plain items beside a Markup one.
        filters["join"] = lambda items, sep="": markup(
            inert(sep, fmt).join(inert(item, fmt) for item in items), fmt
        )
    env.filters.update(filters)
    # Texts from the locale's catalog (pbp.text.catalogs), their variables made inert.
    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update(catalogs.gettext_callables(found, fmt))
    env.globals.update(
        fmt=fmt,
        locale=locale,
        br="\n\n" if fmt == "markdown" else "\n",
        post=post,
        gm_keywords=gm_keywords,
        gm_deadline_levers=gm_deadline_levers(kinds),
        keyword_words=keyword_words,
    )
    return env


class _InertCodeGenerator(jinja2.compiler.CodeGenerator):
    """Jinja2's code generator for posts, with two changes so that no outside text is
    ever HTML-escaped (Jinja2's autoescape knows only HTML) or left as markup:

    - ``a ~ b`` joins through :meth:`_PostEnvironment.inert_join` (Jinja2's
      ``markup_join`` would HTML-escape the plain parts as soon as one is Markup);
    - no output expression is folded at compile time (Jinja2 would HTML-escape a
      string constant there, before ``finalize``): it goes through ``finalize`` at
      render time like any value. Template text itself is untouched.
    """

    def visit_Concat(self, node: jinja2.nodes.Concat, frame: jinja2.compiler.Frame) -> None:
        self.write("environment.inert_join((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    def _output_child_to_const(
        self,
        node: jinja2.nodes.Expr,
        frame: jinja2.compiler.Frame,
        finalize: jinja2.compiler.CodeGenerator._FinalizeInfo,
    ) -> str:
        if not isinstance(node, jinja2.nodes.TemplateData):
            raise jinja2.nodes.Impossible()
        text: str = super()._output_child_to_const(node, frame, finalize)
        return text


class _Environment(jinja2.Environment):
    """A Jinja2 environment whose templates' globals are a plain dict, a copy of the
    environment's (Jinja2's own :meth:`~jinja2.Environment.make_globals` chains them in
    a :class:`collections.ChainMap`, which every render copies and every ``import``
    compares key by key: about a tenth of a mail's rendering). The same names and
    values: :func:`build_environment` sets every global before any template is
    loaded, and none changes after."""

    def make_globals(self, d: MutableMapping[str, object] | None) -> MutableMapping[str, object]:
        return {**self.globals, **(d or {})}

    def getattr(self, obj: object, attribute: str) -> object:
        """``obj.attribute`` in a template, as Jinja2 reads it (the attribute, else the
        item, else undefined), with a dict's key looked up first when no attribute of
        a dict has that name: Jinja2 tries the attribute first, and the exception a
        dict raises for ``event.kind``, ``result.line``… cost a tenth of rendering
        (issue 18). The same value in every case."""
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


#: The attributes of a dict (``items``, ``keys``…), which ``d.items`` in a template
#: means before a key ``"items"``.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _PostEnvironment(_Environment):
    """The environment of one post format (``bbcode``, ``markdown``): every value made
    inert (:func:`inert`), markup kept as :class:`~markupsafe.Markup`."""

    code_generator_class = _InertCodeGenerator

    def __init__(self, fmt: PostFormat, **options: Unpack[_Options]) -> None:
        super().__init__(autoescape=True, finalize=lambda value: inert(value, fmt), **options)
        self.fmt: PostFormat = fmt

    def inert_join(self, parts: Iterable[object]) -> str:
        """``a ~ b ~ …``: each part inert, joined as markup."""
        return Markup("".join(inert(part, self.fmt) for part in parts))
