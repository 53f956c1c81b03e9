"""Labels as integer codes: items × raters, −1 where a rater gave no label.

Every statistic in this package reads this one representation, so labels of any type
(``True``/``False``, ``"hit"``/``"miss"``, more than two categories) are handled alike.
"""

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

MISSING = -1


class RatingRecord(NamedTuple):
    """One rater's label for one item; ``label=None`` is a missing rating."""

    cluster: Hashable  # the case (or unit) the item belongs to: the bootstrap resamples these
    item: Hashable  # the item within its cluster (a rubric criterion)
    rater: str
    label: Hashable | None


def categories_order(labels: Iterable[Hashable]) -> tuple[Hashable, ...]:
    """Distinct labels in a stable order (natural order, or by text for mixed types)."""
    distinct = set(labels)
    try:
        return tuple(sorted(distinct))  # type: ignore[type-var]
    except TypeError:
        return tuple(sorted(distinct, key=repr))


@dataclass(frozen=True)
class Ratings:
    codes: np.ndarray  # (n_items, n_raters) int, MISSING where unrated
    categories: tuple[Hashable, ...]
    raters: tuple[str, ...]
    items: tuple[tuple[Hashable, Hashable], ...]  # (cluster, item) per row
    clusters: np.ndarray  # (n_items,) index into cluster_keys
    cluster_keys: tuple[Hashable, ...]

    @property
    def n_items(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_clusters(self) -> int:
        return len(self.cluster_keys)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    def counts(self) -> np.ndarray:
        """Ratings per item and category, (n_items, n_categories)."""
        return category_counts(codes=self.codes, n_categories=self.n_categories)

    def encode(self, *, labels: Mapping[tuple[Hashable, Hashable], Hashable | None]) -> np.ndarray:
        """Codes of another labeller (a judge) aligned to these items; MISSING where absent."""
        index = {category: code for code, category in enumerate(self.categories)}
        codes = np.full(self.n_items, MISSING, dtype=np.int64)
        for row, key in enumerate(self.items):
            label = labels.get(key)
            if label is None:
                continue
            if label not in index:
                raise ValueError(f"label {label!r} of item {key!r} is not a category")
            codes[row] = index[label]
        return codes


def category_counts(*, codes: np.ndarray, n_categories: int) -> np.ndarray:
    """How many raters chose each category, per item: (n_items, n_categories)."""
    codes = np.asarray(codes)
    if codes.ndim == 1:
        codes = codes[:, None]
    counts = np.zeros((codes.shape[0], n_categories), dtype=np.int64)
    for k in range(n_categories):
        counts[:, k] = (codes == k).sum(axis=1)
    return counts


def ratings_build(
    *,
    records: Iterable[RatingRecord],
    categories: Sequence[Hashable] | None = None,
    extra_labels: Iterable[Hashable] = (),
    cluster_of: Mapping[Hashable, Hashable] | None = None,
) -> Ratings:
    """Collect records into a ``Ratings`` matrix.

    Without ``categories`` the scheme is the labels seen in ``records`` and
    ``extra_labels`` (for instance the judge's), so a category nobody used is unknown —
    declare the scheme when it matters (AC1 and PABAK depend on the number of categories).
    ``cluster_of`` maps a record's cluster (a unit) to the cluster the bootstrap resamples (its
    case); by default each record's own. Raises ``ValueError`` on a second label by the same
    rater for the same item.
    """
    records = [RatingRecord(*record) for record in records]
    if categories is None:
        categories = categories_order(
            [r.label for r in records if r.label is not None] + list(extra_labels)
        )
    index = {category: code for code, category in enumerate(categories)}
    item_rows: dict[tuple[Hashable, Hashable], int] = {}
    rater_columns: dict[str, int] = {}
    cluster_index: dict[Hashable, int] = {}
    for record in records:
        item_rows.setdefault((record.cluster, record.item), len(item_rows))
        rater_columns.setdefault(record.rater, len(rater_columns))
        cluster_index.setdefault(_resampled(record.cluster, cluster_of), len(cluster_index))
    codes = np.full((len(item_rows), len(rater_columns)), MISSING, dtype=np.int64)
    seen: set[tuple[int, int]] = set()
    for record in records:
        cell = (item_rows[(record.cluster, record.item)], rater_columns[record.rater])
        if cell in seen:
            raise ValueError(
                f"rater {record.rater!r} labelled item {record.item!r} of {record.cluster!r} twice"
            )
        seen.add(cell)
        if record.label is None:
            continue
        if record.label not in index:
            raise ValueError(f"label {record.label!r} is not one of {list(categories)!r}")
        codes[cell] = index[record.label]
    items = tuple(item_rows)
    return Ratings(
        codes=codes,
        categories=tuple(categories),
        raters=tuple(rater_columns),
        items=items,
        clusters=np.array(
            [cluster_index[_resampled(c, cluster_of)] for c, _ in items], dtype=np.int64
        ),
        cluster_keys=tuple(cluster_index),
    )


def _resampled(cluster: Hashable, cluster_of: Mapping[Hashable, Hashable] | None) -> Hashable:
    return cluster if cluster_of is None else cluster_of[cluster]
