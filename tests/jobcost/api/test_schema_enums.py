"""The schema's enum components: two different enums never share one name (the report
`format` parameter once became the pay app's `FormatEnum` silently)."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from jobcost.api.schema_hooks import _hoist_enums


def _document(parameter_enum: list[str]) -> dict:
    return {
        "paths": {
            "/v1/things": {
                "get": {
                    "parameters": [
                        {"name": "format", "schema": {"type": "string", "enum": parameter_enum}}
                    ]
                }
            }
        },
        "components": {"schemas": {"FormatEnum": {"type": "string", "enum": ["a", "b"]}}},
    }


def test_an_enum_with_the_same_values_reuses_the_component():
    document = _document(["a", "b"])
    _hoist_enums(document)
    schema = document["paths"]["/v1/things"]["get"]["parameters"][0]["schema"]
    assert schema == {"$ref": "#/components/schemas/FormatEnum"}


def test_another_enum_under_a_taken_name_is_refused():
    with pytest.raises(ImproperlyConfigured, match="FormatEnum"):
        _hoist_enums(_document(["json", "csv"]))
