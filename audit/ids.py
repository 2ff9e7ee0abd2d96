"""Prefixed, opaque object IDs (docs/conventions.md).

An ID is `<prefix>_<24 base62 characters>`: about 142 random bits from the operating system's
CSPRNG (`os.urandom`, what `secrets` reads), URL-safe, never derived from a database sequence.
Bottom layer: imports nothing of the project. It lives in `audit`, the lowest app, because the
trail's own entries need IDs and `audit` imports no other app (docs/architecture.md).

The random bytes are read `_BUFFER_BYTES` at a time into a buffer of the thread's own, not
18 per ID: each `os.urandom` is a system call that lets go of the GIL, and every API request
makes at least one ID (its `req_` request ID), so under gunicorn's threads each call was a hand
over of the GIL to another thread and back (docs/benchmarks.md, "Reads under gunicorn"). A forked
child starts with no buffer (`os.register_at_fork`): it never makes the IDs its parent will.
"""

import os
import string
import threading
from functools import partial

from django.db import models

_ALPHABET = string.ascii_letters + string.digits
_LENGTH = 24
_SPACE = len(_ALPHABET) ** _LENGTH
# One draw: the 143 bits that cover 62^24, read as 18 bytes with the top bit dropped.
_DRAW_BYTES = 18
_DRAW_MASK = (1 << _SPACE.bit_length()) - 1
# Bytes read from the OS at a time: 256 draws.
_BUFFER_BYTES = _DRAW_BYTES * 256

_local = threading.local()
# Bumped in a forked child: a buffer filled before the fork is not used after it.
_generation = [0]


def _forget_buffers() -> None:
    _generation[0] += 1


os.register_at_fork(after_in_child=_forget_buffers)


def _draw() -> int:
    """A uniform integer in [0, 62^24), by rejection (as `secrets.randbelow` does) from bytes
    of the thread's buffer of `os.urandom` output."""
    while True:
        buffer = getattr(_local, "buffer", None)
        offset = getattr(_local, "offset", 0)
        if (
            buffer is None
            or _local.generation != _generation[0]
            or offset + _DRAW_BYTES > _BUFFER_BYTES
        ):
            buffer = _local.buffer = os.urandom(_BUFFER_BYTES)
            _local.generation = _generation[0]
            offset = 0
        _local.offset = offset + _DRAW_BYTES
        n = int.from_bytes(buffer[offset : offset + _DRAW_BYTES], "big") & _DRAW_MASK
        if n < _SPACE:
            return n


def new_id(prefix: str) -> str:
    """Return a fresh ID such as `prj_4Fq...` for the given prefix (without underscore)."""
    # One uniform draw over all 62^24 strings, written in base 62: the same distribution as
    # 24 `secrets.choice` calls at a tenth of the cost (bulk writes make hundreds of IDs).
    n = _draw()
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
