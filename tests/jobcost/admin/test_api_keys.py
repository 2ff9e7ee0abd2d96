"""API keys in the back office: created through `api_key_create` with the secret shown once,
revoked through `api_key_revoke`, never edited."""

import re

from audit.models import AuditEntry
from jobcost.models import ApiKey
from jobcost.services.api_keys import hash_secret
from tests.conftest import Api, error_of
from tests.factories import ProjectFactory
from tests.jobcost.admin.pages import admin_url, errors_of, messages_of, run_list_action

ADD = "/admin/jobcost/apikey/add/"
SECRET = re.compile(r"jc_test_[A-Za-z0-9]{40}")


def _create(web, job, **overrides):
    form = {"account": job.account.pk, "role": "manager", "name": "Field office", "projects": []}
    return web.post(ADD, {**form, **overrides})


def test_created_key_shows_its_secret_once_and_authenticates(web, job):
    response = _create(web, job)

    assert response.status_code == 200, errors_of(response)
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    secrets = SECRET.findall(page)
    assert len(secrets) == 1
    secret = secrets[0]
    key = ApiKey.objects.get(name="Field office")
    assert (key.account_id, key.role, key.revoked_at) == (job.account.pk, "manager", None)
    assert f'href="{admin_url(key)}"' in page
    assert key.secret_hash == hash_secret(secret)
    assert key.secret_hint == f"jc_test_…{secret[-4:]}"
    assert ("success", f"API key {key.pk} created. Copy its secret now.") in messages_of(response)
    entry = AuditEntry.objects.get(target_id=key.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")
    assert "secret_hash" not in entry.changes

    listed = Api(secret).get("/v1/projects")
    assert listed.status_code == 200
    assert [p["id"] for p in listed.json()["data"]] == [job.project.pk]

    for later in (
        web.get(admin_url(key)),
        web.get("/admin/jobcost/apikey/"),
        web.get(admin_url(entry)),
    ):
        assert later.status_code == 200
        body = later.content.decode()
        assert secret not in body
        assert key.secret_hash not in body
    assert secret[-4:] in web.get(admin_url(key)).content.decode()


def test_revoke_action_makes_the_key_401(web, job):
    secret = SECRET.search(_create(web, job).content.decode()).group()
    key = ApiKey.objects.get(name="Field office")
    assert Api(secret).get("/v1/projects").status_code == 200

    response = run_list_action(web, "/admin/jobcost/apikey/", "revoke", [key])

    assert (
        "success",
        f"{key}: revoked (requests with it get 401 api_key_revoked within a second).",
    ) in messages_of(response)
    key.refresh_from_db()
    assert key.revoked_at is not None
    refused = Api(secret).get("/v1/projects")
    assert refused.status_code == 401
    assert error_of(refused)["code"] == "api_key_revoked"
    entry = AuditEntry.objects.filter(target_id=key.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("revoked", "user", "accountant")


def test_key_restricted_to_projects_sees_only_them(web, job):
    other = ProjectFactory(account=job.account, owner=job.owner)
    response = _create(web, job, projects=[other.pk])
    secret = SECRET.search(response.content.decode()).group()

    listed = Api(secret).get("/v1/projects").json()["data"]

    assert [p["id"] for p in listed] == [other.pk]


def test_key_for_a_project_of_another_account_is_refused(web, job):
    stranger = ProjectFactory()
    audit_before = AuditEntry.objects.count()

    response = _create(web, job, projects=[stranger.pk])

    assert response.status_code == 200
    assert f"Project {stranger.pk} belongs to another account." in errors_of(response)
    assert SECRET.search(response.content.decode()) is None
    assert not ApiKey.objects.filter(name="Field office").exists()
    assert AuditEntry.objects.count() == audit_before


def test_keys_cannot_be_edited_or_deleted(web, job):
    _create(web, job)
    key = ApiKey.objects.get(name="Field office")
    url = admin_url(key)
    page = web.get(url).content.decode()
    assert 'name="secret_hash"' not in page and 'name="role"' not in page

    edited = web.post(url, {"account": job.account.pk, "role": "admin", "name": "Renamed"})
    deleted = web.post(admin_url(key, "delete"), {"post": "yes"})

    assert (edited.status_code, deleted.status_code) == (403, 403)
    key.refresh_from_db()
    assert (key.role, key.name) == ("manager", "Field office")
