"""The base viewset: the request pipeline every /v1 endpoint shares.

(Before it, in `jobcost.api.middleware`: a HEAD answer's body dropped, a charset other than
UTF-8 refused with 415, a NUL path 404, a body over 1 MiB 413.)
authenticate (401) → rate limit (429) → version (400) → role policy (403) → no empty or NUL
query value (400) → for POST/PATCH:
Idempotency-Key (400), media type (415), JSON (400), then the idempotent, atomic handler →
envelope for any error → Request-Id, Jobcost-Version, RateLimit-* headers.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from audit.context import Actor, set_idempotency_key, start_acting, stop_acting
from audit.ids import has_prefix
from jobcost.api import idempotency, ratelimit, render_gate
from jobcost.api.expand import expand, parse_expand
from jobcost.api.filters import check_query_values, filter_by, read_filters, reject_unknown_params
from jobcost.api.list_pages import selector_page
from jobcost.api.output import render_many, render_one
from jobcost.api.pagination import page_query
from jobcost.api.serializers import InputSerializer
from jobcost.api.versioning import resolve_version
from jobcost.documents import deadline
from jobcost.errors import NotFound, RateLimited, Unauthenticated, UnsupportedMediaType
from jobcost.resources import RESOURCES
from jobcost.scope import Scope
from jobcost.selectors import fetch, fresh
from jobcost.services.common import all_or_nothing

WRITE_METHODS = ("POST", "PATCH")
# JSON is UTF-8 (RFC 8259 §8.1); a body declared in any other charset is 415, never decoded as
# UTF-8 regardless (docs/decisions.md, "Request bodies").
UTF8_NAMES = frozenset({"utf-8", "utf8", '"utf-8"', '"utf8"'})


def client_ip(request) -> str:
    """The client's address, for the unauthenticated rate-limit bucket.

    REMOTE_ADDR, unless `JOBCOST_TRUSTED_PROXIES` = N > 0 proxies stand in front
    (docs/operations/production.md): each appends the address it received from to X-Forwarded-For,
    so the client is the N-th entry from the right; anything left of it is the client's own claim
    and is ignored. A missing or malformed entry falls back to REMOTE_ADDR.
    """
    remote = request.META.get("REMOTE_ADDR") or "unknown"
    hops = settings.JOBCOST_TRUSTED_PROXIES
    if hops <= 0:
        return remote
    forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [a for a in forwarded if a]
    if len(forwarded) < hops:
        return remote
    candidate = forwarded[-hops]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote


class JobcostViewSet(viewsets.GenericViewSet):
    """Subclasses set `serializer_class` (the output shape of a resource of the table,
    `jobcost.resources`, which gives its selector and ID prefix) and optionally
    `filterset_class`; handlers call `parse`, `render` and `render_list` and one service or
    selector."""

    filterset_class: type | None = None
    lookup_value_regex = "[^/]+"
    # OPTIONS answers 200 with `Allow` and no body (jobcost.api.metadata); any other method
    # is 405 `method_not_allowed` in the envelope.
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    scope: Scope

    # --- pipeline -------------------------------------------------------------------------
    def dispatch(self, request, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request = request
        self.headers = self.default_response_headers
        self._rate_headers: dict[str, str] = {}
        self._actor_token = None
        try:
            self.initial(request, *args, **kwargs)
            method = request.method.lower()
            if method in self.http_method_names:
                handler = getattr(self, method, self.http_method_not_allowed)
            else:
                handler = self.http_method_not_allowed
            if request.method in WRITE_METHODS and handler != self.http_method_not_allowed:
                response = self.run_write(request, handler, *args, **kwargs)
            elif request.method == "DELETE":
                response = self.run_handler(request, handler, *args, **kwargs)
            else:
                response = handler(request, *args, **kwargs)
        except Exception as exc:
            response = self.handle_exception(exc)
        finally:
            if self._actor_token is not None:
                stop_acting(self._actor_token)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        return self.response

    def initial(self, request: Request, *args, **kwargs) -> None:
        self.format_kwarg = self.get_format_suffix(**kwargs)
        neg = self.perform_content_negotiation(request)
        request.accepted_renderer, request.accepted_media_type = neg
        try:
            self.perform_authentication(request)
        except Unauthenticated:
            self.apply_rate_limit("ip:" + client_ip(request))
            raise
        key = request.auth
        self.apply_rate_limit(
            key.account_id,
            rate=key.account.rate_limit_per_second,
            burst=key.account.rate_limit_burst,
        )
        version = resolve_version(request, key)
        request.version = version
        request._request.jobcost_version = version
        self.scope = Scope.for_key(key)
        self._actor_token = start_acting(
            Actor(
                type="api_key",
                id=key.pk,
                role=key.role,
                request_id=getattr(request._request, "request_id", None),
            )
        )
        self.check_permissions(request)
        check_query_values(request.query_params)

    def apply_rate_limit(self, bucket: str, rate=None, burst=None, cost: int = 1) -> None:
        """Take `cost` tokens (all or nothing) from `bucket`, else 429 `rate_limited`."""
        decision = ratelimit.take(bucket, rate=rate, burst=burst, cost=cost)
        self._rate_headers = decision.headers()
        if decision.blocked:
            raise RateLimited("This account's rate limit is 0: every request is refused.")
        if not decision.allowed:
            raise RateLimited(
                "Too many requests for this account; retry after the Retry-After seconds.",
                headers={"Retry-After": self._rate_headers["Retry-After"]},
            )

    @contextlib.contextmanager
    def rendering(self) -> Iterator[None]:
        """Around a document rendered for this request, e.g. a draft pay app's PDF
        (docs/operations/limits.md, "Rendering PDFs"): one of the account's
        `JOBCOST_RENDERS_PER_ACCOUNT` rendering slots (else 429 `too_many_renders`), then the rest
        of the rendering's weight, `JOBCOST_RENDER_WEIGHT` tokens with the request's own, from the
        account's bucket all or nothing (else 429 `rate_limited`, `Retry-After` until the bucket
        holds them), then `JOBCOST_RENDER_TIME_LIMIT` seconds to render (else 503
        `render_timed_out`). Enter it before reading what is rendered: a refusal then costs
        one Redis call, not the document's rows."""
        key = self.request.auth
        with render_gate.render_slot(key.account_id):
            extra = settings.JOBCOST_RENDER_WEIGHT - 1
            if extra > 0:
                self.apply_rate_limit(
                    key.account_id,
                    rate=key.account.rate_limit_per_second,
                    burst=key.account.rate_limit_burst,
                    cost=extra,
                )
            with deadline.time_limit(settings.JOBCOST_RENDER_TIME_LIMIT):
                yield

    def run_handler(self, request, handler, *args, **kwargs):
        """Run the handler in one all-or-nothing transaction (its services take no savepoint
        of their own); an error rolls all of it back and becomes the error response."""
        fresh.forget()
        try:
            with all_or_nothing():
                return handler(request, *args, **kwargs)
        except Exception as exc:
            return self.handle_exception(exc)

    def run_write(self, request, handler, *args, **kwargs):
        """POST/PATCH: Idempotency-Key, JSON body, then the idempotent atomic run
        (`jobcost.api.idempotency`): one transaction holds the key's lock, the handler's
        writes and the stored response; a failed handler's writes roll back whole and its
        error response is stored in a transaction of its own."""
        fresh.forget()
        key = idempotency.read_key(request)
        data = self.read_write_body(request)
        set_idempotency_key(key)
        sha = idempotency.body_sha256(data)
        api_key_id = request.auth.pk
        stored = {
            "api_key_id": api_key_id,
            "key": key,
            "method": request.method,
            "path": request.path,
            "sha": sha,
        }
        failure = None
        with all_or_nothing():
            locked, record = idempotency.lock_and_find(api_key_id, key)
            if not locked:
                raise idempotency.in_use()
            if record is not None:
                return self.replay(record, request.method, request.path, sha)
            try:
                response = handler(request, *args, **kwargs)
            except Exception as exc:
                transaction.set_rollback(True)
                failure = exc
            else:
                response = self.finalize_response(request, response, *args, **kwargs)
                response.render()
                if not idempotency.is_storable(response.status_code):
                    return response
                body = self.body_to_store(response.content.decode())
                if idempotency.store(response=response, body=body, **stored):
                    return response
                # A twin committed its response after this request read the key: this
                # request's writes go, the twin's outcome is the key's.
                transaction.set_rollback(True)
        if failure is None:
            return self.replay_twin(api_key_id, key, request.method, request.path, sha)
        response = self.handle_exception(failure)
        response = self.finalize_response(request, response, *args, **kwargs)
        response.render()
        if not idempotency.is_storable(response.status_code):
            return response
        with transaction.atomic():
            idempotency.wait_lock(api_key_id, key)
            # The rollback restored an expired record this request had deleted: `find`
            # deletes it again (and returns a live one a twin stored meanwhile).
            twin = idempotency.find(api_key_id, key)
            if twin is not None:
                return self.replay(twin, request.method, request.path, sha)
            body = self.body_to_store(response.content.decode())
            if idempotency.store(response=response, body=body, **stored):
                return response
        return self.replay_twin(api_key_id, key, request.method, request.path, sha)

    def replay(self, record, method: str, path: str, sha: str):
        """The stored response of the key (409 `idempotency_key_reused` for another
        request)."""
        idempotency.check_matches(record, method, path, sha)
        return idempotency.replay(record, body=self.body_to_replay(record.response_body))

    def replay_twin(self, api_key_id: str, key: str, method: str, path: str, sha: str):
        """The response a concurrent twin stored under the key while this request ran."""
        record = idempotency.find(api_key_id, key)
        if record is None:
            raise idempotency.in_use()
        return self.replay(record, method, path, sha)

    def read_write_body(self, request):
        """The body of a POST/PATCH, read before anything runs: JSON only (415 otherwise, and
        for a charset other than UTF-8; 400 `json_invalid`). Returns what the idempotent
        replay compares (the parsed JSON). The one route that takes a file overrides this
        (`jobcost.views.budget_imports`)."""
        raw = request._request.body
        content_type = request.content_type.split(";")[0].strip().lower()
        if raw.strip() and content_type != "application/json":
            raise UnsupportedMediaType(
                "Request bodies must be JSON: send Content-Type: application/json."
            )
        charset = request._request.content_params.get("charset", "utf-8").strip().lower()
        if raw.strip() and charset not in UTF8_NAMES:
            raise UnsupportedMediaType(
                f"Request bodies must be UTF-8 JSON; charset={charset} is not accepted. Send "
                "Content-Type: application/json (charset=utf-8, if any)."
            )
        return request.data  # parse now: 400 json_invalid before anything runs

    def body_to_store(self, body: str) -> str:
        """The response body as the idempotency store keeps it; a view whose responses hold a
        secret withholds it here (webhooks.withheld)."""
        return body

    def body_to_replay(self, stored: str) -> str:
        """The body a replay answers, from the stored one (the inverse of `body_to_store`)."""
        return stored

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        for name, value in self._rate_headers.items():
            response[name] = value
        version = getattr(request, "version", None)
        if version:
            response["Jobcost-Version"] = version
        return response

    # --- helpers for handlers -------------------------------------------------------------
    def get_queryset(self):
        return self.serializer_class.selector(self.scope)

    @property
    def id_prefix(self) -> str:
        """The ID prefix of the resource the viewset serves (`inv` for invoices); "" for the
        reports, which serve no object."""
        entry = RESOURCES.get(self.serializer_class.object_name)
        return entry.prefix if entry is not None else ""

    def get_object(self):
        pk = self.kwargs.get("pk", "")
        obj = None
        if has_prefix(pk, self.id_prefix):
            obj = self.read_object(pk)
        if obj is None:
            raise NotFound(f"No such {self.serializer_class.object_name}: '{pk}'.", param="id")
        return obj

    def visible_id(self) -> str:
        """The ID in the URL, once checked visible to the key (404 `resource_missing` as
        `get_object`), in one light query: for writes, whose service reads and locks the row
        itself."""
        pk = self.kwargs.get("pk", "")
        found = None
        if has_prefix(pk, self.id_prefix):
            found = self.get_queryset().filter(pk=pk).values_list("pk", flat=True).first()
        if found is None:
            raise NotFound(f"No such {self.serializer_class.object_name}: '{pk}'.", param="id")
        return found

    def read_object(self, pk: str):
        """`get_queryset().filter(pk=pk).first()`; for a viewset that reads through its
        resource's selector, with the SQL compiled once per selector and scope shape
        (`jobcost.selectors.fetch.first`)."""
        if type(self).get_queryset is not JobcostViewSet.get_queryset:
            return self.get_queryset().filter(pk=pk).first()
        selector, ids = self.serializer_class.selector, self.scope.project_ids
        key = (selector, None if ids is None else len(ids))
        return fetch.first(
            key,
            lambda account_id, project_ids, pk: selector(
                Scope(account_id, None if project_ids is None else frozenset(project_ids))
            ).filter(pk=pk),
            account_id=self.scope.account_id,
            project_ids=ids,
            pk=pk,
        )

    def parse(self, serializer_class, *, instance=None, partial: bool = False) -> dict:
        """Validate the body (shape and types only); returns validated data. Only an
        `InputSerializer` may read a body: it carries the unknown, read-only and strict-string
        rules (docs/decisions.md, "Strings")."""
        if not issubclass(serializer_class, InputSerializer):
            raise ImproperlyConfigured(f"{serializer_class.__name__} is not an InputSerializer")
        serializer = serializer_class(
            instance=instance,
            data=self.request.data,
            partial=partial,
            context={"view": self, "request": self.request},
        )
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def expand_paths(self, *, is_list: bool):
        return parse_expand(self.request.query_params, self.serializer_class, is_list=is_list)

    def render(self, instance, status: int = 200, *, reread: bool = True) -> Response:
        """Serialize one object. After a write it is re-read through the selector so computed
        fields are fresh; `reread=False` when it was just read through the selector."""
        reject_unknown_params(self.request.query_params)
        paths = self.expand_paths(is_list=False)
        row = self.reread(instance) if reread else instance
        data = render_one(self.serializer_class, row, self.get_serializer_context())
        expand([data], paths, self.serializer_class, self)
        return Response(data, status=status)

    def reread(self, instance):
        """`instance` as the selector reads it now: the row the webhook outbox read for its
        event at the end of the write when there is one (`jobcost.selectors.fresh`; the same
        selector, read after the last change) and the key may see it, else a query."""
        row = fresh.take(self.serializer_class, instance.pk)
        if row is not None and self.scope.sees(row):
            return row
        return self.get_queryset().get(pk=instance.pk)

    def render_list(
        self,
        queryset=None,
        *,
        ascending: bool = False,
        serializer_class=None,
        keys: tuple[str, ...] = ("created_at", "id"),
        context: dict | None = None,
    ):
        """Filter, paginate (keyset on `keys`) and serialize a list; expand `data.` paths.
        Without a `queryset`, the list is the resource's selector in the key's scope, read
        with its SQL compiled once per shape (`jobcost.api.list_pages`)."""
        serializer_class = serializer_class or self.serializer_class
        paths = parse_expand(self.request.query_params, serializer_class, is_list=True)
        params = self.request.query_params
        own = serializer_class is self.serializer_class
        filters = read_filters(self.filterset_class if own else None, params)
        limit, after_values = self.paginator.read(self.request, keys)
        rows = None
        if queryset is None:
            rows = selector_page(
                serializer_class,
                self.filterset_class if own else None,
                filters,
                self.scope,
                limit=limit,
                keys=keys,
                ascending=ascending,
                after_values=after_values,
            )
            queryset = serializer_class.selector(self.scope) if rows is None else None
        if rows is None:
            queryset = filter_by(queryset, filters)
            rows = fetch.fetch(
                page_query(
                    queryset, limit=limit, keys=keys, ascending=ascending, after_values=after_values
                )
            )
        rows = self.paginator.page(rows, limit, keys)
        context = {**self.get_serializer_context(), **(context or {})}
        data = render_many(serializer_class, rows, context)
        expand(data, paths, serializer_class, self)
        return self.paginator.get_paginated_response(data)

    # --- default handlers -----------------------------------------------------------------
    def list(self, request, *args, **kwargs):
        if type(self).get_queryset is JobcostViewSet.get_queryset:
            return self.render_list()  # the resource's selector: prepared
        return self.render_list(self.get_queryset())

    def retrieve(self, request, *args, **kwargs):
        return self.render(self.get_object(), reread=False)
