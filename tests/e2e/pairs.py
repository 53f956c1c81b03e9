"""What the browser tests of the two pair pages (the workbench's and the senior's) share:
the models no page may name, the pair as it must be shown, the choice pressed."""

from annotation.models import Assignment
from annotation.pairwise import as_shown, first_shown
from tests.builders.browser import wait_for_unit

# Names no page may show; the answers name no model.
MODELS = ("orchid-model", "juniper-model", "saffron-model")
OPENINGS = {
    "orchid-model": "听起来你真的很累。",
    "juniper-model": "谢谢你愿意说出来。",
    "saffron-model": "这段时间辛苦你了。",
}
ATTRIBUTES = """(root) => Array.from(document.querySelectorAll(`${root}, ${root} *`))
  .flatMap((e) => Array.from(e.attributes, (a) => [a.name, a.value]))"""


def stored(assignment: Assignment, shown: str) -> str:
    """A choice about the order shown (a: the response shown first) in the pair's order (the
    mapping is its own inverse: ``as_shown`` both ways)."""
    return as_shown(shown, shuffle_seed=assignment.shuffle_seed)


def wait_for_pair(page, *, after: str = "") -> str:
    """Wait until the page shows a pair other than ``after``; its token."""
    return wait_for_unit(page, after=after, ready="#response-a:not(:empty)")


def pressed(page) -> list[str]:
    return page.eval_on_selector_all(
        "[data-choice][aria-pressed=true]", "(bs) => bs.map((b) => b.dataset.choice)"
    )


def assert_pair_shown_blind(page, assignment: Assignment, *, root: str, numeric: set[str]) -> None:
    """A and B are the pair's responses in the assignment's order, the rubric's response and
    criteria are not shown, and no model, pair, response, unit or assignment id is in the page
    (in no attribute under ``root`` either, but for those in ``numeric``, whose small numbers
    of their own may equal an id)."""
    pair = assignment.unit.pair
    texts = {"a": pair.response_a.text, "b": pair.response_b.text}
    first = first_shown(assignment.shuffle_seed)
    assert page.inner_text("#response-a") == texts[first]
    assert page.inner_text("#response-b") == texts["b" if first == "a" else "a"]
    assert not page.locator("#response").is_visible()
    assert page.locator("#criteria li:visible").count() == 0
    assert not [name for name in MODELS if name in page.content()]
    ids = {
        str(pair.pk),
        str(pair.response_a_id),
        str(pair.response_b_id),
        str(assignment.public_id),
        str(assignment.unit_id),
    }
    attributes = page.evaluate(ATTRIBUTES, root)
    leaked = [(n, v) for n, v in attributes if n not in numeric and v in ids]
    assert not leaked, leaked
