"""A study from the browser, as `heartbench study create|open|enrol|close` and the admin API do
it, through the same services: create a draft, see what its sample asks of the experts, open it,
enrol experts, close it with the choices the command gives and what each costs the seniors."""

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from annotation import selectors as annotation_selectors
from benchmark.selectors.datasets import dataset_names
from benchmark.selectors.models_under_test import model_names
from benchmark.selectors.run_lists import judge_names_finished
from benchmark.taxonomy import ABILITIES
from frontend.views.staff import back, staff_context, study_or_404
from validation import closing, selectors, services
from validation.gate import GateConfig
from validation.models import DEFAULT_STRATA
from validation.selectors.preview import study_preview
from validation.serializers import AdminStudyCreateSerializer
from validation.services.studies import STRATUM_FIELDS, study_experts_allowed

# The form's gate fields, in GateConfig's order.
GATE_LABELS = {
    "agreement_min": gettext_lazy("Lowest agreement with the gold (its interval's lower bound)"),
    "noninferiority_margin": gettext_lazy("Non-inferiority margin (judge − experts, macro-F1)"),
    "catastrophic_recall_min": gettext_lazy(
        "Lowest recall on gold catastrophic hits (its interval's lower bound)"
    ),
    "catastrophic_min_hits": gettext_lazy("Fewest gold catastrophic hits to decide that recall"),
    "score_bias_max": gettext_lazy("Largest score bias of a model (± points)"),
}
GATE_FIELDS = list(GateConfig().as_dict())
CREATE_DEFAULTS = {"fraction": "0.3", "lease_minutes": "30", **GateConfig().as_dict()}
MULTIPLE = ("models", "judge_runs", "adjudicate_splits", "stratify_by")  # lists of checkboxes
STRATUM_LABELS = {
    "difficulty": gettext_lazy("difficulty"),
    "primary_scene": gettext_lazy("primary scene"),
    "secondary_scene": gettext_lazy("secondary scene"),
}


STRATA = [(field, STRATUM_LABELS[field]) for field in STRATUM_FIELDS]


def _choices() -> dict:
    """What the create form offers: every dataset, model and judge by name."""
    return {
        "datasets": dataset_names(),
        "models": model_names(),
        "judges": judge_names_finished(),
        "abilities": ABILITIES,
        "strata": STRATA,
        "pilots": [study.name for study in selectors.studies_for_admin()],
    }


def _sample_body(post) -> dict:
    """What both create forms ask: the name and how the sample is drawn and handed out."""
    body = {
        "name": post.get("name", "").strip(),
        "fraction": post.get("fraction", "").strip() or None,
        "stratify_by": post.getlist("stratify_by"),
        "lease_minutes": post.get("lease_minutes", "").strip() or None,
    }
    if post.get("seed", "").strip():
        body["seed"] = post["seed"].strip()
    return body


def _body(post) -> dict:
    """The admin API's body from the rubric form: the same serializer then checks both."""
    body = {
        **_sample_body(post),
        "dataset": post.get("dataset", ""),
        "models": post.getlist("models"),
        "judge_runs": post.getlist("judge_runs"),
        "adjudicate_splits": post.getlist("adjudicate_splits"),
        "show_ability": post.get("show_ability") == "on",
        "gate": {name: post[name].strip() for name in GATE_FIELDS if post.get(name, "").strip()},
    }
    if post.get("look_every", "").strip():
        body["look_every"] = post["look_every"].strip()
    if post.get("planned") == "on":
        del body["fraction"]
        body["plan"] = {
            key: post[key].strip()
            for key in ("expected_agreement", "half_width", "pilot")
            if post.get(key, "").strip()
        }
    return body


def _errors(detail) -> dict[str, str]:
    """The serializer's errors by the form's field names, each as one line."""
    flat = {}
    for field, problems in detail.items():
        if isinstance(problems, dict):  # the gate's or the plan's fields
            for inner, reasons in problems.items():
                flat["plan" if field == "plan" else inner] = " ".join(map(str, reasons))
        else:
            flat[field] = " ".join(map(str, problems))
    return flat


def _create(request, body: dict):
    """Create the study the form's body asks for, as the admin API does: the redirect to its
    page, with a success message, and no errors; else no redirect and the errors by field."""
    # A field left empty is left out: the service's default.
    body = {key: value for key, value in body.items() if value is not None}
    checked = AdminStudyCreateSerializer(data=body)
    if not checked.is_valid():
        return None, _errors(checked.errors)
    try:
        study = services.study_create_named(**checked.validated_data, actor=request.user)
    except (services.StudyError, selectors.UnknownName) as exc:
        return None, {exc.field or "name": str(exc)}
    messages.success(
        request,
        _("Study %(name)s created as a draft: see its sample, then open it.")
        % {"name": study.name},
    )
    return redirect("dashboard:study", study.name), {}


def _form_state(request, multiple) -> tuple[dict, dict]:
    """The values a create form shows and its checkboxes ticked: the defaults on a GET, what
    was sent on a POST."""
    if request.method != "POST":
        return dict(CREATE_DEFAULTS), {key: [] for key in multiple} | {
            "stratify_by": list(DEFAULT_STRATA)
        }
    return request.POST.dict(), {key: request.POST.getlist(key) for key in multiple}


@staff_member_required
@require_http_methods(["GET", "POST"])
def study_new(request):
    values, chosen = _form_state(request, MULTIPLE)
    errors = {}
    if request.method == "POST":
        done, errors = _create(request, _body(request.POST))
        if done:
            return done
    gate = [
        {
            "name": name,
            "label": GATE_LABELS[name],
            "value": values.get(name, ""),
            "error": errors.get(name),
            "inputmode": "numeric" if isinstance(default, int) else "decimal",
        }
        for name, default in GateConfig().as_dict().items()
    ]
    context = staff_context(
        request,
        _("New study"),
        values=values,
        chosen=chosen,
        errors=errors,
        gate=gate,
        **_choices(),
    )
    return render(request, "frontend/manage/study_new.html", context, status=400 if errors else 200)


# What the pairwise form asks; a refusal at any other field (the set's dataset, its pairs)
# is said at the set.
PAIRWISE_FIELDS = ("name", "pair_set", "fraction", "stratify_by", "seed", "lease_minutes")


def _pair_sets() -> list[dict]:
    """Every pairwise set by name, with its dataset and how many pairs it holds."""
    from benchmark.selectors.pairwise import pairwise_sets_listed  # loads numpy: deferred

    return [
        {
            "name": found.name,
            "dataset": f"{found.dataset.name} v{found.dataset.version}",
            "pairs": found.pairs_count,
        }
        for found in pairwise_sets_listed()
    ]


@staff_member_required
@require_http_methods(["GET", "POST"])
def study_new_pairwise(request):
    values, chosen = _form_state(request, ("stratify_by",))
    errors = {}
    if request.method == "POST":
        body = {**_sample_body(request.POST), "pair_set": request.POST.get("pair_set", "")}
        done, errors = _create(request, body)
        if done:
            return done
        errors = {
            field if field in PAIRWISE_FIELDS else "pair_set": reason
            for field, reason in errors.items()
        }
    context = staff_context(
        request,
        _("New pairwise study"),
        values=values,
        chosen=chosen,
        errors=errors,
        strata=STRATA,
        pair_sets=_pair_sets(),
    )
    return render(
        request,
        "frontend/manage/study_new_pairwise.html",
        context,
        status=400 if errors else 200,
    )


def lifecycle(study) -> dict:
    """What the study page shows of the study's life: a draft's preview, an open study's
    enrolment and close choices."""
    status = study.pool.status
    if status == "draft":
        return {"preview": study_preview(study=study)}
    if status != "open":
        return {}
    completion = selectors.study_completion(study=study)
    enrolled = set(annotation_selectors.pool_experts(pool=study.pool).values_list("pk", flat=True))
    allowed = study_experts_allowed(
        dataset=study.dataset, experts=annotation_selectors.experts_active(), named=None
    )
    return {
        "completion": completion,
        "enrolled": len(enrolled),
        "close_choices": _close_choices(completion),
        "to_enrol": sorted(
            (e for e in allowed if e.pk not in enrolled), key=lambda e: e.user.username
        ),
    }


def _close_choices(completion) -> list[dict]:
    """Each group of short units with its two fates, the default first-checked, and what each
    costs: the seniors' units and criteria, or the units that leave the sample."""
    groups = [
        ("partial", _("Partly rated units"), completion.partly_rated,
         completion.partly_rated_criteria, closing.DEFAULT_PARTIAL,
         _("A senior decides what their ratings did not settle")),
        ("unrated", _("Never rated units"), completion.never_rated,
         completion.never_rated_criteria, closing.DEFAULT_UNRATED,
         _("A senior decides them alone: one senior's labels become their gold")),
    ]  # fmt: skip
    return [
        {"field": field, "label": label, "units": units, "criteria": criteria,
         "default": default, "senior_text": senior_text}
        for field, label, units, criteria, default, senior_text in groups
        if units
    ]  # fmt: skip


def _study_action(request, name: str, action) -> object:
    study = study_or_404(name)
    try:
        message = action(study)
    except (services.StudyError, selectors.UnknownName) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, message)
    return back(request, reverse("dashboard:study", args=[study.name]))


@staff_member_required
@require_POST
def study_open(request, name: str):
    def act(study):
        services.study_open(study=study, actor=request.user)
        return _("Study %(name)s is open: its experts can rate.") % {"name": study.name}

    return _study_action(request, name, act)


@staff_member_required
@require_POST
def study_enrol(request, name: str):
    def act(study):
        everyone = request.POST.get("all_active") == "yes"
        usernames = [] if everyone else request.POST.getlist("experts")
        if not everyone and not usernames:
            raise services.StudyError(_("Tick the experts to enrol, or enrol every active one."))
        result = services.study_enrol(
            study=study, usernames=usernames, all_active=everyone, actor=request.user
        )
        return _("Enrolled: %(enrolled)s; already enrolled: %(already)s.") % {
            "enrolled": ", ".join(result.enrolled) or "—",
            "already": ", ".join(result.already) or "—",
        }

    return _study_action(request, name, act)


@staff_member_required
@require_POST
def study_close(request, name: str):
    def act(study):
        if request.POST.get("confirm") != "yes":
            raise services.StudyError(_("Tick the box to confirm closing the study."))
        choice = {
            field: request.POST.get(field, default)
            for field, default in (
                ("partial", closing.DEFAULT_PARTIAL),
                ("unrated", closing.DEFAULT_UNRATED),
            )
        }
        result = services.study_close(study=study, actor=request.user, **choice)
        return closing.closed_message(study=study, result=result)

    return _study_action(request, name, act)


@staff_member_required
@require_POST
def study_delete(request, name: str):
    study = study_or_404(name)
    try:
        services.study_delete(study=study, actor=request.user)
    except services.StudyError as exc:
        messages.error(request, str(exc))
        return redirect("dashboard:study", study.name)
    messages.success(request, _("Draft study %(name)s deleted.") % {"name": study.name})
    return redirect("dashboard:overview")
