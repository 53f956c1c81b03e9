"""Errors counted by kind: a reason without its details (benchmark.llm.engine.reason_kind)."""

import pytest

from benchmark.llm.engine import reason_kind


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ('request failed: HTTP 500: {"error": "x"} (gave up after 6 attempts)',
         "request failed: HTTP 500"),
        ("request failed: HTTP 503: busy (retry wait budget 120s spent)",
         "request failed: HTTP 503"),
        ("request failed: timed out after 2s (gave up after 3 attempts)",
         "request failed: timed out after 2s"),
        ("request failed: connection error: ConnectError (gave up after 6 attempts)",
         "request failed: connection error: ConnectError"),
        ("no usable reply after 3 asks: expected 4 verdicts, got 3",
         "no usable reply after 3 asks: expected 4 verdicts, got 3"),
        ("x" * 300, "x" * 120),
    ],
)  # fmt: skip
def test_the_details_are_left_out(reason, kind):
    assert reason_kind(reason) == kind
