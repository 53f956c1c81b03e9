from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from benchmark import models


class ReadOnlyAdmin(admin.ModelAdmin):
    """History that other records point at: visible, never edited by hand."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RubricItemInline(admin.TabularInline):
    model = models.RubricItem
    extra = 0
    fields = ["position", "ability", "points", "text"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(models.Dataset)
class DatasetAdmin(ReadOnlyAdmin):
    list_display = ["name", "version", "is_demo", "case_count", "criterion_count", "created_at",
                    "leaderboard"]  # fmt: skip
    list_filter = ["is_demo"]
    search_fields = ["name", "content_hash"]

    @admin.display(description=_("leaderboard"))
    def leaderboard(self, obj):
        url = reverse("benchmark:leaderboard") + f"?dataset={obj.name}:v{obj.version}"
        return format_html('<a href="{}">{}</a>', url, _("leaderboard"))


@admin.register(models.Case)
class CaseAdmin(ReadOnlyAdmin):
    list_display = ["question_id", "dataset", "difficulty", "primary_scene", "secondary_scene"]
    list_filter = ["dataset", "difficulty", "primary_scene"]
    search_fields = ["question_id", "primary_scene", "secondary_scene"]
    inlines = [RubricItemInline]


# Criteria are edited only as new versions through the service: benchmark/admin_rubric.py.
from benchmark.admin_rubric import RubricItemAdmin, RubricItemVersionAdmin  # noqa: E402

admin.site.register(models.RubricItem, RubricItemAdmin)
admin.site.register(models.RubricItemVersion, RubricItemVersionAdmin)


@admin.register(models.ModelUnderTest)
class ModelUnderTestAdmin(admin.ModelAdmin):
    list_display = ["name", "endpoint_model", "base_url", "is_demo", "created_at"]
    search_fields = ["name", "endpoint_model"]


@admin.register(models.Response)
class ResponseAdmin(ReadOnlyAdmin):
    list_display = ["model", "case", "source", "created_at"]
    list_filter = ["model", "source"]
    search_fields = ["case__question_id", "text"]


@admin.register(models.Judge)
class JudgeAdmin(admin.ModelAdmin):
    list_display = ["name", "model", "prompt_template_version", "base_url", "created_at"]
    search_fields = ["name", "model"]


@admin.register(models.JudgeRun)
class JudgeRunAdmin(ReadOnlyAdmin):
    list_display = ["id", "judge", "model", "dataset", "status", "source", "created_at"]
    list_filter = ["status", "source", "judge", "model"]


@admin.register(models.Verdict)
class VerdictAdmin(ReadOnlyAdmin):
    list_display = ["run", "rubric_item", "state", "created_at"]
    list_filter = ["state", "run__judge"]


@admin.register(models.AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "actor", "action", "object_type", "object_id"]
    list_filter = ["action", "object_type"]
    search_fields = ["object_id", "action"]

    def has_delete_permission(self, request, obj=None):
        return False


# ---- judge engine: start runs on the task queue, watch their progress -------------------

from django.contrib import messages as admin_messages  # noqa: E402

from benchmark.selectors.runs import run_progress_text  # noqa: E402
from benchmark.services.judging import judge_queue_all, judge_run_queue  # noqa: E402
from benchmark.services.llm_jobs import LLMJobConfigError  # noqa: E402


class JudgeRunEngineAdmin(JudgeRunAdmin):
    list_display = [*JudgeRunAdmin.list_display, "progress"]
    readonly_fields = ["progress"]
    actions = ["queue_runs"]

    @admin.display(description=_("progress"))
    def progress(self, obj: models.JudgeRun) -> str:
        return run_progress_text(run=obj)

    @admin.action(description=_("Judge on the task queue (start or continue)"))
    def queue_runs(self, request, queryset):
        runs = queryset.exclude(status=models.JudgeRun.Status.FINISHED)
        for run in runs:
            judge_run_queue(run_id=run.pk)
        count = runs.count()
        self.message_user(
            request,
            ngettext("%(count)d run queued", "%(count)d runs queued", count) % {"count": count},
        )


class JudgeEngineAdmin(JudgeAdmin):
    actions = ["queue_all"]

    @admin.action(description=_("Judge every model's unjudged responses on the task queue"))
    def queue_all(self, request, queryset):
        for judge in queryset:
            try:
                queued = judge_queue_all(judge=judge)
            except LLMJobConfigError as exc:
                self.message_user(request, str(exc), level=admin_messages.ERROR)
                continue
            self.message_user(
                request,
                ngettext(
                    "%(judge)s: %(count)d run queued",
                    "%(judge)s: %(count)d runs queued",
                    len(queued),
                )
                % {"judge": judge, "count": len(queued)},
            )


admin.site.unregister(models.JudgeRun)
admin.site.register(models.JudgeRun, JudgeRunEngineAdmin)
admin.site.unregister(models.Judge)
admin.site.register(models.Judge, JudgeEngineAdmin)
admin.site.register(models.LLMCacheEntry, ReadOnlyAdmin)


class StoredValueAdmin(ReadOnlyAdmin):
    """Figures kept as data (``benchmark.stored_rows``): listed to see what is kept, never
    written by hand (a row is computed; deleting one only has it computed again)."""

    list_display = ["key", "kind", "created_at"]
    search_fields = ["key", "kind"]


admin.site.register(models.StoredBoard, StoredValueAdmin)


# ---- generation: queue a model's answers from the admin, watch the runs' progress ---------

from django import forms  # noqa: E402
from django.http import HttpResponseRedirect  # noqa: E402

from benchmark.llm.accounting import TALLY_FIELDS  # noqa: E402
from benchmark.services.generation import (  # noqa: E402
    MODES,
    QUEUE_OPTIONS,
    generation_queue,
    generation_queue_check,
    generation_run_queued_options,
)


class GenerationQueueForm(forms.ModelForm):
    """What to generate and how hard to push the endpoint; the API key stays the worker's."""

    mode = forms.ChoiceField(
        label=_("cases"),
        choices=[("all", _("all")), ("normal", _("normal")), ("hard", _("hard"))],
        initial=MODES[0],
    )
    concurrency = forms.IntegerField(
        label=_("concurrent requests"), min_value=1, max_value=256, required=False,
        help_text=_("Empty: the model's own limit, else 16."),
    )  # fmt: skip
    rpm = forms.FloatField(label=_("requests per minute"), min_value=0.1, required=False)
    tpm = forms.FloatField(label=_("tokens per minute"), min_value=1, required=False)
    max_cost = forms.FloatField(
        label=_("budget (USD)"), min_value=0, required=False,
        help_text=_("The run stops when it has spent this much; needs a known price."),
    )  # fmt: skip

    class Meta:
        model = models.GenerationRun
        fields = ["model", "dataset", "mode"]

    def options(self) -> dict:
        return {key: self.cleaned_data.get(key) for key in QUEUE_OPTIONS}

    def clean(self):
        cleaned = super().clean()
        model = cleaned.get("model")
        if model is not None:
            try:
                generation_queue_check(model=model, options=self.options())
            except LLMJobConfigError as exc:
                raise forms.ValidationError(str(exc)) from exc
        return cleaned


class GenerationRunAdmin(ReadOnlyAdmin):
    """Adding a generation run queues it (or continues the unfinished one for the same model,
    dataset and cases); runs themselves are history and are not edited."""

    list_display = ["id", "model", "dataset", "mode", "status", "progress", "created_at",
                    "finished_at"]  # fmt: skip
    list_filter = ["status", "mode", "model"]
    actions = ["queue_runs"]
    add_fields = ["model", "dataset", "mode", *QUEUE_OPTIONS]
    view_fields = ["model", "dataset", "mode", *models.LLMRun.OPTION_FIELDS, "status", "progress",
                   *QUEUE_OPTIONS,
                   "total", "done", "errors", *TALLY_FIELDS, "template_version", "stop_reason",
                   "error", "failures", "waiting_for_broker", "created_at",
                   "finished_at"]  # fmt: skip

    def has_add_permission(self, request, obj=None):
        return admin.ModelAdmin.has_add_permission(self, request)

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = GenerationQueueForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        return self.add_fields if obj is None else self.view_fields

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.view_fields

    @admin.display(description=_("progress"))
    def progress(self, obj: models.GenerationRun) -> str:
        return run_progress_text(run=obj)

    def save_model(self, request, obj, form, change):
        if change:
            return
        run = generation_queue(
            model=obj.model, dataset=obj.dataset, mode=obj.mode, options=form.options()
        )
        # The admin goes on with the run the service chose (possibly an unfinished one).
        obj.pk = run.pk
        obj.refresh_from_db()

    def response_add(self, request, obj, post_url_continue=None):
        self.message_user(
            request, _("Generation run %(id)s queued: %(run)s") % {"id": obj.pk, "run": obj}
        )
        return HttpResponseRedirect(reverse("admin:benchmark_generationrun_changelist"))

    @admin.action(description=_("Generate on the task queue (continue, or retry failed cases)"))
    def queue_runs(self, request, queryset):
        queued = 0
        for run in queryset.select_related("model", "dataset"):
            clean = run.status == models.GenerationRun.Status.FINISHED and not run.errors
            if clean:
                continue  # every case answered: nothing to ask for
            try:
                generation_queue(
                    model=run.model,
                    dataset=run.dataset,
                    mode=run.mode,
                    options=generation_run_queued_options(run=run),
                )
            except LLMJobConfigError as exc:
                self.message_user(request, str(exc), level=admin_messages.ERROR)
                continue
            queued += 1
        self.message_user(
            request,
            ngettext("%(count)d generation run queued", "%(count)d generation runs queued", queued)
            % {"count": queued},
        )


admin.site.register(models.GenerationRun, GenerationRunAdmin)


# Building a benchmark: projects and drafts read only, standards through their service.
from benchmark.admin_construction import (  # noqa: E402
    AbsoluteStandardAdmin,
    AbsoluteStandardVersionAdmin,
    ConstructionProjectAdmin,
    DraftCaseAdmin,
    DraftCriterionAdmin,
    DraftJobRunAdmin,
    DraftResponseAdmin,
)

admin.site.register(models.ConstructionProject, ConstructionProjectAdmin)
admin.site.register(models.DraftCase, DraftCaseAdmin)
admin.site.register(models.RewriteRun, DraftJobRunAdmin)
admin.site.register(models.ReferenceRun, DraftJobRunAdmin)
admin.site.register(models.SynthesisRun, DraftJobRunAdmin)
admin.site.register(models.DraftCriterion, DraftCriterionAdmin)
admin.site.register(models.DraftResponse, DraftResponseAdmin)
admin.site.register(models.AbsoluteStandard, AbsoluteStandardAdmin)
admin.site.register(models.AbsoluteStandardVersion, AbsoluteStandardVersionAdmin)
