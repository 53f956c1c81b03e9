"""`heartbench leaderboard --format html`: self-contained, escaped, every chart labelled."""

import io
import re

import pytest
from django.core.management import call_command

from benchmark.leaderboard_html import render_html
from benchmark.taxonomy import BY_CODE, SCORED_CODES
from tests.builders.leaderboards import board, model

XSS = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def test_data_text_is_escaped_and_nothing_external_is_loaded():
    html = render_html(board([model(XSS), model("plain", 30.0)]))
    assert "<script" not in html and "<img" not in html and "&lt;script&gt;" in html
    assert "d&lt;b&gt;" in html
    assert not re.search(r"""(src|href)=["']?https?:""", html)
    assert "@media print" in html and "DEMO DATA" in html


def test_every_chart_has_a_title_and_a_text_alternative():
    html = render_html(board([model("a"), model("b", 70.0)]))
    charts = html.count("<svg")
    assert charts == 3  # normal vs hard, and one radar per model
    assert html.count("<title id=") == html.count("<desc id=") == charts
    assert html.count("<figcaption>") == charts
    for code in SCORED_CODES:  # every spoke of the radar is named
        assert BY_CODE[code].zh in html
    assert "Warmth 80.0" in html and "Humor 10.0" in html and "Curiosity —" in html
    assert "overall score (0–100)" in html


def test_the_gate_sits_beside_the_table():
    where = {"study": "s<1>", "closed_at": "2026-01-01T10:00", "threshold": 0.75}
    gate = {
        "judges": [
            {
                "judge": "j-ok",
                "decision": "passed",
                "conditions": [{"name": "agreement", "subject": None, "status": "passed"}],
                "agreement": {"value": 0.81, "n": 300, "low": 0.77, "high": 0.85},
                **where,
            },
            {
                "judge": "j-bad",
                "decision": "failed",
                "conditions": [{"name": "agreement", "subject": None, "status": "failed"}],
                "agreement": {"value": 0.6, "n": 300, "low": 0.5, "high": 0.7},
                **where,
            },
            {
                "judge": "j-maybe",
                "decision": "not_enough_data",
                "conditions": [
                    {"name": "agreement", "subject": None, "status": "not_enough_data"},
                    {"name": "score_bias", "subject": "m<1>", "status": "passed"},
                ],
                "agreement": {"value": 0.78, "n": 40, "low": 0.7, "high": 0.86},
                **where,
            },
        ],
    }
    html = render_html(board([model("a")]), gate=gate)
    assert "s&lt;1&gt;" in html
    assert re.search(r"j-ok: agreement 0\.810 \[0\.770, 0\.850\] on 300 criteria — .*passed", html)
    assert re.search(r"j-bad: agreement 0\.600 .*failed", html)
    assert re.search(r"j-maybe: .*not enough data</span> .*score_bias m&lt;1&gt; passed", html)
    assert "No closed study has validated" in render_html(board([model("a")]))


@pytest.mark.django_db
def test_command_renders_the_demo_leaderboard():
    call_command("load_demo", stdout=io.StringIO())
    out = io.StringIO()
    call_command("leaderboard", "--format", "html", "--split", "hard", stdout=out)
    html = out.getvalue()
    assert html.startswith("<!DOCTYPE html>") and "demo-warm-counsellor" in html
    assert "No closed study has validated" in html
    assert html.count("<svg") == 1 + html.count("<figcaption>Abilities of ") == 3
