from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BenchmarkConfig(AppConfig):
    name = "benchmark"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Benchmark")

    def ready(self) -> None:
        # The services queue runs through benchmark.services.dispatch without importing the
        # tasks (tasks call services, never the reverse): each run model's task is named here.
        from benchmark import tasks
        from benchmark.models import GenerationRun, JudgeRun, ReferenceRun, RewriteRun, SynthesisRun
        from benchmark.services.dispatch import run_task_register

        run_task_register(model_cls=JudgeRun, task=tasks.judge_run_task)
        run_task_register(model_cls=GenerationRun, task=tasks.generation_run_task)
        run_task_register(model_cls=RewriteRun, task=tasks.construction_rewrite_run_task)
        run_task_register(model_cls=ReferenceRun, task=tasks.construction_reference_run_task)
        run_task_register(model_cls=SynthesisRun, task=tasks.construction_synthesis_run_task)
