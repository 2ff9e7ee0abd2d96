"""The pay app's PDF as a download, for GET /v1/pay-apps/{id}/pdf and the back office's
"Download PDF" alike (docs/documents.md): a submitted, approved or paid pay app serves the
bytes stored when it was certified (else when it was submitted), never rendered again; a
draft is rendered now from a snapshot taken now, marked DRAFT.
"""

from __future__ import annotations

from django.http import HttpResponse

from jobcost.documents.pay_app_pdf import pay_app_pdf_filename, render_pay_app_pdf
from jobcost.models import PayApp, PayAppDocument, PayAppStatus
from jobcost.selectors.pay_app_snapshot import pay_app_snapshot


def stored_pay_app_pdf(pay_app_id: str) -> bytes | None:
    """The bytes of the pay app's latest stored document: the certified one if any, else the
    latest submitted one; None when it has none. One query."""
    pdf = (
        PayAppDocument.objects.filter(pay_app_id=pay_app_id)
        .order_by("stage", "-created_at", "-pk")  # "certified" sorts before "submitted"
        .values_list("pdf", flat=True)
        .first()
    )
    return None if pdf is None else bytes(pdf)


def pay_app_pdf(pay_app: PayApp) -> bytes:
    """The PDF a pay app prints now: the stored document of a non-draft one; a draft's (or
    one with no stored document, which the 0009 migration leaves none of) rendered from a
    snapshot taken now."""
    if pay_app.status != PayAppStatus.DRAFT:
        stored = stored_pay_app_pdf(pay_app.pk)
        if stored is not None:
            return stored
    return render_pay_app_pdf(pay_app_snapshot(pay_app.pk))


def _attachment(pdf: bytes, project_number: str, number: int) -> HttpResponse:
    response = HttpResponse(pdf, content_type="application/pdf")
    filename = pay_app_pdf_filename(project_number, number)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def stored_pay_app_response(pay_app_id: str) -> HttpResponse | None:
    """The stored document of a pay app that is not a draft, as `pay_app_pdf_response`
    answers it, rendering nothing (two light queries); None for a draft or a pay app with no
    stored document, which must be rendered."""
    found = (
        PayApp.objects.filter(pk=pay_app_id)
        .exclude(status=PayAppStatus.DRAFT)
        .values_list("number", "project__number")
        .first()
    )
    if found is None:
        return None
    pdf = stored_pay_app_pdf(pay_app_id)
    return None if pdf is None else _attachment(pdf, found[1], found[0])


def pay_app_pdf_response(pay_app: PayApp) -> HttpResponse:
    """The PDF as an attachment named `<project number>-pay-app-<n>.pdf`."""
    return _attachment(pay_app_pdf(pay_app), pay_app.project.number, pay_app.number)
