"""Tenancy and roles in the back office (docs/backoffice/index.md), through
the real admin.

Two accounts each hold the whole demo job (every kind of row, loaded by the same services as
`seed_demo`), a webhook endpoint with a delivery, and an API key. Users of each role of the
first account, a project-restricted one, one of the second account, a staff user without a
membership and an operator walk every registered admin: lists, searches, change and history
pages of both accounts' rows, add pages, autocomplete, and every action POSTed on the other
account's rows. No ID of a row they may not see appears in any response, every refused action
changes nothing, and what each role may open or do is what `jobcost.api.policy` lets the same
role do through the API.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.urls import reverse

from jobcost.api.policy import authorize
from jobcost.demo import school_addition as data
from jobcost.demo.loader import demo_job_load
from jobcost.errors import Forbidden
from jobcost.models import Account, CostCode, Membership, Project
from jobcost.services.backoffice_users import backoffice_user_create
from tests.factories import CostCodeFactory, ProjectFactory, make_key
from tests.jobcost.api.state import digest
from tests.shared import rows_for_the_module
from tests.webhooks.support import make_endpoint, owe_delivery

ID = re.compile(r"\b[a-z]{2,5}_[0-9A-Za-z]{12,}\b")
ROLES = ("admin", "manager", "member", "viewer")

# Each registered admin and the API collection whose policy it follows (None: operators
# only). Written out here rather than read from the admin classes, so that this test states
# the expectation; an admin missing from the table fails the walk.
BASENAMES = {
    "jobcost.account": "accounts",
    "jobcost.apikey": "api-keys",
    "jobcost.owner": "owners",
    "jobcost.vendor": "vendors",
    "jobcost.project": "projects",
    "jobcost.costcode": "cost-codes",
    "jobcost.budgetline": "budgets",
    "jobcost.commitment": "commitments",
    "jobcost.changeorder": "change-orders",
    "jobcost.invoice": "invoices",
    "jobcost.lienwaiver": "lien-waivers",
    "jobcost.payapp": "pay-apps",
    "jobcost.rfi": "rfis",
    "jobcost.dailylog": "daily-logs",
    "jobcost.agentaction": "agent-actions",
    "jobcost.idempotencyrecord": None,
    "jobcost.membership": None,
    "audit.auditentry": "projects",  # an object's audit trail is read like the object
    "webhooks.webhookendpoint": "webhooks",
    "webhooks.webhookdelivery": "webhooks",
    "webhooks.event": "events",
    "auth.user": None,
    "auth.group": None,
}
# How rows reach their project, where not through `project`: None for account-level rows.
PROJECT_FIELDS = {
    "jobcost.account": None,
    "jobcost.apikey": None,
    "jobcost.owner": None,
    "jobcost.vendor": None,
    "jobcost.project": "id",
    "audit.auditentry": None,
    "webhooks.webhookendpoint": None,
    "webhooks.webhookdelivery": None,
}
# Rows that span the account's projects: hidden from project-restricted users.
ACCOUNT_WIDE_ONLY = {"audit.auditentry"}


def _load(name: str) -> Project:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(data, "ACCOUNT_NAME", name)
        project = demo_job_load().project
    endpoint = make_endpoint(project.account)
    owe_delivery(endpoint)  # also a second project, with its `project.created` event
    make_key(project.account, role="viewer")
    return project


def _ids_of(account: Account, *, project_ids: set[str] | None = None) -> set[str]:
    """Every prefixed ID of a row of `account` (of its `project_ids` only, when given) in any
    registered model, audit entries included."""
    ids: set[str] = {account.pk} if project_ids is None else set()
    for model in admin.site._registry:
        label = model._meta.label_lower
        if BASENAMES[label] is None or model is Account:
            continue
        queryset = model._default_manager.filter(account_id=account.pk)
        if project_ids is not None:
            field = PROJECT_FIELDS.get(label, "project")
            if field is None:
                continue
            lookup = "pk__in" if field == "id" else f"{field}_id__in"
            queryset = queryset.filter(**{lookup: project_ids})
        ids |= {pk for pk in queryset.values_list("pk", flat=True) if isinstance(pk, str)}
    return ids


def _models() -> list:
    """Every registered model and the through model of each of their many-to-many links."""
    models = []
    for model in admin.site._registry:
        models.append(model)
        models += [field.remote_field.through for field in model._meta.local_many_to_many]
    return sorted(set(models), key=lambda model: model._meta.db_table)


def _snapshot() -> dict:
    """Every registered model's table, many-to-many links included, and the audit row count,
    as the database's row versions tell them (tests/jobcost/api/state.py `digest`): one query
    for each of the walk's hundred-odd comparisons."""
    return digest(_models())


def _may(membership: Membership, basename: str | None, action: str) -> bool:
    """What the API would let a key of the member's role and restriction do."""
    if basename is None:
        return False
    try:
        authorize(
            role=membership.role,
            restricted=membership.projects.exists(),
            basename=basename,
            action=action,
        )
    except Forbidden:
        return False
    return True


@pytest.fixture(scope="module")
def shared_world(django_db_setup, django_db_blocker):
    """Accounts A (demo job plus a second project) and B (demo job), and their users: built
    once for the module (two demo jobs take seconds), each test's changes rolled back."""
    with rows_for_the_module(django_db_blocker):
        yield _world()


@pytest.fixture
def world(shared_world, db):
    return shared_world


def _world() -> dict:
    home = _load("Harbor Build Co")
    other = _load("Ridgeline Contractors")
    a, b = home.account, other.account
    side = ProjectFactory(account=a, number="S-1", name="Side job")
    CostCodeFactory(project=side, code="99-000", name="Side code", budget_amount=1000)
    others = set(Project.objects.filter(account=a).exclude(pk=home.pk).values_list("pk", flat=True))
    users = {
        role: backoffice_user_create(account=a, role=role, email=f"{role}@harbor.example")
        for role in ROLES
    }
    users["restricted"] = backoffice_user_create(
        account=a, role="admin", email="restricted@harbor.example", projects=[home]
    )
    users["other"] = backoffice_user_create(
        account=b, role="manager", email="manager@ridgeline.example"
    )
    return {
        "a": a,
        "b": b,
        "home": home,
        "side": side,
        "users": users,
        "a_ids": _ids_of(a),
        "b_ids": _ids_of(b),
        # The restricted user's: the demo project's rows; not theirs: every other project's.
        "home_ids": _ids_of(a, project_ids={home.pk}) | {home.pk},
        "side_ids": _ids_of(a, project_ids=others) | others,
    }


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _leaks(response, forbidden: set[str]) -> set[str]:
    return set(ID.findall(response.content.decode())) & forbidden


def _mine(model, ids: set[str]) -> list[str]:
    """The IDs among `ids` that carry the model's prefix (its primary key's default is
    `audit.ids.id_factory(prefix)`), sorted: a query names a few dozen instead of every ID of
    the account."""
    prefix = model._meta.pk.default.args[0] + "_"
    return sorted(pk for pk in ids if pk.startswith(prefix))


def _one_of(model, model_admin, ids: set[str]):
    """A row of the model among `ids` (None when the account has none or its keys are not
    prefixed IDs)."""
    if model._meta.pk.get_internal_type() != "CharField":
        return None
    return model._default_manager.filter(pk__in=_mine(model, ids)).first()


# Values for the other parts of an admin's own object URLs, should one take more than the ID.
URL_PARTS: dict[str, list[str]] = {
    # The project's budget-import pages (`<project>/budget-import/<imp_id>/…`): the project
    # decides first, so any import ID is refused on another account's project.
    "import_id": ["imp_nope"],
}


def _walk_object_pages(client: Client, model_admin, theirs, may_view: bool, hidden: set[str]):
    """Every page an admin adds for one object (PDF, G703 grid, confirmations, …), opened
    and posted on another account's object: 404 (403 when the model is not viewable at
    all), nothing leaks and nothing changes."""
    standard = ("_change", "_history", "_delete")
    for pattern in model_admin.get_urls():
        converters = getattr(pattern.pattern, "converters", {})
        if not pattern.name or "object_id" not in converters or pattern.name.endswith(standard):
            continue
        others = [name for name in converters if name != "object_id"]
        choices = [URL_PARTS[name] for name in others] or [[None]]
        for values in itertools.product(*choices):
            kwargs = {"object_id": quote(theirs.pk)}
            pairs = zip(others, values, strict=False)
            kwargs.update({name: value for name, value in pairs if value})
            url = reverse(f"admin:{pattern.name}", kwargs=kwargs)
            expected = {404} if may_view else {403, 404}
            before = _snapshot()
            for response in (
                client.get(url),
                client.post(url, {"reason": "Because", "received_on": "2026-01-02"}),
            ):
                assert response.status_code in expected, (url, response.status_code)
                assert not _leaks(response, hidden), url
            assert _snapshot() == before, url


def _walk(client: Client, membership: Membership | None, mine: set[str], hidden: set[str]):
    """Open every admin URL as the client's user; return the refused actions run."""
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        name = f"admin:{opts.app_label}_{opts.model_name}"
        basename = BASENAMES[opts.label_lower]
        if membership is None:
            may_view = may_add = may_change = False
        else:
            wide_only = opts.label_lower in ACCOUNT_WIDE_ONLY
            restricted = membership.projects.exists()
            may_view = _may(membership, basename, "retrieve") and not (wide_only and restricted)
            may_add = may_view and _may(membership, basename, "create")
            may_change = may_view and _may(membership, basename, "partial_update")
            if model is Account:
                may_add = may_change = False  # operators create accounts; none is edited
        changelist = reverse(f"{name}_changelist")
        probe = min(hidden)  # searched for: echoed in the search box, found nowhere else
        for url in (changelist, f"{changelist}?q=a", f"{changelist}?q={probe}"):
            response = client.get(url)
            assert response.status_code == (200 if may_view else 403), (url, response.status_code)
            leaks = _leaks(response, hidden - {probe})
            assert not leaks, (url, leaks)
            if may_view and url.endswith(probe):
                assert "0 " in response.content.decode() or "result" in response.content.decode()
        theirs = _one_of(model, model_admin, hidden)
        if theirs is not None:
            for view in ("change", "history"):
                url = reverse(f"{name}_{view}", args=[quote(theirs.pk)])
                response = client.get(url)
                expected = {404} if may_view else {403, 404}
                assert response.status_code in expected, (url, response.status_code)
                assert not _leaks(response, hidden), url
            _walk_object_pages(client, model_admin, theirs, may_view, hidden)
        own = _one_of(model, model_admin, mine)
        if own is not None:
            url = reverse(f"{name}_change", args=[quote(own.pk)])
            response = client.get(url)
            assert response.status_code == (200 if may_view else 403), url
            assert not _leaks(response, hidden), (url, _leaks(response, hidden))
            if not may_change:
                before = _snapshot()
                response = client.post(url, {"name": "Changed", "number": "X-1"})
                assert response.status_code == 403, (url, response.status_code)
                assert _snapshot() == before, url
        try:
            add = reverse(f"{name}_add")
        except Exception:
            add = None
        if add is not None:
            response = client.get(add)
            if not may_add:
                assert response.status_code == 403, (add, response.status_code)
            assert not _leaks(response, hidden), (add, _leaks(response, hidden))
            if not may_add:
                before = _snapshot()
                assert client.post(add, {"name": "New", "number": "N-1"}).status_code == 403
                assert _snapshot() == before, add
        # Autocomplete of every foreign key of the model.
        for field in opts.get_fields():
            if not (field.many_to_one or field.many_to_many) or not field.concrete:
                continue
            response = client.get(
                "/admin/autocomplete/",
                {
                    "app_label": opts.app_label,
                    "model_name": opts.model_name,
                    "field_name": field.name,
                    "term": "",
                },
            )
            assert not _leaks(response, hidden), (model, field.name, _leaks(response, hidden))
        # Every action of the model, POSTed on the other account's rows: nothing changes.
        theirs_rows = model._default_manager.filter(pk__in=_mine(model, hidden)) if theirs else []
        their_ids = [row.pk for row in theirs_rows][:5]
        if their_ids and model_admin.actions:
            for action in model_admin.actions:
                before = _snapshot()
                response = client.post(
                    changelist,
                    {
                        "action": action,
                        "_selected_action": their_ids,
                        "index": "0",
                        "_confirm": "1",
                        "reason": "Because",
                    },
                )
                assert response.status_code in (200, 302, 403), (
                    model,
                    action,
                    response.status_code,
                )
                assert not _leaks(response, hidden)
                assert _snapshot() == before, (model, action)


@pytest.mark.parametrize("who", [*ROLES, "restricted", "other"])
def test_a_member_sees_and_changes_only_their_account(world, who):
    membership = world["users"][who]
    client = _client(membership.user)
    if who == "other":
        mine, hidden = world["b_ids"], world["a_ids"]
    elif who == "restricted":
        mine = world["home_ids"]
        hidden = world["b_ids"] | world["side_ids"]
    else:
        mine, hidden = world["a_ids"], world["b_ids"]
    _walk(client, membership, mine, hidden)
    index = client.get(reverse("admin:index"))
    assert index.status_code == 200
    assert not _leaks(index, hidden)
    assert client.get(reverse("admin:app_list", args=["auth"])).status_code in (403, 404)


def test_a_staff_user_without_an_account_sees_nothing(world):
    user = get_user_model().objects.create_user(username="drifter", password=None, is_staff=True)
    client = _client(user)
    _walk(client, None, set(), world["a_ids"] | world["b_ids"])


def _actions(client: Client, url: str) -> set[str]:
    html = client.get(url).content.decode()
    return set(re.findall(r'<option value="([a-z_]+)">', html)) - {""}


def test_each_role_gets_the_api_policy_in_the_admin(world):
    users = world["users"]
    change_orders = reverse("admin:jobcost_changeorder_changelist")
    member, manager, viewer = (_client(users[r].user) for r in ("member", "manager", "viewer"))
    admin_role, restricted = _client(users["admin"].user), _client(users["restricted"].user)
    assert _actions(member, change_orders) == {"submit"}
    assert _actions(manager, change_orders) == {"submit", "approve", "reject", "void"}
    assert _actions(viewer, change_orders) == set()
    assert _actions(member, reverse("admin:jobcost_payapp_changelist")) == {
        "submit",
        "submit_overriding_waivers",
    }
    assert _actions(member, reverse("admin:jobcost_commitment_changelist")) == set()
    assert _actions(member, reverse("admin:jobcost_rfi_changelist")) == {"close"}
    assert viewer.get(reverse("admin:jobcost_vendor_add")).status_code == 403
    assert member.get(reverse("admin:jobcost_vendor_add")).status_code == 200
    webhooks = reverse("admin:webhooks_webhookendpoint_changelist")
    assert manager.get(webhooks).status_code == 403
    assert admin_role.get(webhooks).status_code == 200
    assert restricted.get(webhooks).status_code == 403
    assert manager.get(reverse("admin:jobcost_apikey_add")).status_code == 403
    assert admin_role.get(reverse("admin:jobcost_apikey_add")).status_code == 200
    assert restricted.get(reverse("admin:jobcost_project_add")).status_code == 403
    assert admin_role.get(reverse("admin:jobcost_project_add")).status_code == 200
    assert restricted.get(reverse("admin:audit_auditentry_changelist")).status_code == 403
    for client in (member, manager, viewer, admin_role):
        assert client.get(reverse("admin:auth_user_changelist")).status_code == 403
        assert client.get(reverse("admin:auth_group_changelist")).status_code == 403
    assert not users["manager"].user.is_superuser and users["manager"].user.is_staff


def test_a_refused_approval_changes_nothing(world):
    """A member posting the approve action on their own account's pending change order."""
    from jobcost.models import ChangeOrder

    pending = ChangeOrder.objects.filter(account=world["a"], status="pending").first()
    assert pending is not None
    client = _client(world["users"]["member"].user)
    before = _snapshot()
    client.post(
        reverse("admin:jobcost_changeorder_changelist"),
        {"action": "approve", "_selected_action": [pending.pk], "index": "0"},
    )
    assert _snapshot() == before
    pending.refresh_from_db()
    assert pending.status == "pending"


def test_an_operator_sees_every_account(world):
    operator = get_user_model().objects.create_superuser(
        username="operator", email="op@example.com", password=None
    )
    client = _client(operator)
    html = client.get(reverse("admin:jobcost_project_changelist")).content.decode()
    assert world["home"].pk in html
    assert Project.objects.filter(account=world["b"]).first().pk in html
    assert client.get(reverse("admin:auth_user_changelist")).status_code == 200
    members = client.get(reverse("admin:jobcost_membership_changelist")).content.decode()
    assert "manager@ridgeline.example" in members and "viewer@harbor.example" in members


def test_the_snapshot_sees_any_change(world):
    """The walk's "nothing changed" is only as good as `_snapshot`: a changed column, a
    many-to-many link, new rows (a cost code and its audit entry), a change written after a
    savepoint's and a deleted row each show; a write rolled back to its savepoint does not."""
    before = _snapshot()
    with transaction.atomic():
        Project.objects.filter(pk=world["side"].pk).update(name="Rolled back")
        transaction.set_rollback(True)
    assert _snapshot() == before
    Project.objects.filter(pk=world["side"].pk).update(name="Side job, renamed")
    renamed = _snapshot()
    assert renamed != before
    world["users"]["restricted"].projects.add(world["side"])
    linked = _snapshot()
    assert linked != renamed
    CostCodeFactory(project=world["side"], code="99-001", name="Audited", budget_amount=1)
    created = _snapshot()
    assert created != linked
    # A write in this test's own transaction after a savepoint's (the cost code's service
    # ran in one): PostgreSQL stamps it with the test's transaction ID, older than the
    # savepoint's, and it changes no row count.
    CostCode.objects.filter(project=world["side"], code="99-000").update(name="Renamed")
    renamed_code = _snapshot()
    assert renamed_code != created
    world["users"]["restricted"].projects.remove(world["side"])
    assert _snapshot() != renamed_code
