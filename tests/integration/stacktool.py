"""Set up and inspect the integration suite's own database from a subprocess.

DATABASE_URL=... python -m tests.integration.stacktool user USERNAME PASSWORD
DATABASE_URL=... CELERY_BROKER_URL=... python -m tests.integration.stacktool queue \
    --model NAME --base-url URL
DATABASE_URL=... CELERY_BROKER_URL=... python -m tests.integration.stacktool generate \
    --model NAME --base-url URL --cases N
DATABASE_URL=... CELERY_BROKER_URL=... python -m tests.integration.stacktool synthesize \
    --model NAME --base-url URL --drafts N
DATABASE_URL=... python -m tests.integration.stacktool status RUN_ID [--generation|--synthesis]
DATABASE_URL=... python -m tests.integration.stacktool study NAME --cases N

`synthesize` creates a construction project of N drafts and queues their rubric synthesis.
`study` opens a study of N cases with one expert of its own and prints the expert's API token.

`queue` creates a judge, starts a run and queues it on the broker, as the admin's action does.
`generate` creates a model and N unanswered cases and queues their generation, as the admin's
form does.
"""

import argparse
import json
import os
import sys


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from benchmark.models import Dataset, JudgeRun, ModelUnderTest
    from benchmark.services.judging import judge_run_queue, judge_run_start
    from tests.builders.datasets import JudgeFactory

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="action", required=True)
    user = sub.add_parser("user")
    user.add_argument("username")
    user.add_argument("password")
    queue = sub.add_parser("queue")
    queue.add_argument("--model", required=True)
    queue.add_argument("--base-url", required=True)
    generate = sub.add_parser("generate")
    generate.add_argument("--model", required=True)
    generate.add_argument("--base-url", required=True)
    generate.add_argument("--cases", type=int, default=4)
    synthesize = sub.add_parser("synthesize")
    synthesize.add_argument("--model", required=True)
    synthesize.add_argument("--base-url", required=True)
    synthesize.add_argument("--drafts", type=int, default=3)
    status = sub.add_parser("status")
    status.add_argument("run_id", type=int)
    kind = status.add_mutually_exclusive_group()
    kind.add_argument("--generation", action="store_true")
    kind.add_argument("--synthesis", action="store_true")
    study = sub.add_parser("study")
    study.add_argument("name")
    study.add_argument("--cases", type=int, default=2)
    args = parser.parse_args(argv)

    if args.action == "user":
        get_user_model().objects.create_user(username=args.username, password=args.password)
    elif args.action == "queue":
        model = ModelUnderTest.objects.get(name=args.model)
        judge = JudgeFactory(
            name=f"judge-of-{args.model}",  # one a model: a second queue's sequence restarts
            base_url=args.base_url,
            prompt_template_version="heartbench-judge-zh-v1",
            parameters={"limits": {"concurrency": 1}},
        )
        dataset = Dataset.objects.filter(cases__responses__model=model).distinct().get()
        run, _ = judge_run_start(judge=judge, model=model, dataset=dataset)
        judge_run_queue(run_id=run.pk)
        print(run.pk)
    elif args.action == "generate":
        from benchmark.services.generation import generation_queue
        from tests.builders.datasets import DatasetFactory, ModelUnderTestFactory, case_with_rubric

        dataset = DatasetFactory(name=f"generate-{args.model}")  # its own: sequences restart
        for index in range(args.cases):
            case_with_rubric(dataset=dataset, dialogue=[{"role": "A", "content": f"第{index}个"}])
        model = ModelUnderTestFactory(name=args.model, base_url=args.base_url)
        run = generation_queue(model=model, dataset=dataset, options={"concurrency": 1})
        print(run.pk)
    elif args.action == "synthesize":
        from benchmark.models import DraftCase
        from benchmark.services.construction import project_create
        from benchmark.services.draft_jobs import draft_run_queue
        from benchmark.services.synthesis import synthesis_run_start
        from tests.builders.datasets import ModelUnderTestFactory

        project = project_create(name=f"synthesize-{args.model}", dataset_name="built")
        for index in range(args.drafts):
            turn = {"role": "A", "content": f"第{index}个来访者"}
            DraftCase.objects.create(
                project=project, question_id=f"d-{index}", position=index, dialogue=[turn]
            )
        model = ModelUnderTestFactory(name=args.model, base_url=args.base_url)
        run = synthesis_run_start(project=project, model=model)
        draft_run_queue(run=run)
        print(run.pk)
    elif args.action == "study":
        from rest_framework.authtoken.models import Token

        from tests.builders.accounts import ExpertFactory
        from tests.builders.datasets import DatasetFactory, ModelUnderTestFactory
        from tests.builders.studies import MODEL_NAME_MARKER, open_study

        # The factories number names from 0 in every process: past every name already there.
        taken = Dataset.objects.count() + ModelUnderTest.objects.count()
        for names in (DatasetFactory, ModelUnderTestFactory):
            names.reset_sequence(taken)
        expert = ExpertFactory(user__username=f"{args.name}-expert")
        open_study(cases=args.cases, experts=[expert], name=args.name)
        # Its models come with one fixed name each (the blindness tests' marker): renamed, so
        # that another study can be made on the same database.
        for model in ModelUnderTest.objects.filter(name__startswith=MODEL_NAME_MARKER):
            model.name = f"{args.name}-{model.name}"
            model.save(update_fields=["name"])
        print(Token.objects.create(user=expert.user).key)
    elif args.synthesis:
        from benchmark.models import SynthesisRun

        run = SynthesisRun.objects.get(pk=args.run_id)
        print(json.dumps({"status": run.status, "done": run.done, "total": run.total,
                          "errors": run.errors, "criteria": run.criteria.count()}))  # fmt: skip
    else:
        from benchmark.models import GenerationRun, Response
        from benchmark.services.generation import generation_run_queued_options

        runs = GenerationRun.objects if args.generation else JudgeRun.objects
        run = runs.get(pk=args.run_id)
        report = {"status": run.status, "stats": {"done": run.done, "total": run.total,
                                                  "errors": run.errors}}  # fmt: skip
        if not args.generation:
            report["held"] = sorted(chunk["worker"] for chunk in run.chunks_held.values())
        if args.generation:
            answers = Response.objects.filter(model=run.model, case__dataset=run.dataset)
            report["answers"] = answers.count()
            report["stats"]["options"] = generation_run_queued_options(run=run)
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
