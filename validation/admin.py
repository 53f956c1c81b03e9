from django import forms
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy
from django.utils.translation import gettext_lazy as _

from annotation import selectors as annotation_selectors
from annotation.models import Pool
from benchmark.admin import StoredValueAdmin
from validation import closing, services
from validation.adjudication import UnknownAbility, splits_parse
from validation.gate import GateConfig
from validation.models import GATE_FIELDS, GoldLabel, PairwiseGold, StoredFigures, Study, StudyUnit
from validation.report.html import STUDY_STATUS


class StudyForm(forms.ModelForm):
    # The JSON list edited as comma-separated text; unknown codes are refused by name.
    adjudicate_splits = forms.CharField(
        required=False,
        label=gettext_lazy("adjudicate 2/1 splits on"),
        help_text=gettext_lazy(
            "Ability codes (e.g. catastrophic, warmth) whose 2/1 splits a senior expert "
            'decides, or "*" for every criterion; empty for none. Only while the study '
            "is a draft."
        ),
    )

    class Meta:
        model = Study
        fields = ["adjudicate_splits", *GATE_FIELDS.values()]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["adjudicate_splits"] = ", ".join(self.instance.adjudicate_splits)

    def clean_adjudicate_splits(self) -> list[str]:
        try:
            return splits_parse(self.cleaned_data.get("adjudicate_splits") or "")
        except UnknownAbility as exc:
            raise forms.ValidationError(str(exc)) from exc


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    form = StudyForm
    list_display = ["name", "status", "dataset", "fraction", "seed", "created_at", "closed_at",
                    "report"]  # fmt: skip
    readonly_fields = ["name", "pool", "dataset", "models_under_test", "judge_runs", "fraction",
                       "stratify_by", "seed", "sampling", "created_by", "created_at",
                       "opened_at", "closed_at"]  # fmt: skip
    actions = ["open_studies", "close_studies", "close_studies_dropping_unrated"]

    def has_add_permission(self, request, obj=None):
        # Creating draws the sample: use `heartbench study create` (one code path).
        return False

    def get_deleted_objects(self, objs, request):
        # A study's pool goes with it (left behind it would keep listing a study that no
        # longer exists); a study with expert work is not deleted at all (study_delete).
        to_delete, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        pools = 0
        for study in objs:
            submitted = annotation_selectors.pool_submissions_count(pool=study.pool)
            if submitted:
                protected.append(
                    services.study_delete_refusal(name=study.name, submissions=submitted)
                )
            else:
                to_delete.append(f"{capfirst(Pool._meta.verbose_name)}: {study.pool}")
                pools += 1
        if pools:
            counts[Pool._meta.verbose_name_plural] = pools
        return to_delete, counts, perms_needed, protected

    def delete_model(self, request, obj):
        services.study_delete(study=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        for study in queryset:
            services.study_delete(study=study, actor=request.user)

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.pool.status != "draft":
            # Every unit of a study under one rule; the gate fixed before any label is seen.
            fields += ["adjudicate_splits", *GATE_FIELDS.values()]
        return fields

    def save_model(self, request, obj, form, change):
        # Both choices go through their services (draft check, audit row); nothing else of a
        # study is editable here.
        if "adjudicate_splits" in form.changed_data:
            services.study_set_adjudicate_splits(
                study=obj, codes=obj.adjudicate_splits, actor=request.user
            )
        if set(GATE_FIELDS.values()) & set(form.changed_data):
            services.study_set_gate(
                study=obj, gate=GateConfig.from_mapping(obj.gate_config), actor=request.user
            )
        obj.refresh_from_db()

    @admin.display(description=_("status"))
    def status(self, obj):
        return STUDY_STATUS.get(obj.pool.status, obj.pool.status)

    @admin.display(description=_("report"))
    def report(self, obj):
        url = reverse("validation:study-report", args=[obj.name])
        return format_html('<a href="{}">{}</a>', url, _("agreement report"))

    def _run(self, request, queryset, service, done):
        for study in queryset:
            try:
                service(study=study, actor=request.user)
            except Exception as exc:  # shown to the admin, nothing half-written
                self.message_user(request, f"{study}: {exc}", messages.ERROR)
            else:
                self.message_user(request, done % {"study": study})

    @admin.action(description=_("Open the selected studies"))
    def open_studies(self, request, queryset):
        self._run(request, queryset, services.study_open, _("%(study)s opened"))

    @admin.action(description=_("Close the selected studies (short units go to adjudication)"))
    def close_studies(self, request, queryset):
        self._close(request, queryset, unrated=closing.SENIOR)

    @admin.action(
        description=_(
            "Close the selected studies (never rated units dropped from the sample, partly "
            "rated ones to adjudication)"
        )
    )
    def close_studies_dropping_unrated(self, request, queryset):
        self._close(request, queryset, unrated=closing.DROP)

    def _close(self, request, queryset, *, unrated: str) -> None:
        # The command line's close (validation.services.study_close), with its counts.
        for study in queryset:
            try:
                result = services.study_close(
                    study=study, actor=request.user, partial=closing.SENIOR, unrated=unrated
                )
            except Exception as exc:  # shown to the admin, nothing half-written
                self.message_user(request, f"{study}: {exc}", messages.ERROR)
                continue
            self.message_user(request, closing.closed_message(study=study, result=result))


@admin.register(StudyUnit)
class StudyUnitAdmin(admin.ModelAdmin):
    list_display = ["study", "case", "model", "stratum", "state"]
    list_filter = ["study", "state"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(GoldLabel)
class GoldLabelAdmin(StudyUnitAdmin):
    list_display = ["study_unit", "rubric_item", "hit", "provenance"]
    list_filter = ["provenance", "study_unit__study"]


@admin.register(PairwiseGold)
class PairwiseGoldAdmin(StudyUnitAdmin):
    list_display = ["study_unit", "winner", "provenance"]
    list_filter = ["provenance", "study_unit__study"]


admin.site.register(StoredFigures, StoredValueAdmin)
