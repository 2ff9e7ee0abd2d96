"""OpenAPI generation: every operation documents its headers and error envelope."""

from drf_spectacular.openapi import AutoSchema

ERROR_REF = {"$ref": "#/components/schemas/Error"}

RESPONSE_HEADERS = {
    "Request-Id": {"schema": {"type": "string"}, "description": "This request's `req_` ID."},
    "Jobcost-Version": {"schema": {"type": "string"}, "description": "API version used."},
    "RateLimit-Limit": {"schema": {"type": "integer"}, "description": "Bucket size."},
    "RateLimit-Remaining": {"schema": {"type": "integer"}, "description": "Tokens left."},
    "RateLimit-Reset": {"schema": {"type": "integer"}, "description": "Seconds to a full bucket."},
}

ERRORS = {
    "400": "Invalid request: a missing, malformed, unknown or read-only parameter.",
    "401": "Missing, malformed, unknown or revoked API key.",
    "403": "The key's role may not do this (`role_forbidden`, `agent_cannot_approve`).",
    "404": "No such object, or not visible to this key.",
    "409": "Conflict: the object's state, or an idempotency key reused or in use.",
    "413": "Body over 1 MiB.",
    "415": "Body is not application/json.",
    "422": "A business rule failed.",
    "429": "Rate limited; see Retry-After.",
    "500": "Internal error (no stack trace).",
}


class JobcostAutoSchema(AutoSchema):
    """Adds Idempotency-Key / Jobcost-Version headers and the error responses."""

    def get_override_parameters(self):
        params = list(super().get_override_parameters())
        from drf_spectacular.utils import OpenApiParameter

        params.append(
            OpenApiParameter(
                "Jobcost-Version",
                str,
                OpenApiParameter.HEADER,
                description="Override the key's pinned API version for this request.",
            )
        )
        if self.method in ("POST", "PATCH"):
            params.append(
                OpenApiParameter(
                    "Idempotency-Key",
                    str,
                    OpenApiParameter.HEADER,
                    required=True,
                    description="1–255 printable characters; retries within 24 h replay the "
                    "stored response.",
                )
            )
        return params

    def _error_statuses(self) -> list[str]:
        statuses = ["400", "401", "403", "429", "500"]
        if "{id}" in self.path or self.method in ("POST", "PATCH", "DELETE"):
            statuses.append("404")
        if self.method in ("POST", "PATCH", "DELETE"):
            statuses += ["409", "413", "415", "422"]
        return sorted(statuses)

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for response in responses.values():
            if isinstance(response, dict):
                response.setdefault("headers", {}).update(RESPONSE_HEADERS)
        for status in self._error_statuses():
            responses.setdefault(
                status,
                {
                    "description": ERRORS[status],
                    "headers": dict(RESPONSE_HEADERS),
                    "content": {"application/json": {"schema": ERROR_REF}},
                },
            )
        return responses
