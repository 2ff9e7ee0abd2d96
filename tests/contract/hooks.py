"""Schemathesis hooks (loaded through `hooks` in schemathesis.toml; README "Fuzzing the API").

- Every POST and PATCH that carries a valid `Idempotency-Key` gets a fresh one per call, so
  two generated bodies never collide on a key (a collision is 409 `idempotency_key_reused`,
  the right answer, but it would hide what the body itself gets). An invalid key (negative
  data) is left as generated.
- A schema-valid `cursor` can still not be a cursor the API signed (400 `cursor_invalid`, as
  documented): positive cases drop theirs; negative ones keep it.
- A schema-valid report `as_of` can be a day after today (400 `parameter_invalid`: a report
  reads a past day, which a schema cannot state): positive cases read today instead.
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

KEY = re.compile(r"[ -~]{1,255}")


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
