"""The shapes of the admin API. Staff see a study as the admin's pages show it: its models and
judge runs by name, its figures; never an API key, never an expert's user name."""

import argparse
from collections.abc import Callable, Mapping

from rest_framework import serializers

from annotation.models import Pool
from config.cli_types import non_negative_int, open_share, positive_fraction, positive_int
from validation import closing, export, report


def command_line_rule(parse: Callable[[str], object]) -> Callable[[object], None]:
    """A validator made of the command line's own option type (``config.cli_types``): the
    API refuses what `heartbench study create` refuses, in the same words."""

    def check(value: object) -> None:
        try:
            parse(str(value))
        except argparse.ArgumentTypeError as exc:
            raise serializers.ValidationError(str(exc)) from exc

    return check


class GateSerializer(serializers.Serializer):
    """The study's gate (``validation.gate.GateConfig``); every field optional, defaults as
    `heartbench study create --gate-*`."""

    agreement_min = serializers.FloatField(required=False, min_value=0, max_value=1)
    noninferiority_margin = serializers.FloatField(required=False, min_value=0, max_value=1)
    catastrophic_recall_min = serializers.FloatField(required=False, min_value=0, max_value=1)
    catastrophic_min_hits = serializers.IntegerField(required=False, min_value=0)
    score_bias_max = serializers.FloatField(required=False, min_value=0, max_value=100)


class PlanSerializer(serializers.Serializer):
    """Plan the fraction, as `heartbench study create --fraction auto`; defaults as there."""

    expected_agreement = serializers.FloatField(
        required=False, validators=[command_line_rule(open_share)]
    )
    half_width = serializers.FloatField(required=False, validators=[command_line_rule(open_share)])
    pilot = serializers.CharField(
        required=False, help_text="a study whose items give the design effect"
    )


class AdminStudyCreateSerializer(serializers.Serializer):
    """The options of `heartbench study create`. Those left out take the service's defaults;
    names and the sample are checked by the service, which says which field is at fault."""

    name = serializers.CharField(
        help_text="1–100 letters (Chinese too), digits, `-`, `_` and `.`, starting with a "
        "letter or digit"
    )
    dataset = serializers.CharField(
        required=False, help_text="a dataset's name (its newest version is used); not with pair_set"
    )
    models = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="model names; not with pair_set"
    )
    pair_set = serializers.CharField(
        required=False,
        help_text="a pairwise study over this pairwise set's pairs (its dataset and models); "
        "then no dataset, models, judge_runs, adjudicate_splits, gate, plan or look_every",
    )
    judge_runs = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="judge names (each one's newest finished run per chosen model) or run ids",
    )
    fraction = serializers.FloatField(
        required=False,
        validators=[command_line_rule(positive_fraction)],
        help_text="share of the cases sampled (default 0.3)",
    )
    seed = serializers.IntegerField(
        required=False,
        allow_null=True,
        validators=[command_line_rule(non_negative_int)],
        help_text="the sample's seed (default: drawn at random and recorded)",
    )
    stratify_by = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="case fields the sample is stratified by (default difficulty, primary_scene)",
    )
    lease_minutes = serializers.IntegerField(
        required=False,
        validators=[command_line_rule(positive_int)],
        help_text="how long an expert holds a unit (default 30)",
    )
    show_ability = serializers.BooleanField(required=False)
    adjudicate_splits = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text='ability codes (or "*") whose 2/1 splits a senior expert decides',
    )
    gate = GateSerializer(required=False)
    plan = PlanSerializer(
        required=False, help_text="plan the fraction for a wanted interval (not with fraction)"
    )
    look_every = serializers.IntegerField(
        required=False,
        validators=[command_line_rule(positive_int)],
        help_text="look at the gate every K completed cases (group-sequential; may stop early)",
    )

    def validate(self, data):
        if "plan" in data and "fraction" in data:
            raise serializers.ValidationError(
                {"plan": ["a plan sets the fraction: give one or the other"]}
            )
        return data

    def to_internal_value(self, data):
        # dataset and models are required unless pair_set: said with the other fields' errors.
        errors, value = {}, None
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            errors = dict(exc.detail)
        if isinstance(data, Mapping) and "pair_set" not in data:
            for name in ("dataset", "models"):
                if name not in data:
                    errors.setdefault(name, [self.fields[name].error_messages["required"]])
        if errors:
            raise serializers.ValidationError(errors)
        return value


class AdminStudySerializer(serializers.Serializer):
    name = serializers.CharField()
    question_type = serializers.ChoiceField(
        choices=Pool.QuestionType.choices, source="pool.question_type"
    )
    pair_set = serializers.CharField(
        source="pair_set.name", allow_null=True, help_text="a pairwise study's set; else null"
    )
    status = serializers.ChoiceField(choices=Pool.Status.choices, source="pool.status")
    dataset = serializers.CharField(source="dataset.name")
    dataset_version = serializers.IntegerField(source="dataset.version")
    models = serializers.SerializerMethodField()
    judge_runs = serializers.SerializerMethodField()
    units = serializers.IntegerField(source="unit_count")
    fraction = serializers.FloatField()
    seed = serializers.IntegerField()
    stratify_by = serializers.ListField(child=serializers.CharField())
    sampling = serializers.DictField(help_text="sampled and total cases per stratum")
    adjudicate_splits = serializers.ListField(child=serializers.CharField())
    show_ability = serializers.BooleanField(source="pool.show_ability")
    lease_minutes = serializers.SerializerMethodField()
    gate_threshold = serializers.FloatField()
    gate = GateSerializer(source="gate_config")
    plan = serializers.DictField(help_text="the planner's answer when the fraction was planned")
    look_every = serializers.IntegerField(allow_null=True)
    due_date = serializers.DateField(allow_null=True)
    created_at = serializers.DateTimeField()
    opened_at = serializers.DateTimeField(allow_null=True)
    closed_at = serializers.DateTimeField(allow_null=True)

    def get_models(self, study) -> list[str]:
        return [model.name for model in study.models_under_test.all()]

    def get_judge_runs(self, study) -> list[int]:
        return [run.pk for run in study.judge_runs.all()]

    def get_lease_minutes(self, study) -> int:
        return study.pool.lease_seconds // 60


class AdminStudyCloseSerializer(serializers.Serializer):
    """The choices of `heartbench study close` (the API asks no confirmation: the POST is it)."""

    partial = serializers.ChoiceField(
        choices=closing.CHOICES,
        default=closing.DEFAULT_PARTIAL,
        help_text="units with some ratings: a senior expert decides what their ratings did not "
        "settle, or drop them",
    )
    unrated = serializers.ChoiceField(
        choices=closing.CHOICES,
        default=closing.DEFAULT_UNRATED,
        help_text="units nobody rated: drop them from the sample (listed in the report with the "
        "reason), or a senior expert decides them alone",
    )


class AdminStudyClosedSerializer(serializers.Serializer):
    """What ``validation.services.study_close`` counted."""

    study = AdminStudySerializer()
    complete = serializers.IntegerField(help_text="units complete at the close")
    partly_rated = serializers.IntegerField()
    never_rated = serializers.IntegerField()
    gold = serializers.IntegerField(help_text="units that got gold at the close")
    adjudicated = serializers.IntegerField()
    incomplete = serializers.IntegerField(help_text="short units sent to a senior expert")
    dropped = serializers.IntegerField(help_text="short units dropped from the sample")
    awaiting = serializers.IntegerField(help_text="split units waiting for a senior expert")


class AdminPaceSerializer(serializers.Serializer):
    remaining = serializers.IntegerField(help_text="rating submissions still needed")
    per_day = serializers.FloatField(help_text="rating submissions per day lately")
    per_day_needed = serializers.FloatField(
        allow_null=True, help_text="the pace that would still finish by the due date"
    )
    finish = serializers.DateField(allow_null=True, help_text="at this pace")
    due = serializers.DateField(allow_null=True)
    days_left = serializers.IntegerField(allow_null=True)
    will_miss = serializers.BooleanField()


class AdminStudyProgressSerializer(serializers.Serializer):
    """The admin dashboard's figures for one study (``validation.dashboard.selectors``)."""

    study = serializers.CharField(source="study.name")
    status = serializers.ChoiceField(choices=Pool.Status.choices, source="study.pool.status")
    units = serializers.IntegerField()
    units_by_state = serializers.DictField(
        child=serializers.IntegerField(),
        source="buckets",
        help_text="pending, in_progress, gold, waiting_senior, adjudicated, incomplete, dropped",
    )
    ratings_done = serializers.IntegerField()
    done_share = serializers.FloatField(help_text="units with gold, of those not dropped")
    pace = AdminPaceSerializer()


class AdminReportQuerySerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=report.FORMATS, default="json")


class AdminExportQuerySerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=export.FORMATS, default="csv")
