"""`heartbench construct create-project P --dataset-name NAME [--description T]`,
`heartbench construct import-seeds FILE --project P [--rewrite --model M ...]`,
`heartbench construct rewrite --project P --model M ...`,
`heartbench construct references --project P --models A,B ...`,
`heartbench construct synthesize --project P --model M [--limit N] ...` and
`heartbench construct add-criterion --project P --case Q --ability A [--points N] --text T
--author USERNAME`: a new benchmark, from seeds to drafted criteria;
`heartbench construct snapshot --project P`, `heartbench construct prune --project P --dataset D
[--models A,B] [--judge J] [--easy-threshold 80] [--hard-quantile Q] [--dry-run]` and
`heartbench construct publish --project P [--out FILE.jsonl]`: quality control and publishing."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from benchmark.importing import ImportFailure
from benchmark.management.commands._llm_args import (
    add_endpoint_arguments,
    engine_options,
    finish,
    progress_writer,
    summary_lines,
)
from benchmark.saturation import (
    DEFAULT_EASY_THRESHOLD,
    DEFAULT_HARD_QUANTILE,
    SaturationError,
    saturation_compute,
)
from benchmark.selectors.construction import (
    ProjectNotFound,
    SnapshotNotFound,
    draft_get,
    draft_question_ids,
    project_get,
    snapshot_of,
    user_get,
)
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve
from benchmark.selectors.leaderboard import LeaderboardError, dataset_hits
from benchmark.services.construction import ProjectError, project_create, seeds_import
from benchmark.services.criteria import CriterionError, draft_criterion_add
from benchmark.services.draft_jobs import draft_run_queue
from benchmark.services.generation import model_resolve
from benchmark.services.llm_jobs import LLMJobConfigError
from benchmark.services.prune import PruneError, prune_plan, snapshot_prune
from benchmark.services.references import reference_run_execute, reference_run_start
from benchmark.services.rewrite import rewrite_run_execute, rewrite_run_start, rewrite_todo
from benchmark.services.snapshots import SnapshotError, project_publish, snapshot_create
from benchmark.services.synthesis import synthesis_run_execute, synthesis_run_start
from benchmark.taxonomy import ability_code
from config.cli_exits import EXIT_ERRORS, EXIT_INTERRUPTED, UsageError
from config.cli_types import comma_list, non_negative_float, positive_fraction, positive_int

MAX_FAILURES_SHOWN = 10


def _model_arguments(parser, *, required: bool, role: str) -> None:
    parser.add_argument(
        "--model",
        required=required,
        help=f"the {role} model's name (a model under test; created if new)",
    )
    parser.add_argument("--endpoint-model", help="the endpoint's model id (default: --model)")
    add_endpoint_arguments(parser)


def _interrupted(run) -> CommandError:
    """The one line for Ctrl-C: the run is stopped, what it stored stays, the same command
    resumes it."""
    run.refresh_from_db()
    return CommandError(
        f"interrupted: run {run.pk} stopped with {run.done} of {run.total} drafts stored; "
        "to resume it, run the same command again",
        returncode=EXIT_INTERRUPTED,
    )


class Command(BaseCommand):
    help = (
        "Build a benchmark: create a construction project, import seed scenarios as drafts, "
        "have an LLM rewrite their dialogues (kept beside the seeds' own)."
    )

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create-project", help="a new construction project")
        create.add_argument("name", help="the project's name")
        create.add_argument(
            "--dataset-name", required=True, help="the name its published dataset takes"
        )
        create.add_argument("--description", default="")
        seeds = sub.add_parser(
            "import-seeds",
            help="add seed scenarios (JSONL: id, dialogue, primary_scene, source, notes) as "
            "draft cases; any error names its line and nothing is written",
        )
        seeds.add_argument("path", type=Path, help="seed file (JSONL)")
        seeds.add_argument("--project", required=True, help="the project's name")
        seeds.add_argument(
            "--rewrite", action="store_true", help="then rewrite the drafts' dialogues (--model)"
        )
        _model_arguments(seeds, required=False, role="rewriting")
        rewrite = sub.add_parser(
            "rewrite", help="rewrite the dialogues of the drafts that have no rewrite yet"
        )
        rewrite.add_argument("--project", required=True, help="the project's name")
        _model_arguments(rewrite, required=True, role="rewriting")
        references = sub.add_parser(
            "references",
            help="reference models answer every draft they have not answered yet (the "
            "relative standard), one model after the other",
        )
        references.add_argument("--project", required=True, help="the project's name")
        references.add_argument(
            "--models", type=comma_list, required=True, help="A,B,... (models under test)"
        )
        add_endpoint_arguments(references)
        synthesize = sub.add_parser(
            "synthesize",
            help="an LLM drafts the criteria of every draft that has none, from its dialogue, "
            "the absolute standards and the reference answers",
        )
        synthesize.add_argument("--project", required=True, help="the project's name")
        synthesize.add_argument(
            "--limit", type=positive_int, help="only the first N drafts in the funnel"
        )
        _model_arguments(synthesize, required=True, role="synthesising")
        synthesize.add_argument(
            "--queue",
            action="store_true",
            help="hand the run to a worker (the generate queue) instead of running it here; the "
            "worker uses its own key and the model's stored limits",
        )
        criterion = sub.add_parser(
            "add-criterion", help="add a hand-written criterion to a draft's rubric"
        )
        criterion.add_argument("--project", required=True, help="the project's name")
        criterion.add_argument("--case", required=True, help="the draft's question id")
        criterion.add_argument(
            "--ability", required=True, help="an ability code or its Chinese name"
        )
        criterion.add_argument(
            "--points",
            type=int,
            help="a non-zero whole number; leave out for the catastrophic criterion",
        )
        criterion.add_argument("--text", required=True, help="the observation, met or not")
        criterion.add_argument("--author", required=True, help="the author's user name")
        snapshot = sub.add_parser(
            "snapshot",
            help="freeze the drafts in the funnel, their criteria and reference answers as a "
            "new version of the dataset '<dataset name>-draft', for judging",
        )
        snapshot.add_argument("--project", required=True, help="the project's name")
        prune = sub.add_parser(
            "prune",
            help="from a judged snapshot: remove the saturated criteria and too-easy drafts "
            "(with the reason), propose the hardest cases for the difficulty tier",
        )
        prune.add_argument("--project", required=True, help="the project's name")
        prune.add_argument("--dataset", required=True, help="the snapshot: NAME or NAME:vN")
        prune.add_argument(
            "--models", type=comma_list, help="A,B,... (default: every model the judge ran on)"
        )
        prune.add_argument("--judge", help="default: the judge covering the most models")
        prune.add_argument(
            "--easy-threshold",
            type=non_negative_float,
            default=DEFAULT_EASY_THRESHOLD,
            help=f"a draft is too easy above this mean score (default {DEFAULT_EASY_THRESHOLD:g})",
        )
        prune.add_argument(
            "--hard-quantile",
            type=positive_fraction,
            default=DEFAULT_HARD_QUANTILE,
            help=f"propose the cases at or under this quantile (default {DEFAULT_HARD_QUANTILE:g})",
        )
        prune.add_argument(
            "--dry-run", action="store_true", help="print what would be removed; write nothing"
        )
        publish = sub.add_parser(
            "publish",
            help="the accepted drafts become a new version of the project's dataset; refuses "
            "a draft whose criteria are not a whole rubric or without a difficulty decision",
        )
        publish.add_argument("--project", required=True, help="the project's name")
        publish.add_argument("--out", type=Path, help="also write it as upstream JSONL here")

    def handle(self, *args, **options):
        if options["action"] == "create-project":
            self._create(options)
            return
        try:
            project = project_get(name=options["project"])
        except ProjectNotFound as exc:
            raise UsageError(str(exc)) from exc
        quality = {"snapshot": self._snapshot, "prune": self._prune, "publish": self._publish}
        if options["action"] in quality:
            try:
                quality[options["action"]](project, options)
            except (SnapshotError, PruneError) as exc:
                raise UsageError(str(exc)) from exc
            return
        if options["action"] == "references":
            self._references(project, options)
            return
        if options["action"] == "synthesize":
            self._synthesize(project, options)
            return
        if options["action"] == "add-criterion":
            self._add_criterion(project, options)
            return
        if options["action"] == "import-seeds":
            if options["rewrite"] and not options["model"]:
                raise UsageError("--rewrite needs --model")
            try:
                result = seeds_import(project=project, path=options["path"])
            except ImportFailure as exc:
                raise UsageError(str(exc)) from exc
            total = project.drafts.count()
            self.stdout.write(
                f"{len(result.drafts):,} drafts added to {project} ({total:,} in all)"
            )
            if not options["rewrite"]:
                return
            self._rewrite(project, options, question_ids=[d.question_id for d in result.drafts])
            return
        self._rewrite(project, options)

    def _create(self, options):
        try:
            project = project_create(
                name=options["name"],
                dataset_name=options["dataset_name"],
                description=options["description"],
            )
        except ProjectError as exc:
            raise UsageError(str(exc)) from exc
        self.stdout.write(f"project {project} created; it will publish {project.dataset_name}")

    def _references(self, project, options):
        failed = []
        for name in options["models"]:
            model = model_resolve(name=name, base_url=options["base_url"])
            try:
                run = reference_run_start(project=project, model=model)
                outcome = reference_run_execute(
                    run=run, options=engine_options(options), on_progress=progress_writer(options)
                )
            except LLMJobConfigError as exc:
                raise UsageError(str(exc)) from None
            except KeyboardInterrupt:
                raise _interrupted(run) from None
            self.stdout.write("\n".join(summary_lines(f"{name}: reference run", outcome)))
            if outcome.stop_reason:
                finish(outcome, "drafts", budget=options["max_cost"])
            if outcome.run.errors:
                failed.append(f"{name} ({outcome.run.errors})")
        if failed:
            raise CommandError(
                f"drafts got no answer from {', '.join(failed)} (listed with the reason on "
                "each run); run the same command again to ask for them",
                returncode=EXIT_ERRORS,
            )

    def _rewrite(self, project, options, question_ids=()):
        model = model_resolve(
            name=options["model"],
            endpoint_model=options["endpoint_model"],
            base_url=options["base_url"],
        )
        if not rewrite_todo(project=project, sample_ids=",".join(question_ids)):
            self.stdout.write("nothing to rewrite: every draft asked for has a rewrite\n")
            return
        try:
            run = rewrite_run_start(project=project, model=model, question_ids=question_ids)
            outcome = rewrite_run_execute(
                run=run, options=engine_options(options), on_progress=progress_writer(options)
            )
        except LLMJobConfigError as exc:
            raise UsageError(str(exc)) from None
        except KeyboardInterrupt:
            raise _interrupted(run) from None
        self.stdout.write("\n".join(summary_lines("rewrite run", outcome)))
        if outcome.stop_reason:
            # The budget or another stop: how to continue.
            finish(outcome, "drafts", budget=options["max_cost"])
        if outcome.run.errors:
            raise CommandError(
                f"{outcome.run.errors} drafts got no usable rewrite (the reason is on each "
                f"draft); to ask again for them, run `heartbench construct rewrite --project "
                f"{project} --model {model}`",
                returncode=EXIT_ERRORS,
            )

    def _synthesize(self, project, options):
        model = model_resolve(
            name=options["model"],
            endpoint_model=options["endpoint_model"],
            base_url=options["base_url"],
        )
        if options["queue"]:
            run = synthesis_run_start(project=project, model=model, limit=options["limit"])
            draft_run_queue(run=run)
            self.stdout.write(f"synthesis run {run.pk} queued for a worker (the generate queue)")
            return
        try:
            run = synthesis_run_start(project=project, model=model, limit=options["limit"])
            outcome = synthesis_run_execute(
                run=run, options=engine_options(options), on_progress=progress_writer(options)
            )
        except LLMJobConfigError as exc:
            raise UsageError(str(exc)) from None
        except KeyboardInterrupt:
            raise _interrupted(run) from None
        self.stdout.write("\n".join(summary_lines("synthesis run", outcome)))
        drafted = outcome.run.criteria.count()
        self.stdout.write(f"  criteria drafted by this run: {drafted}")
        if outcome.stop_reason:
            finish(outcome, "drafts", budget=options["max_cost"])
        if outcome.run.errors:
            failures = outcome.run.failures
            names = draft_question_ids(draft_ids=[f["draft_id"] for f in failures])
            for failure in failures[:MAX_FAILURES_SHOWN]:
                self.stdout.write(f"  failed {names.get(failure['draft_id'])}: {failure['reason']}")
            raise CommandError(
                f"{outcome.run.errors} drafts got no usable rubric (listed with the reason on "
                f"run {outcome.run.pk}); to ask again for them, run the same command again",
                returncode=EXIT_ERRORS,
            )

    def _add_criterion(self, project, options):
        try:
            draft = draft_get(project=project, question_id=options["case"])
            author = user_get(username=options["author"])
            criterion = draft_criterion_add(
                draft=draft,
                ability=ability_code(options["ability"]) or options["ability"],
                points=options["points"],
                text=options["text"],
                author=author,
            )
        except (LookupError, CriterionError) as exc:
            raise UsageError(str(exc)) from None
        self.stdout.write(
            f"criterion {criterion.position} added to {draft} ({criterion.ability}, "
            f"{criterion.points if criterion.points is not None else 'null'} points), version 1"
        )

    def _snapshot(self, project, options):
        result = snapshot_create(project=project)
        dataset = result.snapshot.dataset
        if result.left_out:
            self.stdout.write(f"left out, no active criterion: {', '.join(result.left_out)}")
        if not result.created:
            self.stdout.write(f"nothing changed since snapshot {dataset}; judge that one")
            return
        self.stdout.write(
            f"snapshot {dataset}: {dataset.case_count:,} drafts, {dataset.criterion_count:,} "
            f"criteria, {result.responses:,} reference answers as responses; judge it with "
            f"`heartbench judge --dataset {dataset.name}:v{dataset.version}`"
        )

    def _prune(self, project, options):
        try:
            dataset = dataset_resolve(name=options["dataset"])
            snapshot = snapshot_of(project=project, dataset=dataset)
            found = dataset_hits(dataset=dataset, judge=options["judge"], models=options["models"])
            analysis = saturation_compute(
                question_ids=found.question_ids,
                layout=found.layout,
                hits=found.hits,
                easy_threshold=options["easy_threshold"],
                hard_quantile=options["hard_quantile"],
            )
        except (DatasetNotFound, SnapshotNotFound, LeaderboardError, SaturationError) as exc:
            raise UsageError(str(exc)) from exc
        if options["dry_run"]:
            plan = prune_plan(snapshot=snapshot, analysis=analysis, judge=found.judge)
        else:
            plan = snapshot_prune(snapshot=snapshot, analysis=analysis, judge=found.judge)
        verb = "would remove" if options["dry_run"] else "removed"
        lines = [f"{verb} {len(plan.criteria)} saturated criteria, {len(plan.drafts)} drafts"]
        lines += [f"  {c.draft.question_id} #{c.position}: {why}" for c, why in plan.criteria]
        lines += [f"  {d.question_id}: {why}" for d, why in plan.drafts]
        lines.append(f"proposed hard: {', '.join(plan.proposed_hard) or 'none'}")
        lines += [f"not acted on: {note}" for note in plan.skipped]
        lines += [
            f"left out (an error or no verdict): {qid} ({', '.join(models)})"
            for qid, models in analysis.excluded_cases
        ]
        if options["dry_run"]:
            lines.append("dry run: nothing written")
        self.stdout.write("\n".join(lines))

    def _publish(self, project, options):
        snapshot = project_publish(project=project, out=options["out"])
        dataset = snapshot.dataset
        self.stdout.write(
            f"published {dataset}: {dataset.case_count:,} cases, {dataset.criterion_count:,} "
            f"criteria (content {dataset.content_hash[:12]})"
            + (f"; written to {options['out']}" if options["out"] else "")
        )
