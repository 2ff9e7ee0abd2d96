"""JSON parsing that keeps numbers exact (SPEC §1).

Floats are parsed as `Decimal`, so a money field can tell `100` from `100.0` and percentages
never pass through binary floating point. NaN and Infinity are refused; the top level must be
an object.
"""

import json
from decimal import Decimal

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


class StrictJSONParser(JSONParser):
    """application/json only; exact decimals; an object at the top level."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        if not raw.strip():
            return {}
        try:
            data = json.loads(
                raw.decode("utf-8"), parse_float=Decimal, parse_constant=_refuse_constant
            )
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise ParseError(f"The request body is not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise ParseError("The request body must be a JSON object.")
        return data
