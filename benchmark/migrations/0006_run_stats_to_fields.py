"""Copy what runs kept in their ``stats`` JSON into the fields that now hold it."""

from django.db import migrations

COUNTS = ("total", "done", "errors", "calls", "retries", "reasks", "cached", "tokens_in",
          "tokens_out", "parse_failures", "request_failures")  # fmt: skip
AMOUNTS = ("cost", "wall_seconds")
QUEUED = ("concurrency", "rpm", "tpm", "max_cost")


def _common(run, stats: dict) -> list[str]:
    for name in COUNTS:
        setattr(run, name, int(stats.get(name) or 0))
    for name in AMOUNTS:
        setattr(run, name, float(stats.get(name) or 0.0))
    run.template_version = str(stats.get("template_version") or "")[:100]
    run.stop_reason = str(stats.get("stop_reason") or "")[:50]
    run.error = str(stats.get("error") or "")[:500]
    run.waiting_for_broker = stats.get("dispatch") == "waiting_for_broker"
    return [*COUNTS, *AMOUNTS, "template_version", "stop_reason", "error", "waiting_for_broker"]


def forwards(apps, schema_editor):
    JudgeRun = apps.get_model("benchmark", "JudgeRun")
    GenerationRun = apps.get_model("benchmark", "GenerationRun")
    known = set(JudgeRun.objects.values_list("pk", flat=True))
    for run in JudgeRun.objects.exclude(stats={}).iterator():
        stats = run.stats
        if run.source != "engine":
            # An import's summary is all an imported run ever recorded.
            run.import_summary = stats
            run.save(update_fields=["import_summary"])
            continue
        fields = _common(run, stats)
        options = stats.get("options") or {}
        run.granularity = options.get("granularity") or stats.get("granularity") or "response"
        run.template = str(options.get("template") or "")[:500]
        retry_of = stats.get("retry_of")
        run.retry_of_id = retry_of if retry_of in known else None
        run.save(update_fields=[*fields, "granularity", "template", "retry_of"])
    for run in GenerationRun.objects.exclude(stats={}).iterator():
        stats = run.stats
        fields = _common(run, stats)
        options = stats.get("options") or {}
        for name in QUEUED:
            setattr(run, name, options.get(name))
        run.failures = stats.get("failures") or []
        run.save(update_fields=[*fields, *QUEUED, "failures"])


def backwards(apps, schema_editor):
    JudgeRun = apps.get_model("benchmark", "JudgeRun")
    GenerationRun = apps.get_model("benchmark", "GenerationRun")
    for model in (JudgeRun, GenerationRun):
        for run in model.objects.iterator():
            if getattr(run, "source", "engine") != "engine":
                run.stats = run.import_summary
                run.save(update_fields=["stats"])
                continue
            stats = {name: getattr(run, name) for name in (*COUNTS, *AMOUNTS)}
            stats["template_version"] = run.template_version
            for name in ("stop_reason", "error"):
                if getattr(run, name):
                    stats[name] = getattr(run, name)
            if run.waiting_for_broker:
                stats["dispatch"] = "waiting_for_broker"
            if model is JudgeRun:
                stats["options"] = {"granularity": run.granularity}
                if run.template:
                    stats["options"]["template"] = run.template
                if run.retry_of_id:
                    stats["retry_of"] = run.retry_of_id
            else:
                stats["options"] = {
                    name: getattr(run, name) for name in QUEUED if getattr(run, name) is not None
                }
                if run.failures:
                    stats["failures"] = run.failures
            run.stats = stats
            run.save(update_fields=["stats"])


class Migration(migrations.Migration):
    dependencies = [
        ("benchmark", "0005_llm_run_fields"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
