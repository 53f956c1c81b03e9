import pytest

from tests.builders.webhook_receiver import Receiver
from tests.builders.webhooks import SECRET
from webhooks.dispatch import IN_PROCESS


@pytest.fixture(autouse=True)
def _quick_retries(settings):
    settings.HEARTBENCH_WEBHOOK_BACKOFF_SECONDS = 0.2
    settings.HEARTBENCH_WEBHOOK_ATTEMPTS = 4
    settings.HEARTBENCH_WEBHOOK_TIMEOUT = 1
    settings.HEARTBENCH_BASE_URL = "https://heartbench.example.org"
    yield
    # No sender thread of this test may outlive it (it would write into the next test's data).
    assert IN_PROCESS.wait(timeout=30)


@pytest.fixture
def receivers():
    started: list[Receiver] = []

    def start(**options) -> Receiver:
        started.append(Receiver(secret=SECRET, **options).start())
        return started[-1]

    yield start
    for receiver in started:
        receiver.stop()
