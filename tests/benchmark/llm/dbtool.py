"""Seed and inspect a separate database for tests that run the real CLI in a subprocess.

DATABASE_URL=... python -m tests.benchmark.llm.dbtool seed --cases N --model NAME
DATABASE_URL=... python -m tests.benchmark.llm.dbtool report --model NAME
DATABASE_URL=... python -m tests.benchmark.llm.dbtool runs --model NAME
DATABASE_URL=... python -m tests.benchmark.llm.dbtool forget-answers --model NAME
"""

import argparse
import json
import os
import sys


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db.models import Count

    from benchmark.models import GenerationRun, JudgeRun, Response, RubricItem, Verdict
    from tests.builders.llm import answered_dataset

    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["seed", "report", "runs", "forget-answers"])
    parser.add_argument("--model", required=True)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--dataset", help="the seeded dataset's name (a second seed needs one)")
    args = parser.parse_args(argv)
    if args.action == "seed":
        call_command("migrate", verbosity=0)
        answered_dataset(cases=args.cases, model_name=args.model, dataset_name=args.dataset)
        return 0
    if args.action == "forget-answers":
        Response.objects.filter(model__name=args.model).delete()
        return 0
    if args.action == "runs":
        runs = [
            *JudgeRun.objects.filter(model__name=args.model),
            *GenerationRun.objects.filter(model__name=args.model),
        ]
        fields = ("status", "stop_reason", "done", "total", "errors", "error", "calls")
        print(json.dumps([{name: getattr(run, name) for name in fields} for run in runs]))
        return 0
    verdicts = Verdict.objects.filter(run__model__name=args.model)
    report = {
        "runs": sorted(set(verdicts.values_list("run_id", flat=True))),
        "verdicts": verdicts.count(),
        "per_item_max": verdicts.values("rubric_item")
        .annotate(n=Count("id"))
        .order_by("-n")
        .values_list("n", flat=True)
        .first(),
        "states": {
            text: state for text, state in verdicts.values_list("rubric_item__text", "state")
        },
        "items": RubricItem.objects.filter(case__responses__model__name=args.model).count(),
    }
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
