"""Finding English text left untranslated on a rendered Chinese page."""

import re
from html.parser import HTMLParser

# ASCII words that may stand in Chinese text: names, formats and the keys on the keyboard.
ALLOWED_WORDS = {
    "HeartBench", "Django", "LLM", "CSV", "JSON", "JSONL", "HTML", "API", "URL", "token",
    "Enter", "Esc",
    "Cohen", "Fleiss", "Krippendorff", "Gwet", "Kendall", "Scott", "PABAK", "BCa", "MAD",
    "Holm", "ICC", "McGraw", "Wong", "Bland", "Altman", "Clopper", "Pearson", "Dawid", "Skene",
    "McNemar", "Byrt", "Bishop", "Carlin", "Brien", "Fleming",
}  # fmt: skip
PSEUDONYM = re.compile(r"\bR-[0-9a-f]{8}\b")
# Elements whose text is never interface chrome.
SKIP_TAGS = {"script", "style", "code", "kbd", "pre", "textarea", "template"}
VOID_TAGS = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
}  # fmt: skip
TEXT_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")


def untranslated(
    html: str, *, data: tuple[str, ...] = (), skip_ids: tuple[str, ...] = ()
) -> list[str]:
    """Interface strings of a page that still hold English words (with the words)."""
    parser = ChromeText(skip_ids=skip_ids)
    parser.feed(html)
    found = []
    for text in parser.texts:
        for value in data:
            text = text.replace(value, " ")
        # A rater's pseudonym is random hex, which may hold no digit at all (R-bbeffefe).
        text = PSEUDONYM.sub(" ", text)
        # A token with a digit in it (AC1, v2) is an identifier, not a word.
        # So is a dotted or underscored name (hard_decay.points, a JSON key).
        tokens = re.findall(r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*", text)
        words = [
            w
            for w in tokens
            if len(w) >= 3 and w.isalpha() and w.isascii() and w not in ALLOWED_WORDS
        ]
        if words:
            found.append(f"{text!r} ({', '.join(words)})")
    return found


class ChromeText(HTMLParser):
    """Collect the interface text of a page: text nodes and the attributes people read.

    Data is left out by markup: an element with `translate="no"` (the HTML attribute that
    tells translation tools the same thing) or `data-l10n-skip`, and everything inside it.
    Templates put it on dialogue, responses, model, dataset, study and user names.
    """

    def __init__(self, *, skip_ids: tuple[str, ...] = ()) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_ids = skip_ids
        self.stack: list[tuple[str, bool]] = []
        self.texts: list[str] = []

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        skip = (
            self._skipping()
            or tag in SKIP_TAGS
            or attributes.get("translate") == "no"
            or "data-l10n-skip" in attributes
            or attributes.get("id") in self.skip_ids
        )
        if not skip:
            self.texts.extend(attributes[a] for a in TEXT_ATTRIBUTES if attributes.get(a))
            if tag == "input" and attributes.get("type") in ("submit", "button", "reset"):
                self.texts.append(attributes.get("value") or "")
        if tag not in VOID_TAGS:
            self.stack.append((tag, skip))

    def handle_endtag(self, tag):
        # Browsers close unclosed children (<p>, <li>) with their parent; so do we.
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                return

    def handle_data(self, data):
        if not self._skipping() and data.strip():
            self.texts.append(" ".join(data.split()))
