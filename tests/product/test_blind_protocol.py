"""The blind protocol on the served product: five raters and two seniors at once on
`heartbench serve` (SQLite in process, or PostgreSQL with Redis and a worker), and an admin.

A rater's flag never reaches the unit's adjudicator, in either order (flag then claim, claim
then flag); the raters of a running study see no model or judge of its dataset and no agreement
figure that moves; a flag no senior may answer is on the admin's dashboard; the demo's public
logins join no real study and `heartbench demo-remove` takes them away.
"""

import re
import threading

import httpx
import pytest

from tests.builders.product import admin_session, signed_in, token
from tests.product.conftest import PASSWORD

STUDY = "blind"
RATERS = [f"expert-{i:02d}" for i in range(3)]
SENIORS = ["senior-00", "senior-01"]


def rate_everything(base_url: str, username: str, *, hit: bool, mine: dict, errors: list) -> None:
    """Claim and submit every unit the study has for this rater, all met or all not met."""
    with httpx.Client(base_url=base_url, timeout=60) as client:
        headers = token(client, username)
        while True:
            reply = client.post(f"/api/v1/assignments/next/?study={STUDY}", headers=headers)
            if reply.status_code >= 500:
                errors.append(reply.text[:300])
            if reply.status_code != 201:
                return
            body = reply.json()
            labels = [{"criterion": c["id"], "hit": hit} for c in body["unit"]["criteria"]]
            done = client.post(
                f"/api/v1/assignments/{body['id']}/submit/",
                json={"labels": labels},
                headers=headers,
            )
            if done.status_code >= 500:
                errors.append(done.text[:300])
            assert done.status_code in (200, 201), done.text
            mine.setdefault(username, []).append(body["id"])


def flag(client: httpx.Client, headers, assignment: str) -> int:
    reply = client.post(
        f"/api/v1/assignments/{assignment}/flag/",
        json={"reason": "please look at the catastrophic criterion again"},
        headers=headers,
    )
    assert reply.status_code == 201, reply.text
    return reply.json()["id"]


def flags_shown(session: httpx.Client) -> list[int]:
    return [
        int(n) for n in re.findall(r"/adjudicate/flags/(\d+)/", session.get("/adjudicate/").text)
    ]


def decide(client: httpx.Client, headers, body: dict) -> None:
    decisions = [
        {"criterion": c["id"], "hit": True, "reason": "the majority reads it right"}
        for c in body["unit"]["criteria"]
    ]
    reply = client.post(
        f"/api/v1/adjudications/{body['id']}/submit/",
        json={"decisions": decisions},
        headers=headers,
    )
    assert reply.status_code in (200, 201), reply.text


@pytest.mark.database
def test_the_blind_protocol_holds_on_the_served_product(product):
    product.tool("experts", "--experts", "5", "--seniors", "2", "--password", PASSWORD)
    product.cli(
        "study", "create", STUDY, "--dataset", "demo", "--models", "demo-advice-bot",
        "--judge", "demo-judge", "--fraction", "0.2", "--seed", "3", "--adjudicate-splits", "*",
    )  # fmt: skip
    product.cli("study", "open", STUDY)
    base = product.base_url

    # Three raters at once: two say met everywhere, one not met, so every unit splits.
    mine: dict[str, list[str]] = {}
    errors: list[str] = []
    threads = [
        threading.Thread(
            target=rate_everything,
            args=(base, name),
            kwargs={"hit": name != RATERS[2], "mine": mine, "errors": errors},
        )
        for name in RATERS
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    units = len(mine[RATERS[0]])
    assert units >= 2 and all(len(mine[r]) == units for r in RATERS), mine

    api = httpx.Client(base_url=base, timeout=60)
    raters = [token(api, r) for r in RATERS[:2]]
    on_unit = [
        {_unit_token(api, h, x): x for x in mine[r]}
        for h, r in zip(raters, RATERS[:2], strict=True)
    ]
    a, b = (token(api, s) for s in SENIORS)
    sessions = {s: signed_in(base, s) for s in SENIORS}
    seniors = {"senior-00": a, "senior-01": b}

    def hidden_from_both(flag_id: int) -> None:
        for session in sessions.values():
            assert flag_id not in flags_shown(session)
            assert session.get(f"/adjudicate/flags/{flag_id}/").status_code == 404

    def only_the_other_reads(flag_id: int, decider: str) -> None:
        for name, session in sessions.items():
            shown = flag_id in flags_shown(session)
            page = session.get(f"/adjudicate/flags/{flag_id}/").status_code
            assert (shown, page) == ((False, 404) if name == decider else (True, 200)), name

    # Flag, then claim: no senior reads it while the unit waits for a decision.
    flagged = next(iter(on_unit[0]))
    first = flag(api, raters[0], on_unit[0][flagged])
    hidden_from_both(first)
    # The admin sees it waiting, with why.
    admin = admin_session(base, type("T", (), {"seen": lambda self, what, r: r})())
    dashboard = admin.get("/admin/dashboard/").text
    assert 'data-alert="unread-flag" data-reason="decision"' in dashboard

    # Claim, then flag: a unit a senior holds is flagged; neither senior reads it, and once
    # decided only the senior who did not decide it does.
    held = api.post(f"/api/v1/adjudications/next/?study={STUDY}", headers=a)
    assert held.status_code == 201, held.text
    held_token = held.json()["unit"]["token"]
    second = flag(api, raters[1], on_unit[1][held_token])
    hidden_from_both(second)
    hidden_from_both(first)
    decide(api, a, held.json())
    decided_by = {held_token: "senior-00"}
    only_the_other_reads(second, "senior-00")

    # The seniors decide the rest; whoever decided the first flag's unit never reads it.
    for name in ["senior-01", "senior-00"] * units:
        reply = api.post(f"/api/v1/adjudications/next/?study={STUDY}", headers=seniors[name])
        if reply.status_code == 201:
            decided_by[reply.json()["unit"]["token"]] = name
            decide(api, seniors[name], reply.json())
    assert len(decided_by) == units, decided_by
    only_the_other_reads(first, decided_by[flagged])

    # The raters of the running study: no model, no judge of the demo dataset on the board,
    # no agreement figure of their own; another expert (not enrolled) sees the board.
    session_r = signed_in(base, RATERS[0])
    board = session_r.get("/leaderboard/?dataset=demo").text
    assert 'id="blind-dataset"' in board
    assert "demo-advice-bot" not in board and "demo-judge" not in board
    peer = re.search(r'<dd id="peer">(.*?)</dd>', session_r.get("/profile/").text, re.S)
    assert peer and "%" not in peer.group(1), peer
    assert "demo-advice-bot" in admin.get("/leaderboard/?dataset=demo").text

    # The demo's public logins: marked, never enrolled in a study of real data, then removed.
    product.cli("demo-study")
    product.cli(
        "import-dataset",
        "fixtures/demo/demo_questions.jsonl",
        "--name",
        "pilot-data",
        "--allow-copy",
    )
    product.cli(
        "import-answers", "fixtures/demo/demo-warm-counsellor.answers.jsonl",
        "--model", "pilot-model", "--dataset", "pilot-data",
    )  # fmt: skip
    product.cli(
        "study", "create", "pilot", "--dataset", "pilot-data", "--models", "pilot-model",
        "--fraction", "0.2", "--seed", "3",
    )  # fmt: skip
    out = product.cli("study", "enrol", "pilot", "--all-active")
    assert "demo-" not in out
    removed = product.cli("demo-remove")
    assert "removed" in removed
    login = httpx.post(
        f"{base}/api/v1/auth/token/",
        json={"username": "demo-expert-1", "password": "demo-password-not-secret"},
    )
    assert login.status_code == 400, login.text
    assert "nothing to remove" in product.cli("demo-remove")
    assert "Traceback" not in product.log()


def _unit_token(client: httpx.Client, headers, assignment: str) -> str:
    reply = client.get(f"/api/v1/assignments/{assignment}/", headers=headers)
    assert reply.status_code == 200, reply.text
    return reply.json()["unit"]["token"]
