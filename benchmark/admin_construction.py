"""Admin for building a benchmark: projects and their drafts (read only; the commands write
them), the absolute standards, written only through ``standard_write`` (a new version
with its author and reason, an audit row), never a plain model save, and a draft's criteria,
revised only through ``draft_criterion_revise`` (provenance and versions read only)."""

import json

from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from benchmark import models
from benchmark.admin import ReadOnlyAdmin
from benchmark.services.criteria import (
    CriterionError,
    draft_criterion_check,
    draft_criterion_revise,
)
from benchmark.services.standards import StandardError, standard_write


class DraftCaseInline(admin.TabularInline):
    model = models.DraftCase
    extra = 0
    fields = [
        "position",
        "question_id",
        "primary_scene",
        "source",
        "rewrite_model",
        "rewrite_error",
    ]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class ConstructionProjectAdmin(ReadOnlyAdmin):
    list_display = ["name", "dataset_name", "created_by", "created_at"]
    search_fields = ["name", "dataset_name"]
    inlines = [DraftCaseInline]


class DraftCriterionInline(admin.TabularInline):
    """A draft's criteria in rubric order; each links to its page, where it is revised."""

    model = models.DraftCriterion
    extra = 0
    fields = ["position", "ability", "points", "text", "status", "origin"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class DraftCaseAdmin(ReadOnlyAdmin):
    inlines = [DraftCriterionInline]
    list_display = ["question_id", "project", "position", "primary_scene", "rewrite_model"]
    list_filter = ["project"]
    search_fields = ["question_id", "primary_scene", "notes"]
    fields = ["project", "question_id", "position", "primary_scene", "source", "notes",
              "rewrite_model", "rewrite_error", "comparison"]  # fmt: skip
    readonly_fields = fields

    @admin.display(description=_("seed and rewrite"))
    def comparison(self, obj: models.DraftCase) -> str:
        """The seed's turns beside the rewrite's, for review (the rewrite has the same roles)."""
        rewrite = obj.rewrite or [{}] * len(obj.dialogue)
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((seed["role"], seed["content"], new.get("content", "—"))
             for seed, new in zip(obj.dialogue, rewrite, strict=True)),
        )  # fmt: skip
        return format_html(
            '<table class="draft-comparison"><thead><tr><th>{}</th><th>{}</th><th>{}</th></tr>'
            "</thead><tbody>{}</tbody></table>",
            gettext("role"),
            pgettext("dialogue", "seed"),
            gettext("rewrite"),
            rows,
        )


class DraftJobRunAdmin(ReadOnlyAdmin):
    """A rewrite or reference run: progress and spending, read only (the commands run them)."""

    list_display = ["id", "project", "model", "status", "done", "total", "errors", "cost",
                    "created_at"]  # fmt: skip
    list_filter = ["status", "project"]


class DraftResponseAdmin(ReadOnlyAdmin):
    list_display = ["draft", "model", "from_rewrite", "created_at"]
    list_filter = ["model", "draft__project"]
    list_select_related = ["draft", "model"]


class AbsoluteStandardForm(forms.ModelForm):
    text = forms.CharField(label=_("text"), widget=forms.Textarea(attrs={"rows": 12}))
    reason = forms.CharField(
        label=_("reason for the change"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required for a revision; kept in the standard's version history."),
    )

    class Meta:
        model = models.AbsoluteStandard
        fields = ["ability", "text"]

    def clean(self):
        data = super().clean()
        if self.errors or self.instance.pk is None:
            return data
        if data.get("text", "").strip() == self.instance.text:
            raise forms.ValidationError(gettext("Nothing changed: the text is the same."))
        if not data.get("reason", "").strip():
            self.add_error("reason", gettext("Give a reason for the change."))
        return data


class AbsoluteStandardVersionInline(admin.TabularInline):
    model = models.AbsoluteStandardVersion
    extra = 0
    fields = ["number", "author", "created_at", "reason", "text"]
    readonly_fields = fields
    can_delete = False
    ordering = ["-number"]

    def has_add_permission(self, request, obj=None):
        return False


class AbsoluteStandardAdmin(admin.ModelAdmin):
    form = AbsoluteStandardForm
    list_display = ["ability", "version", "updated_at"]
    inlines = [AbsoluteStandardVersionInline]

    def get_readonly_fields(self, request, obj=None):
        return ["ability", "version"] if obj else []

    def get_fields(self, request, obj=None):
        return ["ability", "version", "text", "reason"] if obj else ["ability", "text", "reason"]

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        """The first text or a new version through the service; only a concurrent revision
        that made this one a no-op can still be refused here."""
        data = form.cleaned_data
        try:
            version = standard_write(
                ability=obj.ability, text=data["text"], author=request.user, reason=data["reason"]
            )
        except StandardError as exc:
            messages.error(request, str(exc))
            return
        obj.pk = version.standard.pk


class AbsoluteStandardVersionAdmin(ReadOnlyAdmin):
    """Every version of every standard, newest first: read only."""

    list_display = ["standard", "number", "author", "reason", "created_at"]
    list_filter = ["standard__ability"]
    list_select_related = ["standard", "author"]
    ordering = ["-created_at", "-id"]

    def has_delete_permission(self, request, obj=None):
        return False


class DraftCriterionForm(forms.ModelForm):
    reason = forms.CharField(
        label=_("Reason for the change"),
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Kept in the criterion's version history."),
    )

    class Meta:
        model = models.DraftCriterion
        fields = ["ability", "points", "text"]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if not {"ability", "points", "text"} & set(self.changed_data):
            raise forms.ValidationError(
                gettext("Nothing changed: the text and points are the same.")
            )
        try:
            draft_criterion_check(
                ability=data["ability"], points=data.get("points"), text=data["text"]
            )
        except CriterionError as exc:
            raise forms.ValidationError(str(exc)) from exc
        return data


class DraftCriterionVersionInline(admin.StackedInline):
    """Stacked: a version's text stays readable on a phone's width."""

    model = models.DraftCriterionVersion
    extra = 0
    fields = ["number", "ability", "points", "text", "author", "reason", "created_at"]
    readonly_fields = fields
    can_delete = False
    ordering = ["-number"]

    def has_add_permission(self, request, obj=None):
        return False


class DraftCriterionAdmin(admin.ModelAdmin):
    """A criterion's text, points and ability, revised as a new version with a reason; where
    it came from (a synthesis run's reply, an expert) is shown, never edited."""

    form = DraftCriterionForm
    list_display = ["draft", "position", "ability", "points", "version", "status", "origin"]
    list_filter = ["origin", "status", "draft__project"]
    list_select_related = ["draft__project"]
    search_fields = ["text", "draft__question_id"]
    inlines = [DraftCriterionVersionInline]

    class Media:
        css = {"all": ["benchmark/draft-criteria.css"]}

    readonly_fields = ["draft", "position", "version", "status", "removed_stage",
                       "removed_reason", "origin", "author", "synthesis_run", "template_version",
                       "model_name", "reply", "created_at"]  # fmt: skip
    fieldsets = [
        (None, {"fields": ["draft", "position", "ability", "points", "text", "reason"]}),
        (_("State"), {"fields": ["version", "status", "removed_stage", "removed_reason"]}),
        (_("Provenance"), {"fields": ["origin", "author", "synthesis_run", "template_version",
                                      "model_name", "reply", "created_at"]}),
    ]  # fmt: skip

    @admin.display(description=_("raw reply"))
    def reply(self, obj: models.DraftCriterion) -> str:
        """The reply the criterion was read from, indented when it is JSON (it usually is)."""
        if not obj.raw_reply:
            return "—"
        try:
            shown = json.dumps(json.loads(obj.raw_reply), ensure_ascii=False, indent=2)
        except ValueError:
            shown = obj.raw_reply
        return format_html('<pre class="raw-reply">{}</pre>', shown)

    def has_add_permission(self, request, obj=None):
        return False  # `heartbench construct add-criterion` or a synthesis run adds them

    def has_delete_permission(self, request, obj=None):
        return False  # a removal names its stage and reason (the funnel's services)

    def has_change_permission(self, request, obj=None):
        removed = obj is not None and obj.status == models.DraftCriterion.Status.REMOVED
        return not removed and super().has_change_permission(request, obj)

    def save_model(self, request, obj, form, change):
        """A new version through the service, with the editor as its author."""
        data = form.cleaned_data
        try:
            draft_criterion_revise(
                criterion=obj, text=data["text"], points=data.get("points"),
                ability=data["ability"], author=request.user, reason=data["reason"],
            )  # fmt: skip
        except CriterionError as exc:  # nothing changed, or a concurrent removal
            messages.error(request, str(exc))
