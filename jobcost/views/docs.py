"""Shared `extend_schema` decorators for the viewsets.

Each helper documents one kind of operation: its summary, request and response shapes and
its `expand[]` parameter (the exact paths the serializer accepts; on lists they start with
`data.`). `errors={409: (ProjectErrorCode.PROJECT_CLOSED,), 422:
(CommitmentErrorCode.COST_CODE_REQUIRED,)}` declares the codes (members of the domains' enums,
`jobcost.error_codes`) the operation's service raises beyond the ones the request pipeline adds
for every operation of its kind (`jobcost.api.schema.JobcostAutoSchema`); docs/errors.md
explains them.
"""

from __future__ import annotations

from enum import StrEnum

from drf_spectacular.utils import OpenApiParameter, extend_schema

from jobcost.api.schema import ENUM_NAME_KEY, ERROR_CODES_KEY, expandable_paths

Errors = dict[int, tuple[StrEnum, ...]] | None


def expand_parameter(serializer, *, is_list: bool) -> list[OpenApiParameter]:
    """`expand[]`, repeatable, with the paths `serializer` can expand (two levels at most), as
    a one-item list; an empty list when nothing is expandable (any value is then 400
    `expand_invalid`, so the schema offers none). The enum of paths becomes one named
    component per serializer (`ProjectExpandPath`, `ProjectListExpandPath`)."""
    paths = expandable_paths(serializer)
    if not paths:
        return []
    prefix = "data." if is_list else ""
    name = serializer.__name__.removesuffix("Serializer")
    items = {
        "type": "string",
        "enum": [prefix + path for path in paths],
        ENUM_NAME_KEY: f"{name}{'List' if is_list else ''}ExpandPath",
    }
    text = (
        "Expand an ID field into its object; repeatable; two levels at most. Other "
        "paths are 400 `expand_invalid`, deeper ones `expand_too_deep`."
    )
    if is_list:
        text += " On a list every path starts with `data.`."
    return [
        OpenApiParameter(
            "expand[]",
            {"type": "array", "items": items},
            OpenApiParameter.QUERY,
            description=text,
            style="form",
            explode=True,
        )
    ]


def _extensions(errors: Errors) -> dict:
    return (
        {ERROR_CODES_KEY: {str(status): codes for status, codes in errors.items()}}
        if errors
        else {}
    )


def list_doc(serializer, summary: str, description: str = ""):
    """A list: the list object of `serializer`, limit/cursor, filters and `expand[]`."""
    return extend_schema(
        summary=summary,
        description=description,
        responses={200: serializer(many=True)},
        parameters=expand_parameter(serializer, is_list=True),
    )


def retrieve_doc(serializer, summary: str, description: str = ""):
    """A retrieve: one object, `expand[]`."""
    return extend_schema(
        summary=summary,
        description=description,
        responses={200: serializer},
        parameters=expand_parameter(serializer, is_list=False),
    )


def create_doc(request, serializer, summary: str, description: str = "", errors: Errors = None):
    """A create: `request` body in, 201 with the object out."""
    return extend_schema(
        summary=summary,
        description=description,
        request=request,
        responses={201: serializer},
        parameters=expand_parameter(serializer, is_list=False),
        extensions=_extensions(errors),
    )


def update_doc(request, serializer, summary: str, description: str = "", errors: Errors = None):
    """A PATCH: partial `request` body in, the object out."""
    return extend_schema(
        summary=summary,
        description=description,
        request=request,
        responses={200: serializer},
        parameters=expand_parameter(serializer, is_list=False),
        extensions=_extensions(errors),
    )


def action_doc(
    serializer, summary: str, request=None, description: str = "", errors: Errors = None
):
    """A transition (`POST …/{id}/execute`): an optional empty body, the object out."""
    return extend_schema(
        summary=summary,
        description=description,
        request=request,
        responses={200: serializer},
        parameters=expand_parameter(serializer, is_list=False),
        filters=False,
        extensions=_extensions(errors),
    )
