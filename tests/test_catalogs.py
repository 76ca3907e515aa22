"""The translation catalogs (pbp/text/catalogs.py, issue 16): every message the templates
use is in every catalog, the Russian one translates each, and both sides of a message
name the same variables."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest
from babel.messages import pofile
from babel.messages.catalog import Catalog
from babel.messages.extract import extract, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from jinja2 import nodes
from kits.cli import run
from kits.table import write_config

from pbp.games.maniac.words import SECTION as MANIAC_WORDS
from pbp.text import catalogs, keywords

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"

Key = tuple[str | None, str]  # (context, msgid)


def _extracted() -> set[Key]:
    """Every message of the templates and of pbp/text/filters.py, render.py and
    timetext.py, as ``scripts/catalogs`` extracts them (babel.cfg)."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)  # type: ignore[no-untyped-call]
    found: set[Key] = set()
    messages = [
        (message, context)
        for _file, _line, message, _comments, context in extract_from_dir(
            str(TEMPLATES), method_map, options_map
        )
    ]
    for module in ("filters.py", "render.py", "timetext.py"):
        with (ROOT / "pbp" / "text" / module).open("rb") as source:
            messages += [
                (message, context) for _line, message, _c, context in extract("python", source)
            ]
    for message, context in messages:
        msgid = message[0] if isinstance(message, tuple | list) else message
        found.add((context, msgid))
    return found


def _catalog(locale: str) -> Catalog:
    with catalogs.catalog_path(locale).open("rb") as source:
        return pofile.read_po(source, locale=locale)


def _keys(catalog: Catalog) -> set[Key]:
    keys: set[Key] = set()
    for message in catalog:
        if not message.id:
            continue  # the header
        msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
        keys.add((message.context, msgid))
    return keys


def test_every_catalog_holds_exactly_the_messages_of_the_templates() -> None:
    extracted = _extracted()
    assert len(extracted) > 0
    for locale in catalogs.LOCALES:
        held = _keys(_catalog(locale))
        assert sorted(extracted - held, key=str) == [], f"{locale}: run scripts/catalogs"
        assert sorted(held - extracted, key=str) == [], f"{locale}: run scripts/catalogs"


def test_every_russian_message_is_translated_and_none_is_fuzzy() -> None:
    untranslated = []
    for message in _catalog("ru"):
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings) or len(strings) not in (1, 3):
            untranslated.append(message.id)
    assert untranslated == []


def test_the_english_catalog_is_the_messages_themselves() -> None:
    filled = [m.id for m in _catalog("en") if m.id and any(m.string or ())]
    assert filled == []


def test_a_translation_names_the_variables_of_its_message() -> None:
    # Babel's checkers: python-format placeholders of msgid and msgstr agree.
    problems = [
        (message.id, [str(error) for error in errors]) for message, errors in _catalog("ru").check()
    ]
    assert problems == []


def test_russian_plural_forms_follow_cldr() -> None:
    # one: 1, 21, 101; few: 2-4, 22-24; many: 0, 5-20, 25-30, 111-114.
    found = catalogs.translations("ru")
    forms = {n: found.plural(n) for n in (0, 1, 2, 4, 5, 11, 12, 14, 21, 22, 25, 101, 111, 112)}  # type: ignore[attr-defined]
    assert forms == {
        0: 2, 1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 12: 2, 14: 2, 21: 0, 22: 1, 25: 2,
        101: 0, 111: 2, 112: 2,
    }  # fmt: skip


def _shown_constants(node: nodes.Node) -> list[str]:
    """The string constants an output expression shows: itself, both branches of an
    ``a if c else b``, a dictionary's values looked up (``{"x": "…"}[k]``), the parts
    of ``a ~ b`` and what a filter is applied to (not its arguments, not a call's:
    ``one(events, "game_started")`` shows no text)."""
    if isinstance(node, nodes.Const):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, nodes.CondExpr):
        return _shown_constants(node.expr1) + (
            _shown_constants(node.expr2) if node.expr2 is not None else []
        )
    if isinstance(node, nodes.Getitem) and isinstance(node.node, nodes.Dict):
        return [text for pair in node.node.items for text in _shown_constants(pair.value)]
    if isinstance(node, nodes.Concat):
        return [text for part in node.nodes for text in _shown_constants(part)]
    if isinstance(node, nodes.Filter) and node.node is not None:
        return _shown_constants(node.node)
    return []


#: Names that are the same in every language: mail header fields (RFC 5322), the hash,
#: the two post formats.
NAMES = r"^Subject:|Message-ID:|SHA-256|BBCode|Markdown|HTML"


def _one_tree_templates() -> list[Path]:
    return sorted(path for path in TEMPLATES.rglob("*") if path.suffix in (".j2", ".txt"))


def test_no_template_shows_text_outside_a_message() -> None:
    # Every word a reader sees is a catalog's (issue 16): literal template text holds
    # only markup, punctuation and the mail's "Subject:"; a string constant shown by an
    # output expression holds no letters.
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True)
    found: list[str] = []
    for path in _one_tree_templates():
        tree = env.parse(path.read_text(encoding="utf-8"))
        name = str(path.relative_to(TEMPLATES))
        for data in tree.find_all(nodes.TemplateData):
            text = re.sub(NAMES, "", data.data, flags=re.MULTILINE)
            text = re.sub(r"\[/?(b|i|u|s|quote|code|url|spoiler)[^\]]*\]", "", text)
            if re.search(r"[A-Za-zА-Яа-яЁё]", text):
                found.append(f"{name}: {data.data.strip()[:60]!r}")
        for output in tree.find_all(nodes.Output):
            for expr in output.nodes:
                if isinstance(expr, nodes.TemplateData):
                    continue
                for text in _shown_constants(expr):
                    # A format string's placeholders ("%s"|format(…)) are not text.
                    if re.search(
                        r"[A-Za-zА-Яа-яЁё]", re.sub(rf"%(\(\w+\))?[sd]|{NAMES}", "", text)
                    ):
                        found.append(f"{name}: {{{{ {text[:60]!r} }}}}")
    assert len(_one_tree_templates()) > 0
    assert found == []


@pytest.fixture
def shipped_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of pbp/locale that pbp.text.catalogs and pbp.text.keywords read instead (caches
    cleared before and after)."""
    copy = tmp_path / "locale"
    shutil.copytree(catalogs.CATALOGS, copy)
    monkeypatch.setattr(catalogs, "CATALOGS", copy)
    catalogs._parsed.cache_clear()
    catalogs.translations.cache_clear()
    yield copy
    catalogs._parsed.cache_clear()
    catalogs.translations.cache_clear()
    keywords.reload()


def test_the_shipped_texts_have_no_problem() -> None:
    assert catalogs.problems() == []
    assert keywords.problems() == []


def test_a_catalog_that_cannot_be_parsed_is_a_problem_not_english_texts(
    shipped_texts: Path,
) -> None:
    # Found by a hostile probe: a damaged .po was read as an empty catalog, and a
    # Russian game went on in English with two warnings.
    (shipped_texts / "ru" / "LC_MESSAGES" / "pbp.po").write_text('msgid "a\n', encoding="utf-8")
    found = catalogs.problems()
    assert len(found) == 1
    assert found[0].startswith(f"{shipped_texts}/ru/LC_MESSAGES/pbp.po: cannot be read: ")


def test_a_translation_that_cannot_be_filled_is_a_problem(shipped_texts: Path) -> None:
    path = shipped_texts / "ru" / "LC_MESSAGES" / "pbp.po"
    text = path.read_text(encoding="utf-8")
    broken = text.replace(
        'msgstr "«%(word)s» подходит сразу к нескольким:',
        'msgstr "«%(слово)s» — 50% подходит сразу к нескольким:',
    )
    assert broken != text
    path.write_text(broken, encoding="utf-8")
    found = catalogs.problems()
    assert [p.split(": ", 1)[0].rsplit(":", 1)[0] for p in found] == [str(path)] * len(found)
    assert any("cannot be filled" in p for p in found)


def test_a_keywords_file_lacking_an_entry_is_a_problem(shipped_texts: Path) -> None:
    path = shipped_texts / "ru" / "keywords.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("  pause:", "  pause_:"), "utf-8")
    assert catalogs.problems() == []
    found = keywords.problems()
    assert len(found) == 1 and found[0].startswith("keywords: ")
    assert str(path) in found[0]


def test_a_games_keywords_file_lacking_an_entry_is_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game's own section (``keywords/<locale>.yaml`` in its package) is checked as
    pbp's file is."""
    copy = dataclasses.replace(MANIAC_WORDS, folder=tmp_path / "maniac")
    shutil.copytree(MANIAC_WORDS.folder, copy.folder)
    monkeypatch.setattr(keywords, "sections", lambda: (copy,))
    path = copy.path("en")
    text = path.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line and not line.startswith("#"))
    path.write_text(text.replace(first, f"_{first}"), "utf-8")
    try:
        found = keywords.problems()
    finally:
        monkeypatch.undo()
        keywords.reload()
    assert len(found) == 1 and found[0].startswith("keywords: ")
    assert f"{path}: maniac." in found[0]


def test_pbp_check_and_pbp_run_refuse_damaged_texts(shipped_texts: Path, tmp_path: Path) -> None:
    (shipped_texts / "ru" / "LC_MESSAGES" / "pbp.po").write_text('msgid "a\n', encoding="utf-8")
    (tmp_path / "game").mkdir()
    config = write_config(tmp_path / "game")
    checked = run(config, "check")
    assert checked.returncode == 1
    assert f"error: {shipped_texts}/ru/LC_MESSAGES/pbp.po: cannot be read: " in checked.stderr
    ran = run(config, "run", "--once")
    assert ran.returncode == 1
    assert "Error: pbp's texts are damaged: " in ran.stderr
    assert not (tmp_path / "game" / "mail" / "outbox").exists()  # nothing was sent
