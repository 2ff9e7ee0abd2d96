"""The admin as a client of the services (docs/architecture.md).

`ServiceAdmin` never saves a model itself. Its forms end validation by calling the entity's
service function (`project_create`, `commitment_update`, …) inside a savepoint: a refusal
(`ApiError`, or Django's `ValidationError` from the service's own checks) becomes a form
error on the field the service named, the savepoint rolls back, and the page re-renders, so a
refused edit writes nothing and never shows a 500. On success the admin's own
`save_model`/`save_related` have nothing left to do. Deleting is off: no service deletes.

Admin requests are audited with the signed-in user as actor by
`audit.middleware.AdminActorMiddleware`.

Tenancy and roles (docs/backoffice/month.md) are decided here, for every registered admin, by
`TenantAdmin`: a back-office user (`Membership`) reads only their account's rows, and their
projects' when
restricted, through the API's `Scope` (`request_scope`), and may do in the admin exactly what
their role may do through the API: each page and action names the API route it stands for
and `jobcost.api.policy.authorize` decides. Operator superusers see every account and keep
Django's permissions. `enforce_tenancy` wraps every other registered admin (Django's users
and groups, …) so that only operators reach it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.filters import RelatedOnlyFieldListFilter
from django.contrib.admin.utils import quote, unquote
from django.contrib.auth import get_permission_codename
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.db import models, transaction
from django.db.models import Sum
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from rangefilter.filters import DateRangeFilterBuilder

from jobcost.admin.display import EMPTY, accounting
from jobcost.admin.history import audit_trail_response
from jobcost.api.policy import authorize
from jobcost.errors import ApiError, Forbidden, translate
from jobcost.scope import Scope

REFUSALS = (ApiError, forms.ValidationError)
# A scope no row matches: a signed-in user who is neither an operator nor a member.
NOBODY = Scope(account_id="")


def is_operator(request) -> bool:
    """An operator superuser: sees every account, with Django's own permissions."""
    user = request.user
    return bool(user.is_active and user.is_superuser)


def membership_of(request):
    """The signed-in user's `Membership` (account, role, projects), or None."""
    if not hasattr(request, "_backoffice_membership"):
        try:
            member = request.user.backoffice_membership
        except (AttributeError, ObjectDoesNotExist):
            member = None
        request._backoffice_membership = member
    return request._backoffice_membership


def request_scope(request) -> Scope | None:
    """What the request may see: None for an operator (every account), the membership's
    `Scope` (built as an API key's) for a member, else `NOBODY`."""
    if is_operator(request):
        return None
    if not hasattr(request, "_backoffice_scope"):
        member = membership_of(request)
        request._backoffice_scope = NOBODY if member is None else Scope.for_key(member)
    return request._backoffice_scope


def role_allows(request, basename: str | None, action: str) -> bool:
    """Whether the member may do what `POST|GET /v1/<basename>` `action` does, by the API's
    policy (restricted members as restricted keys). Operators always may; a user without a
    membership, or a page with no API counterpart (`basename` None), never."""
    if is_operator(request):
        return True
    member = membership_of(request)
    if member is None or basename is None:
        return False
    scope = request_scope(request)
    try:
        authorize(role=member.role, restricted=scope.restricted, basename=basename, action=action)
    except Forbidden:
        return False
    return True


class TenantAdmin(admin.ModelAdmin):
    """The one place where the back office applies tenancy and roles (see the module
    docstring). Subclasses say which API collection they stand for (`policy_basename`; None:
    operators only), which API action each admin action is (`policy_actions`, default the
    same name) and how their rows reach the account and project (`scope_account_field`,
    `scope_project_field`, as `Scope.filter` takes them). `account_wide_only` hides the
    admin from project-restricted members (rows that span projects, e.g. the audit trail)."""

    policy_basename: str | None = None
    policy_actions: dict[str, str] = {}
    # Money columns of the list summed over the whole filtered list (not just the page) in
    # a totals row: list_display column name → the field or expression to sum (cents).
    list_totals: dict[str, Any] = {}
    scope_account_field: str = "account_id"
    scope_project_field: str | None = "project"
    account_wide_only = False

    # Reading: every queryset of the admin (lists, change pages, actions, search,
    # autocomplete, history) goes through `get_queryset` or `visible_queryset`.
    def scope_rows(self, request, queryset: models.QuerySet) -> models.QuerySet:
        """`queryset` limited to what the request may see (unchanged for operators)."""
        scope = request_scope(request)
        if scope is None:
            return queryset
        return scope.filter(queryset, self.scope_project_field, self.scope_account_field)

    def get_queryset(self, request):
        return self.scope_rows(request, super().get_queryset(request))

    def scope_choices(self, request, queryset: models.QuerySet) -> models.QuerySet:
        """A choice field's queryset limited as that model's own admin limits its rows;
        none at all for a model without a tenant admin when the user is not an operator."""
        if request_scope(request) is None:
            return queryset
        owner = self.admin_site._registry.get(queryset.model)
        if not isinstance(owner, TenantAdmin) or owner.policy_basename is None:
            return queryset.none()
        return owner.scope_rows(request, queryset)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None and hasattr(field, "queryset"):
            field.queryset = self.scope_choices(request, field.queryset)
        return field

    def get_list_filter(self, request):
        """For members: no account filter, and related filters list only the related rows
        present in the (scoped) list instead of every row of the related model."""
        filters = super().get_list_filter(request)
        if is_operator(request):
            return filters
        result = []
        for item in filters:
            if isinstance(item, str) and "__" not in item:
                if item == "account":
                    continue
                field = self.opts.get_field(item)
                if field.is_relation:
                    item = (item, RelatedOnlyFieldListFilter)
            result.append(item)
        return result

    def get_changelist_instance(self, request):
        """Django's ChangeList, with `list_totals`: the totals row of the filtered list, one
        aggregate query (cells aligned with the list's columns; money in dollars)."""
        changelist = super().get_changelist_instance(request)
        changelist.list_totals = self._list_totals(changelist) if self.list_totals else None
        return changelist

    def _list_totals(self, changelist) -> list:
        sums = changelist.queryset.order_by().aggregate(
            **{f"total_{column}": Sum(field) for column, field in self.list_totals.items()}
        )
        count = changelist.result_count
        label = f"Total ({count:,} row{'s' if count != 1 else ''})"
        cells: list = []
        for column in changelist.list_display:
            if column in self.list_totals:
                total = accounting(sums[f"total_{column}"] or 0)
                cells.append({"column": column, "value": total, "label": False})
            else:
                cells.append({"column": None, "value": "", "label": False})
        # The label takes the first cell that is not a total (the checkbox column, usually)
        # and spans the empty cells after it, so that it never widens a narrow column.
        for index, cell in enumerate(cells):
            if cell["column"] is None:
                span = 1
                while index + span < len(cells) and cells[index + span]["column"] is None:
                    span += 1
                cell.update(value=label, label=True, span=span)
                del cells[index + 1 : index + span]
                break
        return cells

    def get_paginator(self, request, queryset, per_page, *args, **kwargs):
        # The autocomplete pages `get_queryset` as it is; give it a stable order (the
        # changelist orders its own).
        if isinstance(queryset, models.QuerySet) and not queryset.ordered:
            queryset = queryset.order_by("pk")
        return super().get_paginator(request, queryset, per_page, *args, **kwargs)

    def history_view(self, request, object_id, extra_context=None):
        """The object's audit trail (`jobcost.admin.history`) in place of Django's log, for
        whoever may view the object; another account's object is 404."""
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404(f"No {self.opts.verbose_name} here.")
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        return audit_trail_response(self, request, obj)

    def _get_obj_does_not_exist_redirect(self, request, opts, object_id):
        # Another account's object is absent, as through the API: 404, not a redirect
        # that would confirm the ID by its message.
        raise Http404(f"No {opts.verbose_name} with ID {object_id!r}.")

    # Permissions: operators keep Django's; a member's come from the API policy.
    def _may(self, request, action: str) -> bool:
        scope = request_scope(request)
        if self.account_wide_only and scope is not None and scope.restricted:
            return False
        return role_allows(request, self.policy_basename, action)

    def has_module_permission(self, request) -> bool:
        if is_operator(request):
            return super().has_module_permission(request)
        return self._may(request, "retrieve")

    def has_view_permission(self, request, obj=None) -> bool:
        if is_operator(request):
            return super().has_view_permission(request, obj)
        return self._may(request, "retrieve")

    def has_add_permission(self, request) -> bool:
        if is_operator(request):
            return super().has_add_permission(request)
        return self._may(request, "create")

    def has_change_permission(self, request, obj=None) -> bool:
        if is_operator(request):
            return super().has_change_permission(request, obj)
        return self._may(request, "partial_update")

    def has_delete_permission(self, request, obj=None) -> bool:
        # No service deletes, so no member deletes; operators keep Django's answer.
        return is_operator(request) and super().has_delete_permission(request, obj)

    def _filter_actions_by_permissions(self, request, actions):
        """Operators: Django's `permissions=[...]` checks. Members: each action is allowed
        when the API route it stands for (`policy_actions`) is, by the API policy."""
        if is_operator(request):
            return super()._filter_actions_by_permissions(request, actions)
        return [
            (func, name, description)
            for func, name, description in actions
            if name != "delete_selected" and self._may(request, self.policy_actions.get(name, name))
        ]


class OperatorOnlyAdmin(TenantAdmin):
    """Mixed into admins with no API counterpart (Django's users and groups, stored
    idempotent responses): only operators see them."""

    policy_basename = None

    def get_queryset(self, request):
        queryset = super(TenantAdmin, self).get_queryset(request)
        return queryset if is_operator(request) else queryset.none()


def enforce_tenancy(site: admin.AdminSite) -> None:
    """Re-register every admin of `site` that is not a `TenantAdmin` with `OperatorOnlyAdmin`
    mixed in, so that no admin escapes the policy (run once the admins are registered)."""
    for model, model_admin in list(site._registry.items()):
        if isinstance(model_admin, TenantAdmin):
            continue
        cls = type(model_admin)
        wrapped = type(cls.__name__, (OperatorOnlyAdmin, cls), {"__module__": cls.__module__})
        site.unregister(model)
        site.register(model, wrapped)


# The request attribute that carries a refused save to the page drawn again.
SERVICE_REFUSAL = "_jobcost_service_refusal"


class ServiceRefused(Exception):
    """A service refused the save `ServiceAdmin.save_model` asked for: `error` is the
    refusal in the API's terms, shown on the form when the page is drawn again."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(error.message)
        self.error = error


class ServiceForm(forms.ModelForm):
    """A ModelForm whose data a service saves, after validation (`ServiceAdmin.save_model`).

    `ServiceAdmin.get_form` binds `service_admin`, `service_request`, `service_obj` (None
    when adding) and `service_refusal` on the generated class. Validation writes nothing;
    when the service refused the save, the page is drawn again from the same POST with
    `service_refusal` set, and `full_clean` places it on the form (`place_refusal`)."""

    service_admin: ServiceAdmin | None = None
    service_request = None
    service_obj: models.Model | None = None
    service_refusal: ApiError | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.service_admin is not None:
            for field in self.fields.values():
                if hasattr(field, "queryset"):
                    field.queryset = self.service_admin.scope_choices(
                        self.service_request, field.queryset
                    )

    def scope_choices(self, queryset: models.QuerySet) -> models.QuerySet:
        """`queryset` limited to what the signed-in user may see (for custom choices)."""
        if self.service_admin is None:
            return queryset
        return self.service_admin.scope_choices(self.service_request, queryset)

    def full_clean(self) -> None:
        super().full_clean()
        if self.is_bound and not self._errors and self.service_refusal is not None:
            self.place_refusal(self.service_refusal)

    def place_refusal(self, error: ApiError) -> None:
        """Show the service's refusal next to the field its `param` names (through the
        admin's `param_fields`), else above the form. Forms with rows of their own (lines)
        override this to put `lines[i]…` refusals on the row."""
        field = self.service_admin.param_fields.get(error.param, error.param)
        self.add_error(field if field in self.fields else None, error.message)


class ServiceAdmin(TenantAdmin):
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
        form.service_refusal = getattr(request, SERVICE_REFUSAL, None)
        return form

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """Django's add and change pages; a save the service refused (`ServiceRefused`, its
        transaction rolled back) draws the page again from the same POST, with the refusal
        on the form and nothing written."""
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ServiceRefused as refused:
            setattr(request, SERVICE_REFUSAL, refused.error)
            return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request, obj, form, change) -> None:
        """Save through `service_save` (with only the fields the user changed), which also
        writes the audit trail; `obj` then is the saved instance. A refusal raises
        `ServiceRefused` (`changeform_view` shows it on the form)."""
        try:
            with transaction.atomic():
                saved = self.service_save(request, form, form.service_obj)
        except REFUSALS as exc:
            raise ServiceRefused(translate(exc)) from exc
        # Django goes on with `obj` (the change message, the redirect, `response_add`): it
        # becomes the instance the service saved, with what the service attached to it (a new
        # API key's secret, shown once).
        vars(obj).update(vars(saved))

    def save_related(self, request, form, formsets, change) -> None:
        """Nothing to do: services own relations (e.g. an API key's projects); inlines of a
        ServiceAdmin are read-only."""

    def construct_change_message(self, request, form, formsets, add):
        # The (read-only) inline formsets were never saved, so only the form's changes count.
        return super().construct_change_message(request, form, [], add)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        form = context["adminform"].form
        if request.method == "POST" and obj is not None and form.errors:
            # A refused save shows the stored figures: the form keeps what was typed, but the
            # read-only and computed fields read the row as it is in the database, not the
            # instance the form filled from the refused input.
            stored = self.get_object(request, str(obj.pk))
            if stored is not None:
                form.instance = stored
                context["original"] = stored
        return super().render_change_form(request, context, add, change, form_url, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyAdmin(TenantAdmin):
    """A record nobody edits by hand (audit entries, stored idempotent responses)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """Child rows shown under their parent, never edited there (they change through the
    parent's service)."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def money_column(attr: str, description: str, *, ordering: str | None = None) -> Callable:
    """An admin display method showing `obj.<attr>` (cents) as dollars in `obj.currency`,
    a negative amount in parentheses (`accounting`); sortable by `ordering`."""

    @admin.display(description=description, ordering=ordering)
    def column(self, obj) -> str:
        return accounting(getattr(obj, attr), obj.currency)

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


class _EveryAccount:
    """The back office's `Scope` for `jobcost.selectors.visible`: it filters nothing (the
    staff see every account), so the admin reads rows through the same selectors, with the
    same annotations and prefetches, as the API."""

    restricted = False
    project_ids = None

    def filter(self, queryset, project_field: str | None = "project"):
        return queryset


EVERY_ACCOUNT = _EveryAccount()


def visible_queryset(modeladmin: admin.ModelAdmin, request, selector: Callable) -> models.QuerySet:
    """`selector(scope)` (e.g. `visible.pay_app_list`) in the admin's ordering: a
    `get_queryset` whose rows carry the API's annotations, scoped as the API scopes a key
    (`request_scope`; `EVERY_ACCOUNT` for operators). The admin's
    `list_select_related` is applied here, since the changelist skips it on a queryset that
    already selects related rows (as the selectors do)."""
    scope = request_scope(request)
    queryset = selector(EVERY_ACCOUNT if scope is None else scope)
    if isinstance(modeladmin.list_select_related, (list, tuple)):
        queryset = queryset.select_related(*modeladmin.list_select_related)
    ordering = modeladmin.get_ordering(request)
    return queryset.order_by(*ordering) if ordering else queryset


class TransitionActions:
    """For an admin whose change page is view-only: its status actions are allowed to whoever
    may change the model (`permissions=["transition"]` on the action)."""

    def has_transition_permission(self, request) -> bool:
        opts = self.opts
        codename = get_permission_codename("change", opts)
        return request.user.has_perm(f"{opts.app_label}.{codename}")


def project_number_column() -> Callable:
    """A list column showing the row's project by number (the name is in the filter and the
    row's page), sortable; keeps money columns in view at 1440 px."""

    @admin.display(description="Project", ordering="project__number")
    def column(self, obj) -> str:
        return obj.project.number

    column.__name__ = "project_number"
    return column


def date_range(field: str, title: str) -> tuple:
    """A list filter for a date range (from / to) on `field` (django-admin-rangefilter)."""
    return (field, DateRangeFilterBuilder(title=title))


def change_link(model: type[models.Model], pk: str | None, label: str | None = None) -> str:
    """A link to `pk`'s admin change page reading `label` (default the ID); `—` for None."""
    if pk is None:
        return EMPTY
    opts = model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(pk)])
    return format_html('<a href="{}">{}</a>', url, label or pk)


class ReasonForm(forms.Form):
    """The one confirmation form of the back office (an object page's step, `ObjectSteps`,
    and a list action, `run_each_with_reason`): a reason, a textarea labelled "Reason" of at
    most 2,000 characters — optional (`required=False`, the default), required (True:
    rejections, overrides) or not asked at all (None: the page only confirms)."""

    reason = forms.CharField(
        label="Reason", widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000
    )

    def __init__(self, *args, required: bool | None = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if required is None:
            del self.fields["reason"]
        else:
            self.fields["reason"].required = required


class RequiredReasonForm(ReasonForm):
    """`ReasonForm` that will not go on without a reason (rejections, overrides)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("required", True)
        super().__init__(*args, **kwargs)


def run_each_with_reason(
    modeladmin: admin.ModelAdmin,
    request,
    queryset: models.QuerySet,
    service: Callable[[models.Model, str], models.Model],
    done: str,
    *,
    title: str,
    required: bool | None,
    explain: str = "",
) -> TemplateResponse | None:
    """An action that first shows a confirmation page (`admin/jobcost/reason_action.html`,
    form `#reason_form`, button "Confirm") listing the selected objects, saying what will
    happen (`explain`) and asking for a reason (`required`: True required, False optional,
    None not asked), then runs `service(obj, reason)` on each selected object through
    `run_each`. Returns the page (first visit, or a missing required reason) or None once the
    action ran (the admin then redirects to the list with the per-object messages)."""
    if "_confirm" in request.POST:
        form = ReasonForm(request.POST, required=required)
        if form.is_valid():
            reason = form.cleaned_data.get("reason", "")
            run_each(modeladmin, request, queryset, lambda obj: service(obj, reason), done)
            return None
    else:
        form = ReasonForm(required=required)
    context = {
        **modeladmin.admin_site.each_context(request),
        "opts": modeladmin.opts,
        "title": title,
        "explain": explain,
        "objects": list(queryset),
        "action": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "form": form,
    }
    return TemplateResponse(request, "admin/jobcost/reason_action.html", context)


def confirm_each(
    modeladmin: admin.ModelAdmin,
    request,
    queryset: models.QuerySet,
    service: Callable[[models.Model], models.Model],
    done: str,
    *,
    title: str,
    explain: str,
) -> TemplateResponse | None:
    """A status move run from a list, after a confirmation page that lists the selected
    objects and says what the move will do (`explain`, in the accountant's words); nothing
    runs until "Confirm" is pressed. The page and the run are `run_each_with_reason`'s,
    without a reason."""
    return run_each_with_reason(
        modeladmin,
        request,
        queryset,
        lambda obj, reason: service(obj),
        done,
        title=title,
        required=None,
        explain=explain,
    )
