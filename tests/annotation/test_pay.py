import csv
import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation import services
from annotation.models import PayEntry
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def paid_study(experts, *, cases=2):
    study = open_study(cases=cases, experts=experts)
    services.pay_rate_set(pool=study.pool, tier="expert", amount=Decimal("12.50"), currency="cny")
    services.pay_rate_set(pool=study.pool, tier="senior", amount=Decimal("20"), currency="CNY")
    return study


def rate_one(expert, study, *, hit=True):
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    return assignment, services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment, hit=hit)
    )


def test_one_earning_per_accepted_submission_at_the_tier_rate():
    expert, senior = ExpertFactory(), ExpertFactory(tier="senior")
    study = paid_study([expert, senior])
    (_, (submission, _)), _ = rate_one(expert, study), rate_one(senior, study)
    entries = {e.expert_id: e for e in PayEntry.objects.all()}
    assert entries[expert.pk].amount == Decimal("12.50") and entries[expert.pk].currency == "CNY"
    assert entries[senior.pk].amount == Decimal("20.00")
    assert entries[expert.pk].submission == submission
    assert AuditEvent.objects.filter(action="pay.earning").count() == 2


def test_no_pay_for_a_repeated_or_a_refused_submission():
    expert = ExpertFactory()
    study = paid_study([expert])
    assignment, (_, created) = rate_one(expert, study)
    assert created
    _, again = services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    assert again is False
    with pytest.raises(services.SubmissionConflict):
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment, hit=False))
    other = services.assignment_claim_next(user=expert.user, pool=study.pool)
    with pytest.raises(services.InvalidLabels):
        services.assignment_submit(assignment=other, labels=all_labels(other)[:1])
    assert PayEntry.objects.count() == 1
    # And the database itself refuses a second earning for a submission.
    entry = PayEntry.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        PayEntry.objects.create(expert=expert, pool=study.pool, kind="earning",
                                submission=entry.submission, amount=1, currency="CNY")  # fmt: skip


def test_a_pool_without_a_rate_pays_nothing():
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    rate_one(expert, study)
    assert not PayEntry.objects.exists()


def test_corrections_are_new_negative_entries_never_more_than_the_earning():
    expert, admin = ExpertFactory(), UserFactory(is_staff=True)
    study = paid_study([expert])
    rate_one(expert, study)
    earning = PayEntry.objects.get()
    with pytest.raises(services.AnnotationError, match="needs a reason"):
        services.pay_correct(entry=earning, reason=" ", actor=admin)
    part = services.pay_correct(entry=earning, reason="half", actor=admin, amount=Decimal("-5"))
    with pytest.raises(services.AnnotationError, match="at most what is left"):
        services.pay_correct(entry=earning, reason="too much", actor=admin, amount=Decimal("-8"))
    with pytest.raises(services.AnnotationError, match="only an earning"):
        services.pay_correct(entry=part, reason="x", actor=admin)
    rest = services.pay_correct(entry=earning, reason="duplicate work", actor=admin)
    assert rest.amount == Decimal("-7.50") and rest.corrects == earning
    earning.refresh_from_db()
    assert earning.amount == Decimal("12.50")  # the earning itself is untouched
    assert AuditEvent.objects.filter(action="pay.correction").count() == 2


@pytest.mark.parametrize(
    ("amount", "currency", "message"),
    [("-1", "CNY", "non-negative"), ("1.005", "CNY", "2 decimals"), ("1", "yuan", "three-letter")],
)
def test_bad_rates_are_refused(amount, currency, message):
    study = open_study(cases=1, experts=[])
    with pytest.raises(services.AnnotationError, match=message):
        services.pay_rate_set(pool=study.pool, tier="expert", amount=Decimal(amount),
                              currency=currency)  # fmt: skip


def test_payroll_export_sums_per_expert_and_study_with_safe_cells(tmp_path):
    plain = ExpertFactory(user__username="ann")
    hostile = ExpertFactory(user__username="bob", display_name="=HYPERLINK(1)")
    admin = UserFactory(is_staff=True)
    study = paid_study([plain, hostile], cases=3)
    for _ in range(2):
        rate_one(plain, study)
    rate_one(hostile, study)
    services.pay_correct(
        entry=PayEntry.objects.filter(expert=plain).first(), reason="dup", actor=admin
    )
    today = timezone.localdate()
    out = tmp_path / "pay.csv"
    call_command("pay", "export", "--from", str(today), "--to", str(today), "--output", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    by_user = {r["username"]: r for r in rows}
    assert by_user["ann"]["units"] == "2" and by_user["ann"]["earned"] == "25.00"
    assert by_user["ann"]["corrections"] == "-12.50" and by_user["ann"]["total"] == "12.50"
    assert by_user["bob"]["display_name"] == "'=HYPERLINK(1)"
    assert by_user["bob"]["study"] == "study-a" and by_user["bob"]["currency"] == "CNY"
    yesterday = today - timedelta(days=1)
    call_command("pay", "export", "--from", str(yesterday), "--to", str(yesterday),
                 "--output", str(out))  # fmt: skip
    assert out.read_text(encoding="utf-8").count("\n") == 1  # header only


def test_payroll_export_refuses_bad_dates_and_writes_nothing(tmp_path):
    out = tmp_path / "pay.csv"
    with pytest.raises(CommandError, match="not a date"):
        call_command("pay", "export", "--from", "2025-13-01", "--to", "2025-12-31",
                     "--output", str(out))  # fmt: skip
    with pytest.raises(CommandError, match="before --from"):
        call_command("pay", "export", "--from", str(date(2025, 2, 1)), "--to", "2025-01-01",
                     "--output", str(out))  # fmt: skip
    assert not out.exists() and not list(tmp_path.iterdir())


def test_pay_rate_command_sets_and_audits():
    study = open_study(cases=1, experts=[])
    call_command("pay", "rate", "study-a", "expert", "9.5", "usd")
    assert study.pool.pay_rates.get().currency == "USD"
    assert AuditEvent.objects.filter(action="pay.rate_set").count() == 1
    with pytest.raises(CommandError, match="not an amount"):
        call_command("pay", "rate", "study-a", "expert", "lots", "USD")
