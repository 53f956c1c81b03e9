"""A page at the three widths the browser tests check: 1920, 1366 and 390 px."""

from pathlib import Path

from tests.builders.browser import axe_problems, focus_problems
from tests.e2e.conftest import shoot

WIDTHS = (1920, 1366, 390)


def shoot_widths(page, artifacts: Path, name: str) -> None:
    """A screenshot `<name>-<width>-<language>.png` at each width, none scrolling sideways;
    the page is left at 1366×768."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
        shoot(page, artifacts, f"{name}-{width}")
    page.set_viewport_size({"width": 1366, "height": 768})


def readable_at_every_width(
    page, artifacts: Path, name: str, *, presses: int = 12, every_impact: bool = False
) -> list[str]:
    """`shoot_widths`, then at 1366 px axe's serious or critical findings (with
    ``every_impact``, all of them) and the controls that hide their focus in `presses` Tab
    presses."""
    shoot_widths(page, artifacts, name)
    return axe_problems(page, name, every_impact=every_impact) + focus_problems(
        page, name, presses=presses
    )
