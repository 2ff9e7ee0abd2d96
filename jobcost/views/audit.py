"""`GET /v1/<collection>/<id>/audit` on every viewset (docs/resources.md, audit_entry)."""

from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action

from audit.models import AuditEntry
from jobcost.serializers.audit import AuditEntrySerializer
from jobcost.views.docs import expand_parameter


class AuditTrailMixin:
    """Adds the `audit` route: the object's entries, oldest first, paginated."""

    @extend_schema(
        summary="List the object's audit trail",
        description="Append-only history of the object, oldest first. Takes `limit` and "
        "`cursor`; no filters.",
        responses={200: AuditEntrySerializer(many=True)},
        parameters=expand_parameter(AuditEntrySerializer, is_list=True),
        filters=False,
    )
    @action(detail=True, methods=["get"], url_path="audit")
    def audit(self, request, *args, **kwargs):
        target = self.get_object()
        entries = AuditEntry.objects.filter(account_id=self.scope.account_id, target_id=target.pk)
        return self.render_list(entries, ascending=True, serializer_class=AuditEntrySerializer)
