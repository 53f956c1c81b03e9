"""Agreement statistics for nominal labels, with no database access.

Percent agreement, Cohen's κ, Scott's π, Gwet's AC1, PABAK, Fleiss' κ, Krippendorff's α,
prevalence, confusion matrices, precision / recall / F1 per class and balanced F1, the
majority gold standard with its ties, each rater against the others, the human baseline
(each expert against the agreeing label of the other two, the judge on the same pairs, its
non-inferiority) — and case-clustered
bootstrap intervals for all of them. An undefined figure is an ``Estimate`` with
``value=None`` and a ``reason``, never an exception or a made-up 1.0.
"""

from validation.statistics.baseline import (
    NONINFERIORITY_DELTA,
    AgainstOthers,
    NonInferiority,
    experts_against_others,
    judge_against_others,
    judge_noninferiority,
    others_references,
)
from validation.statistics.bootstrap import cluster_bootstrap, tables_statistic
from validation.statistics.coding import (
    MISSING,
    RatingRecord,
    Ratings,
    category_counts,
    ratings_build,
)
from validation.statistics.multirater import (
    RaterReliability,
    krippendorff_alpha_nominal,
    rater_reliability,
)
from validation.statistics.pairwise import (
    ClassScores,
    PairwiseAgreement,
    balanced_f1,
    cohen_kappa,
    confusion_matrix,
    gwet_ac1,
    pabak,
    pairwise_agreement,
    pairwise_from_tables,
    pairwise_tables,
    percent_agreement,
    scott_pi,
)
from validation.statistics.raters import (
    AgainstRaters,
    Gold,
    gold_majority,
    labeller_against_raters,
    pooled_pair_tables,
    raters_leave_one_out,
)
from validation.statistics.results import BootstrapSettings, Estimate, Interval
from validation.statistics.summary import agreement_summary
from validation.statistics.tables import TableStatistic, cluster_sums, table_estimates

__all__ = [
    "MISSING",
    "NONINFERIORITY_DELTA",
    "AgainstOthers",
    "AgainstRaters",
    "BootstrapSettings",
    "ClassScores",
    "Estimate",
    "Gold",
    "Interval",
    "NonInferiority",
    "PairwiseAgreement",
    "RaterReliability",
    "RatingRecord",
    "Ratings",
    "TableStatistic",
    "agreement_summary",
    "balanced_f1",
    "category_counts",
    "cluster_bootstrap",
    "cluster_sums",
    "cohen_kappa",
    "confusion_matrix",
    "experts_against_others",
    "gold_majority",
    "gwet_ac1",
    "judge_against_others",
    "judge_noninferiority",
    "krippendorff_alpha_nominal",
    "labeller_against_raters",
    "others_references",
    "pabak",
    "pairwise_agreement",
    "pairwise_from_tables",
    "pairwise_tables",
    "percent_agreement",
    "pooled_pair_tables",
    "rater_reliability",
    "raters_leave_one_out",
    "ratings_build",
    "scott_pi",
    "table_estimates",
    "tables_statistic",
]
