"""Events (the transactional outbox), webhook endpoints, deliveries and their attempts
(docs/resources.md, webhook_endpoint, event, webhook delivery; §10)."""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models import Account
from jobcost.models.base import TimestampedModel, list_index


class Event(models.Model):
    """One state change, written in the same transaction as the change (docs/webhooks.md).

    `data` is {object, previous_attributes}: the object as the API showed it right after the
    change, rendered at `api_version`, and the previous values of the fields that changed.
    `request_id` / `idempotency_key` are null for changes made by the system or the admin.
    """

    OBJECT = "event"
    COLLECTION = "events"
    PREFIX = "evt"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    type = models.CharField(max_length=60)
    api_version = models.CharField(max_length=40)
    project_id = models.CharField(max_length=40, null=True, blank=True)  # noqa: DJ001
    object_id = models.CharField(max_length=40)
    data = models.JSONField()
    request_id = models.CharField(max_length=40, null=True, blank=True)  # noqa: DJ001
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        indexes = [
            list_index("event_list", "account"),
            models.Index(fields=["account", "type"], name="event_type"),
            models.Index(fields=["account", "project_id"], name="event_project"),
        ]

    def __str__(self) -> str:
        """`invoice.approved, Nov 24, 2026 14:05`."""
        return f"{self.type}, {self.created_at:%b %-d, %Y %H:%M}"

    @property
    def updated_at(self):
        return self.created_at


class EndpointStatus(models.TextChoices):
    ENABLED = "enabled", "Enabled"
    DISABLED = "disabled", "Disabled"


class WebhookEndpoint(Audited, TimestampedModel):
    """A URL that receives signed POSTs of the events it subscribes to (`["*"]` for all).

    `secret` signs every delivery; after a rotation `previous_secret` keeps signing alongside
    until `previous_secret_expires_at` (24 h). `failing_since` is the first failure since the
    last success: three days of nothing but failures disables the endpoint. `slow_since` is the
    first slow attempt (docs/operations/workers.md) since the last quick one; while either is set
    the endpoint's deliveries go by the slow lane (`webhooks.lanes`). Deleting sets
    `deleted_at` (the row and its delivery history stay; the API shows it no more).
    """

    OBJECT = "webhook_endpoint"
    # The failure clock would log an entry at every failure streak; signing secrets are
    # recorded masked as the API shows them.
    AUDIT_SKIP = frozenset({"failing_since"})
    AUDIT_MASKED = frozenset({"secret", "previous_secret"})
    COLLECTION = "webhooks"
    PREFIX = "we"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=500, blank=True)
    events = models.JSONField(default=list)
    status = models.CharField(
        max_length=16, choices=EndpointStatus.choices, default=EndpointStatus.ENABLED
    )
    disabled_reason = models.CharField(max_length=40, blank=True)
    api_version = models.CharField(max_length=40)
    secret = models.CharField(max_length=100, editable=False)
    previous_secret = models.CharField(max_length=100, blank=True, editable=False)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True, editable=False)
    failing_since = models.DateTimeField(null=True, blank=True, editable=False)
    slow_since = models.DateTimeField(null=True, blank=True, editable=False)
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        indexes = [list_index("webhookendpoint_list", "account")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in EndpointStatus]),
                name="webhookendpoint_status_valid",
            )
        ]

    def __str__(self) -> str:
        return self.url

    @property
    def secret_masked(self) -> str:
        """`whsec_…` and the last four characters (docs/resources.md)."""
        return f"whsec_…{self.secret[-4:]}"

    def signing_secrets(self, now=None) -> list[str]:
        """The secrets that sign now: the current one, and the previous one for 24 h."""
        now = now or timezone.now()
        secrets = [self.secret]
        if (
            self.previous_secret
            and self.previous_secret_expires_at
            and now < self.previous_secret_expires_at
        ):
            secrets.append(self.previous_secret)
        return secrets


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class WebhookDelivery(models.Model):
    """One event owed to one endpoint. Its ID is the `webhook-id` header, stable across
    retries. `next_attempt_at` is when it is due; a worker that claims it moves it a lease
    ahead, so no other worker sends the same attempt."""

    OBJECT = "webhook_delivery"
    PREFIX = "wd"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        indexes = [
            list_index("delivery_list", "endpoint"),
            models.Index(fields=["status", "next_attempt_at"], name="delivery_due"),
            # One endpoint's due deliveries, for its drain (webhooks.drain).
            models.Index(
                fields=["endpoint", "status", "next_attempt_at"], name="delivery_endpoint_due"
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="delivery_once"),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in DeliveryStatus]),
                name="delivery_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Delivery of {self.event} to {self.endpoint}"


class WebhookAttempt(models.Model):
    """One POST of a delivery: when, how long, what came back."""

    delivery = models.ForeignKey(
        WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log"
    )
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    succeeded = models.BooleanField(default=False)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="attempt_once")]

    def __str__(self) -> str:
        return f"Attempt {self.number}"
