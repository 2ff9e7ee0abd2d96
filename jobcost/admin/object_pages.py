"""Pages an admin adds under one of its objects (`<object>/<page>/`): the plumbing they share —
the object read through the admin's own scoped queryset (another account's is 404), the
admin's view rule, and the page's context in the admin's frame."""

from __future__ import annotations

from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse


def object_or_404(model_admin, request, object_id: str):
    """The object as the admin shows it to this user: 404 when it is not theirs to see, 403
    when their role may not view the model at all."""
    obj = model_admin.get_object(request, unquote(object_id))
    if obj is None:
        raise Http404(f"No {model_admin.opts.verbose_name} here.")
    if not model_admin.has_view_or_change_permission(request, obj):
        raise PermissionDenied
    return obj


def page_context(model_admin, request, obj, title: str) -> dict:
    """The context an object page's template needs (frame, breadcrumbs back to the object)."""
    opts = model_admin.opts
    return {
        **model_admin.admin_site.each_context(request),
        "opts": opts,
        "title": title,
        "object": obj,
        "object_url": reverse(
            f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)]
        ),
    }


def page_url(model_admin, obj, page: str) -> str:
    """The URL of `obj`'s page named `<app>_<model>_<page>`."""
    opts = model_admin.opts
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{page}", args=[quote(obj.pk)])
