"""JSON parsing that keeps numbers exact (docs/conventions.md).

Floats are parsed as `Decimal`, so a money field can tell `100` from `100.0` and percentages
never pass through binary floating point. NaN and Infinity are refused; the top level must be
an object. No string of the body, however deep (agent-action payloads, nested lines), and no
object key may hold NUL (U+0000): PostgreSQL text and jsonb refuse it, so it is 400
`parameter_invalid` naming where it is (docs/decisions.md, "Strings").
"""

import json
from decimal import Decimal

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from jobcost.errors import InvalidRequest


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
        reject_nul(data)
        return data


def _child(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def reject_nul(data: dict) -> None:
    """400 `parameter_invalid` with `param` at the first string or key holding NUL
    (`subject`, `payload.lines[0].description`). Walks without recursion, so the depth
    `json.loads` allows cannot overflow the stack here."""
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise InvalidRequest(f"{path} may not contain NUL (U+0000).", param=path)
        elif isinstance(value, dict):
            for key, item in value.items():
                if "\x00" in key:
                    where = _child(path, key)
                    raise InvalidRequest(
                        f"{where}: keys may not contain NUL (U+0000).", param=where
                    )
                stack.append((_child(path, key), item))
        elif isinstance(value, list):
            stack.extend((_child(path, index), item) for index, item in enumerate(value))
