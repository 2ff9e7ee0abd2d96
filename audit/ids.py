"""Prefixed, opaque object IDs (docs/conventions.md).

An ID is `<prefix>_<24 base62 characters>`: one number drawn with `secrets.randbelow` over all
62^24 strings (about 142 random bits from the operating system's CSPRNG), written in base 62.
URL-safe, never derived from a database sequence. Bottom layer: imports nothing of the project.
It lives in `audit`, the lowest app, because the trail's own entries need IDs and `audit`
imports no other app (docs/architecture.md).
"""

import secrets
import string
from functools import partial

from django.db import models

_ALPHABET = string.ascii_letters + string.digits
_LENGTH = 24
_SPACE = len(_ALPHABET) ** _LENGTH


def new_id(prefix: str) -> str:
    """Return a fresh ID such as `prj_4Fq...` for the given prefix (without underscore)."""
    # One uniform draw over all 62^24 strings, written in base 62: the same distribution as
    # 24 `secrets.choice` calls, with one read of the OS's random source instead of 24.
    n = secrets.randbelow(_SPACE)
    chars = []
    for _ in range(_LENGTH):
        n, digit = divmod(n, 62)
        chars.append(_ALPHABET[digit])
    return prefix + "_" + "".join(chars)


def id_factory(prefix: str):
    """A zero-argument callable for a model field's `default` (migrations serialize it)."""
    return partial(new_id, prefix)


def has_prefix(value: str, prefix: str) -> bool:
    """True when `value` looks like an ID of this prefix (right prefix, sane characters)."""
    if not isinstance(value, str) or not value.startswith(prefix + "_"):
        return False
    rest = value[len(prefix) + 1 :]
    return 0 < len(rest) <= 64 and all(c in _ALPHABET for c in rest)


def prefixed_id(prefix: str) -> models.CharField:
    """The primary key field: `<prefix>_<opaque>` generated in Python, never a sequence."""
    return models.CharField(
        primary_key=True, max_length=40, default=id_factory(prefix), editable=False
    )
