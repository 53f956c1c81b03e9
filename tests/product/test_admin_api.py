"""The admin API on the served product: a script with the demo admin's token runs a study from
creation to its export, over HTTP as any client would."""

import csv
import io

import httpx

from benchmark.services.demo import DEMO_ADMIN

API = "/api/v1/admin/studies/"


def test_a_script_runs_a_study_through_the_served_admin_api(product):
    with httpx.Client(base_url=product.base_url, timeout=120) as client:
        username, password = DEMO_ADMIN
        token = client.post(
            "/api/v1/auth/token/", json={"username": username, "password": password}
        )
        assert token.status_code == 200, token.text
        client.headers["Authorization"] = f"Token {token.json()['token']}"

        created = client.post(
            API,
            json={
                "name": "api-study",
                "dataset": "demo",
                "models": ["demo-advice-bot", "demo-warm-counsellor"],
                "judge_runs": ["demo-judge"],
                "fraction": 1,
                "seed": 7,
            },
        )
        assert created.status_code == 201, created.text
        units = created.json()["units"]
        assert units > 0 and len(created.json()["judge_runs"]) == 2
        # A refusal is worded in the language the request asks for (the platform's default,
        # Chinese, when it asks for none).
        refused = {"name": "x", "dataset": "none", "models": []}
        worded = {"en": "no dataset named 'none'", "": "没有名为 'none' 的数据集"}
        for language, words in worded.items():
            reply = client.post(API, json=refused, headers={"Accept-Language": language})
            assert reply.status_code == 400 and reply.json() == {"dataset": [words]}
        assert client.post(f"{API}api-study/open/").json()["status"] == "open"
        assert client.get(f"{API}api-study/progress/").json()["units"] == units
        listed = client.get(API, params={"page_size": 1}).json()
        assert listed["results"][0]["name"] == "api-study" and listed["count"] >= 1

        closed = client.post(f"{API}api-study/close/", json={"unrated": "drop"})
        assert closed.status_code == 200, closed.text
        assert closed.json()["dropped"] == units  # nobody rated: every unit dropped, as asked
        report = client.get(f"{API}api-study/report/")
        assert report.status_code == 200 and report.json()["study"]["name"] == "api-study"
        export = client.get(f"{API}api-study/export/", params={"format": "csv"})
        assert export.status_code == 200
        rows = list(csv.DictReader(io.StringIO(export.text)))
        assert len({row["unit"] for row in rows}) == units
    assert "Traceback" not in product.log(), product.log()[-3000:]
