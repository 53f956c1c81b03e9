"""The construction tiers in the admin: work settings are opened by `heartbench
construct-tasks` and shown here; tasks and their answers are read-only, like submissions."""

from django.contrib import admin

from annotation.admin import ReadOnlyAdmin
from annotation.models import (
    ConstructionTask,
    ConstructionWork,
    CriterionReview,
    DifficultyMark,
    PanelRound,
    PanelVote,
)


@admin.register(ConstructionWork)
class ConstructionWorkAdmin(ReadOnlyAdmin):
    list_display = ["project", "kind", "raters", "panel_rule", "lease_seconds", "is_open"]
    list_filter = ["kind", "is_open"]


class DifficultyMarkInline(admin.StackedInline):
    model = DifficultyMark
    fields = ["difficulty", "reason", "comment"]
    readonly_fields = fields
    can_delete = False
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False


class CriterionReviewInline(DifficultyMarkInline):
    model = CriterionReview
    fields = ["criterion", "criterion_version", "verdict", "comment"]
    readonly_fields = fields


class PanelVoteInline(DifficultyMarkInline):
    model = PanelVote
    fields = ["vote", "reason"]
    readonly_fields = fields


@admin.register(ConstructionTask)
class ConstructionTaskAdmin(ReadOnlyAdmin):
    list_display = ["draft", "kind", "expert", "status", "panel_round", "submitted_at"]
    list_filter = ["kind", "status", "work__project"]
    list_select_related = ["draft__project", "expert__user", "panel_round__draft"]
    inlines = [DifficultyMarkInline, CriterionReviewInline, PanelVoteInline]


@admin.register(PanelRound)
class PanelRoundAdmin(ReadOnlyAdmin):
    list_display = ["draft", "number", "outcome", "opened_at", "decided_at"]
    list_filter = ["outcome"]
