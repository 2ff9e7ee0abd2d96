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
                "code": {"type": "string", "example": "parameter_invalid"},
                "message": {"type": "string"},
                "param": {"type": "string", "nullable": True},
                "object": {"type": "string", "nullable": True},
                "request_id": {"type": "string", "example": "req_…"},
            },
        }
    },
}
