"""The raters' quality in the study report, pinned on a study built through the services:
the calibration sitting each rater took, the running agreement worked out by hand from the
labels chosen here, and the active seconds the workbench sent, in the JSON, the CSV and the
page in both languages."""

import csv
import io
import re

import pytest

from annotation import services as annotation_services
from tests.builders.accounts import ExpertFactory
from tests.builders.calibration import calibration_set, sit_directly
from tests.builders.labels import all_labels
from tests.builders.quality import study_with_raters
from tests.builders.studies import open_study
from validation import selectors
from validation.report import report_compute
from validation.report.csv_render import report_csv
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("few_resamples")]

# Pairwise agreement, per case (each label against the two others, 8 comparisons a case):
#   case 0: all agree                      a 8  b 8  c 8
#   case 1: pos 2 a=b≠c, pos 3 b=c≠a       a 5  b 6  c 5
#   cases 2, 3: pos 2 and 3 a=b≠c          a 6  b 6  c 4  (each)
PEER = {"a": 25 / 32, "b": 26 / 32, "c": 21 / 32}
# Eleven measured: sorted 20 80 90 100 100 100 100 110 120 130 140, median 100, so under 25 s
# is too fast (a quarter of it): a's 20.
TIME = {"a": (4, 105.0, 1), "b": (4, 100.0, 0), "c": (3, 100.0, 0)}


@pytest.fixture
def study():
    return study_with_raters()


def expected(pseudonyms) -> dict[str, dict]:
    calibration = {"a": (7 / 8, True), "b": (None, None), "c": (6 / 8, False)}
    rows = {}
    for who in "abc":
        measured, median, too_fast = TIME[who]
        rows[pseudonyms[who]] = {
            "expert": pseudonyms[who],
            "calibration_agreement": calibration[who][0],
            "calibration_passed": calibration[who][1],
            "peer_agreement": PEER[who],
            "peer_units": 4,
            "measured": measured,
            "median_seconds": median,
            "too_fast": too_fast,
        }
    return rows


def report_of(study) -> dict:
    return report_compute(data=study_report_data(study=study), bootstrap=BootstrapSettings())


def test_the_json_gives_each_raters_figures_and_leaves_out_who_rated_nothing(study):
    study, pseudonyms = study
    rows = report_of(study)["rater_quality"]
    assert [r["expert"] for r in rows] == sorted(pseudonyms[who] for who in "abc")
    # Every expected figure is a sum of halves, so exact in binary: no tolerance needed.
    assert {r["expert"]: r for r in rows} == expected(pseudonyms)


def test_the_csv_has_one_row_per_figure_of_each_rater(study):
    study, pseudonyms = study
    rows = [r for r in csv.DictReader(io.StringIO(report_csv(report_of(study))))
            if r["section"] == "rater_quality"]  # fmt: skip
    got = {(r["name"], r["statistic"]): r["value"] for r in rows}
    assert len(rows) == len(got) == 3 * 7
    assert pseudonyms["d"] not in {r["name"] for r in rows}
    for name, figures in expected(pseudonyms).items():
        for key, value in figures.items():
            if key != "expert":
                cell = got[(name, key)]
                if isinstance(value, float):
                    assert float(cell) == pytest.approx(value)
                else:
                    assert cell == ("" if value is None else str(value))


def table_rows(client, study, language: str) -> dict[str, list[str]]:
    client.cookies["django_language"] = language
    body = client.get(f"/admin/studies/{study.name}/report/").content.decode()
    table = re.search(r'<table class="figs raters">(.*?)</table>', body, re.S).group(1)
    cells = [
        [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", c)).strip()
         for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)
    ]  # fmt: skip
    return {row[0]: row[1:] for row in cells if row}


@pytest.mark.parametrize(
    ("language", "passed", "failed"), [("en", "passed", "failed"), ("zh-hans", "通过", "失败")]
)
def test_the_page_shows_the_same_figures(admin_client, study, language, passed, failed):
    study, p = study
    assert table_rows(admin_client, study, language) == {
        p["a"]: [f"0.875 {passed}", "0.781 (4)", "105 (4)", "1"],
        p["b"]: ["—", "0.813 (4)", "100 (4)", "0"],
        p["c"]: [f"0.750 {failed}", "0.656 (4)", "100 (3)", "0"],
    }


def test_a_sitting_of_another_set_is_not_this_studys_calibration():
    """A study that asks for no calibration shows none, whatever sets its raters sat."""
    senior = ExpertFactory(tier="senior")
    experts = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=experts, name="ungated")
    sit_directly(experts[0], calibration_set(senior=senior), wrong=(0, 0))
    for expert in experts:
        assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
        annotation_services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    rows = report_of(selectors.study_get(name="ungated"))["rater_quality"]
    assert len(rows) == 3
    assert {(r["calibration_agreement"], r["calibration_passed"]) for r in rows} == {(None, None)}
