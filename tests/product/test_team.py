"""A whole study worked by a team at once on `heartbench serve`, as the README starts it.

Twenty experts rate over the REST API (claim, autosave, submit, read the study's progress; a
third of them revise each unit right after, racing its last rating) in threads of their own, a
senior decides the 2/1 splits on catastrophic criteria as they arrive, one expert rates in
Chromium alongside, and an admin watches the dashboard and the report while they work, then
closes the study from the admin and downloads the report, the export and the leaderboard.
Every response is counted: none may be a 5xx. Afterwards the stored study is checked against
what the clients were told (tests.product.invariants).
"""

import hashlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time

import httpx
import pytest

from benchmark.llm.fake_server import fake_verdict
from frontend.management.commands.serve import GRACEFUL_SECONDS
from tests.builders.product import Tally, admin_session, senior_decisions
from tests.e2e.conftest import CHROMIUM, LOCALES, shoot
from tests.product.conftest import BIN, PASSWORD, ROOT, _wait_up
from tests.services import free_port

API_EXPERTS = 20
STUDY = "team"


def _label(username: str, criterion: dict) -> bool:
    """What an expert marks: the fake judge's verdict, flipped now and then (often on the
    catastrophic criterion, so that some units split 2/1 and go to the senior)."""
    often = criterion.get("ability") == "catastrophic"
    digest = hashlib.sha256(f"{username}:{criterion['text']}".encode()).digest()[0]
    flip = digest % 10 < (3 if often else 1)
    return fake_verdict(criterion["text"]) != flip


def _token(client: httpx.Client, tally: Tally, username: str) -> dict[str, str]:
    reply = tally.seen(
        "token",
        client.post("/api/v1/auth/token/", json={"username": username, "password": PASSWORD}),
    )
    assert reply.status_code == 200, reply.text
    return {"Authorization": f"Token {reply.json()['token']}"}


def _retry_later(reply: httpx.Response) -> bool:
    """503 is the server's way of saying "busy, try again"; it must come with Retry-After."""
    if reply.status_code != 503:
        return False
    assert reply.headers.get("Retry-After"), reply.text
    time.sleep(0.2)
    return True


def api_expert(base_url: str, username: str, tally: Tally) -> None:
    with httpx.Client(base_url=base_url, timeout=120) as client:
        headers = _token(client, tally, username)
        while True:
            reply = tally.seen(
                "next",
                client.post("/api/v1/work/rating/next/", params={"study": STUDY}, headers=headers),
            )
            if _retry_later(reply):
                continue
            if reply.status_code != 201:
                break  # nothing left for this expert (204, or a state saying why)
            body = reply.json()
            labels = [
                {"criterion": c["id"], "hit": _label(username, c), "version": c["version"]}
                for c in body["unit"]["criteria"]
            ]
            path = f"/api/v1/work/rating/{body['id']}"
            half = {"labels": labels[: len(labels) // 2]}
            while _retry_later(
                tally.seen("draft", client.put(f"{path}/draft/", json=half, headers=headers))
            ):
                pass
            while True:
                reply = tally.seen(
                    "submit",
                    client.post(f"{path}/submit/", json={"labels": labels}, headers=headers),
                )
                if not _retry_later(reply):
                    break
            assert reply.status_code in (200, 201), reply.text
            with tally.lock:
                tally.submitted[body["id"]] = {label["criterion"]: label["hit"] for label in labels}
            if _revises(username):
                _revise(client, headers, tally, body["id"], labels)
            while _retry_later(
                reply := tally.seen(
                    "progress", client.get(f"/api/v1/studies/{STUDY}/progress/", headers=headers)
                )
            ):
                pass
            assert reply.status_code == 200, reply.text


def _revises(username: str) -> bool:
    """A third of the experts look again right after each submit and change one mark."""
    return hashlib.sha256(username.encode()).digest()[0] % 3 == 0


def _revise(client: httpx.Client, headers, tally: Tally, assignment: str, labels: list) -> None:
    """Flip the first mark. The server takes it while the unit waits for ratings (200) and
    refuses it once the unit has them all (409); either way it must say which, and what it
    acknowledged is what must be stored."""
    revised = [{**labels[0], "hit": not labels[0]["hit"]}, *labels[1:]]
    path = f"/api/v1/work/rating/{assignment}/revise/"
    while _retry_later(
        reply := tally.seen("revise", client.post(path, json={"labels": revised}, headers=headers))
    ):
        pass
    assert reply.status_code in (200, 409), reply.text
    if reply.status_code == 200:
        assert reply.json()["version"] == 2, reply.text
        with tally.lock:
            tally.submitted[assignment] = {label["criterion"]: label["hit"] for label in revised}


def senior(base_url: str, tally: Tally, experts_done: threading.Event) -> None:
    with httpx.Client(base_url=base_url, timeout=120) as client:
        headers = _token(client, tally, "senior-00")
        while True:
            finished = experts_done.is_set()  # read first: a 204 after this is final
            reply = tally.seen(
                "adj-next",
                client.post(
                    "/api/v1/work/adjudication/next/", params={"study": STUDY}, headers=headers
                ),
            )
            if _retry_later(reply):
                continue
            if reply.status_code != 201:
                if finished:
                    return
                time.sleep(0.3)
                continue
            body = reply.json()
            decisions = senior_decisions(body)
            reply = tally.seen(
                "adj-submit",
                client.post(
                    f"/api/v1/work/adjudication/{body['id']}/submit/",
                    json={"decisions": decisions},
                    headers=headers,
                ),
            )
            assert reply.status_code in (200, 201), reply.text
            with tally.lock:
                tally.decided += 1


def admin_watches(client: httpx.Client, tally: Tally, experts_done: threading.Event) -> None:
    """The admin keeps the dashboard and the report open while the team works."""
    while not experts_done.is_set():
        for path in ("/admin/dashboard/", f"/admin/studies/{STUDY}/report/"):
            assert tally.seen("admin-watch", client.get(path)).status_code in (200, 503)
        time.sleep(0.5)


def browser_expert(chromium, base_url: str, artifacts, on_first_unit) -> int:
    """One expert rates in Chromium, from the keyboard, while the others use the API, until
    the workbench has nothing left for them. ``on_first_unit`` is called once the first unit
    is on screen (the others start then, so that they cannot take every slot first)."""
    context = chromium.new_context(
        viewport={"width": 1366, "height": 768}, locale=LOCALES["zh-hans"]
    )
    page = context.new_page()
    page.goto(f"{base_url}/login/?next=/rate/{STUDY}/")
    page.fill("input[name=username]", f"expert-{API_EXPERTS:02d}")
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    nothing_left = "!document.getElementById('empty').hidden"
    unit_or_nothing = f"{nothing_left} || document.querySelectorAll('#criteria li').length > 0"
    rated = 0
    while True:
        page.wait_for_function(unit_or_nothing, timeout=60_000)
        if not rated:
            on_first_unit()
        if page.evaluate(nothing_left):
            break
        token = page.inner_text("#unit-token")
        for _ in range(page.locator("#criteria li").count()):
            page.keyboard.press("1")
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"document.getElementById('unit-token').textContent !== {json.dumps(token)}"
            f" || {nothing_left}",
            timeout=60_000,
        )
        rated += 1
    shoot(page, artifacts, "product-browser-expert")
    context.close()
    return rated


def _completed_ids(base_url: str, username: str, tally: Tally) -> list[str]:
    with httpx.Client(base_url=base_url, timeout=60) as client:
        headers = _token(client, tally, username)
        rows, url = [], "/api/v1/work/rating/completed/?page_size=50"
        while url:  # every page, as a client of a long list would
            reply = tally.seen("completed", client.get(url, headers=headers))
            assert reply.status_code == 200
            rows += reply.json()["results"]
            url = reply.json()["next"]
        return [row["id"] for row in rows if row.get("study") == STUDY and row["kind"] == "rating"]


@pytest.mark.browser
def test_a_team_works_a_whole_study_at_once_on_the_served_product(product, chromium, artifacts):
    assert CHROMIUM.exists()
    product.tool(
        "experts", "--experts", str(API_EXPERTS + 1), "--seniors", "1", "--password", PASSWORD
    )
    product.cli(
        "study", "create", STUDY, "--dataset", "demo",
        "--models", "demo-advice-bot,demo-warm-counsellor", "--judge", "demo-judge",
        "--fraction", "1", "--seed", "7", "--show-ability", "--adjudicate-splits", "catastrophic",
    )  # fmt: skip
    product.cli("study", "open", STUDY)

    tally = Tally()
    experts_done = threading.Event()
    admin = admin_session(product.base_url, tally)
    experts = [
        threading.Thread(target=api_expert, args=(product.base_url, f"expert-{i:02d}", tally))
        for i in range(API_EXPERTS)
    ]
    others = [
        threading.Thread(target=senior, args=(product.base_url, tally, experts_done)),
        threading.Thread(target=admin_watches, args=(admin, tally, experts_done)),
    ]
    for thread in others:
        thread.start()

    def start_the_team() -> None:
        for thread in experts:
            thread.start()

    rated_in_browser = browser_expert(chromium, product.base_url, artifacts, start_the_team)
    for thread in experts:
        thread.join(600)
    experts_done.set()
    for thread in others:
        thread.join(600)
    assert not any(t.is_alive() for t in experts + others), "a simulated user never finished"

    # The admin closes the study from the admin's change list, then downloads what it made.
    changelist = admin.get("/admin/validation/study/")
    study_pk = re.search(r'name="_selected_action" value="(\d+)"', changelist.text).group(1)
    closed = tally.seen(
        "admin-close",
        admin.post(
            "/admin/validation/study/",
            data={
                "action": "close_studies",
                "_selected_action": study_pk,
                "csrfmiddlewaretoken": admin.cookies["csrftoken"],
            },
            headers={"Referer": f"{product.base_url}/admin/validation/study/"},
        ),
    )
    assert closed.status_code == 200
    downloads = {
        fmt: tally.seen(
            "report", admin.get(f"/admin/studies/{STUDY}/report/", params={"format": fmt})
        )
        for fmt in ("json", "html", "csv")
    }
    export = tally.seen(
        "export", admin.get(f"/admin/studies/{STUDY}/export/", params={"format": "csv"})
    )
    leaderboard = tally.seen("leaderboard", admin.get("/leaderboard/"))
    admin.close()

    print("responses:", dict(sorted(tally.status.items())))
    assert not tally.errors, tally.errors[:5]
    assert all(r.status_code == 200 for r in [*downloads.values(), export, leaderboard])
    assert export.text.count("\n") > 24  # a header and a row per unit × criterion
    report = downloads["json"].json()
    assert report["counts"]["units"] == 24
    assert "demo-judge" in downloads["html"].text
    assert "demo-warm-counsellor" in leaderboard.text
    assert tally.decided >= 1, "no 2/1 split reached the senior"
    assert tally.status["revise 200"] >= 1, "no revision was taken"
    assert rated_in_browser >= 1

    # The browser expert's submissions were acknowledged on the page; add them by id.
    submitted = dict(tally.submitted)
    submitted.update(
        dict.fromkeys(_completed_ids(product.base_url, f"expert-{API_EXPERTS:02d}", tally))
    )
    deadline = time.monotonic() + 120
    while True:  # with a broker, a senior's decision becomes gold in the worker shortly after
        problems = json.loads(
            product.tool("check", STUDY, stdin=json.dumps({"submitted": submitted, "closed": True}))
        )
        if not problems or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert problems == []
    assert len(submitted) == 24 * 3  # every unit rated by three
    assert "Traceback" not in product.log(), product.log()[-3000:]


def test_the_server_keeps_an_idle_connection_longer_than_a_client_pool_does(product):
    """A client reuses a kept-alive connection until its pool lets it go (httpx: 5 s idle).
    Were the server's keep-alive shorter, it could close the connection just as the client
    sends on it, and the request would be dropped ("Server disconnected"). Idle a little past
    the pool's limit on one raw connection: the server must still answer on it."""
    idle = httpx.Limits().keepalive_expiry + 0.5
    connection = http.client.HTTPConnection(product.base_url.removeprefix("http://"), timeout=30)
    try:
        connection.request("GET", "/login/")
        first = connection.getresponse()
        first.read()
        assert first.status == 200 and first.getheader("Connection") != "close"
        kept = connection.sock
        time.sleep(idle)  # the idleness is what is tested
        connection.request("GET", "/login/")
        assert connection.sock is kept, "the client had to open a new connection"
        again = connection.getresponse()
        again.read()
        assert again.status == 200
    finally:
        connection.close()


def test_ctrl_c_stops_the_server_at_once_whatever_its_clients_hold(product):
    """Ctrl-C in the terminal signals every process of `heartbench serve`. A worker's exit
    used to wait for each of its threads, and a thread waits on its client: 5 s for a
    connection a browser opened ahead and left unused, and for a request whose headers never
    end until the arbiter killed the worker ("Worker was sent SIGKILL!"). Now the worker
    gives them a short grace and leaves."""
    port = free_port()
    log = product.folder / "ctrl-c.log"
    server = subprocess.Popen(
        [str(BIN / "heartbench"), "serve", "--port", str(port)],
        env=product.env, cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal's job is
    )  # fmt: skip
    clients = []
    try:
        _wait_up(f"http://127.0.0.1:{port}", server, log)
        clients.append(socket.create_connection(("127.0.0.1", port)))  # opened ahead, unused
        unfinished = socket.create_connection(("127.0.0.1", port))
        unfinished.sendall(b"GET /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line
        clients.append(unfinished)
        time.sleep(0.5)  # both reach a worker's thread
        started = time.monotonic()
        os.killpg(server.pid, signal.SIGINT)
        server.wait(3 * GRACEFUL_SECONDS)
        took = time.monotonic() - started
    finally:
        for client in clients:
            client.close()
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    text = log.read_text()
    assert server.returncode == 0, text[-3000:]
    assert "SIGKILL" not in text and "Traceback" not in text, text[-3000:]
    assert "waiting on a client" in text  # the worker said what it left behind
    assert took < GRACEFUL_SECONDS, f"{took:.1f} s: the arbiter's deadline, not the grace"
