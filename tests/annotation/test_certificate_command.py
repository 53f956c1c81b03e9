"""`heartbench certificate issue --bar B alice bob …` tries every named expert and reports each."""

import io

import pytest
from django.core.management import CommandError, call_command

from annotation import services
from annotation.models import Certificate, CertificationBar
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def test_each_named_expert_is_tried_and_reported_and_any_refusal_fails_the_command():
    a, b, c = ExpertFactory.create_batch(3)
    CertificationBar.objects.create(name="rater", min_quality=0.5, min_units=2)
    study = open_study(cases=2, experts=[a, b, c])
    for _ in range(2):
        for expert in (a, b, c):
            assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
            services.assignment_submit(
                assignment=assignment, labels=all_labels(assignment, hit=expert != c)
            )
    out = io.StringIO()
    names = [c.user.username, a.user.username, "nobody", b.user.username]
    with pytest.raises(CommandError) as refused:
        call_command("certificate", "issue", "--bar", "rater", *names, stdout=out)
    message = str(refused.value)
    assert message.startswith(f"2 of 4 not issued: {c.user.username}: ")
    assert "does not meet" in message and message.endswith("; nobody: no expert 'nobody'")
    # c (first, refused) did not stop a and b (after it) from getting theirs.
    assert set(Certificate.objects.values_list("expert", flat=True)) == {a.pk, b.pk}
    assert f"issued to {a.user.username}" in out.getvalue()
    assert f"issued to {b.user.username}" in out.getvalue()
    assert "2 certificate(s) issued for" in out.getvalue()
