"""Error pages of the back office: under /admin/ a refusal, a missing page or a failure is an
HTML page in the admin's look, never the API's JSON envelope (docs/backoffice/pay-apps.md,
"Error pages"). Everywhere else the API's handlers answer.
"""

from __future__ import annotations

from django.contrib import admin
from django.template.response import TemplateResponse

from jobcost.api import errors as api_errors

ADMIN_PREFIX = "/admin/"
PAGES = {
    400: ("Bad request", "The request could not be read. Go back and try again."),
    403: (
        "Not allowed",
        "Your role does not allow this. Ask an administrator of your company if you need it.",
    ),
    404: ("Not found", "There is no such page or record here."),
    500: ("Something went wrong", "The error was logged. Try again in a moment."),
}


def _page(request, status: int) -> TemplateResponse:
    title, message = PAGES[status]
    context = {**admin.site.each_context(request), "title": title, "message": message}
    response = TemplateResponse(request, "admin/jobcost/error.html", context, status=status)
    return response.render()


def _is_admin(request) -> bool:
    return request.path.startswith(ADMIN_PREFIX)


def handler400(request, exception=None):
    """400: the admin's page under /admin/, the API envelope elsewhere."""
    if _is_admin(request):
        return _page(request, 400)
    return api_errors.handler400(request, exception)


def handler403(request, exception=None):
    """403: the admin's page under /admin/, the API envelope elsewhere."""
    if _is_admin(request):
        return _page(request, 403)
    return api_errors.handler403(request, exception)


def handler404(request, exception=None):
    """404: the admin's page under /admin/, the API envelope elsewhere."""
    if _is_admin(request):
        return _page(request, 404)
    return api_errors.handler404(request, exception)


def handler500(request):
    """500: the admin's page under /admin/ (rendered without the user's context, which may
    be what failed), the API envelope elsewhere."""
    if _is_admin(request):
        try:
            return _page(request, 500)
        except Exception:  # the admin context itself failed: fall back to the envelope
            return api_errors.handler500(request)
    return api_errors.handler500(request)
