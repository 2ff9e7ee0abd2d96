"""The docs/keys.md, "Who may call what" authorization matrix, route by route.

Every (URL name, method) of the /v1 URL conf is a row of `ROUTES`, written by hand from
docs/keys.md, "Who may call what" and §8 (never read from `jobcost.api.policy`, the code under
test): the kind of action it is
(read, write, approve, propose, manage webhooks), the request that succeeds for an allowed
role, and what a project-restricted key gets. `MATRIX` is the §2 table itself: kind × role →
allowed, or the 403 code. The module builds one job holding every object a route acts on
(`shared`; each case's changes are rolled back), and each case calls the route once as one
role and asserts the exact status: the success status with a valid request, or 403 `forbidden`
with the code and nothing written. A route added to the URL conf without a row fails
`test_the_table_covers_every_route`.

Project-restricted keys: restricted to the job's project, a key behaves as its role except on
POST /v1/projects and every webhook route (403 `role_forbidden`); restricted to another
project of the account, the job's project-scoped objects are 404 `resource_missing` on every
detail route, absent from lists, and a create naming them is 404. Owners and vendors are
account-wide and stay visible. The role check runs first, so a role refusal wins over both.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from types import SimpleNamespace

import pytest

from config.urls import V1 as urlpatterns  # every /v1 route, both apps
from jobcost.models import BudgetLine, IdempotencyRecord
from jobcost.services.lien_waivers import lien_waiver_create
from jobcost.services.pay_app_payments import pay_app_payment_create
from jobcost.services.pay_apps import pay_app_approve, pay_app_submit, pay_app_update
from jobcost.services.projects import project_update
from tests.conftest import Api, error_of
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    CostCodeFactory,
    ProjectFactory,
    VendorFactory,
    make_change_order,
    make_invoice,
    make_key,
    make_pay_app,
)
from tests.jobcost.api.state import DOMAIN_MODELS, digest
from tests.shared import rows_for_the_module
from tests.webhooks.support import PUBLIC_URL, WEBHOOK_MODELS, make_endpoint
from webhooks.models import Event, WebhookDelivery

ROLES = ["admin", "manager", "member", "viewer", "agent"]
BUDGET_FILE = "code,name,cost type,scheduled value,budget\n77-000,Imported,other,0,1\n"

# --- docs/keys.md, "Who may call what": what each role may do
# ------------------------------------------------------------

READ = "read anything visible"
WRITE = "create / update records, submit pay apps, code invoices, close RFIs"
APPROVE = "approve / reject / void, execute or close commitments, mark paid"
PROPOSE = "propose agent actions"
WEBHOOKS = "manage webhook endpoints"

OK = "allowed"
ROLE_FORBIDDEN = "role_forbidden"
AGENT_CANNOT_APPROVE = "agent_cannot_approve"

MATRIX = {
    READ: {"admin": OK, "manager": OK, "member": OK, "viewer": OK, "agent": OK},
    WRITE: {"admin": OK, "manager": OK, "member": OK, "viewer": ROLE_FORBIDDEN, "agent": OK},
    APPROVE: {
        "admin": OK,
        "manager": OK,
        "member": ROLE_FORBIDDEN,
        "viewer": ROLE_FORBIDDEN,
        "agent": AGENT_CANNOT_APPROVE,
    },
    PROPOSE: {"admin": OK, "manager": OK, "member": OK, "viewer": ROLE_FORBIDDEN, "agent": OK},
    WEBHOOKS: {
        "admin": OK,
        "manager": ROLE_FORBIDDEN,
        "member": ROLE_FORBIDDEN,
        "viewer": ROLE_FORBIDDEN,
        "agent": ROLE_FORBIDDEN,
    },
}

# What a project-restricted key gets where its role allows the call.
AS_ROLE = "as its role"
REFUSED = "403 role_forbidden"
UNLISTED = "200 without the job's object"
MISSING = "404 resource_missing"


# --- the job: built once for the module (`shared`), plus what a route makes per call ---------


def _id(obj) -> str:
    return obj if isinstance(obj, str) else obj.pk


class Job:
    """A project of contract 10,000,000 cents at 10 % retainage whose one cost code carries the
    whole contract (a balanced schedule of values), and on demand every object a route acts
    on, in the state where the route's call is legal. The field records (RFIs, daily logs,
    agent actions) are made through the API by keys of their own, as a client would."""

    def __init__(self, account, make_api):
        self.account = account
        self._make_api = make_api

    @cached_property
    def _builders(self) -> dict:
        return {role: self._make_api(self.account, role) for role in ("member", "agent")}

    def _create(self, role, path, body) -> str:
        response = self._builders[role].post(path, body)
        assert response.status_code == 201, (path, response.content)
        return response.json()["id"]

    @cached_property
    def project(self):
        return ProjectFactory(account=self.account, contract_amount=10_000_000, retainage_pct=10)

    @cached_property
    def owner(self):
        return self.project.owner

    @cached_property
    def vendor(self):
        return VendorFactory(account=self.account, name="Acme Concrete")

    @cached_property
    def cost_code(self):
        return CostCodeFactory(
            project=self.project,
            code="03-000",
            name="Concrete",
            scheduled_value=10_000_000,
            budget_amount=9_000_000,
        )

    @cached_property
    def budget(self):
        return BudgetLine.objects.get(cost_code=self.cost_code)

    @cached_property
    def budget_import(self) -> str:
        response = self._builders["member"].post(
            f"/v1/projects/{self.project.pk}/budget-import?dry_run=true",
            BUDGET_FILE.encode(),
            content_type="text/csv",
        )
        assert response.status_code == 201, response.content
        return response.json()["id"]

    @cached_property
    def commitment(self):
        """An executed subcontract of 1,000,000 cents."""
        return CommitmentFactory(
            project=self.project,
            vendor=self.vendor,
            cost_code=self.cost_code,
            original_amount=1_000_000,
            executed=True,
        )

    @cached_property
    def draft_commitment(self):
        return CommitmentFactory(
            project=self.project,
            vendor=self.vendor,
            cost_code=self.cost_code,
            original_amount=500_000,
        )

    def change_order(self, status):
        return make_change_order(
            self.project, cost_code=self.cost_code, amount=25_000, status=status
        )

    def invoice(self, status):
        return make_invoice(self.commitment, amount=10_000, number="INV-1", status=status)

    def retained_invoice(self):
        """An approved invoice on a subcontract that withholds 10 % retainage (made per call:
        an approved invoice without a waiver would stop every pay app's submission)."""
        commitment = CommitmentFactory(
            project=self.project,
            vendor=self.vendor,
            cost_code=self.cost_code,
            original_amount=200_000,
            retainage_pct=Decimal(10),
            executed=True,
        )
        return make_invoice(commitment, amount=50_000, number="RET-1", status="approved")

    def waiver(self):
        """A requested waiver (made per call: one not yet received stops a pay app's submission)."""
        return lien_waiver_create(
            project=self.project,
            vendor=self.vendor,
            type="conditional_progress",
            amount=10_000,
            through_date=datetime.date(2026, 10, 31),
        )

    def pay_app(self, status):
        self.cost_code  # noqa: B018 (the schedule of values must balance)
        return make_pay_app(self.project, "2026-10-01", "2026-10-31", status=status)

    def certified_pay_app(self):
        """An approved pay app billing 100,000 cents of work, so certified for its line 8 of
        90,000, with one receipt of 10,000: 80,000 remains to receive."""
        pay_app = self.pay_app("draft")
        pay_app_update(pay_app_id=pay_app.pk, lines=[{"item": "1", "this_period": 100_000}])
        pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)
        pay_app_approve(pay_app_id=pay_app.pk)
        pay_app_payment_create(pay_app_id=pay_app.pk, amount=10_000, reference="first")
        return pay_app

    @cached_property
    def endpoint(self):
        return make_endpoint(self.account, events=["project.updated"])

    @cached_property
    def failed_delivery(self):
        """A delivery of the job's project.updated event to `endpoint`, failed for good."""
        endpoint = self.endpoint
        project_update(project_id=self.project.pk, changes={"name": f"{self.project.name} (2)"})
        delivery = WebhookDelivery.objects.get(endpoint=endpoint)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(status="failed")
        return delivery

    @cached_property
    def event(self):
        return Event.objects.filter(account=self.account, project_id=self.project.pk).latest(
            "created_at"
        )

    @cached_property
    def rfi(self) -> str:
        """An open RFI."""
        return self._create("member", "/v1/rfis", rfi_body(self, subject="Footing depth"))

    @cached_property
    def daily_log(self) -> str:
        return self._create("member", "/v1/daily-logs", daily_log_body(self, "2026-11-01"))

    @cached_property
    def agent_action(self) -> str:
        """A proposed `rfi.create`, proposed by an agent key."""
        return self._create("agent", "/v1/agents/actions", agent_action_body(self))


def rfi_body(job, subject="Rebar at grid C"):
    return {"project": job.project.pk, "subject": subject, "question": "Which bar size?"}


def daily_log_body(job, date):
    return {
        "project": job.project.pk,
        "date": date,
        "weather": "Clear",
        "manpower": [
            {"trade": "Concrete", "vendor": job.vendor.pk, "headcount": 4, "hours": 32},
            {"trade": "Laborers", "vendor": None, "headcount": 2, "hours": 16},
        ],
        "notes": "",
        "delays": "",
    }


def agent_action_body(job):
    return {
        "action": "rfi.create",
        "payload": {"project": job.project.pk, "subject": "S", "question": "Q"},
        "rationale": "The drawings disagree on the footing depth.",
    }


# --- the requests ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One request: `body` for POST/PATCH; on success the response must carry `expect`'s
    fields, and for a list the row whose `listed_by` field is `listed`."""

    path: str
    body: dict | None = None
    params: dict | None = None
    expect: dict = field(default_factory=dict)
    listed: str | None = None
    listed_by: str = "id"
    # A document route answers a file of this type instead of a JSON object.
    document: str | None = None
    # The one route whose body is a file (a budget import): this CSV, as text/csv.
    upload: str | None = None


def _list(path, target):
    return lambda j: Call(path, params={"limit": 100}, listed=_id(target(j)))


def _retrieve(collection, target):
    def call(j):
        pk = _id(target(j))
        return Call(f"/v1/{collection}/{pk}", expect={"id": pk})

    return call


def _audit(collection, target):
    def call(j):
        pk = _id(target(j))
        return Call(
            f"/v1/{collection}/{pk}/audit", params={"limit": 100}, listed=pk, listed_by="target"
        )

    return call


def _create(collection, body, **expect):
    return lambda j: Call(f"/v1/{collection}", body(j), expect=expect)


def _update(collection, target, body, **expect):
    def call(j):
        pk = _id(target(j))
        return Call(f"/v1/{collection}/{pk}", body(j), expect={"id": pk, **expect})

    return call


def _act(collection, target, verb, body=None, **expect):
    def call(j):
        pk = _id(target(j))
        return Call(f"/v1/{collection}/{pk}/{verb}", body or {}, expect={"id": pk, **expect})

    return call


@dataclass(frozen=True)
class Route:
    """`kind`: docs/keys.md, "Who may call what" row; `status`: the success status; `call`: the
    valid request; `own` / `other`: what a key restricted to the job's project / to another project
    gets where its role allows the call."""

    kind: str
    status: int
    call: Callable[[Job], Call]
    other: str
    own: str = AS_ROLE


def _owner_body(j):
    return {"name": "Riverside Water District"}


def _project_body(j):
    return {"number": "R-1", "name": "Pump station", "owner": j.owner.pk, "contract_amount": 1}


def _cost_code_body(j):
    return {"project": j.project.pk, "code": "05-000", "name": "Metals", "cost_type": "material"}


def _commitment_body(j):
    return {
        "project": j.project.pk,
        "vendor": j.vendor.pk,
        "cost_code": j.cost_code.pk,
        "type": "purchase_order",
        "original_amount": 100_000,
    }


def _change_order_body(j):
    return {
        "project": j.project.pk,
        "kind": "owner",
        "title": "Added footing",
        "amount": 25_000,
        "lines": [{"cost_code": j.cost_code.pk, "amount": 25_000}],
    }


def _invoice_body(j):
    return {
        "commitment": j.commitment.pk,
        "number": "INV-9",
        "invoice_date": "2026-11-03",
        "amount": 5_000,
    }


def _waiver_body(j):
    return {
        "project": j.project.pk,
        "vendor": j.vendor.pk,
        "type": "conditional_progress",
        "amount": 5_000,
        "through_date": "2026-11-30",
    }


def _pay_app_body(j):
    j.cost_code  # noqa: B018 (the schedule of values must balance)
    return {"project": j.project.pk, "period_start": "2026-11-01", "period_end": "2026-11-30"}


def _coding(j):
    return {"lines": [{"cost_code": j.cost_code.pk, "amount": 10_000}]}


def _g703(j):
    return {"lines": [{"item": "1", "this_period": 100_000}]}


ROUTES: dict[tuple[str, str], Route] = {
    # owners and vendors: account-wide, visible to every key of the account
    ("owners-list", "get"): Route(READ, 200, _list("/v1/owners", lambda j: j.owner), AS_ROLE),
    ("owners-list", "post"): Route(
        WRITE, 201, _create("owners", _owner_body, object="owner"), AS_ROLE
    ),
    ("owners-detail", "get"): Route(READ, 200, _retrieve("owners", lambda j: j.owner), AS_ROLE),
    ("owners-detail", "patch"): Route(
        WRITE,
        200,
        _update("owners", lambda j: j.owner, lambda j: {"name": "Renamed"}, name="Renamed"),
        AS_ROLE,
    ),
    ("owners-audit", "get"): Route(READ, 200, _audit("owners", lambda j: j.owner), AS_ROLE),
    ("vendors-list", "get"): Route(READ, 200, _list("/v1/vendors", lambda j: j.vendor), AS_ROLE),
    ("vendors-list", "post"): Route(
        WRITE, 201, _create("vendors", lambda j: {"name": "Steelco"}, object="vendor"), AS_ROLE
    ),
    ("vendors-detail", "get"): Route(READ, 200, _retrieve("vendors", lambda j: j.vendor), AS_ROLE),
    ("vendors-detail", "patch"): Route(
        WRITE,
        200,
        _update("vendors", lambda j: j.vendor, lambda j: {"trade": "Glass"}, trade="Glass"),
        AS_ROLE,
    ),
    ("vendors-audit", "get"): Route(READ, 200, _audit("vendors", lambda j: j.vendor), AS_ROLE),
    # projects: a restricted key never creates one
    ("projects-list", "get"): Route(
        READ, 200, _list("/v1/projects", lambda j: j.project), UNLISTED
    ),
    ("projects-list", "post"): Route(
        WRITE, 201, _create("projects", _project_body, object="project"), REFUSED, own=REFUSED
    ),
    ("projects-detail", "get"): Route(
        READ, 200, _retrieve("projects", lambda j: j.project), MISSING
    ),
    ("projects-detail", "patch"): Route(
        WRITE,
        200,
        _update("projects", lambda j: j.project, lambda j: {"name": "Renamed"}, name="Renamed"),
        MISSING,
    ),
    ("projects-audit", "get"): Route(READ, 200, _audit("projects", lambda j: j.project), MISSING),
    # cost codes and budgets
    ("cost-codes-list", "get"): Route(
        READ, 200, _list("/v1/cost-codes", lambda j: j.cost_code), UNLISTED
    ),
    ("cost-codes-list", "post"): Route(
        WRITE, 201, _create("cost-codes", _cost_code_body, object="cost_code"), MISSING
    ),
    ("cost-codes-detail", "get"): Route(
        READ, 200, _retrieve("cost-codes", lambda j: j.cost_code), MISSING
    ),
    ("cost-codes-detail", "patch"): Route(
        WRITE,
        200,
        _update("cost-codes", lambda j: j.cost_code, lambda j: {"name": "Cast"}, name="Cast"),
        MISSING,
    ),
    ("cost-codes-audit", "get"): Route(
        READ, 200, _audit("cost-codes", lambda j: j.cost_code), MISSING
    ),
    ("budgets-list", "get"): Route(READ, 200, _list("/v1/budgets", lambda j: j.budget), UNLISTED),
    # Importing a budget creates cost codes: a write (docs/budget-import.md).
    ("projects-budget-import", "post"): Route(
        WRITE,
        201,
        lambda j: Call(
            f"/v1/projects/{j.project.pk}/budget-import",
            upload=BUDGET_FILE,
            expect={"object": "budget_import", "status": "succeeded"},
        ),
        MISSING,
    ),
    ("budget-imports-list", "get"): Route(
        READ, 200, _list("/v1/budget-imports", lambda j: j.budget_import), UNLISTED
    ),
    ("budget-imports-detail", "get"): Route(
        READ, 200, _retrieve("budget-imports", lambda j: j.budget_import), MISSING
    ),
    # The import record is not audited itself (docs/budget-import.md): its trail is empty.
    ("budget-imports-audit", "get"): Route(
        READ,
        200,
        lambda j: Call(f"/v1/budget-imports/{j.budget_import}/audit", params={"limit": 100}),
        MISSING,
    ),
    ("budgets-detail", "get"): Route(READ, 200, _retrieve("budgets", lambda j: j.budget), MISSING),
    ("budgets-detail", "patch"): Route(
        WRITE,
        200,
        _update(
            "budgets",
            lambda j: j.budget,
            lambda j: {"cost_to_complete": 300_000},
            cost_to_complete=300_000,
        ),
        MISSING,
    ),
    ("budgets-audit", "get"): Route(READ, 200, _audit("budgets", lambda j: j.budget), MISSING),
    # commitments
    ("commitments-list", "get"): Route(
        READ, 200, _list("/v1/commitments", lambda j: j.commitment), UNLISTED
    ),
    ("commitments-list", "post"): Route(
        WRITE, 201, _create("commitments", _commitment_body, status="draft"), MISSING
    ),
    ("commitments-detail", "get"): Route(
        READ, 200, _retrieve("commitments", lambda j: j.commitment), MISSING
    ),
    ("commitments-detail", "patch"): Route(
        WRITE,
        200,
        _update(
            "commitments",
            lambda j: j.draft_commitment,
            lambda j: {"original_amount": 900_000},
            original_amount=900_000,
        ),
        MISSING,
    ),
    ("commitments-audit", "get"): Route(
        READ, 200, _audit("commitments", lambda j: j.commitment), MISSING
    ),
    ("commitments-execute", "post"): Route(
        APPROVE,
        200,
        _act("commitments", lambda j: j.draft_commitment, "execute", status="executed"),
        MISSING,
    ),
    ("commitments-close", "post"): Route(
        APPROVE, 200, _act("commitments", lambda j: j.commitment, "close", status="closed"), MISSING
    ),
    ("commitments-void", "post"): Route(
        APPROVE,
        200,
        _act("commitments", lambda j: j.draft_commitment, "void", status="void"),
        MISSING,
    ),
    # change orders
    ("change-orders-list", "get"): Route(
        READ, 200, _list("/v1/change-orders", lambda j: j.change_order("draft")), UNLISTED
    ),
    ("change-orders-list", "post"): Route(
        WRITE, 201, _create("change-orders", _change_order_body, status="draft"), MISSING
    ),
    ("change-orders-detail", "get"): Route(
        READ, 200, _retrieve("change-orders", lambda j: j.change_order("draft")), MISSING
    ),
    ("change-orders-detail", "patch"): Route(
        WRITE,
        200,
        _update(
            "change-orders",
            lambda j: j.change_order("draft"),
            lambda j: {"title": "Deeper footing"},
            title="Deeper footing",
        ),
        MISSING,
    ),
    ("change-orders-audit", "get"): Route(
        READ, 200, _audit("change-orders", lambda j: j.change_order("draft")), MISSING
    ),
    ("change-orders-submit", "post"): Route(
        WRITE,
        200,
        _act("change-orders", lambda j: j.change_order("draft"), "submit", status="pending"),
        MISSING,
    ),
    ("change-orders-approve", "post"): Route(
        APPROVE,
        200,
        _act("change-orders", lambda j: j.change_order("pending"), "approve", status="approved"),
        MISSING,
    ),
    ("change-orders-reject", "post"): Route(
        APPROVE,
        200,
        _act(
            "change-orders",
            lambda j: j.change_order("pending"),
            "reject",
            {"reason": "Owner declined"},
            status="rejected",
        ),
        MISSING,
    ),
    ("change-orders-void", "post"): Route(
        APPROVE,
        200,
        _act("change-orders", lambda j: j.change_order("draft"), "void", status="void"),
        MISSING,
    ),
    # invoices: PATCH codes one (a write); approve, mark paid and void are approvals
    ("invoices-list", "get"): Route(
        READ, 200, _list("/v1/invoices", lambda j: j.invoice("received")), UNLISTED
    ),
    ("invoices-list", "post"): Route(
        WRITE, 201, _create("invoices", _invoice_body, status="received"), MISSING
    ),
    ("invoices-detail", "get"): Route(
        READ, 200, _retrieve("invoices", lambda j: j.invoice("received")), MISSING
    ),
    ("invoices-detail", "patch"): Route(
        WRITE,
        200,
        _update("invoices", lambda j: j.invoice("received"), _coding, status="coded"),
        MISSING,
    ),
    ("invoices-audit", "get"): Route(
        READ, 200, _audit("invoices", lambda j: j.invoice("received")), MISSING
    ),
    ("invoices-approve", "post"): Route(
        APPROVE,
        200,
        _act("invoices", lambda j: j.invoice("coded"), "approve", status="approved"),
        MISSING,
    ),
    ("invoices-mark-paid", "post"): Route(
        APPROVE,
        200,
        _act("invoices", lambda j: j.invoice("approved"), "mark-paid", status="paid"),
        MISSING,
    ),
    ("invoices-void", "post"): Route(
        APPROVE,
        200,
        _act("invoices", lambda j: j.invoice("received"), "void", status="void"),
        MISSING,
    ),
    # lien waivers
    ("lien-waivers-list", "get"): Route(
        READ, 200, _list("/v1/lien-waivers", lambda j: j.waiver()), UNLISTED
    ),
    ("lien-waivers-list", "post"): Route(
        WRITE, 201, _create("lien-waivers", _waiver_body, status="requested"), MISSING
    ),
    ("lien-waivers-detail", "get"): Route(
        READ, 200, _retrieve("lien-waivers", lambda j: j.waiver()), MISSING
    ),
    ("lien-waivers-detail", "patch"): Route(
        WRITE,
        200,
        _update(
            "lien-waivers",
            lambda j: j.waiver(),
            lambda j: {"status": "received"},
            status="received",
        ),
        MISSING,
    ),
    ("lien-waivers-audit", "get"): Route(
        READ, 200, _audit("lien-waivers", lambda j: j.waiver()), MISSING
    ),
    # pay apps: submit is a write; approve, reject and mark paid are approvals
    ("pay-apps-list", "get"): Route(
        READ, 200, _list("/v1/pay-apps", lambda j: j.pay_app("draft")), UNLISTED
    ),
    ("pay-apps-list", "post"): Route(
        WRITE, 201, _create("pay-apps", _pay_app_body, status="draft", number=1), MISSING
    ),
    ("pay-apps-detail", "get"): Route(
        READ, 200, _retrieve("pay-apps", lambda j: j.pay_app("draft")), MISSING
    ),
    ("pay-apps-detail", "patch"): Route(
        WRITE,
        200,
        _update(
            "pay-apps", lambda j: j.pay_app("draft"), _g703, total_completed_and_stored=100_000
        ),
        MISSING,
    ),
    ("pay-apps-lines", "get"): Route(
        READ,
        200,
        lambda j: Call(
            f"/v1/pay-apps/{j.pay_app('draft').pk}/lines",
            listed=j.cost_code.pk,
            listed_by="cost_code",
        ),
        MISSING,
    ),
    # Printing is reading (docs/keys.md, "Who may call what": read anything visible): anyone who can
    # read it can print it.
    ("pay-apps-pdf", "get"): Route(
        READ,
        200,
        lambda j: Call(f"/v1/pay-apps/{j.pay_app('draft').pk}/pdf", document="application/pdf"),
        MISSING,
    ),
    ("pay-apps-audit", "get"): Route(
        READ, 200, _audit("pay-apps", lambda j: j.pay_app("draft")), MISSING
    ),
    ("pay-apps-submit", "post"): Route(
        WRITE,
        200,
        _act("pay-apps", lambda j: j.pay_app("draft"), "submit", status="submitted"),
        MISSING,
    ),
    ("pay-apps-approve", "post"): Route(
        APPROVE,
        200,
        _act("pay-apps", lambda j: j.pay_app("submitted"), "approve", status="approved"),
        MISSING,
    ),
    ("pay-apps-reject", "post"): Route(
        APPROVE,
        200,
        _act(
            "pay-apps",
            lambda j: j.pay_app("submitted"),
            "reject",
            {"reason": "Line 1 is ahead of the work"},
            status="draft",
            rejection_reason="Line 1 is ahead of the work",
        ),
        MISSING,
    ),
    # The owner's receipts: reading them is reading; recording one is marking (partly) paid.
    ("pay-apps-payments", "get"): Route(
        READ,
        200,
        lambda j: Call(
            f"/v1/pay-apps/{j.certified_pay_app().pk}/payments",
            listed="first",
            listed_by="reference",
        ),
        MISSING,
    ),
    ("pay-apps-payments", "post"): Route(
        APPROVE,
        201,
        lambda j: Call(
            f"/v1/pay-apps/{(pay_app := j.certified_pay_app()).pk}/payments",
            {"amount": 5_000, "reference": "CHK-9"},
            expect={"object": "pay_app_payment", "pay_app": pay_app.pk, "amount": 5_000},
        ),
        MISSING,
    ),
    ("pay-apps-mark-paid", "post"): Route(
        APPROVE,
        200,
        _act("pay-apps", lambda j: j.pay_app("approved"), "mark-paid", status="paid"),
        MISSING,
    ),
    # reports: reading figures (every role reads, docs/reports.md); a key restricted to another
    # project sees none of the job's rows, and a job-cost report of the job's project is 404
    ("reports-wip", "get"): Route(
        READ,
        200,
        lambda j: Call(
            "/v1/reports/wip", params={"limit": 100}, listed=j.project.pk, listed_by="project"
        ),
        UNLISTED,
    ),
    ("reports-job-cost", "get"): Route(
        READ,
        200,
        lambda j: Call(
            "/v1/reports/job-cost",
            params={"project": j.project.pk},
            listed=j.cost_code.pk,
            listed_by="cost_code",
        ),
        MISSING,
    ),
    ("reports-job-cost-transactions", "get"): Route(
        READ,
        200,
        lambda j: Call(
            "/v1/reports/job-cost/transactions",
            params={"project": j.project.pk},
            listed=j.invoice("approved").pk,
            listed_by="invoice",
        ),
        MISSING,
    ),
    ("reports-ap-aging", "get"): Route(
        READ,
        200,
        lambda j: Call(
            "/v1/reports/ap-aging",
            params={"limit": 100},
            listed=j.invoice("approved").vendor_id,
            listed_by="vendor",
        ),
        UNLISTED,
    ),
    ("reports-ar-aging", "get"): Route(
        READ,
        200,
        lambda j: Call(
            "/v1/reports/ar-aging",
            params={"limit": 100},
            listed=j.certified_pay_app().project_id,
            listed_by="project",
        ),
        UNLISTED,
    ),
    ("reports-retainage", "get"): Route(
        READ,
        200,
        lambda j: Call(
            "/v1/reports/retainage",
            params={"limit": 100},
            listed=j.retained_invoice().commitment_id,
            listed_by="commitment",
        ),
        UNLISTED,
    ),
    # webhook endpoints, deliveries and retries: the unrestricted admin key's alone
    ("webhooks-list", "get"): Route(
        WEBHOOKS, 200, _list("/v1/webhooks", lambda j: j.endpoint), REFUSED, own=REFUSED
    ),
    ("webhooks-list", "post"): Route(
        WEBHOOKS,
        201,
        _create(
            "webhooks",
            lambda j: {"url": PUBLIC_URL, "events": ["*"]},
            object="webhook_endpoint",
            url=PUBLIC_URL,
        ),
        REFUSED,
        own=REFUSED,
    ),
    ("webhooks-detail", "get"): Route(
        WEBHOOKS, 200, _retrieve("webhooks", lambda j: j.endpoint), REFUSED, own=REFUSED
    ),
    ("webhooks-detail", "patch"): Route(
        WEBHOOKS,
        200,
        _update(
            "webhooks",
            lambda j: j.endpoint,
            lambda j: {"description": "Accounting"},
            description="Accounting",
        ),
        REFUSED,
        own=REFUSED,
    ),
    ("webhooks-detail", "delete"): Route(
        WEBHOOKS,
        200,
        lambda j: Call(
            f"/v1/webhooks/{j.endpoint.pk}", expect={"id": j.endpoint.pk, "deleted": True}
        ),
        REFUSED,
        own=REFUSED,
    ),
    ("webhooks-audit", "get"): Route(
        WEBHOOKS, 200, _audit("webhooks", lambda j: j.endpoint), REFUSED, own=REFUSED
    ),
    ("webhooks-deliveries", "get"): Route(
        WEBHOOKS,
        200,
        lambda j: Call(f"/v1/webhooks/{j.endpoint.pk}/deliveries", listed=j.failed_delivery.pk),
        REFUSED,
        own=REFUSED,
    ),
    ("webhooks-rotate-secret", "post"): Route(
        WEBHOOKS,
        200,
        _act("webhooks", lambda j: j.endpoint, "rotate-secret"),
        REFUSED,
        own=REFUSED,
    ),
    ("webhooks-delivery-retry", "post"): Route(
        WEBHOOKS,
        200,
        lambda j: Call(
            f"/v1/webhooks/{j.endpoint.pk}/deliveries/{j.failed_delivery.pk}/retry",
            {},
            expect={"id": j.failed_delivery.pk, "status": "pending"},
        ),
        REFUSED,
        own=REFUSED,
    ),
    # events: read by every role; a restricted key sees its projects' events only
    ("events-list", "get"): Route(READ, 200, _list("/v1/events", lambda j: j.event), UNLISTED),
    ("events-detail", "get"): Route(READ, 200, _retrieve("events", lambda j: j.event), MISSING),
    # RFIs (docs/resources.md, rfi): closing one is a write, not an approval
    ("rfis-list", "get"): Route(READ, 200, _list("/v1/rfis", lambda j: j.rfi), UNLISTED),
    ("rfis-list", "post"): Route(
        WRITE, 201, _create("rfis", rfi_body, object="rfi", status="open"), MISSING
    ),
    ("rfis-detail", "get"): Route(READ, 200, _retrieve("rfis", lambda j: j.rfi), MISSING),
    ("rfis-detail", "patch"): Route(
        WRITE,
        200,
        _update(
            "rfis",
            lambda j: j.rfi,
            lambda j: {"answer": "Use #5 bars at 12 in."},
            status="answered",
            answer="Use #5 bars at 12 in.",
        ),
        MISSING,
    ),
    ("rfis-audit", "get"): Route(READ, 200, _audit("rfis", lambda j: j.rfi), MISSING),
    ("rfis-close", "post"): Route(
        WRITE, 200, _act("rfis", lambda j: j.rfi, "close", status="closed"), MISSING
    ),
    # daily logs (docs/resources.md, daily_log): one per project and day
    ("daily-logs-list", "get"): Route(
        READ, 200, _list("/v1/daily-logs", lambda j: j.daily_log), UNLISTED
    ),
    ("daily-logs-list", "post"): Route(
        WRITE,
        201,
        _create(
            "daily-logs",
            lambda j: daily_log_body(j, "2026-11-02"),
            object="daily_log",
            date="2026-11-02",
        ),
        MISSING,
    ),
    ("daily-logs-detail", "get"): Route(
        READ, 200, _retrieve("daily-logs", lambda j: j.daily_log), MISSING
    ),
    ("daily-logs-detail", "patch"): Route(
        WRITE,
        200,
        _update(
            "daily-logs",
            lambda j: j.daily_log,
            lambda j: {"notes": "Pour delayed"},
            notes="Pour delayed",
        ),
        MISSING,
    ),
    ("daily-logs-audit", "get"): Route(
        READ, 200, _audit("daily-logs", lambda j: j.daily_log), MISSING
    ),
    # agent actions (docs/resources.md, agent_action): proposing is its own row; deciding is an
    # approval
    ("agent-actions-list", "get"): Route(
        READ, 200, _list("/v1/agents/actions", lambda j: j.agent_action), UNLISTED
    ),
    ("agent-actions-list", "post"): Route(
        PROPOSE,
        201,
        _create("agents/actions", agent_action_body, object="agent_action", status="proposed"),
        MISSING,
    ),
    ("agent-actions-detail", "get"): Route(
        READ, 200, _retrieve("agents/actions", lambda j: j.agent_action), MISSING
    ),
    ("agent-actions-audit", "get"): Route(
        READ, 200, _audit("agents/actions", lambda j: j.agent_action), MISSING
    ),
    ("agent-actions-approve", "post"): Route(
        APPROVE,
        200,
        _act("agents/actions", lambda j: j.agent_action, "approve", status="approved"),
        MISSING,
    ),
    ("agent-actions-reject", "post"): Route(
        APPROVE,
        200,
        _act(
            "agents/actions",
            lambda j: j.agent_action,
            "reject",
            {"reason": "Already asked"},
            status="rejected",
        ),
        MISSING,
    ),
}

ROUTE_IDS = [f"{name}:{method}" for name, method in ROUTES]
# The restricted-key columns run for an admin key (which loses POST /v1/projects and the
# webhook routes to the restriction) and a member key (whose approvals stay role refusals).
RESTRICTED_ROLES = ["admin", "member"]


def _route(route_id: str) -> tuple[str, Route]:
    name, method = route_id.split(":")
    return method, ROUTES[(name, method)]


# --- the checks --------------------------------------------------------------------------------


def _state() -> dict:
    """Every domain row (field records included), every webhook row, the audit trail's length."""
    return digest((*DOMAIN_MODELS, *WEBHOOK_MODELS))


def _send(client, method, call: Call):
    if method == "get":
        return client.get(call.path, call.params)
    if method == "delete":
        return client.delete(call.path)
    if call.upload is not None:
        return client.post(call.path, call.upload.encode(), content_type="text/csv")
    return getattr(client, method)(call.path, call.body)


def _expected(route: Route, role: str, restriction: str) -> str:
    """The outcome the table gives: the role's refusal first (the role check runs before
    anything else), then the restriction's."""
    by_role = MATRIX[route.kind][role]
    if by_role != OK:
        return by_role
    return {AS_ROLE: OK, REFUSED: ROLE_FORBIDDEN, UNLISTED: UNLISTED, MISSING: MISSING}[restriction]


def _check(client, method: str, route: Route, call: Call, outcome: str) -> None:
    # Nothing written: after every 403, and after a 404 on a POST, PATCH or DELETE.
    compare = outcome not in (OK, UNLISTED) and not (outcome == MISSING and method == "get")
    if compare:
        before = _state()
        idempotency_before = IdempotencyRecord.objects.count()
    response = _send(client, method, call)
    if outcome == OK:
        assert response.status_code == route.status, response.content
        if call.document is not None:
            assert response["Content-Type"] == call.document
            assert response.content.startswith(b"%PDF-")
            return
        body = response.json()
        for name, value in call.expect.items():
            assert body[name] == value, (name, body)
        if call.listed is not None:
            assert call.listed in [row[call.listed_by] for row in body["data"]], body
        return
    if outcome == UNLISTED:
        assert response.status_code == 200, response.content
        assert call.listed not in [row[call.listed_by] for row in response.json()["data"]]
        return
    error = error_of(response)
    if outcome == MISSING:
        assert response.status_code == 404, response.content
        assert (error["type"], error["code"]) == ("not_found", "resource_missing"), error
    else:
        assert response.status_code == 403, response.content
        assert (error["type"], error["code"]) == ("forbidden", outcome), error
        assert IdempotencyRecord.objects.count() == idempotency_before  # a 403 is not stored
    if compare:
        assert _state() == before


# --- the tests ---------------------------------------------------------------------------------


def test_the_table_covers_every_route():
    """Adding a route (or a method to one) without a row in ROUTES fails here."""
    served = {
        (pattern.name, method)
        for pattern in urlpatterns
        for method in pattern.callback.actions
        # DRF adds HEAD (answered by the GET handler) to the map on the first request.
        if method != "head"
    }
    assert served == set(ROUTES), {
        "routes without a row": sorted(served - set(ROUTES)),
        "rows without a route": sorted(set(ROUTES) - served),
    }


# Every object a route acts on, in the order they are built: the webhook endpoint and its failed
# delivery last, so the endpoint (subscribed to project.updated) owes exactly that one delivery
# and the project's latest event is its project.updated.
PREBUILT = (
    "project",
    "owner",
    "vendor",
    "cost_code",
    "budget",
    "budget_import",
    "commitment",
    "draft_commitment",
    "rfi",
    "daily_log",
    "agent_action",
    "endpoint",
    "failed_delivery",
    "event",
)


def _api_of(account, role="admin", projects=()):
    key, secret = make_key(account, role, projects)
    return Api(secret, key)


@pytest.fixture(scope="module")
def shared(django_db_setup, django_db_blocker):
    """One job with every object a route acts on, another project of its account, and a key per
    column of the matrix, built once for the module (each test's changes rolled back,
    tests/shared.py): SimpleNamespace(job, clients={(role, restriction): Api})."""
    with rows_for_the_module(django_db_blocker):
        account = AccountFactory()
        job = Job(account, _api_of)
        for name in PREBUILT:
            getattr(job, name)
        elsewhere = ProjectFactory(account=account, owner=job.owner)
        clients = {(role, AS_ROLE): _api_of(account, role) for role in ROLES}
        for role in RESTRICTED_ROLES:
            clients[(role, "own")] = _api_of(account, role, [job.project])
            clients[(role, "other")] = _api_of(account, role, [elsewhere])
        yield SimpleNamespace(job=job, clients=clients)


@pytest.fixture
def matrix(shared, db):
    return shared


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("route_id", ROUTE_IDS)
def test_every_role_on_every_route(matrix, route_id, role):
    method, route = _route(route_id)
    call = route.call(matrix.job)
    _check(matrix.clients[(role, AS_ROLE)], method, route, call, _expected(route, role, AS_ROLE))


@pytest.mark.parametrize("role", RESTRICTED_ROLES)
@pytest.mark.parametrize("route_id", ROUTE_IDS)
def test_a_key_restricted_to_the_jobs_project(matrix, route_id, role):
    method, route = _route(route_id)
    call = route.call(matrix.job)
    client = matrix.clients[(role, "own")]
    _check(client, method, route, call, _expected(route, role, route.own))


@pytest.mark.parametrize("role", RESTRICTED_ROLES)
@pytest.mark.parametrize("route_id", ROUTE_IDS)
def test_a_key_restricted_to_another_project(matrix, route_id, role):
    method, route = _route(route_id)
    call = route.call(matrix.job)
    client = matrix.clients[(role, "other")]
    _check(client, method, route, call, _expected(route, role, route.other))
