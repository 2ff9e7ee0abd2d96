"""Reading admin pages like a browser: the fields a form would post, read-only values,
messages. Parsed from the HTML the admin rendered, so the tests post what a user would."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import reverse

from jobcost.services.backoffice_users import backoffice_user_create


class _FormFields(HTMLParser):
    """Collect the successful controls of one `<form id=...>` (inputs, selects, textareas)."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.data: dict[str, list[str]] = {}
        self._select: str | None = None
        self._textarea: str | None = None
        self._text: list[str] = []

    def _add(self, name: str, value: str) -> None:
        self.data.setdefault(name, []).append(value)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
            return
        if not self.inside:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text")
            if kind in {"submit", "button", "image", "file", "reset"}:
                return
            if kind in {"checkbox", "radio"} and "checked" not in attrs:
                return
            self._add(name, attrs.get("value") or ("on" if kind == "checkbox" else ""))
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, [])
        elif tag == "option" and self._select and "selected" in attrs:
            self._add(self._select, attrs.get("value", ""))
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea" and self._textarea:
            self._add(self._textarea, "".join(self._text).lstrip("\n"))
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self._text.append(data)


def admin_url(obj, view: str = "change") -> str:
    """The admin URL of an object, with its ID quoted the admin's way (`_` → `_5F`): a raw
    prefixed ID like `prj_3Axy…` would be unquoted to another ID."""
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}", args=[quote(obj.pk)])


def form_data(response, form_id: str) -> dict[str, list[str] | str]:
    """What the page's form would post unchanged (management forms of inlines included)."""
    parser = _FormFields(form_id)
    parser.feed(response.content.decode())
    assert parser.data, f"no form #{form_id} on the page"
    return {k: v[0] if len(v) == 1 else v for k, v in parser.data.items()}


def readonly(response, field: str) -> str:
    """The text of a read-only field on a change page: the `<div class="readonly">` inside
    the form row marked `field-<name>` (and nowhere past that row)."""
    page = response.content.decode()
    start = re.search(rf"field-{re.escape(field)}\b", page)
    assert start, f"no field {field} on the page"
    row_end = page.find('class="form-row', start.end())
    row = page[start.end() : row_end if row_end != -1 else len(page)]
    match = re.search(r'<div class="readonly">(.*?)</div>', row, re.S)
    assert match, f"{field} is not a read-only field on the page"
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).strip()


def messages_of(response) -> list[tuple[str, str]]:
    """The admin messages on a page as (level, text), e.g. ("error", "J-1: …")."""
    page = response.content.decode()
    block = re.search(r'<ul class="messagelist">(.*?)</ul>', page, re.S)
    if not block:
        return []
    return [
        (level, html.unescape(text).strip())
        for level, text in re.findall(r'<li class="(\w+)">(.*?)</li>', block.group(1), re.S)
    ]


def errors_of(response) -> list[str]:
    """Every form error on a re-rendered form (field and non-field), unescaped."""
    page = response.content.decode()
    lists = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)
    return [
        html.unescape(e).strip()
        for block in lists
        for e in re.findall(r"<li>(.*?)</li>", block, re.S)
    ]


def results_text(response) -> str:
    """The list's table only (`#result_list`), unescaped: rows without the filters beside."""
    page = response.content.decode()
    start = page.find('id="result_list"')
    if start == -1:
        return ""
    return html.unescape(page[start : page.index("</table>", start)])


def text(response) -> str:
    """The page as unescaped text (for asserting a figure or message appears)."""
    return html.unescape(response.content.decode())


def member_client(account, role: str, projects=()):
    """A browser session signed in as a new back-office member of `account` with `role`
    (restricted to `projects` when given)."""
    membership = backoffice_user_create(
        account=account,
        role=role,
        email=f"{role}{len(projects) or ''}@x.example",
        projects=list(projects),
    )
    client = Client()
    client.force_login(membership.user)
    return client


def run_list_action(client: Client, list_url: str, action: str, objects) -> object:
    """Run a list's status-move action as a person does: select the objects, pick the
    action (the confirmation page comes back, listing them, and nothing has run yet), then
    press "Confirm" on that page. Returns the list page the admin redirects to."""
    selected = [obj.pk for obj in objects]
    asked = client.post(list_url, {"action": action, "_selected_action": selected})
    assert asked.status_code == 200, asked.status_code
    assert 'id="reason_form"' in asked.content.decode(), "no confirmation page"
    confirm = form_data(asked, "reason_form")
    return client.post(list_url, confirm, follow=True)


def act_on_list(client: Client, list_url: str, action: str, objects) -> object:
    """A list action as a person runs it, whether or not it is offered to them: when the
    confirmation page comes back, press "Confirm" on it; otherwise (the action is not the
    user's to run) return the page the list answered with. Returns the final page."""
    selected = [obj.pk for obj in objects]
    asked = client.post(list_url, {"action": action, "_selected_action": selected}, follow=True)
    if 'id="reason_form"' not in asked.content.decode():
        return asked
    return client.post(list_url, form_data(asked, "reason_form"), follow=True)
