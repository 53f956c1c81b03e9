"""The load test's HTTP/1.1 client (benchmarks/load_experts.py ``Connection``) against a real
local server: a kept-alive connection reused, bodies by Content-Length and chunked, none on
204, a server-closed connection reopened (and the request sent again only when nothing was
answered), and a 503's Retry-After honoured and counted."""

import asyncio
import json
import random
import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise

import pytest

from benchmarks.load_experts import (
    Connection,
    LockWaits,
    Phase,
    Tally,
    choose,
    compare_rows,
    expert,
    fake_preference,
    phases_of,
    row_marks,
    until_not_busy,
)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, int]]  # (path, the client's port: one per connection)
    busy: list[int]  # 503s still to answer

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.answer()

    do_POST = do_PUT = do_GET

    def answer(self) -> None:
        self.seen.append((self.path, self.client_address[1]))
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/drop":  # closes without a word
            self.close_connection = True
            return
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b'3;ext=1\r\n{"a\r\n7\r\n": "b"}\r\n0\r\nX-Trailer: t\r\n\r\n')
            return
        if self.path == "/until-close":  # a body without a length, ended by closing
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"until": "close"}')
            self.close_connection = True
            return
        if self.path == "/empty":
            self.send_response(204)
            self.end_headers()
            return
        if self.path == "/busy" and self.busy:
            self.busy.pop()
            self.send_response(503)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        echo = {
            "method": self.command,
            "authorization": self.headers["Authorization"],
            "type": self.headers.get("Content-Type"),
            "body": body.decode(),
        }
        reply = json.dumps(echo).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(reply)))
        if self.path == "/close":  # says so
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(reply)
        # /idle-close: closes after the reply without saying so, as a keep-alive running out
        self.close_connection = self.path in ("/close", "/idle-close")


@pytest.fixture
def server():
    handler = type("Scripted", (Handler,), {"seen": [], "busy": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield handler, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def run(base_url: str, steps):
    """``steps(connection)`` on one fresh connection with a token header, then closed."""

    async def main():
        connection = Connection(base_url, {"Authorization": "Token abc"})
        try:
            return await steps(connection)
        finally:
            connection.close()

    return asyncio.run(main())


def test_one_kept_alive_connection_reads_length_chunked_and_empty_bodies(server):
    handler, url = server

    async def steps(connection):
        sent = json.dumps({"labels": [{"criterion": "c1", "hit": True}]}).encode()
        return [
            await connection.request("PUT", "/length", sent),
            await connection.request("GET", "/chunked"),
            await connection.request("POST", "/empty"),
            await connection.request("GET", "/length"),
        ]

    put, chunked, empty, get = run(url, steps)
    assert put.status == 200 and put.json() == {
        "method": "PUT",
        "authorization": "Token abc",
        "type": "application/json",
        "body": '{"labels": [{"criterion": "c1", "hit": true}]}',
    }
    assert chunked.status == 200 and chunked.json() == {"a": "b"}
    assert empty.status == 204 and empty.body == b""
    assert get.json()["body"] == "" and get.json()["type"] is None
    assert len({port for _, port in handler.seen}) == 1, "one connection for all four"


@pytest.mark.parametrize("path", ["/close", "/idle-close", "/until-close"])
def test_a_connection_the_server_closed_is_reopened(server, path):
    handler, url = server

    async def steps(connection):
        return [await connection.request("GET", p) for p in (path, "/length", "/length")]

    replies = run(url, steps)
    assert [r.status for r in replies] == [200, 200, 200]
    assert replies[1].json()["method"] == "GET"
    until_close = path == "/until-close"
    assert replies[0].json() == ({"until": "close"} if until_close else replies[1].json())
    # Each request reached the server once: the second on a new connection, the third on it.
    assert [p for p, _ in handler.seen] == [path, "/length", "/length"]
    ports = [port for _, port in handler.seen]
    assert ports[0] != ports[1] == ports[2]


def test_a_request_is_sent_again_once_and_only_when_nothing_was_answered(server):
    handler, url = server

    async def steps(connection):
        await connection.request("GET", "/length")
        await connection.request("POST", "/drop")

    with pytest.raises(asyncio.IncompleteReadError):
        run(url, steps)
    # Dropped on the reused connection (retried on a fresh one), dropped again there: raised.
    assert [p for p, _ in handler.seen] == ["/length", "/drop", "/drop"]
    assert len({port for _, port in handler.seen}) == 2


def test_busy_replies_are_counted_timed_and_retried(server):
    handler, url = server
    handler.busy.extend([1, 1])
    tally = Tally()

    async def steps(connection):
        return await until_not_busy(connection, tally, "next", "POST", "/busy")

    assert run(url, steps).status == 200
    assert tally.status == {"next 503": 2, "next 200": 1}
    assert [status for _, _, status in tally.latency["next"]] == [503, 503, 200]
    assert len({port for _, port in handler.seen}) == 1


LOCKS = [(1.0, 0, 0), (6.0, 4, 1), (7.0, 4, 3), (12.0, 9, 9)]


def test_a_level_is_reported_in_rows_between_its_snapshots():
    tally = Tally()
    tally.latency["next"] += [(0.1, 0.9, 201), (4.9, 0.5, 201), (5.0, 0.02, 201), (9.0, 0.04, 201)]
    tally.latency["submit"] += [(2.0, 0.3, 503), (6.0, 0.05, 200), (7.0, 0.06, 201)]
    # CPU seconds (server, client, PostgreSQL), then the seconds since the level started.
    snapshots = [(10.0, 1.0, 20.0, 0.0), (10.4, 1.1, 20.2, 5.0), (11.4, 1.3, 20.7, 10.0)]
    # PostgreSQL's busy sessions, and those waiting on a lock, sampled at these seconds.
    waits = LockWaits(url="never connected")
    waits.samples = [(tally.started + at, busy, waiting) for at, busy, waiting in LOCKS]
    arrival, steady = phases_of(tally=tally, snapshots=snapshots, experts=3, waits=waits)

    assert (arrival.start, arrival.end, steady.start, steady.end) == (0, 5.0, 5.0, 10.0)
    assert arrival.latency == {"next": [0.9, 0.5], "submit": [0.3]}
    assert steady.latency == {"next": [0.02, 0.04], "submit": [0.05, 0.06]}
    assert steady.cpu == pytest.approx((1.0, 0.2, 0.5))
    # 4 requests in 5 s, 2 acknowledged submits; CPU per request 1.0 / 4, 0.2 / 4, 0.5 / 4 s.
    assert steady.row().startswith("| 3 | 5–10 s | 0.8 | 0.4 | 20/40/40 | — | — | 50/60/60 | ")
    # 4 of the 8 busy sessions sampled in the steady row waited; none was busy in the arrival.
    assert steady.row().endswith(" | 250.00 | 50.00 | 125.00 | 50% | 0 | 0 |")
    assert arrival.row().endswith(" | — | 1 | 0 |")  # the 503


def test_without_postgresql_its_column_is_empty():
    tally = Tally()
    tally.latency["draft"].append((0.5, 0.01, 200))
    snapshots = [(0.0, 0.0, None, 0.0), (0.1, 0.0, None, 2.0)]
    [whole] = phases_of(tally=tally, snapshots=snapshots, experts=1, waits=None)
    assert (whole.start, whole.end, whole.latency) == (0, 2.0, {"draft": [0.01]})
    assert whole.row().endswith(" | 100.00 | 0.00 | — | — | 0 | 0 |")


def test_rows_split_at_the_arrival_then_every_so_many_seconds_and_never_at_the_ends():
    assert row_marks(arrival=5, every=10, seconds=45) == [5, 15, 25, 35]
    assert row_marks(arrival=5, every=0, seconds=45) == [5]
    # No arrival row: an empty first row would report a level of no requests.
    assert row_marks(arrival=0, every=10, seconds=30) == [10, 20]
    assert row_marks(arrival=0, every=0, seconds=45) == []


def test_the_pairwise_choice_is_the_same_pair_whichever_side_is_shown_first():
    mirrored = {"a": "b", "b": "a", "tie": "tie"}
    texts = [f"模拟回复 {i}-{case}：我在这里陪着你。" for i in range(3) for case in range(40)]
    made = [fake_preference(x, y) for x, y in pairwise(texts)]
    assert all(fake_preference(y, x) == mirrored[fake_preference(x, y)] for x, y in pairwise(texts))
    assert set(made) == {"a", "b", "tie"}  # the three raters' agreement tests the mapping


class PairScript(Handler):
    """The rating API as a pairwise study serves it: one pair to claim, then none."""

    def answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen.append((f"{self.command} {self.path} {body.decode()}", 0))
        status, reply = 204, b""
        if self.path.startswith("/api/v1/work/rating/next/"):
            if sum(p.startswith("POST /api/v1/work/rating/next/") for p, _ in self.seen) == 1:
                unit = {"question_type": "pairwise", "responses": ["一", "二"], "criteria": []}
                status = 201
                reply = json.dumps({"id": "p1", "progress": {}, "unit": unit}).encode()
        elif self.path == "/api/v1/work/rating/p1/submit/":
            status, reply = 201, b"{}"
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def test_a_pairwise_expert_claims_thinks_and_submits_a_choice_without_autosaving():
    handler = type("Pairs", (PairScript,), {"seen": [], "busy": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    tally = Tally()
    try:
        run(
            f"http://127.0.0.1:{httpd.server_address[1]}",
            lambda connection: expert(
                connection,
                study="s",
                deadline=time.monotonic() + 30,
                think=0.01,
                tally=tally,
                rng=random.Random(1),
                kind="pairwise",
            ),
        )
    finally:
        httpd.shutdown()
        httpd.server_close()
    sent = {"choice": fake_preference("一", "二"), "reason": tally.submitted["p1"]["reason"]}
    assert tally.submitted == {"p1": sent} and not tally.drafted and not tally.unexpected
    assert [p for p, _ in handler.seen] == [
        "POST /api/v1/work/rating/next/?study=s ",
        f"POST /api/v1/work/rating/p1/submit/ {json.dumps(sent)}",
        "POST /api/v1/work/rating/next/?study=s ",  # none left: the expert stops
    ]
    assert tally.status == {"next 201": 1, "submit 201": 1, "next 204": 1}


def test_a_rubric_unit_served_to_a_pairwise_expert_is_reported_not_answered(server):
    tally = Tally()
    claimed = {"id": "r1", "unit": {"question_type": "rubric", "criteria": [{"id": "c"}]}}

    async def steps(connection):
        async def pause():
            pass

        return await choose(
            connection, claimed, pause=pause, deadline=1e12, tally=tally, rng=random.Random(0)
        )

    assert run(server[1], steps) is False
    assert tally.unexpected[0].startswith("next: not a pair: ") and not server[0].seen


def kind_phase(kind: str, *, submits: int, cpu: float, next_p95: float) -> Phase:
    statuses = Counter({"next 201": submits, "submit 201": submits})
    if kind == "rubric":
        statuses["draft 200"] = submits
    latency = defaultdict(list, {"next": [next_p95] * 20, "submit": [0.01] * 20})
    return Phase(10, 5.0, 15.0, latency, statuses, (cpu, 0.1, None), None, kind)


def test_the_kinds_are_compared_at_each_level_with_their_ratio():
    rows = compare_rows(
        {
            (10, "rubric"): kind_phase("rubric", submits=20, cpu=1.2, next_p95=0.04),
            (10, "pairwise"): kind_phase("pairwise", submits=30, cpu=1.2, next_p95=0.02),
            (20, "rubric"): kind_phase("rubric", submits=40, cpu=2.4, next_p95=0.04),
        },
        {(10, "rubric"): 0.25, (10, "pairwise"): 0.375, (20, "rubric"): 0.5},
    )
    # 60 requests (20 each of next, draft, submit) in 10 s, 1.2 s of server CPU: 20 ms each.
    assert rows[0] == "| 10 | rubric | 6.0 | 2.0 | 40.0 | 10.0 | 20.0 | — | 60.0 | 25% |"
    assert rows[1] == "| 10 | pairwise | 6.0 | 3.0 | 20.0 | 10.0 | 20.0 | — | 40.0 | 38% |"
    assert rows[2] == (
        "| 10 | pairwise / rubric | 1.00 | 1.50 | 0.50 | 1.00 | 1.00 | — | 0.67 | — |"
    )
    assert rows[3:] == ["| 20 | rubric | 12.0 | 4.0 | 40.0 | 10.0 | 20.0 | — | 60.0 | 50% |"]


def test_a_run_measuring_kinds_names_each_rows_kind():
    phase = kind_phase("pairwise", submits=30, cpu=1.2, next_p95=0.02)
    assert phase.row().startswith("| 10 | pairwise | 5–15 s | 6.0 | 3.0 | 20/20/20 | — | — |")
