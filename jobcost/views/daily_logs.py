"""/v1/daily-logs: create, list, retrieve, PATCH (rules in `services.daily_logs`)."""

from jobcost.api.viewsets import JobcostViewSet
from jobcost.error_codes import ProjectErrorCode, ResourceErrorCode
from jobcost.filters import DailyLogFilter
from jobcost.serializers.daily_logs import (
    DailyLogCreateSerializer,
    DailyLogSerializer,
    DailyLogUpdateSerializer,
)
from jobcost.services import daily_logs
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import create_doc, list_doc, retrieve_doc, update_doc


class DailyLogViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = DailyLogSerializer
    filterset_class = DailyLogFilter

    @list_doc(DailyLogSerializer, "List daily logs")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(DailyLogSerializer, "Retrieve a daily log")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(
        DailyLogCreateSerializer,
        DailyLogSerializer,
        "Create the daily log of a day",
        description="One log per project and date: a second for the same day is 409 "
        "`resource_already_exists` (its `object` is the existing log).",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.RESOURCE_ALREADY_EXISTS)},
    )
    def create(self, request, *args, **kwargs):
        data = self.parse(DailyLogCreateSerializer)
        return self.render(daily_logs.daily_log_create(**data), status=201)

    @update_doc(
        DailyLogUpdateSerializer,
        DailyLogSerializer,
        "Update a daily log",
        description="`manpower`, when sent, replaces every row.",
        errors={409: (ProjectErrorCode.PROJECT_CLOSED, ResourceErrorCode.RESOURCE_ALREADY_EXISTS)},
    )
    def partial_update(self, request, *args, **kwargs):
        log_id = self.visible_id()
        data = self.parse(DailyLogUpdateSerializer)
        return self.render(daily_logs.daily_log_update(daily_log_id=log_id, changes=dict(data)))
