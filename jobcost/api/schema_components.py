"""Schema components written by hand: the error envelope (`ErrorResponse` → `ErrorObject`,
docs/errors.md) and the `Actor` of audit entries and agent actions (docs/audit.md),
added to the document by the first schema hook, `append_components`."""

import copy

from drf_spectacular.plumbing import ResolvedComponent

from jobcost.error_codes import RequestErrorCode
from jobcost.errors import ERROR_TYPES

ERROR_OBJECT = {
    "type": "object",
    "required": ["type", "code", "message", "param", "object", "request_id"],
    "properties": {
        "type": {
            "type": "string",
            "enum": list(ERROR_TYPES),
        },
        "code": {
            "type": "string",
            "example": RequestErrorCode.PARAMETER_INVALID.value,
            "description": "Machine-readable reason; every code is listed in docs/errors.md.",
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
            "nullable": True,
            "example": "req_…",
            "description": "Equals the Request-Id response header; in an agent action's "
            "`failure`, the approving request's (null when none carried one).",
        },
    },
}

ERROR_RESPONSE = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {"$ref": "#/components/schemas/ErrorObject"}},
}

ACTOR_ROLES = ["admin", "manager", "member", "viewer", "agent", "staff", "superuser"]
ACTOR = {
    "type": "object",
    "required": ["type", "id", "role"],
    "properties": {
        "type": {"type": "string", "enum": ["api_key", "user", "system"]},
        "id": {
            "type": "string",
            "nullable": True,
            "description": "The `key_` ID or the user's ID; null for the system.",
        },
        "role": {
            "type": "string",
            "nullable": True,
            "enum": ACTOR_ROLES,
            "description": "An API key's role, `staff` or `superuser` for an admin user, null "
            "for the system.",
        },
    },
}

ACTOR_REF = {"$ref": "#/components/schemas/Actor"}
ERROR_OBJECT_REF = {"$ref": "#/components/schemas/ErrorObject"}
ERROR_RESPONSE_REF = {"$ref": "#/components/schemas/ErrorResponse"}

COMPONENTS = {"ErrorResponse": ERROR_RESPONSE, "ErrorObject": ERROR_OBJECT, "Actor": ACTOR}


def append_components(result, generator, **kwargs):
    """The first schema hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]): register
    COMPONENTS with the generator's registry, which drf-spectacular's enum hook rebuilds the
    components from, and add them to this document, in name order as the registry orders
    them; so the settings need not import them. Returns a changed copy."""
    for name, schema in COMPONENTS.items():
        generator.registry.register_on_missing(
            ResolvedComponent(
                name=name,
                type=ResolvedComponent.SCHEMA,
                schema=copy.deepcopy(schema),
                object=name,
            )
        )
    schemas = {**result["components"]["schemas"], **copy.deepcopy(COMPONENTS)}
    components = {**result["components"], "schemas": dict(sorted(schemas.items()))}
    return {**result, "components": components}
