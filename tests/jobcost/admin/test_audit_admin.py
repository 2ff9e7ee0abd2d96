"""The audit trail in the admin is read-only: listed, filtered, searched, never changed."""

from audit.models import AuditEntry
from jobcost.services.commitments import commitment_execute
from tests.jobcost.admin.pages import admin_url, text

LIST = "/admin/audit/auditentry/"


def test_audit_entries_refuse_add_change_and_delete(web, job):
    entry = AuditEntry.objects.get(target_id=job.project.pk)
    count = AuditEntry.objects.count()

    assert web.get(f"{LIST}add/").status_code == 403
    assert web.post(f"{LIST}add/", {"target_id": "x", "action": "created"}).status_code == 403
    view = web.get(admin_url(entry))
    assert view.status_code == 200
    assert 'name="action"' not in view.content.decode()
    assert web.post(admin_url(entry), {"action": "deleted"}).status_code == 403
    assert web.get(admin_url(entry, "delete")).status_code == 403
    assert web.post(admin_url(entry, "delete"), {"post": "yes"}).status_code == 403
    bulk = web.post(LIST, {"action": "delete_selected", "_selected_action": [entry.pk]})
    assert bulk.status_code in (200, 302)

    assert AuditEntry.objects.count() == count
    entry_after = AuditEntry.objects.get(pk=entry.pk)
    assert (entry_after.action, entry_after.changes) == (entry.action, entry.changes)


def test_audit_entries_filter_by_type_action_and_actor(web, job):
    commitment_execute(commitment_id=job.subcontract.pk)

    executed = text(web.get(LIST, {"action": "executed"}))
    assert job.subcontract.pk in executed and job.project.pk not in executed
    projects = text(web.get(LIST, {"target_type": "project"}))
    assert job.project.pk in projects and job.subcontract.pk not in projects
    users = text(web.get(LIST, {"actor_type": "user"}))
    assert job.project.pk not in users
    by_target = text(web.get(LIST, {"q": job.concrete.pk}))
    assert job.concrete.pk in by_target and job.electrical.pk not in by_target
