"""The back office reads the signed-in user, their membership and its projects in one query
(docs/architecture.md, "The back office's user"), and reads them again on every page: a
changed restriction, role or a deactivated user takes effect on the next page."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from jobcost.services.backoffice_users import backoffice_user_create
from tests.factories import AccountFactory, ProjectFactory

pytestmark = pytest.mark.django_db

PROJECTS = reverse("admin:jobcost_project_changelist")


@pytest.fixture
def member():
    account = AccountFactory()
    first = ProjectFactory(account=account, name="Harbor school")
    second = ProjectFactory(account=account, name="Ridge clinic")
    membership = backoffice_user_create(
        account=account, role="member", email="member@harbor.example", projects=[first]
    )
    client = Client()
    client.force_login(membership.user)
    return membership, client, first, second


def _page(client) -> tuple[int, str, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(PROJECTS)
    return response.status_code, response.content.decode(), [q["sql"] for q in captured]


@pytest.mark.postgres
def test_the_user_membership_and_projects_are_one_query(member):
    _membership, client, first, second = member
    status, html, queries = _page(client)
    assert status == 200
    assert first.name in html and second.name not in html
    users = [sql for sql in queries if 'FROM "auth_user"' in sql]
    membership_tables = [sql for sql in queries if "jobcost_membership" in sql]
    assert len(users) == 1
    assert membership_tables == users  # the membership and its projects come with the user


def test_a_changed_restriction_role_or_account_takes_effect_on_the_next_page(member):
    membership, client, first, second = member
    membership.projects.set([second])
    status, html, _ = _page(client)
    assert status == 200
    assert second.name in html and first.name not in html

    membership.projects.clear()
    status, html, _ = _page(client)
    assert first.name in html and second.name in html

    membership.role = "viewer"
    membership.save()
    assert client.get(reverse("admin:jobcost_vendor_add")).status_code == 403

    membership.user.is_active = False
    membership.user.save()
    response = client.get(PROJECTS)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
