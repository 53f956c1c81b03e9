"""The identity of a chat request, for the request cache (pure)."""

import hashlib
import json


def request_key(
    *,
    endpoint_model: str,
    template_version: str,
    parameters: dict,
    messages: list[dict],
    repeat: int = 0,
) -> str:
    """sha256 over everything that can change a reply; sorted keys make it order-independent.

    The base URL and API key are left out on purpose: the same model behind another gateway
    answers the same request, and keys must never reach stored data. ``repeat`` (a judge
    run's repeat index) keeps each repeat's replies apart, so repeat 2 is never served
    repeat 1's reply; repeat 0 keys as an ordinary request does.
    """
    identity = {
        "model": endpoint_model,
        "template": template_version,
        "parameters": parameters,
        "messages": messages,
    }
    if repeat:
        identity["repeat"] = repeat
    canonical = json.dumps(
        identity,
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
