"""The dashboard's alert rules on hand-made numbers (no database)."""

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from validation.dashboard import rules
from validation.dashboard.agreement import submission_week


def test_robust_floor_is_median_minus_three_scaled_mads():
    # median 0.85; deviations 0.05, 0.03, 0, 0.02, 0.05 → MAD 0.03 → scaled 0.044478.
    values = [0.80, 0.82, 0.85, 0.87, 0.90]
    assert rules.robust_floor(values) == pytest.approx(0.85 - 3 * 0.03 * 1.4826)


def test_one_expert_far_below_the_others_is_flagged_and_no_one_else():
    qualities = {"a": 0.86, "b": 0.88, "c": 0.85, "d": 0.87, "e": 0.55}
    # median 0.86, MAD 0.01 → spread max(0.0148, 0.02) = 0.02 → floor 0.80.
    found = rules.weak_experts(qualities)
    assert [(o.key, o.reasons) for o in found] == [("e", ("robust",))]
    assert found[0].threshold == pytest.approx(0.80)


def test_identical_experts_have_no_outlier_thanks_to_the_minimum_spread():
    # MAD is 0; without the floor on the spread 0.899 would be "far below".
    assert rules.weak_experts({"a": 0.9, "b": 0.9, "c": 0.9, "d": 0.899}) == []


def test_the_study_floor_applies_even_without_a_crowd_to_compare_with():
    found = rules.weak_experts({"a": 0.9, "b": 0.6}, min_quality=0.7)
    assert [(o.key, o.reasons, o.threshold) for o in found] == [("b", ("floor",), None)]
    assert rules.robust_floor([0.9, 0.6]) is None


def test_both_reasons_and_worst_first():
    qualities = {"a": 0.9, "b": 0.91, "c": 0.89, "d": 0.5, "e": 0.3}
    found = rules.weak_experts(qualities, min_quality=0.6)
    assert [(o.key, o.reasons) for o in found] == [
        ("e", ("robust", "floor")),
        ("d", ("robust", "floor")),
    ]


def test_units_whose_lease_expired_three_times_are_flagged_most_first():
    assert rules.expiring_units({1: 2, 2: 3, 3: 5, 4: 0}) == [(3, 5), (2, 3)]
    assert rules.expiring_units({1: 2}, threshold=2) == [(1, 2)]


def test_pace_finishes_late_and_says_what_pace_would_do():
    today = date(2026, 11, 2)
    # 140 ratings left at 70 in the last 7 days = 10/day → 14 days → 16 Nov, due 10 Nov.
    pace = rules.pace_forecast(
        remaining=140, recent_submissions=70, today=today, due=date(2026, 11, 10)
    )
    assert pace.per_day == 10
    assert pace.finish == date(2026, 11, 16)
    assert pace.will_miss
    assert pace.days_left == 8 and pace.per_day_needed == pytest.approx(17.5)


def test_pace_on_time_no_date_stalled_and_done():
    today = date(2026, 11, 2)
    on_time = rules.pace_forecast(
        remaining=70, recent_submissions=70, today=today, due=date(2026, 11, 9)
    )
    assert on_time.finish == date(2026, 11, 9) and not on_time.will_miss
    undated = rules.pace_forecast(remaining=700, recent_submissions=1, today=today, due=None)
    assert not undated.will_miss and undated.per_day_needed is None
    stalled = rules.pace_forecast(
        remaining=5, recent_submissions=0, today=today, due=date(2027, 1, 1)
    )
    assert stalled.finish is None and stalled.will_miss
    done = rules.pace_forecast(remaining=0, recent_submissions=0, today=today, due=date(2026, 1, 1))
    assert done.finish == today and not done.will_miss
    past_due = rules.pace_forecast(
        remaining=3, recent_submissions=7, today=today, due=date(2026, 11, 1)
    )
    assert past_due.will_miss and past_due.days_left == 0 and past_due.per_day_needed is None


def test_run_error_share_alerts_above_five_percent_once_enough_verdicts_are_in():
    assert rules.run_error_share(done=100, errors=6).alert
    assert not rules.run_error_share(done=100, errors=5).alert  # exactly 5 % is not "more"
    assert not rules.run_error_share(done=10, errors=5).alert  # too few to judge
    assert rules.run_error_share(done=0, errors=0).share == 0


def test_weeks_start_on_monday():
    assert rules.week_start(date(2026, 11, 22)) == date(2026, 11, 16)  # a Sunday
    assert rules.week_start(date(2026, 11, 16)) == date(2026, 11, 16)
    # A submission counts in its UTC week: Thursday 1 Jan 1970 is in the week of Monday 29 Dec,
    # and Monday 5 Jan 02:00 at UTC+8 is still Sunday in UTC.
    assert submission_week(datetime(1970, 1, 1, tzinfo=UTC)) == date(1969, 12, 29)
    assert submission_week(datetime(1970, 1, 5, tzinfo=UTC)) == date(1970, 1, 5)
    east = timezone(timedelta(hours=8))
    assert submission_week(datetime(1970, 1, 5, 2, tzinfo=east)) == date(1969, 12, 29)
