"""The fake endpoint's pairwise judge (``benchmark.llm.fake_server``), as rules a test can work
out by hand.

A pairwise prompt shows two responses between ``【回复 A】 … 【回复 A 结束】`` and
``【回复 B】 … 【回复 B 结束】`` (the built-in template's markers). The fake's choice, in turn:

1. **position bias** ``p`` (off at 0): it picks the first shown ("A") when
   :func:`position_draw` of the two texts in the order shown is below ``p`` — one draw per
   prompt, so the same prompt always gets the same answer, and the two orders of a pair draw
   independently;
2. **length bias** (off by default): it picks the longer response (in characters), if they
   differ in length;
3. otherwise the **content rule** :func:`fake_merit`: the response with more "你" (the
   counsellor speaking to the client) wins, equal counts are a tie. This rule does not depend
   on the order, so without the biases the fake is position-consistent.
"""

import hashlib
import json
import re
from dataclasses import dataclass

_SHOWN = re.compile(
    r"【回复 A】\n(.*?)\n【回复 A 结束】.*?【回复 B】\n(.*?)\n【回复 B 结束】", re.DOTALL
)


@dataclass(frozen=True)
class PairwiseRule:
    position_bias: float = 0.0  # chance of choosing the first shown, whatever it says
    length_bias: bool = False  # else prefer the longer response
    seed: int = 0  # part of every position draw


def pairwise_shown(prompt: str) -> tuple[str, str] | None:
    """The texts shown as A and B in a pairwise prompt; None for any other prompt."""
    found = _SHOWN.search(prompt)
    return (found.group(1), found.group(2)) if found else None


def fake_merit(text: str) -> int:
    """The content rule's merit of a response: how many times it says "你"."""
    return text.count("你")


def position_draw(first: str, second: str, *, seed: int = 0) -> float:
    """A uniform draw in [0, 1) fixed by the two texts in the order shown and the seed."""
    digest = hashlib.sha256(f"{seed}|{first}|{second}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def fake_pairwise_choice(first: str, second: str, *, rule: PairwiseRule) -> tuple[str, str]:
    """The fake's winner about the order shown ("A", "B" or "tie") and its reason."""
    if rule.position_bias and position_draw(first, second, seed=rule.seed) < rule.position_bias:
        return "A", "先出现的回复更好"
    if rule.length_bias and len(first) != len(second):
        return ("A" if len(first) > len(second) else "B"), "更长的回复更充分"
    a, b = fake_merit(first), fake_merit(second)
    if a == b:
        return "tie", "两条回复不分高下"
    return ("A" if a > b else "B"), "更多地以「你」回应来访者"


def fake_pairwise_reply(first: str, second: str, *, rule: PairwiseRule, fault: str) -> str:
    """The reply text: the choice as JSON, reasoning first; ``malformed`` prose without a
    verdict, ``wrong_count`` a winner that is not A, B or tie."""
    if fault == "malformed":
        return "好的，我来比较这两条回复。两条都还不错。"
    winner, why = fake_pairwise_choice(first, second, rule=rule)
    if fault == "wrong_count":
        winner = "C"
    return json.dumps({"reasoning": why, "winner": winner}, ensure_ascii=False)
