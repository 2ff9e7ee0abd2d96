"""Status moves as buttons on an object's page, each behind a confirmation page
(docs/backoffice/month.md, "Confirmations").

An admin mixing in `TransitionPages` lists its `transitions`; its object page shows a button
for each one the object's status allows and the user's role may do (the API action named by
the transition, decided by `policy.authorize` through `TenantAdmin._may`). The button opens
`<object>/confirm/<slug>/`: GET says what will happen (with the figures the admin chooses)
and asks for a reason where one is asked; POST runs the service in a transaction. A refusal
is shown on the confirmation page in the service's words and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from jobcost.admin.base import REFUSALS
from jobcost.api.errors import translate


@dataclass(frozen=True)
class Transition:
    """One status move of an object's page.

    `slug` is its URL part, `label` the button, `action` the API action whose role rule
    applies, `statuses` the statuses it is offered in, `reason` whether a reason is asked
    (None: not asked; True: required; False: optional), `explain` what the confirmation page
    says will happen, `run(obj, reason)` the service call and `done` the message after it.
    `offered(obj)`, when given, narrows where it is offered (e.g. only with waivers missing)."""

    slug: str
    label: str
    action: str
    statuses: tuple[str, ...]
    reason: bool | None
    explain: str
    run: Callable[[models.Model, str], models.Model]
    done: str
    offered: Callable[[models.Model], bool] | None = None

    def applies_to(self, obj: models.Model) -> bool:
        """Whether the object's page offers this move now."""
        if obj.status not in self.statuses:
            return False
        return self.offered is None or self.offered(obj)


class ReasonForm(forms.Form):
    """The reason a confirmation asks (required or optional)."""

    reason = forms.CharField(
        label="Reason", widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000
    )

    def __init__(self, *args, required: bool, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reason"].required = required


class TransitionPages:
    """Mixed into a `TenantAdmin`: the buttons and their confirmation pages (module
    docstring). Subclasses set `transitions` and may override `transition_figures` (label,
    dollars) rows shown on the page) and `transition_details` (a table: title, columns,
    rows)."""

    transitions: tuple[Transition, ...] = ()
    change_form_template = "admin/jobcost/change_form.html"

    def transition_figures(self, obj) -> list[tuple[str, str]]:
        """The figures the confirmation page shows for `obj` (label, dollars)."""
        return []

    def transition_details(self, obj, step: Transition) -> dict | None:
        """An optional table for the page: {"title", "columns", "rows", "id"}."""
        return None

    def _url_name(self, view: str) -> str:
        return f"{self.opts.app_label}_{self.opts.model_name}_{view}"

    def get_urls(self):
        confirm = path(
            "<path:object_id>/confirm/<slug:transition>/",
            self.admin_site.admin_view(self.transition_view),
            name=self._url_name("transition"),
        )
        return [confirm, *super().get_urls()]

    def transition_buttons(self, request, obj) -> list[dict]:
        """The buttons the object's page shows: label and URL of each offered move."""
        return [
            {
                "label": step.label,
                "url": reverse(
                    f"admin:{self._url_name('transition')}", args=[quote(obj.pk), step.slug]
                ),
            }
            for step in self.transitions
            if step.applies_to(obj) and self._may(request, step.action)
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404(f"No {self.opts.verbose_name} here.")
        context = dict(extra_context or {})
        context.setdefault("transition_buttons", self.transition_buttons(request, obj))
        return super().change_view(request, object_id, form_url, context)

    def transition_view(self, request, object_id, transition):
        """GET: what will happen; POST: do it (then back to the object's page)."""
        obj = self.get_object(request, unquote(object_id))
        step = next((t for t in self.transitions if t.slug == transition), None)
        if obj is None or step is None:
            raise Http404(f"No {self.opts.verbose_name} here.")
        if not self._may(request, step.action):
            raise PermissionDenied
        object_url = reverse(f"admin:{self._url_name('change')}", args=[quote(obj.pk)])
        form = None
        if step.reason is not None:
            form = ReasonForm(request.POST or None, required=step.reason)
        refusal = None
        if request.method == "POST" and (form is None or form.is_valid()):
            reason = form.cleaned_data["reason"] if form is not None else ""
            try:
                with transaction.atomic():
                    step.run(obj, reason)
            except REFUSALS as exc:
                refusal = translate(exc).message
            else:
                self.message_user(request, f"{obj}: {step.done}", messages.SUCCESS)
                return HttpResponseRedirect(object_url)
            obj = self.get_object(request, unquote(object_id))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"{step.label}: {obj}",
            "object": obj,
            "object_url": object_url,
            "transition": step,
            "form": form,
            "refusal": refusal,
            "figures": self.transition_figures(obj),
            "details": self.transition_details(obj, step),
        }
        return TemplateResponse(request, "admin/jobcost/confirm_transition.html", context)
