"""Schemathesis hooks (loaded through `hooks` in schemathesis.toml; docs/openapi.md, "Fuzzing the
API").

- Every POST and PATCH that carries a valid `Idempotency-Key` gets a fresh one per call, so
  two generated bodies never collide on a key (a collision is 409 `idempotency_key_reused`,
  the right answer, but it would hide what the body itself gets). An invalid key (negative
  data) is left as generated.
- A schema-valid `cursor` can still not be a cursor the API signed (400 `cursor_invalid`, as
  documented): positive cases drop theirs; negative ones keep it.
- A schema-valid report `as_of` can be a day after today (400 `parameter_invalid`: a report
  reads a past day, which a schema cannot state): positive cases read today instead.
- A schema-valid date (`format: date`) can fall outside the business dates the API takes,
  1970-01-01 to 2099-12-31 (`jobcost.limits`; 400 `parameter_invalid`, which the schema can
  only say in words): positive cases have such a date in the body or the query moved to
  the nearer end of the range.
- An `{id}` path parameter is swapped, four times in five, for the ID of a seeded object of
  that collection (the JSON file named by `JOBCOST_FUZZ_IDS`, written by the test), so
  reads, updates and transitions reach real objects and not only 404s. Stateful steps keep
  the IDs their links carry.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import uuid
import zlib
from functools import cache

import schemathesis
from schemathesis.core.parameters import ParameterLocation

from jobcost.limits import BUSINESS_DATE_MAX, BUSINESS_DATE_MIN

KEY = re.compile(r"[ -~]{1,255}")
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
FIRST_DAY, LAST_DAY = BUSINESS_DATE_MIN.isoformat(), BUSINESS_DATE_MAX.isoformat()


def _within_range(value):
    """`value` with every `YYYY-MM-DD` string in it (however deep) moved into the business
    dates' range; anything else as it is."""
    if isinstance(value, str) and DAY.fullmatch(value):
        return min(max(value, FIRST_DAY), LAST_DAY)
    if isinstance(value, dict):
        return {key: _within_range(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_within_range(item) for item in value]
    return value


@cache
def _seeded_ids() -> dict[str, list[str]]:
    path = os.environ.get("JOBCOST_FUZZ_IDS")
    if not path:
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _negative(case, location: ParameterLocation) -> bool:
    meta = case.meta
    return meta is not None and meta.is_negative_at(location)


@schemathesis.hook
def before_call(context, case, kwargs):
    key = (case.headers or {}).get("Idempotency-Key")
    if isinstance(key, str) and KEY.fullmatch(key):
        case.headers["Idempotency-Key"] = f"fuzz-{uuid.uuid4()}"
    if case.query and "cursor" in case.query and not _negative(case, ParameterLocation.QUERY):
        del case.query["cursor"]
    if case.query and not _negative(case, ParameterLocation.QUERY):
        case.query = _within_range(case.query)
    if isinstance(case.body, dict) and not _negative(case, ParameterLocation.BODY):
        case.body = _within_range(case.body)
    as_of = (case.query or {}).get("as_of")
    if isinstance(as_of, str) and not _negative(case, ParameterLocation.QUERY):
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        if as_of > today:
            case.query["as_of"] = today
    params = case.path_parameters or {}
    phase = getattr(getattr(case.meta, "phase", None), "name", None)
    if phase == "stateful" or not isinstance(params.get("id"), str):
        return
    ids = _seeded_ids().get(case.operation.path.split("/{id}")[0], [])
    draw = zlib.crc32(params["id"].encode("utf-8", "surrogatepass"))
    if ids and draw % 5:
        params["id"] = ids[draw % len(ids)]
