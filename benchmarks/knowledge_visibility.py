"""Time the blindness rule behind discussion threads and the case library at team scale.

    python benchmarks/knowledge_visibility.py [--cases 296] [--models 13] [--studies 20]
    python -m tests.services --postgres -- python benchmarks/knowledge_visibility.py

Synthetic data only (no HeartBench text). Runs in a child process on a fresh SQLite database
(or the DATABASE_URL given). Builds N open studies over one dataset, each sampling 30 % of the
cases for every model, with 50 experts of whom every unit has three submitted raters; one
measured expert belongs to every study and rated a share of its units, and holds one open
lease. Then times what the pages run: the pending-cases query for that expert (all cases),
the discussion links of /done/'s first page (and, for comparison, of every unit at once), the
case-library list (100 entries), and one discussion page with 200 comments and 1,000 votes,
after ANALYZE. Prints a Markdown table for docs/benchmarks.md.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _best(fn, repeat: int = 5) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        timings.append(time.perf_counter() - started)
    return min(timings)


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def build(cases: int, models: int, studies: int, experts_n: int = 50) -> dict:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import (
        Assignment,
        Comment,
        CommentVote,
        Expert,
        LibraryEntry,
        Pool,
        Submission,
        Unit,
    )
    from benchmark.models import Case, Dataset, ModelUnderTest, Response, RubricItem

    rng = random.Random(5)
    now = timezone.now()
    dataset = Dataset.objects.create(name="bench-knowledge", version=1, content_hash="x" * 64)
    Case.objects.bulk_create(
        Case(dataset=dataset, question_id=f"k{i:05d}", position=i, dialogue=[], difficulty="normal")
        for i in range(cases)
    )
    case_ids = list(Case.objects.filter(dataset=dataset).values_list("pk", flat=True))
    RubricItem.objects.bulk_create(
        RubricItem(case_id=c, position=p, ability="warmth", points=2, text=f"criterion {p}")
        for c in case_ids
        for p in range(10)
    )
    mods = ModelUnderTest.objects.bulk_create(
        ModelUnderTest(name=f"bench-k-model-{m}") for m in range(models)
    )
    Response.objects.bulk_create(
        Response(model=m, case_id=c, text="…") for m in mods for c in case_ids
    )
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"bench-k-{i}") for i in range(experts_n)
    )
    experts = Expert.objects.bulk_create(
        Expert(user=u, display_name=u.username, pseudonym=f"R-k{i:05d}")
        for i, u in enumerate(users)
    )
    me = experts[0]
    responses = list(Response.objects.filter(case__dataset=dataset).values_list("pk", "case_id"))
    units_total = 0
    for s in range(studies):
        pool = Pool.objects.create(name=f"bench-k-study-{s}", status=Pool.Status.OPEN)
        pool.experts.set(experts)
        sampled = set(rng.sample(case_ids, k=max(1, int(cases * 0.3))))
        units = Unit.objects.bulk_create(
            Unit(pool=pool, response_id=r, token=f"k{s}-{r}") for r, c in responses if c in sampled
        )
        units_total += len(units)
        assignments = []
        for unit in units:
            raters = rng.sample(experts[1:], 3)
            if rng.random() < 0.15:
                raters[0] = me
            for slot, expert in enumerate(raters, start=1):
                row = Assignment(
                    pool=pool, unit=unit, expert=expert, slot=slot, status="submitted",
                    lease_expires_at=now, submitted_at=now,
                )  # fmt: skip
                assignments.append(row)
        made = Assignment.objects.bulk_create(assignments, batch_size=5000)
        Submission.objects.bulk_create(
            (
                Submission(assignment=a, unit=a.unit, expert=a.expert, kind="rating", slot=a.slot)
                for a in made
            ),
            batch_size=5000,
        )
    # One unit with a free slot and an open lease of the measured expert: a pending case.
    free = Unit.objects.filter(pool__name="bench-k-study-0").exclude(assignments__expert=me).first()
    Submission.objects.filter(unit=free, slot=3).delete()
    Assignment.objects.filter(unit=free, slot=3).delete()
    Assignment.objects.create(
        pool=free.pool, unit=free, expert=me, slot=3, lease_expires_at=now + timedelta(hours=1)
    )
    LibraryEntry.objects.bulk_create(
        LibraryEntry(response_id=r, title=f"entry {i}", note="…")
        for i, (r, _c) in enumerate(rng.sample(responses, 100))
    )
    mine = Assignment.objects.filter(expert=me, status="submitted").select_related("unit")
    target = mine.first().unit
    case_id = target.response.case_id
    items = list(RubricItem.objects.filter(case_id=case_id).values_list("pk", flat=True))
    comments = Comment.objects.bulk_create(
        Comment(case_id=case_id, rubric_item_id=rng.choice([None, *items]), author=u.user,
                body="评论内容" * 10)
        for u in rng.choices(experts[1:], k=200)
    )  # fmt: skip
    CommentVote.objects.bulk_create(
        CommentVote(comment=c, user=u, value=rng.choice([-1, 1]))
        for c in comments[:50]
        for u in users[1:21]
    )
    from django.db import connection

    with connection.cursor() as cursor:
        # Planner statistics, as a database in use has them (bulk inserts leave none).
        cursor.execute("ANALYZE")
    return {
        "me": me,
        "target": target,
        "units": units_total,
        "submissions": Submission.objects.count(),
        "mine": mine.count(),
    }


def measure(cases: int, models: int, studies: int) -> dict:
    _setup_django()
    from django.db import connection

    from annotation import selectors
    from annotation.selectors import knowledge

    built = build(cases, models, studies)
    me, target = built["me"], built["target"]
    user = me.user
    pending = knowledge.cases_pending_for_expert(expert=me)
    pending_s = _best(lambda: knowledge.cases_pending_for_expert(expert=me))

    def done_links(listed):
        done = listed()
        return knowledge.unit_tokens_open_for_discussion(
            user=user, unit_ids={a.unit_id for a in done}
        )

    def every_unit():
        return list(selectors.assignments_completed_for_expert(user=user))

    def first_page():  # what /done/ shows now
        return list(selectors.assignments_completed_page(user=user, number=1).object_list)

    links = done_links(every_unit)
    done_s = _best(lambda: done_links(every_unit))
    page_links = done_links(first_page)
    page_s = _best(lambda: done_links(first_page))
    list_s = _best(every_unit)
    library = knowledge.library_entries_for_user(user=user)
    library_s = _best(lambda: knowledge.library_entries_for_user(user=user))

    def discussion():
        unit, assignment = knowledge.unit_get_for_discussion(user=user, token=target.token)
        return knowledge.discussion_get(user=user, unit=unit, assignment=assignment)

    page = discussion()
    discussion_s = _best(discussion)
    return {
        "backend": connection.vendor,
        "studies": studies,
        "units": built["units"],
        "submissions": built["submissions"],
        "mine": built["mine"],
        "pending": len(pending),
        "pending_ms": pending_s * 1000,
        "links": len(links),
        "done_ms": done_s * 1000,
        "page_links": len(page_links),
        "page_ms": page_s * 1000,
        "list_ms": list_s * 1000,
        "library": len(library),
        "library_ms": library_s * 1000,
        "comments": len(page.case_thread.comments) + sum(len(t.comments) for t in page.criteria),
        "discussion_ms": discussion_s * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=296)
    parser.add_argument("--models", type=int, default=13)
    parser.add_argument("--studies", type=int, default=20)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.cases, args.models, args.studies)))
        return
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "HEARTBENCH_DATA_DIR": data}
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--cases", str(args.cases),
             "--models", str(args.models), "--studies", str(args.studies)],
            env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print("| backend | studies | units | submissions | expert's units | pending cases | "
          "pending ms | every unit listed ms | every unit + links (open) ms | "
          "/done/ page 1 + links (open) ms | library (visible) ms | "
          "discussion page (comments) ms |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {r['backend']} | {r['studies']} | {r['units']:,} | {r['submissions']:,} | "
        f"{r['mine']:,} | {r['pending']} | {r['pending_ms']:.1f} | {r['list_ms']:.1f} | "
        f"{r['done_ms']:.1f} ({r['links']:,}) | {r['page_ms']:.1f} ({r['page_links']}) | "
        f"{r['library_ms']:.1f} ({r['library']}) | "
        f"{r['discussion_ms']:.1f} ({r['comments']}) |"
    )


if __name__ == "__main__":
    main()
