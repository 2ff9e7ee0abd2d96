"""Content negotiation, remembered: DRF's choice of renderer and media type depends only on
the view's renderer classes, the format asked for (`?format=` or a suffix) and the `Accept`
header, so it is worked out once per such triple and looked up afterwards (parsing and
ranking `Accept` was a twentieth of a retrieve's CPU; docs/benchmarks.md, "Reads under
gunicorn")."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation

# Triples remembered per process; `Accept` is the client's to vary, so past this many a new
# triple is negotiated afresh every time instead of being kept.
MAX_REMEMBERED = 256

_chosen: dict[tuple, tuple[int, str]] = {}


class RememberedContentNegotiation(DefaultContentNegotiation):
    """`DefaultContentNegotiation`, whose answer for a (renderer classes, format, `Accept`)
    triple is kept: the renderer's position in the view's list and the accepted media type.
    A refusal (`NotAcceptable`: 400 `not_acceptable`, docs/errors.md) is raised as DRF
    raises it and never kept."""

    def select_renderer(self, request, renderers, format_suffix=None):
        requested = format_suffix or request.query_params.get(self.settings.URL_FORMAT_OVERRIDE)
        key = (
            tuple(type(renderer) for renderer in renderers),
            requested,
            request.META.get("HTTP_ACCEPT"),
        )
        chosen = _chosen.get(key)
        if chosen is None:
            renderer, media_type = super().select_renderer(request, renderers, format_suffix)
            chosen = (renderers.index(renderer), media_type)
            if len(_chosen) < MAX_REMEMBERED:
                _chosen[key] = chosen
        position, media_type = chosen
        return renderers[position], media_type
