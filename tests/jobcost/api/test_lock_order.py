"""Writes take their row locks in one order (jobcost/services/invoices.py): the commitment,
then the invoice or change order, then the project, then the budget lines, then the project's
pay app. An invoice approval and a commitment change order's approval on the same commitment
therefore queue on the commitment, and a pay-app write and an owner change order's approval
(which lands on the draft pay app) on the project, and can never hold each other's next lock
(a deadlock, which PostgreSQL ends by failing one of them). An invoice's receipt and its
coding move no balance: they hold the commitment (the receipt) and the project with `FOR KEY
SHARE` only and run beside the approvals on the commitment, while the moves that change what
they check (a close or void, a project's status move, a pay app's submission) wait for them."""

import threading

import pytest
from django.db import connection, connections

from jobcost.models import ChangeOrder, Commitment, CostCode, Invoice, PayApp, Project, Vendor
from tests.conftest import Api
from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    CostCodeFactory,
    ProjectFactory,
    make_change_order,
    make_invoice,
    make_job,
    make_key,
    make_pay_app,
)
from tests.waiting import backend_pid, until_blocked_by


def _lockable_now(probe, model, pk, strength: str = "UPDATE") -> bool:
    """True when `SELECT … FOR <strength> NOWAIT` gets the row at once (then releases it);
    `KEY SHARE` is the lock a foreign-key check takes on the row an INSERT refers to."""
    table = connection.ops.quote_name(model._meta.db_table)
    with probe.cursor() as cursor:
        cursor.execute("SAVEPOINT probe")
        try:
            cursor.execute(
                f"SELECT 1 FROM {table} WHERE id = %s FOR {strength} NOWAIT",
                [pk],
            )
        except Exception:  # psycopg LockNotAvailable, wrapped by Django
            cursor.execute("ROLLBACK TO SAVEPOINT probe")
            return False
        cursor.execute("ROLLBACK TO SAVEPOINT probe")
        return True


def _queued_behind(model, pk, strength: str, send, check) -> object:
    """Hold `model`'s row `pk` (`SELECT … FOR <strength>`) on a connection of its own, make the
    API call `send()` in a thread, wait until it queues behind that lock (as the lock manager
    says), run `check(probe, holder)` (`probe` a third connection), then release the row and
    return the call's response once it has gone through (its error, if it raised)."""
    holder = connections.create_connection("default")
    probe = connections.create_connection("default")
    results = {}

    def call():
        try:
            results["response"] = send()
        except BaseException as exc:  # raised again below, in the test's thread
            results["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=call)
    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            table = connection.ops.quote_name(model._meta.db_table)
            cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR {strength}", [pk])
        thread.start()
        until_blocked_by(probe, backend_pid(holder), alive=thread.is_alive)
        probe.set_autocommit(False)
        check(probe, holder)
    finally:
        probe.close()
        holder.close()  # the row is free: the call goes through
        if thread.ident is not None:
            thread.join(timeout=60)
    assert not thread.is_alive(), "the call did not finish once the row was free"
    if "error" in results:
        raise results["error"]
    return results["response"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_commitment_change_order_approval_waits_on_the_commitment_before_anything_else():
    """Another transaction holds the commitment (as an invoice approval does first). The
    change order's approval must queue on it holding nothing an invoice approval needs next:
    while it waits, its change order and its project can still be locked by others."""
    account = AccountFactory()
    project = ProjectFactory(account=account)
    commitment = CommitmentFactory(project=project, original_amount=1_000_000, executed=True)
    cco = make_change_order(
        project,
        cost_code=commitment.cost_code,
        amount=50_000,
        kind="commitment",
        commitment=commitment,
    )
    _, secret = make_key(account, "admin")

    def check(probe, holder):
        assert _lockable_now(probe, Project, project.pk)
        assert _lockable_now(probe, ChangeOrder, cco.pk)

    response = _queued_behind(
        Commitment,
        commitment.pk,
        "UPDATE",
        lambda: Api(secret).post(f"/v1/change-orders/{cco.pk}/approve"),
        check,
    )
    assert response.status_code == 200, response.content
    commitment.refresh_from_db()
    assert commitment.approved_changes == 50_000


# Each pay-app write: (method, path under the pay app, body, the state it starts from, the
# state it leaves).
PAY_APP_WRITES = {
    "update": ("patch", "", {"lines": [{"item": "1", "this_period": 100_000}]}, "draft", "draft"),
    "submit": ("post", "/submit", {"allow_missing_waivers": True}, "draft", "submitted"),
    "reject": ("post", "/reject", {"reason": "Wrong period"}, "submitted", "draft"),
    "approve": ("post", "/approve", None, "submitted", "approved"),
    "mark_paid": ("post", "/mark-paid", None, "approved", "paid"),
}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("write", sorted(PAY_APP_WRITES))
def test_a_pay_app_write_waits_on_its_project_before_locking_the_pay_app(write):
    """Another transaction holds the project, as an owner change order's approval does before
    it locks the draft pay app to land on it. A pay-app write must queue on the project
    holding nothing of its pay app: while it waits, the pay app can still be locked by others
    (with the pay app first, the two would deadlock)."""
    method, suffix, body, state, after = PAY_APP_WRITES[write]
    account = AccountFactory()
    project = ProjectFactory(account=account, contract_amount=1_000_000)
    CostCodeFactory(project=project, code="03-000", scheduled_value=1_000_000)
    pay_app = make_pay_app(project, "2026-09-01", "2026-09-30", status=state)
    _, secret = make_key(account, "admin")
    path = f"/v1/pay-apps/{pay_app.pk}{suffix}"

    def check(probe, holder):
        assert _lockable_now(probe, PayApp, pay_app.pk)

    response = _queued_behind(
        Project, project.pk, "UPDATE", lambda: getattr(Api(secret), method)(path, body), check
    )
    assert response.status_code == 200, response.content
    pay_app.refresh_from_db()
    assert pay_app.status == after


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_write_waiting_on_its_project_leaves_the_row_it_holds_referable():
    """A cost code's update locks the code, then waits for the project, which another
    transaction holds, as a pay app's creation does while it inserts G703 lines that refer to
    that cost code. The update's lock must not stop those inserts' foreign-key checks
    (`FOR KEY SHARE`), or each would wait for the other; it still excludes another update."""
    account = AccountFactory()
    project = ProjectFactory(account=account, contract_amount=1_000_000)
    cost_code = CostCodeFactory(project=project, code="03-000", scheduled_value=1_000_000)
    _, secret = make_key(account, "admin")

    def check(probe, holder):
        assert _lockable_now(probe, CostCode, cost_code.pk, "KEY SHARE")
        assert not _lockable_now(probe, CostCode, cost_code.pk, "NO KEY UPDATE")

    response = _queued_behind(
        Project,
        project.pk,
        "UPDATE",
        lambda: Api(secret).patch(f"/v1/cost-codes/{cost_code.pk}", {"name": "Concrete, revised"}),
        check,
    )
    assert response.status_code == 200, response.content
    cost_code.refresh_from_db()
    assert cost_code.name == "Concrete, revised"


def _pay_app_job(order_status: str):
    """A project ($10,000.00 contract, one cost code) with an owner change order of $500.00
    in `order_status`, an admin key's secret, and the body that creates the project's
    September pay app: `(project, order, secret, body)`."""
    account = AccountFactory()
    project = ProjectFactory(account=account, contract_amount=1_000_000)
    code = CostCodeFactory(project=project, code="03-000", scheduled_value=1_000_000)
    order = make_change_order(project, cost_code=code, amount=50_000, status=order_status)
    _, secret = make_key(account, "admin")
    body = {"project": project.pk, "period_start": "2026-09-01", "period_end": "2026-09-30"}
    return project, order, secret, body


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_pay_app_creation_locks_the_change_orders_it_lands_before_the_project():
    """Another transaction holds an approved owner change order, as a change order's own
    write does before it locks the project (linking an RFI is allowed once approved). A pay
    app's creation, which marks that change order billed, must queue on it holding nothing of
    the project: while it waits, the project can still be locked by others."""
    project, order, secret, body = _pay_app_job("approved")

    def check(probe, holder):
        assert _lockable_now(probe, Project, project.pk)

    response = _queued_behind(
        ChangeOrder,
        order.pk,
        "NO KEY UPDATE",
        lambda: Api(secret).post("/v1/pay-apps", body),
        check,
    )
    assert response.status_code == 201, response.content
    order.refresh_from_db()
    assert order.pay_app_id == response.json()["id"]


def _holder_commits_status(model, pk: str, status: str):
    """A `check` for `_queued_behind`: the holder sets the row's status and commits, as the
    write it stands for would (a close, an approval), which frees the row."""

    def commit(probe, holder):
        table = connection.ops.quote_name(model._meta.db_table)
        with holder.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET status = %s WHERE id = %s", [status, pk])
        holder.commit()

    return commit


def _waits_for_a_share(model, pk: str, send, also=None) -> object:
    """`_queued_behind` a `FOR KEY SHARE` on `model`'s row `pk`, as a receipt or coding in
    flight holds it: the API call `send()` (a move that locks the row `FOR UPDATE`) must queue
    behind it while other share holders still get the row; `also(probe)` checks more while it
    waits. Returns the call's response once the share is released."""

    def check(probe, holder):
        assert _lockable_now(probe, model, pk, "KEY SHARE")
        if also is not None:
            also(probe)

    return _queued_behind(model, pk, "KEY SHARE", send, check)


def _coding(job, amount: int) -> dict:
    """A coding body: one line of `amount` cents on the job's 03-000."""
    return {"lines": [{"cost_code": job.codes["03-000"].pk, "amount": amount}]}


def _beside_held(rows, send) -> object:
    """Hold `rows` ((model, pk) pairs) `FOR NO KEY UPDATE` on a connection of its own, as an
    approval or an amount edit on the same commitment does for its whole transaction, and
    make the API call `send()` in a thread: it must go through while they are held, not queue
    behind them. Returns its response."""
    holder = connections.create_connection("default")
    results = {}

    def call():
        try:
            results["response"] = send()
        finally:
            connection.close()

    thread = threading.Thread(target=call)
    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            for model, pk in rows:
                table = connection.ops.quote_name(model._meta.db_table)
                cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR NO KEY UPDATE", [pk])
        thread.start()
        thread.join(timeout=30)  # a bound on a failure, not an order: it returns when done
        assert not thread.is_alive(), f"the call queued behind one of {rows}"
    finally:
        holder.close()
        thread.join(timeout=60)
    return results["response"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_coding_an_invoice_runs_beside_an_approval_holding_its_commitment_and_project():
    """Coding an invoice (lines only) goes through while another write holds its commitment
    and project."""
    account = AccountFactory()
    job = make_job(account)
    invoice = make_invoice(job.commitment, amount=40_000, number="INV-1")
    _, secret = make_key(account, "admin")

    response = _beside_held(
        ((Commitment, job.commitment.pk), (Project, job.project.pk)),
        lambda: Api(secret).patch(f"/v1/invoices/{invoice.pk}", _coding(job, 40_000)),
    )
    assert response.status_code == 200, response.content
    invoice.refresh_from_db()
    assert invoice.status == "coded"
    assert list(invoice.lines.values_list("amount", flat=True)) == [40_000]


def _receipt(job, number: str = "INV-9", invoice_date: str = "2026-11-02") -> dict:
    """A `POST /v1/invoices` body: 40,000 cents on the job's commitment."""
    return {
        "commitment": job.commitment.pk,
        "number": number,
        "invoice_date": invoice_date,
        "amount": 40_000,
    }


def _assert_no_receipt(response, status: int, code: str) -> None:
    """The receipt was refused with `status` and the error `code`, and no invoice written."""
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert Invoice.objects.count() == 0


def _receipt_queued_behind(job, secret: str, model, pk, strength: str, check, **fields) -> object:
    """`_queued_behind` for a `POST /v1/invoices` of `_receipt(job, **fields)` with the key
    `secret`."""
    return _queued_behind(
        model,
        pk,
        strength,
        lambda: Api(secret).post("/v1/invoices", _receipt(job, **fields)),
        check,
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_receiving_an_invoice_runs_beside_an_approval_holding_its_commitment_and_project():
    """A receipt moves no balance: it goes through while an approval on the same commitment
    holds the commitment and the project, and what it checked still holds (the balance, the
    vendor's numbers)."""
    account = AccountFactory()
    job = make_job(account)
    _, secret = make_key(account, "admin")

    response = _beside_held(
        ((Commitment, job.commitment.pk), (Project, job.project.pk)),
        lambda: Api(secret).post("/v1/invoices", _receipt(job)),
    )
    assert response.status_code == 201, response.content
    assert (response.json()["status"], response.json()["amount"]) == ("received", 40_000)
    again = Api(secret).post("/v1/invoices", _receipt(job))
    assert again.status_code == 409 and again.json()["error"]["code"] == "duplicate_invoice"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_receipt_waits_on_the_vendor_for_its_invoice_numbers():
    """Two receipts from one vendor take turns on the vendor (its invoice numbers), the last
    of its three rows: while it waits there, it already holds the commitment and the project
    (`FOR KEY SHARE`: a close could not take them) yet leaves them to the approvals."""
    account = AccountFactory()
    job = make_job(account)
    _, secret = make_key(account, "admin")

    def check(probe, holder):
        for model, pk in ((Commitment, job.commitment.pk), (Project, job.project.pk)):
            assert _lockable_now(probe, model, pk, "NO KEY UPDATE")
            assert not _lockable_now(probe, model, pk, "UPDATE")

    response = _receipt_queued_behind(job, secret, Vendor, job.vendor.pk, "NO KEY UPDATE", check)
    assert response.status_code == 201, response.content


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("move", ["close", "void"])
def test_closing_or_voiding_a_commitment_waits_for_a_receipt_in_flight(move):
    """A receipt holds its commitment `FOR KEY SHARE` until it commits. A close or void must
    queue behind that (so no invoice is received on a closed or void commitment), and go
    through after."""
    account = AccountFactory()
    job = make_job(account)
    _, secret = make_key(account, "admin")

    response = _waits_for_a_share(
        Commitment,
        job.commitment.pk,
        lambda: Api(secret).post(f"/v1/commitments/{job.commitment.pk}/{move}"),
    )
    assert response.status_code == 200, response.content
    job.commitment.refresh_from_db()
    assert job.commitment.status == {"close": "closed", "void": "void"}[move]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("move", ["close", "void"])
def test_a_close_or_void_waiting_on_its_project_leaves_the_commitment_referable(move):
    """A close or void locks the commitment, then waits for the project, which another write
    holds, as a commitment change order's or lien waiver's creation does while it inserts a
    row referring to the commitment. Until it has the project, its lock on the commitment must
    not stop that insert's foreign-key check (`FOR KEY SHARE`), or each would wait for the
    other: it raises the lock to `FOR UPDATE` only once it holds the project too."""
    account = AccountFactory()
    job = make_job(account)
    _, secret = make_key(account, "admin")

    def check(probe, holder):
        assert _lockable_now(probe, Commitment, job.commitment.pk, "KEY SHARE")
        assert not _lockable_now(probe, Commitment, job.commitment.pk, "NO KEY UPDATE")

    response = _queued_behind(
        Project,
        job.project.pk,
        "NO KEY UPDATE",
        lambda: Api(secret).post(f"/v1/commitments/{job.commitment.pk}/{move}"),
        check,
    )
    assert response.status_code == 200, response.content
    job.commitment.refresh_from_db()
    assert job.commitment.status == {"close": "closed", "void": "void"}[move]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_receipt_that_waited_for_a_close_reads_the_closed_commitment():
    """A close holds the commitment `FOR UPDATE`. A receipt must queue behind it, its first
    row (holding nothing yet: the vendor stays free), and, once the close commits, read the
    closed commitment: 409 `commitment_not_executed`, no invoice."""
    account = AccountFactory()
    job = make_job(account)
    _, secret = make_key(account, "admin")
    close = _holder_commits_status(Commitment, job.commitment.pk, "closed")

    def check(probe, holder):
        assert _lockable_now(probe, Vendor, job.vendor.pk, "NO KEY UPDATE")
        assert _lockable_now(probe, Project, job.project.pk, "UPDATE")
        close(probe, holder)

    response = _receipt_queued_behind(job, secret, Commitment, job.commitment.pk, "UPDATE", check)
    _assert_no_receipt(response, 409, "commitment_not_executed")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_submitting_a_pay_app_waits_for_a_receipt_in_flight():
    """A receipt holds its project `FOR KEY SHARE` and checks the billing periods. Submitting
    a pay app locks a period, so it must queue behind the receipt, and go through after."""
    account = AccountFactory()
    job = make_job(account)
    pay_app = make_pay_app(job.project, "2026-11-01", "2026-11-30")
    _, secret = make_key(account, "admin")

    def pay_app_still_free(probe):
        assert _lockable_now(probe, PayApp, pay_app.pk)

    response = _waits_for_a_share(
        Project,
        job.project.pk,
        lambda: Api(secret).post(
            f"/v1/pay-apps/{pay_app.pk}/submit", {"allow_missing_waivers": True}
        ),
        also=pay_app_still_free,
    )
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "submitted"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_receipt_that_waited_for_a_submission_finds_its_period_locked():
    """A submission holds the project `FOR UPDATE` and locks its period. A receipt dated in
    that period must queue behind it and, once it commits, refuse: 422 `period_locked`."""
    account = AccountFactory()
    job = make_job(account)
    pay_app = make_pay_app(job.project, "2026-11-01", "2026-11-30")
    _, secret = make_key(account, "admin")

    submit = _holder_commits_status(PayApp, pay_app.pk, "submitted")
    response = _receipt_queued_behind(
        job, secret, Project, job.project.pk, "UPDATE", submit, invoice_date="2026-11-15"
    )
    _assert_no_receipt(response, 422, "period_locked")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_invoice_amount_edit_still_waits_on_the_commitment():
    """A new amount is checked against the commitment's balance, so that edit takes the
    commitment's lock first, as an approval does."""
    account = AccountFactory()
    job = make_job(account)
    invoice = make_invoice(job.commitment, amount=40_000, number="INV-1")
    _, secret = make_key(account, "admin")

    def check(probe, holder):
        assert _lockable_now(probe, Invoice, invoice.pk)

    response = _queued_behind(
        Commitment,
        job.commitment.pk,
        "NO KEY UPDATE",
        lambda: Api(secret).patch(f"/v1/invoices/{invoice.pk}", {"amount": 45_000}),
        check,
    )
    assert response.status_code == 200, response.content
    invoice.refresh_from_db()
    assert invoice.amount == 45_000


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_coding_that_waited_for_a_close_reads_the_closed_project():
    """A close holds the project `FOR UPDATE` (a status move's lock). A coding must queue
    behind it and, once the close commits, read the closed project: 409 `project_closed`,
    the invoice left uncoded."""
    account = AccountFactory()
    job = make_job(account)
    invoice = make_invoice(job.commitment, amount=40_000, number="INV-1")
    _, secret = make_key(account, "admin")

    response = _queued_behind(
        Project,
        job.project.pk,
        "UPDATE",
        lambda: Api(secret).patch(f"/v1/invoices/{invoice.pk}", _coding(job, 40_000)),
        _holder_commits_status(Project, job.project.pk, "closed"),
    )
    assert response.status_code == 409, response.content
    assert response.json()["error"]["code"] == "project_closed"
    invoice.refresh_from_db()
    assert (invoice.status, invoice.lines.count()) == ("received", 0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_closing_a_project_waits_for_a_coding_in_flight():
    """A coding holds its project `FOR KEY SHARE` until it commits. Closing the project must
    queue behind that (so no coding lands on a closed project), and go through after."""
    account = AccountFactory()
    project = ProjectFactory(account=account, status="closeout")
    _, secret = make_key(account, "admin")

    response = _waits_for_a_share(
        Project,
        project.pk,
        lambda: Api(secret).patch(f"/v1/projects/{project.pk}", {"status": "closed"}),
    )
    assert response.status_code == 200, response.content
    project.refresh_from_db()
    assert project.status == "closed"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_coding_waits_for_an_approval_holding_its_invoice_and_then_finds_it_approved():
    """An approval holds the invoice (after its commitment) until it commits. A recoding of
    that invoice must queue on the invoice row and, once the approval commits, refuse the
    approved invoice (409): lines never change under an approval that posted them."""
    account = AccountFactory()
    job = make_job(account)
    invoice = make_invoice(job.commitment, amount=40_000, number="INV-1", status="coded")
    _, secret = make_key(account, "admin")

    body = {"lines": [{"cost_code": job.codes["09-000"].pk, "amount": 40_000}]}
    response = _queued_behind(
        Invoice,
        invoice.pk,
        "NO KEY UPDATE",
        lambda: Api(secret).patch(f"/v1/invoices/{invoice.pk}", body),
        _holder_commits_status(Invoice, invoice.pk, "approved"),
    )
    assert response.status_code == 409, response.content
    assert response.json()["error"]["code"] == "invalid_state_transition"
    assert list(invoice.lines.values_list("cost_code_id", flat=True)) == [job.codes["03-000"].pk]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_change_order_approved_and_held_while_a_pay_app_is_created_lands_on_the_next():
    """A pay app's creation locks the approved owner change orders it lands, then its project,
    then takes those approved meanwhile only if no other transaction holds them (`SKIP
    LOCKED`: waiting while holding the project could deadlock). One approved while the
    creation waits for the project, and held by another write when it looks, is left for the
    next pay app: the creation goes through without it."""
    project, order, secret, body = _pay_app_job("pending")
    keeper = connections.create_connection("default")
    table = connection.ops.quote_name(ChangeOrder._meta.db_table)

    def approve_and_hold(probe, holder):
        with probe.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET status = 'approved' WHERE id = %s", [order.pk])
        probe.commit()
        keeper.set_autocommit(False)
        with keeper.cursor() as cursor:
            cursor.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR NO KEY UPDATE", [order.pk])

    try:
        response = _queued_behind(
            Project,
            project.pk,
            "NO KEY UPDATE",
            lambda: Api(secret).post("/v1/pay-apps", body),
            approve_and_hold,
        )
    finally:
        keeper.close()
    assert response.status_code == 201, response.content
    pay_app = PayApp.objects.get(pk=response.json()["id"])
    order.refresh_from_db()
    assert [line.item for line in pay_app.lines.all()] == ["1"]  # the cost code's row alone
    assert (order.status, order.pay_app_id) == ("approved", None)
