"""JSON rendering with exact decimals and UTC `Z` timestamps (docs/conventions.md).

Bodies are encoded with orjson (about ten times faster than `json.dumps` on a page of 100
invoices) to exactly the bytes `json.dumps(data, cls=_Encoder, separators=(",", ":"),
ensure_ascii=False)` gives, which stays the reference (`dumps_reference`) and the fallback for
anything orjson refuses (an integer beyond 64 bits). The two agree on strings (UTF-8, the same
escapes), integers, dates and dict/list shapes; they differ only in how a float outside
[1e-4, 1e16) is spelled (`1e-05` against `0.00001`), so a decimal whose float falls there is
handed to orjson pre-spelled as Python spells it. The API serves no native float (money is
integer cents, percentages are decimals). tests/jobcost/api/test_output.py compares the two.
"""

import datetime
import json
from decimal import Decimal

import orjson
from rest_framework.renderers import BaseRenderer, JSONRenderer

from audit.values import format_timestamp

# orjson leaves these to `_orjson_default`: datetimes to `format_timestamp`, dates to ISO; non-
# string keys become strings as `json.dumps` makes them.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


class _Encoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Decimal):
            # Percentages carry at most 2 decimals, so the shortest float repr is exact.
            return int(o) if o == o.to_integral_value() else float(o)
        if isinstance(o, datetime.datetime):
            return format_timestamp(o)
        if isinstance(o, datetime.date):
            return o.isoformat()
        return super().default(o)


def _orjson_default(o):
    if isinstance(o, Decimal):
        if o == o.to_integral_value():
            return int(o)
        number = float(o)
        if 1e-4 <= abs(number) < 1e16:
            return number
        return orjson.Fragment(repr(number))
    if isinstance(o, datetime.datetime):
        return format_timestamp(o)
    if isinstance(o, datetime.date):
        return o.isoformat()
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def dumps_reference(data) -> str:
    """The API's JSON with the standard library: the definition `dumps_bytes` matches."""
    return json.dumps(data, cls=_Encoder, separators=(",", ":"), ensure_ascii=False)


def dumps_bytes(data) -> bytes:
    """The API's JSON as UTF-8 bytes: compact, exact decimals, `…Z` timestamps, non-ASCII
    characters unescaped. Raises TypeError for a value JSON cannot hold."""
    try:
        return orjson.dumps(data, default=_orjson_default, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        return dumps_reference(data).encode()


class JobcostJSONRenderer(JSONRenderer):
    """application/json; compact; charset utf-8."""

    encoder_class = _Encoder
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        return dumps_bytes(data)


def dumps(data) -> str:
    """Serialize like the API does (used to store idempotent responses)."""
    return dumps_bytes(data).decode()


class PDFRenderer(BaseRenderer):
    """`application/pdf`, offered only so `Accept: application/pdf` is acceptable on the routes
    that print a document; the document itself is a plain HttpResponse of bytes, and an error
    on those routes is still rendered as the JSON envelope."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data
