"""Shared schema decorators for the viewsets."""

from drf_spectacular.utils import OpenApiParameter, extend_schema

EXPAND_ONE = OpenApiParameter(
    "expand[]",
    str,
    many=True,
    description="Expand an ID field into its object; repeatable; two levels at most "
    "(e.g. `vendor`, `commitment.vendor`).",
)
EXPAND_LIST = OpenApiParameter(
    "expand[]",
    str,
    many=True,
    description="Expand an ID field of every object; paths start with `data.` "
    "(e.g. `data.vendor`); two levels at most below `data`.",
)


def list_doc(serializer, summary: str):
    return extend_schema(
        summary=summary, responses={200: serializer(many=True)}, parameters=[EXPAND_LIST]
    )


def retrieve_doc(serializer, summary: str):
    return extend_schema(summary=summary, responses={200: serializer}, parameters=[EXPAND_ONE])


def create_doc(request, serializer, summary: str):
    return extend_schema(
        summary=summary, request=request, responses={201: serializer}, parameters=[EXPAND_ONE]
    )


def update_doc(request, serializer, summary: str):
    return extend_schema(
        summary=summary, request=request, responses={200: serializer}, parameters=[EXPAND_ONE]
    )


def action_doc(serializer, summary: str, request=None, description: str = ""):
    return extend_schema(
        summary=summary,
        description=description,
        request=request,
        responses={200: serializer},
        parameters=[EXPAND_ONE],
        filters=False,
    )
