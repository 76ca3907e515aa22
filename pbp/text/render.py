"""Rendering forum posts and private mails from Jinja2 templates (DESIGN.md, "render").

Templates live in one tree, ``templates/``, for every locale: ``cluedo_days/posts/day.j2``,
``cluedo_days/mail/welcome.j2``, ``common/mail/gm_notice.j2``, ``errors/<code>.txt``.
A kind's template that is not in its own folder is looked up in the folders of the
kind's ``template_families``, in order (:class:`_FamilyLoader`): ``cluedo_days/mail/
removed.j2`` is ``cluedo/mail/removed.j2``, the texts both Cluedo variants share.
Their words are English messages (``_()``, ``{% trans %}``, :mod:`jinja2.ext.i18n`) that
each locale's catalog translates (:mod:`pbp.text.catalogs`); one environment per (locale,
format) has its catalog installed.

Public posts come in two formats, ``bbcode`` (classic forums) and ``markdown``;
private mails are plain ``text``. Formatting goes through filters, so one template
serves both post formats:

- ``x|b`` — bold: ``[b]x[/b]``, ``**x**``, plain ``x`` in text.
- ``x|quote`` — ``[quote]x[/quote]``; every line prefixed ``"> "`` in Markdown and text.
- ``x|code`` — ``[code]x[/code]``; a fenced block in Markdown; indented in text.
- ``cards|card_list`` — ``[b]нож[/b], [b]топор[/b]``: every card bold (rule D4), comma-joined.
- counts: ``{% trans count=n %}{{ count }} suggestion{% pluralize %}…{% endtrans %}``,
  gettext's ngettext with the catalog's CLDR plural rule (Russian: one, few, many).
- ``name|inflect("dat")`` — a player's name in another case, with his gender
  (the context's ``genders``) where Russian needs it (:func:`inflect_name`); unchanged
  in English.
- ``items|and_list`` — items joined by "and" in the locale's words (:func:`and_list`).
- ``when|dt(zone)`` — an aware datetime in an IANA zone (default: its own), e.g.
  ``"01.12.2026 22:30 (Europe/Moscow)"``.
- ``zone|zone`` — an IANA zone named alone, ru «по Москве» (:func:`zone_filter`).
- ``n|number`` — a number as the locale writes it, digits grouped: ru «205 841»,
  en "205,841" (:func:`number_filter`).
- ``h|hours`` — a number of hours in words, the number written by Babel for the
  locale: ``"24 hours"``, ``"1.5 hours"``, ru «1 час», «1,5 часа» (:func:`hours_filter`).
- ``seconds|duration`` — a time left in whole hours and minutes: ``"1 h 5 min"``,
  ru «1 ч 5 мин» (:func:`duration_filter`).
- ``h|span`` — a number of hours added to a deadline in words: whole hours as
  ``|hours`` («2 часа»), under an hour in minutes («30 минут»), else as ``|duration``
  («1 ч 30 мин») (:func:`span_filter`).
- ``text|sha256`` — the fairness commitment of a canonical string (:mod:`pbp.games.core.fairness`).

Template globals: ``fmt``, ``locale``, ``br`` (a line break that survives the format:
a blank line in Markdown, one newline otherwise), ``post(name, events, fmt,
**context)`` which renders a public post from inside a mail (the events are filtered
to public ones on the way, as in :meth:`Renderer.public_post`), ``gm_keywords()``, the
GM commands' keywords of the locale (:func:`gm_keywords`), ``gm_deadline_levers()``,
the GM's deadline levers of the text's game kind (:func:`gm_deadline_levers`), and
``keyword_words(section, key)``, a list of the locale's keywords (:func:`keyword_words`).
There is no global working on events, and the text layer knows no game: templates hold
no game logic.

A public post gets ``view``, what its game computes that it shows (a vote count, a
result, the answers of a suggestion, who is still in the game:
:meth:`pbp.games.core.kind.GameKind.post_view`), and its template only lays it out; a mail
gets what it shows in its context, computed by the kind (``status``, ``view``).

Outside text (names, notes, cards from ``games.yaml``) is inert in posts: see
:class:`Renderer` and :mod:`pbp.text.inert`.

Hidden information: :meth:`Renderer.public_post` drops every event whose visibility is
not :attr:`~pbp.games.core.events.Visibility.PUBLIC` before any template sees the list, so a
template mistake cannot leak a hand or a shown card into a public post (rule C4).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import jinja2
import jinja2.compiler
import jinja2.nodes
from babel import Locale
from babel import numbers as babel_numbers
from markupsafe import Markup

from pbp.games.core import registry
from pbp.games.core.events import Event, Visibility
from pbp.games.core.fairness import commitment
from pbp.text import catalogs, keywords, morph
from pbp.text import gmcommands as gm_commands
from pbp.text.inert import escape_bbcode, escape_markdown, strip_controls
from pbp.text.morph import Case
from pbp.text.seatnames import ShownName, renamed
from pbp.text.timetext import cli_time, written_clock, written_time, written_zone

log = logging.getLogger(__name__)

PostFormat = Literal["bbcode", "markdown"]
Format = Literal["bbcode", "markdown", "text"]
LOCALES = catalogs.LOCALES
FORMATS: tuple[Format, ...] = ("bbcode", "markdown", "text")


# --- filters (pure functions; bound to a format/locale per environment) ---


def inert(value: object, fmt: Format) -> str:
    """``value`` as literal text of ``fmt`` (issue 12, item 7): outside text (a name, a
    note, a card from ``games.yaml``) never becomes markup. In a post format the
    result is :class:`markupsafe.Markup`, and a ``Markup`` value (a filter's or a
    macro's output, already made of inert pieces) is passed through unchanged; in
    ``text`` only control characters are removed (:func:`pbp.text.inert.strip_controls`).

    >>> str(inert("[b]x[/b] *y*", "markdown"))
    '\\\\[b\\\\]x\\\\[/b\\\\] \\\\*y\\\\*'
    """
    if fmt == "text":
        return strip_controls(str(value))
    if isinstance(value, Markup):
        return value
    text = str(value)
    return Markup(escape_bbcode(text) if fmt == "bbcode" else escape_markdown(text))


def strip_controls_of(value: object) -> str:
    """``str(value)`` without control characters: every ``{{ value }}`` of a mail."""
    return strip_controls(str(value))


def _markup(text: str, fmt: Format) -> str:
    """``text`` (made of template text and inert pieces) marked as markup in a post."""
    return text if fmt == "text" else Markup(text)


def bold(value: object, fmt: Format) -> str:
    """``[b]x[/b]`` (bbcode), ``**x**`` (markdown) or ``x`` (text); ``x`` made inert."""
    text = inert(value, fmt)
    if fmt == "bbcode":
        return Markup(f"[b]{text}[/b]")
    if fmt == "markdown":
        return Markup(f"**{text}**")
    return text


def quote(value: object, fmt: Format) -> str:
    """A quotation block: ``[quote]…[/quote]`` in bbcode, ``"> "`` lines otherwise;
    the quoted text made inert.

    >>> str(quote("a\\n\\nb", "markdown"))
    '> a\\n>\\n> b'
    """
    text = inert(value, fmt).strip("\n")
    if fmt == "bbcode":
        return Markup(f"[quote]{text}[/quote]")
    lines = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    return _markup(lines, fmt)


def code(value: object, fmt: Format) -> str:
    """A verbatim block: ``[code]…[/code]``, a fenced Markdown block, or 4-space indent.

    The text is shown as it is (forums parse no markup inside a code block; the
    fairness string must stay exact), control characters removed; only what would
    end the block early is broken: ``[/code`` gets a ZERO WIDTH SPACE after its ``[``,
    and a Markdown fence grows longer than any backtick run inside.
    """
    text = strip_controls(str(value)).strip("\n")
    if fmt == "bbcode":
        return Markup("[code]" + re.sub(r"(?i)\[(?=/code)", "[\u200b", text) + "[/code]")
    if fmt == "markdown":
        longest = max((len(run) for run in re.findall("`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        return Markup(f"{fence}\n{text}\n{fence}")
    return "\n".join(f"    {line}" for line in text.split("\n"))


def card_list(cards: Iterable[object], fmt: Format, emphasis: bool = True) -> str:
    """Cards comma-joined, each bold (rule D4) unless ``emphasis`` is false; inert.

    >>> str(card_list(["нож", "топор"], "bbcode"))
    '[b]нож[/b], [b]топор[/b]'
    """
    return _markup(", ".join(bold(c, fmt) if emphasis else inert(c, fmt) for c in cards), fmt)


#: The short case names of templates (``name|inflect("dat")``) → pymorphy3's.
CASES: dict[str, Case] = {
    "gen": "gent",
    "dat": "datv",
    "acc": "accs",
    "ins": "ablt",
    "loc": "loct",
}


#: The players' genders of the text being rendered (its context's ``genders``), for
#: :func:`inflect_name` and :func:`gender_of_name` inside macros too, which Jinja2 runs
#: without the caller's context.
_GENDERS: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "genders", default=MappingProxyType({})
)


@contextlib.contextmanager
def _genders_of(context: Mapping[str, Any]) -> Iterator[None]:
    """While it lasts, :data:`_GENDERS` is ``context["genders"]`` (if given)."""
    token = _GENDERS.set(context.get("genders") or _GENDERS.get())
    try:
        yield
    finally:
        _GENDERS.reset(token)


#: The context keys a text's names are never replaced in (:func:`renamed`): ``seat``
#: is a seat's own name by definition (the briefing's "you take over the seat Кэрол").
_KEEP_NAMES = frozenset({"genders", "substitutes", "reader", "seat"})


#: «игрок» in each case: the frame of a name whose form would need a gender not known.
_PLAYER = {
    "gent": "игрока",
    "datv": "игроку",
    "accs": "игрока",
    "ablt": "игроком",
    "loct": "игроке",
}


@jinja2.pass_context
def inflect_name(ctx: jinja2.runtime.Context, name: object, case: str, frame: bool = True) -> str:
    """``name|inflect(case)``: a player's name in the case the sentence needs (rule P2),
    in Russian; as written in any other locale. ``case``: ``gen``, ``dat``, ``acc``,
    ``ins`` or ``loc``.

    The gender is the player's from ``games.yaml`` (the context's ``genders``,
    :meth:`pbp.games.core.gameconfig.GameBase.genders`), else the dictionary's sure guess
    (:func:`pbp.text.morph.inflect`). A name that does not decline stays as written
    (Шапо; Кэт given ``f``). A name whose form depends on a gender nobody gave (a
    nickname: Веталь is «Веталя» for a man and «Веталь» for a woman) is framed by a
    word in the case that needs none, from the catalog (:func:`_framed`): «для игрока
    Веталь», «игроку Кросс»; with ``frame=False`` (a command as pbp read it, which a
    player may send back: «ГОЛОС за Веталь», never «ГОЛОС за игрока Веталь», which the
    parsers do not read) it stays as written.

    >>> from pathlib import Path
    >>> env = Renderer(Path("templates"))._env("ru", "text")
    >>> t = env.from_string('{{ n|inflect("gen") }}')
    >>> [t.render(n=n, genders=g) for n, g in
    ...  [("Лев", {}), ("Веталь", {}), ("Веталь", {"Веталь": "masc"}), ("Шапо", {})]]
    ['Льва', 'игрока Веталь', 'Веталя', 'Шапо']

    :raises ValueError: unknown ``case``.
    """
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}: use one of {sorted(CASES)}")
    if ctx.get("locale") != "ru":
        return str(name)
    genders = ctx.get("genders") or _GENDERS.get()
    pgettext = ctx.resolve("pgettext") if frame else None
    if isinstance(name, ShownName):  # a substitute: his name declined, the rest kept
        return _inflected(name.person, case, genders, pgettext) + name.rest
    return _inflected(str(name), case, genders, pgettext)


def _inflected(
    text: str, case: str, genders: Mapping[str, str], pgettext: Callable[..., str] | None
) -> str:
    """The Russian form of :func:`inflect_name` (``case`` checked there); ``pgettext``
    None: a name that would be framed stays as written."""
    given = genders.get(text)
    gender = given if given in ("masc", "femn") else morph.gender_of(text)
    form = morph.inflect(text, CASES[case], gender)
    if form == text and gender is None and text != morph.inflect(text, CASES[case], "masc"):
        return text if pgettext is None else _framed(pgettext, CASES[case], text)
    return form


def _framed(pgettext: Callable[..., str], case: Case, name: str) -> str:
    """``name`` framed by a word in ``case`` that needs no gender (the catalog's: «игрока
    Веталь»), for a name whose own form would need one (:func:`inflect_name`)."""
    if case == "gent":
        return pgettext("name framed for want of a gender: genitive", "%(name)s", name=name)
    if case == "datv":
        return pgettext("name framed for want of a gender: dative", "%(name)s", name=name)
    if case == "accs":
        return pgettext("name framed for want of a gender: accusative", "%(name)s", name=name)
    if case == "ablt":
        return pgettext("name framed for want of a gender: instrumental", "%(name)s", name=name)
    return pgettext("name framed for want of a gender: prepositional", "%(name)s", name=name)


@jinja2.pass_context
def gm_keywords(ctx: jinja2.runtime.Context) -> dict[str, str]:
    """``gm_keywords()``: the GM commands' keywords of the text's locale, as the GM's
    texts show them (:func:`pbp.text.gmcommands.shown`: the words ``pbp/locale/<locale>/
    keywords.yaml`` gives the parser), so that every list of GM commands names each
    lever the parser reads, in a new language too, with no template edited."""
    return gm_commands.shown(str(ctx.get("locale")))


@jinja2.pass_context
def gm_deadline_levers(ctx: jinja2.runtime.Context) -> tuple[str, ...]:
    """``gm_deadline_levers()``: the GM's levers by mail that pass a deadline of the
    text's game kind now (the context's ``kind``), as the kind gives them
    (:attr:`pbp.games.core.kind.DeadlineCommand.lever` of its
    :attr:`~pbp.games.core.kind.GameKind.deadline_commands`): ``("close_day", "end_night")``
    for a kind with game days and nights, ``("close_day",)`` with days alone, ``()``
    for one played in turns. A text of no one kind (``kind`` None or not given) gets
    every registered kind's, each once, so that no lever goes unlisted."""
    kind = ctx.get("kind")
    found = registry.KINDS.get(kind) if isinstance(kind, str) else None
    kinds = [found] if found is not None else list(registry.KINDS.values())
    return tuple(dict.fromkeys(c.lever for k in kinds for c in k.deadline_commands))


@jinja2.pass_context
def keyword_words(ctx: jinja2.runtime.Context, section: str, key: str) -> tuple[str, ...]:
    """``keyword_words(section, key)``: list ``key`` of ``section`` in the text's locale
    (:meth:`pbp.text.keywords.Vocabulary.words`), empty for a locale without keywords; a
    template shows a form only where the locale's words read it («Предположение_1 для
    Веталь» where ``cluedo.forum_heading`` has a word), so that a new language needs
    its keywords file, not a template edit."""
    vocabulary = keywords.current()
    locale = str(ctx.get("locale"))
    return vocabulary.words(section, key, locale) if locale in vocabulary.locales else ()


@jinja2.pass_context
def gender_of_name(ctx: jinja2.runtime.Context, name: object) -> str | None:
    """``name|gender``: ``"masc"``, ``"femn"`` or None, for a sentence whose words
    follow a player's gender (rule P2: "Маша исключена"): the gender ``games.yaml``
    gives (the context's ``genders``), else the dictionary's sure guess
    (:func:`pbp.text.morph.gender_of`), else None, and then the template takes a
    sentence that needs none. A substitute's (:class:`ShownName`) is his own."""
    text = name.person if isinstance(name, ShownName) else str(name)
    given = (ctx.get("genders") or _GENDERS.get()).get(text)
    if given in ("masc", "femn"):
        return str(given)
    return morph.gender_of(text)


_POST_FORMATS: dict[str, PostFormat] = {"bbcode": "bbcode", "markdown": "markdown"}


@jinja2.pass_context
def and_list(ctx: jinja2.runtime.Context, items: Iterable[object]) -> str:
    """``items|and_list``: the items joined by commas and the catalog's "and" before
    the last ("3", "3 and 4", "1, 2 and 3", ru «Саша и Оля»), so that a new language
    (and the test's pseudo-locale) translates it with its catalog; "" for none.

    >>> from pathlib import Path
    >>> env = Renderer(Path("templates"))._env("ru", "text")
    >>> env.from_string("{{ [1, 2]|and_list }}").render()
    '1 и 2'
    """
    gettext = ctx.resolve("gettext")
    shown = list(items)
    if not shown:
        return ""
    fmt = str(ctx.resolve("fmt"))
    parts = [inert(item, "text" if fmt == "text" else _POST_FORMATS[fmt]) for item in shown]
    if len(parts) == 1:
        return parts[0]
    first = ", ".join(parts[:-1])
    text = gettext(
        "%(first)s and %(last)s", first=first if fmt == "text" else Markup(first), last=parts[-1]
    )
    return str(text) if fmt == "text" else Markup(text)


#: CLDR's pattern of :func:`format_number`: grouped digits, at most two decimals.
NUMBER_PATTERN = "#,##0.##"


def format_number(value: float, locale: str) -> str:
    """``value`` written by Babel for ``locale`` with :data:`NUMBER_PATTERN` (the
    locale's decimal and group symbols; trailing zeros dropped).

    >>> format_number(1.5, "ru"), format_number(24.0, "en"), format_number(2.125, "en")
    ('1,5', '24', '2.12')
    """
    return str(babel_numbers.format_decimal(value, NUMBER_PATTERN, locale=_locale(locale)))


@jinja2.pass_context
def number_filter(ctx: jinja2.runtime.Context, value: float) -> str:
    """``n|number``: ``value`` written as the text's locale writes numbers
    (:func:`format_number`): digits grouped, ru «205 841» (a no-break space), en
    "205,841"."""
    return format_number(value, str(ctx.get("locale")))


@jinja2.pass_context
def hours_filter(ctx: jinja2.runtime.Context, hours: float) -> str:
    """``h|hours``: ``hours`` (> 0, fractions allowed: rule R7's ``turn_hours``) in words,
    the number written by :func:`format_number`: a whole number takes the catalog's
    plural by its count ("%(num)s hour", CLDR's rule: «1 час», «2 часа», «5 часов»), a
    fraction the catalog's "fractional hours" message (CLDR's plural of a fraction, ru
    «1,5 часа»; gettext's plural rules take whole numbers only).

    >>> from pathlib import Path
    >>> env = Renderer(Path("templates"))._env("ru", "text")
    >>> [env.from_string("{{ h|hours }}").render(h=h) for h in (1, 24.0, 1.5)]
    ['1 час', '24 часа', '1,5 часа']
    """
    locale = str(ctx.resolve("locale"))
    shown = format_number(hours, locale)
    # Whole as shown: 0.004 is written «0» and takes the plural of 0 («0 часов», not
    # «0 часа»), 1.999 is written «2».
    if babel_numbers.get_decimal_symbol(_locale(locale)) not in shown:
        ngettext = ctx.resolve("ngettext")
        whole: str = ngettext("%(num)s hour", "%(num)s hours", round(hours), num=shown)
        return whole
    pgettext = ctx.resolve("pgettext")
    fraction: str = pgettext("fractional hours", "%(hours)s hours", hours=shown)
    return fraction


@jinja2.pass_context
def duration_filter(ctx: jinja2.runtime.Context, seconds: float) -> str:
    """``seconds|duration``: a time span (≥ 0 seconds, e.g. what was left before a
    paused deadline) in whole hours and minutes, the seconds dropped, in the catalog's
    words ("%(hours)s h %(minutes)s min"; "%(hours)s h" for whole hours, "%(minutes)s
    min" under an hour: never «7 ч 0 мин»).

    >>> from pathlib import Path
    >>> env = Renderer(Path("templates"))._env("ru", "text")
    >>> [env.from_string("{{ s|duration }}").render(s=s) for s in (3959, 25200, 300, 0)]
    ['1 ч 5 мин', '7 ч', '5 мин', '0 мин']
    """
    hours, rest = divmod(int(seconds), 3600)
    minutes = rest // 60
    pgettext = ctx.resolve("pgettext")
    shown: str
    if hours and minutes:
        shown = pgettext("a time span", "%(hours)s h %(minutes)s min", hours=hours, minutes=minutes)
    elif hours:
        shown = pgettext("a time span", "%(hours)s h", hours=hours)
    else:
        shown = pgettext("a time span", "%(minutes)s min", minutes=minutes)
    return shown


@jinja2.pass_context
def span_filter(ctx: jinja2.runtime.Context, hours: float) -> str:
    """``h|span``: ``hours`` (> 0, fractions allowed: an EXTEND) as a span of time, to
    the minute: whole hours by :func:`hours_filter` («2 часа»), under an hour the
    catalog's plural of minutes ("%(num)s minute": «30 минут», «1 минута»), else
    :func:`duration_filter` («1 ч 30 мин») — never «0,5 часа».

    >>> from pathlib import Path
    >>> env = Renderer(Path("templates"))._env("ru", "text")
    >>> [env.from_string("{{ h|span }}").render(h=h) for h in (2, 0.5, 1.5, 1 / 60)]
    ['2 часа', '30 минут', '1 ч 30 мин', '1 минута']
    """
    minutes = round(hours * 60)
    if minutes % 60 == 0 and minutes:
        return hours_filter(ctx, minutes // 60)
    if minutes < 60:
        ngettext = ctx.resolve("ngettext")
        shown: str = ngettext("%(num)s minute", "%(num)s minutes", minutes, num=minutes)
        return shown
    return duration_filter(ctx, minutes * 60)


@functools.cache
def _locale(name: str) -> Locale:
    """Babel's data of the locale ``name``, parsed once (it costs more than a date)."""
    return Locale.parse(name)


def datetime_filter(fmt: Format) -> Callable[..., str]:
    """``when|dt(zone=None, named=True)``: :func:`pbp.text.timetext.written_time` in the
    locale of the template (``7 декабря 2026 г., 22:30 по Москве``, ``December 7,
    2026, 22:30 MSK``); ``named=False`` leaves out the zone's name. A text the command
    line prints (``cli`` true in the context: ``pbp show``, a lever's result) writes
    it as the command line does: :func:`pbp.text.timetext.cli_time` (``2026-12-07 22:30
    MSK``).

    >>> from pathlib import Path
    >>> from datetime import UTC
    >>> at = datetime(2026, 12, 1, 19, 30, tzinfo=UTC)
    >>> t = "{{ at|dt('Asia/Yekaterinburg') }}"
    >>> [Renderer(Path("templates"))._env(loc, "text").from_string(t).render(at=at)
    ...  for loc in ("ru", "en")]
    ['2 декабря 2026 г., 00:30 по Екатеринбургу', 'December 2, 2026, 00:30 UTC+5']
    """

    @jinja2.pass_context
    def dt(
        ctx: jinja2.runtime.Context,
        when: datetime | str,
        zone: str | None = None,
        named: bool = True,
    ) -> str:
        if ctx.get("cli"):
            moment = datetime.fromisoformat(when) if isinstance(when, str) else when
            shown = cli_time(moment, zone)
            return _markup(shown if named else shown.rsplit(" ", 1)[0], fmt)
        pgettext = ctx.resolve("pgettext")
        locale = str(ctx.resolve("locale"))
        return _markup(written_time(when, locale, zone, pgettext, named=named), fmt)

    return dt


def clock_filter(fmt: Format) -> Callable[..., str]:
    """``"22:30"|clock(zone)``: a time of day in the zone ``zone`` (IANA name) with no
    date, :func:`pbp.text.timetext.written_clock` (``22:30 по Москве``, ``22:30 MSK``)."""

    @jinja2.pass_context
    def clock(ctx: jinja2.runtime.Context, time_of_day: str, zone: str) -> str:
        pgettext = ctx.resolve("pgettext")
        locale = str(ctx.resolve("locale"))
        return _markup(written_clock(str(time_of_day), locale, zone, pgettext), fmt)

    return clock


def zone_filter(fmt: Format) -> Callable[..., str]:
    """``zone|zone``: the zone ``zone`` (IANA name) named alone, as a text names the
    zone of all its times once: :func:`pbp.text.timetext.written_zone` (``по Москве``,
    ``MSK``)."""

    @jinja2.pass_context
    def zone_name(ctx: jinja2.runtime.Context, zone: str) -> str:
        pgettext = ctx.resolve("pgettext")
        locale = str(ctx.resolve("locale"))
        return _markup(written_zone(zone, locale, pgettext), fmt)

    return zone_name


def tidy(text: str) -> str:
    """Trailing spaces removed, at most one blank line in a row, one final newline."""
    lines = [line.rstrip() for line in text.split("\n")]
    joined = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return joined.strip("\n") + "\n"


def _renamed_context(context: Mapping[str, Any], names: Mapping[str, ShownName]) -> dict[str, Any]:
    """A text's ``context`` :func:`renamed`, but for the keys that are never
    (:data:`_KEEP_NAMES`)."""
    return {k: v if k in _KEEP_NAMES else renamed(v, names) for k, v in context.items()}


# --- the events a public post may see ---


def public_only(events: Iterable[Event]) -> list[Event]:
    """The events whose visibility is PUBLIC (DESIGN.md, render)."""
    return [e for e in events if e.visibility is Visibility.PUBLIC]


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
        finalize: Any,
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
    values: :meth:`Renderer._build_env` sets every global before any template is
    loaded, and none changes after."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}

    def getattr(self, obj: Any, attribute: str) -> Any:
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

    def __init__(self, fmt: PostFormat, **options: Any) -> None:
        super().__init__(autoescape=True, finalize=lambda value: inert(value, fmt), **options)
        self.fmt: PostFormat = fmt

    def inert_join(self, parts: Iterable[object]) -> str:
        """``a ~ b ~ …``: each part inert, joined as markup."""
        return Markup("".join(inert(part, self.fmt) for part in parts))


class _FamilyLoader(jinja2.FileSystemLoader):
    """Templates from ``searchpath``; a kind's template (``<kind>/…``) that is not in its
    own folder is read from the folder of each of its ``families`` in turn (``{kind:
    (family, ...)}``), under the kind's name: ``cluedo_rounds/mail/help.j2`` is
    ``cluedo/mail/help.j2`` unless ``cluedo_rounds`` has its own."""

    def __init__(self, searchpath: Sequence[Path], families: Mapping[str, Sequence[str]]) -> None:
        super().__init__(searchpath)
        self.families = families

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        top, _, rest = template.partition("/")
        families = self.families.get(top, ()) if rest else ()
        for name in (template, *(f"{family}/{rest}" for family in families)):
            with contextlib.suppress(jinja2.TemplateNotFound):
                return super().get_source(environment, name)
        raise jinja2.TemplateNotFound(template)

    def list_templates(self) -> list[str]:
        """Every template, a family's also under each of its kinds' names."""
        found = super().list_templates()
        shared = [
            f"{kind}/{name.split('/', 1)[1]}"
            for kind, families in self.families.items()
            for name in found
            if name.split("/", 1)[0] in families
        ]
        return sorted({*found, *shared})


def _families() -> dict[str, tuple[str, ...]]:
    """Each registered kind's template families (:class:`_FamilyLoader`)."""
    found = {name: k.template_families for name, k in registry.KINDS.items()}
    return {name: families for name, families in found.items() if families}


class Renderer:
    """Renders posts and mails from ``templates_dir`` (the repository's ``templates/``).

    One Jinja2 environment per (locale, format), ``StrictUndefined`` (a missing context
    key is an error, not an empty string), ``trim_blocks`` and ``lstrip_blocks``; the
    output is passed through :func:`tidy`. Outside text is inert (issue 12, item 7):
    in a post every ``{{ value }}`` goes through :func:`inert` (``finalize``), so a name
    or a note is shown, never read as BBCode or Markdown, whatever the template; the
    filters (``b``, ``quote``, ``card_list``…) make their input inert and return
    :class:`~markupsafe.Markup`, and autoescape (with Markup, never HTML escaping: every
    value is finalized to Markup first) keeps macros' and ``{% set %}`` blocks' markup
    from being escaped twice. In mails (``text``) every value loses its control
    characters. Template text itself is never escaped.

    Example::

        r = Renderer(Path("templates"))
        r.public_post("move", [event], locale="ru", fmt="bbcode", kind="cluedo_days")
        subject, body = r.private_mail("welcome", locale="ru", kind="cluedo_days", game="exler-1")
    """

    def __init__(
        self,
        templates_dir: Path,
        translations: Mapping[str, gettext.NullTranslations] | None = None,
    ) -> None:
        self.templates_dir = templates_dir
        #: Catalogs of locales beyond :data:`LOCALES` (a test's pseudo-locale), by name.
        self.translations = dict(translations or {})
        self._envs: dict[tuple[str, Format], jinja2.Environment] = {}

    # -- public API --

    def public_post(
        self,
        name: str,
        events: Sequence[Event],
        *,
        locale: str,
        fmt: PostFormat,
        kind: str,
        **context: Any,
    ) -> str:
        """A forum post of a game of ``kind``: template ``<kind>/posts/<name>.j2``
        in ``fmt``.

        ``events`` may hold events of any visibility; only PUBLIC ones reach the
        template (as ``events``), and the registered kind's
        :meth:`~pbp.games.core.kind.GameKind.post_view` of them (as ``view``: what the post
        shows, computed by the game; ``{}`` for another ``kind``). For ``cluedo_days``:
        ``opening`` (D1), ``day`` (D7, needs ``day=N``), ``final`` (C7), ``move`` (D4).
        Other keyword arguments are template context (documented in each template's
        header; ``day`` is also the period the view is of).

        :raises ValueError: unknown locale or format.
        :raises jinja2.TemplateNotFound: no such post.
        :raises jinja2.UndefinedError: the template needs a context key not given.
        :raises LookupError: a needed event (e.g. ``game_started``) is not among ``events``.
        """
        if fmt not in ("bbcode", "markdown"):
            raise ValueError(f"a public post is bbcode or markdown, not {fmt!r}")
        template = self._env(locale, fmt).get_template(f"{kind}/posts/{name}.j2")
        public = public_only(events)
        # What the post shows, computed by its game from the public events (rule P1).
        found = registry.KINDS.get(kind)
        view = {} if found is None else found.post_view(name, public, context.get("day"))
        # A substitute's seat by his name (the view is the game's, of the seats' names).
        names = self._names_of(locale, context)
        if names:
            context = _renamed_context(context, names)
            public, view = renamed(public, names), renamed(view, names)
        with _genders_of(context):
            text = template.render(context, events=public, kind=kind, view=view)
        return tidy(text)

    def story(self, *, locale: str, fmt: PostFormat, kind: str, **context: Any) -> str:
        """The post-game story (``pbp export``, :mod:`pbp.text.export`) of a game of ``kind``:
        template ``common/story/story.j2`` in ``fmt``, context as documented there. The
        kind tells its own events in ``<kind>/parts/story_line.j2`` (if it has one).

        Unlike :meth:`public_post`, the items passed may be private facts: the story
        is the GM's to publish after the game, and only :mod:`pbp.text.export` calls this.

        :raises ValueError: unknown locale or format.
        """
        if fmt not in ("bbcode", "markdown"):
            raise ValueError(f"a story is bbcode or markdown, not {fmt!r}")
        with _genders_of(context):
            template = self._env(locale, fmt).get_template("common/story/story.j2")
            return tidy(template.render(context, kind=kind))

    def event_line(self, event: Mapping[str, Any], *, locale: str, kind: str) -> str:
        """One logged event in words, as the game ``kind`` tells it in its story
        (``common/story/event_line.j2``; ``event`` as there: ``seq, kind, player, at,
        source, data``), plain text on one line: «suggestion #1 by Кросс to Дуг: Маша,
        Пистолет, Спальня.»; the event's kind when the game does not tell it."""
        template = self._env(locale, "text").get_template("common/story/event_line.j2")
        words = " ".join(template.render(e=event, kind=kind).split())
        return words or str(event["kind"])

    def private_mail(
        self, name: str, *, locale: str, kind: str | None = None, **context: Any
    ) -> tuple[str, str]:
        """A private mail as ``(subject, body)``; the body is plain text ending in a newline.

        The template is ``<kind>/mail/<name>.j2``, else (or without ``kind``)
        ``common/mail/<name>.j2``; ``name`` may carry the kind:
        ``"cluedo_days/welcome"``. The template's
        first line is ``Subject: …``, then a blank line, then the body. Context keys are
        documented in each template's header comment. Example::

            subject, body = r.private_mail("cluedo_days/reminder", locale="ru", game="exler-1",
                player="Неташка", timezone="Europe/Moscow", close_at=aware_datetime,
                duties={"owed": [sugg], "suggestions_left": 2})

        :raises ValueError: unknown locale, or the template does not start with ``Subject:``.
        :raises jinja2.TemplateNotFound: no such mail.
        :raises jinja2.UndefinedError: the template needs a context key not given.
        """
        if "/" in name:
            kind, name = name.split("/", 1)
        env = self._env(locale, "text")
        names = [f"{kind}/mail/{name}.j2"] if kind else []
        template = env.select_template([*names, f"common/mail/{name}.j2"])
        shown = self._names_of(locale, context)
        if shown:
            context = _renamed_context(context, shown)
        with _genders_of(context):
            text = template.render(context, kind=kind).lstrip("\n")
        head, _, body = text.partition("\n")
        if not head.startswith("Subject:"):
            raise ValueError(f"mail template {template.name!r} must start with 'Subject: '")
        subject = " ".join(head[len("Subject:") :].split())
        return subject, tidy(body)

    def game_line(self, titles: Sequence[str], *, locale: str) -> str:
        """The first line of every mail pbp writes but a post to paste: the game(s) it is
        about, in ``locale`` (``common/parts/game_line.j2``: «Игра: Маньяк 2»), without
        a newline.

        :raises ValueError: unknown locale.
        """
        template = self._env(locale, "text").get_template("common/parts/game_line.j2")
        return tidy(template.render(titles=list(titles))).strip()

    def error(self, code: str, params: Mapping[str, Any], *, locale: str, cli: bool = False) -> str:
        """The player-facing text of a refused move: ``errors/<code>.txt``
        rendered with ``params`` (a :class:`~pbp.games.core.events.MoveError`'s ``params``).
        ``cli``: the refusal ``pbp`` prints, whose text names the command line's
        commands (``pbp resume GAME``) where a mail's names the GM's mail commands
        (``RESUME``); the template sees it as ``cli``.

        A missing file is logged (warning) and replaced by ``common/error_fallback.j2``,
        a generic text that names ``code``. The result has no trailing newline.

        :raises jinja2.UndefinedError: the error text needs a parameter not given.
        """
        env = self._env(locale, "text")
        names = self._names_of(locale, params)
        if names:
            params = _renamed_context(params, names)
        try:
            template = env.get_template(f"errors/{code}.txt")
        except jinja2.TemplateNotFound:
            log.warning("no error text %s/errors/%s.txt; using the generic one", locale, code)
            template = env.get_template("common/error_fallback.j2")
            return tidy(template.render(code=code, params=dict(params))).rstrip("\n")
        return tidy(template.render({**params, "cli": cli})).rstrip("\n")

    def shown_names(
        self,
        locale: str,
        substitutes: Mapping[str, str],
        *,
        genders: Mapping[str, str] | None = None,
        reader: str | None = None,
    ) -> dict[str, ShownName]:
        """How a text in ``locale`` shows each seat a substitute plays (``substitutes``:
        ``{seat: his name}``, :meth:`pbp.store.Store.substitutes`): «Дэйв (вместо
        Кэрол)», the seat in the genitive (``genders``: the players' from games.yaml);
        the ``reader``'s own seat (the player a mail goes to) by his name alone: a
        substitute's mails use his name."""
        found = self.translations.get(locale) or catalogs.translations(locale)
        pgettext: Callable[..., str] = catalogs.gettext_callables(found, "text")["pgettext"]
        shown: dict[str, ShownName] = {}
        for seat, person in substitutes.items():
            if seat == reader:
                shown[seat] = ShownName(person, "", seat)
                continue
            of_seat = _inflected(seat, "gen", genders or {}, pgettext) if locale == "ru" else seat
            rest = pgettext(
                "a substitute's name: the seat he plays", "(for %(seat)s)", seat=of_seat
            )
            shown[seat] = ShownName(person, f" {rest}", seat)
        return shown

    def _names_of(self, locale: str, context: Mapping[str, Any]) -> dict[str, ShownName]:
        """:meth:`shown_names` of a text's ``context`` (its ``substitutes``, ``genders``
        and ``reader``); ``{}`` without substitutes (the names are the seats')."""
        substitutes = context.get("substitutes")
        if not substitutes:
            return {}
        genders = context.get("genders") or {}
        return self.shown_names(locale, substitutes, genders=genders, reader=context.get("reader"))

    def reload(self) -> None:
        """Read every template again at its next use: ``pbp run``'s SIGHUP
        (:meth:`pbp.app.daemon.Daemon.reload`). Until then a template changed on disk is
        not seen: the environments do not look at the files once a template is loaded
        (the catalogs are read once for the process, :func:`pbp.text.catalogs.translations`)."""
        for env in self._envs.values():
            if env.cache is not None:
                env.cache.clear()
        self._envs.clear()

    def prepare(self, uses: Iterable[tuple[str, Format]], kinds: Iterable[str]) -> int:
        """Compile now, not at their first use, the templates the games will render:
        for each ``(locale, format)`` of ``uses``, those of ``kinds`` (game kind names)
        and the common ones — mails, error texts and their parts in ``"text"``, posts,
        the story and their parts in a post format. ``pbp run`` does it beside its loop
        once it serves (issue 18: a first reply of each kind waited for its templates'
        compilation, tens of milliseconds). Returns how many were compiled. A template
        that does not compile is logged (warning) and left to fail where it is used.

        :raises ValueError: unknown locale or format.
        """
        tops = ("common", "errors", *kinds)
        compiled = 0
        for locale, fmt in dict.fromkeys(uses):
            env = self._env(locale, fmt)
            skip = ("/posts/", "/story/") if fmt == "text" else ("/mail/", "errors/")
            for name in env.list_templates():
                if name.split("/", 1)[0] not in tops or any(part in name for part in skip):
                    continue
                try:
                    env.get_template(name)
                except jinja2.TemplateError as error:
                    log.warning("template %s (%s, %s) won't compile: %s", name, locale, fmt, error)
                    continue
                compiled += 1
        return compiled

    # -- environments --

    def _env(self, locale: str, fmt: Format) -> jinja2.Environment:
        if locale not in LOCALES and locale not in self.translations:
            raise ValueError(f"unknown locale {locale!r}: use one of {LOCALES}")
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}: use one of {FORMATS}")
        env = self._envs.get((locale, fmt))
        if env is None:
            env = self._build_env(locale, fmt)
            self._envs[(locale, fmt)] = env
        return env

    def _build_env(self, locale: str, fmt: Format) -> jinja2.Environment:
        # pbp's own texts, then those a registered kind brings in its package (one
        # tree, or one per locale: ``<dir>/<locale>/…``).
        kinds = [k.templates for k in registry.KINDS.values() if k.templates is not None]
        search = [self.templates_dir, *kinds, *(k / locale for k in kinds)]
        options: dict[str, Any] = {
            "loader": _FamilyLoader(search, _families()),
            "undefined": jinja2.StrictUndefined,
            "trim_blocks": True,
            "lstrip_blocks": True,
            "keep_trailing_newline": True,
            "extensions": ["jinja2.ext.i18n"],
            # A template is read once (no stat of its file at every lookup, about 15 a
            # move); :meth:`reload` (SIGHUP) reads every template again.
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
        filters: dict[str, Callable[..., Any]] = {
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
            filters["join"] = lambda items, sep="": _markup(
                inert(sep, fmt).join(inert(item, fmt) for item in items), fmt
            )
        env.filters.update(filters)
        # Texts from the locale's catalog (pbp.text.catalogs), their variables made inert.
        env.newstyle_gettext = True  # type: ignore[attr-defined]
        found = self.translations.get(locale) or catalogs.translations(locale)
        env.globals.update(catalogs.gettext_callables(found, fmt))
        env.globals.update(
            fmt=fmt,
            locale=locale,
            br="\n\n" if fmt == "markdown" else "\n",
            post=self._post_global(locale),
            gm_keywords=gm_keywords,
            gm_deadline_levers=gm_deadline_levers,
            keyword_words=keyword_words,
        )
        return env

    def _post_global(self, locale: str) -> Callable[..., str]:
        @jinja2.pass_context
        def post(
            ctx: jinja2.runtime.Context,
            name: str,
            events: Sequence[Event],
            fmt: PostFormat = "bbcode",
            **context: Any,
        ) -> str:
            kind = str(ctx["kind"])
            # The players' genders travel into the post (rule P2), unless given, and
            # the substitutes' names (its seats are shown as a post shows them).
            context.setdefault("genders", ctx.get("genders") or {})
            context.setdefault("substitutes", ctx.get("substitutes") or {})
            text = self.public_post(name, events, locale=locale, fmt=fmt, kind=kind, **context)
            return text.rstrip("\n")

        return post
