"""Daily log shape (docs/resources.md, daily_log)."""

from rest_framework import serializers

from jobcost.api.fields import BusinessDateField, HoursField, IndexedListField
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.limits import MANPOWER_ROWS_MAX
from jobcost.serializers.refs import ref


class ManpowerSerializer(serializers.Serializer):
    trade = serializers.CharField()
    vendor = serializers.CharField(source="vendor_id", allow_null=True)
    headcount = serializers.IntegerField(min_value=0)
    hours = HoursField()


class DailyLogSerializer(ResourceSerializer):
    resource = "daily_log"
    project = serializers.CharField(source="project_id")
    date = serializers.DateField()
    weather = serializers.CharField(allow_blank=True)
    manpower = ManpowerSerializer(many=True)
    total_headcount = serializers.SerializerMethodField()
    total_hours = serializers.SerializerMethodField()
    notes = serializers.CharField(allow_blank=True)
    delays = serializers.CharField(allow_blank=True)

    def get_total_headcount(self, log) -> int:
        return sum(row.headcount for row in log.manpower.all())

    @staticmethod
    def _hours(log):
        return sum((row.hours for row in log.manpower.all()), start=0)

    def get_total_hours(self, log) -> float:
        return HoursField().to_representation(self._hours(log))


class ManpowerInputSerializer(InputSerializer):
    output = ManpowerSerializer
    trade = serializers.CharField(max_length=100)
    vendor = ref("vendor", required=False, allow_null=True)
    headcount = serializers.IntegerField(min_value=0, max_value=100_000)
    hours = HoursField()


class DailyLogCreateSerializer(InputSerializer):
    output = DailyLogSerializer
    project = ref("project")
    date = BusinessDateField()
    weather = serializers.CharField(max_length=200, required=False, allow_blank=True)
    manpower = IndexedListField(
        child=ManpowerInputSerializer(), max_length=MANPOWER_ROWS_MAX, required=False
    )
    notes = serializers.CharField(required=False, allow_blank=True)
    delays = serializers.CharField(required=False, allow_blank=True)


class DailyLogUpdateSerializer(InputSerializer):
    output = DailyLogSerializer
    date = BusinessDateField(required=False)
    weather = serializers.CharField(max_length=200, required=False, allow_blank=True)
    manpower = IndexedListField(
        child=ManpowerInputSerializer(), max_length=MANPOWER_ROWS_MAX, required=False
    )
    notes = serializers.CharField(required=False, allow_blank=True)
    delays = serializers.CharField(required=False, allow_blank=True)
