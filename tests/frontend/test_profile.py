import pytest
from django.test import Client

from annotation import services
from annotation.models import CertificationBar
from benchmark.models import RubricItem
from tests.builders.accounts import ExpertFactory
from tests.builders.calibration import calibration_set, reference_labels
from tests.builders.labels import all_labels
from tests.builders.studies import MODEL_NAME_MARKER, open_study

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("url", ["/profile/", "/certificate/"])
def test_anonymous_visitors_are_sent_to_log_in(url):
    response = Client().get(url)
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_profile_shows_own_calibration_results_and_history_but_no_reference_or_criteria():
    senior = ExpertFactory(tier="senior")
    expert, other = ExpertFactory.create_batch(2)
    study = open_study(cases=1, experts=[expert, other])
    calibration = calibration_set(senior=senior, units=1)
    services.pool_set_quality_policy(pool=study.pool, calibration=calibration)
    study.pool.refresh_from_db()
    for wrong in (3, 0):  # a failed sitting (1/4), then a pass (4/4)
        assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
        services.assignment_submit(
            assignment=assignment, labels=reference_labels(assignment, wrong=wrong)
        )
    page = logged_in(expert.user).get("/profile/").content.decode()
    assert "1/4 (25 %)" in page and "not passed" in page
    assert "4/4 (100 %)" in page and ">passed<" in page
    assert "calibration-a" in page and "80 %" in page
    for text in RubricItem.objects.values_list("text", flat=True):
        assert text not in page
    assert MODEL_NAME_MARKER not in page
    assert "calibration-a" not in logged_in(other.user).get("/profile/").content.decode()


def test_certificate_page_says_what_is_missing_then_shows_the_issued_certificate():
    expert = ExpertFactory(display_name="Dr. Lin")
    bar = CertificationBar.objects.create(name="HeartBench rater", min_quality=0.5, min_units=0)
    page = logged_in(expert.user).get("/certificate/").content.decode()
    assert "No certificate yet" in page and "reach a running agreement of 50%" in page
    with pytest.raises(services.AnnotationError, match="does not meet"):
        services.certificate_issue(expert=expert, bar=bar)
    # Two peers who agree with the expert on five completed units meet the bar.
    b, c = ExpertFactory.create_batch(2)
    study = open_study(cases=5, experts=[expert, b, c])
    for _ in range(5):
        for who in (expert, b, c):
            a = services.assignment_claim_next(user=who.user, pool=study.pool)
            services.assignment_submit(assignment=a, labels=all_labels(a))
    certificate = services.certificate_issue(expert=expert, bar=bar)
    page = logged_in(expert.user).get("/certificate/").content.decode()
    assert certificate.serial in page and "Dr. Lin" in page and "100 %" in page
    assert "over 5 completed units" in page
    with pytest.raises(services.AnnotationError, match="already holds"):
        services.certificate_issue(expert=expert, bar=bar)


def test_the_experts_own_agreement_counts_only_units_of_closed_studies():
    """A figure that moved as each unit completed would tell the expert how the others
    labelled (DESIGN: blindness): the profile and the certificate page count closed studies."""
    from validation.services import study_close

    expert, b, c = ExpertFactory.create_batch(3)
    CertificationBar.objects.create(name="HeartBench rater", min_quality=0.5, min_units=2)
    study = open_study(cases=2, experts=[expert, b, c])
    client = logged_in(expert.user)
    for _ in range(2):
        for who in (expert, b, c):
            a = services.assignment_claim_next(user=who.user, pool=study.pool)
            services.assignment_submit(assignment=a, labels=all_labels(a))
        assert (
            "shown once a study you rated in has closed" in client.get("/profile/").content.decode()
        )
        certificate = client.get("/certificate/").content.decode()
        assert "you meet this bar" not in certificate
    study_close(study=study)
    page = client.get("/profile/").content.decode()
    assert "100 % on 2 completed units" in page
    assert "you meet this bar" in client.get("/certificate/").content.decode()
