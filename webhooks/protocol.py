"""What a delivery looks like on the wire: its body, its signature, when to try again.

Pure functions (no ORM), shared by the sender and the tests' receiver. A receiver verifies
``HeartBench-Signature: t=<unix seconds>,v1=<hex>``: HMAC-SHA256 with the endpoint's secret
over ``f"{t}.{body}"`` (the raw body bytes), compared in constant time (README, "Webhooks").
"""

import hashlib
import hmac
import json

SIGNATURE_HEADER = "HeartBench-Signature"


def body_encode(payload: dict) -> bytes:
    """The exact bytes sent (and signed): compact JSON in UTF-8, keys sorted."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def signature(*, secret: str, timestamp: int, body: bytes) -> str:
    """The signature header's value for one attempt."""
    return f"t={timestamp},v1={_digest(secret, timestamp, body)}"


def signature_valid(*, secret: str, header: str, body: bytes) -> bool:
    """Whether ``header`` signs ``body`` with ``secret`` (the timestamp's age is the caller's)."""
    parts = dict(part.strip().split("=", 1) for part in header.split(",") if "=" in part)
    if not parts.get("t", "").isdigit():
        return False
    expected = _digest(secret, int(parts["t"]), body)
    return hmac.compare_digest(expected, parts.get("v1", ""))


def _digest(secret: str, timestamp: int, body: bytes) -> str:
    message = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def retry_delay(*, attempts: int, max_attempts: int, base_seconds: float) -> float | None:
    """Seconds before the next try after ``attempts`` failed ones; None when they are spent.

    Exponential: base, 2 x base, 4 x base, ...
    """
    if attempts >= max_attempts:
        return None
    return base_seconds * 2 ** (attempts - 1)
