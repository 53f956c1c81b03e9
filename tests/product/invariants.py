"""What must hold in the database after a team worked a study on the served product.

Used by the product suite and by ``benchmarks/load_experts.py``. Every check reads what the
server stored and compares it with what the clients were told (acknowledged submissions and
autosaves); the result is a list of problems, empty when everything holds. A pairwise study
(its pool's question type) is checked by ``pairwise_study_problems``.
"""

from collections import Counter

from django.db.models import Count, Sum

# A unit gets its gold with its last rating, or with a senior's decision (in its transaction):
# the states in which a unit may sit without gold, and not after a decision.
WITHOUT_GOLD = ("pending", "incomplete", "awaiting")


def _counting_problems(pool, submissions, acknowledged: set[str], *, units: str) -> list[str]:
    """What any pool must hold, whatever its question type: every acknowledged rating stored
    once and nothing else, at most three raters per unit and all different, each unit's rating
    counter and complete flag its ratings, the pool's tallies its units (``units``: what the
    messages call them)."""
    from annotation.models import Unit

    problems = []
    stored = {str(p) for p in submissions.values_list("assignment__public_id", flat=True)}
    if stored != acknowledged:
        problems.append(
            f"{len(acknowledged - stored)} acknowledged submissions missing, "
            f"{len(stored - acknowledged)} stored without acknowledgement"
        )
    raters = submissions.values("unit").annotate(
        n=Count("id"), experts=Count("expert", distinct=True)
    )
    crowded = [r for r in raters if r["n"] > 3 or r["experts"] != r["n"]]
    if crowded:
        problems.append(f"{len(crowded)} {units} with more than three or repeated raters")
    counted = {r["unit"]: r["n"] for r in raters}
    rows = list(Unit.objects.filter(pool=pool).values_list("pk", "ratings", "ratings_complete"))
    miscounted = [
        pk
        for pk, ratings, complete in rows
        if ratings != counted.get(pk, 0) or complete != (ratings >= pool.raters_per_unit)
    ]
    if miscounted:
        problems.append(
            f"{len(miscounted)} {units} whose rating counter or complete flag is not their ratings"
        )
    tally = pool.tallies.aggregate(n=Sum("units_complete"))["n"] or 0
    complete = sum(flag for _, _, flag in rows)
    if tally != complete:
        problems.append(f"the pool's tally of complete {units} is not its {complete} complete ones")
    if pool.units_total != len(rows):
        problems.append(f"the pool's count of {units} is not its {units}")
    return problems


def study_problems(
    *,
    name: str,
    submitted: dict[str, dict[str, bool] | None],
    drafted: dict[str, int] | None = None,
    closed: bool = False,
) -> list[str]:
    """Problems in study ``name``. ``submitted``: acknowledged assignment id → the labels sent
    (criterion token → hit; None to check only that one label per criterion was stored);
    ``drafted``: unsubmitted assignment id → labels autosaved; ``closed``: the study was closed,
    so every unit with three ratings must have gold. A pairwise study's ``submitted`` holds
    choices (``pairwise_study_problems``)."""
    from annotation.models import Assignment, Label, Pool, Submission
    from annotation.selectors import criterion_tokens
    from benchmark.models import RubricItem
    from validation.models import GoldLabel, StudyUnit

    if Pool.objects.filter(name=name, question_type=Pool.QuestionType.PAIRWISE).exists():
        return pairwise_study_problems(
            name=name, submitted=submitted, drafted=drafted, closed=closed
        )

    pool = Pool.objects.get(name=name)
    submissions = Submission.objects.filter(unit__pool=pool, kind="rating")
    problems = _counting_problems(pool, submissions, set(submitted), units="units")

    criteria = dict(RubricItem.objects.values_list("case").annotate(n=Count("id")))
    wrong = short = 0
    for submission in submissions.select_related("assignment", "unit__response"):
        labels = {
            label.rubric_item_id: label.hit for label in Label.objects.filter(submission=submission)
        }
        if len(labels) != criteria[submission.unit.response.case_id]:
            short += 1
        sent = submitted.get(str(submission.assignment.public_id))
        if sent is not None:
            tokens = criterion_tokens(assignment=submission.assignment)
            if {tokens[t]: hit for t, hit in sent.items()} != labels:
                wrong += 1
    if short:
        problems.append(f"{short} submissions without exactly one label per criterion")
    if wrong:
        problems.append(f"{wrong} submissions whose labels differ from what the expert sent")

    full = set(
        submissions.values("unit")
        .annotate(n=Count("id"))
        .filter(n=3)
        .values_list("unit", flat=True)
    )
    units = StudyUnit.objects.filter(study__name=name)
    golden = dict(
        GoldLabel.objects.filter(study_unit__study__name=name)
        .values_list("study_unit")
        .annotate(n=Count("id"))
    )
    # Gold by majority is the majority of the labels stored now: a revision never lands after
    # the unit's last rating (and so after its gold).
    votes: dict[tuple[int, int], list[bool]] = {}
    for unit_id, item, hit in Label.objects.filter(submission__in=submissions).values_list(
        "submission__unit_id", "rubric_item_id", "hit"
    ):
        votes.setdefault((unit_id, item), []).append(hit)
    majority = {key: sum(v) * 2 > len(v) for key, v in votes.items()}
    stale = sum(
        1
        for unit_id, item, hit in GoldLabel.objects.filter(
            study_unit__study__name=name, provenance__in=("3/3", "2/1")
        ).values_list("study_unit__unit_id", "rubric_item_id", "hit")
        if majority.get((unit_id, item)) != hit
    )
    if stale:
        problems.append(f"{stale} gold labels that are not the majority of the stored labels")

    for unit in units.select_related("case"):
        has_gold = unit.pk in golden
        if unit.state in ("gold", "adjudicated") and golden.get(unit.pk) != criteria[unit.case_id]:
            problems.append(
                f"study unit {unit.pk} is {unit.state} without one gold label per criterion"
            )
        elif unit.state not in WITHOUT_GOLD and not has_gold:
            problems.append(f"study unit {unit.pk} in state {unit.state} has no gold")
        if closed and unit.unit_id in full and unit.state not in ("gold", "adjudicated"):
            problems.append(
                f"study unit {unit.pk} has three ratings but is {unit.state} after close"
            )

    decided = Submission.objects.filter(unit__pool__name=name, kind="adjudication").values(
        "unit_id"
    )
    waiting = units.filter(unit_id__in=decided, state__in=WITHOUT_GOLD).count()
    if waiting:
        problems.append(f"{waiting} decided units without gold")

    if drafted is not None:
        drafts = {
            str(k): v
            for k, v in Assignment.objects.filter(
                pool__name=name, draft_saved_at__isnull=False
            ).values_list("public_id", "draft_labels")
        }
        lost = [a for a, n in drafted.items() if len(drafts.get(a, {})) != n]
        if lost:
            problems.append(f"{len(lost)} autosaved drafts missing or different")
        if any(a in drafts for a in submitted):
            problems.append("drafts left behind by submitted assignments")
    return problems


def pairwise_study_problems(
    *,
    name: str,
    submitted: dict[str, dict[str, str] | None],
    drafted: dict[str, int] | None = None,
    closed: bool = False,
) -> list[str]:
    """Problems in pairwise study ``name``. ``submitted``: acknowledged assignment id → what
    was sent, ``{"choice": "a" | "b" | "tie", "reason": ...}`` with the choice as the expert
    saw the pair (``a``: the response shown first; None to check only that one choice was
    stored); ``drafted``: autosaves acknowledged, of which a pair has none (its draft endpoint
    takes rubric labels only); ``closed``: the study was closed. Every acknowledged choice
    is stored once, with exactly the winner sent in the pair's stored order and the side
    shown first, and nothing else; at most three raters per pair, all different; every pair
    with all its ratings has the gold of their majority, or waits for a senior when they
    split three ways."""
    from annotation.models import Assignment, Label, PairwiseChoice, Pool, Submission, Unit
    from annotation.pairwise import as_shown, first_shown
    from validation.models import PairwiseGold, StudyUnit

    pool = Pool.objects.get(name=name)
    submissions = Submission.objects.filter(unit__pool=pool, kind="rating")
    problems = _counting_problems(pool, submissions, set(submitted), units="pairs")
    if Unit.objects.filter(pool=pool, pair__isnull=True).exists():
        problems.append("units of a pairwise study without their pair")

    if Label.objects.filter(submission__in=submissions).exists():
        problems.append("labels stored for choices on pairs")
    choices = {
        c.submission_id: c
        for c in PairwiseChoice.objects.filter(submission__in=submissions).select_related(
            "submission__assignment"
        )
    }
    missing = submissions.exclude(pk__in=choices).count()
    if missing:
        problems.append(f"{missing} submissions on pairs without their choice")
    wrong = turned = 0
    for choice in choices.values():
        assignment = choice.submission.assignment
        seed = assignment.shuffle_seed
        if choice.first_shown != first_shown(seed):
            turned += 1
        sent = submitted.get(str(assignment.public_id))
        if sent is not None and (
            as_shown(choice.winner, shuffle_seed=seed) != sent["choice"]
            or choice.reason != (sent.get("reason") or "").strip()
        ):
            wrong += 1
    if turned:
        problems.append(f"{turned} choices stored with another side shown first than was shown")
    if wrong:
        problems.append(f"{wrong} choices whose winner or reason differ from what the expert sent")

    # A pair's gold comes with its last rating (in its transaction): the majority of its
    # raters' choices, or a senior's choice when they split three ways.
    by_unit: dict[int, list[str]] = {}
    for choice in choices.values():
        by_unit.setdefault(choice.submission.unit_id, []).append(choice.winner)
    golden = {g.study_unit_id: g for g in PairwiseGold.objects.filter(study_unit__study__name=name)}
    decided = set(
        Submission.objects.filter(unit__pool=pool, kind="adjudication").values_list(
            "unit_id", flat=True
        )
    )
    for unit in StudyUnit.objects.filter(study__name=name):
        votes = Counter(by_unit.get(unit.unit_id, []))
        gold = golden.get(unit.pk)
        if unit.unit_id in decided:
            if unit.state != "adjudicated" or gold is None or gold.provenance != "adjudicated":
                problems.append(f"decided pair {unit.pk} is {unit.state} without a senior's gold")
            continue
        n = sum(votes.values())
        if n < pool.raters_per_unit:  # dropped too, once the study closed
            if gold is not None or unit.state not in (*WITHOUT_GOLD, "dropped"):
                gilded = " with gold" if gold is not None else ""
                problems.append(f"pair {unit.pk} short of ratings is {unit.state}{gilded}")
            continue
        (winner, agreeing), *others = votes.most_common()
        if others and others[0][1] == agreeing:  # no choice above the others: a senior decides
            if gold is not None or unit.state != "awaiting":
                problems.append(f"pair {unit.pk} without a majority is {unit.state}, not awaiting")
            continue
        provenance = f"{n}/{n}" if agreeing == n else f"{agreeing}/{n - agreeing}"
        found = None if gold is None else (gold.winner, gold.provenance)
        if unit.state != "gold" or found != (winner, provenance):
            problems.append(
                f"pair {unit.pk} is {unit.state} with gold {found}, "
                f"not the majority {winner} ({provenance})"
            )
    if closed:  # the close settles every pair: gold, a senior's queue, or dropped
        open_units = StudyUnit.objects.filter(study__name=name, state="pending").count()
        if open_units:
            problems.append(f"{open_units} pairs still pending after close")

    drafts = Assignment.objects.filter(pool=pool, draft_saved_at__isnull=False).count()
    if drafts or drafted:
        problems.append(f"{drafts or len(drafted)} autosaved drafts on pairs, which have none")
    return problems
