"""Store the printed document of every pay app submitted before documents were stored
(docs/documents.md, "Decisions"): a submitted one gets its `submitted` document, an approved
or paid one that and its `certified` document, each rendered from a snapshot taken now (the
names and figures the pay app prints on the day of the upgrade, which is what it printed the
day before). A pay app that already has a document is left alone, so running it again adds
nothing.

It renders with the code of this release (`services.pay_app_documents`), so it works on the
models as they are here; a database with no such pay app (a new one) never reaches that code.
"""

from django.db import migrations


def store_documents(apps, schema_editor):
    HistoricalPayApp = apps.get_model("jobcost", "PayApp")
    pending = list(
        HistoricalPayApp.objects.exclude(status="draft")
        .filter(documents__isnull=True)
        .order_by("project_id", "number")
        .values_list("pk", flat=True)
    )
    if not pending:
        return
    from jobcost.models import PayApp, PayAppDocumentStage
    from jobcost.services.pay_app_documents import pay_app_document_store

    for pay_app in PayApp.objects.filter(pk__in=pending).order_by("project_id", "number"):
        pay_app_document_store(pay_app, PayAppDocumentStage.SUBMITTED)
        if pay_app.status in ("approved", "paid") and pay_app.certified_on is not None:
            pay_app_document_store(pay_app, PayAppDocumentStage.CERTIFIED)


class Migration(migrations.Migration):
    dependencies = [
        ("jobcost", "0008_project_contract_date_and_architect"),
    ]

    operations = [
        migrations.RunPython(store_documents, migrations.RunPython.noop),
    ]
