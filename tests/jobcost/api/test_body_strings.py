"""Strings in request bodies (docs/decisions.md, "Strings"): a string field takes a JSON
string only (a number or boolean is 400 `parameter_invalid`, never stored as text), on every
request serializer and inside agent-action payloads; no string or key anywhere in a body may
hold NUL (U+0000)."""

from __future__ import annotations

import pytest
from rest_framework import serializers

import config.urls  # noqa: F401 - loads every view, so every request serializer is defined
from jobcost.api.serializers import InputSerializer, _is_string_field
from jobcost.models import AgentAction, CostCode, DailyLog, Rfi
from tests.conftest import error_of
from tests.jobcost.api.conventions_support import make_job, row_counts
from tests.webhooks.support import PUBLIC_URL
from webhooks.models import WebhookEndpoint

NOT_STRINGS = [12345, 1.5, True, False, {"a": "b"}, ["a"]]


@pytest.fixture
def job(account):
    return make_job(account)


def _refused(response, param: str) -> dict:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request",
        "parameter_invalid",
        param,
    ), error
    return error


def _bodies(job):
    """(path, body, field to spoil, param, model that must stay empty of new rows)."""
    project = job.project.pk
    manpower = [{"trade": "Concrete", "headcount": 2, "hours": 16}]
    return [
        ("/v1/rfis", {"project": project, "subject": "s", "question": "q"}, "subject", Rfi),
        ("/v1/rfis", {"project": project, "subject": "s", "question": "q"}, "question", Rfi),
        ("/v1/rfis", {"project": project, "subject": "s", "question": "q"}, "due_date", Rfi),
        ("/v1/cost-codes", {"project": project, "code": "02-1", "name": "n"}, "code", CostCode),
        ("/v1/cost-codes", {"project": project, "code": "02-1", "name": "n"}, "name", CostCode),
        (
            "/v1/daily-logs",
            {"project": project, "date": "2026-11-03", "weather": "w", "manpower": manpower},
            "weather",
            DailyLog,
        ),
        (
            "/v1/daily-logs",
            {"project": project, "date": "2026-11-03", "weather": "w", "manpower": manpower},
            "date",
            DailyLog,
        ),
        (
            "/v1/webhooks",
            {"url": PUBLIC_URL, "events": ["*"], "description": "d"},
            "description",
            WebhookEndpoint,
        ),
    ]


@pytest.mark.parametrize("value", NOT_STRINGS, ids=repr)
def test_a_non_string_for_a_string_field_is_400_and_writes_nothing(api, job, value):
    for path, body, field, model in _bodies(job):
        before = (model.objects.count(), row_counts())
        _refused(api.post(path, {**body, field: value}), field)
        assert (model.objects.count(), row_counts()) == before, (path, field)


def test_the_examples_of_the_issue_are_refused(api, job, make_api):
    project = job.project.pk
    _refused(
        api.post("/v1/rfis", {"project": project, "subject": 12345, "question": "q"}), "subject"
    )
    _refused(
        api.post(
            "/v1/daily-logs",
            {
                "project": project,
                "date": "2026-11-03",
                "manpower": [{"trade": 7, "headcount": 2, "hours": 16}],
            },
        ),
        "manpower[0].trade",
    )
    _refused(
        api.post("/v1/webhooks", {"url": PUBLIC_URL, "events": ["*", 1]}),
        "events[1]",
    )
    _refused(api.post("/v1/owners", {"name": 404}), "name")
    _refused(api.patch(f"/v1/projects/{project}", {"name": 1}), "name")
    assert Rfi.objects.count() == DailyLog.objects.count() == 0


def test_agent_action_payloads_take_strings_as_the_real_endpoint_does(job, make_api):
    agent = make_api(job.project.account, "agent")
    payload = {"project": job.project.pk, "subject": 12345, "question": "q"}
    response = agent.post("/v1/agents/actions", {"action": "rfi.create", "payload": payload})
    _refused(response, "payload.subject")
    manpower = [{"trade": False, "headcount": 1, "hours": 8}]
    body = {"project": job.project.pk, "date": "2026-11-03", "manpower": manpower}
    response = agent.post("/v1/agents/actions", {"action": "daily_log.create", "payload": body})
    _refused(response, "payload.manpower[0].trade")
    assert AgentAction.objects.count() == 0


def _input_serializers(cls=InputSerializer):
    for sub in cls.__subclasses__():
        yield sub
        yield from _input_serializers(sub)


def test_every_string_field_of_every_request_serializer_refuses_a_number():
    checked = []
    for serializer_class in _input_serializers():
        for name, field in serializer_class().fields.items():
            if field.read_only:
                continue
            if isinstance(field, serializers.ListField) and _is_string_field(field.child):
                value, param = [1], {name: {0}}
            elif _is_string_field(field):
                value, param = 1, {name}
            else:
                continue
            serializer = serializer_class(data={name: value}, partial=True, context={})
            assert not serializer.is_valid(), (serializer_class.__name__, name)
            assert set(serializer.errors) == {name}, (serializer_class.__name__, serializer.errors)
            checked.append((serializer_class.__name__, name, param))
    assert len(checked) > 50
    assert ("ManpowerInputSerializer", "trade", {"trade"}) in checked


@pytest.mark.parametrize(
    "body_of, param",
    [
        (lambda p: {"project": p, "subject": "a\x00", "question": "q"}, "subject"),
        (lambda p: {"project": p, "subject": "s", "question": "q", "x\x00": 1}, "x\x00"),
        (lambda p: {"project": p, "subject": "s", "question": "q", "x": {"y": ["\x00"]}}, "x.y[0]"),
    ],
)
def test_a_nul_anywhere_in_a_body_is_400_parameter_invalid(api, job, body_of, param):
    before = row_counts(idempotency=True)
    error = _refused(api.post("/v1/rfis", body_of(job.project.pk)), param)
    assert "NUL" in error["message"]
    assert row_counts(idempotency=True) == before
    assert Rfi.objects.count() == 0


@pytest.mark.parametrize(
    "payload_extra, param",
    [
        ({"subject": "\x00"}, "payload.subject"),
        ({"x\x00": "y"}, "payload.x\x00"),
        ({"notes": {"deep": [{"k": "v\x00"}]}}, "payload.notes.deep[0].k"),
    ],
)
def test_a_nul_in_an_agent_action_payload_is_400_parameter_invalid(
    job, make_api, payload_extra, param
):
    agent = make_api(job.project.account, "agent")
    payload = {"project": job.project.pk, "subject": "s", "question": "q", **payload_extra}
    response = agent.post("/v1/agents/actions", {"action": "rfi.create", "payload": payload})
    _refused(response, param)
    assert AgentAction.objects.count() == 0


def test_a_nul_in_a_webhook_description_or_event_is_400(api, job):
    _refused(
        api.post("/v1/webhooks", {"url": PUBLIC_URL, "events": ["*"], "description": "\x00"}),
        "description",
    )
    _refused(api.post("/v1/webhooks", {"url": PUBLIC_URL, "events": ["*\x00"]}), "events[0]")
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.parametrize("headcount", ["6", 6.5, True, "six"])
def test_a_whole_number_field_takes_a_json_integer_only(api, job, headcount):
    """`headcount` is a whole number: `"6"` (DRF would read it as 6), `6.5` or `true` is 400
    naming the row's field, and no daily log is written."""
    body = {
        "project": job.project.pk,
        "date": "2026-11-03",
        "manpower": [{"trade": "Concrete", "headcount": headcount, "hours": 16}],
    }
    response = api.post("/v1/daily-logs", body)
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["code"], error["param"]) == ("parameter_invalid", "manpower[0].headcount")
    assert DailyLog.objects.count() == 0
    body["manpower"][0]["headcount"] = 6
    assert api.post("/v1/daily-logs", body).status_code == 201
