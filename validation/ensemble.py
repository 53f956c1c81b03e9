"""An ensemble judge's verdict on one criterion from its members' verdicts (pure).

The verdict is the majority of the members' met / not met verdicts by the project's one
majority rule (``annotation.majority.majority_code``); a member's error or missing verdict does
not vote. A tie (2 met, 2 not met; or 1–1 with the third member in error) or no vote at all
is an **error** verdict that says so: never read as met or not met, so the case is unscored
and shown as missing coverage, as any judge's error is.
"""

from collections.abc import Sequence

from annotation.majority import NO_MAJORITY, majority_code

MET, NOT_MET, ERROR = "met", "not_met", "error"


def ensemble_verdict(*, members: Sequence[str], states: Sequence[str | None]) -> tuple[str, str]:
    """(state, reasoning) of the ensemble from each member's state (None: no verdict)."""
    met = sum(1 for s in states if s == MET)
    not_met = sum(1 for s in states if s == NOT_MET)
    votes = ", ".join(f"{m}: {s or 'none'}" for m, s in zip(members, states, strict=True))
    code = majority_code([not_met, met])
    if code == NO_MAJORITY:
        why = "no member gave a verdict" if not (met or not_met) else f"a tie {met}–{not_met}"
        return ERROR, f"ensemble: {why} ({votes})"
    state = MET if code else NOT_MET
    return state, f"ensemble majority {max(met, not_met)}/{met + not_met} ({votes})"
