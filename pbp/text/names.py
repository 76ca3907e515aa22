"""Matching the names players write to canonical card and player names.

Players write names as they would in a forum post: in any case, with ``ё`` or
``е``, pasted with bold markers (``[b]нож[/b]``, ``**нож**``), after a
preposition (``в кухне``), and inflected (``ножом``, ``Петю``, ``в танцевальном
зале``). :class:`NameMatcher` maps such a phrase to one canonical name, or
raises an error that names the phrase and lists what would be accepted.

Inflection is handled with Snowball's Russian stemmer (English for Latin words),
word by word: an input word matches a name word when their sets ``{word,
stem(word)}`` meet and the input word is at most two letters shorter (so that a
short word cannot match a name the stemmer cut short: ``Ал`` is not ``Алиен``).
The unstemmed word is kept in the set because Snowball
strips some name endings on one side only (``Горчичников`` → ``горчичник`` but
``Горчичникова`` → ``горчичников``; ``Алиен`` → ``ал`` but ``Алиену`` →
``алиен``).

Look-alike letters are read as the script of the word they stand in
(:func:`fold_confusables`): a Latin ``o`` in ``нoж`` is the Cyrillic ``о``, a
Cyrillic ``а`` in ``Kitchаn`` the Latin ``a``; the two render identically, so a
refusal would show the player a "typo" he cannot see.

A typo is never accepted silently: it raises ``unknown_name`` with a
``suggestion`` (rapidfuzz), so the player resends. Only a difference the stemmer
removes (an ending: ``Краснову``/``Краснова``) is accepted.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

import snowballstemmer
from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from pbp.games.core.events import AmbiguousMove, InvalidMove
from pbp.mail.safetext import INVISIBLE

#: Words dropped before a name: prepositions ("в кухне", "to Веталь", "in the kitchen")
#: and «игрок» in the cases pbp itself frames a name with when its gender is unknown
#: (:func:`pbp.text.filters.inflect_name`: «ДЛЯ игрока Веталь»), so that a player who copies
#: pbp's words back is read (rule P2).
PREPOSITIONS = frozenset(
    {"в", "во", "на", "за", "для", "к", "ко", "у", "с", "со", "to", "for", "with", "in", "the"}
    | {"игрок", "игрока", "игроку", "игроком", "игроке", "player"}
)

#: Lowest rapidfuzz ratio (0–100) for a "did you mean" suggestion.
SUGGESTION_CUTOFF = 65.0

#: Most typing errors (optimal string alignment distance: a letter left out, added,
#: changed, or two letters swapped) in a misspelt keyword of 5 to 7 letters; longer
#: keywords allow one more, shorter ones none (``help`` is not ``hell``).
KEYWORD_TYPOS = 1
#: Shortest common beginning (letters) that marks another part of speech of a keyword
#: ("обвиняю" / "обвинение"), and the share of the keyword's stem it must cover.
KEYWORD_PREFIX = 5
KEYWORD_PREFIX_SHARE = 0.6
#: Shortest word looked at as a possible misspelt keyword.
KEYWORD_MIN_LETTERS = 4

_MARKUP = re.compile(r"\[/?(?:b|i|u|s|color|size|font)(?:=[^\]]*)?\]|\*\*|__", re.IGNORECASE)
_EDGE_PUNCT = "\"'«»“”„‘’`.,;:!?()[]{}<>*_-–— \t"
_CYRILLIC = re.compile(r"[а-яё]")

#: Latin letters and the Cyrillic letters they look like (capitals alike; the lower-case
#: pairs follow the capitals, so that folding commutes with lower-casing).
_LATIN_LOOKS = "aAbBcCeEhHkKmMoOpPtTxXyY"
_CYRILLIC_LOOKS = "аАвВсСеЕнНкКмМоОрРтТхХуУ"
_TO_CYRILLIC = str.maketrans(_LATIN_LOOKS, _CYRILLIC_LOOKS)
_TO_LATIN = str.maketrans(_CYRILLIC_LOOKS, _LATIN_LOOKS)
_LATIN_LOOK_SET = frozenset(_LATIN_LOOKS)
_CYRILLIC_LOOK_SET = frozenset(_CYRILLIC_LOOKS)
_LETTERS = re.compile(r"[^\W\d_]+")
_HAS_LATIN = re.compile(r"[A-Za-z]")
_HAS_CYRILLIC = re.compile(r"[А-Яа-яЁё]")

#: Stress marks (COMBINING ACUTE and GRAVE ACCENT): a Russian word pasted from a
#: dictionary or a cast list carries them (Ли́за, Ма́ша), and a player types none.
STRESS = str.maketrans(dict.fromkeys("\u0300\u0301", None))

_RU = snowballstemmer.stemmer("russian")
_EN = snowballstemmer.stemmer("english")


#: Emoji and pictographs, with what composes them (variation selectors, skin tones,
#: the keycap mark, tag characters), arrows, dingbats and geometric shapes: never part
#: of a name or a keyword (``ГОЛОС Петя ✌️``), and a bullet before a command
#: (``👉 ГОЛОС Петя``). Each is read as a space.
EMOJI = re.compile(
    "[\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u2900-\u297f\u2b00-\u2bff\u20e3"
    "\ufe00-\ufe0f\U0001f000-\U0001faff\U000e0020-\U000e007f]+"
)


def clean(text: str) -> str:
    """``text`` without bold/italic markers, invisible characters
    (:data:`~pbp.mail.safetext.INVISIBLE`),
    stress marks (:data:`STRESS`), emoji (:data:`EMOJI`) and edge punctuation, spaces
    collapsed.

    >>> clean(" [b]Танцевальный\u00a0 зал[/b]\u200b. ")
    'Танцевальный зал'
    >>> clean("👉 ГОЛОС: «Петя» 👍🏻")
    'ГОЛОС: «Петя'
    """
    text = EMOJI.sub(" ", _MARKUP.sub("", text.translate(INVISIBLE).translate(STRESS)))
    return " ".join(text.split()).strip(_EDGE_PUNCT)


def _fold_word(match: re.Match[str]) -> str:
    word = match.group()
    cyrillic = latin = cyrillic_only = latin_only = 0
    for ch in word:
        if "А" <= ch <= "я" or ch in "Ёё":
            cyrillic += 1
            cyrillic_only += ch not in _CYRILLIC_LOOK_SET
        elif ch.isascii():
            latin += 1
            latin_only += ch not in _LATIN_LOOK_SET
    if not cyrillic or not latin or (cyrillic_only and latin_only):
        return word  # one script, or truly mixed: leave it to the matcher
    if cyrillic_only or (not latin_only and cyrillic > latin):
        return word.translate(_TO_CYRILLIC)
    if latin_only or latin > cyrillic:
        return word.translate(_TO_LATIN)
    return word


def fold_confusables(text: str) -> str:
    """``text`` with look-alike letters read as the script of their word: in a word with
    both Cyrillic and Latin letters, the Latin ``a b c e h k m o p t x y`` (and capitals)
    become the Cyrillic letters they look like when the word has a letter found only in
    Cyrillic (or, all letters being look-alikes, more Cyrillic ones); the reverse for a
    word with a letter found only in Latin. Words in one script, and words with letters
    found only in each script, are kept as written. Case is kept; length is kept.

    >>> fold_confusables("нoж, Вeталь, SUGGEST, Kitchаn")  # Latin o, e; Cyrillic а
    'нож, Веталь, SUGGEST, Kitchan'
    """
    if not (_HAS_LATIN.search(text) and _HAS_CYRILLIC.search(text)):
        return text
    return _LETTERS.sub(_fold_word, text)


def normalize(text: str) -> list[str]:
    """The words of ``text`` for comparison: cleaned, look-alike letters folded
    (:func:`fold_confusables`), lower-cased, ``ё`` → ``е``.

    >>> normalize("**Зелёный Зал**")
    ['зеленый', 'зал']
    """
    words = fold_confusables(clean(text)).lower().replace("ё", "е").split()
    return [w.strip(_EDGE_PUNCT) for w in words if w.strip(_EDGE_PUNCT)]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball stem of one normalized word (Russian for Cyrillic, else English).

    Cached: every mail is parsed against its game's card and player names, whose
    stems are the same each time (about 0.1 ms per word with Snowball).

    >>> stem("ножом")
    'нож'
    """
    return str((_RU if _CYRILLIC.search(word) else _EN).stemWord(word))


def same_lexeme(word: str, keyword: str) -> bool:
    """True when ``word`` is ``keyword`` or an inflection of it: their Snowball stems are
    equal (case, ``ё``/``е`` and look-alike letters ignored). One word each.

    >>> same_lexeme("Предположения", "предположение"), same_lexeme("Обвиняю", "обвинение")
    (True, False)
    """
    a, b = normalize(word), normalize(keyword)
    return len(a) == len(b) == 1 and stem(a[0]) == stem(b[0])


def closest_keyword(word: str, keywords: Sequence[str]) -> str | None:
    """The keyword ``word`` resembles best, as written in ``keywords``, or None.

    ``word`` (one word, at least :data:`KEYWORD_MIN_LETTERS` letters) resembles a keyword
    when it is within :data:`KEYWORD_TYPOS` typing errors of it (one more for keywords of
    8 letters or more, none for keywords under 5; a typo: ``Предпложение``, ``Sugest``,
    ``Statsu``), or when they begin with the same :data:`KEYWORD_PREFIX` or more letters covering
    :data:`KEYWORD_PREFIX_SHARE` of the keyword's stem (another part of speech:
    ``Обвиняю``, ``Опровергаю``). Only keywords of the word's script are compared;
    case, ``ё`` and look-alike letters are ignored. The keyword with the fewest errors
    wins, ties go to the keyword given first. Meant for words that are not
    :func:`same_lexeme`.

    >>> closest_keyword("Предпложение", ["обвинение", "предположение"])
    'предположение'
    >>> closest_keyword("Продолжение", ["обвинение", "предположение"]) is None
    True
    """
    words = normalize(word)
    if len(words) != 1 or len(words[0]) < KEYWORD_MIN_LETTERS:
        return None
    plain = words[0]
    cyrillic = bool(_CYRILLIC.search(plain))
    best: str | None = None
    best_errors = 0
    for keyword in keywords:
        key_words = normalize(keyword)
        if len(key_words) != 1 or bool(_CYRILLIC.search(key_words[0])) != cyrillic:
            continue
        key = key_words[0]
        allowed = (KEYWORD_TYPOS + (len(key) >= 8)) if len(key) >= 5 else 0
        errors = OSA.distance(plain, key, score_cutoff=allowed + 1)
        prefix = next(
            (n for n, (a, b) in enumerate(zip(plain, key, strict=False)) if a != b),
            min(len(plain), len(key)),
        )
        if prefix >= KEYWORD_PREFIX and prefix >= KEYWORD_PREFIX_SHARE * len(stem(key)):
            errors = min(errors, allowed)
        if errors <= allowed and (best is None or errors < best_errors):
            best, best_errors = keyword, errors
    return best


def _forms(word: str) -> frozenset[str]:
    return frozenset({word, stem(word)})


class NameMatcher:
    """Resolves what a player wrote to one of ``names`` (canonical, in configured spelling).

    ``kind`` (``"card"``, ``"player"``, …) is passed on in error params, so that the
    answer can say "unknown card" or "unknown player".

    Example::

        m = NameMatcher(["Краснова", "нож", "танцевальный зал"], kind="card")
        m.match("в танцевальном зале")   # -> "танцевальный зал"
        m.match("Кранова")               # raises InvalidMove("unknown_name", suggestion="Краснова")
    """

    def __init__(self, names: Sequence[str], *, kind: str = "name") -> None:
        self.names: tuple[str, ...] = tuple(names)
        self.kind = kind
        self._words: list[tuple[str, tuple[str, ...]]] = [(n, tuple(normalize(n))) for n in names]
        self._forms: list[tuple[str, tuple[tuple[int, frozenset[str]], ...]]] = [
            (n, tuple((len(w), _forms(w)) for w in words)) for n, words in self._words
        ]
        self.max_words = max((len(w) for _, w in self._words), default=1)

    # -- public API --

    def match(self, text: str) -> str:
        """The canonical name that ``text`` denotes.

        Tried in order: the exact words (case-insensitive, ``ё`` = ``е``, markup
        removed), then the stems word by word; each first as written, then without
        leading prepositions (:data:`PREPOSITIONS`). A fragment that begins two or more
        names (``Саш`` for Саша and Сашка, ``т`` for терраса and танцевальный зал) is
        ambiguous, even when its stem matches one of them.

        :raises InvalidMove: ``unknown_name`` with params ``word`` (``text`` cleaned of
            markup), ``suggestion`` (the closest name or None), ``allowed`` (every name)
            and ``kind``.
        :raises AmbiguousMove: ``ambiguous_name`` with params ``word``, ``candidates``
            (the names that match equally well, in configured order) and ``kind``.
        """
        found = self._lookup(normalize(text))
        if len(found) == 1:
            return found[0]
        word = clean(text)
        if found:
            raise AmbiguousMove("ambiguous_name", word=word, candidates=found, kind=self.kind)
        raise InvalidMove(
            "unknown_name",
            word=word,
            suggestion=self.suggest(text),
            allowed=list(self.names),
            kind=self.kind,
        )

    def suggest(self, text: str) -> str | None:
        """The closest name to ``text``, or None: the best rapidfuzz ratio (0–100) on the
        words and on the stems (a part of a longer name scores 90), when at least
        :data:`SUGGESTION_CUTOFF`. Ties go to the name configured first.

        >>> NameMatcher(["Краснова", "Белых"]).suggest("Кранова")
        'Краснова'
        """
        words = _drop_prepositions(normalize(text))
        if not words:
            return None
        plain = " ".join(words)
        stems = " ".join(stem(w) for w in words)
        best: str | None = None
        best_score = SUGGESTION_CUTOFF
        for name, name_words in self._words:
            name_stems = " ".join(stem(w) for w in name_words)
            score = max(
                fuzz.ratio(plain, " ".join(name_words)),
                fuzz.ratio(stems, name_stems),
                # one word of a longer name ("зал" for "танцевальный зал")
                0.9 * fuzz.token_set_ratio(stems, name_stems),
            )
            if score > best_score or (best is None and score >= best_score):
                best, best_score = name, score
        return best

    def segment(self, text: str, fillers: Collection[str] = ()) -> list[str] | None:
        """Split ``text`` into consecutive names, or None when some word is neither part
        of a name nor a filler. Prepositions and ``fillers`` (normalized words) between
        names are skipped; the longest name wins at each position; an ambiguous or
        unknown word gives None.

        >>> NameMatcher(["Краснова", "нож", "кухня"]).segment("Краснова ножом в кухне")
        ['Краснова', 'нож', 'кухня']
        """
        words = normalize(text)
        found: list[str] = []
        i = 0
        while i < len(words):
            for n in range(min(self.max_words, len(words) - i), 0, -1):
                names = self._by_words(words[i : i + n])
                if len(names) == 1:
                    found.append(names[0])
                    i += n
                    break
            else:
                if words[i] in PREPOSITIONS or words[i] in fillers:
                    i += 1
                else:
                    return None
        return found

    # -- matching --

    def _lookup(self, words: list[str]) -> list[str]:
        phrasings = [words]
        rest = words
        while len(rest) > 1 and rest[0] in PREPOSITIONS:
            rest = rest[1:]
            phrasings.append(rest)
        for phrasing in phrasings:
            exact = [n for n, w in self._words if w == tuple(phrasing)]
            if exact:
                return exact
        for phrasing in phrasings:
            stemmed = self._by_stems(phrasing)
            if stemmed:
                return self._widen(phrasing, stemmed)
        return self._widen(phrasings[-1], [])

    def _by_words(self, words: list[str]) -> list[str]:
        exact = [n for n, w in self._words if w == tuple(words)]
        return exact or self._widen(words, self._by_stems(words))

    def _widen(self, words: list[str], found: list[str]) -> list[str]:
        """``found`` (names matched by stems, or none) with every name that ``words``
        begin, when that makes two or more: a fragment such as ``Саш`` (Саша and Сашка
        play) is ambiguous, never guessed. Names in configured order."""
        typed = " ".join(words)
        if not typed:
            return found
        begun = {n for n, w in self._words if " ".join(w).startswith(typed)}
        if len(begun | set(found)) < 2 or not begun:
            return found
        return [n for n in self.names if n in begun or n in found]

    def _by_stems(self, words: list[str]) -> list[str]:
        if not words:
            return []
        forms = [(len(w), _forms(w)) for w in words]
        return [
            name
            for name, name_forms in self._forms
            if len(name_forms) == len(forms)
            and all(
                n >= len_ - 2 and a & b for (n, a), (len_, b) in zip(forms, name_forms, strict=True)
            )
        ]


def _drop_prepositions(words: list[str]) -> list[str]:
    while len(words) > 1 and words[0] in PREPOSITIONS:
        words = words[1:]
    return words
