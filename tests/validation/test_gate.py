"""The judge's gate, decided in one pure function for the report, the badge and the CLI."""

import pytest

from validation.gate import gate_decide


@pytest.mark.parametrize(
    ("agreement", "passed", "confirmed"),
    [
        ({"value": 0.80, "low": 0.77, "high": 0.83}, True, True),
        ({"value": 0.80, "low": 0.70, "high": 0.88}, True, False),  # the interval reaches below
        ({"value": 0.75, "low": 0.75}, True, True),  # the threshold itself passes
        ({"value": 0.70, "low": 0.60}, False, False),
        ({"value": 0.80}, True, None),  # no interval
        ({"value": None, "reason": "no items"}, None, None),
    ],
)
def test_gate_decisions(agreement, passed, confirmed):
    gate = gate_decide(agreement=agreement, threshold=0.75)
    assert (gate.threshold, gate.passed, gate.confirmed) == (0.75, passed, confirmed)
