"""Request-level middleware: request IDs, version header, HEAD without a body, NUL paths, the
request's charset, body limit (docs/conventions.md, §6, §7)."""

import io

from django.conf import settings

from audit.ids import new_id
from jobcost.api.errors import json_error_response
from jobcost.error_codes import RequestErrorCode
from jobcost.errors import NotFound, PayloadTooLarge, UnsupportedMediaType


class RequestIdMiddleware:
    """Give every request a `req_` ID and put `Request-Id` and `Jobcost-Version` on every
    response, including Django's own error pages."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.request_id = new_id("req")
        response = self.get_response(request)
        response["Request-Id"] = request.request_id
        if not response.has_header("Jobcost-Version"):
            response["Jobcost-Version"] = getattr(
                request, "jobcost_version", settings.JOBCOST_API_VERSIONS[-1]
            )
        return response


class HeadWithoutBodyMiddleware:
    """A HEAD answer is the GET's status and headers with no body (RFC 9110 §9.3.2), on
    every route (docs/decisions.md, "Errors and methods").

    Django and DRF answer HEAD by running the GET handler, and the WSGI server (gunicorn)
    sends whatever body it is handed: on a kept-alive connection the client then reads those
    bytes as the start of the next response. Outermost in `MIDDLEWARE`, this drops the body
    of every HEAD answer in one place, after everything else has built it. `Content-Length`
    stays the GET's (set here from the body when nothing set it), so a client learns the
    size; a streamed answer (a file) keeps its own `Content-Length` and is closed unread."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method != "HEAD":
            return response
        if response.streaming:
            response.streaming_content = []
        else:
            if not response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
            response.content = b""
        return response


# JSON is UTF-8 (RFC 8259 §8.1), and so is everything else the API reads.
UTF8_NAMES = frozenset({"utf-8", "utf8"})


class RequestCharsetMiddleware:
    """A `Content-Type` naming a `charset` other than UTF-8 is 415 `unsupported_media_type`
    on every route but the back office's, before anything reads the request (docs/decisions.md,
    "Request bodies").

    Django decodes the query string and a form body in the declared charset, so a
    `charset=latin-1` garbled a GET's query string into a mojibake 400; and a JSON body is
    UTF-8 by definition. The check runs before the key is read (a 415 is not counted
    against the rate limit) and whatever the method. `/admin/` (browsers posting forms) is
    left as Django reads it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "charset" in request.content_params and not request.path.startswith("/admin/"):
            charset = request.content_params["charset"].strip().strip('"').lower()
            if charset not in UTF8_NAMES:
                return json_error_response(
                    request,
                    UnsupportedMediaType(
                        f"Requests must be UTF-8; charset={charset or '(empty)'} is not "
                        "accepted. Send Content-Type: application/json (charset=utf-8, if "
                        "any)."
                    ),
                )
        return self.get_response(request)


class NulPathMiddleware:
    """A path holding NUL (`%00`) names no route: 404 `route_missing` before any view runs, so
    no ID lookup, idempotency record or log line carries it to PostgreSQL, whose text refuses
    NUL (docs/decisions.md, "Errors and methods")."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            shown = request.path.replace("\x00", "%00")
            return json_error_response(
                request,
                NotFound(
                    f"No route matches {request.method} {shown}.",
                    code=RequestErrorCode.ROUTE_MISSING,
                ),
            )
        return self.get_response(request)


class BodyLimitMiddleware:
    """Bodies over `MAX_REQUEST_BODY_BYTES` (1 MiB) are 413 `body_too_large` before any view
    runs (docs/decisions.md, "Request bodies").

    - Declared by Content-Length: refused without parsing, but first up to
      `MAX_REQUEST_DRAIN_BYTES` of the body are read and discarded, so the server does not
      close a socket with unread data (the kernel would answer with a reset and the client
      would lose the 413). A larger body is cut short: the client may then see a reset.
    - Chunked (Transfer-Encoding: chunked, no Content-Length): WSGI servers that decode
      chunking (gunicorn sets `wsgi.input_terminated`) hand Django a stream it would read as
      empty; the body is read here, up to the limit plus one byte, and either refused (then
      drained like the above) or handed on with its length.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.MAX_REQUEST_BODY_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            _discard(request.read, settings.MAX_REQUEST_DRAIN_BYTES)
            return _too_large(request)
        if not length and _is_chunked(request):
            stream = request.META["wsgi.input"]
            body = _read_up_to(stream.read, limit + 1)
            if len(body) > limit:
                _discard(stream.read, settings.MAX_REQUEST_DRAIN_BYTES - len(body))
                return _too_large(request)
            request.META["CONTENT_LENGTH"] = str(len(body))
            request._body = body
            request._stream = io.BytesIO(body)
        return self.get_response(request)


_READ_SIZE = 64 * 1024


def _is_chunked(request) -> bool:
    encoding = request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
    return "chunked" in encoding and bool(request.META.get("wsgi.input_terminated"))


def _read_up_to(read, most: int) -> bytes:
    """Read until `most` bytes or the end of the body."""
    parts, total = [], 0
    while total < most:
        part = read(min(_READ_SIZE, most - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def _discard(read, most: int) -> None:
    """Read and drop up to `most` bytes; a client that hangs up ends it early."""
    total = 0
    try:
        while total < most:
            part = read(min(_READ_SIZE, most - total))
            if not part:
                return
            total += len(part)
    except OSError:
        return


def _too_large(request):
    limit = settings.MAX_REQUEST_BODY_BYTES
    return json_error_response(
        request,
        PayloadTooLarge(f"Request bodies are limited to 1 MiB ({limit} bytes)."),
    )
