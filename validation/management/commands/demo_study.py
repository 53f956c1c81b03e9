"""`heartbench demo-study`: demo experts and an open demo study over the loaded demo data.

Idempotent: experts and the study are created only when missing, so a second run changes
nothing. The passwords are fixed, public demo passwords — never use them for real data.
"""

from django.core.management.base import BaseCommand

from annotation import services as annotation_services
from annotation.selectors import experts_by_username
from config.cli_exits import UsageError
from config.cli_types import non_negative_int, positive_fraction
from validation import selectors, services
from validation.adjudication import ALL
from validation.demo import DEMO_EXPERTS, DEMO_KNOWLEDGE, DEMO_PASSWORD, demo_split_seed

STUDY = "demo-study"


class Command(BaseCommand):
    help = "Create demo experts and open a demo study (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--fraction", type=positive_fraction, default=0.3)
        parser.add_argument("--seed", type=non_negative_int, default=2025)

    def handle(self, *args, fraction, seed, **options):
        created = []
        experts = []
        found = experts_by_username(usernames=[username for username, _, _ in DEMO_EXPERTS])
        for username, tier, specialties in DEMO_EXPERTS:
            expert = found.get(username)
            if expert is None:
                expert = annotation_services.expert_create(
                    username=username, password=DEMO_PASSWORD, tier=tier,
                    specialties=specialties, display_name=username, is_demo=True,
                )  # fmt: skip
                created.append(username)
            experts.append(expert)
        study = selectors.study_get(name=STUDY)
        if study is None:
            dataset = selectors.demo_dataset()
            if dataset is None:
                raise UsageError("no dataset with responses: run `heartbench load-demo` first")
            models = list(selectors.models_with_responses(dataset=dataset))
            runs = selectors.judge_runs_for(dataset=dataset, models=models).filter(
                status="finished"
            )
            try:
                study = services.study_create(
                    name=STUDY, dataset=dataset, models=models, judge_runs=list(runs),
                    fraction=fraction, seed=seed, experts=experts, adjudicate_splits=[ALL],
                )  # fmt: skip
            except services.StudyError as exc:
                raise UsageError(str(exc)) from exc
            created.append(f"study {STUDY}")
        if study.status == "draft":
            services.study_open(study=study)
            created.append(f"opened {STUDY}")
            # One unit split 2/1 by the demo raters waits in the senior queue.
            raters = [e for e in experts if not e.is_senior]
            if demo_split_seed(study=study, raters=raters) is not None:
                created.append("a split unit for demo-senior")
        # FAQ entries and a case-library entry (original demo text) for /faq/ and /library/.
        created += annotation_services.knowledge_demo_load(
            path=DEMO_KNOWLEDGE, dataset=study.dataset
        )
        self.stdout.write(
            f"{'created: ' + ', '.join(created) if created else 'nothing to do: all present'}\n"
            f"demo study {STUDY!r} is {study.pool.status} with {study.units.count()} units.\n"
            f"Demo logins (DEMO ONLY - public passwords, never use for real data):"
        )
        for username, tier, _ in DEMO_EXPERTS:
            self.stdout.write(f"  {username:15} {DEMO_PASSWORD}   ({tier})")
        self.stdout.write(
            "Experts log in at /login/ and rate at /rate/demo-study/; "
            "demo-senior adjudicates at /adjudicate/demo-study/.\n"
            "Before a real study: `heartbench demo-remove` deletes the demo data and logins."
        )
