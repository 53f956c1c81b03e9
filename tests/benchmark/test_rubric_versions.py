"""Editing criteria as versions: history, refusals, audit, and two edits at once on PostgreSQL."""

import threading

import pytest
from django.db import connections

from benchmark.models import AuditEvent, RubricItem, RubricItemVersion, Verdict
from benchmark.selectors.rubric import (
    RubricItemNotFound,
    rubric_item_find,
    rubric_item_history,
)
from benchmark.services.rubric import RubricEditError, rubric_item_edit, rubric_points_check
from tests.builders.accounts import UserFactory
from tests.builders.datasets import (
    DatasetFactory,
    JudgeRunFactory,
    ResponseFactory,
    RubricItemFactory,
    case_with_rubric,
)

pytestmark = pytest.mark.django_db


def _item(ability="warmth", points=3, text="回应中使用温暖的语气。"):
    return RubricItemFactory(ability=ability, points=points, text=text)


def test_first_edit_stores_the_original_as_version_one_and_bumps_the_item():
    item = _item()
    editor = UserFactory(username="curator")
    version = rubric_item_edit(
        item=item, text="回应中使用温和的语气。", author=editor, reason="温暖 is too vague"
    )
    assert version.number == 2 and item.version == 2
    rows = list(RubricItemVersion.objects.filter(item=item).values_list(
        "number", "text", "points", "author__username", "reason"))  # fmt: skip
    assert rows == [
        (1, "回应中使用温暖的语气。", 3, None, "imported"),
        (2, "回应中使用温和的语气。", 3, "curator", "温暖 is too vague"),
    ]
    stored = RubricItem.objects.get(pk=item.pk)
    assert (stored.text, stored.points, stored.version) == ("回应中使用温和的语气。", 3, 2)

    rubric_item_edit(item=stored, points=5, author=editor, reason="weigh it more")
    assert list(RubricItemVersion.objects.filter(item=item).values_list("number", "points")) == [
        (1, 3), (2, 3), (3, 5)]  # fmt: skip
    history = rubric_item_history(item=RubricItem.objects.get(pk=item.pk))
    assert [v.number for v in history] == [1, 2, 3]
    assert history[0].diff is None and history[-1].current and not history[0].current
    assert history[1].diff.inline() == "回应中使用温[-暖-]{+和+}的语气。"
    assert history[2].diff.points_changed and not history[2].diff.text_changed


def test_history_of_an_unedited_criterion_is_the_imported_version():
    item = _item()
    (only,) = rubric_item_history(item=item)
    assert (only.number, only.text, only.reason, only.current) == (1, item.text, "imported", True)
    assert not RubricItemVersion.objects.exists()


def test_edit_writes_an_audit_row_with_the_diff():
    item = _item(points=-3, ability="emotional_coping", text="说教式地回应")
    editor = UserFactory()
    rubric_item_edit(item=item, text="居高临下地说教", points=-5, author=editor, reason="clearer")
    event = AuditEvent.objects.get(action="rubric.edit")
    assert event.actor == editor and event.object_id == str(item.pk)
    assert event.object_type == "benchmark.rubricitem"
    data = event.data
    assert (data["from_version"], data["to_version"], data["reason"]) == (1, 2, "clearer")
    assert (data["points_before"], data["points_after"]) == (-3, -5)
    assert data["text_before"] == "说教式地回应" and data["text_after"] == "居高临下地说教"
    assert data["text_changed"] and "[-" in data["text_diff"] and "{+" in data["text_diff"]
    assert data["case"] == item.case.question_id and data["position"] == item.position


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": "new text", "reason": "  "}, "reason"),
        ({"text": "new text", "reason": "x", "author": None}, "author"),
        ({"reason": "x"}, "Nothing changed"),
        ({"text": "回应中使用温暖的语气。", "points": 3, "reason": "x"}, "Nothing changed"),
        ({"text": "   ", "reason": "x"}, "empty"),
        ({"points": 0, "reason": "x"}, "zero"),
        ({"points": None, "reason": "x"}, "Null points"),
        ({"points": True, "reason": "x"}, "whole number"),
        ({"points": 2.5, "reason": "x"}, "whole number"),
        ({"points": 2**40, "reason": "x"}, "range"),
    ],
)
def test_refusals_change_nothing(kwargs, message):
    item = _item()
    kwargs.setdefault("author", UserFactory())
    with pytest.raises(RubricEditError, match=message):
        rubric_item_edit(item=item, **kwargs)
    stored = RubricItem.objects.get(pk=item.pk)
    assert (stored.text, stored.points, stored.version) == ("回应中使用温暖的语气。", 3, 1)
    assert not RubricItemVersion.objects.exists()
    assert not AuditEvent.objects.filter(action="rubric.edit").exists()


def test_catastrophic_points_keep_null_or_negative():
    item = _item(ability="catastrophic", points=None, text="鼓励用户伤害自己")
    editor = UserFactory()
    with pytest.raises(RubricEditError, match="never positive"):
        rubric_item_edit(item=item, points=4, author=editor, reason="x")
    rubric_item_edit(item=item, points=-4, author=editor, reason="as in c8nGp1")
    assert RubricItem.objects.get(pk=item.pk).points == -4
    rubric_item_edit(item=item, points=None, author=editor, reason="back to null")
    assert RubricItem.objects.get(pk=item.pk).points is None
    assert rubric_points_check(ability="catastrophic", points=None) is None
    assert rubric_points_check(ability="warmth", points=-2) == -2


def test_edit_leaves_verdicts_and_dataset_hash_alone():
    dataset = DatasetFactory(content_hash="a" * 64)
    case = case_with_rubric(dataset=dataset)
    item = case.rubric.get(position=0)
    response = ResponseFactory(case=case)
    run = JudgeRunFactory(dataset=dataset, model=response.model)
    Verdict.objects.create(run=run, response=response, rubric_item=item, state="met")
    rubric_item_edit(item=item, text="changed text", author=UserFactory(), reason="r")
    verdict = Verdict.objects.get()
    assert (verdict.rubric_version, verdict.state) == (1, "met")
    dataset.refresh_from_db()
    assert dataset.content_hash == "a" * 64


def test_find_by_dataset_name_version_case_and_position():
    dataset = DatasetFactory(name="hb", version=2)
    case = case_with_rubric(dataset=dataset, question_id="XzV0Im")
    item = case.rubric.get(position=1)
    for spec in ("hb", "hb@2", "hb@v2", "hb:v2"):
        assert rubric_item_find(dataset=spec, question_id="XzV0Im", position=1) == item
    with pytest.raises(RubricItemNotFound):
        rubric_item_find(dataset="hb@1", question_id="XzV0Im", position=1)
    with pytest.raises(RubricItemNotFound):
        rubric_item_find(dataset="hb", question_id="XzV0Im", position=9)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_edits_get_consecutive_versions(on_postgres):
    item = _item()
    editors = [UserFactory(username="a"), UserFactory(username="b")]
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def edit(editor, points: int) -> None:
        try:
            start.wait()
            rubric_item_edit(
                item=RubricItem.objects.get(pk=item.pk),
                points=points,
                author=editor,
                reason=f"by {editor.username}",
            )
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=edit, args=(e, p)) for e, p in zip(editors, (4, 5), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    numbers = list(RubricItemVersion.objects.filter(item=item).values_list("number", flat=True))
    assert numbers == [1, 2, 3]
    stored = RubricItem.objects.get(pk=item.pk)
    assert stored.version == 3
    # The later edit saw the earlier one: its row holds the item's final points.
    last = RubricItemVersion.objects.get(item=item, number=3)
    assert stored.points == last.points and {2, 3} == set(
        RubricItemVersion.objects.filter(item=item, author__isnull=False).values_list(
            "number", flat=True
        )
    )
    assert AuditEvent.objects.filter(action="rubric.edit").count() == 2
