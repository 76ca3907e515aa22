"""The Jinja2 filters and globals of pbp's templates: pure functions, bound to a format
and a locale per environment (:func:`pbp.text.environment.build_environment`).

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
- ``text|sha256`` — the fairness commitment of a canonical string (:mod:`pbp.text.fairness`).

Template globals: ``fmt``, ``locale``, ``br`` (a line break that survives the format:
a blank line in Markdown, one newline otherwise), ``post(name, events, fmt,
**context)`` which renders a public post from inside a mail (the events are filtered
to public ones on the way, as in :meth:`pbp.text.render.Renderer.public_post`),
``gm_keywords()``, the GM commands' keywords of the locale (:func:`gm_keywords`),
``gm_deadline_levers()``, the GM's deadline levers of the text's game kind
(:func:`gm_deadline_levers`), and ``keyword_words(section, key)``, a list of the
locale's keywords (:func:`keyword_words`).
There is no global working on events, and the text layer knows no game: templates hold
no game logic.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Literal, TypedDict, cast

import jinja2
from babel import Locale
from babel import numbers as babel_numbers
from markupsafe import Markup

from pbp.mail.safetext import strip_controls
from pbp.text import gmcommands as gm_commands
from pbp.text import keywords, morph
from pbp.text.inert import escape_bbcode, escape_markdown
from pbp.text.kindtexts import Kinds
from pbp.text.morph import Case
from pbp.text.seatnames import ShownName
from pbp.text.timetext import cli_time, written_clock, written_time, written_zone

PostFormat = Literal["bbcode", "markdown"]
Format = Literal["bbcode", "markdown", "text"]
FORMATS: tuple[Format, ...] = ("bbcode", "markdown", "text")


def inert(value: object, fmt: Format) -> str:
    """``value`` as literal text of ``fmt`` (issue 12, item 7): outside text (a name, a
    note, a card from ``games.yaml``) never becomes markup. In a post format the
    result is :class:`markupsafe.Markup`, and a ``Markup`` value (a filter's or a
    macro's output, already made of inert pieces) is passed through unchanged; in
    ``text`` only control characters are removed (:func:`pbp.mail.safetext.strip_controls`).

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


def markup(text: str, fmt: Format) -> str:
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
    return markup(lines, fmt)


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
    return markup(", ".join(bold(c, fmt) if emphasis else inert(c, fmt) for c in cards), fmt)


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
class TextKeys(TypedDict, total=False):
    """The keys of a template context the text layer reads itself (pbp's own keys of
    every mail and post, :meth:`pbp.app.mailer.Mailer.context`): the players' ``genders``
    (rule P2: ``{name: "masc" | "femn"}``), the seats ``substitutes`` play (``{seat:
    name}``) and the ``reader``'s own seat (:meth:`pbp.text.render.Renderer.shown_names`),
    and a post's ``day``."""

    genders: Mapping[str, str]
    substitutes: Mapping[str, str]
    reader: str | None
    day: int | None


def text_keys(context: Mapping[str, object]) -> TextKeys:
    """``context`` read for the keys of :class:`TextKeys` (its other keys are the
    templates')."""
    return cast(TextKeys, context)


_GENDERS: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "genders", default=MappingProxyType({})
)


@contextlib.contextmanager
def genders_of(context: Mapping[str, object]) -> Iterator[None]:
    """While it lasts, :data:`_GENDERS` is ``context["genders"]`` (if given)."""
    token = _GENDERS.set(text_keys(context).get("genders") or _GENDERS.get())
    try:
        yield
    finally:
        _GENDERS.reset(token)


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
    >>> from pbp.text.render import Renderer
    >>> env = Renderer(Path("templates"), kinds={})._env("ru", "text")
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
        return inflected(name.person, case, genders, pgettext) + name.rest
    return inflected(str(name), case, genders, pgettext)


def inflected(
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


def gm_deadline_levers(kinds: Kinds) -> Callable[[jinja2.runtime.Context], tuple[str, ...]]:
    """The global ``gm_deadline_levers()`` of a renderer given ``kinds``
    (:mod:`pbp.text.kindtexts`): the GM's levers by mail that pass a deadline of the
    text's game kind now (the context's ``kind``), as the kind gives them
    (:attr:`pbp.games.core.kind.DeadlineCommand.lever` of its
    :attr:`~pbp.games.core.kind.GameKind.deadline_commands`): ``("close_day", "end_night")``
    for a kind with game days and nights, ``("close_day",)`` with days alone, ``()``
    for one played in turns. A text of no one kind (``kind`` None or not given) gets
    every kind's of ``kinds``, each once, so that no lever goes unlisted."""

    @jinja2.pass_context
    def levers(ctx: jinja2.runtime.Context) -> tuple[str, ...]:
        kind = ctx.get("kind")
        found = kinds.get(kind) if isinstance(kind, str) else None
        each = [found] if found is not None else list(kinds.values())
        return tuple(dict.fromkeys(c.lever for k in each for c in k.deadline_commands))

    return levers


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
    >>> from pbp.text.render import Renderer
    >>> env = Renderer(Path("templates"), kinds={})._env("ru", "text")
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
    >>> from pbp.text.render import Renderer
    >>> env = Renderer(Path("templates"), kinds={})._env("ru", "text")
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
    >>> from pbp.text.render import Renderer
    >>> env = Renderer(Path("templates"), kinds={})._env("ru", "text")
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
    >>> from pbp.text.render import Renderer
    >>> env = Renderer(Path("templates"), kinds={})._env("ru", "text")
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
    >>> from pbp.text.render import Renderer
    >>> [Renderer(Path("templates"), kinds={})._env(loc, "text").from_string(t).render(at=at)
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
            return markup(shown if named else shown.rsplit(" ", 1)[0], fmt)
        pgettext = ctx.resolve("pgettext")
        locale = str(ctx.resolve("locale"))
        return markup(written_time(when, locale, zone, pgettext, named=named), fmt)

    return dt


def clock_filter(fmt: Format) -> Callable[..., str]:
    """``"22:30"|clock(zone)``: a time of day in the zone ``zone`` (IANA name) with no
    date, :func:`pbp.text.timetext.written_clock` (``22:30 по Москве``, ``22:30 MSK``)."""

    @jinja2.pass_context
    def clock(ctx: jinja2.runtime.Context, time_of_day: str, zone: str) -> str:
        pgettext = ctx.resolve("pgettext")
        locale = str(ctx.resolve("locale"))
        return markup(written_clock(str(time_of_day), locale, zone, pgettext), fmt)

    return clock


def zone_filter(fmt: Format) -> Callable[..., str]:
    """``zone|zone``: the zone ``zone`` (IANA name) named alone, as a text names the
    zone of all its times once: :func:`pbp.text.timetext.written_zone` (``по Москве``,
    ``MSK``)."""

    @jinja2.pass_context
    def zone_name(ctx: jinja2.runtime.Context, zone: str) -> str:
        pgettext = ctx.resolve("pgettext")
        locale = str(ctx.resolve("locale"))
        return markup(written_zone(zone, locale, pgettext), fmt)

    return zone_name
