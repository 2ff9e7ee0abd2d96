"""A time limit on rendering a document (docs/operations/limits.md, "Rendering PDFs").

ReportLab lays a document out page by page; each page it finishes calls the canvas's
`showPage` (and a page template's `onPage`), where the renderers call `check()`. Inside
`time_limit(seconds)`, a `check()` past the limit raises 503 `render_timed_out`
(`jobcost.errors.Unavailable`), so the rendering stops within one page's work of its limit
and the thread is free again; outside one, `check()` does nothing. The limit is per thread
(and per asyncio task): a context variable.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from contextvars import ContextVar

from jobcost.errors import Unavailable

# (monotonic deadline, the limit in seconds) of the rendering under way, if any.
_deadline: ContextVar[tuple[float, float] | None] = ContextVar("render_deadline", default=None)


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Renderings inside may take `seconds` (wall clock, from now) in all; nested, the
    outer limit still holds when it ends sooner."""
    deadline = time.monotonic() + seconds
    outer = _deadline.get()
    if outer is not None and outer[0] < deadline:
        deadline, seconds = outer
    token = _deadline.set((deadline, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    """Raise 503 `render_timed_out` (with `Retry-After`, the limit in whole seconds) when the
    current `time_limit` has run out; nothing when none is set or time is left."""
    current = _deadline.get()
    if current is None or time.monotonic() <= current[0]:
        return
    seconds = current[1]
    raise Unavailable(
        f"This PDF took longer than the {seconds:g}-second rendering limit, so it was "
        "stopped. Try again in a moment; if it keeps happening, the document is too long to "
        "print at once.",
        headers={"Retry-After": str(max(1, math.ceil(seconds)))},
    )
