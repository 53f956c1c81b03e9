"""The report's gathering in arrays: finding items by (owner, rubric item) pairs, query rows as
columns, and the items alone (what the judge's badge reads) against the whole report data."""

from dataclasses import fields

import numpy as np
import pytest

from tests.builders.studies import rated_study
from validation.report.data import ItemIndex, StudyData, columns
from validation.report.selectors import study_items_data, study_report_data

SECTIONS = {"adjudications", "rubric", "dropped", "notes", "repeats", "raters"}


def test_pairs_find_their_item_row_and_others_none():
    index = ItemIndex(owners=np.array([5, 5, 6]), items=np.array([1, 2, 0]))
    rows = index.rows(owners=np.array([6, 5, 5, 5, 7, 5]), items=np.array([0, 2, 1, 9, 1, 0]))
    assert rows.tolist() == [2, 1, 0, -1, -1, -1]


def test_an_item_id_past_the_largest_does_not_wrap_into_the_next_owner():
    # Keys are owner × 3 + item here: (5, 3) would be 18, the key of (6, 0).
    index = ItemIndex(owners=np.array([5, 6]), items=np.array([2, 0]))
    assert index.rows(owners=np.array([5]), items=np.array([3])).tolist() == [-1]


def test_two_items_with_one_key_give_the_later_row_and_no_items_none():
    index = ItemIndex(owners=np.array([1, 1, 2]), items=np.array([4, 4, 4]))
    assert index.rows(owners=np.array([1]), items=np.array([4])).tolist() == [1]
    empty = ItemIndex(owners=np.array([], dtype=np.int64), items=np.array([], dtype=np.int64))
    assert empty.rows(owners=np.array([1, 2]), items=np.array([4, 4])).tolist() == [-1, -1]


def test_rows_become_typed_columns_none_points_nan():
    ids, points, names = columns([(3, None, "a"), (4, 2, "b")], (np.int64, float, object))
    assert ids.dtype == np.int64 and ids.tolist() == [3, 4]
    assert np.isnan(points[0]) and points[1] == 2.0
    assert names.dtype == object and names.tolist() == ["a", "b"]
    empty = columns([], (np.int64, bool))
    assert [c.dtype for c in empty] == [np.int64, bool] and all(c.size == 0 for c in empty)


@pytest.mark.django_db
def test_the_items_alone_are_the_reports_items_without_its_sections():
    study = rated_study()
    whole = study_report_data(study=study)
    items = study_items_data(study=study)
    assert whole.repeats == () and whole.rubric is not None and whole.raters
    for field in fields(StudyData):
        mine, theirs = getattr(items, field.name), getattr(whole, field.name)
        if field.name in SECTIONS:
            assert mine == field.default_factory() if field.name != "rubric" else mine is None
        elif isinstance(mine, np.ndarray):
            assert mine.dtype == theirs.dtype
            assert np.array_equal(mine, theirs, equal_nan=mine.dtype == float), field.name
        elif field.name == "judges":
            assert [(j.name, j.runs, j.errors) for j in mine] == [
                (j.name, j.runs, j.errors) for j in theirs
            ]
            assert all(np.array_equal(a.codes, b.codes) for a, b in zip(mine, theirs, strict=True))
        else:
            assert mine == theirs, field.name
    # Three raters on every unit, 2 judges, one verdict an error per model and judge.
    assert items.ratings.shape == (items.n_items, 3) and (items.ratings >= 0).all()
    assert [j.errors for j in items.judges] == [3, 3]
