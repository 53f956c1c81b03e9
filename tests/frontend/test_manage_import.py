"""The staff import page (/admin/manage/import/): a dataset, answers or verdicts by upload,
through the importers the commands call. A bad file is refused with the importer's line and
reason and writes nothing; a good one shows what was imported and its warnings; staff only,
CSRF-protected, audited; odd bytes and a file over the limit get a message, never a 500."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from benchmark import models
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.i18n import untranslated
from tests.builders.importing import BASE_DATASET, CORPUS, DATASET_CORPUS, table_counts

pytestmark = pytest.mark.django_db
URL = "/admin/manage/import/"
BASE_ANSWERS = CORPUS / "base-answers.jsonl"
BASE_VERDICTS = CORPUS / "base-verdicts.jsonl"


@pytest.fixture
def admin_user():
    return UserFactory(username="admin-import", is_staff=True, is_superuser=True)


@pytest.fixture
def staff(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def post(client: Client, kind: str, file_name: str, content: bytes, language="en", **fields):
    data = {"kind": kind, f"{kind}-file": upload(file_name, content)}
    data.update({f"{kind}-{key}": value for key, value in fields.items()})
    return client.post(URL, data, HTTP_ACCEPT_LANGUAGE=language)


def text(response) -> str:
    return response.content.decode()


def outcome(response) -> str:
    """The page's outcome box alone (the forms' help texts mention errors and lines too)."""
    page = text(response)
    start = page.index('id="import-outcome"')
    return page[start : page.index("<!-- /import-outcome -->", start)]


def with_dataset() -> None:
    from benchmark.services.imports import dataset_import

    dataset_import(path=BASE_DATASET)


# --- refused: the bad files first -------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["dataset-truncated-json.jsonl", "dataset-duplicate-ids.jsonl",
             "dataset-invalid-utf8.jsonl", "dataset-unknown-ability.jsonl"],
)  # fmt: skip
def test_a_bad_dataset_is_refused_with_its_line_and_reason_and_nothing_is_written(staff, name):
    line, reason = DATASET_CORPUS[name]
    before = table_counts()
    response = post(staff, "dataset", name, (CORPUS / name).read_bytes())
    assert response.status_code == 400
    shown = outcome(response)
    assert f"Line {line}" in shown
    assert reason.replace('"', "&quot;") in shown
    assert name in shown and "Nothing was imported" in shown
    # The temporary folder the upload was read from never reaches the page.
    assert "/tmp" not in shown and "heartbench-upload" not in shown
    assert table_counts() == before


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "file holds no records"),
        (b"\n\n", "file holds no records"),
        (b'{"question_id": "a\x00b"}\n', "invalid JSON"),
        (b"\x00\x01\x02\xff\xfe binary \x00", "not valid UTF-8"),
        (bytes(range(256)) * 40, "Line 1:</strong>"),
        ("一行中文".encode("gb18030"), "not valid UTF-8"),
    ],
    ids=["empty", "blank", "nul", "binary", "bytes", "gb18030"],
)
def test_odd_bytes_get_a_message_never_a_500(staff, content, reason):
    before = table_counts()
    response = post(staff, "dataset", "odd.jsonl", content)
    assert response.status_code == 400
    assert reason in outcome(response)
    assert table_counts() == before


def test_bad_answers_are_refused_with_their_line_and_nothing_is_written(staff):
    with_dataset()
    before = table_counts()
    name = "answers-unknown-id.jsonl"
    response = post(staff, "answers", name, (CORPUS / name).read_bytes(), model="m",
                    dataset="base-dataset:v1")  # fmt: skip
    assert response.status_code == 400
    shown = outcome(response)
    assert "Line 2" in shown and "unknown question_id &quot;m-99&quot;" in shown
    # The model it named is not created either: the import is whole or nothing.
    assert table_counts() == before
    assert not models.ModelUnderTest.objects.filter(name="m").exists()


def test_bad_verdicts_are_refused_with_their_line_and_nothing_is_written(staff):
    with_dataset()
    post(staff, "answers", "a.jsonl", BASE_ANSWERS.read_bytes(), model="m",
         dataset="base-dataset:v1")  # fmt: skip
    before = table_counts()
    name = "verdicts-wrong-length.jsonl"
    response = post(staff, "verdicts", name, (CORPUS / name).read_bytes(), model="m",
                    judge="judge-x", dataset="base-dataset:v1")  # fmt: skip
    assert response.status_code == 400
    shown = outcome(response)
    assert "Line 2" in shown and "2 verdicts for a rubric of 4 criteria" in shown
    assert table_counts() == before
    assert not models.Judge.objects.filter(name="judge-x").exists()


def test_a_file_over_the_limit_gets_a_translated_message(staff):
    content = BASE_DATASET.read_bytes()
    before = table_counts()
    with override_settings(HEARTBENCH_MAX_IMPORT_BYTES=len(content) - 1):
        english = post(staff, "dataset", "big.jsonl", content)
        chinese = post(staff, "dataset", "big.jsonl", content, language="zh-hans")
    assert english.status_code == chinese.status_code == 400
    assert "over the import limit" in outcome(english)
    assert "超过" in outcome(chinese)
    assert table_counts() == before


def test_no_file_and_an_unknown_kind_are_refused_on_the_page(staff):
    response = staff.post(URL, {"kind": "dataset"})
    assert response.status_code == 400
    assert "Choose a file" in text(response)
    assert staff.post(URL, {"kind": "nonsense"}).status_code == 400
    assert staff.post(URL, {}).status_code == 400


def test_a_copy_under_another_name_needs_allow_copy(staff):
    content = BASE_DATASET.read_bytes()
    post(staff, "dataset", "base-dataset.jsonl", content)
    refused = post(staff, "dataset", "base-dataset.jsonl", content, name="other")
    assert refused.status_code == 400
    assert "already imported as base-dataset v1" in outcome(refused)
    assert not models.Dataset.objects.filter(name="other").exists()
    kept = post(staff, "dataset", "base-dataset.jsonl", content, name="other", allow_copy="on")
    assert kept.status_code == 200
    assert models.Dataset.objects.get(name="other").version == 1


def test_answers_and_verdicts_ask_for_a_dataset_first(staff):
    page = text(staff.get(URL))
    assert page.count("Import a dataset first") == 2
    response = post(staff, "answers", "a.jsonl", BASE_ANSWERS.read_bytes(), model="m")
    assert response.status_code == 400
    assert not models.ModelUnderTest.objects.exists()


# --- imported ---------------------------------------------------------------------------


def test_a_good_dataset_is_imported_audited_and_shown(staff, admin_user):
    response = post(staff, "dataset", "base-dataset.jsonl", BASE_DATASET.read_bytes(),
                    licence="CC-BY", difficulty="hard")  # fmt: skip
    assert response.status_code == 200
    dataset = models.Dataset.objects.get()
    assert (dataset.name, dataset.version, dataset.source) == (
        "base-dataset",
        1,
        "base-dataset.jsonl",
    )
    assert dataset.licence_note == "CC-BY"
    shown = outcome(response)
    assert f"{dataset.case_count} cases" in shown
    assert f"{dataset.criterion_count} criteria" in shown
    event = models.AuditEvent.objects.get(action="dataset.import")
    assert event.actor == admin_user
    # Again: the same content is no change.
    again = post(staff, "dataset", "base-dataset.jsonl", BASE_DATASET.read_bytes())
    assert "nothing changed" in outcome(again)
    assert models.Dataset.objects.count() == 1


def test_the_released_dataset_imports_with_its_seven_warnings(staff, shared_data):
    response = post(staff, "dataset", "question_all.jsonl",
                    (shared_data / "question_all.jsonl").read_bytes())  # fmt: skip
    assert response.status_code == 200
    shown = outcome(response)
    assert "296 cases" in shown and "3,114 criteria" in shown
    assert "7 data warnings" in shown
    for question_id in ("XzV0Im", "c8nGp1"):
        assert question_id in shown
    assert models.Dataset.objects.get().case_count == 296


def test_good_answers_and_verdicts_are_imported_audited_and_shown(staff, admin_user):
    with_dataset()
    answers = post(staff, "answers", "a.jsonl", BASE_ANSWERS.read_bytes(), model="m",
                   dataset="base-dataset:v1")  # fmt: skip
    assert answers.status_code == 200
    assert "2 answers imported, 0 already there, 1 missing" in outcome(answers)
    assert models.AuditEvent.objects.get(action="answers.import").actor == admin_user
    verdicts = post(staff, "verdicts", "v.jsonl", BASE_VERDICTS.read_bytes(), model="m",
                    judge="judge-x", dataset="base-dataset:v1")  # fmt: skip
    assert verdicts.status_code == 200
    shown = outcome(verdicts)
    assert "2 cases scored, 0 judge errors, 1 unanswered, 7 verdicts" in shown
    run = models.JudgeRun.objects.get()
    assert run.judge.name == "judge-x" and run.status == "finished"
    assert models.AuditEvent.objects.get(action="verdicts.import").actor == admin_user
    again = post(staff, "verdicts", "v.jsonl", BASE_VERDICTS.read_bytes(), model="m",
                 judge="judge-x", dataset="base-dataset:v1")  # fmt: skip
    assert f"judge run {run.pk}" in outcome(again) and "nothing changed" in outcome(again)


def test_the_page_offers_the_known_datasets_models_and_judges(staff):
    with_dataset()
    post(staff, "answers", "a.jsonl", BASE_ANSWERS.read_bytes(), model="model-known",
         dataset="base-dataset:v1")  # fmt: skip
    page = text(staff.get(URL))
    assert 'value="base-dataset:v1" selected' in page
    assert '<option value="model-known">' in page
    assert 'name="verdicts-judge" value="imported"' in page  # the commands' default judge


# --- who may -----------------------------------------------------------------------------


def test_only_staff_reach_the_page_and_nothing_is_written_for_others():
    expert = Client()
    expert.force_login(ExpertFactory().user)
    before = table_counts()
    for client in (Client(), expert):
        assert client.get(URL).status_code == 302
        response = post(client, "dataset", "base-dataset.jsonl", BASE_DATASET.read_bytes())
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert table_counts() == before


def test_a_post_without_the_csrf_token_is_refused(admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    before = table_counts()
    response = post(client, "dataset", "base-dataset.jsonl", BASE_DATASET.read_bytes())
    assert response.status_code == 403
    assert table_counts() == before
    page = client.get(URL)
    assert page.content.count(b"csrfmiddlewaretoken") == 3


# --- both languages ----------------------------------------------------------------------


def test_the_page_is_chinese_when_chinese_is_asked_for(staff):
    with_dataset()
    page = text(staff.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans"))
    assert "导入" in page
    problems = untranslated(page, data=("admin-import", "base-dataset", "imported", "jsonl"))
    assert not problems, problems
    # A refusal: the chrome is Chinese; the importer's reason is its own (English) text.
    name = "dataset-duplicate-ids.jsonl"
    refused = post(staff, "dataset", name, (CORPUS / name).read_bytes(), language="zh-hans")
    assert "第 3 行" in outcome(refused)
    reason = DATASET_CORPUS[name][1]
    problems = untranslated(text(refused), data=("admin-import", "base-dataset", name, reason))
    assert not problems, problems


def test_every_string_of_the_page_is_translated(staff):
    with_dataset()
    responses = [
        staff.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans"),
        post(staff, "answers", "a.jsonl", BASE_ANSWERS.read_bytes(), language="zh-hans",
             model="m", dataset="base-dataset:v1"),
        post(staff, "verdicts", "v.jsonl", BASE_VERDICTS.read_bytes(), language="zh-hans",
             model="m", judge="j", dataset="base-dataset:v1", lenient="on"),
    ]  # fmt: skip
    for response in responses:
        problems = untranslated(
            text(response), data=("admin-import", "base-dataset", "imported", "a.jsonl",
                                  "v.jsonl", "jsonl")
        )  # fmt: skip
        assert not problems, problems
