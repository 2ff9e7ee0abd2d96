"""Agent-action edge cases: payloads the real endpoint refuses are refused at proposal (never
a 500, never silently rounded), and approving an `invoice.code` takes its locks in the
invoice services' order, so it cannot deadlock with an ordinary invoice write."""

from __future__ import annotations

import json
import threading

import psycopg
import pytest
from django.db import connection

from jobcost.models import AgentAction, DailyLog
from tests.conftest import Api, error_of
from tests.factories import AccountFactory, make_invoice, make_job, make_key
from tests.jobcost.api.test_agent_actions import daily_log_body, invoice_lines
from tests.waiting import backend_pid, until_blocked_by

ACTIONS = "/v1/agents/actions"


@pytest.fixture
def job(account):
    return make_job(account)


def test_infinite_number_in_a_text_field_is_400_not_500(job, make_api):
    agent = make_api(job.project.account, "agent")
    payload = '{"project": "' + job.project.pk + '", "subject": 1e400, "question": "q"}'
    assert agent.post("/v1/rfis", payload).status_code == 400  # the real endpoint
    response = agent.post(ACTIONS, '{"action": "rfi.create", "payload": ' + payload + "}")
    assert response.status_code == 400, response.content
    assert error_of(response)["param"] == "payload.subject"


def test_deeply_nested_payload_is_400_not_500(job, make_api):
    agent = make_api(job.project.account, "agent")
    statuses = set()
    for depth in range(880, 960, 2):
        nested = "[" * depth + "]" * depth
        body = '{"action": "rfi.create", "payload": {"x": ' + nested + "}}"
        statuses.add(agent.post(ACTIONS, body).status_code)
    assert statuses == {400}, statuses


def test_payload_precision_is_checked_as_the_real_endpoint(job, make_api):
    agent = make_api(job.project.account, "agent")
    body = json.dumps(daily_log_body(job, hours="@")).replace('"@"', "1.0000000000000000001")
    real = agent.post("/v1/daily-logs", body)
    assert error_of(real)["param"] == "manpower[0].hours"
    proposed = agent.post(ACTIONS, '{"action": "daily_log.create", "payload": ' + body + "}")
    assert proposed.status_code == 400, proposed.json()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_invoice_code_approval_does_not_deadlock_with_invoice_writes():
    account = AccountFactory()
    job = make_job(account)
    _, agent_secret = make_key(account, "agent")
    _, mgr_secret = make_key(account, "manager")
    invoice = make_invoice(job.commitment, amount=60_000, number="DL-1")
    proposed = Api(agent_secret).post(
        ACTIONS,
        {"action": "invoice.code", "target": invoice.pk, "payload": {"lines": invoice_lines(job)}},
    )
    action_id = proposed.json()["id"]
    s = connection.settings_dict
    params = {"host": s["HOST"], "port": s["PORT"], "dbname": s["NAME"], "user": s["USER"]}
    other = psycopg.connect(**params, autocommit=False)
    probe = psycopg.connect(**params, autocommit=True)
    holder = backend_pid(other)
    out = {}

    def approve():
        try:
            out["r"] = Api(mgr_secret).post(f"{ACTIONS}/{action_id}/approve")
        finally:
            connection.close()

    thread = threading.Thread(target=approve)
    try:
        cur = other.cursor()
        cur.execute("SET deadlock_timeout = '5s'")
        # An invoice write in flight (an approval of the invoice: commitment, invoice, then
        # project, services/invoices.py) holds the invoice, the first row a coding locks.
        cur.execute("SELECT 1 FROM jobcost_invoice WHERE id = %s FOR UPDATE", [invoice.pk])
        thread.start()
        # The approval is queued on the invoice row this connection holds (seen in pg_locks).
        until_blocked_by(probe, holder, alive=thread.is_alive)
        # The write's next lock: the agent approval must not hold the project while it waits.
        cur.execute("SELECT 1 FROM jobcost_project WHERE id = %s FOR UPDATE", [job.project.pk])
        other.rollback()
    finally:
        probe.close()
        other.close()
        if thread.ident is not None:
            thread.join(30)
    assert out["r"].status_code == 200, out["r"].content
    assert AgentAction.objects.get(pk=action_id).status == "approved"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_six_simultaneous_approvals_of_one_action_run_it_once():
    """Six managers' approvals of one `daily_log.create` arrive at once, each on its own
    connection: the action row lock lets one run the payload (200 approved) and the other
    five find it decided (409 invalid_state_transition). One daily log, one result."""
    account = AccountFactory()
    job = make_job(account)
    _, agent_secret = make_key(account, "agent")
    proposed = Api(agent_secret).post(
        ACTIONS, {"action": "daily_log.create", "payload": daily_log_body(job)}
    )
    assert proposed.status_code == 201, proposed.content
    action_id = proposed.json()["id"]
    secrets = [make_key(account, "manager")[1] for _ in range(6)]
    barrier = threading.Barrier(len(secrets))
    results: list[tuple[int, dict]] = []

    def approve(secret: str) -> None:
        try:
            client = Api(secret)
            barrier.wait(timeout=30)
            response = client.post(f"{ACTIONS}/{action_id}/approve")
            results.append((response.status_code, response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=approve, args=(s,)) for s in secrets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert sorted(status for status, _ in results) == [200] + [409] * 5
    approved = next(body for status, body in results if status == 200)
    assert approved["status"] == "approved"
    assert {body["error"]["code"] for status, body in results if status == 409} == {
        "invalid_state_transition"
    }
    assert list(DailyLog.objects.values_list("pk", flat=True)) == [approved["result"]]
