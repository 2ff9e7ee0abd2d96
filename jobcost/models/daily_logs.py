"""Daily logs (docs/resources.md, daily_log): one per project and day, with weather, the crews on
site (manpower rows), notes and delays."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index, loaded
from jobcost.models.parties import Vendor
from jobcost.models.projects import Project


class DailyLog(Audited, TimestampedModel):
    """The superintendent's record of one day on one project (unique per project and date)."""

    OBJECT = "daily_log"
    COLLECTION = "daily-logs"
    PREFIX = "dl"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="daily_logs")
    date = models.DateField()
    weather = models.CharField(max_length=200, blank=True)
    notes = models.TextField(blank=True)
    delays = models.TextField(blank=True)

    class Meta:
        indexes = [list_index("dailylog_list", "account")]
        constraints = [
            models.UniqueConstraint(fields=["project", "date"], name="dailylog_one_per_day"),
        ]

    def __str__(self) -> str:
        project = loaded(self, "project")
        return f"Daily log {self.date:%b %-d, %Y}" + (f" ({project.number})" if project else "")


class DailyLogManpower(models.Model):
    """One crew on site: `trade`, optional `vendor` (null for the contractor's own forces),
    `headcount` (workers) and `hours` (total worker-hours, exact to 2 decimals)."""

    daily_log = models.ForeignKey(DailyLog, on_delete=models.CASCADE, related_name="manpower")
    position = models.PositiveIntegerField()
    trade = models.CharField(max_length=100)
    vendor = models.ForeignKey(
        Vendor, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    headcount = models.PositiveIntegerField()
    hours = models.DecimalField(max_digits=9, decimal_places=2)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["daily_log", "position"], name="dailylogmanpower_position_unique"
            ),
            models.CheckConstraint(condition=Q(hours__gte=0), name="dailylogmanpower_hours_gte_0"),
        ]

    def __str__(self) -> str:
        return f"{self.trade} (row {self.position})"
