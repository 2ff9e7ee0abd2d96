"""Pay app (G702) and pay app line (G703) shapes (docs/resources.md, pay_app, §9)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.fields import (
    BusinessDateField,
    CentsField,
    IndexedListField,
    PercentField,
    StrictBooleanField,
)
from jobcost.api.serializers import ConstField, FigureField, InputSerializer, ResourceSerializer
from jobcost.limits import CERTIFICATION_NOTE_MAX, PAY_APP_LINE_ENTRIES_MAX, PAYMENT_REFERENCE_MAX
from jobcost.models import PayAppFormat, PayAppStatus
from jobcost.selectors.g702 import g703_row
from jobcost.selectors.pay_apps import (
    amount_remaining,
    pay_app_figures,
    pay_app_missing_waivers,
)
from jobcost.serializers.refs import ref

G702_FIELDS = (
    "original_contract_sum",
    "net_change_by_change_orders",
    "contract_sum_to_date",
    "total_completed_and_stored",
    "retainage_completed_work",
    "retainage_stored_materials",
    "total_retainage",
    "total_earned_less_retainage",
    "less_previous_certificates",
    "current_payment_due",
    "balance_to_finish_including_retainage",
    "work_this_period",
    "retainage_this_period",
    "net_due_this_period",
)


class _Figure(CentsField):
    """A G702 line read from the computed figures (cents)."""

    def __init__(self, **kwargs):
        super().__init__(allow_negative=True, read_only=True, source="*", **kwargs)

    def to_representation(self, pay_app):
        figures = self.parent.figures(pay_app)
        return getattr(figures, self.field_name)


class PayAppSerializer(ResourceSerializer):
    resource = "pay_app"
    project = serializers.CharField(source="project_id")
    number = serializers.IntegerField(read_only=True)
    status = serializers.ChoiceField(choices=PayAppStatus.choices, read_only=True)
    format = serializers.ChoiceField(choices=PayAppFormat.choices, read_only=True)
    period_start = serializers.DateField()
    period_end = serializers.DateField()
    retainage_pct = PercentField()
    currency = serializers.CharField(read_only=True)
    original_contract_sum = _Figure()
    net_change_by_change_orders = _Figure()
    contract_sum_to_date = _Figure()
    total_completed_and_stored = _Figure()
    retainage_completed_work = _Figure()
    retainage_stored_materials = _Figure()
    total_retainage = _Figure()
    total_earned_less_retainage = _Figure()
    less_previous_certificates = _Figure()
    current_payment_due = _Figure()
    balance_to_finish_including_retainage = _Figure()
    work_this_period = _Figure()
    retainage_this_period = _Figure()
    net_due_this_period = _Figure()
    change_orders = serializers.SerializerMethodField()
    lien_waivers_missing = serializers.SerializerMethodField()
    lines_url = serializers.SerializerMethodField()
    rejection_reason = serializers.CharField(read_only=True, allow_blank=True)
    # The certificate: written by approve (not read-only, as a waiver's `received_on`).
    amount_certified = CentsField(
        allow_null=True,
        help_text="What the owner's architect certified for payment at approval (cents, at "
        "most line 8); null until approved.",
    )
    certified_on = serializers.DateField(
        allow_null=True,
        help_text="The day of the certificate; null until approved.",
    )
    certification_note = serializers.CharField(
        allow_blank=True,
        help_text="Why the architect certified less than line 8 (may be empty otherwise).",
    )
    amount_paid = CentsField(
        read_only=True, help_text="Σ the owner's receipts (`/payments`), cents; 0 with none."
    )
    amount_remaining = FigureField(
        lambda pay_app, _context: amount_remaining(pay_app.amount_certified, pay_app.amount_paid),
        {
            "type": "integer",
            "format": "int64",
            "nullable": True,
            "description": "amount_certified − amount_paid (cents, never below 0): what the "
            "owner still owes on the certificate; null until approved.",
        },
    )
    submitted_at = serializers.DateTimeField(read_only=True, allow_null=True)
    approved_at = serializers.DateTimeField(read_only=True, allow_null=True)
    paid_at = serializers.DateTimeField(read_only=True, allow_null=True)

    def figures(self, pay_app):
        cache = self.context.setdefault("_g702", {})
        if pay_app.pk not in cache:
            cache[pay_app.pk] = pay_app_figures(pay_app)
        return cache[pay_app.pk]

    @extend_schema_field({"type": "array", "items": {"type": "string"}})
    def get_change_orders(self, pay_app) -> list[str]:
        """IDs of the change orders that landed (were first billed) on this pay app."""
        return sorted(co.pk for co in pay_app.change_orders.all())

    @extend_schema_field({"type": "array", "items": {"type": "string"}})
    def get_lien_waivers_missing(self, pay_app) -> list[str]:
        """Vendor IDs whose waivers for this period are not received."""
        return pay_app_missing_waivers(pay_app)

    def get_lines_url(self, pay_app) -> str:
        return f"/v1/pay-apps/{pay_app.pk}/lines"


class PayAppLineSerializer(serializers.Serializer):
    """A G703 row (no ID: rows are addressed by `item`)."""

    object = ConstField("pay_app_line")
    item = serializers.CharField()
    description = serializers.CharField()
    cost_code = serializers.CharField(allow_null=True)
    change_order = serializers.CharField(allow_null=True)
    scheduled_value = CentsField(allow_negative=True)
    previous = CentsField(allow_negative=True)
    this_period = CentsField(allow_negative=True)
    materials_stored = CentsField()
    total_completed_and_stored = CentsField(allow_negative=True)
    percent_complete = serializers.DecimalField(max_digits=9, decimal_places=2)
    balance_to_finish = CentsField(allow_negative=True)
    retainage = CentsField(allow_negative=True)

    def to_representation(self, line):
        return super().to_representation(g703_row(line, self.context["retainage_pct"]))


class PayAppCreateSerializer(InputSerializer):
    output = PayAppSerializer
    project = ref("project")
    period_start = BusinessDateField()
    period_end = BusinessDateField()
    retainage_pct = PercentField(required=False)


class PayAppLineInputSerializer(InputSerializer):
    output = PayAppLineSerializer
    item = serializers.CharField()
    this_period = CentsField(allow_negative=True, required=False)
    materials_stored = CentsField(required=False)


class PayAppUpdateSerializer(InputSerializer):
    output = PayAppSerializer
    lines = IndexedListField(
        child=PayAppLineInputSerializer(),
        min_length=1,
        max_length=PAY_APP_LINE_ENTRIES_MAX,
        required=False,
    )
    retainage_pct = PercentField(required=False)


class PayAppSubmitSerializer(InputSerializer):
    allow_missing_waivers = StrictBooleanField(required=False, default=False)


class PayAppRejectSerializer(InputSerializer):
    reason = serializers.CharField()


class PayAppApproveSerializer(InputSerializer):
    """The architect's certificate (docs/resources.md, pay_app, "Certification")."""

    output = PayAppSerializer
    amount_certified = CentsField(
        required=False,
        help_text="Cents, from 0 to the current payment due (line 8); default line 8. More is "
        "422 `exceeds_payment_due`.",
    )
    certified_on = BusinessDateField(
        required=False,
        help_text="The certificate's day: today or earlier, not before the submission day; "
        "default today.",
    )
    certification_note = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=CERTIFICATION_NOTE_MAX,
        help_text="Why less than line 8 is certified; required then (400 `parameter_missing`).",
    )


class PayAppPaymentSerializer(serializers.Serializer):
    """A receipt from the owner against an approved pay app (docs/resources.md,
    pay_app_payment). Listed at `/v1/pay-apps/{id}/payments`; it has no route of its own, so
    no `audit_trail`: its receipt is on the pay app's audit trail."""

    id = serializers.CharField(read_only=True)
    object = ConstField("pay_app_payment")
    pay_app = serializers.CharField(source="pay_app_id", read_only=True)
    project = serializers.CharField(source="project_id", read_only=True)
    currency = serializers.CharField(read_only=True)
    amount = CentsField(help_text="Cents received (> 0).")
    received_on = serializers.DateField(help_text="The day the money came in.")
    reference = serializers.CharField(
        allow_blank=True, help_text="The owner's check or wire number."
    )
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)


class PayAppPaymentCreateSerializer(InputSerializer):
    output = PayAppPaymentSerializer
    amount = CentsField(
        positive=True,
        help_text="Cents received, more than 0 and at most the pay app's `amount_remaining` "
        "(else 422 `exceeds_amount_remaining`).",
    )
    received_on = BusinessDateField(
        required=False, help_text="The day the money came in: today or earlier; default today."
    )
    reference = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=PAYMENT_REFERENCE_MAX,
        help_text="The owner's check or wire number.",
    )


class PayAppMarkPaidSerializer(InputSerializer):
    """Mark paid: what remains is recorded as one receipt with these."""

    output = PayAppSerializer
    received_on = BusinessDateField(
        required=False, help_text="The day the money came in: today or earlier; default today."
    )
    reference = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=PAYMENT_REFERENCE_MAX,
        help_text="The owner's check or wire number.",
    )
