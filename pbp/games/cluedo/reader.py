"""Reading the words of one Cluedo command (issue 2, "Fixed interface"; rules C4, C6, D2):
its keywords in every locale (:func:`current_words`), card names in any case and order
(:meth:`Reader.three_cards`, :func:`card_read`), the addressee, the suggestion's number
and the seed's sentence (:meth:`Reader.sentence`).

Which line of a mail is which command, the grammar and the error codes are in
:mod:`pbp.games.cluedo.parse`, which reads a mail's lines with a :class:`Reader`.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pbp.games.cluedo.cards import (
    CATEGORIES,
    Accuse,
    Cards,
    CluedoMove,
    NoRefutation,
    Refute,
    Suggest,
)
from pbp.games.core.events import InvalidMove, MoveError
from pbp.text import cardforms, commands, keywords, morph
from pbp.text.commands import TRAILING as _TRAILING
from pbp.text.commands import PlayerNames
from pbp.text.names import NameMatcher, normalize

_NUMBER = r"(?:[№#]|[nн](?=\s*\d))?\s*(?P<number>\d+)"

#: Cluedo's section of the words players type, both variants': ``keywords/<locale>.yaml``
#: in :mod:`pbp.games.cluedo`; «для» / "to" parts a suggestion from its addressee.
SECTION = keywords.declare(
    keywords.Section(
        "cluedo",
        Path(__file__).parent / "keywords",
        {
            "suggest": "command",
            "refute": "command",
            "no_refutation": "command",
            "accuse": "command",
            "negation": "list",
            "addressee": "list",
            "number_prepositions": "list",
            "suggestion_forms": "list",
            "forum_heading": "list?",
        },
        separators=("addressee",),
    )
)


@dataclass(frozen=True)
class Vocab:
    """The words of every locale (:mod:`pbp.text.keywords`, section ``cluedo``) as this
    parser reads them, built once per vocabulary (:func:`_vocab`)."""

    words: commands.Keywords
    #: Negations of a refutation ("нет", "no"), each with its locale.
    negations: dict[str, str]
    #: The last word of NO REFUTATION as shown, lower case, per locale: what a
    #: misspelt second word is compared with ("опровержения", "refutation").
    refutation_shown: dict[str, str]
    refute: re.Pattern[str]
    no_refutation: re.Pattern[str]
    #: The heading of the seed's forum form ("Предположение_1 для Веталь"), from the
    #: locales' ``forum_heading`` words; one that never matches when none has any.
    heading: re.Pattern[str]
    addressee: re.Pattern[str]
    leading_addressee: re.Pattern[str]
    fillers: frozenset[str]


@functools.cache
def _vocab(vocabulary: keywords.Vocabulary) -> Vocab:
    section = "cluedo"
    by_command = {
        "suggest": section,
        "refute": section,
        "accuse": section,
        "status": "common",
        "help": "common",
    }
    read = {
        name: {loc: vocabulary.command(sec, name, loc).read for loc in vocabulary.locales}
        for name, sec in by_command.items()
    }
    shown_order = ("suggest", "refute", "no_refutation", "accuse", "status", "help")
    shown = {name: vocabulary.shown(by_command.get(name, section), name) for name in shown_order}
    # Words that may stand before the number: "на №1", "на предложение 7", "to 7".
    prepositions = keywords.alternation(vocabulary.words(section, "number_prepositions"))
    suggestion = keywords.alternation(vocabulary.words(section, "suggestion_forms"))
    before_number = rf"(?:{prepositions}\s+)?(?:{suggestion}\s*)?(?=[№#nн]?\s*\d)"
    to = keywords.alternation(vocabulary.words(section, "addressee"))
    forum = vocabulary.words(section, "forum_heading")
    heading = (
        re.compile(rf"^{keywords.alternation(forum)}{_HEADING_REST}", re.IGNORECASE)
        if forum
        else re.compile(r"(?!)")
    )
    return Vocab(
        # The help's commands in each locale: ``unknown_command``'s ``commands``.
        words=commands.Keywords(
            read,
            shown,
            params={
                "commands": {
                    loc: [shown[name][loc] for name in shown_order] for loc in vocabulary.locales
                }
            },
        ),
        negations=vocabulary.locale_of(section, "negation"),
        refutation_shown={
            loc: form.split()[-1].lower() for loc, form in shown["no_refutation"].items()
        },
        refute=re.compile(
            rf"^(?:{before_number}{_NUMBER}\s*[.:,)]?(?:\s+|$))?(?P<card>.*)$", re.IGNORECASE
        ),
        no_refutation=re.compile(rf"^(?:{before_number}{_NUMBER})?\s*[.!]*$", re.IGNORECASE),
        heading=heading,
        addressee=re.compile(rf"\s+{to}\s*:?\s+", re.IGNORECASE),
        leading_addressee=re.compile(rf"^{to}\s*:?\s+", re.IGNORECASE),
        # "и"/"and" between cards, and the seed sentence's words (_SENTENCE_GLUE).
        fillers=frozenset(vocabulary.words("common", "and")) | {"орудием", "комнате"},
    )


def current_words() -> Vocab:
    """This parser's words, from the vocabulary loaded now."""
    return _vocab(keywords.current())


def reserved_card_word(card: str) -> str | None:
    """The first word of ``card``'s name when a player's REFUTE would read it as part
    of the command, or None: a negation («нет», "no": ``ОПРОВЕРЖЕНИЕ Нет`` is NO
    REFUTATION) or a number (``ОПРОВЕРЖЕНИЕ 12 стульев`` refutes suggestion 12 with a
    card «стульев»). A card so named could not be shown without the suggestion's
    number, and the refusal would ask for the same line again, so ``games.yaml``
    refuses it (:class:`pbp.games.cluedo.config.CluedoGame`).

    >>> reserved_card_word("Нет выхода"), reserved_card_word("12 стульев")
    ('нет', '12')
    >>> reserved_card_word("Нож"), reserved_card_word("Комната для гостей") is None
    (None, True)
    """
    words = normalize(card)
    if words and (words[0] in current_words().negations or re.match(r"[№#]?\d", words[0])):
        return words[0]
    return None


#: Where the addressee written first ends and the cards begin.
_CARDS_START = re.compile(r"\s*(?:[:—–,]|\s-)\s*")
#: Where chat after an addressee written last begins ("для Веталь. Спасибо!").
_CHAT_START = re.compile(r"\s*(?:[.!?;:,(]|\s[—–-]\s)")
#: What follows the first word of the seed's heading (``forum_heading``: «Предположение»).
_HEADING_REST = (
    r"(?:\s*[_\s]\s*(?:[№#]\s*)?\d+)?"
    r"(?:\s+(?:для|to)\s+(?P<player>[^,:]+?))?(?:\s*\(\s*[№#]?\s*(?P<echo>\d+)\s*\)?)?"
    r"\s*[.:!]?\s*(?P<sentence>я\s+думаю\b.*)?$"
)
SENTENCE = re.compile(
    r"^я\s+думаю\s*,?\s*что\s+(?:убийство\s+совершил(?:а|\s*\(\s*а\s*\))?\s*[,:]?\s+"
    r"|убийца\s*[—–:-]?\s*)(?P<rest>.+)$",
    re.IGNORECASE,
)
SENTENCE_START = re.compile(r"^я\s+думаю\b", re.IGNORECASE)
#: Words of the seed's sentence that separate the three cards.
_SENTENCE_GLUE = re.compile(
    r"\s*(?:\bорудием\b|\bорудие\b|\bв\s+комнате\b|\bв\s+помещении\b|\bкомнате\b"
    r"|\b(?:комната|место)\s*(?=[—–-]))\s*[—–-]?\s*",
    re.IGNORECASE,
)
#: The most glue words of a sentence that may be read as a card's own words
#: (:func:`_kept_glue`): the sentence has three at most, a card name one or two.
_MOST_KEPT = 4
_LIST_SPLIT = re.compile(r"\s*[,;]\s*")


@functools.lru_cache(maxsize=256)
def _card_matcher(cards: tuple[str, ...]) -> NameMatcher:
    """The matcher of a game's cards, built once (it is never changed after)."""
    return NameMatcher(cards, kind="card")


class Reader:
    """Parses the lines of one mail against one game's cards and players."""

    def __init__(
        self,
        cards: Cards,
        players: Sequence[str],
        addressed: bool,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.cards = cards
        self.players = list(players)
        self.addressed = addressed
        self.card_names = _card_matcher(tuple(cards.all()))
        # The forms pbp itself writes in a suggestion (rule P2: «молотком», «в
        # танцевальном зале»), which the stems alone miss when a vowel drops
        # (молоток → молотком).
        self.card_forms = _declined_forms(tuple(cards.all()))
        # Exact Russian case forms first: the stemmer cuts Вася to "ва" (-ся).
        self.player_names = PlayerNames(players, aliases)

    # -- examples for error params --

    def example(self) -> dict[str, str | None]:
        return {
            "suspect": self.cards.suspects[0] if self.cards.suspects else "",
            "weapon": self.cards.weapons[0] if self.cards.weapons else "",
            "room": self.cards.rooms[0] if self.cards.rooms else "",
            "player": (self.players[-1] if self.players else "") if self.addressed else None,
        }

    # -- cards --

    def three_cards(self, text: str, code: str, line: str) -> tuple[str, str, str]:
        """``(suspect, weapon, room)`` named in ``text`` in any order.

        :raises InvalidMove: ``code`` (not three cards; also for a single phrase that
            resembles no card), ``card_categories``, ``unknown_name``.
        :raises AmbiguousMove: ``ambiguous_name``.
        """
        names: list[str] = []
        parts = [p.strip(_TRAILING) for p in _LIST_SPLIT.split(text.strip(_TRAILING))]
        parts = [p for p in parts if normalize(p)]
        for part in parts:
            declined = self.card_forms.get(" ".join(normalize(part)))
            if declined is not None:
                names.append(declined)
                continue
            try:
                names.append(self.card_names.match(part))
            except MoveError as error:
                found = _segment(self.card_names, self.card_forms, part)
                if found:
                    names.extend(found)
                    continue
                if len(parts) > 1 or error.params.get("suggestion") is not None:
                    error.params["line"] = line
                    raise
                names = []  # one phrase like no card at all: chatter after a keyword
        if len(names) != 3:
            raise InvalidMove(
                code, line=line, count=len(names), example=self.example(), addressed=self.addressed
            )
        by_category: dict[str, list[str]] = {c: [] for c in CATEGORIES}
        for name in names:
            by_category[self.cards.category_of(name)].append(name)
        doubled = [c for c in CATEGORIES if len(by_category[c]) > 1]
        if doubled:
            raise InvalidMove(
                "card_categories",
                line=line,
                cards=names,
                category=doubled[0],
                doubled=by_category[doubled[0]],
                missing=[c for c in CATEGORIES if not by_category[c]],
                allowed={
                    "suspects": list(self.cards.suspects),
                    "weapons": list(self.cards.weapons),
                    "rooms": list(self.cards.rooms),
                },
            )
        return by_category["suspect"][0], by_category["weapon"][0], by_category["room"][0]

    def player(self, text: str, line: str) -> str:
        try:
            return self.player_names.match(text.strip(_TRAILING))
        except MoveError as error:
            error.params["line"] = line
            raise

    # -- commands --

    def command(self, keyword: str, rest: str, line: str) -> CluedoMove:
        """The move of a keyword line; ``rest`` is what follows the keyword."""
        if keyword == "suggest":
            return self.suggest(rest, line)
        if keyword == "refute":
            return self.refute(rest, line)
        if keyword == "no_refutation":
            return self.no_refutation(rest, line)
        return Accuse(*self.three_cards(rest, "accuse_syntax", line))

    def bare_sentence(self, line: str) -> Suggest:
        """The seed's sentence without a heading: a suggestion without addressee (rounds
        variant); ``missing_addressee`` when one is needed."""
        cards = self.sentence(line, line)
        if self.addressed:
            raise InvalidMove(
                "missing_addressee", line=line, players=self.players, example=self.example()
            )
        return Suggest(*cards)

    def addressee(self, text: str) -> str | None:
        """The player named at the start of ``text`` (an addressee written last): all of
        it, or what comes before a punctuation mark (chat follows); None when neither
        names exactly one player."""
        for candidate in _addressee_texts(text):
            try:
                player = self.player_names.match(candidate)
            except MoveError:
                continue
            if candidate != text.strip(_TRAILING):  # chat after a punctuation mark …
                chat = text.strip(_TRAILING)[len(candidate) :]
                other = _CHAT_START.sub("", chat, count=1)
                try:
                    named = [self.addressee(other)] if other.strip(_TRAILING) else []
                except InvalidMove as several:  # a third one
                    named = list(several.params["players"])
                if any(name is not None and name != player for name in named):
                    # … or a second addressee: never guess which one was meant
                    players = [player, *(name for name in named if name is not None)]
                    raise InvalidMove("several_addressees", players=players)
            return player
        return None

    def suggest(self, rest: str, line: str) -> Suggest:
        lead = current_words().leading_addressee.match(rest)
        if lead:
            return self.suggest_addressee_first(rest[lead.end() :], line)
        splits = list(current_words().addressee.finditer(rest))
        for split in reversed(splits):
            addressee = self.addressee(rest[split.end() :])
            if addressee is None:
                continue
            if not self.addressed:
                raise InvalidMove("unexpected_addressee", line=line, player=addressee)
            cards = self.three_cards(rest[: split.start()], "suggest_syntax", line)
            return Suggest(*cards, addressee=addressee)
        if self.addressed and splits:
            self.player(_addressee_texts(rest[splits[-1].end() :])[-1], line)  # raises
        cards = self.three_cards(rest, "suggest_syntax", line)
        if self.addressed:
            raise InvalidMove(
                "missing_addressee", line=line, players=self.players, example=self.example()
            )
        return Suggest(*cards)

    def suggest_addressee_first(self, after: str, line: str) -> Suggest:
        """``ДЛЯ <player>: <cards>`` (``after`` follows ``ДЛЯ``): the addressee ends at a
        colon, dash or comma, or after his name's words."""
        heads: list[tuple[str, str]] = []
        start = _CARDS_START.search(after)
        if start:
            heads.append((after[: start.start()], after[start.end() :]))
        words = after.split()
        for count in range(1, min(self.player_names.matcher.max_words, len(words)) + 1):
            heads.append((" ".join(words[:count]), " ".join(words[count:])))
        first_error: MoveError | None = None
        for head, tail in heads:
            try:
                addressee = self.player_names.match(head)
            except MoveError as error:
                first_error = first_error or error
                continue
            if not self.addressed:
                raise InvalidMove("unexpected_addressee", line=line, player=addressee)
            return Suggest(*self.three_cards(tail, "suggest_syntax", line), addressee=addressee)
        refusal = first_error or InvalidMove(
            "missing_addressee", players=self.players, example=self.example()
        )
        refusal.params["line"] = line
        raise refusal

    def refute(self, rest: str, line: str) -> Refute:
        match = current_words().refute.match(rest)
        card = match.group("card").strip(_TRAILING) if match else ""
        if match is None or not normalize(card):
            raise InvalidMove(
                "refute_syntax", line=line, example={"number": 7, "card": self.example()["weapon"]}
            )
        number = int(match.group("number")) if match.group("number") else None
        try:
            return Refute(self.card_names.match(card), number)
        except MoveError as error:
            error.params["line"] = line
            raise

    def no_refutation(self, rest: str, line: str) -> NoRefutation:
        match = current_words().no_refutation.match(rest)
        if match is None:
            raise InvalidMove("no_refutation_syntax", line=line, example={"number": 7})
        return NoRefutation(int(match.group("number")) if match.group("number") else None)

    def sentence(self, text: str, line: str) -> tuple[str, str, str]:
        match = SENTENCE.match(text)
        if match is None:
            raise InvalidMove(
                "suggest_syntax",
                line=line,
                count=0,
                example=self.example(),
                addressed=self.addressed,
            )
        rest = match.group("rest")
        glue = list(_SENTENCE_GLUE.finditer(rest))
        first: MoveError | None = None
        # Every glue word read as the seed's first; where that fails, some kept as a
        # card's own words (Орудие пыток, Комната отдыха: «в комнате отдыха», as its
        # cards.phrases entry says it in the posts), fewest kept first.
        for kept in _kept_glue(len(glue)):
            try:
                return self.three_cards(_unglued(rest, glue, kept), "suggest_syntax", line)
            except MoveError as error:
                first = first or error
        assert first is not None
        raise first


@functools.lru_cache(maxsize=256)
def _declined_forms(cards: tuple[str, ...]) -> dict[str, str]:
    """Each card's forms in the oblique cases as :func:`pbp.text.cardforms.card_form`
    writes them (normalized: lower case, ``ё`` as ``е``) → the card; a form that is
    also another card's name, or the form of two cards, is left out. Built once per
    game's cards (read only)."""
    names = {" ".join(normalize(card)) for card in cards}
    found: dict[str, set[str]] = {}
    for card in cards:
        for case in morph.OBLIQUE:
            form = cardforms.card_form(card, case)
            if form is not None:
                found.setdefault(" ".join(normalize(form)), set()).add(card)
    return {f: c.pop() for f, c in found.items() if len(c) == 1 and f not in names}


def _kept_glue(count: int) -> Iterator[frozenset[int]]:
    """Which of a sentence's ``count`` glue words (:data:`_SENTENCE_GLUE`, in order) to
    keep as a card's own words, in the order :meth:`Reader.sentence` tries them: none,
    then each one, then each two… (only among the first :data:`_MOST_KEPT`)."""
    among = range(min(count, _MOST_KEPT))
    for n in range(len(among) + 1):
        for kept in itertools.combinations(among, n):
            yield frozenset(kept)


def _unglued(rest: str, glue: Sequence[re.Match[str]], kept: frozenset[int]) -> str:
    """``rest`` with each of its ``glue`` matches made a comma, but those whose index is
    in ``kept``, left as written (a card's own words)."""
    pieces, start = [], 0
    for i, found in enumerate(glue):
        pieces += [rest[start : found.start()], found.group() if i in kept else ", "]
        start = found.end()
    return "".join([*pieces, rest[start:]])


def card_read(text: str, cards: Cards) -> str | None:
    """The one card of ``cards`` that ``text`` names when a player writes it as a card
    of a suggestion (its forms as :func:`pbp.text.cardforms.card_form` writes them, the
    stems, a preposition before it: «в зимнем саду», «на кухне», «ножом»), or None
    (no card, or more than one). ``games.yaml`` holds a card's phrase to it
    (``cards.phrases``): a player who copies the phrase from a post must be understood.

    >>> cards = Cards(("Белых",), ("нож",), ("кухня", "зимний сад"))
    >>> card_read("в зимнем саду", cards), card_read("ножом", cards), card_read("в саду", cards)
    ('зимний сад', 'нож', None)
    """
    names = tuple(cards.all())
    declined = _declined_forms(names).get(" ".join(normalize(text)))
    if declined is not None:
        return declined
    matcher = _card_matcher(names)
    try:
        return matcher.match(text)
    except MoveError:
        found = _segment(matcher, _declined_forms(names), text)
    return found[0] if found is not None and len(found) == 1 else None


def _segment(matcher: NameMatcher, forms: Mapping[str, str], text: str) -> list[str] | None:
    """The cards ``text`` names one after another (:meth:`NameMatcher.segment`), also
    when a card is in a form its stem misses and no comma parts it from the next
    («молотком на кухне», as pbp writes a suggestion: a vowel drops, молоток →
    молотком): such a form (``forms``: :func:`_declined_forms`) is read as its card
    first. None when some word is no card, preposition or filler."""
    found = matcher.segment(text, current_words().fillers)
    if found is not None:
        return found
    words = normalize(text)
    longest = max((len(form.split()) for form in forms), default=0)
    read: list[str] = []
    i = 0
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            card = forms.get(" ".join(words[i : i + n]))
            if card is not None:
                read.append(card)
                i += n
                break
        else:
            read.append(words[i])
            i += 1
    if read == words:
        return None
    return matcher.segment(" ".join(read), current_words().fillers)


def _addressee_texts(text: str) -> list[str]:
    """What may name the addressee written last: all of ``text``, then (when a
    punctuation mark is followed by more) only what precedes it."""
    texts = [text.strip(_TRAILING)]
    chat = _CHAT_START.search(text)
    if chat and chat.start() > 0 and text[chat.end() :].strip(_TRAILING):
        texts.append(text[: chat.start()].strip(_TRAILING))
    return texts
