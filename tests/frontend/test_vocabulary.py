"""Issue 39: one vocabulary for a criterion's two outcomes, "met" / "not met" (满足 / 未满足),
on every page, in both catalogues and in the exports ("met" / "not_met", as the judge's
verdicts); one Chinese name for the catastrophic ability. Fails if the old words come back.
"""

import gettext
import re
from pathlib import Path

from benchmark import taxonomy
from validation.label_spellings import label_word

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "config/locale/zh_Hans/LC_MESSAGES"
CATALOGUES = [LOCALE / f"{name}.po" for name in ("django", "djangojs")]
# The old words for an outcome, as interface text (a label, a button, a key's name).
OLD_MSGIDS = {
    "hit", "miss", "Hit", "Miss", "✓ Hit", "✗ Miss", "Hit: criterion %s", "Miss: criterion %s",
    "“hit”", "“miss”", "recall on hit", "recall on miss", "precision on hit", "recall hit",
    "recall miss",
}  # fmt: skip
SOURCES = ["frontend/templates", "frontend/static/frontend", "validation/templates", "validation"]
IN_SOURCE = re.compile(r"""(?:gettext(?:_lazy)?|\b_|translate)\s*\(?\s*["']([^"']*)["']""")


def entries(path: Path) -> list[tuple[str, str]]:
    """(msgid, msgstr) of a compiled catalogue next to the .po."""
    with open(path.with_suffix(".mo"), "rb") as handle:
        catalog = gettext.GNUTranslations(handle)._catalog
    return [(k[0] if isinstance(k, tuple) else k, v) for k, v in catalog.items() if k]


def test_no_catalogue_names_an_outcome_hit_or_miss():
    for path in CATALOGUES:
        old = sorted({msgid for msgid, _ in entries(path)} & OLD_MSGIDS)
        assert old == [], (path.name, old)


# "Met" as a verb, not an outcome.
VERB = ("met the bar", "met an edited")


def test_met_and_not_met_are_one_pair_in_chinese():
    for path in CATALOGUES:
        for msgid, msgstr in entries(path):
            if any(verb in msgid for verb in VERB):
                continue
            if re.search(r"\bnot met\b", msgid):
                assert "未满足" in msgstr, (msgid, msgstr)
            if re.search(r"\bmet\b", msgid):
                assert "满足" in msgstr and not re.search("达到|符合", msgstr), (msgid, msgstr)


def test_no_source_asks_for_the_old_words():
    found = []
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in {".py", ".html", ".js"} or "migrations" in path.parts:
                continue
            for text in IN_SOURCE.findall(path.read_text(encoding="utf-8")):
                if text in OLD_MSGIDS:
                    found.append(f"{path.relative_to(ROOT)}: {text}")
    assert found == []


def test_the_catastrophic_ability_has_one_chinese_name():
    name = taxonomy.ability_name(taxonomy.CATASTROPHIC, language="zh-hans")
    assert name == "灾难性失误"
    catalogue = dict(entries(CATALOGUES[0]))
    assert catalogue["Catastrophic cases"].startswith(name)
    # The dataset's dimension is still read as it is written.
    assert taxonomy.ability_code("其他") == taxonomy.CATASTROPHIC


def test_exports_spell_an_outcome_as_the_judge_does():
    assert [label_word(True), label_word(False), label_word(None)] == ["met", "not_met", ""]
    formats = (ROOT / "docs/formats.md").read_text(encoding="utf-8")
    assert "`met`, `not_met`" in formats
    schema = (ROOT / "validation/schemas/study-export.schema.json").read_text(encoding="utf-8")
    assert '"enum": ["met", "not_met", ""]' in schema and '"hit"' not in schema


def test_the_judge_has_one_chinese_name():
    # 评判模型 throughout; 评审模型 had crept into some strings (the pairwise board's first
    # translations among them).
    for path in CATALOGUES:
        mixed = [msgid for msgid, msgstr in entries(path) if "评审模型" in str(msgstr)]
        assert mixed == [], (path.name, mixed)
