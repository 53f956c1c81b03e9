import time
from pathlib import Path

from webhooks.protocol import body_encode, retry_delay, signature, signature_valid

BODY = body_encode({"event": "study.opened", "data": {"study": "试点"}})


def test_a_signature_verifies_and_any_change_breaks_it():
    header = signature(secret="k" * 16, timestamp=1700000000, body=BODY)
    assert header.startswith("t=1700000000,v1=")
    assert signature_valid(secret="k" * 16, header=header, body=BODY)
    assert not signature_valid(secret="x" * 16, header=header, body=BODY)
    assert not signature_valid(secret="k" * 16, header=header, body=BODY + b" ")
    moved = header.replace("t=1700000000", "t=1700000001")
    assert not signature_valid(secret="k" * 16, header=moved, body=BODY)
    assert not signature_valid(secret="k" * 16, header="garbage", body=BODY)


def test_the_body_is_compact_utf8_json():
    assert BODY == '{"data":{"study":"试点"},"event":"study.opened"}'.encode()


def test_retries_back_off_exponentially_and_stop():
    delays = [retry_delay(attempts=n, max_attempts=5, base_seconds=30) for n in range(1, 6)]
    assert delays == [30, 60, 120, 240, None]


def test_the_readme_verification_snippet_accepts_our_signature_only():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    snippet = readme.split("def heartbench_signed", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec("import hashlib, hmac, time\ndef heartbench_signed" + snippet, scope)
    header = signature(secret="k" * 16, timestamp=int(time.time()), body=BODY)
    assert scope["heartbench_signed"]("k" * 16, header, BODY)
    assert not scope["heartbench_signed"]("k" * 16, header, BODY + b" ")
    stale = signature(secret="k" * 16, timestamp=int(time.time()) - 3600, body=BODY)
    assert not scope["heartbench_signed"]("k" * 16, stale, BODY)
