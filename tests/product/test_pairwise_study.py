"""A pairwise study worked end to end on `heartbench serve`, as the README runs one (issue 43).

The CLI imports a two-case dataset and the answers of three models, draws every pair of them,
and runs the pairwise judge in both orders twice against `heartbench fake-llm`: once plain
("fair"), once with ``--position-bias 1`` ("biased"). A pairwise study over the set (fraction
1) is opened; three experts choose over the REST API in threads of their own, one of them
choosing one pair in Chromium with the mouse, with planned choices that split one pair three
ways and another 2/1; a senior decides the three-way split over the API; the CLI closes the
study, and the report is fetched from the served admin API and checked figure by figure
against values worked out by hand below. Every HTTP response is counted: none may be a 5xx.
"""

import json
import math
import signal
import subprocess
import threading
import time

import httpx
import pytest

from benchmark.llm.fake_pairwise import fake_merit
from benchmark.services.demo import DEMO_ADMIN
from tests.builders.product import Tally, admin_session
from tests.builders.schemas import schema_validator
from tests.e2e.conftest import LOCALES
from tests.product.conftest import BIN, PASSWORD, ROOT
from tests.services import free_port, hears_ctrl_c

STUDY, SET, DATASET = "pw-study", "pw-set", "pw-data"
MODELS = ("ann", "bob", "cat")
QUICK = ("--no-progress", "--timeout", "5", "--max-retry-wait", "5")
# The fake's content rule counts 你: ann (2) and cat (2) tie, both beat bob (0). Lengths
# differ too, ann < cat < bob, so that a length-biased judge would reverse every decisive
# pair (bob, the longest, would win both of his): the texts separate the two rules.
OPENINGS = {
    "ann": "你好，你还好吗？",
    "bob": "我在这里，愿意听，慢慢说，不用着急，我一直都在。",
    "cat": "你愿意说说你此刻的感受吗？",
}
CASES = 2


def answer(case: int, model: str) -> str:
    return f"{OPENINGS[model]}（第 {case + 1} 题）"


# What an expert (or the senior) is shown is text only; the test knows whose each text is.
WHOSE = {answer(c, m): (c, m) for c in range(CASES) for m in MODELS}
assert len({len(answer(0, m)) for m in MODELS}) == 3
assert [fake_merit(answer(0, m)) for m in MODELS] == [2, 0, 2]


def content_winner(x: str, y: str, case: int) -> str | None:
    """The fake's content rule on models x and y: the winner's name, None for a tie."""
    a, b = fake_merit(answer(case, x)), fake_merit(answer(case, y))
    return None if a == b else x if a > b else y


def planned(case: int, x: str, y: str, rater: int) -> str | None:
    """The model rater ``rater`` (0..2) prefers between x and y, None for a tie. The experts
    follow the content rule, except on the ann–cat pairs: case 1's splits three ways (ann,
    cat, tie: the senior decides), case 2's 2/1 (tie, tie, cat: gold tie)."""
    if {x, y} == {"ann", "cat"}:
        return ("ann", "cat", None)[rater] if case == 0 else (None, None, "cat")[rater]
    return content_winner(x, y, case)


def as_shown(responses: list[str], winner: str | None) -> str:
    """A choice of a model as the page or API showed the pair: a (first), b or tie."""
    if winner is None:
        return "tie"
    return "a" if WHOSE[responses[0]][1] == winner else "b"


def planned_shown(responses: list[str], rater: int) -> str:
    (case, x), (_, y) = WHOSE[responses[0]], WHOSE[responses[1]]
    return as_shown(responses, planned(case, x, y, rater))


def _write_inputs(folder) -> None:
    cases = [
        {
            "question_id": f"pw-0{c + 1}",
            "dialogue": [
                {"role": "A", "content": f"最近总是睡不好，心里很乱。（第 {c + 1} 题）"},
                {"role": "B", "content": "听起来这段时间你很辛苦。"},
                {"role": "A", "content": "是的，我不知道该跟谁说。"},
            ],
            "rubric": [
                {"dimension": "温暖", "score": 2, "content": f"用温和的语气回应（{c + 1}）"},
                {"dimension": "好奇心", "score": 3, "content": f"询问用户的感受（{c + 1}）"},
                {"dimension": "其他", "score": None, "content": "AI没有回应用户，而是扮演用户"},
            ],
            "difficulty": "normal",
            "primary_scene": "情绪困扰",
            "secondary_scene": "失眠",
        }
        for c in range(CASES)
    ]
    lines = "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases)
    (folder / "pw.jsonl").write_text(lines, encoding="utf-8")
    for model in MODELS:
        rows = [{"question_id": f"pw-0{c + 1}", "response": answer(c, model)} for c in range(2)]
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (folder / f"{model}.answers.jsonl").write_text(text, encoding="utf-8")


class FakeEndpoint:
    """`heartbench fake-llm` in a subprocess, as the README starts it."""

    def __init__(self, product, *flags: str) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.proc = subprocess.Popen(
            [str(BIN / "heartbench"), "fake-llm", "--port", str(self.port), *flags],
            env=product.env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=hears_ctrl_c,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{self.base_url}/stats", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None and time.monotonic() < deadline, "fake-llm down"
            time.sleep(0.1)

    def stats(self) -> dict:
        return httpx.get(f"{self.base_url}/stats", timeout=5).json()

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGINT)
        out, _ = self.proc.communicate(timeout=20)
        return out


def _token(client: httpx.Client, tally: Tally, username: str, password: str = PASSWORD) -> dict:
    reply = tally.seen(
        "token",
        client.post("/api/v1/auth/token/", json={"username": username, "password": password}),
    )
    assert reply.status_code == 200, reply.text
    return {"Authorization": f"Token {reply.json()['token']}"}


def api_expert(base_url: str, rater: int, tally: Tally, chosen: list) -> None:
    """Rater ``rater`` claims and chooses over the API until nothing is left for them."""
    with httpx.Client(base_url=base_url, timeout=120) as client:
        headers = _token(client, tally, f"expert-{rater:02d}")
        while True:
            reply = tally.seen(
                "next",
                client.post("/api/v1/work/rating/next/", params={"study": STUDY}, headers=headers),
            )
            if reply.status_code == 503 and reply.headers.get("Retry-After"):
                time.sleep(0.2)  # busy: try again, as a client is told to
                continue
            if reply.status_code != 201:
                assert reply.status_code == 204, reply.text
                return
            body = reply.json()
            unit = body["unit"]
            assert unit["question_type"] == "pairwise" and unit["criteria"] == []
            responses = unit["responses"]
            choice = planned_shown(responses, rater)
            sent = tally.seen(
                "submit",
                client.post(
                    f"/api/v1/work/rating/{body['id']}/submit/",
                    json={"choice": choice, "reason": "更贴近来访者"},
                    headers=headers,
                ),
            )
            assert sent.status_code in (200, 201), sent.text
            with tally.lock:
                chosen.append((rater, WHOSE[responses[0]], WHOSE[responses[1]], choice))


def _browser_seen(tally: Tally, response) -> None:
    """Count what the page was answered (a Playwright response), as ``Tally.seen`` does."""
    with tally.lock:
        tally.status[f"browser {response.request.method} {response.status}"] += 1
        if response.status >= 500:
            tally.errors.append(f"browser {response.url} {response.status}")


def browser_pair(chromium, base_url: str, rater: int, tally: Tally, chosen: list) -> None:
    """Rater ``rater`` signs in to the workbench and chooses one pair with the mouse."""
    context = chromium.new_context(viewport={"width": 1366, "height": 768}, locale=LOCALES["en"])
    page = context.new_page()
    page.on("response", lambda r: _browser_seen(tally, r))
    page.goto(f"{base_url}/login/?next=/rate/{STUDY}/")
    page.fill("input[name=username]", f"expert-{rater:02d}")
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#response-a:not(:empty)", timeout=60_000)
    token = page.inner_text("#unit-token")
    responses = [page.inner_text("#response-a"), page.inner_text("#response-b")]
    choice = planned_shown(responses, rater)
    label = {"a": "A is better", "b": "B is better", "tie": "Tie"}[choice]
    page.get_by_role("button", name=label).click()
    assert page.get_attribute(f"[data-choice={choice}]", "aria-pressed") == "true"
    page.click("#submit")
    page.wait_for_function(
        "(t) => document.getElementById('unit-token').textContent !== t"
        " || !document.getElementById('empty').hidden",
        arg=token,
        timeout=60_000,
    )
    with tally.lock:
        chosen.append((rater, WHOSE[responses[0]], WHOSE[responses[1]], choice))
    context.close()


def senior(base_url: str, tally: Tally, experts_done: threading.Event, decided: list) -> None:
    """The senior decides every pair that reaches their queue: ann, with a reason."""
    with httpx.Client(base_url=base_url, timeout=120) as client:
        headers = _token(client, tally, "senior-00")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            finished = experts_done.is_set()  # read first: a 204 after this is final
            reply = tally.seen(
                "adj-next",
                client.post(
                    "/api/v1/work/adjudication/next/", params={"study": STUDY}, headers=headers
                ),
            )
            if reply.status_code != 201:
                assert reply.status_code in (204, 503), reply.text
                if finished and decided and reply.status_code == 204:
                    return
                time.sleep(0.3)
                continue
            unit = reply.json()["unit"]
            responses = unit["responses"]
            with tally.lock:
                decided.append((WHOSE[responses[0]], WHOSE[responses[1]], sorted(unit)))
            missing = tally.seen(
                "adj-submit-no-reason",
                client.post(
                    f"/api/v1/work/adjudication/{reply.json()['id']}/submit/",
                    json={"choice": as_shown(responses, "ann")},
                    headers=headers,
                ),
            )
            assert missing.status_code == 400, missing.text  # a decision needs its reason
            sent = tally.seen(
                "adj-submit",
                client.post(
                    f"/api/v1/work/adjudication/{reply.json()['id']}/submit/",
                    json={"choice": as_shown(responses, "ann"), "reason": "A 先接住了情绪"},
                    headers=headers,
                ),
            )
            assert sent.status_code in (200, 201), sent.text


@pytest.mark.browser
def test_a_pairwise_study_from_import_to_report_on_the_served_product(product, chromium):
    started = time.monotonic()
    tally = Tally()
    product.tool("experts", "--experts", "3", "--seniors", "1", "--password", PASSWORD)
    _write_inputs(product.folder)
    product.cli("import-dataset", str(product.folder / "pw.jsonl"), "--name", DATASET)
    for model in MODELS:
        path = str(product.folder / f"{model}.answers.jsonl")
        product.cli("import-answers", path, "--model", model, "--dataset", DATASET)
    assert "6" in product.cli("pairwise", "draw", SET, "--dataset", DATASET,
                              "--models", ",".join(MODELS))  # fmt: skip

    # Two judges over the set in both orders, each against its own fake endpoint. Each has a
    # model ID of its own: the reply cache keys on the model, not on the endpoint's URL (the
    # same model behind another gateway answers the same), so a second judge under the same
    # ID would be served the first one's replies.
    for judge, flags in (("fair", ()), ("biased", ("--position-bias", "1"))):
        fake = FakeEndpoint(product, *flags)
        try:
            product.cli("judge", "--pairwise", SET, "--judge", judge, "--judge-model",
                        f"fake-{judge}-model", "--base-url", fake.base_url, *QUICK)  # fmt: skip
            stats = fake.stats()
        finally:
            fake.stop()
        # 6 pairs × 2 orders, each answered once and usable at once (no fault, no re-ask).
        assert stats["requests"] == 12 and stats["by_status"] == {"200": 12}, (judge, stats)

    product.cli("study", "create", STUDY, "--pairwise", SET, "--fraction", "1", "--seed", "3")
    product.cli("study", "open", STUDY)

    # Experts 0 and 1 choose over the API while expert 2 chooses one pair in Chromium, then
    # goes on over the API (getting back the pair the workbench had claimed next); the senior
    # waits for the split in the meantime.
    chosen: list = []
    decided: list = []
    experts_done = threading.Event()
    experts = [
        threading.Thread(target=api_expert, args=(product.base_url, r, tally, chosen))
        for r in range(3)
    ]
    senior_thread = threading.Thread(
        target=senior, args=(product.base_url, tally, experts_done, decided)
    )
    senior_thread.start()
    for thread in experts[:2]:
        thread.start()
    browser_pair(chromium, product.base_url, 2, tally, chosen)
    experts[2].start()
    for thread in experts:
        thread.join(300)
    experts_done.set()
    senior_thread.join(300)
    assert not any(t.is_alive() for t in [*experts, senior_thread]), "a user never finished"

    # Every expert chose every pair once (6 pairs × 3 raters), as planned.
    assert len(chosen) == 18
    for rater in range(3):
        pairs = {(x[0], *sorted((x[1], y[1]))) for r, x, y, _ in chosen if r == rater}
        assert len(pairs) == 6, (rater, chosen)
    # Only case 1's ann–cat pair reached the senior, shown without the raters' choices.
    assert len(decided) == 1, decided
    (first, second, fields) = decided[0]
    assert {first, second} == {(0, "ann"), (0, "cat")}
    assert fields == ["criteria", "dialogue", "question_type", "response", "responses", "token",
                      "whole_unit"]  # fmt: skip

    product.cli("study", "close", STUDY, "--yes")

    with httpx.Client(base_url=product.base_url, timeout=300) as client:
        headers = _token(client, tally, *DEMO_ADMIN)
        deadline = time.monotonic() + 60
        while True:  # with a broker, gold is written by the worker shortly after the close
            reply = tally.seen(
                "report", client.get(f"/api/v1/admin/studies/{STUDY}/report/", headers=headers)
            )
            assert reply.status_code == 200, reply.text
            report = reply.json()
            if report["counts"]["gold"] == 6 or time.monotonic() > deadline:
                break
            time.sleep(1)
    admin = admin_session(product.base_url, tally)
    page = tally.seen("report-page", admin.get(f"/admin/studies/{STUDY}/report/"))
    admin.close()
    assert page.status_code == 200 and "fair" in page.text and "biased" in page.text

    print(product.database, "responses:", dict(sorted(tally.status.items())))
    assert not tally.errors, tally.errors[:5]
    assert_report_worked_by_hand(report)
    assert "Traceback" not in product.log(), product.log()[-3000:]
    print(f"took {time.monotonic() - started:.1f} s")


def assert_report_worked_by_hand(report: dict) -> None:
    schema_validator("pairwise-study-report").validate(report)
    assert report["question_type"] == "pairwise" and report["study"]["pairwise_set"] == SET

    # Pairs in name order per case: ann–bob, ann–cat, bob–cat; 2 cases, 6 pairs, 18 choices.
    # Gold: ann–bob ann (3/3) and bob–cat cat (3/3) in both cases; ann–cat in case 1 split
    # three ways (ann, cat, tie), decided ann by the senior; in case 2 tie, tie, cat: tie 2/1.
    counts = report["counts"]
    assert (counts["pairs"], counts["cases"], counts["choices"], counts["gold"]) == (6, 2, 18, 6)
    assert counts["provenance"] == {"3/3": 4, "2/1": 1, "adjudicated": 1}

    judges = {j["judge"]: j for j in report["judges"]}
    assert set(judges) == {"fair", "biased"}
    assert all(j["pairs_judged"] == 6 for j in judges.values())

    # The fair judge answers by content in both orders: ann–bob ann, ann–cat tie, bob–cat
    # cat, in both cases. Codes (first, second, tie) per case: gold [0, 0, 1] and [0, 2, 1],
    # the fair judge [0, 2, 1] twice: agreement 5/6 (it misses only the senior's ann).
    # κ: gold's marginals 3/6, 2/6, 1/6, the judge's 2/6 each: p_e = (6 + 4 + 2)/36 = 1/3,
    # κ = (5/6 − 1/3)/(1 − 1/3) = 3/4.
    fair = judges["fair"]
    with_ties = fair["vs_gold"]["with_ties"]
    assert with_ties["n"] == 6
    assert with_ties["agreement"]["value"] == pytest.approx(5 / 6)
    assert with_ties["kappa"]["value"] == pytest.approx(0.75)
    ci = with_ties["agreement"]["ci95"]
    assert ci["low"] < 5 / 6 <= ci["high"] <= 1
    # Without ties: its two ann–cat ties are left out; the four decisive pairs all agree
    # (two categories, each half the time: κ = 1).
    without = fair["vs_gold"]["without_ties"]
    assert (without["n"], without["agreement"]["value"]) == (4, 1.0)
    assert without["kappa"]["value"] == pytest.approx(1.0)
    assert fair["vs_gold"]["dropped_for_ties"] == 2
    # Consistent on all 6 pairs; of its 8 decisive verdicts (4 pairs × 2 orders) the winner
    # is shown first in exactly one order of each pair: 4/8.
    assert fair["position"]["consistent"]["value"] == 1.0
    assert fair["position"]["consistent"]["n"] == 6
    assert fair["position"]["first_shown_wins"]["value"] == 0.5
    assert fair["position"]["first_shown_wins"]["n"] == 8
    assert fair["position"]["unpaired"] == 0

    # The biased judge (--position-bias 1: every draw in [0, 1) is below 1) picks the first
    # shown on every prompt, ties by content included: "a" as stored, "b" swapped, so every
    # pair flips with the order: consistent 0/6, and the first shown wins 12/12. Every pair
    # counts as a tie, so it agrees with gold only on case 2's ann–cat tie: 1/6, and κ = 0
    # (a constant labeller: p_o = p_e = 1/6). Without ties nothing is left (6 dropped).
    biased = judges["biased"]
    assert biased["position"]["consistent"]["value"] == 0.0
    assert biased["position"]["consistent"]["n"] == 6
    assert biased["position"]["first_shown_wins"]["value"] == 1.0
    assert biased["position"]["first_shown_wins"]["n"] == 12
    with_ties = biased["vs_gold"]["with_ties"]
    assert with_ties["agreement"]["value"] == pytest.approx(1 / 6)
    assert with_ties["kappa"]["value"] == pytest.approx(0.0, abs=1e-9)
    assert biased["vs_gold"]["dropped_for_ties"] == 6
    assert biased["vs_gold"]["without_ties"]["n"] == 0

    # Human baseline (each rater against the other two when those agree): the 4 unanimous
    # pairs give 12 agreements; on the three-way split the other two never agree (3 skipped);
    # on the 2/1 pair the tie raters' others differ (skipped) and the cat rater's others say
    # tie: a disagreement. 12/13; without ties that one is dropped: 12/12.
    baseline = report["experts"]["human_baseline"]
    assert (baseline["with_ties"]["n"], baseline["with_ties"]["agreement"]["value"]) == (
        13,
        pytest.approx(12 / 13),
    )
    assert (baseline["without_ties"]["n"], baseline["dropped_for_ties"]) == (12, 1)
    assert baseline["without_ties"]["agreement"]["value"] == 1.0

    # Length (ann < cat < bob): every decisive choice, the fair judge's 4 and gold's 5, went
    # to the shorter response: separated, so each slope is infinite and withheld, with the
    # ties left out counted (judge 2, gold 1). The biased judge has no decisive pair at all.
    length = fair["length_bias"]
    assert length["slope"]["judge"]["value"] is None and length["slope"]["judge"]["n"] == 4
    assert "separated" in length["slope"]["judge"]["reason"]
    assert length["slope"]["experts"]["value"] is None and length["slope"]["experts"]["n"] == 5
    assert length["ties_left_out"] == {"judge": 2, "experts": 1}
    assert "separated" in length["slope"]["experts"]["reason"]
    assert length["slope"]["difference"]["value"] is None
    no_side = biased["length_bias"]["slope"]["judge"]
    assert (no_side["value"], no_side["n"]) == (None, 0)

    # Rankings: gold has ann and cat each beat bob twice, ann beat cat once and tied once:
    # ann > cat > bob. The fair judge ranks ann = cat > bob: of the three model pairs two are
    # concordant and one tied in the judge's ranking only, τ-b = 2 / √(3 · 2).
    assert report["experts"]["ranking"]["models"] == ["ann", "cat", "bob"]
    tau = fair["ranking_tau"]
    assert tau["n"] == 3 and tau["tau_b"] == pytest.approx(2 / math.sqrt(6), abs=1e-6)
    # The biased judge ties every pair: its strengths are all equal, so τ is undefined.
    strengths = biased["ranking"]["bradley_terry"]["strength"]
    assert max(strengths.values()) - min(strengths.values()) == pytest.approx(0, abs=1e-9)
    assert biased["ranking_tau"]["tau_b"] is None

    # No rubric judge ran on the dataset: each of gold's 5 decisive pairs is unscored.
    preference = report["rubric_preference"]
    assert preference["rubric_judge"] is None and preference["left_out"]["unscored"] == 5
