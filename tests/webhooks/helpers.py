from webhooks.dispatch import IN_PROCESS
from webhooks.models import Endpoint

SECRET = "s3cret-for-the-tests-0123456789"


def endpoint_for(receiver_or_url, *, events=None, **fields) -> Endpoint:
    url = getattr(receiver_or_url, "url", receiver_or_url)
    options = {"events": events} if events is not None else {}
    return Endpoint.objects.create(
        name=fields.pop("name", url), url=url, secret=SECRET, **options, **fields
    )


def sent() -> None:
    """Wait until the in-process sender has sent (or given up on) everything queued."""
    assert IN_PROCESS.wait(timeout=30), "webhook deliveries still pending after 30 s"
