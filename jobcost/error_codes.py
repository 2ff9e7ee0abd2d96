"""The error codes of the job-cost API, one `StrEnum` per domain (docs/errors.md).

Bottom layer: imports nothing of the project. Every code an `ApiError` carries, a serializer's
`jc:` field error names, or a budget import's row refusal lists is a member here (the
webhooks' own are `webhooks.errors`). A member is its code string (`StrEnum`), so the error
envelope reads exactly as it always did; a new code is a new member, documented in the
domain's table of docs/errors.md (docs/conventions.md, "Adding an error code").
"""

from __future__ import annotations

from enum import StrEnum


class BaseErrorCode(StrEnum):
    """The error classes' own codes, of no one domain: the defaults of the base classes
    (`ApiError`, `ValidationFailed`), which every raise replaces by a specific code, and the
    500 that something unexpected becomes."""

    INVALID_REQUEST = "invalid_request"
    VALIDATION_FAILED = "validation_failed"
    INTERNAL_ERROR = "internal_error"


class RequestErrorCode(StrEnum):
    """The request as sent: its parameters, body, headers, route and method."""

    PARAMETER_MISSING = "parameter_missing"
    PARAMETER_INVALID = "parameter_invalid"
    PARAMETER_UNKNOWN = "parameter_unknown"
    PARAMETER_READ_ONLY = "parameter_read_only"
    JSON_INVALID = "json_invalid"
    API_VERSION_UNKNOWN = "api_version_unknown"
    EXPAND_INVALID = "expand_invalid"
    EXPAND_TOO_DEEP = "expand_too_deep"
    CURSOR_INVALID = "cursor_invalid"
    NOT_ACCEPTABLE = "not_acceptable"
    BAD_REQUEST = "bad_request"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    BODY_TOO_LARGE = "body_too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    ROUTE_MISSING = "route_missing"


class AuthErrorCode(StrEnum):
    """Who is calling and what their key may do (docs/keys.md, "Who may call what")."""

    API_KEY_MISSING = "api_key_missing"
    API_KEY_INVALID = "api_key_invalid"
    API_KEY_REVOKED = "api_key_revoked"
    ROLE_FORBIDDEN = "role_forbidden"
    AGENT_CANNOT_APPROVE = "agent_cannot_approve"


class IdempotencyErrorCode(StrEnum):
    """The `Idempotency-Key` of a POST or PATCH (docs/conventions.md, "Idempotency")."""

    IDEMPOTENCY_KEY_MISSING = "idempotency_key_missing"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    IDEMPOTENCY_KEY_IN_USE = "idempotency_key_in_use"


class RateLimitErrorCode(StrEnum):
    """The account's token bucket, and its PDFs rendering at once (docs/operations/limits.md)."""

    RATE_LIMITED = "rate_limited"
    TOO_MANY_RENDERS = "too_many_renders"


class DocumentErrorCode(StrEnum):
    """A document rendered for the request (docs/operations/limits.md, "Rendering PDFs")."""

    RENDER_TIMED_OUT = "render_timed_out"


class ResourceErrorCode(StrEnum):
    """Any object: not visible, already there, still referenced, or in a status that refuses
    the operation (`invalid_state_transition`, built only by
    `jobcost.services.common.not_allowed`)."""

    RESOURCE_MISSING = "resource_missing"
    RESOURCE_ALREADY_EXISTS = "resource_already_exists"
    RESOURCE_IN_USE = "resource_in_use"
    INVALID_STATE_TRANSITION = "invalid_state_transition"


class ProjectErrorCode(StrEnum):
    """Projects and their budgets: the closed project, the locked originals, the money cap
    on the project's totals."""

    PROJECT_CLOSED = "project_closed"
    CONTRACT_LOCKED = "contract_locked"
    BUDGET_LOCKED = "budget_locked"
    AMOUNT_OUT_OF_RANGE = "amount_out_of_range"


class CommitmentErrorCode(StrEnum):
    """Commitments and change orders, and the invoices drawn against a commitment."""

    COMMITMENT_NOT_EXECUTED = "commitment_not_executed"
    COST_CODE_REQUIRED = "cost_code_required"
    EXCEEDS_COMMITMENT = "exceeds_commitment"
    LINES_SUM_MISMATCH = "lines_sum_mismatch"


class InvoiceErrorCode(StrEnum):
    """Vendor invoices and their lien waivers."""

    DUPLICATE_INVOICE = "duplicate_invoice"


class PayAppErrorCode(StrEnum):
    """Pay applications (G702/G703) and the billing periods they lock."""

    DRAFT_PAY_APP_EXISTS = "draft_pay_app_exists"
    PERIODS_OVERLAP = "periods_overlap"
    PERIOD_LOCKED = "period_locked"
    SCHEDULE_OF_VALUES_UNBALANCED = "schedule_of_values_unbalanced"
    EXCEEDS_SCHEDULED_VALUE = "exceeds_scheduled_value"
    LIEN_WAIVERS_MISSING = "lien_waivers_missing"
    EXCEEDS_PAYMENT_DUE = "exceeds_payment_due"
    EXCEEDS_AMOUNT_REMAINING = "exceeds_amount_remaining"


class ReportErrorCode(StrEnum):
    """The reports (`/v1/reports/…`) and their files."""

    REPORT_TOO_LARGE = "report_too_large"


class BudgetImportErrorCode(StrEnum):
    """A budget imported from a spreadsheet (docs/budget-import.md): the file refused as a
    whole, a batch of cost codes refused, and a row's own refusal."""

    FILE_UNREADABLE = "file_unreadable"
    HEADER_INVALID = "header_invalid"
    FILE_EMPTY = "file_empty"
    TOO_MANY_ROWS = "too_many_rows"
    ROWS_INVALID = "rows_invalid"
    DUPLICATE_CODE = "duplicate_code"
    FORMULA_NOT_CALCULATED = "formula_not_calculated"
