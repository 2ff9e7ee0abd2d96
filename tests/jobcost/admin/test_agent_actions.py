"""Agent actions in the back office: proposals (made through the API by an agent key) are
read-only pages; approving runs them through the API's code and rules with the accountant as
the decider, a refused one becomes `failed` with nothing written, and rejecting records the
reason asked on an intermediate page."""

import datetime
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.models import AgentAction, DailyLog, Rfi
from jobcost.services.daily_logs import daily_log_create
from tests.conftest import Api
from tests.factories import AccountFactory, make_job, make_key
from tests.jobcost.admin.pages import (
    act_on_list,
    admin_url,
    errors_of,
    form_data,
    messages_of,
    readonly,
    text,
)

LIST = "/admin/jobcost/agentaction/"


@pytest.fixture
def site(db):
    """`make_job`'s active project in Harbor Build Co, and an agent key of the account."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    job.agent_key, secret = make_key(account, "agent")
    job.agent_key.name = "Site agent"
    job.agent_key.save(update_fields=["name"])
    job.agent = Api(secret)
    return job


def _propose(site, action: str, payload: dict, rationale: str = "", target=None) -> AgentAction:
    body = {"action": action, "payload": payload, "rationale": rationale}
    if target:
        body["target"] = target
    response = site.agent.post("/v1/agents/actions", body)
    assert response.status_code == 201, response.content
    return AgentAction.objects.get(pk=response.json()["id"])


def _rfi_proposal(site, subject: str = "Footing depth at grid C") -> AgentAction:
    return _propose(
        site,
        "rfi.create",
        {"project": site.project.pk, "subject": subject, "question": "Drawings disagree."},
        rationale="S-201 and S-301 show different depths.",
    )


def _log_proposal(site, day: str = "2026-03-02") -> AgentAction:
    return _propose(
        site,
        "daily_log.create",
        {
            "project": site.project.pk,
            "date": day,
            "weather": "Overcast",
            "manpower": [{"trade": "Concrete", "headcount": 6, "hours": 48}],
        },
        rationale="From the superintendent's voice note.",
    )


def _act(web, action, *proposals, **extra):
    """An action as a person starts it: approve is confirmed on its page at once (it asks
    nothing); reject returns its page, which asks for the reason."""
    if action == "approve" and not extra:
        return act_on_list(web, LIST, action, proposals)
    return web.post(
        LIST,
        {"action": action, "_selected_action": [p.pk for p in proposals], **extra},
        follow=True,
    )


def test_list_shows_proposals_with_filters(web, site):
    rfi = _rfi_proposal(site)
    log = _log_proposal(site)

    response = web.get(LIST)

    assert response.status_code == 200
    page = text(response)
    for shown in ("Create an RFI", "Create a daily log", "Proposed"):
        assert shown in page
    # Read by names: the proposing key by its name, no ID in the text (each row links to
    # its proposal's page, which shows the ID).
    assert "API key Site agent (agent)" in page
    visible = re.sub(r"<[^>]*>", " ", page)
    assert rfi.pk not in visible and log.pk not in visible and site.agent_key.pk not in visible
    assert str(site.project) in page
    assert admin_url(rfi) in response.content.decode()
    by_action = web.get(LIST, {"action__exact": "rfi.create"}).content.decode()
    assert admin_url(rfi) in by_action and admin_url(log) not in by_action
    approved = web.get(LIST, {"status__exact": "approved"}).content.decode()
    assert admin_url(log) not in approved


def test_detail_is_read_only_with_the_payload_as_json(web, site):
    proposal = _rfi_proposal(site, "<script>alert(1)</script> anchors")

    page = web.get(admin_url(proposal))

    assert page.status_code == 200
    assert "<script>alert(1)" not in page.content.decode()  # the agent's text is escaped
    payload = readonly(page, "payload_display")
    assert json.loads(payload) == proposal.payload
    assert '\n  "question": "Drawings disagree."' in payload  # indented
    assert readonly(page, "rationale") == "S-201 and S-301 show different depths."
    assert readonly(page, "status") == "Proposed"
    assert readonly(page, "proposed_by_display") == "API key Site agent (agent)"
    assert readonly(page, "result_link") == "—"
    assert 'name="_save"' not in page.content.decode()
    assert web.get(f"{LIST}add/").status_code == 403
    assert web.post(admin_url(proposal), {"rationale": "edited"}).status_code == 403
    proposal.refresh_from_db()
    assert proposal.rationale == "S-201 and S-301 show different depths."


def test_approving_an_rfi_create_creates_the_rfi_with_the_accountant_as_decider(web, site):
    proposal = _rfi_proposal(site)

    response = _act(web, "approve", proposal)

    rfi = Rfi.objects.get()
    assert messages_of(response) == [
        ("success", f"Create an RFI ({proposal.pk}): approved, result {rfi.pk}.")
    ]
    assert (rfi.subject, rfi.number, rfi.status, rfi.project_id) == (
        "Footing depth at grid C",
        "RFI-001",
        "open",
        site.project.pk,
    )
    proposal.refresh_from_db()
    assert (proposal.status, proposal.result, proposal.failure) == ("approved", rfi.pk, None)
    assert proposal.decided_by["type"] == "user"
    assert proposal.decided_by["id"] == "accountant"
    assert proposal.decided_at is not None
    created = AuditEntry.objects.get(target_id=rfi.pk)
    assert (created.action, created.actor_type, created.actor_id) == (
        "created",
        "user",
        "accountant",
    )
    decided = AuditEntry.objects.filter(target_id=proposal.pk).latest("created_at")
    assert (decided.action, decided.actor_type, decided.actor_id) == (
        "approved",
        "user",
        "accountant",
    )
    page = web.get(admin_url(proposal))
    assert readonly(page, "result_link") == str(rfi)
    assert admin_url(rfi) in page.content.decode()
    assert readonly(page, "decided_by_display") == "user accountant (superuser)"
    shown = site.agent.get(f"/v1/agents/actions/{proposal.pk}").json()
    assert (shown["status"], shown["result"], shown["decided_by"]["type"]) == (
        "approved",
        rfi.pk,
        "user",
    )


def test_a_refused_approval_becomes_failed_with_nothing_written(web, site):
    clash = _log_proposal(site, "2026-03-02")
    fine = _log_proposal(site, "2026-03-03")
    existing = daily_log_create(
        project=site.project, date=datetime.date(2026, 3, 2), weather="Sunny"
    )
    audit_before = AuditEntry.objects.filter(target_type="daily_log").count()

    response = _act(web, "approve", clash, fine)

    created = DailyLog.objects.get(date="2026-03-03")
    assert set(messages_of(response)) == {
        (
            "warning",
            f"Create a daily log ({clash.pk}): approval failed, nothing written. "
            "resource_already_exists: "
            "This project already has a daily log for 2026-03-02; update that one. "
            "(param payload.date)",
        ),
        ("success", f"Create a daily log ({fine.pk}): approved, result {created.pk}."),
    }
    clash.refresh_from_db()
    assert (clash.status, clash.result) == ("failed", "")
    assert (clash.failure["code"], clash.failure["param"]) == (
        "resource_already_exists",
        "payload.date",
    )
    assert clash.decided_by["type"] == "user"
    assert list(DailyLog.objects.filter(date="2026-03-02").values_list("pk", "weather")) == [
        (existing.pk, "Sunny")
    ]
    assert existing.manpower.count() == 0
    # Only the approved log wrote a daily-log entry.
    assert AuditEntry.objects.filter(target_type="daily_log").count() == audit_before + 1
    failed = AuditEntry.objects.filter(target_id=clash.pk).latest("created_at")
    assert (failed.action, failed.actor_type) == ("failed", "user")
    page = web.get(admin_url(clash))
    assert readonly(page, "status") == "Failed"
    assert readonly(page, "failure_summary_display").startswith("resource_already_exists: ")
    assert json.loads(readonly(page, "failure_display"))["code"] == "resource_already_exists"


def test_reject_asks_for_a_reason_and_records_it_with_the_decider(web, site):
    proposal = _rfi_proposal(site)

    asked = _act(web, "reject", proposal)
    assert asked.status_code == 200
    assert f"Create an RFI ({proposal.pk})" in text(asked)
    data = form_data(asked, "reason_form")
    missing = web.post(LIST, data)
    assert missing.status_code == 200
    assert errors_of(missing) == ["This field is required."]
    proposal.refresh_from_db()
    assert proposal.status == "proposed"

    done = web.post(LIST, {**data, "reason": "Already raised as RFI-004 by the architect."})

    assert done.status_code == 302
    assert messages_of(web.get(LIST)) == [("success", f"Create an RFI ({proposal.pk}): rejected.")]
    proposal.refresh_from_db()
    assert (proposal.status, proposal.rejection_reason) == (
        "rejected",
        "Already raised as RFI-004 by the architect.",
    )
    assert (proposal.decided_by["type"], proposal.decided_by["id"]) == ("user", "accountant")
    assert not Rfi.objects.exists()
    entry = AuditEntry.objects.filter(target_id=proposal.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.note) == (
        "rejected",
        "user",
        "Already raised as RFI-004 by the architect.",
    )


def test_approving_or_rejecting_a_decided_action_shows_an_error(web, site):
    approved = _rfi_proposal(site, "First")
    _act(web, "approve", approved)
    approved.refresh_from_db()
    audit_before = AuditEntry.objects.count()

    again = _act(web, "approve", approved)
    data = form_data(_act(web, "reject", approved), "reason_form")
    rejected = web.post(LIST, {**data, "reason": "Too late."}, follow=True)

    assert messages_of(again) == [
        (
            "error",
            f"Create an RFI ({approved.pk}): Cannot approve an agent action that is approved.",
        )
    ]
    assert messages_of(rejected) == [
        ("error", f"Create an RFI ({approved.pk}): Cannot reject an agent action that is approved.")
    ]
    assert Rfi.objects.count() == 1
    decided = AgentAction.objects.get(pk=approved.pk)
    assert (decided.status, decided.result, decided.rejection_reason) == (
        "approved",
        approved.result,
        "",
    )
    assert AuditEntry.objects.count() == audit_before


def _list_queries(web) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(LIST).status_code == 200
    return len(captured)


def test_list_costs_the_same_queries_whatever_the_rows(web, site):
    _rfi_proposal(site)
    before = _list_queries(web)
    for day in ("2026-03-02", "2026-03-03"):
        _log_proposal(site, day)
    other = make_job(AccountFactory())
    other.agent = Api(make_key(other.project.account, "agent")[1])
    _rfi_proposal(other)
    assert _list_queries(web) == before
