"""The study report's "why undefined" notes in the interface language.

The statistics modules stay pure and speak English (their notes also go into the JSON and CSV
exports, which are data); the pages translate the notes they know when they show them, and
show any other note as it is.
"""

import re

from django import template
from django.utils.translation import gettext_lazy as _

from validation.gate import NOT_ENOUGH_DATA, status_word

register = template.Library()

# The statistics' internal labels hit / miss, in the interface's words for the two outcomes.
LABELS = {"'hit'": _("“met”"), "'miss'": _("“not met”")}

# (pattern of the English note, its translation with the captured parts as placeholders)
REASONS = [
    (r"no item carries both labels", _("no item carries both labels")),
    (
        r"chance agreement is 1: both labellers used only (?P<labels>.+)",
        _("chance agreement is 1: both labellers used only %(labels)s"),
    ),
    (
        r"chance agreement is 1: every rating is (?P<labels>.+)",
        _("chance agreement is 1: every rating is %(labels)s"),
    ),
    (
        r"expected disagreement is 0: every pairable value is (?P<labels>.+)",
        _("expected disagreement is 0: every pairable value is %(labels)s"),
    ),
    (
        r"(?P<k>\d+) category in the scheme: at least two are needed",
        _("%(k)s category in the scheme: at least two are needed"),
    ),
    (
        r"(?P<labels>.+) occurs in neither labelling, so its F1 is undefined",
        _("%(labels)s occurs in neither labelling, so its F1 is undefined"),
    ),
    (r"(?P<labels>.+) occurs in neither labelling", _("%(labels)s occurs in neither labelling")),
    (r"no reference label is (?P<labels>.+)", _("no reference label is %(labels)s")),
    (r"the labeller never chose (?P<labels>.+)", _("the labeller never chose %(labels)s")),
    (
        r"no pairable values \(no item has two or more ratings\)",
        _("no pairable values (no item has two or more ratings)"),
    ),
    (r"no item has two or more ratings", _("no item has two or more ratings")),
    (
        r"items differ in their number of ratings \((?P<counts>[\d, ]+)\), which Fleiss' κ does "
        r"not allow",
        _("items differ in their number of ratings (%(counts)s), which Fleiss' κ does not allow"),
    ),
    (
        r"(?P<n>\d+) cluster\(s\): a bootstrap needs at least two",
        _("%(n)s cluster(s): a bootstrap needs at least two"),
    ),
    (
        r"the statistic is undefined on the full sample",
        _("the statistic is undefined on the full sample"),
    ),
    (
        r"the statistic is undefined in (?P<u>\d+) of (?P<n>\d+) resamples",
        _("the statistic is undefined in %(u)s of %(n)s resamples"),
    ),
    (
        r"(?P<n>\d+) model\(s\) scored: a ranking needs two",
        _("%(n)s model(s) scored: a ranking needs two"),
    ),
    (
        r"every model has the same score on one side",
        _("every model has the same score on one side"),
    ),
    (
        r"(?P<hits>\d+) gold catastrophic hit\(s\); the gate needs (?P<need>\d+)",
        _("%(hits)s gold catastrophic hit(s); the gate needs %(need)s"),
    ),
    (r"no model scored", _("no model scored")),
    (
        r"outside ±(?P<t>[\d.]+) on its own interval but not after Holm's step-down across "
        r"(?P<m>\d+) models: its (?P<level>[\d.]+%) interval (?P<shown>.+) is not wholly outside",
        _(
            "outside ±%(t)s on its own interval but not after Holm's step-down across %(m)s "
            "models: its %(level)s interval %(shown)s is not wholly outside"
        ),
    ),
    (
        r"the interval has zero width \((?P<method>[^)]*)\): it decides nothing",
        _("the interval has zero width: it decides nothing"),
    ),
    (r"perfect agreement", _("perfect agreement")),
    (r"no variance between subjects", _("no variance between subjects")),
    (r"interval undefined", _("interval undefined")),
    # The pairwise report's (validation.statistics.preference_agreement, preference).
    (
        r"the choices are separated by length \(one side of a threshold always chosen\): the "
        r"estimate is infinite",
        _("the choices are separated by length (one side always chosen): the estimate is infinite"),
    ),
    (r"no choice of a side \(ties left out\)", _("no choice of a side (ties left out)")),
    (
        r"every resample of cases gives the same figure: the cases do not vary",
        _("every resample of cases gives the same figure: the cases do not vary"),
    ),
    (r"no pair was judged in both orders", _("no pair was judged in both orders")),
    (r"no verdict chose a side", _("no verdict chose a side")),
    (
        r"no pair has a preferred model and two different rubric scores",
        _("no pair has a preferred model and two different rubric scores"),
    ),
    (r"no comparisons", _("no comparisons")),
    # The latent-class section's (validation.statistics.latent_class, latent_section).
    (r"no labels among the modelled items", _("no labels among the modelled items")),
    (
        r"(?P<n>\S+) expected latent positives among its labels: fewer than (?P<k>\S+), so "
        r"the ratio is not an estimate",
        _("%(n)s expected truly met items among its labels: fewer than %(k)s, so not an estimate"),
    ),
    (
        r"(?P<n>\S+) expected latent negatives among its labels: fewer than (?P<k>\S+), so "
        r"the ratio is not an estimate",
        _(
            "%(n)s expected truly not-met items among its labels: fewer than %(k)s, so not an "
            "estimate"
        ),
    ),
    (
        r"(?P<n>\d+) rater\(s\): Dawid-Skene needs at least (?P<k>\d+) \(two binary raters do "
        r"not identify the model\)",
        _("%(n)s rater(s): the latent-class model needs at least %(k)s"),
    ),
]
COMPILED = [(re.compile(pattern), message) for pattern, message in REASONS]


def _labels(text: str) -> str:
    for english, translated in LABELS.items():
        text = text.replace(english, str(translated))
    return text


@register.filter
def statistic_reason(reason: str | None) -> str:
    """A statistics module's note, translated when it is one of the known notes."""
    if not reason:
        return ""
    for pattern, message in COMPILED:
        match = pattern.fullmatch(reason)
        if match:
            parts = {k: _labels(v) for k, v in match.groupdict().items()}
            return str(message) % parts if parts else str(message)
    return reason


@register.filter
def outcome_word(status: str | None) -> str:
    """A condition's or the gate's outcome key in the interface's words (``validation.gate``)."""
    return status_word(status or NOT_ENOUGH_DATA)


# The statistics' method names (``validation.statistics``), as the report's reader sees them.
METHODS = {
    "exact": _("exact binomial"),
    "chi-square, continuity-corrected": _("χ² with continuity correction"),
    "BCa": "BCa",
    "percentile": _("percentile"),
    "clopper-pearson": "Clopper–Pearson",
    "clopper-pearson-clustered": _("Clopper–Pearson at the clusters' effective size"),
}


@register.filter
def method_name(method: str | None) -> str:
    """A statistics method's key in the interface's words (the key itself when unknown)."""
    return str(METHODS.get(method, method)) if method else ""
