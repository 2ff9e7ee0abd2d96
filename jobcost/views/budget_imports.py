"""`POST /v1/projects/{id}/budget-import` (a file upload, not JSON) and
`GET /v1/budget-imports/{id}` (rules in `services.budget_imports`, docs/budget-import.md).

The upload is the one write whose body is not JSON. The pipeline is the same as every POST
(key, rate limit, role, Idempotency-Key, one transaction, stored for replay); only the body
step differs, in `BudgetImportUploadMixin.read_write_body`, and only for this action: the raw
file (`Content-Type: text/csv` or the XLSX type) or `multipart/form-data` with one `file`
part. The idempotent replay compares the file's SHA-256, its format and `dry_run`, so the same
key with another file, or the dry run then the import, is 409 `idempotency_key_reused`.
"""

from __future__ import annotations

import hashlib

from django.http.multipartparser import MultiPartParserError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from jobcost.api.viewsets import UTF8_NAMES, JobcostViewSet
from jobcost.budget_files import CSV, EXTENSIONS_FORMATS, MEDIA_TYPES, XLSX
from jobcost.error_codes import BudgetImportErrorCode, ProjectErrorCode, RequestErrorCode
from jobcost.errors import InvalidRequest, UnsupportedMediaType
from jobcost.filters import BudgetImportFilter
from jobcost.serializers.budget_imports import BudgetImportSerializer
from jobcost.services import budget_imports
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import list_doc, retrieve_doc

MULTIPART = "multipart/form-data"
ACCEPTED = "text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet or " + (
    "multipart/form-data with a `file` part"
)

UPLOAD_DESCRIPTION = (
    "Send the file as the body (`Content-Type: text/csv` in UTF-8, or "
    "`application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`), or as the `file` "
    "part of `multipart/form-data` (its type, else its name's `.csv`/`.xlsx`, else its "
    "content decides the format). "
    "At most 1 MiB and 10,000 rows. The header row names the columns `code`, `name`, "
    "`cost type`, `scheduled value`, `budget` (any order and case); money in dollars as typed "
    "(`12345.67`, `12,345.67`, `$12,345.67`), at most two decimals.\n\n"
    "`dry_run=true` checks every row and writes nothing. Otherwise every row is created as "
    "`POST /v1/cost-codes` would (audited, `cost_code.created` events), all rows or none. Up "
    "to 500 rows (setting `BUDGET_IMPORT_SYNC_MAX_ROWS`) the import runs within the request: "
    "201 with the finished import (`succeeded`, or `failed` with its `errors`). More rows: "
    "202 with a `pending` import that a worker runs; poll `GET /v1/budget-imports/{id}`."
)


class BudgetImportUploadMixin:
    """For `ProjectViewSet`: the `budget_import` action and its non-JSON body."""

    UPLOAD_ACTION = "budget_import"

    def read_write_body(self, request):
        if self.action != self.UPLOAD_ACTION:
            return super().read_write_body(request)
        dry_run = self._dry_run(request)
        content, file_format, file_name = self._read_file(request)
        self._upload = (content, file_format, file_name, dry_run)
        return {
            "file_sha256": hashlib.sha256(content).hexdigest(),
            "format": file_format,
            "dry_run": dry_run,
        }

    @staticmethod
    def _dry_run(request) -> bool:
        for name in request.query_params:
            if name != "dry_run":
                raise InvalidRequest(
                    f"Unknown parameter: {name}.",
                    code=RequestErrorCode.PARAMETER_UNKNOWN,
                    param=name,
                )
        value = request.query_params.get("dry_run", "false")
        if value not in ("true", "false"):
            raise InvalidRequest("dry_run must be true or false.", param="dry_run")
        return value == "true"

    def _read_file(self, request) -> tuple[bytes, str, str]:
        django_request = request._request
        content_type = request.content_type.split(";")[0].strip().lower()
        if content_type != MULTIPART and not django_request.body:
            raise InvalidRequest(
                "The body is empty: send the budget file.",
                code=RequestErrorCode.PARAMETER_MISSING,
                param="file",
            )
        if content_type in MEDIA_TYPES:
            charset = django_request.content_params.get("charset", "utf-8").strip().lower()
            if charset not in UTF8_NAMES:
                raise UnsupportedMediaType(
                    f"CSV files must be UTF-8; charset={charset} is not accepted."
                )
            content = django_request.body
            if not content:
                raise InvalidRequest(
                    "The body is empty: send the budget file.",
                    code=RequestErrorCode.PARAMETER_MISSING,
                    param="file",
                )
            return content, MEDIA_TYPES[content_type], ""
        if content_type == MULTIPART:
            return self._read_multipart(django_request)
        raise UnsupportedMediaType(f"Send the budget file as {ACCEPTED}.")

    @staticmethod
    def _read_multipart(django_request) -> tuple[bytes, str, str]:
        try:
            files, fields = django_request.FILES, django_request.POST
        except MultiPartParserError as exc:
            raise InvalidRequest(f"The multipart body cannot be read: {exc}", param="file") from exc
        for name in [*fields.keys(), *files.keys()]:
            if name != "file":
                raise InvalidRequest(
                    f"Unknown part: {name}; send the budget as the `file` part only.",
                    code=RequestErrorCode.PARAMETER_UNKNOWN,
                    param=name,
                )
        uploads = files.getlist("file")
        if len(uploads) != 1:
            raise InvalidRequest(
                "Send exactly one `file` part holding the budget (a .csv or .xlsx file).",
                code=RequestErrorCode.PARAMETER_MISSING
                if not uploads
                else RequestErrorCode.PARAMETER_INVALID,
                param="file",
            )
        upload = uploads[0]
        name = upload.name or ""
        part_type = (upload.content_type or "").split(";")[0].strip().lower()
        file_format = MEDIA_TYPES.get(part_type)
        if file_format is None:
            file_format = next(
                (fmt for ext, fmt in EXTENSIONS_FORMATS.items() if name.lower().endswith(ext)), None
            )
        content = upload.read()
        if file_format is None and part_type in ("", "application/octet-stream"):
            # No telling type or name (curl -F without `;type=`): an XLSX is a zip archive.
            file_format = XLSX if content.startswith(b"PK\x03\x04") else CSV
        if file_format is None:
            raise UnsupportedMediaType(
                f"The `file` part '{name[:100]}' is neither CSV nor XLSX (by its type or name)."
            )
        if not content:
            raise InvalidRequest(
                "The `file` part is empty.", code=RequestErrorCode.PARAMETER_MISSING, param="file"
            )
        return content, file_format, name

    @extend_schema(
        summary="Import a budget from a spreadsheet (CSV or XLSX)",
        description=UPLOAD_DESCRIPTION,
        request={
            "text/csv": OpenApiTypes.BINARY,
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": (
                OpenApiTypes.BINARY
            ),
            MULTIPART: {
                "type": "object",
                "additionalProperties": False,
                "required": ["file"],
                "properties": {
                    "file": {
                        "type": "string",
                        "format": "binary",
                        "description": "The .csv or .xlsx file.",
                    }
                },
            },
        },
        parameters=[
            OpenApiParameter(
                "dry_run",
                {"type": "boolean"},
                OpenApiParameter.QUERY,
                description="`true`: check every row and write nothing. Default `false`.",
            )
        ],
        responses={
            201: OpenApiResponse(
                BudgetImportSerializer,
                description="The import, finished (succeeded or failed): at most 500 rows.",
            ),
            202: OpenApiResponse(
                BudgetImportSerializer,
                description="The import, pending: a worker runs it; poll its ID.",
            ),
        },
        filters=False,
        extensions={
            "x-jobcost-error-codes": {
                "400": [
                    BudgetImportErrorCode.FILE_UNREADABLE,
                    BudgetImportErrorCode.HEADER_INVALID,
                    BudgetImportErrorCode.FILE_EMPTY,
                    BudgetImportErrorCode.TOO_MANY_ROWS,
                ],
                "409": [ProjectErrorCode.PROJECT_CLOSED],
            }
        },
    )
    @action(detail=True, methods=["post"], url_path="budget-import")
    def budget_import(self, request, *args, **kwargs):
        project = self.get_object()
        content, file_format, file_name, dry_run = self._upload
        started = budget_imports.budget_import_start(
            project=project,
            content=content,
            file_format=file_format,
            file_name=file_name,
            dry_run=dry_run,
        )
        data = BudgetImportSerializer(started, context=self.get_serializer_context()).data
        return Response(data, status=201 if started.finished else 202)


class BudgetImportViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = BudgetImportSerializer
    filterset_class = BudgetImportFilter
    success_texts = {"retrieve": "The budget import, with its progress and refusals."}

    @list_doc(BudgetImportSerializer, "List budget imports")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(
        BudgetImportSerializer,
        "Retrieve a budget import (poll its progress)",
        description="`rows_done` of `rows_total` rows checked or written so far; `status` "
        "`succeeded` or `failed` once finished.",
    )
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)
