"""`heartbench judge-ensemble create NAME (--members J1,J2,... | --repeats-of J)
(--dataset NAME[:vN] | --study STUDY)`: a judge that is the majority of others."""

from django.core.management.base import BaseCommand

from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve
from benchmark.services.ensemble import EnsembleError
from config.cli_exits import UsageError
from config.cli_types import comma_list
from validation import selectors
from validation.services.ensemble import judge_ensemble_create, study_judge_runs_add


class Command(BaseCommand):
    help = (
        "Declare an ensemble judge: per criterion, the majority of several judges' verdicts or "
        "of one judge's repeats (errors do not vote; a tie is an error verdict). It is stored "
        "as a judge with finished runs, so leaderboards, studies and reports read it like any."
    )

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="store the ensemble's runs from its members'")
        create.add_argument("name")
        voters = create.add_mutually_exclusive_group(required=True)
        voters.add_argument("--members", type=comma_list, help="judge names: J1,J2,J3")
        voters.add_argument("--repeats-of", help="a judge run with judge --repeats N")
        where = create.add_mutually_exclusive_group(required=True)
        where.add_argument("--dataset", help="NAME or NAME:vN")
        where.add_argument(
            "--study", help="the study's dataset; the study then validates the ensemble too"
        )

    def handle(self, *args, **options):
        study = None
        try:
            if options["study"]:
                study = selectors.study_get(name=options["study"])
                if study is None:
                    raise UsageError(f"no study named {options['study']!r}")
                dataset = study.dataset
            else:
                dataset = dataset_resolve(name=options["dataset"])
            runs = judge_ensemble_create(
                name=options["name"],
                dataset=dataset,
                members=options["members"],
                repeats_of=options["repeats_of"],
            )
        except (DatasetNotFound, EnsembleError) as exc:
            raise UsageError(str(exc)) from None
        if study is not None:
            study_judge_runs_add(study=study, runs=runs)
        for run in runs:
            self.stdout.write(
                f"run {run.pk}: ensemble {options['name']} on {run.model.name}: "
                f"{run.done} verdicts, {run.errors} errors (ties or no vote)"
            )
        if study is not None:
            self.stdout.write(f"study {study.name} now validates {options['name']} too")
