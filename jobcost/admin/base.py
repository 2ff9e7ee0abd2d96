"""The admin as a client of the services (STYLE §10).

`ServiceAdmin` never saves a model itself. Its forms end validation by calling the entity's
service function (`project_create`, `commitment_update`, …) inside a savepoint: a refusal
(`ApiError`, or Django's `ValidationError` from the service's own checks) becomes a form
error on the field the service named, the savepoint rolls back, and the page re-renders, so a
refused edit writes nothing and never shows a 500. On success the admin's own
`save_model`/`save_related` have nothing left to do. Deleting is off: no service deletes.

Admin requests are audited with the signed-in user as actor by
`audit.middleware.AdminActorMiddleware`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import models, transaction

from jobcost.admin.display import dollars
from jobcost.api.errors import ApiError, translate

REFUSALS = (ApiError, forms.ValidationError)


class ServiceForm(forms.ModelForm):
    """A ModelForm whose last validation step is the service call.

    `ServiceAdmin.get_form` binds `service_admin`, `service_request` and `service_obj` (None
    when adding) on the generated class. After the form's own field and model validation
    pass, `full_clean` runs `service_admin.service_save(...)` in a savepoint and keeps the
    saved object in `saved_object`; a refusal is added as a form error instead."""

    service_admin: ServiceAdmin | None = None
    service_request = None
    service_obj: models.Model | None = None
    saved_object: models.Model | None = None

    def full_clean(self) -> None:
        super().full_clean()
        if not self.is_bound or self._errors or self.service_admin is None:
            return
        try:
            with transaction.atomic():
                self.saved_object = self.service_admin.service_save(
                    self.service_request, self, self.service_obj
                )
        except REFUSALS as exc:
            self.saved_object = None
            error = translate(exc)
            field = self.service_admin.param_fields.get(error.param, error.param)
            self.add_error(field if field in self.fields else None, error.message)


class ServiceAdmin(admin.ModelAdmin):
    """Base of every writable admin: saves through `service_create` / `service_update`.

    Subclasses set `add_form`/`change_form` (ServiceForm subclasses), `add_fieldsets`/
    `change_fieldsets`, `change_readonly` (computed or service-owned fields shown on the
    change page), `param_fields` (service `param` → form field, for placing errors) and
    implement the two service hooks."""

    add_form: type[ServiceForm] = ServiceForm
    change_form: type[ServiceForm] = ServiceForm
    add_fieldsets: tuple = ()
    change_fieldsets: tuple = ()
    change_readonly: tuple[str, ...] = ()
    param_fields: dict[str | None, str] = {}
    save_as = False

    def service_create(self, request, data: dict[str, Any]) -> models.Model:
        """Create through the service from the form's cleaned data; return the object."""
        raise NotImplementedError

    def service_update(self, request, obj: models.Model, changes: dict[str, Any]) -> models.Model:
        """Apply `changes` (only the fields the user changed) through the service."""
        raise NotImplementedError

    def service_save(self, request, form: ServiceForm, obj: models.Model | None) -> models.Model:
        """Dispatch to `service_create` or `service_update` with the changed fields only."""
        if obj is None:
            return self.service_create(request, form.cleaned_data)
        changes = {
            name: form.cleaned_data[name] for name in form.changed_data if name in form.cleaned_data
        }
        return self.service_update(request, obj, changes)

    def get_fieldsets(self, request, obj=None):
        return self.add_fieldsets if obj is None else self.change_fieldsets

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.change_readonly

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs.setdefault("form", self.add_form if obj is None else self.change_form)
        form = super().get_form(request, obj, change=change, **kwargs)
        form.service_admin = self
        form.service_request = request
        form.service_obj = obj
        return form

    def save_form(self, request, form, change):
        return form.saved_object

    def save_model(self, request, obj, form, change) -> None:
        """Nothing to do: the service saved (and audited) the object during validation."""

    def save_related(self, request, form, formsets, change) -> None:
        """Nothing to do: services own relations (e.g. an API key's projects); inlines of a
        ServiceAdmin are read-only."""

    def construct_change_message(self, request, form, formsets, add):
        # The (read-only) inline formsets were never saved, so only the form's changes count.
        return super().construct_change_message(request, form, [], add)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        # A POST that re-renders the form did not succeed as a whole (e.g. an inline's
        # management data was missing after the service ran): undo the service's write too.
        form = context["adminform"].form
        if request.method == "POST" and getattr(form, "saved_object", None) is not None:
            transaction.set_rollback(True)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record nobody edits by hand (audit entries, stored idempotent responses)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def money_column(attr: str, description: str, *, ordering: str | None = None) -> Callable:
    """An admin display method showing `obj.<attr>` (cents) as dollars in `obj.currency`."""

    @admin.display(description=description, ordering=ordering)
    def column(self, obj) -> str:
        return dollars(getattr(obj, attr), obj.currency)

    column.__name__ = f"{attr}_display"
    return column


def run_each(
    modeladmin: admin.ModelAdmin,
    request,
    objects: Iterable[models.Model],
    service: Callable[[models.Model], models.Model],
    done: str,
) -> None:
    """Run a transition service on each selected object and report each outcome: `<obj>:
    <done>.` on success, `<obj>: <the service's message>` on refusal (its transaction rolled
    back; the others still run)."""
    for obj in objects:
        try:
            service(obj)
        except REFUSALS as exc:
            modeladmin.message_user(request, f"{obj}: {translate(exc).message}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{obj}: {done}.", messages.SUCCESS)
