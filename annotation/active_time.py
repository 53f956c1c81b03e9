"""Active time on task as a client reports it with a draft or a submission (pure: no ORM).

The workbench counts the seconds its unit was on a visible tab while the expert was using the
page; the server only checks that the figure is a plausible whole number of seconds.
"""

from django.utils.translation import gettext

# The most active time one unit may carry: a day. The workbench counts only visible time with
# recent input, and a unit's lease lapses minutes after its page is closed, so no expert gets
# near this on one unit; a larger figure comes from a broken or hostile client and is refused
# rather than stored, where it would skew the dashboard's time figures and the pay export.
MAX_ACTIVE_SECONDS = 24 * 60 * 60


class InvalidActiveSeconds(ValueError):
    """The active time sent is not a whole number of seconds between 0 and the cap."""


def active_seconds_parse(value: object) -> int | None:
    """The active seconds a client sent, or None when it sent none (not measured).

    Only a JSON integer is taken: a boolean, a fraction, a string or a negative figure is the
    client's mistake, and so is more than ``MAX_ACTIVE_SECONDS``.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidActiveSeconds(
            gettext("active_seconds must be a whole number of seconds, got %(value)s")
            % {"value": repr(value)[:40]}
        )
    if not 0 <= value <= MAX_ACTIVE_SECONDS:
        raise InvalidActiveSeconds(
            gettext("active_seconds must be between 0 and %(max)d, got %(value)d")
            % {"max": MAX_ACTIVE_SECONDS, "value": value}
        )
    return value
