"""OpenAPI generation (drf-spectacular): the schema at /v1/openapi.json, kept exact.

`JobcostAutoSchema` adds what the request pipeline in `jobcost.api.viewsets` does to every
operation, so views only declare their own shapes (through `jobcost.views.docs`):

- the `Jobcost-Version` header everywhere, `Idempotency-Key` (required) on POST and PATCH;
- the list filters of the view's FilterSet under their public names (`created[gte]`, …);
- `additionalProperties: false` on request bodies (unknown fields are 400
  `parameter_unknown`) and an optional empty body on transitions;
- `int64` cents with their range on request bodies;
- expandable ID fields in responses as "ID or the expanded object";
- response headers and the error responses (the `Error` envelope) with the codes each
  status carries on that kind of operation. Extra codes an operation emits are declared with
  `jobcost.views.docs` (`errors=`) and land in the same responses.
"""

from __future__ import annotations

import copy
import json
from enum import StrEnum

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string
from django_filters import filters as django_filters
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, build_parameter_type, force_instance
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from jobcost.api import policy
from jobcost.api.fields import CentsField, RefField
from jobcost.api.schema_components import ERROR_RESPONSE_REF
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.error_codes import (
    AuthErrorCode,
    BaseErrorCode,
    IdempotencyErrorCode,
    RateLimitErrorCode,
    ReportErrorCode,
    RequestErrorCode,
    ResourceErrorCode,
)
from jobcost.limits import BUSINESS_DATE_MAX, BUSINESS_DATE_MIN
from jobcost.money import MONEY_MAX

# A character that is not whitespace as Python's `str.strip()` (and so DRF's trimming) reads
# it: \t–\r, U+001C–U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F,
# U+205F, U+3000. A request string that must not be blank holds at least one. The schema's
# regex dialect (ECMA-262) has another `\s`: it counts U+FEFF and not U+001C–U+001F or U+0085,
# so `\S` let a string of U+001F pass the schema while the API refused it blank (found by
# schemathesis). docs/errors.md (`parameter_invalid`) lists the set;
# tests/jobcost/api/test_openapi.py checks the class against `str.isspace`.
NOT_BLANK_PATTERN = (
    "[^\\u0009-\\u000d\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a"
    "\\u2028\\u2029\\u202f\\u205f\\u3000]"
)

ERROR_REF = ERROR_RESPONSE_REF
ERROR_CODES_KEY = "x-jobcost-error-codes"
# An inline enum marked with this key becomes the component of that name
# (`jobcost.api.schema_hooks`), e.g. the `expand[]` paths of one serializer.
ENUM_NAME_KEY = "x-jobcost-enum-name"
VERSION_REF = {"$ref": "#/components/schemas/JobcostVersion"}

RESPONSE_HEADERS = {
    "Request-Id": {"schema": {"type": "string"}, "description": "This request's `req_` ID."},
    "Jobcost-Version": {"schema": VERSION_REF, "description": "API version used."},
    "RateLimit-Limit": {
        "schema": {"type": "integer"},
        "description": "The account's bucket size (burst).",
    },
    "RateLimit-Remaining": {
        "schema": {"type": "integer"},
        "description": "Requests left in the bucket.",
    },
    "RateLimit-Reset": {
        "schema": {"type": "integer"},
        "description": "Seconds until the bucket is full again.",
    },
}
REPLAYED_HEADER = {
    "Idempotent-Replayed": {
        "schema": {"type": "string", "enum": ["true"]},
        "description": "Present when this is the stored response of an earlier request with "
        "the same Idempotency-Key.",
    }
}
STATUS_HEADERS = {
    "401": {
        "WWW-Authenticate": {
            "schema": {"type": "string", "example": 'Bearer realm="jobcost"'},
            "description": "The Bearer challenge.",
        },
    },
    "429": {
        "Retry-After": {
            "schema": {"type": "integer", "minimum": 1},
            "description": "Whole seconds to wait before retrying.",
        }
    },
}
STATUS_HEADERS["503"] = STATUS_HEADERS["429"]

# Operations answering a document (a file), not a JSON object: no `expand[]`, no parameters.
DOCUMENT_ACTIONS = frozenset({"pdf"})

STATUS_TEXT = {
    "400": "Invalid request.",
    "401": "Missing, malformed, unknown or revoked API key.",
    "403": "The key's role may not do this.",
    "404": "No such object, or not visible to this key.",
    "409": "Conflict with the object's state or with an earlier request.",
    "413": "Request body over 1 MiB.",
    "415": "The Content-Type names a charset other than UTF-8, or a body is not application/json.",
    "422": "A business rule refused the request.",
    "429": "Rate limited: the account's request bucket is empty.",
    "500": "Internal error (no stack trace); it was logged.",
    "503": "The work did not finish within its time limit; retry after Retry-After.",
}

FILTER_TEXT = {
    "created[gte]": "Only objects created at or after this time (ISO 8601).",
    "created[lt]": "Only objects created before this time (ISO 8601).",
    "project": "Only objects of this project (`prj_…`).",
    "vendor": "Only objects of this vendor (`vnd_…`).",
    "owner": "Only objects of this owner (`own_…`).",
    "cost_code": "Only objects on this cost code (`cc_…`).",
    "commitment": "Only objects of this commitment (`cmt_…`).",
    "status": "Only objects in this status.",
    "type": "Only objects of this type.",
    "cost_type": "Only cost codes of this cost type.",
    "trade": "Only vendors of this trade (case-insensitive, exact).",
    "date[gte]": "Only daily logs of this date or later (`YYYY-MM-DD`, from "
    f"{BUSINESS_DATE_MIN} to {BUSINESS_DATE_MAX}).",
    "date[lte]": "Only daily logs of this date or earlier (`YYYY-MM-DD`, from "
    f"{BUSINESS_DATE_MIN} to {BUSINESS_DATE_MAX}).",
}


def expandable_paths(serializer_class, depth: int = 2) -> list[str]:
    """Every `expand[]` path a serializer accepts, up to `depth` levels (docs/conventions.md)."""
    paths: list[str] = []
    for field, spec in getattr(serializer_class, "expandable", {}).items():
        paths.append(field)
        if depth > 1:
            target = import_string(spec) if isinstance(spec, str) else spec
            paths += [f"{field}.{sub}" for sub in expandable_paths(target, depth - 1)]
    return paths


class JobcostAutoSchema(AutoSchema):
    """The project's AutoSchema (REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"])."""

    # --- naming ---------------------------------------------------------------------------
    def _action(self) -> str:
        action = getattr(self.view, "action", None) or self.method.lower()
        return "update" if action == "partial_update" else action

    def get_operation_id(self) -> str:
        """`<collection>_<action>`, e.g. `cost_codes_list`, `commitments_execute`."""
        return f"{self.view.basename.replace('-', '_')}_{self._action()}"

    def get_tags(self) -> list[str]:
        return [self.view.basename]

    def get_description(self) -> str:
        """Only what the views declare: class and method docstrings are for developers."""
        return ""

    def get_summary(self) -> str | None:
        if self._action() == "audit":
            return f"List a {self._object_name()}'s audit trail"
        return super().get_summary()

    def _object_name(self) -> str:
        return self.view.serializer_class.object_name.replace("_", " ")

    # --- parameters -----------------------------------------------------------------------
    def _get_format_parameters(self):
        """No `format` query parameter: the PDF route's second renderer only makes
        `Accept: application/pdf` acceptable; a `format` parameter is 400 like any unknown."""
        return []

    def get_override_parameters(self):
        params = list(super().get_override_parameters())
        params.append(
            OpenApiParameter(
                "Jobcost-Version",
                VERSION_REF,
                OpenApiParameter.HEADER,
                description="Override the key's pinned API version for this request.",
            )
        )
        if self.method in ("POST", "PATCH"):
            params.append(
                OpenApiParameter(
                    "Idempotency-Key",
                    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},
                    OpenApiParameter.HEADER,
                    required=True,
                    description="1–255 printable ASCII characters, unique per request. A retry "
                    "within 24 h with the same key, method, path and body replays the stored "
                    "response; with anything else it is 409 `idempotency_key_reused`.",
                )
            )
        return params

    def _resolve_path_parameters(self, variables):
        prefix = getattr(self.view, "id_prefix", "")
        return [
            build_parameter_type(
                name=variable,
                location=OpenApiParameter.PATH,
                schema={"type": "string", "example": f"{prefix}_…"},
                description=f"The object's ID (`{prefix}_…`); another prefix is 404.",
            )
            for variable in variables
        ]

    def _get_filter_parameters(self):
        """The FilterSet's filters under their public names; none when filters are off
        (`filters=False`, e.g. audit trails) or on anything but a list."""
        filterset = getattr(self.view, "filterset_class", None)
        if filterset is None or self._action() != "list" or not self.get_filter_backends():
            return []
        params = []
        for name, filter_ in filterset.base_filters.items():
            params.append(
                build_parameter_type(
                    name=name,
                    location=OpenApiParameter.QUERY,
                    schema=self._filter_schema(filter_),
                    description=FILTER_TEXT.get(name, f"Only objects whose {name} is this."),
                )
            )
        return params

    @staticmethod
    def _filter_schema(filter_) -> dict:
        if isinstance(filter_, django_filters.ChoiceFilter):
            return {"type": "string", "enum": [value for value, _ in filter_.extra["choices"]]}
        if isinstance(filter_, django_filters.IsoDateTimeFilter):
            return {"type": "string", "format": "date-time"}
        if isinstance(filter_, django_filters.DateFilter):
            return {"type": "string", "format": "date"}
        return {"type": "string", "minLength": 1}  # an empty value is 400, not "no filter"

    # --- bodies ---------------------------------------------------------------------------
    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        serializer = force_instance(serializer)
        schema.pop("description", None)  # a docstring, written for developers
        if isinstance(serializer, InputSerializer):
            schema["additionalProperties"] = False
            schema.setdefault("properties", {})
            schema["description"] = (
                "Unknown fields are 400 `parameter_unknown`; the object's computed fields are "
                "400 `parameter_read_only`."
            )
        if direction == "response" and isinstance(serializer, ResourceSerializer):
            schema["description"] = f"A `{serializer.object_name}` object."
            schema["properties"]["audit_trail"]["example"] = (
                f"/v1/{serializer.collection}/{{id}}/audit"
            )
            self._mark_expandable(type(serializer), schema)
        return schema

    def _mark_expandable(self, serializer_class, schema) -> None:
        """An expandable ID field is the ID, or the object when `expand[]` names it."""
        for field, spec in serializer_class.expandable.items():
            prop = schema["properties"].get(field)
            if prop is None:
                continue
            target = import_string(spec) if isinstance(spec, str) else spec
            component = self.resolve_serializer(target, "response")
            if prop.get("type") == "array":
                schema["properties"][field] = {
                    "type": "array",
                    "items": {"anyOf": [{"type": "string"}, component.ref]},
                    "readOnly": True,
                    "description": f"IDs of {target.object_name} objects, or the objects when "
                    f"`expand[]` names `{field}`.",
                }
                continue
            id_schema = {"type": "string", "description": f"The {field} ID."}
            if prop.get("nullable"):
                id_schema["nullable"] = True
            schema["properties"][field] = {
                "anyOf": [id_schema, component.ref],
                "description": f"The {target.object_name}'s ID, or the {target.object_name} "
                f"object when `expand[]` names `{field}`.",
            }

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if schema is not None and direction == "request":
            if getattr(field, "allow_empty", True) is False and schema.get("type") == "array":
                schema.setdefault("minItems", 1)  # `allow_empty=False`: [] is 400
            if "default" in schema:
                # Generators read a default as "always sent"; a request field that may be
                # omitted only says what omitting it means.
                default = json.dumps(schema.pop("default"))
                text = schema.get("description", "")
                schema["description"] = f"{text} Default when omitted: `{default}`.".strip()
            if (
                isinstance(field, serializers.CharField)
                and not isinstance(field, serializers.RegexField)
                and not field.allow_blank
                and field.trim_whitespace
                and "pattern" not in schema
            ):
                # DRF trims the value, then refuses it blank: "   " is 400 like "". A
                # RegexField's own pattern (added after this, from its validator) says more
                # (a project's `currency`: `^[a-z]{3}$`); this one would have kept it out.
                schema["pattern"] = NOT_BLANK_PATTERN
            if isinstance(field, CentsField):
                # The money cap (docs/operations/limits.md), not the int64 range: past it is 400.
                # A `positive` amount (an invoice's, a receipt's) is 1 cent or more.
                schema["minimum"] = -MONEY_MAX if field.allow_negative else int(field.positive)
                schema["maximum"] = MONEY_MAX
            elif isinstance(field, RefField):
                schema["pattern"] = f"^{field.prefix}_"
                schema["description"] = (
                    f"The ID (`{field.prefix}_…`) of an object visible to this key; "
                    "otherwise 404 `resource_missing` with this field as `param`."
                )
                schema["example"] = f"{field.prefix}_…"
        return schema

    # --- responses ------------------------------------------------------------------------
    def _error_codes(self) -> dict[str, list[StrEnum]]:
        """The codes each error status carries on this operation (see docs/errors.md)."""
        write = self.method in ("POST", "PATCH")
        has_id = "{id}" in self.path
        is_list = self._action() in ("list", "audit")
        bad: list[StrEnum] = [
            RequestErrorCode.API_VERSION_UNKNOWN,
            RequestErrorCode.EXPAND_INVALID,
            RequestErrorCode.EXPAND_TOO_DEEP,
        ]
        if is_list:
            bad += [
                RequestErrorCode.PARAMETER_INVALID,
                RequestErrorCode.PARAMETER_UNKNOWN,
                RequestErrorCode.CURSOR_INVALID,
            ]
        if self._action() in DOCUMENT_ACTIONS:
            # It takes no parameters.
            bad = [RequestErrorCode.API_VERSION_UNKNOWN, RequestErrorCode.PARAMETER_UNKNOWN]
        if getattr(self.view, "report_view", False):  # no `expand[]`; files have a bound
            bad = [
                RequestErrorCode.API_VERSION_UNKNOWN,
                RequestErrorCode.PARAMETER_INVALID,
                RequestErrorCode.PARAMETER_UNKNOWN,
            ]
            bad += [RequestErrorCode.CURSOR_INVALID, ReportErrorCode.REPORT_TOO_LARGE]
        codes: dict[str, list[StrEnum]] = {
            "401": [
                AuthErrorCode.API_KEY_MISSING,
                AuthErrorCode.API_KEY_INVALID,
                AuthErrorCode.API_KEY_REVOKED,
            ],
            # A `charset` other than UTF-8, on any operation (docs/decisions.md, "Request
            # bodies").
            "415": [RequestErrorCode.UNSUPPORTED_MEDIA_TYPE],
            "429": [RateLimitErrorCode.RATE_LIMITED],
            "500": [BaseErrorCode.INTERNAL_ERROR],
        }
        if has_id:
            codes["404"] = [ResourceErrorCode.RESOURCE_MISSING]
        if self._capability() not in (policy.READ, None):
            codes["403"] = [AuthErrorCode.ROLE_FORBIDDEN]  # e.g. webhook routes: admin keys only
        if write:
            bad = [
                IdempotencyErrorCode.IDEMPOTENCY_KEY_MISSING,
                RequestErrorCode.JSON_INVALID,
                RequestErrorCode.PARAMETER_MISSING,
            ]
            bad += [
                RequestErrorCode.PARAMETER_INVALID,
                RequestErrorCode.PARAMETER_UNKNOWN,
                RequestErrorCode.PARAMETER_READ_ONLY,
            ]
            bad += [
                RequestErrorCode.API_VERSION_UNKNOWN,
                RequestErrorCode.EXPAND_INVALID,
                RequestErrorCode.EXPAND_TOO_DEEP,
            ]
            codes["403"] = [AuthErrorCode.ROLE_FORBIDDEN]
            if self._capability() == policy.APPROVE:
                codes["403"].append(AuthErrorCode.AGENT_CANNOT_APPROVE)
            codes["409"] = [
                IdempotencyErrorCode.IDEMPOTENCY_KEY_REUSED,
                IdempotencyErrorCode.IDEMPOTENCY_KEY_IN_USE,
            ]
            codes["413"] = [RequestErrorCode.BODY_TOO_LARGE]
            if self._has_references():
                codes["404"] = [ResourceErrorCode.RESOURCE_MISSING]
        codes["400"] = bad
        for status, extra in self.get_extensions().get(ERROR_CODES_KEY, {}).items():
            codes.setdefault(str(status), [])
            codes[str(status)] += [c for c in extra if c not in codes[str(status)]]
        return codes

    def _capability(self) -> str | None:
        try:
            return policy.capability_for(self.view.basename, self.view.action)
        except ImproperlyConfigured:  # refused at run time; the policy test names it
            return None

    def _has_references(self) -> bool:
        serializer = self.get_request_serializer()
        if serializer is None or isinstance(serializer, dict):
            return False
        fields = force_instance(serializer).fields.values()
        return any(isinstance(field, RefField) for field in fields)

    def _headers(self, status: str) -> dict:
        """References to the response headers a response with `status` carries."""
        headers = dict(RESPONSE_HEADERS)
        headers.update(STATUS_HEADERS.get(status, {}))
        if self.method in ("POST", "PATCH") and status not in ("401", "403", "429", "500"):
            headers.update(REPLAYED_HEADER)
        refs = {}
        for name, header in headers.items():
            component = ResolvedComponent(
                name=name, type=ResolvedComponent.HEADER, schema=header, object=name
            )
            self.registry.register_on_missing(component)
            refs[name] = component.ref
        return refs

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status, response in responses.items():
            if not response.get("description"):
                response["description"] = self._success_text()
            response.setdefault("headers", {}).update(self._headers(status))
        for status, codes in sorted(self._error_codes().items()):
            headers = self._headers(status)
            responses[status] = {
                "description": STATUS_TEXT[status]
                + " Codes: "
                + ", ".join(f"`{code}`" for code in codes)
                + ".",
                "headers": headers,
                "content": {"application/json": {"schema": ERROR_REF}},
            }
        return dict(sorted(responses.items()))

    def _success_text(self) -> str:
        """The 2xx description; a view's `success_texts` ({action: text}) overrides it."""
        action, name = self._action(), self._object_name()
        custom = getattr(self.view, "success_texts", {}).get(action)
        if custom:
            return custom
        if action == "list":
            return f"A page of {name} objects, newest first."
        if action == "audit":
            return "A page of audit entries, oldest first."
        if action == "create":
            return f"The new {name}."
        return f"The {name}."

    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is not None:
            operation.pop(ERROR_CODES_KEY, None)
        return operation


def postprocess_schema_enums(result, generator, **kwargs):
    """drf-spectacular's enum hook, but one-value enums (constants such as `object: "list"`)
    stay inline instead of becoming one component each (SPECTACULAR_SETTINGS
    ["POSTPROCESSING_HOOKS"])."""
    from drf_spectacular.hooks import postprocess_schema_enums as spectacular_enums

    # On a copy: components such as `ErrorObject` are SPECTACULAR_SETTINGS
    # ["APPEND_COMPONENTS"] themselves, and hoisting their enums in place would change the
    # next generation's input (drf-spectacular rebuilds the components from them at the end).
    result = copy.deepcopy(result)
    hidden = []
    for component in result.get("components", {}).get("schemas", {}).values():
        for prop in component.get("properties", {}).values():
            if isinstance(prop, dict) and len(prop.get("enum", ())) == 1:
                hidden.append((prop, prop.pop("enum")))
    result = spectacular_enums(result, generator, **kwargs)
    for prop, enum in hidden:
        prop["enum"] = enum
    return result
