"""`heartbench calibration create|require|result ...`: thin wrappers over the calibration
services.

    heartbench calibration create NAME --dataset D --senior USER --references FILE [--threshold]
    heartbench calibration require STUDY --set NAME [--min-quality X] [--hard-min-quality Y]
    heartbench calibration require STUDY --none
    heartbench calibration result USERNAME
"""

from pathlib import Path

from django.core.management.base import BaseCommand

from annotation import services
from annotation.models import CalibrationSet, Expert, Pool
from annotation.references import ReferenceFileError, references_parse
from annotation.selectors import quality as selectors_quality
from benchmark.selectors.datasets import dataset_newest_named
from config.cli_exits import UsageError
from config.cli_types import fraction_0_1


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


class Command(BaseCommand):
    help = "Calibration sets, the studies that require them, and expert results."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="a calibration set from reference labels")
        create.add_argument("name")
        create.add_argument("--dataset", required=True)
        create.add_argument("--senior", required=True, help="username of the senior expert")
        create.add_argument("--references", required=True, help="JSONL file of reference labels")
        create.add_argument("--threshold", type=fraction_0_1, default=0.8)
        require = sub.add_parser("require", help="gate a study on a calibration set")
        require.add_argument("study")
        which = require.add_mutually_exclusive_group(required=True)
        which.add_argument("--set", dest="calibration")
        which.add_argument("--none", action="store_true", help="remove the gate")
        require.add_argument("--min-quality", type=fraction_0_1)
        require.add_argument("--hard-min-quality", type=fraction_0_1)
        result = sub.add_parser("result", help="an expert's calibration history and quality")
        result.add_argument("username")

    def handle(self, *args, **options):
        try:
            getattr(self, f"_{options['action']}")(options)
        except services.AnnotationError as exc:
            raise UsageError(str(exc)) from exc

    def _create(self, options):
        dataset = dataset_newest_named(name=options["dataset"])
        if dataset is None:
            raise UsageError(f"no dataset named {options['dataset']!r}")
        senior = Expert.objects.filter(user__username=options["senior"]).first()
        if senior is None:
            raise UsageError(f"no expert {options['senior']!r}")
        path = Path(options["references"])
        try:
            rows = references_parse(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from exc
        except (ReferenceFileError, UnicodeDecodeError) as exc:
            raise UsageError(f"{path}: {exc}") from exc
        calibration_set = services.calibration_create(
            name=options["name"],
            dataset=dataset,
            references=rows,
            senior=senior,
            pass_threshold=options["threshold"],
        )
        self.stdout.write(
            f"calibration set {calibration_set} with {len(rows)} unit(s), "
            f"pass at {calibration_set.pass_threshold:.0%}"
        )

    def _require(self, options):
        pool = Pool.objects.filter(name=options["study"]).first()
        if pool is None:
            raise UsageError(f"no study named {options['study']!r}")
        calibration = None
        if not options["none"]:
            calibration = CalibrationSet.objects.filter(pool__name=options["calibration"]).first()
            if calibration is None:
                raise UsageError(f"no calibration set named {options['calibration']!r}")
        services.pool_set_quality_policy(
            pool=pool,
            calibration=calibration,
            min_quality=options["min_quality"],
            hard_min_quality=options["hard_min_quality"],
        )
        self.stdout.write(
            f"{pool}: calibration {calibration or 'not required'}, "
            f"recalibration below {_share(options['min_quality'])}, "
            f"hard cases from {_share(options['hard_min_quality'])}"
        )

    def _result(self, options):
        expert = Expert.objects.filter(user__username=options["username"]).first()
        if expert is None:
            raise UsageError(f"no expert {options['username']!r}")
        standing = selectors_quality.expert_quality_get(expert=expert)
        self.stdout.write(
            f"{expert.user.username} ({expert.tier}): running quality {_share(standing.quality)}"
            f" · peer agreement {_share(standing.peer.share)} on {standing.peer.units} unit(s)"
        )
        for attempt in selectors_quality.calibration_history(expert=expert):
            state = "open" if attempt.finished_at is None else (
                "passed" if attempt.passed else "failed"
            )  # fmt: skip
            self.stdout.write(
                f"  {attempt.started_at:%Y-%m-%d %H:%M} {attempt.calibration_set} "
                f"({attempt.reason}): {state} {_share(attempt.agreement)}"
            )
