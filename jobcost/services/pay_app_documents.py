"""Certified means frozen (docs/documents.md): the printed pay app stored when it is submitted
and when it is certified, never changed after.

`pay_app_document_store` runs inside the submit and approve services' transactions, with the
pay app locked: it takes the snapshot (`selectors.pay_app_snapshot`), renders it
(`documents.pay_app_pdf`) and writes a `PayAppDocument` row with the bytes and their SHA-256.
A certified document is the submitted one's snapshot (names, dates and figures as submitted)
with the architect's certificate added, so a rename between submission and approval does not
reach it either.
"""

from __future__ import annotations

import copy
import hashlib

from jobcost.documents.pay_app_pdf import render_pay_app_pdf
from jobcost.models import PayApp, PayAppDocument, PayAppDocumentStage
from jobcost.selectors.pay_app_snapshot import pay_app_snapshot


def pay_app_document_store(pay_app: PayApp, stage: str) -> PayAppDocument:
    """Store the document of a submitted (`stage` "submitted") or just approved ("certified")
    pay app, in the caller's transaction. The certified one takes the latest submitted
    document's snapshot (a fresh one when there is none, as for a pay app submitted before
    documents were stored) and adds `certificate`: {amount_certified (cents), certified_on
    (ISO day), note}. Raises `IntegrityError` for a second certified document.

    Emits: none (the submit and approve entries on the audit trail are the record).
    """
    if stage == PayAppDocumentStage.CERTIFIED:
        submitted = (
            PayAppDocument.objects.filter(pay_app=pay_app, stage=PayAppDocumentStage.SUBMITTED)
            .order_by("-created_at", "-pk")
            .values_list("snapshot", flat=True)
            .first()
        )
        snapshot = copy.deepcopy(submitted) if submitted else pay_app_snapshot(pay_app.pk)
        snapshot["stage"] = "certified"
        snapshot["certificate"] = {
            "amount_certified": pay_app.amount_certified,
            "certified_on": pay_app.certified_on.isoformat() if pay_app.certified_on else None,
            "note": pay_app.certification_note,
        }
    else:
        snapshot = pay_app_snapshot(pay_app.pk, stage="submitted")
    pdf = render_pay_app_pdf(snapshot)
    return PayAppDocument.objects.create(
        pay_app=pay_app,
        stage=stage,
        snapshot=snapshot,
        pdf=pdf,
        sha256=hashlib.sha256(pdf).hexdigest(),
    )
