"""Dated API versions (docs/conventions.md): the key's pinned version, or `Jobcost-Version` per
request."""

from django.conf import settings

from jobcost.error_codes import RequestErrorCode
from jobcost.errors import InvalidRequest

HEADER = "Jobcost-Version"
# The header as WSGI names it: read from META, since `request.headers` builds a dict of every
# header the first time it is read (a fortieth of a retrieve's CPU).
_META_KEY = "HTTP_JOBCOST_VERSION"


def resolve_version(request, api_key) -> str:
    """The version for this request; 400 `api_version_unknown` for an unknown header value."""
    requested = request.META.get(_META_KEY)
    if requested is None:
        return api_key.api_version
    if requested not in settings.JOBCOST_API_VERSIONS:
        known = ", ".join(settings.JOBCOST_API_VERSIONS)
        raise InvalidRequest(
            f"Unknown API version '{requested}'. Known: {known}.",
            code=RequestErrorCode.API_VERSION_UNKNOWN,
            param=HEADER,
        )
    return requested
