"""Versioned prompt templates: the built-in files under ``prompts/`` or a user's own file.

A template is plain text with ``$dialogue``, ``$response``, ``$rubric`` and ``$rubric_count``
(``$$`` for a literal dollar sign). Leading lines ``## key: value`` are metadata:
``version`` names the template (it goes into the request cache key and onto the judge), and
``structured: verdicts`` says the template asks for our verdict JSON, so the endpoint's
structured output may be requested. A file without a version is named after its content hash.
"""

import hashlib
from dataclasses import dataclass
from pathlib import Path
from string import Template

from benchmark.taxonomy import BY_CODE

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
DEFAULT_JUDGE_TEMPLATE = PROMPTS_DIR / "judge_zh_v1.txt"
DEFAULT_GENERATE_TEMPLATE = PROMPTS_DIR / "generate_zh_v1.txt"
DEFAULT_REWRITE_TEMPLATE = PROMPTS_DIR / "rewrite_zh_v1.txt"
DEFAULT_RUBRIC_TEMPLATE = PROMPTS_DIR / "rubric_zh_v1.txt"
DEFAULT_PAIRWISE_TEMPLATE = PROMPTS_DIR / "pairwise_zh_v1.txt"
JUDGE_VARIABLES = frozenset({"dialogue", "response", "rubric", "rubric_count"})
PAIRWISE_VARIABLES = frozenset({"dialogue", "response_a", "response_b"})
SPEAKERS = {"A": "A", "B": "B"}


class TemplateError(ValueError):
    """A template file that cannot be used, with the line and reason."""


@dataclass(frozen=True)
class PromptTemplate:
    version: str
    structured: bool
    body: str

    def render(self, **values: object) -> str:
        return Template(self.body).substitute({k: str(v) for k, v in values.items()})


def template_load(path: Path, *, allowed: frozenset[str] = JUDGE_VARIABLES) -> PromptTemplate:
    """Read and check a template file; unknown ``$names`` are reported with their line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"{path}: cannot read: {exc}") from exc
    lines = text.splitlines(keepends=True)
    meta: dict[str, str] = {}
    while lines and lines[0].startswith("## ") and ":" in lines[0]:
        key, _, value = lines.pop(0)[3:].partition(":")
        meta[key.strip()] = value.strip()
    skipped = len(text.splitlines()) - len(lines)
    body = "".join(lines)
    for number, line in enumerate(body.splitlines(), start=skipped + 1):
        for match in Template.pattern.finditer(line):
            name = match.group("named") or match.group("braced")
            if match.group("invalid") is not None:
                raise TemplateError(f"{path}:{number}: a lone '$' (write $$ for a dollar sign)")
            if name and name not in allowed:
                known = ", ".join(f"${v}" for v in sorted(allowed))
                raise TemplateError(f"{path}:{number}: unknown variable ${name} (use {known})")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    version = meta.get("version") or f"custom-{digest}"
    return PromptTemplate(
        version=version, structured=meta.get("structured") == "verdicts", body=body
    )


def dialogue_render(dialogue: list[dict]) -> str:
    """The transcript as ``A：…`` / ``B：…`` lines."""
    return "\n".join(
        f"{SPEAKERS.get(t.get('role'), t.get('role'))}：{t.get('content', '')}" for t in dialogue
    )


def rubric_render(items: list[tuple[str, int | None, str]]) -> str:
    """Numbered ``1. [维度][分值] 内容`` lines, the dimension in the dataset's Chinese name."""
    lines = []
    for number, (ability, points, text) in enumerate(items, start=1):
        zh = BY_CODE[ability].zh if ability in BY_CODE else ability
        lines.append(f"{number}. [{zh}][{points}] {text}")
    return "\n".join(lines)


def reask_message(*, problem: str, expected: int) -> str:
    """The correction turn sent after a reply that could not be used."""
    return (
        f"你上面的输出无法使用：{problem}。请严格按照要求的 JSON 格式重新输出，"
        f"恰好包含 {expected} 项，每项先写理由再给出 met 结论，不要输出其他内容。"
    )
