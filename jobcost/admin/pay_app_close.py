"""The month's billing on the draft pay app's page: the G703 entry grid and the transitions,
each behind a confirmation page (docs/backoffice/pay-apps.md).

- The grid (`G703Grid`) takes this period's work (E) and materials presently stored (F) per
  line in dollars. Saving sends the changed lines to `services.pay_apps.pay_app_update`, the
  service behind `PATCH /v1/pay-apps/{id}`, in one transaction; every line past its scheduled
  value is flagged on its row by the service's own rule (`scheduled_value_breach`) and nothing
  is written. The page then shows the stored G702, never one computed from refused input.
- `STEPS` lists what the page offers (submit, submit over missing waivers, approve, reject,
  record payment, mark paid; the owner's side is `pay_app_owner`) as `object_steps.Step`s:
  the button, the API action whose role rule applies (`policy.authorize`), when it is
  offered, what it asks and the service it calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.db import transaction

from jobcost.admin.base import REFUSALS, RequiredReasonForm
from jobcost.admin.display import dollars, percent
from jobcost.admin.fields import DollarsField
from jobcost.admin.object_steps import NoForm, Step
from jobcost.admin.pay_app_owner import APPROVE, MARK_PAID, RECORD_PAYMENT
from jobcost.error_codes import PayAppErrorCode
from jobcost.errors import ValidationFailed, translate
from jobcost.models import PayApp, PayAppLine, PayAppStatus
from jobcost.money import MONEY_MAX
from jobcost.selectors.g702 import g703_row
from jobcost.selectors.lien_waivers import vendors_missing_waivers, waivers_missing
from jobcost.selectors.pay_apps import pay_app_figures
from jobcost.services import pay_apps

S = PayAppStatus


class G703LineForm(forms.Form):
    """One G703 row's entries: E this period and F materials presently stored, in dollars.
    Negative amounts are allowed (a deductive change-order row, a correction); the row's
    range is the service's rule."""

    item = forms.CharField(widget=forms.HiddenInput, max_length=40)
    work_this_period = DollarsField(min_value=-MONEY_MAX, label="E This period")
    materials_stored = DollarsField(min_value=-MONEY_MAX, label="F Materials presently stored")


G703Formset = forms.formset_factory(G703LineForm, extra=0, max_num=1000, absolute_max=1000)


def pay_app_lines(pay_app: PayApp) -> list[PayAppLine]:
    """The pay app's G703 rows in order, with their cost codes (one query)."""
    return list(pay_app.lines.select_related("cost_code", "change_order").order_by("position"))


@dataclass
class GridRow:
    """A G703 row as the page shows it: the stored line, its computed columns, its form (on
    a draft the user may edit) and the refusal flagged on it."""

    line: PayAppLine
    code: str
    label: str
    row: object
    form: G703LineForm | None
    error: str | None = None
    # The first refused row's box takes the focus, which scrolls it into view.
    first_refusal: bool = False


class G703Grid:
    """The G703 of one pay app for the page: rows, totals and (when editable) the formset.

    `data` is the POST of a save (None to show the stored entries). `save()` runs the service
    and returns True when the entries were written."""

    def __init__(self, pay_app: PayApp, *, editable: bool, data=None) -> None:
        self.pay_app = pay_app
        self.editable = editable and pay_app.status == S.DRAFT
        self.lines = pay_app_lines(pay_app)
        initial = [
            {
                "item": line.item,
                "work_this_period": line.this_period,
                "materials_stored": line.materials_stored,
            }
            for line in self.lines
        ]
        self.formset = G703Formset(data, initial=initial, prefix="g703") if self.editable else None
        self.errors: dict[str, str] = {}
        self.message: str | None = None

    def save(self) -> bool:
        """Validate the typed amounts, flag every line past its scheduled value, then send
        the changed lines to `pay_app_update` in one transaction. False (nothing written)
        when any line is refused; the refusals are on their rows."""
        if self.formset is None or not self.formset.is_valid():
            return False
        by_item = {line.item: line for line in self.lines}
        entries = []
        for form in self.formset.forms:
            data = form.cleaned_data
            line = by_item.get(data.get("item"))
            if line is None:
                self.message = "The pay app's lines changed while you were typing; reload it."
                return False
            entry = PayAppLine(
                item=line.item,
                scheduled_value=line.scheduled_value,
                previous=line.previous,
                this_period=data["work_this_period"],
                materials_stored=data["materials_stored"],
            )
            breach = pay_apps.scheduled_value_breach(entry)
            if breach:
                self.errors[line.item] = breach
            if (entry.this_period, entry.materials_stored) != (
                line.this_period,
                line.materials_stored,
            ):
                entries.append(
                    {
                        "item": line.item,
                        "this_period": entry.this_period,
                        "materials_stored": entry.materials_stored,
                    }
                )
        if self.errors:
            return False
        if not entries:
            self.message = "Nothing changed."
            return True
        try:
            with transaction.atomic():
                pay_apps.pay_app_update(pay_app_id=self.pay_app.pk, lines=entries)
        except REFUSALS as exc:
            error = translate(exc)
            index = _line_index(error.param)
            if index is not None and index < len(entries):
                self.errors[entries[index]["item"]] = error.message
            else:
                self.message = error.message
            return False
        return True

    def refusal_summary(self) -> str:
        """The refusal in one sentence for the top of the page: the grid-wide message, or
        the refused lines by item and name (each also marked at its line)."""
        if self.message:
            return self.message
        labels = [g703_label(line) for line in self.lines if line.item in self.errors]
        count = "1 line" if len(labels) == 1 else f"{len(labels)} lines"
        return f"Nothing was saved: {count} refused ({'; '.join(labels)}), marked below."

    def rows(self) -> list[GridRow]:
        """The rows in order, each with its form and refusal."""
        forms_by_item = {}
        if self.formset is not None:
            for form in self.formset.forms:
                item = form["item"].value()
                forms_by_item[item] = form
        result = []
        first_refused = next((line.item for line in self.lines if line.item in self.errors), None)
        for line in self.lines:
            code = line.cost_code.code if line.cost_code_id else line.item
            result.append(
                GridRow(
                    line=line,
                    code=code,
                    label=g703_label(line),
                    row=_display_row(line, self.pay_app),
                    form=forms_by_item.get(line.item),
                    error=self.errors.get(line.item),
                    first_refusal=line.item == first_refused,
                )
            )
        return result

    def totals(self) -> dict[str, str]:
        """The stored totals of the money columns, in dollars."""
        rows = [g703_row(line, self.pay_app.retainage_pct) for line in self.lines]
        names = (
            "scheduled_value",
            "previous",
            "this_period",
            "materials_stored",
            "total_completed_and_stored",
            "balance_to_finish",
            "retainage",
        )
        return {name: dollars(sum(getattr(row, name) for row in rows)) for name in names}


def g703_label(line: PayAppLine) -> str:
    """What column B reads for a G703 row: "03-300 Cast-in-place concrete" for a cost code's
    row, "CO-001 — Added storm drainage" for a change order's (docs/backoffice/month.md)."""
    if line.cost_code_id:
        return f"{line.cost_code.code} {line.cost_code.name}"
    if line.change_order_id:
        return f"{line.change_order.number} — {line.change_order.title}"
    return f"{line.item} — {line.description}"


def _display_row(line: PayAppLine, pay_app: PayApp) -> dict[str, str]:
    row = g703_row(line, pay_app.retainage_pct)
    return {
        "scheduled_value": dollars(row.scheduled_value),
        "previous": dollars(row.previous),
        "this_period": dollars(row.this_period),
        "materials_stored": dollars(row.materials_stored),
        "total_completed_and_stored": dollars(row.total_completed_and_stored),
        "percent_complete": percent(row.percent_complete),
        "balance_to_finish": dollars(row.balance_to_finish),
        "retainage": dollars(row.retainage),
    }


def _line_index(param: str | None) -> int | None:
    """`lines[3]` or `lines[3].item` → 3."""
    if not param or not param.startswith("lines["):
        return None
    number = param[len("lines[") :].split("]", 1)[0]
    return int(number) if number.isdigit() else None


def submit(pay_app: PayApp) -> PayApp:
    """`pay_app_submit` without the override; its refusal for missing lien waivers is told
    in the back office's words (the vendors by name, and the button that overrides)."""
    try:
        return pay_apps.pay_app_submit(pay_app_id=pay_app.pk)
    except ValidationFailed as exc:
        if exc.code != PayAppErrorCode.LIEN_WAIVERS_MISSING:
            raise
        names = ", ".join(vendor.name for vendor in vendors_missing_waivers(pay_app))
        raise ValidationFailed(
            f"Lien waivers for this period are missing from: {names}. Record them, or use "
            "“Submit over missing waivers” and give the reason.",
            code=PayAppErrorCode.LIEN_WAIVERS_MISSING,
            object_id=pay_app.pk,
        ) from exc


def _has_missing_waivers(pay_app: PayApp) -> bool:
    return waivers_missing(pay_app).exists()


# (G702 field, label) in the form's order. The page shows one "due" figure, line 8; the
# API's `net_due_this_period` (this period's work less its retainage) is not shown, since
# beside line 8 it read as a second, different amount due (docs/backoffice/month.md).
G702_LINES = (
    ("original_contract_sum", "1. Original contract sum"),
    ("net_change_by_change_orders", "2. Net change by change orders"),
    ("contract_sum_to_date", "3. Contract sum to date"),
    ("total_completed_and_stored", "4. Total completed and stored to date"),
    ("retainage_completed_work", "5a. Retainage on completed work"),
    ("retainage_stored_materials", "5b. Retainage on stored materials"),
    ("total_retainage", "5. Total retainage"),
    ("total_earned_less_retainage", "6. Total earned less retainage"),
    ("less_previous_certificates", "7. Less previous certificates for payment"),
    ("current_payment_due", "8. Current payment due"),
    ("balance_to_finish_including_retainage", "9. Balance to finish, including retainage"),
    ("work_this_period", "Work this period"),
    ("retainage_this_period", "Retainage this period"),
)
G702_LABELS = dict(G702_LINES)
CERTIFIED_LINES = (
    "contract_sum_to_date",
    "total_completed_and_stored",
    "total_retainage",
    "current_payment_due",
)


def certified_figures(pay_app: PayApp) -> list[tuple[str, str]]:
    """The G702 lines a confirmation shows: what the owner is asked to certify, in dollars
    (`pay_app` read through `visible.pay_app_list`, as the admin reads it)."""
    figures = pay_app_figures(pay_app)
    return [(G702_LABELS[name], dollars(getattr(figures, name))) for name in CERTIFIED_LINES]


def missing_waivers_table(pay_app: PayApp) -> dict:
    """The lien waivers still missing for the period, as the override's page lists them."""
    return {
        "title": "Lien waivers missing for the period",
        "id": "missing-waivers",
        "columns": ("Vendor", "Waiver", "Through", "Amount", "Status"),
        "rows": [
            (
                waiver.vendor.name,
                waiver.get_type_display(),
                waiver.through_date,
                dollars(waiver.amount),
                waiver.get_status_display(),
            )
            for waiver in missing_waivers_of(pay_app)
        ],
    }


# What each move does, in words, and the message after it (the page and the list's actions).
EXPLAIN = {
    "submit": "The application goes to the owner as it stands: its period is locked and its "
    "figures are certified as shown. It is refused while lien waivers for the period are "
    "missing.",
    "submit-over-waivers": "The application goes to the owner although the lien waivers below "
    "have not been received. The override, the vendors and your reason are recorded on the "
    "audit trail.",
    "approve": "The owner's architect certified each application in full (its current payment "
    "due, line 8), dated today: it becomes the previous certificate of the next one. To "
    "certify less or on another day, use Approve on the pay app's page.",
    "reject": "The owner sent the application back: it returns to draft and its period opens "
    "again for corrections. The owner's reason is kept on the pay app.",
    "mark-paid": "What remains of each certificate was received from the owner today, as one "
    "payment with no check number. To record a check number, another day or part of the "
    "amount, use Record payment on the pay app's page.",
}
DONE = {
    "submit": "Submitted to the owner.",
    "submit-over-waivers": "Submitted to the owner over missing lien waivers; the reason is on "
    "the audit trail.",
    "approve": "Approved (certified by the owner).",
    "reject": "Rejected back to draft.",
    "mark-paid": "Marked paid.",
}


def _step(slug, label, action, statuses, form, run, **extra) -> Step:
    return Step(
        slug=slug,
        label=label,
        policy_action=action,
        offered=extra.pop("offered", lambda pay_app: pay_app.status in statuses),
        explain=lambda pay_app: EXPLAIN[slug],
        run=run,
        done=lambda pay_app: f"{pay_app}: {DONE[slug]}",
        form=form,
        figures=certified_figures,
        **extra,
    )


STEPS = (
    _step("submit", "Submit", "submit", (S.DRAFT,), NoForm, lambda p, data: submit(p)),
    _step(
        "submit-over-waivers",
        "Submit over missing waivers",
        "submit",
        (S.DRAFT,),
        RequiredReasonForm,
        lambda p, data: pay_apps.pay_app_submit(
            pay_app_id=p.pk, allow_missing_waivers=True, reason=data["reason"]
        ),
        offered=lambda p: p.status == S.DRAFT and _has_missing_waivers(p),
        details=missing_waivers_table,
    ),
    APPROVE,
    _step(
        "reject",
        "Reject",
        "reject",
        (S.SUBMITTED,),
        RequiredReasonForm,
        lambda p, data: pay_apps.pay_app_reject(pay_app_id=p.pk, reason=data["reason"]),
    ),
    RECORD_PAYMENT,
    MARK_PAID,
)
STEPS_BY_SLUG = {step.slug: step for step in STEPS}


def missing_waivers_of(pay_app: PayApp) -> list:
    """The lien waivers the pay app's period still misses, with their vendors, by vendor."""
    return list(
        waivers_missing(pay_app).select_related("vendor").order_by("vendor__name", "through_date")
    )
