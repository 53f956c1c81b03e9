"""The demo's experts and study, and their removal before real work.

``demo_split_seed``: one demo unit rated by three demo experts with a split. Only
``heartbench demo-study`` calls it, on the run that creates the demo study, so that
``make run`` shows a unit waiting in the senior queue. It goes through the real services:
the unit is routed to each rater, rated, and the third rating sends it to the queue.
``demo_remove`` (``heartbench demo-remove``) deletes every demo row again.
"""

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.db.models import Q

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from annotation.models import Expert, Unit
from annotation.selectors.experts import demo_experts
from annotation.selectors.knowledge import faq_entries_asking
from annotation.services.routing import unit_route_to_expert
from benchmark.selectors import demo as benchmark_demo
from benchmark.selectors.rubric import case_criteria
from benchmark.services.audit import audit_record
from benchmark.services.demo import DEMO_ADMIN
from validation.audit_actions import ValidationAction
from validation.models import Study

# Rater 3 disagrees with raters 1 and 2 on the first two criteria (by rubric position).
SPLIT_POSITIONS = (0, 1)
DEMO_NOTE = "demo rating"


def demo_split_seed(*, study: Study, raters: Sequence[Expert]) -> Unit | None:
    """Rate the study's first unit by three raters so that it splits 2/1; None if no unit."""
    unit = annotation_selectors.pool_units(pool=study.pool).first()
    if unit is None or len(raters) < 3:
        return None
    positions = dict(case_criteria(case_id=unit.response.case_id).values_list("pk", "position"))
    for index, expert in enumerate(raters[:3]):
        assignment = unit_route_to_expert(unit=unit, expert=expert, actor=None)
        tokens = annotation_selectors.criterion_tokens(assignment=assignment)
        labels = [
            {
                "criterion": token,
                "hit": not (index == 2 and positions[pk] in SPLIT_POSITIONS),
                "note": DEMO_NOTE,
            }
            for token, pk in tokens.items()
        ]
        annotation_services.assignment_submit(assignment=assignment, labels=labels)
    unit.refresh_from_db()
    return unit


# --- the demo's public logins, and removing every demo row ------------------------------

DEMO_PASSWORD = "demo-password-not-secret"
DEMO_EXPERTS = [
    ("demo-expert-1", Expert.Tier.EXPERT, ["职场心理"]),
    ("demo-expert-2", Expert.Tier.EXPERT, ["亲密关系"]),
    ("demo-expert-3", Expert.Tier.EXPERT, []),
    ("demo-senior", Expert.Tier.SENIOR, []),
]
DEMO_KNOWLEDGE = Path(settings.BASE_DIR) / "fixtures" / "demo" / "knowledge.json"
# Rows a demo login leaves outside the demo data that go with it: its login, profile, token,
# sessions' admin log, votes and study memberships. Anything else (a rating of real data,
# say) keeps the login, deactivated, so that no real row is ever deleted.
LOGIN_ROWS = {
    "auth.user",
    "annotation.expert",
    "authtoken.token",
    "admin.logentry",
    "annotation.commentvote",
    "annotation.pool_experts",
}


def demo_logins_open() -> list[str]:
    """Active logins that still have a public demo password (the demo admin's or the demo
    experts'): production refuses to start while there is one (``heartbench serve``)."""
    found = []
    demo_users = (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(expert__is_demo=True, expert__is_active=True) | Q(username=DEMO_ADMIN[0]))
    )
    for user in demo_users.order_by("username"):
        if user.check_password(DEMO_PASSWORD) or user.check_password(DEMO_ADMIN[1]):
            found.append(user.get_username())
    return found


def _reachable(roots: list[models.QuerySet]) -> dict[type[models.Model], set]:
    """Every row the roots' rows are referred to by, through any chain of foreign keys that
    would cascade or protect (a protected row is one more demo row here), by model."""
    found: dict[type[models.Model], set] = defaultdict(set)
    todo = [(qs.model, set(qs.values_list("pk", flat=True))) for qs in roots]
    while todo:
        model, pks = todo.pop()
        pks -= found[model]
        if not pks:
            continue
        found[model] |= pks
        for rel in _reverse_keys(model):
            if rel.on_delete not in (models.CASCADE, models.PROTECT):
                continue
            related = rel.related_model
            field = rel.field.name
            for chunk in _chunks(sorted(pks)):
                ids = related._base_manager.filter(**{f"{field}__in": chunk}).values_list(
                    "pk", flat=True
                )
                todo.append((related, set(ids)))
    return found


def _reverse_keys(model: type[models.Model]) -> list:
    """The foreign keys pointing at ``model``, those of many-to-many tables included."""
    return [
        f
        for f in model._meta.get_fields(include_hidden=True)
        if f.auto_created and not f.concrete and (f.one_to_many or f.one_to_one)
    ]


def _chunks(items: list, size: int = 500):
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True)
class DemoRemoval:
    deleted: dict[str, int]  # model label → rows
    kept: list[str]  # demo logins with work on real data: deactivated, not deleted

    @property
    def total(self) -> int:
        return sum(self.deleted.values())


def demo_remove(*, actor=None) -> DemoRemoval:
    """Delete every demo row in one transaction: the demo datasets with their cases, responses,
    judge runs and verdicts, the demo models, the studies on demo data with all their work,
    the demo FAQ entries, and the demo logins. A demo login that rated (or did anything else
    with) real data is deactivated with an unusable password instead, and named. The audit
    trail keeps its rows, with one more saying what went."""
    demo_datasets = benchmark_demo.demo_datasets()
    pools = annotation_selectors.pools_of(
        ids=Study.objects.filter(dataset__in=demo_datasets).values("pool_id")
    )
    faq = [row["question"] for row in json.loads(DEMO_KNOWLEDGE.read_text("utf-8"))["faq"]]
    data_roots = [
        demo_datasets,
        benchmark_demo.demo_models(),
        pools,
        benchmark_demo.demo_judges(),
        faq_entries_asking(questions=faq),
    ]
    user_model = get_user_model()
    with transaction.atomic():
        # The audit row names the first demo dataset (or login) it removed.
        subject = demo_datasets.first() or demo_experts().first()
        data = _reachable(data_roots)
        kept = []
        for expert in demo_experts().select_related("user"):
            if not expert.user.is_active and not expert.user.has_usable_password():
                continue  # kept by an earlier removal: it took part in real work
            rows = _reachable([user_model.objects.filter(pk=expert.user_id)])
            outside = {
                m._meta.label_lower
                for m, pks in rows.items()
                if pks - data.get(m, set()) and m._meta.label_lower not in LOGIN_ROWS
            }
            if outside:
                expert.is_active = False
                expert.save(update_fields=["is_active"])
                expert.user.is_active = False
                expert.user.set_unusable_password()
                expert.user.save(update_fields=["is_active", "password"])
                kept.append(expert.user.get_username())
                continue
            for model, pks in rows.items():
                data[model] |= pks
        deleted = {}
        for model, pks in data.items():
            if not pks:
                continue
            _null_outside(model, pks, data)
            for chunk in _chunks(sorted(pks)):
                model._base_manager.filter(pk__in=chunk)._raw_delete(model._base_manager.db)
            deleted[model._meta.label] = len(pks)
        if subject is not None:
            audit_record(
                actor=actor,
                action=ValidationAction.DEMO_REMOVE,
                obj=subject,
                data={"deleted": deleted, "kept": kept},
            )
    return DemoRemoval(deleted=dict(sorted(deleted.items())), kept=kept)


def _null_outside(model, pks: set, data: dict) -> None:
    """Rows that stay but point at a deleted one through a SET_NULL key let go of it."""
    for rel in _reverse_keys(model):
        if rel.on_delete is not models.SET_NULL:
            continue
        related, field = rel.related_model, rel.field.name
        staying = related._base_manager.filter(**{f"{field}__in": list(pks)}).exclude(
            pk__in=list(data.get(related, ()))
        )
        staying.update(**{field: None})
