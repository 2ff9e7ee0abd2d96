"""Schema components needed at settings time (kept free of Django imports)."""

ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "code", "message", "param", "object", "request_id"],
            "properties": {
                "type": {
                    "type": "string",
                    "enum": [
                        "invalid_request",
                        "unauthenticated",
                        "forbidden",
                        "not_found",
                        "conflict",
                        "validation_failed",
                        "rate_limited",
                        "api_error",
                    ],
                },
                "code": {
                    "type": "string",
                    "example": "parameter_invalid",
                    "description": "Machine-readable reason; every code is listed in "
                    "docs/errors.md.",
                },
                "message": {"type": "string", "description": "For people; do not parse."},
                "param": {
                    "type": "string",
                    "nullable": True,
                    "description": "The offending body field, query parameter or header.",
                },
                "object": {
                    "type": "string",
                    "nullable": True,
                    "description": "ID of the object whose state refused the request.",
                },
                "request_id": {
                    "type": "string",
                    "example": "req_…",
                    "description": "Equals the Request-Id response header.",
                },
            },
        }
    },
}
