"""Keyset pagination with opaque, signed `cur_` cursors (docs/conventions.md).

Lists are ordered by (created_at, id), newest first (audit trails oldest first). A cursor
holds the last row's key and the list path, signed with SECRET_KEY, so a tampered cursor or
one from another list is 400 `cursor_invalid`. Because the next page starts strictly after
the last key seen, rows inserted meanwhile never make a page repeat or skip an older row.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from django.conf import settings
from django.db.models import Q, QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from jobcost.error_codes import RequestErrorCode
from jobcost.errors import InvalidRequest

DEFAULT_LIMIT = 25
MAX_LIMIT = 100


def parse_limit(raw: str | None) -> int:
    """`limit` 1–100 (default 25); anything else is 400 `parameter_invalid`, param `limit`."""
    if raw is None:
        return DEFAULT_LIMIT
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_LIMIT:
        raise InvalidRequest(
            f"limit must be an integer from 1 to {MAX_LIMIT}; got '{raw}'.", param="limit"
        )
    return int(raw)


def _sign(payload: bytes) -> bytes:
    return hmac.new(settings.SECRET_KEY.encode(), payload, hashlib.sha256).digest()[:16]


def encode_cursor(values: list, scope: str) -> str:
    """`cur_` + urlsafe base64 of the JSON [values, scope] and its 128-bit HMAC."""
    payload = json.dumps([[str(v) for v in values], scope], separators=(",", ":")).encode()
    token = base64.urlsafe_b64encode(payload + _sign(payload)).decode().rstrip("=")
    return "cur_" + token


def decode_cursor(cursor: str, scope: str, width: int) -> list[str]:
    """The key values a cursor points after; 400 `cursor_invalid` when it was altered, is
    malformed, or belongs to another list."""
    invalid = InvalidRequest(
        "The cursor is invalid: pass back the next_cursor of this list unchanged.",
        code=RequestErrorCode.CURSOR_INVALID,
        param="cursor",
    )
    if not cursor.startswith("cur_"):
        raise invalid
    try:
        token = cursor[4:]
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        payload, signature = raw[:-16], raw[-16:]
        if not hmac.compare_digest(signature, _sign(payload)):
            raise invalid
        values, cursor_scope = json.loads(payload)
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise invalid from exc
    if cursor_scope != scope or not isinstance(values, list) or len(values) != width:
        raise invalid
    return values


def after(keys: tuple[str, ...], values: list[str], ascending: bool) -> Q:
    """Rows strictly after `values` in (keys…) order: (a > x) or (a = x and b > y)…"""
    op = "gt" if ascending else "lt"
    condition = Q()
    for i in range(len(keys) - 1, -1, -1):
        step = Q(**{f"{keys[i]}__{op}": values[i]})
        condition = step if i == len(keys) - 1 else step | (Q(**{keys[i]: values[i]}) & condition)
    return condition


def page_query(
    queryset: QuerySet, *, limit: int, keys: tuple[str, ...], ascending: bool, after_values
) -> QuerySet:
    """The page's rows: `queryset` ordered by `keys`, after `after_values` (a cursor's key
    values, or None for the first page), `limit` + 1 of them (the last one only says whether
    there is more)."""
    queryset = queryset.order_by(*(k if ascending else f"-{k}" for k in keys))
    if after_values is not None:
        queryset = queryset.filter(after(keys, after_values, ascending))
    return queryset[: limit + 1]


class CursorPagination(BasePagination):
    """The one paginator. `ascending=True` for audit trails (oldest first). A list reads its
    page in three steps (`JobcostViewSet.render_list`): `read` (the request's limit and
    cursor), the rows of `page_query`, then `page` (what to show, and the next cursor)."""

    def read(self, request, keys: tuple[str, ...]) -> tuple[int, list[str] | None]:
        """The request's `limit` and the key values its `cursor` points after (None on the
        first page); 400 for either when invalid."""
        self.request = request
        limit = parse_limit(request.query_params.get("limit"))
        cursor = request.query_params.get("cursor")
        return limit, (decode_cursor(cursor, request.path, len(keys)) if cursor else None)

    def page(self, rows: list, limit: int, keys: tuple[str, ...]) -> list:
        """The page's rows out of the `limit` + 1 read; sets `has_more` and `next_cursor`."""
        self.has_more = len(rows) > limit
        rows = rows[:limit]
        last = rows[-1] if rows else None
        self.next_cursor = (
            encode_cursor([getattr(last, k) for k in keys], self.request.path)
            if self.has_more and last is not None
            else None
        )
        return rows

    def get_paginated_response(self, data) -> Response:
        return Response(self.list_body(data))

    def list_body(self, data) -> dict:
        """The list object of docs/conventions.md / the draft's list object."""
        return {
            "object": "list",
            "url": self.request.path,
            "has_more": self.has_more,
            "next_cursor": self.next_cursor,
            "data": data,
        }

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["object", "url", "has_more", "next_cursor", "data"],
            "properties": {
                "object": {"type": "string", "enum": ["list"]},
                "url": {"type": "string", "example": "/v1/projects"},
                "has_more": {"type": "boolean"},
                "next_cursor": {
                    "type": "string",
                    "nullable": True,
                    "pattern": "^cur_",
                    "example": "cur_…",
                },
                "data": schema,
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": "limit",
                "in": "query",
                "required": False,
                "description": "Page size, 1 to 100 (default 25).",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 25},
            },
            {
                "name": "cursor",
                "in": "query",
                "required": False,
                "description": "The next_cursor of the previous page, unchanged; anything "
                "else is 400 `cursor_invalid`.",
                "schema": {"type": "string", "pattern": "^cur_"},
            },
        ]


def page_after(
    rows: list, *, key, width: int, cursor: str | None, limit: int, path: str
) -> tuple[list, bool, str | None]:
    """A keyset page over rows computed in memory (reports), already sorted by `key(row)` (a
    tuple of `width` strings, unique per row): the rows after the cursor's key, at most
    `limit`, whether more follow, and the next cursor (signed and bound to `path` as every
    list's)."""
    if cursor:
        start = tuple(decode_cursor(cursor, path, width))
        rows = [row for row in rows if key(row) > start]
    page = rows[:limit]
    has_more = len(rows) > limit
    next_cursor = encode_cursor(list(key(page[-1])), path) if has_more and page else None
    return page, has_more, next_cursor
