"""The OpenAPI schema is a contract: Schemathesis against the API as `heartbench serve` serves it.

An expert with a token, an open study with units and a construction project with difficulty
work open. Schemathesis reads /api/schema/, sends
valid requests (each must be accepted) and invalid ones (each must be refused), follows the
schema's links from a claim to its draft, submit, revise and flag, and checks every answer
against the schema: its status documented, its body and headers of the documented shape, never
a 5xx. A bounded, seeded run (tests/product/schemathesis.toml) that takes seconds.
"""

import subprocess
from pathlib import Path

import httpx

from tests.builders.construction import BASE_SEEDS
from tests.conftest import require
from tests.product.conftest import BIN, PASSWORD

CONFIG = Path(__file__).with_name("schemathesis.toml")
STUDY = "contract"  # the study name schemathesis.toml hands to ?study=
PROJECT = "contract-build"  # and the project it hands to ?project=


def test_the_served_api_keeps_its_openapi_schema(product, artifacts, tmp_path):
    schemathesis = BIN / "schemathesis"
    require(schemathesis.exists(), "schemathesis is not installed (the test extra)")
    product.tool("experts", "--experts", "1", "--seniors", "0", "--password", PASSWORD)
    product.cli(
        "study", "create", STUDY, "--dataset", "demo", "--models", "demo-advice-bot",
        "--judge", "demo-judge", "--fraction", "1", "--seed", "7",
    )  # fmt: skip
    product.cli("study", "open", STUDY)
    # Construction work to claim over /api/v1/work/difficulty/ (schemathesis.toml's project).
    product.cli("construct", "create-project", PROJECT, "--dataset-name", f"{PROJECT}-set")
    product.cli("construct", "import-seeds", "--project", PROJECT, str(BASE_SEEDS))
    product.cli("construct-tasks", "--project", PROJECT, "--kind", "difficulty", "--raters", "1")
    reply = httpx.post(
        f"{product.base_url}/api/v1/auth/token/",
        json={"username": "expert-00", "password": PASSWORD},
    )
    assert reply.status_code == 200, reply.text

    run = subprocess.run(
        [
            str(schemathesis), "--config-file", str(CONFIG), "run",
            f"{product.base_url}/api/schema/?format=json",
            "--header", f"Authorization: Token {reply.json()['token']}", "--no-color",
        ],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env=product.env,
    )  # fmt: skip
    (artifacts / "schemathesis.txt").write_text(run.stdout + run.stderr)
    assert run.returncode == 0, run.stdout[run.stdout.find(" FAILURES ") :] + run.stderr
    # The links lead somewhere: the stateful phase ran (it is skipped when no link works).
    assert "✅ Stateful" in run.stdout, run.stdout
