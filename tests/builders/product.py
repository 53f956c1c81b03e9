"""Clients for the running product: signed-in experts, the admin, and a tally of replies."""

import threading
from collections import Counter
from dataclasses import dataclass, field

import httpx

from tests.product.conftest import PASSWORD


def token(client: httpx.Client, username: str) -> dict[str, str]:
    reply = client.post("/api/v1/auth/token/", json={"username": username, "password": PASSWORD})
    assert reply.status_code == 200, reply.text
    return {"Authorization": f"Token {reply.json()['token']}"}


def signed_in(base_url: str, username: str) -> httpx.Client:
    """A browser-like session (cookie and CSRF token) of ``username``."""
    client = httpx.Client(base_url=base_url, timeout=60, follow_redirects=True)
    client.get("/login/")
    reply = client.post(
        "/login/",
        data={
            "username": username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": client.cookies["csrftoken"],
        },
        headers={"Referer": f"{base_url}/login/"},
    )
    assert reply.status_code == 200 and "/login/" not in str(reply.url), reply.text[:300]
    return client


def senior_decisions(body: dict) -> list[dict]:
    """A senior's decisions on a claimed unit, made as blind as the raters': met for every
    criterion to decide, with a reason."""
    return [
        {"criterion": c["id"], "hit": True, "reason": "回应做到了这一点"}
        for c in body["unit"]["criteria"]
    ]


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    status: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    submitted: dict[str, dict[str, bool] | None] = field(default_factory=dict)
    decided: int = 0

    def seen(self, what: str, reply: httpx.Response) -> httpx.Response:
        with self.lock:
            self.status[f"{what} {reply.status_code}"] += 1
            if reply.status_code >= 500:
                self.errors.append(f"{what} {reply.status_code}: {reply.text[:300]}")
        return reply


def admin_session(base_url: str, tally: Tally) -> httpx.Client:
    client = httpx.Client(base_url=base_url, timeout=120, follow_redirects=True)
    page = tally.seen("admin-login", client.get("/admin/login/"))
    reply = tally.seen(
        "admin-login",
        client.post(
            "/admin/login/?next=/admin/",
            data={
                "username": "admin",
                "password": "heartbench-demo",
                "csrfmiddlewaretoken": client.cookies["csrftoken"],
                "next": "/admin/",
            },
            headers={"Referer": str(page.url)},
        ),
    )
    assert reply.status_code == 200 and "/admin/login/" not in str(reply.url), reply.text[:500]
    return client
