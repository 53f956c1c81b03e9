"""Where the endpoint and the API key come from: the flag, else the environment (the key is
never stored)."""

from config.env import env_str


def api_key_resolve(explicit: str | None = None) -> str:
    """``--api-key`` if given, else ``HEARTBENCH_API_KEY``, else ``OPENAI_API_KEY``, else ""."""
    if explicit:
        return explicit
    return env_str("HEARTBENCH_API_KEY") or env_str("OPENAI_API_KEY")


def base_url_resolve(*, explicit: str | None, stored: str) -> str:
    """``--base-url`` if given, else ``OPENAI_BASE_URL``, else the judge's or model's stored
    endpoint, else ""."""
    return explicit or env_str("OPENAI_BASE_URL") or stored
