"""Invoice and lien waiver shapes (docs/resources.md, invoice, lien_waiver)."""

from rest_framework import serializers

from jobcost.api.fields import BusinessDateField, CentsField, IndexedListField, PercentField
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.limits import INVOICE_LINES_MAX, PAYMENT_REFERENCE_MAX
from jobcost.models import InvoiceStatus, LienWaiverStatus, LienWaiverType
from jobcost.serializers.refs import ref


class InvoiceLineSerializer(serializers.Serializer):
    cost_code = serializers.CharField(source="cost_code_id")
    amount = CentsField()


class InvoiceSerializer(ResourceSerializer):
    resource = "invoice"
    project = serializers.CharField(source="project_id")
    commitment = serializers.CharField(source="commitment_id")
    vendor = serializers.CharField(source="vendor_id")
    number = serializers.CharField()
    invoice_date = serializers.DateField()
    due_date = serializers.DateField(allow_null=True)
    currency = serializers.CharField(read_only=True)
    amount = CentsField()
    retainage_pct = PercentField(read_only=True)
    retainage_amount = CentsField(read_only=True)
    net_amount = CentsField(read_only=True)
    # The lines `visible.invoice_list` loads (every invoice rendered is read through it).
    lines = InvoiceLineSerializer(many=True, source="line_list")
    status = serializers.ChoiceField(choices=InvoiceStatus.choices, read_only=True)
    pay_app = serializers.CharField(source="period_pay_app_id", allow_null=True, read_only=True)
    approved_at = serializers.DateTimeField(read_only=True, allow_null=True)
    paid_at = serializers.DateTimeField(read_only=True, allow_null=True)
    # Written by mark-paid (as is `payment_reference`, from its `reference`).
    paid_on = serializers.DateField(
        allow_null=True, help_text="The day it was paid; null until paid."
    )
    payment_reference = serializers.CharField(
        read_only=True, allow_blank=True, help_text="The check or wire number it was paid with."
    )
    voided_at = serializers.DateTimeField(read_only=True, allow_null=True)


class InvoiceLineInputSerializer(InputSerializer):
    output = InvoiceLineSerializer
    cost_code = ref("cost_code")
    amount = CentsField(positive=True)


class InvoiceCreateSerializer(InputSerializer):
    output = InvoiceSerializer
    commitment = ref("commitment")
    number = serializers.CharField(max_length=60)
    invoice_date = BusinessDateField()
    due_date = BusinessDateField(required=False, allow_null=True)
    amount = CentsField(positive=True)


class InvoiceUpdateSerializer(InputSerializer):
    """Edit or code (`lines`) a received or coded invoice."""

    output = InvoiceSerializer
    number = serializers.CharField(max_length=60, required=False)
    invoice_date = BusinessDateField(required=False)
    due_date = BusinessDateField(required=False, allow_null=True)
    amount = CentsField(positive=True, required=False)
    lines = IndexedListField(
        child=InvoiceLineInputSerializer(),
        min_length=1,
        max_length=INVOICE_LINES_MAX,
        required=False,
    )


class InvoiceMarkPaidSerializer(InputSerializer):
    """Mark paid: the day and the check or wire number."""

    output = InvoiceSerializer
    paid_on = BusinessDateField(
        required=False,
        help_text="The day it was paid: today or earlier, not before the invoice date; default "
        "today.",
    )
    reference = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=PAYMENT_REFERENCE_MAX,
        help_text="The check or wire number; shown as `payment_reference`.",
    )


class LienWaiverSerializer(ResourceSerializer):
    resource = "lien_waiver"
    project = serializers.CharField(source="project_id")
    vendor = serializers.CharField(source="vendor_id")
    commitment = serializers.CharField(source="commitment_id", allow_null=True)
    invoice = serializers.CharField(source="invoice_id", allow_null=True)
    pay_app = serializers.CharField(source="period_pay_app_id", allow_null=True, read_only=True)
    type = serializers.ChoiceField(choices=LienWaiverType.choices)
    currency = serializers.CharField(read_only=True)
    amount = CentsField()
    through_date = serializers.DateField()
    status = serializers.ChoiceField(choices=LienWaiverStatus.choices)
    received_on = serializers.DateField(allow_null=True)
    document_url = serializers.CharField(allow_blank=True)


class LienWaiverCreateSerializer(InputSerializer):
    output = LienWaiverSerializer
    project = ref("project")
    vendor = ref("vendor")
    type = serializers.ChoiceField(choices=LienWaiverType.choices)
    amount = CentsField()
    through_date = BusinessDateField()
    commitment = ref("commitment", required=False, allow_null=True)
    invoice = ref("invoice", required=False, allow_null=True)
    document_url = serializers.URLField(max_length=2000, required=False, allow_blank=True)


class LienWaiverUpdateSerializer(InputSerializer):
    """Record receipt (or rejection) of a waiver."""

    output = LienWaiverSerializer
    status = serializers.ChoiceField(
        choices=[LienWaiverStatus.RECEIVED, LienWaiverStatus.REJECTED], required=False
    )
    received_on = BusinessDateField(required=False, allow_null=True)
    document_url = serializers.URLField(max_length=2000, required=False, allow_blank=True)
