"""Labels for a claimed assignment, and a page's words without its CSRF token."""

import re

from annotation import selectors
from annotation.models import Assignment


def all_labels(assignment: Assignment, *, hit: bool = True) -> list[dict]:
    """A complete label set for an assignment, through the same opaque ids the API uses."""
    return [
        {"criterion": token, "hit": hit}
        for token in selectors.criterion_tokens(assignment=assignment)
    ]


_CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')


def page_words(response) -> str:
    """A page's text in lower case, without its CSRF token: 64 random letters and digits that
    spell a forbidden word ("kappa", "gold") once in a while."""
    return _CSRF.sub(r"\1\2", response.content.decode()).lower()
