"""Buttons on an object's change page that run one service step after a confirmation page.

A `Step` names the button ("Approve"), the API action whose role policy decides who may press
it (`approve`, `partial_update`, …), when the object offers it (its status), what the page says
will happen, the form the page asks (none, a "Reason" textarea, a date and a link, …) and the
service call. `ObjectSteps` (mixed into a `TenantAdmin`) adds one URL per step,
`<object id>/<step slug>/`: GET shows the confirmation page (`admin/jobcost/object_step.html`,
extending the admin's base template, CSRF, a real "Confirm" button), POST runs the service in a
transaction. A refusal re-renders the page with the service's message next to the form and
writes nothing; success redirects to the change page with a message. The object is read
through the admin's own `get_object` (the account's rows only: another account's object is
404) and the step through `TenantAdmin._may` (operators: Django's change permission on the
model).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from jobcost.admin.base import REFUSALS, is_operator
from jobcost.errors import ApiError, translate


class NoForm(forms.Form):
    """A confirmation that asks nothing."""


@dataclass(frozen=True)
class Step:
    """One button of an object page.

    `slug` is the URL part and the URL name's suffix; `label` the button's text;
    `policy_action` the API action it stands for (`_may`); `offered(obj)` whether the object's
    state offers it (the service still decides); `explain(obj)` what will happen, in the
    accountant's words; `form` the page's form class (`NoForm`, `ReasonForm`, …, built as
    `form(data, obj=obj)` when it takes `obj`); `run(obj, cleaned_data)` the service call,
    returning the object; `done(obj)` the success message; `refusal(obj, error)` an optional
    rewording of a refusal (`ApiError`) in the accountant's words; `figures(obj)` the
    (label, dollars) rows the page shows (what will be certified, the contract before and
    after, …) and `details(obj)` an optional table ({"title", "id", "columns", "rows"})."""

    slug: str
    label: str
    policy_action: str
    offered: Callable[[Any], bool]
    explain: Callable[[Any], str]
    run: Callable[[Any, dict], Any]
    done: Callable[[Any], str]
    form: type[forms.Form] = NoForm
    form_takes_object: bool = False
    refusal: Callable[[Any, ApiError], str] | None = None
    not_offered: Callable[[Any], str] | None = None
    figures: Callable[[Any], list[tuple[str, str]]] | None = None
    details: Callable[[Any], dict | None] | None = None

    def make_form(self, obj, data=None) -> forms.Form:
        """The step's form, bound to `data` when given."""
        if self.form_takes_object:
            return self.form(data, obj=obj)
        return self.form(data)


class ObjectSteps:
    """Mixin for a `TenantAdmin`: `steps` become buttons on the change page and confirmation
    pages at `<object id>/<slug>/` (see the module docstring)."""

    steps: tuple[Step, ...] = ()
    step_template = "admin/jobcost/object_step.html"
    change_form_template = "admin/jobcost/change_form.html"

    def _step_url_name(self, step: Step) -> str:
        opts = self.model._meta
        return f"{opts.app_label}_{opts.model_name}_{step.slug.replace('-', '_')}"

    def step_url(self, step: Step, obj: models.Model) -> str:
        """The confirmation page of `step` for `obj`."""
        return reverse(f"admin:{self._step_url_name(step)}", args=[quote(obj.pk)])

    def may_step(self, request, step: Step) -> bool:
        """Operators: Django's change permission; members: the API policy of the step."""
        if is_operator(request):
            # Django's change permission on the model (not the admin's `has_change_permission`,
            # which a view-only page such as a pay app's turns off).
            opts = self.model._meta
            return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")
        return self._may(request, step.policy_action)

    def get_urls(self):
        own = [
            path(
                f"<path:object_id>/{step.slug}/",
                self.admin_site.admin_view(self._step_view(step)),
                name=self._step_url_name(step),
            )
            for step in self.steps
        ]
        return [*own, *super().get_urls()]

    def step_buttons(self, request, obj) -> list[tuple[str, str]]:
        """(label, URL) of the steps `obj` offers and the user may take, in order."""
        return [
            (step.label, self.step_url(step, obj))
            for step in self.steps
            if step.offered(obj) and self.may_step(request, step)
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        extra_context = dict(extra_context or {})
        if obj is not None:
            extra_context["step_buttons"] = self.step_buttons(request, obj)
        return super().change_view(request, object_id, form_url, extra_context)

    def _step_view(self, step: Step) -> Callable:
        def view(request, object_id):
            return self.step_view(request, object_id, step)

        view.__name__ = f"{step.slug.replace('-', '_')}_view"
        return view

    def step_view(self, request, object_id: str, step: Step):
        """GET: the confirmation page; POST: run the step (see the module docstring)."""
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404(f"No {self.model._meta.verbose_name} with that ID.")
        if not self.may_step(request, step):
            raise PermissionDenied
        refusal = None
        if request.method == "POST":
            form = step.make_form(obj, request.POST)
            if step.not_offered is not None and not step.offered(obj):
                refusal = step.not_offered(obj)
            elif form.is_valid():
                try:
                    with transaction.atomic():
                        done = step.run(obj, form.cleaned_data)
                except REFUSALS as exc:
                    error = translate(exc)
                    refusal = step.refusal(obj, error) if step.refusal else error.message
                    if error.param and error.param in form.fields:
                        form.add_error(error.param, refusal)
                        refusal = None
                else:
                    self.message_user(request, step.done(done), messages.SUCCESS)
                    change = reverse(
                        f"admin:{self.model._meta.app_label}_{self.model._meta.model_name}_change",
                        args=[quote(obj.pk)],
                    )
                    return HttpResponseRedirect(change)
        else:
            form = step.make_form(obj)
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "opts": opts,
            "object": obj,
            "title": f"{step.label} ({opts.verbose_name})",
            "step": step,
            "explanation": step.explain(obj),
            "offered": step.offered(obj),
            "form": form,
            "refusal": refusal,
            "figures": step.figures(obj) if step.figures else [],
            "details": step.details(obj) if step.details else None,
            "change_url": reverse(
                f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)]
            ),
        }
        return TemplateResponse(request, self.step_template, context, status=200)
