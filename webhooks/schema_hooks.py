"""The webhooks' pass over the generated OpenAPI document (SPECTACULAR_SETTINGS
["POSTPROCESSING_HOOKS"], between `jobcost.api.schema_hooks.postprocess_schema_exact` and
`postprocess_schema_shapes`; docs/openapi.md, "OpenAPI schema and SDKs"):

- Webhook `events` items are the catalogue plus `*`, `url` is a URI, `api_version` the enum.
- An event's `data.object` is one of the resource schemas, told apart by `object`.
"""

from __future__ import annotations

from webhooks.catalogue import CATALOGUE, event_resources

SCHEMAS = "#/components/schemas/"


def postprocess_webhook_schema(result, generator, **kwargs):
    """Both passes above, on the copy the first hook made."""
    schemas = result["components"]["schemas"]
    _webhook_fields(schemas)
    _event_object(schemas)
    return result


def _ref(name: str) -> dict:
    return {"$ref": SCHEMAS + name}


def _webhook_fields(schemas: dict) -> None:
    schemas["WebhookEventSelectorEnum"] = {
        "type": "string",
        "enum": [*sorted(CATALOGUE), "*"],
        "description": "An event type of the catalogue, or `*` for every type.",
    }
    for name in ("WebhookEndpointCreateRequest", "PatchedWebhookEndpointUpdateRequest"):
        props = schemas[name]["properties"]
        props["url"]["format"] = "uri"
        props["events"]["items"] = _ref("WebhookEventSelectorEnum")
        if "api_version" in props:
            props["api_version"] = {
                "allOf": [_ref("JobcostVersion")],
                "description": "The version events are rendered in; the key's when omitted.",
            }


def _event_object(schemas: dict) -> None:
    """`data.object`: the resource, discriminated by its `object` field."""
    mapping = {
        object_name: SCHEMAS + resource.serializer_class.__name__.removesuffix("Serializer")
        for object_name, resource in sorted(event_resources().items())
    }
    data = schemas["EventData"]["properties"]
    data["object"] = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "object", "mapping": mapping},
        "description": "The object as a GET returned it after the change.",
    }
