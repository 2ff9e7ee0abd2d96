"""`expand[]` (docs/conventions.md): replace ID fields with the objects, up to two levels deep.

A serializer declares `expandable = {"field": "path.to.Serializer"}` (the field holds one ID
or a list of IDs); the target serializer
names a `selector(scope)` giving the visible queryset. Each path level costs one query for
the whole page, however many rows it has; objects the key cannot see stay as IDs.
"""

from __future__ import annotations

from django.utils.module_loading import import_string

from jobcost.api.output import render_many
from jobcost.error_codes import RequestErrorCode
from jobcost.errors import InvalidRequest
from jobcost.selectors.fetch import fetch

MAX_DEPTH = 2


def _target(serializer_class, field: str):
    spec = getattr(serializer_class, "expandable", {}).get(field)
    return import_string(spec) if isinstance(spec, str) else spec


def parse_expand(params, serializer_class, *, is_list: bool) -> list[list[str]]:
    """Validate `expand[]` values against the serializers: 400 `expand_too_deep` beyond two
    levels, 400 `expand_invalid` for a field that is not an expandable ID."""
    paths = []
    for raw in params.getlist("expand[]"):
        parts = raw.split(".") if raw else [""]
        if is_list:
            if parts[0] != "data" or len(parts) < 2:
                raise InvalidRequest(
                    f"On a list, expand paths start with 'data.'; got '{raw}'.",
                    code=RequestErrorCode.EXPAND_INVALID,
                    param="expand[]",
                )
            parts = parts[1:]
        if len(parts) > MAX_DEPTH:
            raise InvalidRequest(
                f"'{raw}' is {len(parts)} levels deep; expansion goes {MAX_DEPTH} levels at most.",
                code=RequestErrorCode.EXPAND_TOO_DEEP,
                param="expand[]",
            )
        current = serializer_class
        for part in parts:
            target = _target(current, part)
            if target is None:
                raise InvalidRequest(
                    f"'{raw}' cannot be expanded: '{part}' is not an expandable ID field.",
                    code=RequestErrorCode.EXPAND_INVALID,
                    param="expand[]",
                )
            current = target
        paths.append(parts)
    return paths


def _ids(value) -> list[str]:
    """The IDs an ID field holds: one, or a list of them (an RFI's `change_orders`)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [pk for pk in value if isinstance(pk, str)]
    return []


def expand(items: list[dict], paths: list[list[str]], serializer_class, view) -> None:
    """Expand `paths` in place on serialized `items` (dicts from `serializer_class`)."""
    grouped: dict[str, list[list[str]]] = {}
    for path in paths:
        grouped.setdefault(path[0], [])
        if len(path) > 1:
            grouped[path[0]].append(path[1:])
    for field, rest in grouped.items():
        target = _target(serializer_class, field)
        ids = {pk for item in items for pk in _ids(item.get(field))}
        if not ids:
            continue
        queryset = target.selector(view.scope).filter(pk__in=ids)
        objects = fetch(queryset)
        context = {"view": view, "request": view.request}
        rendered = {
            obj.pk: data
            for obj, data in zip(objects, render_many(target, objects, context), strict=True)
        }
        if rest:
            expand(list(rendered.values()), rest, target, view)
        for item in items:
            value = item.get(field)
            if isinstance(value, list):
                item[field] = [rendered.get(pk, pk) for pk in value]
            elif isinstance(value, str) and value in rendered:
                item[field] = rendered[value]
