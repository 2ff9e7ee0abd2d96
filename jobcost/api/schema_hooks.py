"""The last pass over the generated OpenAPI document (SPECTACULAR_SETTINGS
["POSTPROCESSING_HOOKS"]): what the API accepts, said exactly, in a shape SDK generators turn
into clean code (docs/openapi.md, "OpenAPI schema and SDKs").

- `info.version` is a valid package version (PEP 440, e.g. `2026.11.20rc0`); the dated API
  version is `info.x-jobcost-version` and the `JobcostVersion` enum.
- Every enum is named once in `components` and referenced: a filter's enum is the model's
  enum component with the same values; an `expand[]` enum is one component per serializer.
- A `$ref` never has siblings (they would be ignored): `allOf: [$ref]` carries them.
- An agent-action proposal is one of five shapes, told apart by `action`, each carrying the
  real endpoint's request schema as `payload`.
- An invoice's `amount` is at least 1 cent. (The webhook fields and the event's
  `data.object` are `webhooks.schema_hooks`.)
- Each create links to the operations on the object it made (`links` of its 201).
"""

from __future__ import annotations

import copy

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from jobcost.api.schema import ENUM_NAME_KEY
from jobcost.services.agent_actions import KINDS

SCHEMAS = "#/components/schemas/"
# Enum names for query filters whose values match no model enum component.
FILTER_ENUM_NAMES = {"kind": "ChangeOrderKindEnum", "type": "TypeEnum"}


def package_version(api_version: str) -> str:
    """`2026-11-20-preview` → `2026.11.20rc0`, `2026-11-20` → `2026.11.20`: the dated API
    version as a PEP 440 version, which generated packages need."""
    date, preview, _ = api_version.partition("-preview")
    release = ".".join(str(int(part)) for part in date.split("-"))
    return release + ("rc0" if preview else "")


def postprocess_schema_exact(result, generator, **kwargs):
    """The first passes: the version, exact money bounds. Returns a changed copy of the
    document (its components include SPECTACULAR_SETTINGS["APPEND_COMPONENTS"] themselves,
    which must stay as they are for the next generation); the later hooks change that copy."""
    result = copy.deepcopy(result)
    schemas = result["components"]["schemas"]
    dated = settings.JOBCOST_API_VERSIONS[-1]
    result["info"]["version"] = package_version(dated)
    result["info"]["x-jobcost-version"] = dated
    schemas["JobcostVersion"] = {
        "type": "string",
        "enum": list(settings.JOBCOST_API_VERSIONS),
        "description": "A dated API version (the `Jobcost-Version` header).",
    }
    for name in ("InvoiceCreateRequest", "PatchedInvoiceUpdateRequest"):
        schemas[name]["properties"]["amount"]["minimum"] = 1  # 0 is 400 parameter_invalid
    return result


def postprocess_schema_shapes(result, generator, **kwargs):
    """The passes that follow every app's own fields (the webhooks' come between, from
    `webhooks.schema_hooks`): agent-action proposals, enums named once, `$ref`s without
    siblings, links from creates."""
    schemas = result["components"]["schemas"]
    _agent_action_proposal(schemas)
    _hoist_enums(result)
    _wrap_refs(result)
    _links(result)
    return result


def _links(result: dict) -> None:
    """OpenAPI links from each create (201) to every operation on the new object's `{id}`,
    so that clients and stateful testers (schemathesis) can follow a create with a read,
    an update or a transition of that object."""
    paths = result["paths"]
    for path, item in paths.items():
        created = item.get("post", {}).get("responses", {}).get("201")
        if "{" in path or created is None:
            continue
        links = {}
        for target, target_item in paths.items():
            if not target.startswith(path + "/{id}") or target.count("{") != 1:
                continue
            for operation in target_item.values():
                if isinstance(operation, dict) and "operationId" in operation:
                    links[operation["operationId"]] = {
                        "operationId": operation["operationId"],
                        "parameters": {"path.id": "$response.body#/id"},
                    }
        if links:
            created["links"] = dict(sorted(links.items()))


def _ref(name: str) -> dict:
    return {"$ref": SCHEMAS + name}


def _agent_action_proposal(schemas: dict) -> None:
    """`AgentActionCreateRequest` as one shape per `action`: its `payload` is the request
    schema of the endpoint the action stands for."""
    base = schemas["AgentActionCreateRequest"]
    mapping = {}
    for action, kind in sorted(KINDS.items()):
        serializer = import_string(kind.serializer).__name__.removesuffix("Serializer")
        payload = ("Patched" if "Update" in serializer else "") + serializer + "Request"
        assert payload in schemas, payload
        name = "AgentAction" + "".join(p.title() for p in action.replace(".", "_").split("_"))
        variant = copy.deepcopy(base)
        props = variant["properties"]
        props["action"] = {"type": "string", "enum": [action]}
        payload_schema = _ref(payload)
        if kind.requires:
            payload_schema = {"allOf": [payload_schema, {"required": list(kind.requires)}]}
        props["payload"] = {
            **payload_schema,
            "description": "The body the real endpoint takes (see `action`).",
        }
        if kind.target_model is not None:
            props["target"] = {
                "type": "string",
                "maxLength": 40,
                "pattern": f"^{kind.target_prefix}_",
                "description": f"The ID (`{kind.target_prefix}_…`) of the object to change.",
            }
            variant["required"] = sorted({*variant["required"], "target"})
        else:
            props.pop("target")
        schemas[name + "Request"] = variant
        mapping[action] = SCHEMAS + name + "Request"
    schemas["AgentActionCreateRequest"] = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "action", "mapping": mapping},
        "description": base["description"],
    }


# --- enums --------------------------------------------------------------------------------------
def _enum_key(node: dict) -> tuple:
    return tuple(value for value in node["enum"] if value is not None)


def _hoist_enums(result: dict) -> None:
    """Replace every inline enum of two values or more by a `$ref` to the component with the
    same values (or a new one, named by ENUM_NAME_KEY or after its parameter)."""
    schemas = result["components"]["schemas"]
    by_values = {
        _enum_key(schema): name
        for name, schema in schemas.items()
        if "enum" in schema and "properties" not in schema
    }

    def component_for(node: dict, fallback: str) -> str:
        key = _enum_key(node)
        name = node.pop(ENUM_NAME_KEY, None)
        if name is None and key in by_values:
            return by_values[key]
        name = name or fallback
        existing = schemas.get(name)
        if existing is not None and tuple(existing.get("enum", ())) != key:
            # Two enums under one name would make one of them lie: name it (ENUM_NAME_KEY).
            raise ImproperlyConfigured(
                f"Enum component {name} already holds {existing.get('enum')}; "
                f"another enum {list(key)} needs a name of its own"
            )
        schemas.setdefault(name, {"type": node.get("type", "string"), "enum": list(key)})
        by_values.setdefault(key, name)
        return name

    def hoist(node: dict, fallback: str) -> dict:
        if len(_enum_key(node)) < 2 and ENUM_NAME_KEY not in node:
            return node  # a constant, such as `object: "project"`
        ref = _ref(component_for(node, fallback))
        rest = {k: v for k, v in node.items() if k not in ("enum", "type", ENUM_NAME_KEY)}
        return {"allOf": [ref], **rest} if rest else ref

    for item in result["paths"].values():
        for operation in item.values():
            for param in operation.get("parameters", []):
                schema = param.get("schema", {})
                name = param["name"]
                fallback = FILTER_ENUM_NAMES.get(name, name.title() + "Enum")
                if "enum" in schema:
                    param["schema"] = hoist(schema, fallback)
                elif "enum" in schema.get("items", {}):
                    schema["items"] = hoist(schema["items"], fallback)

    def walk(node, owner: str, prop: str = "") -> None:
        if isinstance(node, list):
            for child in node:
                walk(child, owner, prop)
            return
        if not isinstance(node, dict):
            return
        for key, value in list(node.items()):
            if key == "properties":
                for name, sub in list(value.items()):
                    if isinstance(sub, dict) and "enum" in sub:
                        value[name] = hoist(sub, f"{owner}{name.title().replace('_', '')}Enum")
                    else:
                        walk(sub, owner, name)
            elif key == "items" and isinstance(value, dict) and "enum" in value:
                node[key] = hoist(value, f"{owner}{prop.title().replace('_', '')}Enum")
            else:
                walk(value, owner, prop)

    for name in list(schemas):
        walk(schemas[name], name)


def _wrap_refs(node) -> None:
    """`{"$ref": X, "nullable": true, …}` → `{"allOf": [{"$ref": X}], "nullable": true, …}`."""
    if isinstance(node, list):
        for child in node:
            _wrap_refs(child)
    elif isinstance(node, dict):
        for key, value in list(node.items()):
            if isinstance(value, dict) and "$ref" in value and len(value) > 1:
                rest = {k: v for k, v in value.items() if k != "$ref"}
                node[key] = {"allOf": [{"$ref": value["$ref"]}], **rest}
            _wrap_refs(node[key])
