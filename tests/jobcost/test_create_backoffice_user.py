"""`create_backoffice_user`: a staff user (never superuser) of one account with a role."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from jobcost.models import Membership
from tests.factories import AccountFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def test_creates_a_restricted_member_with_a_password_from_stdin(monkeypatch):
    account = AccountFactory(name="Harbor Build Co")
    project = ProjectFactory(account=account)
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret-pass\n"))
    out = io.StringIO()
    call_command(
        "create_backoffice_user",
        "--account",
        "Harbor Build Co",
        "--role",
        "member",
        "--email",
        "pat@harbor.example",
        "--project",
        project.pk,
        "--password-stdin",
        stdout=out,
    )
    user = get_user_model().objects.get(username="pat@harbor.example")
    assert (user.is_staff, user.is_superuser) == (True, False)
    assert user.check_password("s3cret-pass")
    membership = user.backoffice_membership
    assert (membership.account, membership.role) == (account, "member")
    assert list(membership.projects.all()) == [project]
    assert "Created back-office user pat@harbor.example (member" in out.getvalue()


def test_without_a_password_the_user_cannot_log_in_yet():
    account = AccountFactory()
    call_command(
        "create_backoffice_user",
        "--account",
        account.pk,
        "--role",
        "viewer",
        "--email",
        "v@x.example",
        stdout=io.StringIO(),
    )
    assert not get_user_model().objects.get(username="v@x.example").has_usable_password()


def test_refuses_an_agent_role_and_another_accounts_project():
    account, other = AccountFactory(), AccountFactory()
    foreign = ProjectFactory(account=other)
    with pytest.raises(CommandError):
        call_command(
            "create_backoffice_user", "--account", account.pk, "--role", "agent", "--email", "a@x"
        )
    with pytest.raises(CommandError, match="No such project"):
        call_command(
            "create_backoffice_user",
            "--account",
            account.pk,
            "--role",
            "member",
            "--email",
            "b@x",
            "--project",
            foreign.pk,
        )
    assert not Membership.objects.exists()
