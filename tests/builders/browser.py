"""Browser-test helpers: axe-core and keyboard-focus checks, waiting for a unit, downloads."""

from pathlib import Path

# About 500 characters, as a real counselling reply is long.
LONG_RESPONSE = (
    "听到你这段时间一直被工作压得喘不过气，我能感受到你的疲惫和委屈。你说每天加班到很晚，回到家还要"
    "回复消息，周末也不敢关掉手机，这样的状态持续了三个月，任何人都会觉得撑不住。你并不是不够努力，"
    "恰恰相反，你已经付出了很多。我想先请你停下来，深呼吸几次，感受一下此刻身体哪里最紧绷。"
) * 4
BLOCKING = ("serious", "critical")
# What a focused control draws, whatever draws it: an outline or a ring of box-shadow.
FOCUS_STYLE = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
  const ring = style.boxShadow && style.boxShadow !== 'none';
  return {shown: outline || ring, what: el.outerHTML.slice(0, 120)};
}"""

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def axe_problems(page, name: str, *, every_impact: bool = False) -> list[str]:
    """The serious and critical violations axe finds on the page as it stands (with
    ``every_impact``, the minor and moderate ones too)."""
    # Evaluated rather than added as a <script>: the pages' policy refuses inline scripts.
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    result = page.evaluate("async () => await axe.run()")
    return [
        f"{name} [{page.language}] {v['impact']} {v['id']}: {v['help']} "
        f"({len(v['nodes'])}×: {', '.join(str(n['target']) for n in v['nodes'][:5])})"
        for v in result["violations"]
        if every_impact or v["impact"] in BLOCKING
    ]


def focus_problems(page, name: str, presses: int = 40) -> list[str]:
    """Tab through the page: every control that takes the focus must show it. The focus is
    given back at the end, so the test's next key goes to the page, not to where Tab left it
    (an Enter on a link would follow it)."""
    problems = []
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(presses):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_STYLE)
        if focused and not focused["shown"]:
            problems.append(f"{name} [{page.language}] no visible focus: {focused['what']}")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    return sorted(set(problems))


def wait_for_unit(page, *, after: str = "", ready: str = "#criteria li") -> str:
    """Wait until the workbench shows a unit other than ``after`` (and ``ready``: its
    criteria, or a pair's first response); its token."""
    page.wait_for_function(
        "(after) => { const t = document.getElementById('unit-token');"
        " return t && t.textContent && t.textContent !== after"
        " && !document.getElementById('unit').hidden; }",
        arg=after,
    )
    page.wait_for_selector(ready)
    return page.inner_text("#unit-token")


def out_of_view(page, within: str, *, scrolling: str) -> list[str]:
    """The elements inside ``within`` (a CSS selector) that reach past the window's right edge,
    but for those in a box matching ``scrolling``, which scrolls on its own."""
    return page.evaluate(
        """([within, scrolling]) => [...document.querySelectorAll(within + ' *')]
          .filter(e => !e.closest(scrolling) && e.getBoundingClientRect().right > innerWidth + 1)
          .map(e => e.tagName + ' ' + e.textContent.slice(0, 40))""",
        [within, scrolling],
    )


def open_file(page, path) -> list[str]:
    """Open a saved report and return every request it made beyond its own file."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith("file:") else None)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return requests
