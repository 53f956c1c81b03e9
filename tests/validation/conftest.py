import pytest
from django.db import transaction

from benchmark.services import warming
from tests.builders.studies import rated_study


@pytest.fixture(scope="module")
def rated_study_of_module(django_db_setup, django_db_blocker) -> str:
    """The name of a `rated_study()` built once for the module (its set-up is most of a report
    test's time), in a transaction rolled back after the module's last test. Each test runs in
    its own savepoint inside it (the `db` fixture), so what one test changes the next never sees;
    fetch the study afresh in each test (`selectors.study_get`)."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield rated_study().name
        transaction.set_rollback(True)


@pytest.fixture
def queued(monkeypatch, settings):
    """Workers behind a broker: what ``warm_later`` publishes once committed, as
    (task name, kwargs, countdown)."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent = []
    monkeypatch.setattr(
        warming,
        "_publish",
        lambda task, kwargs, countdown: sent.append((task.path, kwargs, countdown)),
    )
    return sent
