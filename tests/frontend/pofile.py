"""Just enough of the gettext PO format to check and fill the project's catalogues.

The tests compare what `makemessages` extracts with the committed catalogue; no PO library is
installed, and the files written by GNU gettext are regular: one entry per blank-line-separated
block, C-escaped strings, `#,` flag lines, obsolete entries behind `#~`.
"""

import ast
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Entry:
    msgid: str
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.msgctxt, self.msgid)

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values()) and "fuzzy" not in self.flags


def _unquote(token: str) -> str:
    # PO strings use C escapes, which a Python string literal reads the same way.
    return ast.literal_eval(token)


def quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    return '"' + escaped.replace("\n", "\\n") + '"'


def parse_block(lines: list[str]) -> Entry | None:
    """One entry from its lines, or None for an obsolete or empty block."""
    fields: dict[str, str] = {}
    flags: set[str] = set()
    current: str | None = None
    for line in lines:
        if line.startswith("#~"):
            return None
        if line.startswith("#,"):
            flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        if line.startswith("#"):
            continue
        if line.startswith('"'):
            if current is None:
                raise ValueError(f"string outside a field: {line!r}")
            fields[current] += _unquote(line)
            continue
        keyword, _, rest = line.partition(" ")
        current = keyword
        fields[current] = _unquote(rest.strip())
    if "msgid" not in fields:
        return None
    msgstr = {}
    for name, value in fields.items():
        if name == "msgstr":
            msgstr[0] = value
        elif name.startswith("msgstr["):
            msgstr[int(name[7:-1])] = value
    return Entry(
        msgid=fields["msgid"],
        msgctxt=fields.get("msgctxt"),
        msgid_plural=fields.get("msgid_plural"),
        msgstr=msgstr,
        flags=flags,
    )


def blocks(text: str) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            out[-1].append(line)
        elif out[-1]:
            out.append([])
    return [b for b in out if b]


def read_po(path: Path) -> dict[tuple[str | None, str], Entry]:
    """Every live entry of a catalogue but the header, by (msgctxt, msgid)."""
    entries = (parse_block(b) for b in blocks(path.read_text(encoding="utf-8")))
    return {e.key: e for e in entries if e is not None and e.msgid != ""}


def fill(path: Path, translations: dict[str, str | list[str]]) -> list[str]:
    """Write translations into the untranslated or fuzzy entries; return msgids still missing.

    Keys are msgids (with `context\\x04msgid` for a context); a plural entry takes a list or
    one string used for every form (Chinese has one).
    """
    out: list[str] = []
    missing: list[str] = []
    for block in blocks(path.read_text(encoding="utf-8")):
        entry = parse_block(block)
        if entry is None or entry.msgid == "" or entry.translated:
            out.append("\n".join(block))
            continue
        key = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if key not in translations:
            missing.append(key)
            out.append("\n".join(block))
            continue
        value = translations[key]
        kept: list[str] = []
        in_msgstr = False
        for line in block:
            if not line.startswith('"'):
                in_msgstr = line.startswith("msgstr")
            if line.startswith("#|") or in_msgstr:
                continue
            if line.startswith("#,"):
                flags = [f.strip() for f in line[2:].split(",") if f.strip() != "fuzzy"]
                if flags:
                    kept.append("#, " + ", ".join(flags))
                continue
            kept.append(line)
        if entry.msgid_plural is None:
            kept.append("msgstr " + quote(value if isinstance(value, str) else value[0]))
        else:
            forms = [value] if isinstance(value, str) else value
            kept.extend(f"msgstr[{i}] {quote(v)}" for i, v in enumerate(forms))
        out.append("\n".join(kept))
    path.write_text("\n\n".join(out) + "\n", encoding="utf-8")
    return missing
