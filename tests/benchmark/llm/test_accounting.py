"""The token estimate: one token per CJK character, four other characters per token."""

import pytest

from benchmark.llm.accounting import messages_tokens, tokens_estimate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("abcd", 1),
        ("abcde", 2),
        ("你好", 2),
        ("AI对用户内心感受进行提问", 11 + 1),  # "AI" is half a token, rounded up
        ("\u2e7f\u2e80", 1 + 1),  # the last narrow character, the first wide one
        ("é" * 8, 2),  # accented Latin is narrow
        ("😀", 1),  # beyond the basic plane: wide
    ],
)
def test_estimate_counts_wide_characters_one_token_each(text, expected):
    assert tokens_estimate(text) == expected


def test_estimate_agrees_with_a_character_by_character_count():
    text = "问题 1: the answer mentions the dose (剂量) — 用户说“没劲”。\n" * 40
    wide = sum(1 for ch in text if ord(ch) > 0x2E7F)
    assert tokens_estimate(text) == wide + -(-(len(text) - wide) // 4)


def test_messages_tokens_adds_every_messages_content():
    messages = [{"role": "system", "content": "abcd"}, {"role": "user", "content": "你好"}, {}]
    assert messages_tokens(messages) == 1 + 2 + 0
