"""RFIs through the API (docs/resources.md, rfi): numbered per project, open → answered → closed (an
open RFI may close unanswered), a closed RFI is final; change orders link to the RFI that
caused them and each side expands the other; events rfi.created / answered / closed.

The job (tests.factories.make_job): a project with cost codes 01-000, 03-000 and 09-000."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.models import ChangeOrder, Project, Rfi
from tests.conftest import error_of
from tests.factories import AccountFactory, ProjectFactory, make_change_order, make_job
from webhooks.models import Event


@pytest.fixture
def job(account):
    return make_job(account)


def create_rfi(api, project, **extra):
    body = {
        "project": project.pk,
        "subject": "Footing depth at grid C4",
        "question": "Drawings S-101 and S-301 disagree on the footing depth. Which governs?",
        **extra,
    }
    return api.post("/v1/rfis", body)


def new_rfi(api, project, **extra) -> dict:
    response = create_rfi(api, project, **extra)
    assert response.status_code == 201, response.content
    return response.json()


def actions(api, rfi_id):
    trail = api.get(f"/v1/rfis/{rfi_id}/audit").json()["data"]
    return [entry["action"] for entry in trail]


def events_of(object_id, prefix="rfi."):
    return list(
        Event.objects.filter(object_id=object_id, type__startswith=prefix)
        .order_by("created_at", "id")
        .values_list("type", flat=True)
    )


def last_event(object_id, type_):
    return Event.objects.filter(object_id=object_id, type=type_).latest("created_at")


def owner_co_body(job, **extra):
    return {
        "project": job.project.pk,
        "kind": "owner",
        "title": "Deeper footings at grid C4",
        "amount": 36_750_00,
        "lines": [{"cost_code": job.codes["03-000"].pk, "amount": 36_750_00}],
        **extra,
    }


# --- create and numbering ---------------------------------------------------------------------


def test_create_opens_the_rfi_numbered_per_project(api, job, account):
    response = create_rfi(api, job.project, due_date="2026-12-04", cost_impact=True)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"].startswith("rfi_") and body["object"] == "rfi"
    assert (body["project"], body["number"], body["status"]) == (
        job.project.pk,
        "RFI-001",
        "open",
    )
    assert body["subject"] == "Footing depth at grid C4"
    assert body["question"].startswith("Drawings S-101")
    assert (body["answer"], body["due_date"], body["cost_impact"]) == ("", "2026-12-04", True)
    assert (body["change_orders"], body["answered_at"], body["closed_at"]) == ([], None, None)
    row = Rfi.objects.get(pk=body["id"])
    assert (row.account_id, row.project_id, row.number, row.status, row.cost_impact) == (
        account.pk,
        job.project.pk,
        "RFI-001",
        "open",
        True,
    )
    assert str(row.due_date) == "2026-12-04"
    assert actions(api, body["id"]) == ["created"]

    second = new_rfi(api, job.project)
    assert second["number"] == "RFI-002"
    assert second["cost_impact"] is False and second["due_date"] is None

    other_project = ProjectFactory(account=account)
    assert new_rfi(api, other_project)["number"] == "RFI-001"
    assert new_rfi(api, job.project)["number"] == "RFI-003"
    assert sorted(Rfi.objects.filter(project=job.project).values_list("number", flat=True)) == [
        "RFI-001",
        "RFI-002",
        "RFI-003",
    ]


def test_created_event_renders_the_rfi_as_get_shows_it(api, job):
    created = create_rfi(api, job.project)
    rfi = created.json()
    assert events_of(rfi["id"]) == ["rfi.created"]
    event = last_event(rfi["id"], "rfi.created")
    assert event.data["object"] == api.get(f"/v1/rfis/{rfi['id']}").json()
    assert event.data["previous_attributes"] is None
    assert (event.project_id, event.request_id) == (job.project.pk, created["Request-Id"])


def test_explicit_number_and_a_duplicate_number_is_409(api, job, account):
    explicit = new_rfi(api, job.project, number="RFI-A7")
    assert explicit["number"] == "RFI-A7"
    # The auto number skips a number taken explicitly.
    taken = new_rfi(api, job.project, number="RFI-002")
    assert taken["number"] == "RFI-002"
    assert new_rfi(api, job.project)["number"] == "RFI-003"

    rows, audit, events = Rfi.objects.count(), AuditEntry.objects.count(), Event.objects.count()
    duplicate = create_rfi(api, job.project, number="RFI-A7")
    assert duplicate.status_code == 409
    error = error_of(duplicate)
    assert (error["code"], error["param"]) == ("resource_already_exists", "number")
    assert (Rfi.objects.count(), AuditEntry.objects.count(), Event.objects.count()) == (
        rows,
        audit,
        events,
    )
    # The same number on another project is free.
    assert new_rfi(api, ProjectFactory(account=account), number="RFI-A7")["number"] == "RFI-A7"

    # Renumbering onto a taken number is refused too.
    renumber = api.patch(f"/v1/rfis/{taken['id']}", {"number": "RFI-A7"})
    assert renumber.status_code == 409
    assert (error_of(renumber)["code"], error_of(renumber)["param"]) == (
        "resource_already_exists",
        "number",
    )
    assert Rfi.objects.get(pk=taken["id"]).number == "RFI-002"


@pytest.mark.parametrize("field,value", [("answer", "Early"), ("status", "closed")])
def test_answer_and_status_are_read_only_on_create(api, job, field, value):
    response = create_rfi(api, job.project, **{field: value})
    assert response.status_code == 400
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "parameter_read_only",
        field,
    )
    assert Rfi.objects.count() == 0


def test_missing_subject_and_foreign_project_are_refused(api, job):
    missing = api.post("/v1/rfis", {"project": job.project.pk, "question": "Which?"})
    assert missing.status_code == 400
    assert (error_of(missing)["code"], error_of(missing)["param"]) == (
        "parameter_missing",
        "subject",
    )
    foreign = ProjectFactory(account=AccountFactory())
    other = create_rfi(api, foreign)
    assert other.status_code == 404
    assert (error_of(other)["code"], error_of(other)["param"]) == ("resource_missing", "project")
    assert Rfi.objects.count() == 0


@pytest.mark.parametrize("value", ["yes", "true", 1, None])
def test_cost_impact_must_be_a_json_boolean(api, job, value):
    response = create_rfi(api, job.project, cost_impact=value)
    assert response.status_code == 400
    assert error_of(response)["param"] == "cost_impact"
    assert Rfi.objects.count() == 0


def test_cost_impact_patch_must_be_a_json_boolean(api, job):
    rfi = new_rfi(api, job.project)
    refused = api.patch(f"/v1/rfis/{rfi['id']}", {"cost_impact": "yes"})
    assert refused.status_code == 400 and error_of(refused)["param"] == "cost_impact"
    assert Rfi.objects.get(pk=rfi["id"]).cost_impact is False
    ok = api.patch(f"/v1/rfis/{rfi['id']}", {"cost_impact": True})
    assert ok.status_code == 200 and ok.json()["cost_impact"] is True
    assert Rfi.objects.get(pk=rfi["id"]).cost_impact is True


def test_closed_project_refuses_a_new_rfi(api, account):
    project = ProjectFactory(account=account, status="closed")
    audit, events = AuditEntry.objects.count(), Event.objects.count()
    response = create_rfi(api, project)
    assert response.status_code == 409
    assert error_of(response)["code"] == "project_closed"
    assert Rfi.objects.count() == 0
    assert (AuditEntry.objects.count(), Event.objects.count()) == (audit, events)


def test_an_rfi_of_a_closed_project_cannot_change(api, job):
    rfi = new_rfi(api, job.project)
    Project.objects.filter(pk=job.project.pk).update(status="closed")
    audit = AuditEntry.objects.count()
    patched = api.patch(f"/v1/rfis/{rfi['id']}", {"answer": "Use S-301."})
    assert patched.status_code == 409 and error_of(patched)["code"] == "project_closed"
    closed = api.post(f"/v1/rfis/{rfi['id']}/close")
    assert closed.status_code == 409 and error_of(closed)["code"] == "project_closed"
    row = Rfi.objects.get(pk=rfi["id"])
    assert (row.status, row.answer) == ("open", "")
    assert AuditEntry.objects.count() == audit


# --- list and retrieve --------------------------------------------------------------------------


def test_list_filters_by_project_and_status(api, job, account, make_api):
    other_project = ProjectFactory(account=account)
    first = new_rfi(api, job.project)
    answered = new_rfi(api, job.project)
    api.patch(f"/v1/rfis/{answered['id']}", {"answer": "Use S-301."})
    elsewhere = new_rfi(api, other_project)
    closed = new_rfi(api, other_project)
    api.post(f"/v1/rfis/{closed['id']}/close")
    stranger = AccountFactory()
    new_rfi(make_api(stranger), ProjectFactory(account=stranger))

    def ids(**params):
        response = api.get("/v1/rfis", params)
        assert response.status_code == 200, response.content
        assert response.json()["object"] == "list"
        return {row["id"] for row in response.json()["data"]}

    assert ids() == {first["id"], answered["id"], elsewhere["id"], closed["id"]}
    assert ids(project=job.project.pk) == {first["id"], answered["id"]}
    assert ids(project=other_project.pk) == {elsewhere["id"], closed["id"]}
    assert ids(status="open") == {first["id"], elsewhere["id"]}
    assert ids(status="answered") == {answered["id"]}
    assert ids(status="closed") == {closed["id"]}
    assert ids(project=other_project.pk, status="open") == {elsewhere["id"]}

    unknown = api.get("/v1/rfis", {"subject": "Footing"})
    assert unknown.status_code == 400
    assert (error_of(unknown)["code"], error_of(unknown)["param"]) == (
        "parameter_unknown",
        "subject",
    )
    bad_status = api.get("/v1/rfis", {"status": "withdrawn"})
    assert bad_status.status_code == 400
    assert error_of(bad_status)["param"] == "status"


def test_retrieve_and_not_found(api, job, make_api):
    rfi = new_rfi(api, job.project, due_date="2026-12-01")
    got = api.get(f"/v1/rfis/{rfi['id']}")
    assert got.status_code == 200
    assert got.json() == rfi
    for missing in ("rfi_doesnotexist000000", job.project.pk):
        response = api.get(f"/v1/rfis/{missing}")
        assert response.status_code == 404
        assert error_of(response)["code"] == "resource_missing"
    foreign = make_api(AccountFactory())
    assert foreign.get(f"/v1/rfis/{rfi['id']}").status_code == 404
    assert rfi["id"] not in {row["id"] for row in foreign.get("/v1/rfis").json()["data"]}


# --- answering, editing, closing ----------------------------------------------------------------


def test_answering_an_open_rfi_moves_it_to_answered(api, job):
    rfi = new_rfi(api, job.project)
    response = api.patch(f"/v1/rfis/{rfi['id']}", {"answer": "S-301 governs: 4'-0\" below grade."})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["answer"]) == ("answered", "S-301 governs: 4'-0\" below grade.")
    assert body["answered_at"] is not None and body["closed_at"] is None
    row = Rfi.objects.get(pk=rfi["id"])
    assert (row.status, row.answer) == ("answered", "S-301 governs: 4'-0\" below grade.")
    assert row.answered_at is not None

    trail = api.get(f"/v1/rfis/{rfi['id']}/audit").json()["data"]
    assert [entry["action"] for entry in trail] == ["created", "answered"]
    assert trail[-1]["changes"]["status"] == {"before": "open", "after": "answered"}
    assert trail[-1]["changes"]["answer"] == {
        "before": "",
        "after": "S-301 governs: 4'-0\" below grade.",
    }
    assert trail[-1]["actor"] == {"type": "api_key", "id": api.key.pk, "role": "admin"}
    assert trail[-1]["request_id"] == response["Request-Id"]

    assert events_of(rfi["id"]) == ["rfi.created", "rfi.answered"]
    event = last_event(rfi["id"], "rfi.answered")
    assert event.data["previous_attributes"]["status"] == "open"
    assert event.data["previous_attributes"]["answer"] == ""
    assert event.data["object"] == api.get(f"/v1/rfis/{rfi['id']}").json()
    assert event.data["object"]["status"] == "answered"


def test_editing_without_an_answer_keeps_it_open_and_emits_no_rfi_event(api, job):
    rfi = new_rfi(api, job.project)
    events_before = Event.objects.count()
    response = api.patch(
        f"/v1/rfis/{rfi['id']}",
        {
            "subject": "Footing depth at grids C4 and C5",
            "due_date": "2026-12-11",
            "cost_impact": True,
            "answer": "",
        },
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["answered_at"], body["answer"]) == ("open", None, "")
    assert (body["subject"], body["due_date"], body["cost_impact"]) == (
        "Footing depth at grids C4 and C5",
        "2026-12-11",
        True,
    )
    row = Rfi.objects.get(pk=rfi["id"])
    assert (row.status, row.subject, row.answered_at) == (
        "open",
        "Footing depth at grids C4 and C5",
        None,
    )
    trail = api.get(f"/v1/rfis/{rfi['id']}/audit").json()["data"]
    assert [entry["action"] for entry in trail] == ["created", "updated"]
    assert trail[-1]["changes"]["due_date"] == {"before": None, "after": "2026-12-11"}
    assert "status" not in trail[-1]["changes"]
    assert events_of(rfi["id"]) == ["rfi.created"]
    assert Event.objects.count() == events_before


def test_an_answered_rfi_keeps_an_answer(api, job):
    rfi = new_rfi(api, job.project)
    answered = api.patch(f"/v1/rfis/{rfi['id']}", {"answer": "Use S-301."}).json()
    audit = AuditEntry.objects.count()
    cleared = api.patch(f"/v1/rfis/{rfi['id']}", {"answer": ""})
    assert cleared.status_code == 409
    assert (error_of(cleared)["code"], error_of(cleared)["param"]) == (
        "invalid_state_transition",
        "answer",
    )
    blank = api.patch(f"/v1/rfis/{rfi['id']}", {"answer": "   "})
    assert blank.status_code == 409 and error_of(blank)["param"] == "answer"
    row = Rfi.objects.get(pk=rfi["id"])
    assert (row.status, row.answer) == ("answered", "Use S-301.")
    assert AuditEntry.objects.count() == audit

    # Revising the answer keeps it answered, the first answer's time and no second event.
    revised = api.patch(f"/v1/rfis/{rfi['id']}", {"answer": "Use S-301, rev. 2."})
    assert revised.status_code == 200, revised.content
    assert (revised.json()["status"], revised.json()["answer"]) == (
        "answered",
        "Use S-301, rev. 2.",
    )
    assert revised.json()["answered_at"] == answered["answered_at"]
    assert events_of(rfi["id"]) == ["rfi.created", "rfi.answered"]


@pytest.mark.parametrize("answer_first", [False, True])
def test_close_from_open_or_answered_then_final(api, job, answer_first):
    rfi = new_rfi(api, job.project)
    if answer_first:
        api.patch(f"/v1/rfis/{rfi['id']}", {"answer": "Use S-301."})
    response = api.post(f"/v1/rfis/{rfi['id']}/close")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "closed" and body["closed_at"] is not None
    assert (body["answered_at"] is not None) is answer_first
    row = Rfi.objects.get(pk=rfi["id"])
    assert row.status == "closed" and row.closed_at is not None

    expected = ["created", "answered", "closed"] if answer_first else ["created", "closed"]
    assert actions(api, rfi["id"]) == expected
    assert events_of(rfi["id"]) == [f"rfi.{a}" for a in expected]
    event = last_event(rfi["id"], "rfi.closed")
    assert event.data["previous_attributes"]["status"] == ("answered" if answer_first else "open")
    assert event.data["object"] == api.get(f"/v1/rfis/{rfi['id']}").json()

    audit, events = AuditEntry.objects.count(), Event.objects.count()
    again = api.post(f"/v1/rfis/{rfi['id']}/close")
    assert again.status_code == 409
    error = error_of(again)
    assert (error["code"], error["object"]) == ("invalid_state_transition", rfi["id"])
    for change in ({"subject": "Reopened?"}, {"answer": "Late answer"}, {"cost_impact": True}):
        patched = api.patch(f"/v1/rfis/{rfi['id']}", change)
        assert patched.status_code == 409, change
        assert error_of(patched)["code"] == "invalid_state_transition"
    row.refresh_from_db()
    assert (row.status, row.subject, row.cost_impact) == (
        "closed",
        "Footing depth at grid C4",
        False,
    )
    assert (AuditEntry.objects.count(), Event.objects.count()) == (audit, events)


def test_status_and_timestamps_are_not_writable(api, job):
    rfi = new_rfi(api, job.project)
    for field, value in (("status", "answered"), ("answered_at", "2026-12-01T00:00:00Z")):
        response = api.patch(f"/v1/rfis/{rfi['id']}", {field: value})
        assert response.status_code == 400, field
        assert error_of(response)["param"] == field
    assert Rfi.objects.get(pk=rfi["id"]).status == "open"


# --- change order link and expansion ------------------------------------------------------------


def test_change_order_links_its_rfi_and_the_rfi_lists_it(api, job):
    rfi = new_rfi(api, job.project, cost_impact=True)
    created = api.post("/v1/change-orders", owner_co_body(job, rfi=rfi["id"]))
    assert created.status_code == 201, created.content
    co = created.json()
    assert co["rfi"] == rfi["id"]
    assert ChangeOrder.objects.get(pk=co["id"]).rfi_id == rfi["id"]
    assert api.get(f"/v1/rfis/{rfi['id']}").json()["change_orders"] == [co["id"]]

    second = api.post("/v1/change-orders", owner_co_body(job, rfi=rfi["id"], title="Rock"))
    assert second.status_code == 201, second.content
    unlinked = api.post("/v1/change-orders", owner_co_body(job, title="No RFI"))
    assert unlinked.json()["rfi"] is None
    assert api.get(f"/v1/rfis/{rfi['id']}").json()["change_orders"] == [
        co["id"],
        second.json()["id"],
    ]
    listed = api.get("/v1/rfis", {"project": job.project.pk}).json()["data"]
    assert listed[0]["change_orders"] == [co["id"], second.json()["id"]]

    # Unlinking: PATCH the draft change order's rfi to null.
    patched = api.patch(f"/v1/change-orders/{co['id']}", {"rfi": None})
    assert patched.status_code == 200, patched.content
    assert patched.json()["rfi"] is None
    assert ChangeOrder.objects.get(pk=co["id"]).rfi_id is None
    assert api.get(f"/v1/rfis/{rfi['id']}").json()["change_orders"] == [second.json()["id"]]
    trail = api.get(f"/v1/change-orders/{co['id']}/audit").json()["data"]
    assert trail[-1]["changes"]["rfi"] == {"before": rfi["id"], "after": None}

    # And linking again by PATCH.
    relinked = api.patch(f"/v1/change-orders/{unlinked.json()['id']}", {"rfi": rfi["id"]})
    assert relinked.status_code == 200 and relinked.json()["rfi"] == rfi["id"]
    assert api.get(f"/v1/rfis/{rfi['id']}").json()["change_orders"] == [
        second.json()["id"],
        unlinked.json()["id"],
    ]


def test_change_order_refuses_an_rfi_of_another_project_or_account(api, job, account):
    other_project = ProjectFactory(account=account)
    elsewhere = new_rfi(api, other_project)
    audit = AuditEntry.objects.count()
    response = api.post("/v1/change-orders", owner_co_body(job, rfi=elsewhere["id"]))
    assert response.status_code == 400
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "parameter_invalid",
        "rfi",
    )
    assert ChangeOrder.objects.count() == 0
    assert AuditEntry.objects.count() == audit

    co = make_change_order(job.project, cost_code=job.codes["03-000"], amount=1_000)
    patched = api.patch(f"/v1/change-orders/{co.pk}", {"rfi": elsewhere["id"]})
    assert patched.status_code == 400 and error_of(patched)["param"] == "rfi"
    assert ChangeOrder.objects.get(pk=co.pk).rfi_id is None
    assert api.get(f"/v1/rfis/{elsewhere['id']}").json()["change_orders"] == []


def test_change_order_cannot_name_an_rfi_of_another_account(api, job, make_api):
    stranger = AccountFactory()
    other_api = make_api(stranger)
    other_project = ProjectFactory(account=stranger)
    foreign = new_rfi(other_api, other_project)
    response = api.post("/v1/change-orders", owner_co_body(job, rfi=foreign["id"]))
    assert response.status_code == 404
    assert (error_of(response)["code"], error_of(response)["param"]) == (
        "resource_missing",
        "rfi",
    )
    wrong_prefix = api.post("/v1/change-orders", owner_co_body(job, rfi=job.project.pk))
    assert wrong_prefix.status_code == 404 and error_of(wrong_prefix)["param"] == "rfi"
    assert ChangeOrder.objects.count() == 0


def test_the_rfi_link_can_change_after_draft_but_nothing_else_can(api, job):
    """The RFI behind a change order is a cross-reference: it may be set on a pending or
    approved change order (CO-003 in the demo is linked while pending); its terms may not."""
    rfi = new_rfi(api, job.project)
    co = api.post("/v1/change-orders", owner_co_body(job)).json()
    api.post(f"/v1/change-orders/{co['id']}/submit")
    linked = api.patch(f"/v1/change-orders/{co['id']}", {"rfi": rfi["id"]})
    assert linked.status_code == 200, linked.content
    assert linked.json()["rfi"] == rfi["id"] and linked.json()["status"] == "pending"
    assert api.get(f"/v1/rfis/{rfi['id']}").json()["change_orders"] == [co["id"]]
    refused = api.patch(f"/v1/change-orders/{co['id']}", {"rfi": None, "title": "Renamed"})
    assert refused.status_code == 409
    assert error_of(refused)["code"] == "invalid_state_transition"
    assert ChangeOrder.objects.get(pk=co["id"]).rfi_id == rfi["id"]
    api.post(f"/v1/change-orders/{co['id']}/void")
    void = api.patch(f"/v1/change-orders/{co['id']}", {"rfi": None})
    assert void.status_code == 409
    assert ChangeOrder.objects.get(pk=co["id"]).rfi_id == rfi["id"]


def test_expand_rfi_on_a_change_order_and_change_orders_on_an_rfi(api, job):
    rfi = new_rfi(api, job.project)
    co = api.post("/v1/change-orders", owner_co_body(job, rfi=rfi["id"])).json()
    other = api.post("/v1/change-orders", owner_co_body(job, rfi=rfi["id"], title="B")).json()
    plain_rfi = api.get(f"/v1/rfis/{rfi['id']}").json()

    expanded_co = api.get(f"/v1/change-orders/{co['id']}", {"expand[]": "rfi"})
    assert expanded_co.status_code == 200, expanded_co.content
    assert expanded_co.json()["rfi"] == plain_rfi

    expanded = api.get(f"/v1/rfis/{rfi['id']}", {"expand[]": "change_orders"})
    assert expanded.status_code == 200, expanded.content
    orders = expanded.json()["change_orders"]
    assert [o["id"] for o in orders] == [co["id"], other["id"]]
    assert orders[0] == api.get(f"/v1/change-orders/{co['id']}").json()
    assert orders[1]["object"] == "change_order" and orders[1]["title"] == "B"
    assert orders[0]["project"] == job.project.pk
    assert {k: v for k, v in expanded.json().items() if k != "change_orders"} == {
        k: v for k, v in plain_rfi.items() if k != "change_orders"
    }

    deep = api.get(f"/v1/rfis/{rfi['id']}", {"expand[]": "change_orders.project"})
    assert deep.status_code == 200, deep.content
    projects = [o["project"] for o in deep.json()["change_orders"]]
    assert [(p["object"], p["id"]) for p in projects] == [("project", job.project.pk)] * 2
    assert deep.json()["project"] == job.project.pk

    both = api.get(f"/v1/rfis/{rfi['id']}", {"expand[]": ["project", "change_orders.rfi"]})
    assert both.status_code == 200, both.content
    assert both.json()["project"]["id"] == job.project.pk
    assert [o["rfi"]["id"] for o in both.json()["change_orders"]] == [rfi["id"]] * 2

    too_deep = api.get(f"/v1/rfis/{rfi['id']}", {"expand[]": "change_orders.project.owner"})
    assert too_deep.status_code == 400 and error_of(too_deep)["code"] == "expand_too_deep"
    invalid = api.get(f"/v1/rfis/{rfi['id']}", {"expand[]": "number"})
    assert invalid.status_code == 400 and error_of(invalid)["code"] == "expand_invalid"


def test_expand_change_orders_on_the_rfi_list(api, job):
    linked = new_rfi(api, job.project)
    bare = new_rfi(api, job.project)
    co = api.post("/v1/change-orders", owner_co_body(job, rfi=linked["id"])).json()
    response = api.get("/v1/rfis", {"expand[]": "data.change_orders"})
    assert response.status_code == 200, response.content
    rows = {row["id"]: row for row in response.json()["data"]}
    assert [o["id"] for o in rows[linked["id"]]["change_orders"]] == [co["id"]]
    assert rows[linked["id"]]["change_orders"][0]["object"] == "change_order"
    assert rows[linked["id"]]["change_orders"][0]["amount"] == 36_750_00
    assert rows[bare["id"]]["change_orders"] == []

    deep = api.get("/v1/rfis", {"expand[]": "data.change_orders.project"}).json()["data"]
    linked_row = next(row for row in deep if row["id"] == linked["id"])
    assert linked_row["change_orders"][0]["project"]["id"] == job.project.pk

    without_data = api.get("/v1/rfis", {"expand[]": "change_orders"})
    assert without_data.status_code == 400
    assert error_of(without_data)["code"] == "expand_invalid"

    co_list = api.get("/v1/change-orders", {"expand[]": "data.rfi"}).json()["data"]
    assert [(row["id"], row["rfi"]["number"]) for row in co_list] == [(co["id"], "RFI-001")]


def test_a_project_restricted_key_sees_only_its_projects_rfis(api, job, make_api):
    """A key restricted to the RFI's project reads it with its change orders expanded; a key
    restricted to another project of the same account gets 404 and an empty list."""
    rfi = new_rfi(api, job.project)
    co = api.post("/v1/change-orders", owner_co_body(job, rfi=rfi["id"])).json()
    scoped = make_api(job.project.account, "viewer", projects=[job.project])
    seen = scoped.get(f"/v1/rfis/{rfi['id']}", {"expand[]": "change_orders"})
    assert seen.status_code == 200, seen.content
    assert [o["id"] for o in seen.json()["change_orders"]] == [co["id"]]
    elsewhere = make_api(
        job.project.account, "viewer", projects=[ProjectFactory(account=job.project.account)]
    )
    assert elsewhere.get(f"/v1/rfis/{rfi['id']}").status_code == 404
    assert elsewhere.get("/v1/rfis").json()["data"] == []


# --- query counts -------------------------------------------------------------------------------


def _count(api, path, params, rows):
    with CaptureQueriesContext(connection) as ctx:
        response = api.get(path, params)
    assert response.status_code == 200, response.content
    assert len(response.json()["data"]) == rows
    return len(ctx.captured_queries)


def test_rfi_list_query_count_does_not_grow_with_the_page(api, job, cold_keys):
    def add_rfi_with_orders():
        rfi = new_rfi(api, job.project)
        for title in ("A", "B"):
            body = owner_co_body(job, rfi=rfi["id"], title=title)
            assert api.post("/v1/change-orders", body).status_code == 201

    add_rfi_with_orders()
    api.get("/v1/rfis")  # warm any per-process caches
    one = _count(api, "/v1/rfis", {}, 1)
    one_expanded = _count(api, "/v1/rfis", {"expand[]": "data.change_orders.project"}, 1)
    for _ in range(9):
        add_rfi_with_orders()
    ten = _count(api, "/v1/rfis", {}, 10)
    ten_expanded = _count(api, "/v1/rfis", {"expand[]": "data.change_orders.project"}, 10)
    assert ten == one, (one, ten)
    assert ten_expanded == one_expanded, (one_expanded, ten_expanded)
