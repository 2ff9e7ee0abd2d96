"""Accounts (contractor companies) and their API keys (docs/keys.md, "Who may call what")."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.base import TimestampedModel


class Account(Audited, TimestampedModel):
    """A contractor company. Every object belongs to exactly one account.

    `rate_limit_per_second` / `rate_limit_burst` override the settings' token bucket
    (docs/operations/limits.md) when set.
    """

    OBJECT = "account"
    PREFIX = "acct"
    id = prefixed_id(PREFIX)
    name = models.CharField(max_length=200, unique=True)
    rate_limit_per_second = models.PositiveIntegerField(null=True, blank=True)
    rate_limit_burst = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    """What a key may do (docs/keys.md, "Who may call what")."""

    ADMIN = "admin", "Admin"
    MANAGER = "manager", "Manager"
    MEMBER = "member", "Member"
    VIEWER = "viewer", "Viewer"
    AGENT = "agent", "Agent"


class ApiKey(Audited, TimestampedModel):
    """A Bearer key. Only the SHA-256 of the secret is stored; `secret_hint` keeps the
    environment prefix and last 4 characters for display. Optionally restricted to projects:
    then every other project and its children are invisible to it."""

    OBJECT = "api_key"
    AUDIT_SKIP = frozenset({"secret_hash"})  # never on the trail, even hashed
    PREFIX = "key"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="api_keys")
    name = models.CharField(max_length=200, blank=True)
    role = models.CharField(max_length=16, choices=Role.choices)
    secret_hash = models.CharField(max_length=64, unique=True, editable=False)
    secret_hint = models.CharField(max_length=40, editable=False)
    api_version = models.CharField(max_length=40)
    projects = models.ManyToManyField("jobcost.Project", blank=True, related_name="+")
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API key"
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=[r.value for r in Role]), name="apikey_role_valid"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name or 'Unnamed key'} ({self.role}, {self.secret_hint})"

    # DRF treats the authenticated principal as a user; a key is always authenticated.
    is_authenticated = True

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None


#: The roles a person may hold in the back office: the API's, without the agent's.
PERSON_ROLES = (Role.ADMIN, Role.MANAGER, Role.MEMBER, Role.VIEWER)


class Membership(TimestampedModel):
    """A back-office user's place in one account (docs/backoffice/month.md): a role of docs/keys.md,
    "Who may call what" and, like an API key, an optional restriction to projects. The admin reads
    the account's rows through
    `Scope.for_key(membership)` and decides every permission from `role` with the API's
    policy (`jobcost.api.policy`). A user without a membership who is not a superuser sees
    nothing in the admin."""

    OBJECT = "membership"
    PREFIX = "mem"
    id = prefixed_id(PREFIX)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="backoffice_membership"
    )
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="members")
    role = models.CharField(max_length=16, choices=[(r.value, r.label) for r in PERSON_ROLES])
    projects = models.ManyToManyField("jobcost.Project", blank=True, related_name="+")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=[r.value for r in PERSON_ROLES]),
                name="membership_role_valid",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.account}, {self.role})"
