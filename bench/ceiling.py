"""The ceiling of `manage.py bench_reads`: a bare WSGI app serving the same rows from raw
psycopg and `json.dumps`, run under the same gunicorn config as the API
(`gunicorn -c config/gunicorn.conf.py bench.ceiling:application`).

It is used by the benchmark only (no production URL serves it) and imports neither Django nor
the project: it reads `DATABASE_URL` and the JSON file named by `BENCH_READS_CEILING`, which
maps a path to the SQL the API's selectors run for it, compiled and bound by the benchmark:

    {"/invoices": {"sql": "SELECT …", "children": {"sql": "SELECT …", "parent": "invoice_id",
                   "key": "lines"}, "list": true},
     "/project": {"sql": "SELECT …", "list": false}}

Each row becomes an object of its columns (timestamps as `…Z` strings, dates ISO, decimals as
JSON numbers, child rows nested under `key`); a list is wrapped in the API's list object. No
authentication, rate limit, middleware or serializer: what is left is the floor any Python
WSGI app on this gunicorn pays for the same rows.
"""

from __future__ import annotations

import datetime
import json
import os
import threading
from decimal import Decimal

import psycopg

_local = threading.local()
with open(os.environ["BENCH_READS_CEILING"]) as _file:
    ROUTES: dict = json.load(_file)


def _connection() -> psycopg.Connection:
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
        _local.conn = conn
    return conn


def _value(value):
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _rows(cursor, sql: str) -> list[dict]:
    cursor.execute(sql.encode())
    names = [column.name for column in cursor.description]
    return [{name: _value(v) for name, v in zip(names, row, strict=True)} for row in cursor]


def body(path: str) -> bytes | None:
    """The JSON body for `path`, or None when the path is not a route."""
    route = ROUTES.get(path)
    if route is None:
        return None
    with _connection().cursor() as cursor:
        rows = _rows(cursor, route["sql"])
        children = route.get("children")
        if children:
            by_parent: dict = {}
            for child in _rows(cursor, children["sql"]):
                by_parent.setdefault(child[children["parent"]], []).append(child)
            for row in rows:
                row[children["key"]] = by_parent.get(row["id"], [])
    data = (
        {"object": "list", "url": path, "has_more": False, "next_cursor": None, "data": rows}
        if route["list"]
        else rows[0]
    )
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def application(environ, start_response):
    """WSGI entry point: 200 with the route's JSON, 404 for any other path."""
    payload = body(environ.get("PATH_INFO", ""))
    if payload is None:
        start_response("404 Not Found", [("Content-Length", "0")])
        return [b""]
    start_response(
        "200 OK",
        [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))],
    )
    return [payload]
