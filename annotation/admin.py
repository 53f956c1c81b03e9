from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.utils.translation import gettext_lazy as _

from annotation import services
from annotation.models import (
    Assignment,
    CalibrationAttempt,
    CalibrationSet,
    Certificate,
    CertificationBar,
    Comment,
    Expert,
    FaqEntry,
    Label,
    LibraryEntry,
    MockScore,
    PairwiseChoice,
    PayEntry,
    PayRate,
    PeerAgreement,
    Pool,
    ReviewFlag,
    Submission,
    SubmissionVersion,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Submitted work is append-only: visible to admins, never edited by hand."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Expert)
class ExpertAdmin(admin.ModelAdmin):
    list_display = ["user", "display_name", "tier", "is_active", "daily_capacity", "pseudonym"]
    list_filter = ["tier", "is_active"]
    search_fields = ["user__username", "display_name", "pseudonym"]
    autocomplete_fields = ["user"]
    readonly_fields = ["pseudonym"]


@admin.register(Pool)
class PoolAdmin(admin.ModelAdmin):
    list_display = ["name", "status", "raters_per_unit", "lease_seconds", "show_ability",
                    "calibration", "min_quality", "hard_min_quality"]  # fmt: skip
    # The quality policy is audited: set it with `heartbench calibration require`.
    readonly_fields = ["name", "status", "raters_per_unit", "calibration", "min_quality",
                       "hard_min_quality"]  # fmt: skip
    filter_horizontal = ["experts"]
    search_fields = ["name"]


class ReassignForm(ActionForm):
    to_expert = forms.ModelChoiceField(
        queryset=Expert.objects.filter(is_active=True), required=False, label=_("to expert")
    )


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = ["public_id", "pool", "unit", "expert", "kind", "slot", "status",
                    "lease_expires_at", "submitted_at"]  # fmt: skip
    list_filter = ["pool", "status", "kind"]
    search_fields = ["public_id", "unit__token", "expert__user__username"]
    action_form = ReassignForm
    actions = ["reassign"]

    @admin.action(description=_("Reassign the selected open units to the chosen expert"))
    def reassign(self, request, queryset):
        target = ReassignForm(request.POST).data.get("to_expert")
        expert = Expert.objects.filter(pk=target).first() if target else None
        if expert is None:
            self.message_user(request, _("Choose the expert to reassign to."), messages.ERROR)
            return
        for assignment in queryset:
            try:
                services.assignment_reassign(
                    assignment=assignment, to_expert=expert, actor=request.user
                )
            except services.AnnotationError as exc:
                self.message_user(request, f"{assignment}: {exc}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    _("%(unit)s reassigned to %(expert)s")
                    % {"unit": assignment.unit, "expert": expert},
                )


class LabelInline(admin.TabularInline):
    model = Label
    fields = ["rubric_item", "hit", "note"]
    readonly_fields = fields
    can_delete = False
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False


class PairwiseChoiceInline(LabelInline):
    model = PairwiseChoice
    fields = ["winner", "first_shown", "reason"]
    readonly_fields = fields


class SubmissionVersionInline(admin.TabularInline):
    model = SubmissionVersion
    fields = ["version", "submitted_at", "active_seconds", "labels"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = ["unit", "expert", "kind", "slot", "version", "submitted_at", "active_seconds"]
    list_filter = ["kind", "unit__pool"]
    inlines = [LabelInline, PairwiseChoiceInline, SubmissionVersionInline]


@admin.register(ReviewFlag)
class ReviewFlagAdmin(ReadOnlyAdmin):
    """Raters' flags on settled units and the seniors' answers (answered in the senior queue)."""

    list_display = ["submission", "status", "created_at", "resolved_by", "resolved_at"]
    list_filter = ["status", "submission__unit__pool"]
    list_select_related = ["submission__unit", "submission__expert__user", "resolved_by__user"]
    search_fields = ["reason", "answer", "submission__unit__token"]


@admin.register(PeerAgreement)
class PeerAgreementAdmin(ReadOnlyAdmin):
    """Recorded as each unit completes; the dashboard sums these rows."""

    list_display = ["submission", "pool", "expert", "agreed", "compared"]
    list_filter = ["pool"]
    list_select_related = ["submission__unit", "submission__expert__user", "pool", "expert__user"]


@admin.register(MockScore)
class MockScoreAdmin(ReadOnlyAdmin):
    """A rubric author's self-validation labels, written on the self-check pages."""

    list_display = ["criterion", "criterion_version", "response", "author", "met", "submitted_at"]
    list_filter = ["met"]
    list_select_related = ["criterion__draft__project", "response__model", "author"]


@admin.register(CalibrationSet)
class CalibrationSetAdmin(ReadOnlyAdmin):
    list_display = ["pool", "pass_threshold", "reference_by", "created_at"]


@admin.register(CalibrationAttempt)
class CalibrationAttemptAdmin(ReadOnlyAdmin):
    list_display = ["expert", "calibration_set", "reason", "started_at", "finished_at",
                    "agreement", "passed"]  # fmt: skip
    list_filter = ["calibration_set", "passed", "reason"]
    search_fields = ["expert__user__username", "expert__pseudonym"]


@admin.register(CertificationBar)
class CertificationBarAdmin(admin.ModelAdmin):
    list_display = ["name", "min_quality", "min_units", "calibration", "is_active"]


@admin.register(Certificate)
class CertificateAdmin(ReadOnlyAdmin):
    list_display = ["serial", "expert", "bar", "quality", "units", "issued_at"]
    search_fields = ["serial", "expert__user__username"]


@admin.register(PayRate)
class PayRateAdmin(ReadOnlyAdmin):
    """Rates are audited: set them with `heartbench pay rate`."""

    list_display = ["pool", "tier", "amount", "currency", "updated_at"]


@admin.register(PayEntry)
class PayEntryAdmin(ReadOnlyAdmin):
    """The ledger is append-only; a correction is a new entry (``pay_correct``)."""

    list_display = ["created_at", "expert", "pool", "kind", "amount", "currency", "reason"]
    list_filter = ["kind", "pool", "currency"]
    search_fields = ["expert__user__username", "expert__pseudonym"]


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    """Moderation: a comment is hidden (audited), never edited or deleted by hand."""

    list_display = ["created_at", "case", "rubric_item", "author", "short_body", "is_hidden"]
    list_filter = ["is_hidden"]
    search_fields = ["body", "author__username", "case__question_id"]
    readonly_fields = ["case", "rubric_item", "author", "body", "is_hidden", "created_at"]
    actions = ["hide", "unhide"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("comment"))
    def short_body(self, obj: Comment) -> str:
        return obj.body if len(obj.body) <= 80 else obj.body[:79] + "…"

    @admin.action(description=_("Hide the selected comments from experts"))
    def hide(self, request, queryset):
        for comment in queryset:
            services.comment_set_hidden(comment=comment, hidden=True, actor=request.user)
        self.message_user(request, _("Comments hidden."))

    @admin.action(description=_("Show the selected comments again"))
    def unhide(self, request, queryset):
        for comment in queryset:
            services.comment_set_hidden(comment=comment, hidden=False, actor=request.user)
        self.message_user(request, _("Comments shown again."))


class FaqEntryForm(forms.ModelForm):
    """Tags typed as a comma-separated line (either comma, ``,`` or ``，``) instead of JSON."""

    tags = forms.CharField(
        label=_("tags"),
        required=False,
        help_text=_("Separate tags with commas, e.g. 租约, workbench"),
    )

    class Meta:
        model = FaqEntry
        fields = ["question", "answer", "language", "tags", "is_published"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["tags"] = ", ".join(map(str, self.instance.tags or []))

    def clean_tags(self) -> list[str]:
        raw = self.cleaned_data.get("tags") or ""
        return [t.strip() for t in raw.replace("，", ",").split(",") if t.strip()]


@admin.register(FaqEntry)
class FaqEntryAdmin(admin.ModelAdmin):
    form = FaqEntryForm
    list_display = ["question", "language", "is_published", "updated_at"]
    list_filter = ["language", "is_published"]
    search_fields = ["question", "answer"]

    def save_model(self, request, obj, form, change):
        if obj.created_by_id is None:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(LibraryEntry)
class LibraryEntryAdmin(admin.ModelAdmin):
    list_display = ["title", "response", "is_published", "curated_by", "created_at"]
    list_filter = ["is_published"]
    search_fields = ["title", "note", "response__case__question_id"]
    autocomplete_fields = ["response"]
    fields = ["response", "title", "note", "is_published"]

    def save_model(self, request, obj, form, change):
        if obj.curated_by_id is None:
            obj.curated_by = request.user
        super().save_model(request, obj, form, change)


# The construction tiers' work, tasks and answers (read-only): annotation/admin_construction.py.
import annotation.admin_construction  # noqa: E402, F401
