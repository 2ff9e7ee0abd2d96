"""JSON rendering with exact decimals and UTC `Z` timestamps (docs/conventions.md)."""

import datetime
import json
from decimal import Decimal

from rest_framework.renderers import BaseRenderer, JSONRenderer

from audit.values import format_timestamp


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


class JobcostJSONRenderer(JSONRenderer):
    """application/json; compact; charset utf-8."""

    encoder_class = _Encoder
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        return json.dumps(data, cls=_Encoder, separators=(",", ":"), ensure_ascii=False).encode()


def dumps(data) -> str:
    """Serialize like the API does (used to store idempotent responses)."""
    return json.dumps(data, cls=_Encoder, separators=(",", ":"), ensure_ascii=False)


class PDFRenderer(BaseRenderer):
    """`application/pdf`, offered only so `Accept: application/pdf` is acceptable on the routes
    that print a document; the document itself is a plain HttpResponse of bytes, and an error
    on those routes is still rendered as the JSON envelope."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data
