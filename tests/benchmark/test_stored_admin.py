"""Figures kept as data (benchmark.StoredBoard, validation.StoredFigures) in the admin: a
superuser sees the rows listed by key, kind and creation, and can neither add nor change one."""

import pytest

from benchmark.models import StoredBoard
from benchmark.stored_rows import stored_value_write
from tests.builders.datasets import DatasetFactory
from tests.builders.studies import open_study
from validation.models import StoredFigures

pytestmark = pytest.mark.django_db


def _board() -> StoredBoard:
    dataset = DatasetFactory(name="kept-set")
    stored_value_write(StoredBoard, key="b" * 64, value={"rows": []}, dataset=dataset, kind="all")
    return StoredBoard.objects.get()


def _figures() -> StoredFigures:
    study = open_study(cases=1, experts=[])
    stored_value_write(StoredFigures, key="f" * 64, value=[1], study=study, kind="badge:judge-a")
    return StoredFigures.objects.get()


@pytest.mark.parametrize("make", [_board, _figures])
def test_a_superuser_lists_kept_figures_and_cannot_add_or_change_them(admin_client, make):
    row = make()
    meta = row._meta
    base = f"/admin/{meta.app_label}/{meta.model_name}/"
    listed = admin_client.get(base)
    assert listed.status_code == 200
    page = listed.content.decode()
    assert row.key in page and row.kind in page
    assert [c for c in listed.context["cl"].list_display if c != "action_checkbox"] == [
        "key",
        "kind",
        "created_at",
    ]
    assert f'href="{base}add/"' not in page
    assert admin_client.get(f"{base}add/").status_code == 403
    assert (
        admin_client.post(f"{base}add/", {"key": "x", "kind": "y", "value": "1"}).status_code == 403
    )
    changed = admin_client.post(
        f"{base}{row.pk}/change/", {"key": row.key, "kind": "edited", "value": "2"}
    )
    assert changed.status_code == 403
    row.refresh_from_db()
    assert row.kind != "edited" and meta.model.objects.count() == 1
