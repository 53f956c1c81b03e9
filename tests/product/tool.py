"""The product suite's hands on the server's database, run as a subprocess beside the server.

    python -m tests.product.tool experts --experts 20 --seniors 1 --password P
    python -m tests.product.tool check STUDY < acknowledged.json

``experts`` creates the team through the annotation service (what ``heartbench expert add``
does, in one process instead of 21). ``check`` reads back what the served product stored and
prints the broken invariants as JSON (see ``tests.product.invariants``).
"""

import argparse
import json
import os
import sys


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="action", required=True)
    experts = sub.add_parser("experts")
    experts.add_argument("--experts", type=int, required=True)
    experts.add_argument("--seniors", type=int, default=1)
    experts.add_argument("--password", required=True)
    check = sub.add_parser("check")
    check.add_argument("study")
    args = parser.parse_args(argv)

    if args.action == "experts":
        from annotation.models import Expert
        from annotation.services import expert_create

        team = [(f"expert-{i:02d}", Expert.Tier.EXPERT) for i in range(args.experts)]
        team += [(f"senior-{i:02d}", Expert.Tier.SENIOR) for i in range(args.seniors)]
        for username, tier in team:
            expert_create(
                username=username, password=args.password, tier=tier, display_name=username
            )
    else:
        from tests.product.invariants import study_problems

        acknowledged = json.load(sys.stdin)
        print(json.dumps(study_problems(name=args.study, **acknowledged), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
