"""Time `construct snapshot` (``benchmark.services.snapshots.snapshot_create``) against a plain
`import-dataset` of the same size, in one run: the released 296 cases as drafts of a project,
each with its 3,114 criteria as draft criteria and 3 reference answers.

    python benchmarks/construction_snapshot.py [--repeats 3]

Runs in a child process on a fresh SQLite database. A snapshot is written by the dataset
importer, so the ratio is what freezing adds: reading the drafts and criteria, writing the
file, mapping every rubric item back (``SnapshotCriterion``) and copying the answers. Between
repeats one criterion's text changes, so each snapshot is new content (the same content would
return the earlier snapshot). Prints a Markdown row for docs/benchmarks.md.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
DATA = ROOT.parent / "shared" / "heartbench-data" / "question_all.jsonl"
REFERENCES = 3


def _project(path: Path):
    """A project whose drafts are the released cases, set up in bulk (not what is timed)."""
    from benchmark.importing import iter_cases
    from benchmark.models import (
        DraftCase,
        DraftCriterion,
        DraftCriterionVersion,
        DraftResponse,
        ModelUnderTest,
    )
    from benchmark.services.construction import project_create

    project = project_create(name="bench", dataset_name="bench")
    cases = list(iter_cases(path))
    drafts = DraftCase.objects.bulk_create(
        DraftCase(project=project, question_id=c.question_id, position=i, dialogue=c.dialogue,
                  primary_scene=c.primary_scene)
        for i, c in enumerate(cases)
    )  # fmt: skip
    criteria = DraftCriterion.objects.bulk_create(
        DraftCriterion(draft=d, position=r.position, ability=r.ability, points=r.points,
                       text=r.text, origin="hand")
        for d, c in zip(drafts, cases, strict=True) for r in c.rubric
    )  # fmt: skip
    DraftCriterionVersion.objects.bulk_create(
        DraftCriterionVersion(criterion=c, number=1, ability=c.ability, points=c.points,
                              text=c.text)
        for c in criteria
    )  # fmt: skip
    for m in range(REFERENCES):
        model = ModelUnderTest.objects.create(name=f"ref-{m}")
        DraftResponse.objects.bulk_create(
            DraftResponse(draft=d, model=model, text="参考回复") for d in drafts
        )
    return project, len(criteria)


def measure(path: Path, repeats: int) -> dict:
    from import_leaderboard import _setup_django

    _setup_django()
    from django.db import connection

    from benchmark.models import DraftCriterion
    from benchmark.services.imports import dataset_import
    from benchmark.services.snapshots import snapshot_create

    project, criteria = _project(path)
    imports, snapshots = [], []
    for n in range(repeats):
        start = time.perf_counter()
        dataset_import(path=path, name=f"plain-{n}")
        imports.append(time.perf_counter() - start)
        DraftCriterion.objects.filter(pk=DraftCriterion.objects.first().pk).update(text=f"v{n}")
        start = time.perf_counter()
        result = snapshot_create(project=project)
        snapshots.append(time.perf_counter() - start)
        assert (
            result.created and result.responses == REFERENCES * result.snapshot.dataset.case_count
        )
    return {
        "backend": connection.vendor,
        "cases": result.snapshot.dataset.case_count,
        "criteria": criteria,
        "import_s": min(imports),
        "snapshot_s": min(snapshots),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(DATA, args.repeats)))
        return
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "HEARTBENCH_DATA_DIR": data}
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--repeats", str(args.repeats)],
            env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{platform.machine()}, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}, best of {args.repeats}\n")  # fmt: skip
    print("| backend | cases | criteria | answers | import-dataset s | snapshot s | ratio |")
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {r['backend']} | {r['cases']} | {r['criteria']:,} | {REFERENCES * r['cases']} | "
        f"{r['import_s']:.3f} | {r['snapshot_s']:.3f} | {r['snapshot_s'] / r['import_s']:.2f} |"
    )


if __name__ == "__main__":
    main()
