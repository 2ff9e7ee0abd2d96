"""The OpenAPI schema (GET /v1/openapi.json) is valid, complete and exact, and /docs serves it.

Complete: the (path, method) pairs it documents are exactly the /v1 routes of the URL conf,
each with a summary from `jobcost.views.docs` — a route added without documenting it fails
here. Exact: real responses of every resource validate against the documented response
schemas, with no undocumented field (objects are validated with additionalProperties off).
"""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from html.parser import HTMLParser

import jsonschema
import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import URLResolver, get_resolver
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from drf_spectacular.views import SpectacularAPIView
from packaging.version import Version
from rest_framework import serializers as drf_serializers

from jobcost.api import policy
from jobcost.api.fields import CentsField, PercentField
from jobcost.api.schema import expandable_paths
from jobcost.api.serializers import InputSerializer
from jobcost.models import (
    AgentActionKind,
    AgentActionStatus,
    CommitmentStatus,
    CommitmentType,
    CostType,
    ProjectStatus,
    RfiStatus,
    Role,
)
from jobcost.serializers.audit import AuditEntrySerializer
from jobcost.serializers.budget_imports import BudgetImportSerializer
from jobcost.serializers.pay_apps import PayAppLineSerializer, PayAppPaymentSerializer
from tests.conftest import error_of
from tests.factories import (
    CostCodeFactory,
    OwnerFactory,
    ProjectFactory,
    VendorFactory,
    make_job,
)
from tests.webhooks.support import PUBLIC_URL
from webhooks.catalogue import CATALOGUE, event_resources
from webhooks.delivery import attempt
from webhooks.models import DeliveryStatus, EndpointStatus, WebhookDelivery, WebhookEndpoint
from webhooks.serializers import WebhookDeliverySerializer

ERROR_REF = {"$ref": "#/components/schemas/ErrorResponse"}
VERSION_REF = {"$ref": "#/components/schemas/JobcostVersion"}
HTTP_METHODS = {"get", "post", "put", "patch", "delete"}
TRANSITIONS = {"execute", "close", "void"}
LIST_ACTIONS = {"list", "audit", "lines", "deliveries", "payments"}
# Lists of something else than the view's objects, and their item components.
NESTED_LISTS = {
    "audit": "AuditEntry",
    "lines": "PayAppLine",
    "deliveries": "WebhookDelivery",
    "payments": "PayAppPayment",
}
# Operations that answer something else than the view's object.
OTHER_RESPONSES = {
    "destroy": "WebhookEndpointDeleted",
    "retry_delivery": "WebhookDelivery",
    "budget_import": "BudgetImport",
    "record_payment": "PayAppPayment",
}
# Operations that create an object of another kind than the view's (201 with it).
CREATED_ELSEWHERE = {"record_payment": PayAppPaymentSerializer}
# Operations whose body is a file, not JSON: the media types each takes (docs/budget-import.md).
UPLOADS = {
    "budget_import": {
        "text/csv",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "multipart/form-data",
    }
}
# Operations that answer a document (a file of this media type), not JSON; they take no
# parameters at all, so no `expand[]` either.
DOCUMENTS = {"pdf": "application/pdf"}
# Reports answer a list object with totals, or the same rows as a file
# (tests/jobcost/api/test_reports_schema.py checks their operations).
REPORTS = {"wip", "job_cost", "job_cost_transactions", "ap_aging", "ar_aging", "retainage"}
CONDITIONAL_HEADERS = {"Idempotent-Replayed", "Retry-After", "WWW-Authenticate"}


# --- the schema and the URL conf --------------------------------------------------------------
@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        response = Client().get("/v1/openapi.json")
    assert response.status_code == 200
    return json.loads(response.content, parse_float=Decimal)


def _openapi_path(pattern) -> str:
    text = str(pattern).removeprefix("^").removesuffix("$")
    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: "{id}" if m[1] == "pk" else f"{{{m[1]}}}", text)
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", text)


def _walk(patterns, prefix=""):
    for entry in patterns:
        path = prefix + _openapi_path(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, path)
        else:
            yield "/" + path, entry.callback


def _routed_operations() -> dict[tuple[str, str], tuple[type, str]]:
    """{(path, method): (view class, action)} for every /v1 route but the schema itself."""
    routes = {}
    for path, callback in _walk(get_resolver().url_patterns):
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        if not path.startswith("/v1/") or issubclass(view, SpectacularAPIView):
            continue
        actions = getattr(callback, "actions", None) or {
            m: m for m in view.http_method_names if hasattr(view, m)
        }
        for method, action in actions.items():
            if method not in ("options", "head"):
                routes[path, method] = (view, action)
    return routes


ROUTES = _routed_operations()


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method, operation


def _params(operation) -> dict[str, dict]:
    return {p["name"]: p for p in operation.get("parameters", [])}


def _component(schema, ref: dict) -> dict:
    return schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]


def _body_schema(response: dict) -> dict:
    return response["content"]["application/json"]["schema"]


# --- validity and completeness ----------------------------------------------------------------
def test_schema_is_public_and_valid_openapi_3(schema):
    validate_schema(json.loads(json.dumps(schema, default=float)))
    assert schema["openapi"].startswith("3.")
    # A package version generators can use; the dated API version beside it.
    assert str(Version(schema["info"]["version"])) == schema["info"]["version"] == "2026.11.20rc0"
    assert schema["info"]["x-jobcost-version"] == settings.JOBCOST_API_VERSIONS[-1]
    assert schema["components"]["schemas"]["JobcostVersion"]["enum"] == (
        settings.JOBCOST_API_VERSIONS
    )


def test_schema_generates_without_warnings():
    GENERATOR_STATS.reset()
    with GENERATOR_STATS.silence():
        SchemaGenerator().get_schema(request=None, public=True)
    assert not GENERATOR_STATS, dict(GENERATOR_STATS._warn_cache, **GENERATOR_STATS._error_cache)


def test_schema_is_the_same_every_time_it_is_generated(schema):
    """Post-processing must not change its inputs (the appended components): a second
    generation in the same process is the same document, every `$ref` resolvable."""
    again = json.loads(Client().get("/v1/openapi.json").content, parse_float=Decimal)
    assert again == schema
    names = set(schema["components"]["schemas"])
    refs = {n["$ref"] for _, n in _walk_nodes(schema) if isinstance(n.get("$ref"), str)}
    schemas = {r.rsplit("/", 1)[1] for r in refs if r.startswith("#/components/schemas/")}
    assert schemas <= names, schemas - names


def test_documented_operations_are_exactly_the_routed_ones(schema):
    documented = {(path, method) for path, method, _ in _operations(schema)}
    assert ROUTES, "no /v1 routes found"
    assert documented == set(ROUTES)
    for path, method, operation in _operations(schema):
        assert operation.get("summary"), f"{method.upper()} {path} has no summary"


def test_operation_ids_are_unique_and_named_for_the_route(schema):
    ids = [op["operationId"] for _, _, op in _operations(schema)]
    assert len(ids) == len(set(ids))
    for path, method, operation in _operations(schema):
        _view, action = ROUTES[path, method]
        action = "update" if action == "partial_update" else action
        assert operation["operationId"] == f"{_basename(path).replace('-', '_')}_{action}"


def _basename(path: str) -> str:
    """The router basename of a path: its collection (`/v1/agents/actions` → agent-actions)."""
    collection = path.split("/")[2]
    return "agent-actions" if collection == "agents" else collection


def _capability(path: str, method: str) -> str:
    _view, action = ROUTES[path, method]
    return policy.capability_for(_basename(path), action)


def test_every_operation_documents_version_header_and_error_envelope(schema):
    for path, method, operation in _operations(schema):
        params = _params(operation)
        assert params["Jobcost-Version"]["in"] == "header"
        assert params["Jobcost-Version"]["schema"] == VERSION_REF
        responses = operation["responses"]
        statuses = set(responses)
        # 415: a Content-Type naming a charset other than UTF-8, on any operation.
        assert {"400", "401", "415", "429", "500"} <= statuses, (path, method)
        if "{id}" in path:
            assert "404" in statuses, (path, method)
        if method in ("post", "patch"):
            assert {"403", "409", "413"} <= statuses, (path, method)
        else:
            assert not {"409", "413", "422"} & statuses, (path, method)
            # A read is refused only where the role policy asks more (webhooks: admin only).
            refusable = _capability(path, method) != policy.READ
            assert ("403" in statuses) == refusable, (path, method)
        for status, response in responses.items():
            headers = set(response["headers"])
            assert {"Request-Id", "Jobcost-Version", "RateLimit-Limit"} <= headers
            if int(status) >= 400:
                assert _body_schema(response) == ERROR_REF, (path, method, status)
                assert "Codes: `" in response["description"]
        assert "Retry-After" in responses["429"]["headers"]
        assert "WWW-Authenticate" in responses["401"]["headers"]


def test_every_post_and_patch_requires_an_idempotency_key(schema):
    writes = 0
    for _path, method, operation in _operations(schema):
        header = _params(operation).get("Idempotency-Key")
        if method in ("post", "patch"):
            writes += 1
            assert header["in"] == "header" and header["required"] is True
            assert header["schema"]["maxLength"] == 255
        else:
            assert header is None
    assert writes == sum(1 for _, method in ROUTES if method in ("post", "patch"))


def test_lists_document_pagination_expand_and_their_exact_filters(schema):
    for path, method, operation in _operations(schema):
        view, action = ROUTES[path, method]
        if action not in LIST_ACTIONS:
            continue
        params = _params(operation)
        assert params["limit"]["schema"] == {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 25,
        }
        assert params["cursor"]["schema"] == {"type": "string", "pattern": "^cur_"}
        fixed = {"Jobcost-Version", "limit", "cursor", "expand[]", "id"}
        if action in NESTED_LISTS:
            assert set(params) <= fixed, path
        else:
            assert set(params) - fixed == set(view.filterset_class.base_filters), path
            assert _expand_enum(schema, operation) == [
                "data." + p for p in expandable_paths(view.serializer_class)
            ], path
        page = _component(schema, _body_schema(operation["responses"]["200"]))
        assert set(page["required"]) == {"object", "url", "has_more", "next_cursor", "data"}
        assert page["properties"]["object"]["enum"] == ["list"]
        assert page["properties"]["next_cursor"]["nullable"] is True
        assert page["properties"]["next_cursor"]["pattern"] == "^cur_"
        item = page["properties"]["data"]["items"]
        expected = NESTED_LISTS.get(action, view.serializer_class.__name__)
        assert item == {"$ref": f"#/components/schemas/{expected.removesuffix('Serializer')}"}


def test_list_filters_have_their_public_names_and_enums(schema):
    commitments = _params(schema["paths"]["/v1/commitments"]["get"])
    assert {"created[gte]", "created[lt]", "project", "vendor", "cost_code", "status"} <= set(
        commitments
    )
    assert commitments["created[gte]"]["schema"] == {"type": "string", "format": "date-time"}
    assert _component(schema, commitments["status"]["schema"])["enum"] == CommitmentStatus.values
    assert _component(schema, commitments["type"]["schema"])["enum"] == CommitmentType.values
    projects = _params(schema["paths"]["/v1/projects"]["get"])
    assert _component(schema, projects["status"]["schema"])["enum"] == ProjectStatus.values
    cost_codes = _params(schema["paths"]["/v1/cost-codes"]["get"])
    assert _component(schema, cost_codes["cost_type"]["schema"])["enum"] == CostType.values
    budgets = _params(schema["paths"]["/v1/budgets"]["get"])
    assert {"project", "cost_code", "created[gte]", "created[lt]"} <= set(budgets)


def _expand_enum(schema, operation) -> list[str]:
    """The `expand[]` paths an operation declares (none when it declares no `expand[]`): a
    repeatable query parameter whose items are a named enum component."""
    expand = _params(operation).get("expand[]")
    if expand is None:
        return []
    assert expand["in"] == "query" and expand["explode"] is True
    assert expand["schema"]["type"] == "array"
    items = expand["schema"]["items"]
    assert set(items) == {"$ref"} and items["$ref"].endswith("ExpandPath"), items
    return _component(schema, items)["enum"]


def test_expand_is_declared_only_where_a_path_is_expandable(schema):
    """An operation whose objects have no expandable field takes no `expand[]` value (any
    is 400 `expand_invalid`), so it declares none."""
    items = {
        "audit": AuditEntrySerializer,
        "lines": PayAppLineSerializer,
        "deliveries": WebhookDeliverySerializer,
        "retry_delivery": WebhookDeliverySerializer,
        "budget_import": BudgetImportSerializer,
        "payments": PayAppPaymentSerializer,
        "record_payment": PayAppPaymentSerializer,
    }
    without = 0
    for path, method, operation in _operations(schema):
        view, action = ROUTES[path, method]
        serializer = items.get(action, view.serializer_class)
        declared = "expand[]" in _params(operation)
        expandable = action not in DOCUMENTS and bool(expandable_paths(serializer))
        assert declared == expandable, (path, method)
        without += not declared
    assert without >= 33


def test_single_object_operations_document_expand(schema):
    for path, method, operation in _operations(schema):
        view, action = ROUTES[path, method]
        if action in LIST_ACTIONS or action in REPORTS:
            continue
        if action in DOCUMENTS:
            assert "expand[]" not in _params(operation), path
            assert operation["responses"]["200"]["content"] == {
                DOCUMENTS[action]: {"schema": {"type": "string", "format": "binary"}}
            }, path
            continue
        serializer = {**dict.fromkeys(UPLOADS, BudgetImportSerializer), **CREATED_ELSEWHERE}.get(
            action, view.serializer_class
        )
        assert _expand_enum(schema, operation) == expandable_paths(serializer), path
        success = next(s for s in operation["responses"] if s.startswith("2"))
        name = view.serializer_class.__name__.removesuffix("Serializer")
        name = OTHER_RESPONSES.get(action, name)
        assert _body_schema(operation["responses"][success]) == {
            "$ref": f"#/components/schemas/{name}"
        }
        assert success == ("201" if action in ("create", *UPLOADS, *CREATED_ELSEWHERE) else "200")


def test_transitions_take_an_optional_empty_body(schema):
    seen = set()
    for path, method, operation in _operations(schema):
        _view, action = ROUTES[path, method]
        if action not in TRANSITIONS:
            continue
        seen.add(action)
        body = operation.get("requestBody")
        if body is not None:
            assert not body.get("required", False)
            empty = _component(schema, _body_schema(body))
            assert empty["properties"] == {} and empty["additionalProperties"] is False
    assert seen == TRANSITIONS
    execute = schema["paths"]["/v1/commitments/{id}/execute"]["post"]["responses"]
    assert "`cost_code_required`" in execute["422"]["description"]
    assert "`agent_cannot_approve`" in execute["403"]["description"]


def test_request_bodies_are_strict_and_never_take_computed_fields(schema):
    bodies = 0
    for path, method, operation in _operations(schema):
        if "requestBody" not in operation:
            continue
        bodies += 1
        _view, action = ROUTES[path, method]
        if action in UPLOADS:
            content = operation["requestBody"]["content"]
            assert set(content) == UPLOADS[action], path
            form = content["multipart/form-data"]["schema"]
            assert (form["required"], form["additionalProperties"]) == (["file"], False)
            continue
        request = _body_schema(operation["requestBody"])
        name = request["$ref"].rsplit("/", 1)[1]
        assert name.endswith("Request"), name
        union = _component(schema, request)
        for component in [_component(schema, v) for v in union.get("oneOf", [])] or [union]:
            assert component["additionalProperties"] is False
            assert not [p for p, s in component["properties"].items() if s.get("readOnly")]
            success = next(s for s in operation["responses"] if s.startswith("2"))
            output = _component(schema, _body_schema(operation["responses"][success]))
            computed = {p for p, s in output["properties"].items() if s.get("readOnly")}
            assert not set(component["properties"]) & computed, (path, method)
    assert bodies == sum(1 for _, m in ROUTES if m in ("post", "patch"))


def test_field_types_money_percent_enums_and_read_only(schema):
    components = schema["components"]["schemas"]
    serializers = {view.serializer_class for view, _ in ROUTES.values()}
    for serializer_class in serializers:
        component = components[serializer_class.__name__.removesuffix("Serializer")]
        for name, field in serializer_class().fields.items():
            prop = component["properties"][name]
            if name in serializer_class.expandable:
                ids = prop["items"] if prop.get("type") == "array" else prop
                assert ids["anyOf"][0]["type"] == "string"
                continue
            if isinstance(field, CentsField):
                assert (prop["type"], prop["format"]) == ("integer", "int64"), name
            if isinstance(field, PercentField):
                assert prop["type"] == "number", name
            assert bool(prop.get("readOnly")) == field.read_only, (component, name)
    project = components["Project"]["properties"]
    for name in ("revised_contract", "cost_to_date", "projected_cost", "billed_to_date"):
        assert (project[name]["type"], project[name]["format"]) == ("integer", "int64")
        assert project[name]["readOnly"] is True
    for name in ("earned_revenue", "over_under_billing"):
        assert project[name]["format"] == "int64" and project[name]["readOnly"] is True
    for name in ("percent_complete", "projected_margin_pct"):
        assert project[name]["type"] == "number" and project[name]["readOnly"] is True
    money_in = components["CommitmentCreateRequest"]["properties"]["original_amount"]
    # The money cap (docs/operations/limits.md), not the int64 range.
    assert (money_in["format"], money_in["minimum"], money_in["maximum"]) == ("int64", 0, 10**13)

    def enum_of(component, prop):
        ref = components[component]["properties"][prop]
        ref = ref.get("allOf", [ref])[0]
        return _component(schema, ref)["enum"]

    assert enum_of("Commitment", "status") == CommitmentStatus.values
    assert enum_of("Commitment", "type") == CommitmentType.values
    assert enum_of("CostCode", "cost_type") == CostType.values
    assert enum_of("Project", "status") == ProjectStatus.values
    assert enum_of("ProjectCreateRequest", "status") == ["bid", "active"]
    assert enum_of("WebhookEndpoint", "status") == EndpointStatus.values
    assert enum_of("WebhookDelivery", "status") == DeliveryStatus.values
    assert enum_of("Event", "type") == sorted(CATALOGUE)
    assert enum_of("Rfi", "status") == RfiStatus.values
    assert enum_of("AgentAction", "status") == AgentActionStatus.values
    assert enum_of("AgentAction", "action") == AgentActionKind.values
    actor = components["Actor"]["properties"]
    assert set(Role.values) < set(_component(schema, actor["role"]["allOf"][0])["enum"])


# --- exactly what the API accepts, in shapes SDK generators handle ---------------------------
def _walk_nodes(node, where=""):
    """(location, dict) for every schema object in a document part."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from _walk_nodes(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk_nodes(value, f"{where}/{i}")


def test_every_enum_is_named_once_in_components_and_referenced(schema):
    components = schema["components"]["schemas"]
    inline = [
        where
        for part in ("paths", "components")
        for where, node in _walk_nodes(schema[part], part)
        if "enum" in node
        and len([v for v in node["enum"] if v is not None]) > 1
        and not re.fullmatch(r"components/schemas/\w+", where)
    ]
    assert not inline, inline
    # Nowhere a `$ref` with siblings (generators and validators ignore them).
    assert not [w for w, n in _walk_nodes(schema) if "$ref" in n and len(n) > 1]
    # Each set of values once, but the expand paths of two objects are two enums even when
    # they coincide today (`["project", "project.owner"]`).
    named = [
        tuple(c["enum"])
        for n, c in components.items()
        if "enum" in c and not n.endswith("ExpandPath")
    ]
    assert len(named) == len(set(named)), sorted(named)
    commitments = _params(schema["paths"]["/v1/commitments"]["get"])
    assert commitments["status"]["schema"] == {"$ref": "#/components/schemas/CommitmentStatusEnum"}
    assert commitments["type"]["schema"] == {"$ref": "#/components/schemas/CommitmentTypeEnum"}
    events = _params(schema["paths"]["/v1/events"]["get"])
    assert events["type"]["schema"] == {"$ref": "#/components/schemas/EventTypeEnum"}
    headers = schema["components"]["headers"]
    assert headers["Jobcost-Version"]["schema"] == VERSION_REF


def test_request_schemas_declare_no_default(schema):
    """Generators read a request `default` as "always sent": the default is in the text."""
    for name, component in schema["components"]["schemas"].items():
        if name.endswith("Request"):
            for prop, node in component.get("properties", {}).items():
                assert "default" not in node, (name, prop)
    project = schema["components"]["schemas"]["ProjectCreateRequest"]["properties"]
    assert project["currency"]["description"].endswith('Default when omitted: `"usd"`.')
    cost_code = schema["components"]["schemas"]["CostCodeCreateRequest"]["properties"]
    assert "Default when omitted: `0`." in cost_code["budget_amount"]["description"]


def _request_component(schema, serializer) -> dict | None:
    name = serializer.__name__.removesuffix("Serializer") + "Request"
    components = schema["components"]["schemas"]
    return components.get(name) or components.get("Patched" + name)


def test_arrays_in_bodies_carry_their_bounds(schema):
    """Every list field of a request serializer states its bounds: `minItems` 1 where an
    empty list is refused (`allow_empty=False`) or its `min_length`, `maxItems` its
    `max_length`; nothing in the schema post-processing drops them."""
    checked = set()
    for serializer in _subclasses(InputSerializer):
        component = _request_component(schema, serializer)
        if component is None:
            continue
        for name, field in serializer().fields.items():
            if not isinstance(field, drf_serializers.ListField | drf_serializers.ListSerializer):
                continue
            prop = component["properties"][name]
            minimum = getattr(field, "min_length", None)
            if minimum is None and field.allow_empty is False:
                minimum = 1
            assert prop.get("minItems") == minimum, (serializer.__name__, name, prop)
            assert prop.get("maxItems") == getattr(field, "max_length", None), (name, prop)
            checked.add((serializer.__name__, name))
    assert {
        ("WebhookEndpointCreateSerializer", "events"),
        ("ChangeOrderCreateSerializer", "lines"),
        ("InvoiceUpdateSerializer", "lines"),
        ("PayAppUpdateSerializer", "lines"),
    } <= checked
    components = schema["components"]["schemas"]
    for name in ("WebhookEndpointCreateRequest", "ChangeOrderCreateRequest"):
        field = "events" if "Webhook" in name else "lines"
        assert components[name]["properties"][field]["minItems"] == 1


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_webhook_invoice_and_daily_log_inputs_are_exact(schema):
    components = schema["components"]["schemas"]
    for name in ("WebhookEndpointCreateRequest", "PatchedWebhookEndpointUpdateRequest"):
        props = components[name]["properties"]
        assert props["url"]["format"] == "uri"
        events = _component(schema, props["events"]["items"])["enum"]
        assert events == [*sorted(CATALOGUE), "*"]
    version = components["WebhookEndpointCreateRequest"]["properties"]["api_version"]
    assert version["allOf"] == [VERSION_REF]
    assert components["InvoiceCreateRequest"]["properties"]["amount"]["minimum"] == 1
    assert components["PatchedInvoiceUpdateRequest"]["properties"]["amount"]["minimum"] == 1
    logs = _params(schema["paths"]["/v1/daily-logs"]["get"])
    for name in ("date[gte]", "date[lte]"):
        assert logs[name]["schema"] == {"type": "string", "format": "date"}
        assert "YYYY-MM-DD" in logs[name]["description"], logs[name]


def _request_ref(schema, path: str, method: str) -> str:
    return _body_schema(schema["paths"][path][method]["requestBody"])["$ref"]


def test_agent_action_proposal_is_one_shape_per_action(schema):
    """`payload` is the real endpoint's request schema, chosen by the sibling `action`."""
    real = {
        "rfi.create": _request_ref(schema, "/v1/rfis", "post"),
        "change_order.create": _request_ref(schema, "/v1/change-orders", "post"),
        "daily_log.create": _request_ref(schema, "/v1/daily-logs", "post"),
        "invoice.code": _request_ref(schema, "/v1/invoices/{id}", "patch"),
        "budget.update": _request_ref(schema, "/v1/budgets/{id}", "patch"),
    }
    assert set(real) == set(AgentActionKind.values)
    proposal = _component(schema, _request_ref_dict(schema, "/v1/agents/actions"))
    mapping = proposal["discriminator"]["mapping"]
    assert proposal["discriminator"]["propertyName"] == "action"
    assert set(mapping) == set(real)
    assert [v["$ref"] for v in proposal["oneOf"]] == list(mapping.values())
    for action, ref in mapping.items():
        variant = _component(schema, {"$ref": ref})
        assert variant["properties"]["action"]["enum"] == [action]
        payload = variant["properties"]["payload"]
        refs = [node["$ref"] for _, node in _walk_nodes(payload) if "$ref" in node]
        assert refs == [real[action]], (action, payload)
        assert ("target" in variant["required"]) == (action in ("invoice.code", "budget.update"))


def _request_ref_dict(schema, path):
    return _body_schema(schema["paths"][path]["post"]["requestBody"])


def test_event_object_is_one_of_the_resources_by_object(schema):
    data = schema["components"]["schemas"]["EventData"]["properties"]["object"]
    assert data["discriminator"]["propertyName"] == "object"
    mapping = data["discriminator"]["mapping"]
    assert set(mapping) == set(event_resources())
    for object_name, ref in mapping.items():
        component = _component(schema, {"$ref": ref})
        assert component["properties"]["object"]["enum"] == [object_name]
    assert sorted(v["$ref"] for v in data["oneOf"]) == sorted(mapping.values())


def test_creates_link_to_the_operations_on_what_they_made(schema):
    created = schema["paths"]["/v1/change-orders"]["post"]["responses"]["201"]["links"]
    assert set(created) == {
        "change_orders_retrieve",
        "change_orders_update",
        "change_orders_audit",
        "change_orders_submit",
        "change_orders_approve",
        "change_orders_reject",
        "change_orders_void",
    }
    for link in created.values():
        assert link["parameters"] == {"path.id": "$response.body#/id"}
    ids = {op["operationId"] for _, _, op in _operations(schema)}
    for path, method, operation in _operations(schema):
        for link in operation["responses"].get("201", {}).get("links", {}).values():
            assert link["operationId"] in ids, (path, method, link)


def test_actor_and_error_object_are_one_component_each(schema):
    components = schema["components"]["schemas"]
    actor = {"$ref": "#/components/schemas/Actor"}
    assert components["AuditEntry"]["properties"]["actor"]["allOf"] == [actor]
    assert components["AgentAction"]["properties"]["proposed_by"]["allOf"] == [actor]
    assert components["AgentAction"]["properties"]["decided_by"]["allOf"] == [actor]
    assert "Error" not in components
    envelope = components["ErrorResponse"]
    assert envelope["properties"] == {"error": {"$ref": "#/components/schemas/ErrorObject"}}
    failure = components["AgentAction"]["properties"]["failure"]
    assert failure["allOf"] == [{"$ref": "#/components/schemas/ErrorObject"}]
    assert failure["nullable"] is True
    inline_actors = [
        where
        for where, node in _walk_nodes(components)
        if set(node.get("properties", {})) == {"type", "id", "role"}
    ]
    assert inline_actors == ["/Actor"]


# --- real responses match the schema ----------------------------------------------------------
def _jsonschema(node):
    """OpenAPI 3.0 schema objects → JSON Schema: `nullable` becomes a null type, and objects
    refuse properties they do not document."""
    if isinstance(node, list):
        return [_jsonschema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _jsonschema(value) for key, value in node.items()}
    if node.pop("nullable", False):
        if "type" in node:
            node["type"] = [node["type"], "null"]
        elif set(node) - {"description", "readOnly", "example"}:
            node = {"anyOf": [node, {"type": "null"}]}
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    return node


FORMATS = jsonschema.FormatChecker(formats=())
FORMATS.checks("date-time")(
    lambda v: not isinstance(v, str) or bool(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", v))
)
FORMATS.checks("email")(
    lambda v: not isinstance(v, str) or bool(re.fullmatch(r"[^@\s]+@[^@\s]+", v))
)


class Checker:
    """Validate a response against what the schema documents for its path, method and
    status: the body against the response schema, and the documented headers present."""

    def __init__(self, schema):
        self.schema = schema
        self.components = _jsonschema(copy.deepcopy(schema["components"]))
        self.checked: set[tuple[str, str, str]] = set()

    def __call__(self, response, path: str, method: str, status: int) -> dict:
        assert response.status_code == status, response.content
        documented = self.schema["paths"][path][method]["responses"]
        assert str(status) in documented, f"{status} not documented on {method} {path}"
        doc = documented[str(status)]
        body = json.loads(response.content, parse_float=Decimal)
        validator = jsonschema.Draft4Validator(
            {**_jsonschema(_body_schema(doc)), "components": self.components},
            format_checker=FORMATS,
        )
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(body)]
        assert not errors, (method, path, status, errors)
        missing = set(doc["headers"]) - CONDITIONAL_HEADERS - set(response.headers)
        assert not missing, (method, path, status, missing)
        self.checked.add((path, method, str(status)))
        return json.loads(response.content)


@pytest.fixture
def check(schema):
    return Checker(schema)


def test_owner_and_vendor_responses_match_the_schema(api, check):
    owner = check(api.post("/v1/owners", {"name": "City"}), "/v1/owners", "post", 201)
    oid = owner["id"]
    check(api.get(f"/v1/owners/{oid}"), "/v1/owners/{id}", "get", 200)
    check(api.get("/v1/owners", {"limit": 1}), "/v1/owners", "get", 200)
    check(api.patch(f"/v1/owners/{oid}", {"address": "1 Main"}), "/v1/owners/{id}", "patch", 200)
    trail = check(api.get(f"/v1/owners/{oid}/audit"), "/v1/owners/{id}/audit", "get", 200)
    assert [e["action"] for e in trail["data"]] == ["created", "updated"]
    vendor = check(
        api.post("/v1/vendors", {"name": "Acme", "tax_id_last4": "1234", "trade": "Steel"}),
        "/v1/vendors",
        "post",
        201,
    )
    vid = vendor["id"]
    check(api.get(f"/v1/vendors/{vid}"), "/v1/vendors/{id}", "get", 200)
    check(api.get("/v1/vendors", {"trade": "steel"}), "/v1/vendors", "get", 200)
    check(api.patch(f"/v1/vendors/{vid}", {"trade": "Iron"}), "/v1/vendors/{id}", "patch", 200)
    check(api.get(f"/v1/vendors/{vid}/audit"), "/v1/vendors/{id}/audit", "get", 200)


def test_project_responses_match_the_schema_expanded_or_not(api, account, check):
    owner = OwnerFactory(account=account)
    body = {
        "number": "J-77",
        "name": "Library",
        "owner": owner.pk,
        "contract_amount": 1_000_000_00,
        "retainage_pct": 7.5,
    }
    project = check(api.post("/v1/projects", body), "/v1/projects", "post", 201)
    assert project["retainage_pct"] == 7.5 and project["status"] == "bid"
    pid = project["id"]
    expanded = check(
        api.get(f"/v1/projects/{pid}", {"expand[]": "owner"}), "/v1/projects/{id}", "get", 200
    )
    assert expanded["owner"]["id"] == owner.pk
    listed = check(
        api.get("/v1/projects", {"expand[]": "data.owner", "status": "bid"}),
        "/v1/projects",
        "get",
        200,
    )
    assert [p["owner"]["object"] for p in listed["data"]] == ["owner"]
    check(api.patch(f"/v1/projects/{pid}", {"status": "active"}), "/v1/projects/{id}", "patch", 200)
    check(api.get(f"/v1/projects/{pid}/audit"), "/v1/projects/{id}/audit", "get", 200)
    refused = api.patch(f"/v1/projects/{pid}", {"status": "closed"})
    check(refused, "/v1/projects/{id}", "patch", 409)
    assert error_of(refused)["code"] == "invalid_state_transition"


def test_cost_code_and_budget_responses_match_the_schema(api, account, check):
    project = ProjectFactory(account=account)
    body = {
        "project": project.pk,
        "code": "03-300",
        "name": "Concrete",
        "cost_type": "subcontract",
        "scheduled_value": 50_000_00,
        "budget_amount": 40_000_00,
    }
    cost_code = check(api.post("/v1/cost-codes", body), "/v1/cost-codes", "post", 201)
    cid = cost_code["id"]
    expanded = check(
        api.get(f"/v1/cost-codes/{cid}", {"expand[]": ["budget_line", "project.owner"]}),
        "/v1/cost-codes/{id}",
        "get",
        200,
    )
    assert expanded["project"]["owner"]["object"] == "owner"
    check(api.get("/v1/cost-codes", {"project": project.pk}), "/v1/cost-codes", "get", 200)
    check(api.patch(f"/v1/cost-codes/{cid}", {"name": "CIP"}), "/v1/cost-codes/{id}", "patch", 200)
    check(api.get(f"/v1/cost-codes/{cid}/audit"), "/v1/cost-codes/{id}/audit", "get", 200)
    line_id = expanded["budget_line"]["id"]
    check(api.get(f"/v1/budgets/{line_id}"), "/v1/budgets/{id}", "get", 200)
    check(
        api.get("/v1/budgets", {"cost_code": cid, "expand[]": "data.cost_code"}),
        "/v1/budgets",
        "get",
        200,
    )
    line = check(
        api.patch(f"/v1/budgets/{line_id}", {"cost_to_complete": 12_000_00}),
        "/v1/budgets/{id}",
        "patch",
        200,
    )
    assert (line["cost_to_complete"], line["cost_to_complete_is_estimate"]) == (12_000_00, True)
    check(api.get(f"/v1/budgets/{line_id}/audit"), "/v1/budgets/{id}/audit", "get", 200)


def test_commitment_responses_match_the_schema_through_their_transitions(api, account, check):
    project = ProjectFactory(account=account)
    cost_code = CostCodeFactory(project=project)
    vendor = VendorFactory(account=account)
    body = {
        "project": project.pk,
        "vendor": vendor.pk,
        "type": "subcontract",
        "original_amount": 25_000_00,
        "cost_code": cost_code.pk,
        "retainage_pct": 5.25,
    }
    created = api.post("/v1/commitments", body, idem="oas-cmt")
    commitment = check(created, "/v1/commitments", "post", 201)
    replayed = api.post("/v1/commitments", body, idem="oas-cmt")
    check(replayed, "/v1/commitments", "post", 201)
    assert replayed["Idempotent-Replayed"] == "true"
    cid = commitment["id"]
    expanded = check(
        api.get(
            f"/v1/commitments/{cid}",
            {"expand[]": ["vendor", "cost_code.budget_line", "project.owner"]},
        ),
        "/v1/commitments/{id}",
        "get",
        200,
    )
    assert expanded["cost_code"]["budget_line"]["object"] == "budget_line"
    check(
        api.get("/v1/commitments", {"status": "draft", "expand[]": "data.vendor"}),
        "/v1/commitments",
        "get",
        200,
    )
    path = "/v1/commitments/{id}"
    check(api.patch(f"/v1/commitments/{cid}", {"original_amount": 26_000_00}), path, "patch", 200)
    executed = check(api.post(f"/v1/commitments/{cid}/execute"), path + "/execute", "post", 200)
    assert executed["status"] == "executed"
    check(api.post(f"/v1/commitments/{cid}/close", {}), path + "/close", "post", 200)
    refused = api.post(f"/v1/commitments/{cid}/void")
    check(refused, path + "/void", "post", 409)
    assert error_of(refused)["code"] == "invalid_state_transition"
    check(api.get(f"/v1/commitments/{cid}/audit"), path + "/audit", "get", 200)
    uncoded = check(
        api.post("/v1/commitments", {**body, "cost_code": None}), "/v1/commitments", "post", 201
    )
    no_code = api.post(f"/v1/commitments/{uncoded['id']}/execute")
    check(no_code, path + "/execute", "post", 422)
    assert error_of(no_code)["code"] == "cost_code_required"
    voided = check(api.post(f"/v1/commitments/{uncoded['id']}/void"), path + "/void", "post", 200)
    assert voided["status"] == "void"


def test_webhook_and_event_responses_match_the_schema(api, account, make_api, check):
    created = check(
        api.post("/v1/webhooks", {"url": PUBLIC_URL, "events": ["*"]}), "/v1/webhooks", "post", 201
    )
    we = created["id"]
    path = "/v1/webhooks/{id}"
    check(api.get("/v1/webhooks", {"status": "enabled"}), "/v1/webhooks", "get", 200)
    check(api.get(f"/v1/webhooks/{we}"), path, "get", 200)
    check(api.patch(f"/v1/webhooks/{we}", {"description": "Sync"}), path, "patch", 200)
    check(api.post(f"/v1/webhooks/{we}/rotate-secret"), path + "/rotate-secret", "post", 200)
    check(api.get(f"/v1/webhooks/{we}/audit"), path + "/audit", "get", 200)
    project = ProjectFactory(account=account)  # a project.created event, owed to the endpoint
    delivery = WebhookDelivery.objects.get(endpoint_id=we)
    # Sent to an address that became private: one attempt, refused before any request.
    WebhookEndpoint.objects.filter(pk=we).update(url="https://10.0.0.5/hooks")
    attempt(delivery.pk)
    listed = check(api.get(f"/v1/webhooks/{we}/deliveries"), path + "/deliveries", "get", 200)
    assert listed["data"][0]["attempt_log"][0]["response_status"] is None
    retry = f"/v1/webhooks/{we}/deliveries/{delivery.pk}/retry"
    retry_path = path + "/deliveries/{delivery_id}/retry"
    refused = api.post(retry)
    check(refused, retry_path, "post", 409)
    assert error_of(refused)["code"] == "invalid_state_transition"
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status="failed")
    check(api.post(retry), retry_path, "post", 200)
    check(api.post(f"/v1/webhooks/{we}/deliveries/wd_nope/retry"), retry_path, "post", 404)
    events = check(api.get("/v1/events", {"project": project.pk}), "/v1/events", "get", 200)
    event = check(api.get(f"/v1/events/{events['data'][0]['id']}"), "/v1/events/{id}", "get", 200)
    assert event["request"] is None and event["data"]["previous_attributes"] is None
    updated = api.patch(f"/v1/projects/{project.pk}", {"name": "Renamed"})
    [change] = api.get("/v1/events", {"type": "project.updated"}).json()["data"]
    assert change["request"]["id"] == updated["Request-Id"]
    check(api.get(f"/v1/events/{change['id']}"), "/v1/events/{id}", "get", 200)
    forbidden = make_api(account, "manager").get(f"/v1/webhooks/{we}/deliveries")
    check(forbidden, path + "/deliveries", "get", 403)
    check(make_api(account, "manager").delete(f"/v1/webhooks/{we}"), path, "delete", 403)
    deleted = check(api.delete(f"/v1/webhooks/{we}"), path, "delete", 200)
    assert deleted == {"id": we, "object": "webhook_endpoint", "deleted": True}


def test_error_responses_match_the_schema_and_their_documented_status(
    api, account, make_api, check
):
    anonymous = Client()
    check(anonymous.get("/v1/projects"), "/v1/projects", "get", 401)
    viewer = make_api(account, "viewer")
    forbidden = viewer.post("/v1/owners", {"name": "No"})
    check(forbidden, "/v1/owners", "post", 403)
    agent = make_api(account, "agent")
    commitment = api.post(
        "/v1/commitments",
        {
            "project": ProjectFactory(account=account).pk,
            "vendor": VendorFactory(account=account).pk,
            "type": "purchase_order",
            "original_amount": 1,
        },
    ).json()
    refused = agent.post(f"/v1/commitments/{commitment['id']}/execute")
    check(refused, "/v1/commitments/{id}/execute", "post", 403)
    assert error_of(refused)["code"] == "agent_cannot_approve"
    check(api.get("/v1/vendors/vnd_nope"), "/v1/vendors/{id}", "get", 404)
    check(api.get("/v1/vendors", {"colour": "red"}), "/v1/vendors", "get", 400)
    check(api.post("/v1/owners", {"name": "X"}, idem=None), "/v1/owners", "post", 400)
    check(api.post("/v1/owners", "name=x", content_type="text/plain"), "/v1/owners", "post", 415)
    check(
        api.post(
            "/v1/projects", {"number": "1", "name": "P", "owner": "own_x", "contract_amount": 1}
        ),
        "/v1/projects",
        "post",
        404,
    )


# --- error codes in the schema are explained --------------------------------------------------
def test_every_code_the_schema_names_is_in_the_error_reference(schema):
    reference = (settings.BASE_DIR / "docs" / "errors.md").read_text()
    named = set()
    for _path, _method, operation in _operations(schema):
        for response in operation["responses"].values():
            named |= set(re.findall(r"`([a-z_]+)`", response["description"]))
    assert "resource_missing" in named
    assert not {code for code in named if f"`{code}`" not in reference}


# --- /docs ------------------------------------------------------------------------------------
class _Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in ("src", "href") and value]


def test_docs_serve_swagger_ui_from_local_static_files_without_a_key(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert '"/v1/openapi.json"' in html
    parser = _Assets()
    parser.feed(html)
    static = "/" + settings.STATIC_URL.strip("/") + "/"
    assert any(u.endswith("swagger-ui-bundle.js") for u in parser.urls)
    assert any(u.endswith("swagger-ui.css") for u in parser.urls)
    for url in parser.urls:
        assert url.startswith(static + "drf_spectacular_sidecar/"), url
        assert finders.find(url.removeprefix(static)), f"{url} is not a local static file"
    assert "cdn.jsdelivr" not in html and "unpkg.com" not in html


def test_rfi_daily_log_and_agent_action_responses_match_the_schema(make_api, account, check):
    job = make_job(account)
    api = make_api(account, "manager")
    agent = make_api(account, "agent")
    project, code = job.project.pk, job.codes["03-000"].pk
    rfi = check(
        api.post("/v1/rfis", {"project": project, "subject": "Footing", "question": "Depth?"}),
        "/v1/rfis",
        "post",
        201,
    )
    change_order = {
        "project": project,
        "kind": "owner",
        "title": "Deeper footings",
        "rfi": rfi["id"],
        "amount": 5_000_00,
        "lines": [{"cost_code": code, "amount": 5_000_00}],
    }
    co = check(api.post("/v1/change-orders", change_order), "/v1/change-orders", "post", 201)
    assert co["rfi"] == rfi["id"]
    path = f"/v1/rfis/{rfi['id']}"
    answered = check(api.patch(path, {"answer": "1.2 m"}), "/v1/rfis/{id}", "patch", 200)
    assert answered["status"] == "answered"
    expanded = check(api.get(path, {"expand[]": "change_orders"}), "/v1/rfis/{id}", "get", 200)
    assert [c["id"] for c in expanded["change_orders"]] == [co["id"]]
    check(
        api.get(f"/v1/change-orders/{co['id']}", {"expand[]": "rfi"}),
        "/v1/change-orders/{id}",
        "get",
        200,
    )
    check(api.get("/v1/rfis", {"expand[]": "data.change_orders"}), "/v1/rfis", "get", 200)
    check(api.post(f"{path}/close", {}), "/v1/rfis/{id}/close", "post", 200)
    check(api.get(f"{path}/audit"), "/v1/rfis/{id}/audit", "get", 200)

    log_body = {
        "project": project,
        "date": "2026-11-02",
        "weather": "Rain, 48°F",
        "manpower": [{"trade": "Concrete", "vendor": job.vendor.pk, "headcount": 4, "hours": 30.5}],
    }
    log = check(api.post("/v1/daily-logs", log_body), "/v1/daily-logs", "post", 201)
    assert log["total_hours"] == 30.5
    log_path = f"/v1/daily-logs/{log['id']}"
    check(api.patch(log_path, {"delays": "Rain"}), "/v1/daily-logs/{id}", "patch", 200)
    check(api.get(log_path), "/v1/daily-logs/{id}", "get", 200)
    check(api.get("/v1/daily-logs", {"date[gte]": "2026-11-01"}), "/v1/daily-logs", "get", 200)
    duplicate = api.post("/v1/daily-logs", log_body)
    check(duplicate, "/v1/daily-logs", "post", 409)

    proposal = {
        "action": "rfi.create",
        "payload": {"project": project, "subject": "Rebar", "question": "Lap length?"},
        "rationale": "Drawings disagree.",
    }
    action = check(agent.post("/v1/agents/actions", proposal), "/v1/agents/actions", "post", 201)
    assert action["target"] is None and action["proposed_by"]["role"] == "agent"
    action_path = f"/v1/agents/actions/{action['id']}"
    approved = check(
        api.post(f"{action_path}/approve", {}), "/v1/agents/actions/{id}/approve", "post", 200
    )
    assert approved["status"] == "approved" and approved["result"].startswith("rfi_")
    mismatched = {**change_order, "amount": 1_00, "rfi": None}
    failing = agent.post(
        "/v1/agents/actions", {"action": "change_order.create", "payload": mismatched}
    )
    failed = check(
        api.post(f"/v1/agents/actions/{failing.json()['id']}/approve", {}),
        "/v1/agents/actions/{id}/approve",
        "post",
        200,
    )
    assert failed["status"] == "failed"
    assert (failed["failure"]["code"], failed["failure"]["param"]) == (
        "lines_sum_mismatch",
        "payload.lines",
    )
    second = agent.post("/v1/agents/actions", proposal).json()
    rejected = check(
        api.post(f"/v1/agents/actions/{second['id']}/reject", {"reason": "Duplicate"}),
        "/v1/agents/actions/{id}/reject",
        "post",
        200,
    )
    assert rejected["rejection_reason"] == "Duplicate"
    check(api.get(action_path), "/v1/agents/actions/{id}", "get", 200)
    check(api.get("/v1/agents/actions", {"status": "approved"}), "/v1/agents/actions", "get", 200)
    check(api.get(f"{action_path}/audit"), "/v1/agents/actions/{id}/audit", "get", 200)
    refused = agent.post(f"{action_path}/approve", {})
    check(refused, "/v1/agents/actions/{id}/approve", "post", 403)
    assert error_of(refused)["code"] == "agent_cannot_approve"


def test_a_string_that_must_not_be_blank_is_as_python_trims_it(schema, api, account):
    """A request string DRF trims and refuses blank carries a pattern that a value matches
    exactly when Python's `str.strip()` leaves something of it — every code point checked —
    and the API answers as the schema says: U+001F alone (whitespace to Python, not to the
    schema dialect's `\\s`) is 400 and schema-invalid; U+FEFF alone (the reverse) is stored
    and schema-valid."""
    trade = schema["components"]["schemas"]["ManpowerInputRequest"]["properties"]["trade"]
    pattern = re.compile(trade["pattern"])
    assert [
        code
        for code in range(0x110000)
        if (pattern.search(chr(code)) is None) != chr(code).isspace()
    ] == []
    project = ProjectFactory(account=account)
    for day, value, status in (("2026-11-02", "\x1f", 400), ("2026-11-03", "\ufeff", 201)):
        row = {"trade": value, "headcount": 1, "hours": 8}
        body = {"project": project.pk, "date": day, "manpower": [row]}
        response = api.post("/v1/daily-logs", body)
        assert response.status_code == status, response.content
        assert (pattern.search(value) is not None) == (status == 201)
        if status == 400:
            assert error_of(response)["param"] == "manpower[0].trade"
        else:
            assert response.json()["manpower"][0]["trade"] == "\ufeff"
