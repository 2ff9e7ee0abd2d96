"""Agent actions: proposals read and decided in the back office, never written by hand.

Proposals come from the API (`POST /v1/agents/actions`); here they are listed and read
(payload and failure as indented JSON), and approved or rejected with actions calling the
same services as `POST /v1/agents/actions/{id}/approve|reject`. Approval runs the payload
through the real endpoint's parsing and service in the action's own account (an admin user
sees the whole account); a rule that refuses it leaves nothing written and marks the action
`failed`, shown as a warning with the failure's code and message. Rejecting asks for a
reason on an intermediate page: the reason is required here (the API allows none) because a
rejected proposal without a why teaches the agent, and the next reviewer, nothing; it is
stored as `rejection_reason` and as the note of the audit entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.html import format_html

from jobcost.admin.base import (
    REFUSALS,
    ReadOnlyAdmin,
    ReasonForm,
    TransitionActions,
    change_link,
    request_scope,
    visible_queryset,
)
from jobcost.admin.display import EMPTY
from jobcost.admin.history import NAMED_THROUGH
from jobcost.errors import translate
from jobcost.models import (
    AgentAction,
    AgentActionStatus,
    ApiKey,
    BudgetLine,
    ChangeOrder,
    DailyLog,
    Invoice,
    Rfi,
)
from jobcost.scope import Scope
from jobcost.selectors import visible
from jobcost.services import agent_actions

TIMESTAMPS = ("created_at", "updated_at")

#: The model an action changes (`target`, for updates) or creates (`result`).
OBJECT_MODELS = {
    "invoice.code": Invoice,
    "change_order.create": ChangeOrder,
    "rfi.create": Rfi,
    "daily_log.create": DailyLog,
    "budget.update": BudgetLine,
}


def pretty_json(value) -> str:
    """`value` as indented JSON in a `<pre>` (escaped); `—` for None."""
    if value is None:
        return EMPTY
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return format_html('<pre class="json">{}</pre>', text)


def actor_label(actor: dict | None) -> str:
    """`api_key ak_… (agent)`, `user accountant (superuser)`, `system`; `—` for None."""
    if not actor:
        return EMPTY
    label = " ".join(str(part) for part in (actor.get("type"), actor.get("id")) if part)
    return f"{label} ({actor['role']})" if actor.get("role") else label


def failure_summary(failure: dict | None) -> str:
    """`code: message (param)` of a failed approval's error object."""
    if not failure:
        return EMPTY
    text = f"{failure.get('code')}: {failure.get('message')}"
    return f"{text} (param {failure['param']})" if failure.get("param") else text


def _record_names(proposals) -> None:
    """Name the target, the result and the proposing key of each proposal, from its own
    account only, in one query per kind of record whatever the accounts on the page:
    `_names_of(proposal)` then maps each such ID to its name."""
    proposals = list(proposals)
    wanted: dict[type, set[str]] = {}
    for proposal in proposals:
        model = OBJECT_MODELS[proposal.action]
        wanted.setdefault(model, set()).update(
            pk for pk in (proposal.target, proposal.result) if pk
        )
        key = (proposal.proposed_by or {}).get("id")
        if key:
            wanted.setdefault(ApiKey, set()).add(key)
    names: dict[tuple[str, str], str] = {}
    for model, ids in wanted.items():
        rows = model._default_manager.filter(pk__in=ids)
        rows = rows.select_related(*(NAMED_THROUGH & {f.name for f in model._meta.fields}))
        for row in rows:
            label = (row.name or "unnamed key") if model is ApiKey else str(row)
            names[(row.account_id, row.pk)] = label
    for proposal in proposals:
        proposal.__dict__["_record_names"] = {
            pk: name for (account, pk), name in names.items() if account == proposal.account_id
        }


def _names_of(proposal: AgentAction) -> dict[str, str]:
    """The names `_record_names` gave, or (on a proposal's own page) named now."""
    if "_record_names" not in proposal.__dict__:
        _record_names([proposal])
    return proposal.__dict__["_record_names"]


def proposal_label(proposal: AgentAction) -> str:
    """`Create an RFI (aa_…)`: how messages and the reason page name a proposal."""
    return f"{proposal.get_action_display()} ({proposal.pk})"


@dataclass(frozen=True)
class _Listed:
    """A selected proposal on the reason page: its ID (posted back) and its label."""

    pk: str
    label: str

    def __str__(self) -> str:
        return self.label


@admin.register(AgentAction)
class AgentActionAdmin(TransitionActions, ReadOnlyAdmin):
    """Agent proposals: read-only pages; approve and reject (with a reason) are actions."""

    policy_basename = "agent-actions"

    fieldsets = (
        (None, {"fields": ["id", "project", "action", "target_link", "status"]}),
        ("Proposal", {"fields": ["payload_display", "rationale", "proposed_by_display"]}),
        (
            "Decision",
            {
                "fields": [
                    "decided_by_display",
                    "decided_at",
                    "result_link",
                    "failure_summary_display",
                    "failure_display",
                    "rejection_reason",
                ]
            },
        ),
        ("Timestamps", {"fields": TIMESTAMPS}),
    )
    readonly_fields = tuple(name for _title, box in fieldsets for name in box["fields"])
    # Read by names, not IDs (docs/backoffice/month.md, "Names, not IDs"); the ID is on the
    # proposal's own page.
    list_display = (
        "action",
        "project",
        "target_link",
        "status",
        "proposed_by_display",
        "created_at",
        "result_link",
    )
    list_display_links = ("action",)
    list_select_related = ("project",)
    list_filter = ("status", "action", "project")
    search_fields = ("=id", "=target", "=result", "rationale")
    ordering = ("-created_at", "-id")
    actions = ("approve", "reject")

    def get_queryset(self, request):
        return visible_queryset(self, request, visible.agent_action_list)

    def get_changelist_instance(self, request):
        """The list's page, with every record and key its rows mention named in one query
        per kind of record (`_record_names`)."""
        changelist = super().get_changelist_instance(request)
        _record_names(changelist.result_list)
        return changelist

    @admin.display(description="Proposed by")
    def proposed_by_display(self, agent_action: AgentAction) -> str:
        actor = agent_action.proposed_by or {}
        name = _names_of(agent_action).get(actor.get("id") or "")
        if name is None or actor.get("type") != "api_key":
            return actor_label(actor)
        role = f" ({actor['role']})" if actor.get("role") else ""
        return f"API key {name}{role}"

    @admin.display(description="Decided by")
    def decided_by_display(self, agent_action: AgentAction) -> str:
        return actor_label(agent_action.decided_by)

    @admin.display(description="Payload")
    def payload_display(self, agent_action: AgentAction) -> str:
        return pretty_json(agent_action.payload)

    @admin.display(description="Failure")
    def failure_summary_display(self, agent_action: AgentAction) -> str:
        return failure_summary(agent_action.failure)

    @admin.display(description="Failure (error object)")
    def failure_display(self, agent_action: AgentAction) -> str:
        return pretty_json(agent_action.failure)

    @admin.display(description="Target")
    def target_link(self, agent_action: AgentAction) -> str:
        target = agent_action.target or None
        label = _names_of(agent_action).get(target or "")
        return change_link(OBJECT_MODELS[agent_action.action], target, label)

    @admin.display(description="Result")
    def result_link(self, agent_action: AgentAction) -> str:
        result = agent_action.result or None
        label = _names_of(agent_action).get(result or "")
        return change_link(OBJECT_MODELS[agent_action.action], result, label)

    def _each(self, request, proposals, decide) -> None:
        """Run `decide(proposal) -> (message level, outcome)` on each proposal and report
        `<label>: <outcome>`; a refusal (its transaction rolled back, the others still run)
        is reported as an error with the service's message."""
        for proposal in proposals:
            try:
                level, outcome = decide(proposal)
            except REFUSALS as exc:
                level, outcome = messages.ERROR, translate(exc).message
            self.message_user(request, f"{proposal_label(proposal)}: {outcome}", level)

    def _confirmed(self, request, queryset, decide, *, title: str, explain: str, reason: bool):
        """`run_each_with_reason`'s confirmation page (same template and form), with the
        proposals labelled by kind and ID since the model's own `str` is the bare action
        name; nothing runs until Confirm. `decide(proposal, reason)` runs on each then
        (`reason`: a required reason is asked, else none)."""
        proposals = list(queryset)
        required = True if reason else None
        form = ReasonForm(request.POST if "_confirm" in request.POST else None, required=required)
        if form.is_bound and form.is_valid():
            typed = form.cleaned_data.get("reason", "")
            self._each(request, proposals, lambda proposal: decide(proposal, typed))
            return None
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "explain": explain,
            "objects": [_Listed(p.pk, proposal_label(p)) for p in proposals],
            "action": request.POST.get("action", ""),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "form": form,
        }
        return TemplateResponse(request, "admin/jobcost/reason_action.html", context)

    @admin.action(
        description="Approve selected (runs the proposal through the API's rules)…",
        permissions=["transition"],
    )
    def approve(self, request, queryset):
        def decide(proposal: AgentAction, _reason: str) -> tuple[int, str]:
            # A member approves within their own scope, as their key would; an operator in
            # the proposal's account.
            scope = request_scope(request) or Scope(account_id=proposal.account_id)
            decided = agent_actions.agent_action_approve(agent_action_id=proposal.pk, scope=scope)
            if decided.status == AgentActionStatus.APPROVED:
                return messages.SUCCESS, f"approved, result {decided.result}."
            summary = failure_summary(decided.failure)
            return messages.WARNING, f"approval failed, nothing written. {summary}"

        return self._confirmed(
            request,
            queryset,
            decide,
            title="Approve agent actions",
            explain="Each proposal runs now through the same rules as the API, as if you had "
            "made the request; one that the rules refuse writes nothing.",
            reason=False,
        )

    @admin.action(description="Reject selected (asks for a reason)…", permissions=["transition"])
    def reject(self, request, queryset):
        def decide(proposal: AgentAction, reason: str) -> tuple[int, str]:
            agent_actions.agent_action_reject(agent_action_id=proposal.pk, reason=reason)
            return messages.SUCCESS, "rejected."

        return self._confirmed(
            request,
            queryset,
            decide,
            title="Reject agent actions",
            explain="Each proposal is rejected with your reason, which the agent reads back; "
            "nothing it proposed is written.",
            reason=True,
        )
