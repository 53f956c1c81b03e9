from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BenchmarkConfig(AppConfig):
    name = "benchmark"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Benchmark")

    def ready(self) -> None:
        # The services queue runs through benchmark.services.dispatch without importing the
        # tasks (tasks call services, never the reverse): each run model's task is named here.
        # Named, not imported: the tasks (and Celery) load on the first run queued.
        from benchmark.models import GenerationRun, JudgeRun, ReferenceRun, RewriteRun, SynthesisRun
        from benchmark.services.dispatch import run_task_register
        from config.lazy_import import Lazy

        for model_cls, task in (
            (JudgeRun, "judge_run_task"),
            (GenerationRun, "generation_run_task"),
            (RewriteRun, "construction_rewrite_run_task"),
            (ReferenceRun, "construction_reference_run_task"),
            (SynthesisRun, "construction_synthesis_run_task"),
        ):
            run_task_register(model_cls=model_cls, task=Lazy(f"benchmark.tasks.{task}"))
