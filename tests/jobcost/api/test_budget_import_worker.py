"""A budget file over `BUDGET_IMPORT_SYNC_MAX_ROWS` rows is answered 202 `pending` and run by a
real Celery worker process (started as production runs it, `tests.webhooks.conftest.Workers`)
on PostgreSQL and Redis; the client polls `GET /v1/budget-imports/{id}`."""

from __future__ import annotations

import datetime

import pytest

from audit.models import AuditEntry
from config.celery import app as celery_app
from jobcost.models import BudgetImport, BudgetLine, CostCode
from jobcost.tasks import sweep_stalled_budget_imports
from tests.factories import ProjectFactory
from tests.waiting import until
from tests.webhooks.conftest import worker_pool
from webhooks.models import Event

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

HEADER = "code,name,cost type,scheduled value,budget\n"
ROWS = 1_200  # over the 500-row default: queued; two 1,000-row chunks on the worker


@pytest.fixture
def worker():
    """Real workers on queues of their own (tests.webhooks.conftest.worker_pool)."""
    yield from worker_pool()


def _file(rows: int, *, bad_row: int | None = None) -> bytes:
    lines = [HEADER]
    for n in range(rows):
        cost_type = "magic" if bad_row is not None and n + 2 == bad_row else "labor"
        lines.append(f'{n:05d},Code {n},{cost_type},"1,000.{n % 100:02d}",${n}.25\n')
    return "".join(lines).encode()


def _poll(api, import_id: str, seconds: float = 90) -> dict:
    """Poll the import as a client would until it finished; `_seen` lists every (status,
    rows_done) read on the way."""
    seen = []

    def finished():
        data = api.get(f"/v1/budget-imports/{import_id}").json()
        seen.append((data["status"], data["rows_done"]))
        return data if data["status"] in ("succeeded", "failed") else None

    data = until(finished, timeout=seconds, what=lambda: f"the import to finish: {seen[-5:]}")
    data["_seen"] = seen
    return data


def test_a_large_file_is_queued_and_imported_by_a_worker(api, account, worker):
    project = ProjectFactory(account=account, status="bid")
    worker.start(slow_lane=False)

    resp = api.post(
        f"/v1/projects/{project.pk}/budget-import", _file(ROWS), content_type="text/csv"
    )

    assert resp.status_code == 202, resp.content
    data = resp.json()
    assert (data["status"], data["rows_total"], data["rows_done"], data["errors"]) == (
        "pending",
        ROWS,
        0,
        [],
    )
    done = _poll(api, data["id"])
    # The bar only moves forward: pending, running with rows_done rising, succeeded.
    order = {"pending": 0, "running": 1, "succeeded": 2}
    steps = [(order[status], rows) for status, rows in done["_seen"]]
    assert steps == sorted(steps)
    assert (done["status"], done["rows_done"], done["errors"]) == ("succeeded", ROWS, [])
    assert CostCode.objects.filter(project=project).count() == ROWS
    line = BudgetLine.objects.get(cost_code__project=project, cost_code__code="00123")
    assert (line.cost_code.scheduled_value, line.original_amount) == (1_000_23, 123_25)
    # Audited as the key that sent it, with its request, and one event per cost code.
    entry = AuditEntry.objects.get(target_id=line.cost_code_id)
    assert (entry.actor_type, entry.actor_id, entry.request_id) == (
        "api_key",
        api.key.pk,
        resp["Request-Id"],
    )
    assert Event.objects.filter(type="cost_code.created").count() == ROWS
    event = Event.objects.get(object_id=line.cost_code_id)
    assert event.request_id == resp["Request-Id"]


def test_a_large_file_with_a_bad_row_fails_on_the_worker_and_writes_nothing(api, account, worker):
    project = ProjectFactory(account=account, status="bid")
    audit_before = AuditEntry.objects.count()
    worker.start(slow_lane=False)

    resp = api.post(
        f"/v1/projects/{project.pk}/budget-import",
        _file(ROWS, bad_row=1_100),
        content_type="text/csv",
    )

    assert resp.status_code == 202
    done = _poll(api, resp.json()["id"])
    assert done["status"] == "failed"
    assert [(e["row"], e["column"]) for e in done["errors"]] == [(1_100, "cost type")]
    assert CostCode.objects.filter(project=project).count() == 0
    assert AuditEntry.objects.count() == audit_before


def test_an_import_whose_task_was_lost_is_run_by_the_sweep(api, account, worker):
    """The broker lost the task (its queue is emptied before any worker reads it): the import
    stays pending until it has been quiet for two minutes, then the beat job queues it again
    and a worker imports it; once finished, the sweep leaves it alone."""
    project = ProjectFactory(account=account, status="bid")
    resp = api.post(
        f"/v1/projects/{project.pk}/budget-import", _file(ROWS), content_type="text/csv"
    )
    assert resp.status_code == 202, resp.content
    import_id = resp.json()["id"]
    with celery_app.connection_for_write() as connection:
        lost = connection.default_channel.queue_purge(worker.queues["celery"])
    assert lost == 1
    assert sweep_stalled_budget_imports() == 0  # not quiet for long enough yet
    quiet = BudgetImport.objects.get(pk=import_id).updated_at - datetime.timedelta(minutes=3)
    BudgetImport.objects.filter(pk=import_id).update(updated_at=quiet)

    worker.start(slow_lane=False)
    assert sweep_stalled_budget_imports() == 1
    done = _poll(api, import_id)
    assert (done["status"], done["rows_done"]) == ("succeeded", ROWS)
    assert CostCode.objects.filter(project=project).count() == ROWS
    assert sweep_stalled_budget_imports() == 0
