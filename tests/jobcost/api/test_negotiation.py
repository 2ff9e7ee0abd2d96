"""Content negotiation (`jobcost.api.negotiation`): the choice DRF makes for a renderer list,
format and `Accept` header is kept per process, and a refusal never is."""

from __future__ import annotations

import pytest

from jobcost.api import negotiation
from tests.conftest import error_of


def _refused(response) -> None:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["type"], error["code"]) == ("invalid_request", "not_acceptable")


@pytest.mark.parametrize("accept", ["text/html", "application/xml;q=1"])
def test_an_unacceptable_accept_is_refused_every_time(api, accept):
    for _ in range(2):
        _refused(api.get("/v1/owners", headers={"Accept": accept}))
        response = api.get("/v1/owners", headers={"Accept": "application/json"})
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json; charset=utf-8"


def test_the_accepted_media_type_is_the_one_negotiated_for_that_header(api):
    accepts = ["*/*", "application/*", "application/json", "text/html, application/json;q=0.5"]
    first = [api.get("/v1/owners", headers={"Accept": a})["Content-Type"] for a in accepts]
    again = [api.get("/v1/owners", headers={"Accept": a})["Content-Type"] for a in accepts]
    assert first == again == ["application/json; charset=utf-8"] * len(accepts)


def test_what_is_remembered_is_bounded(api, monkeypatch):
    monkeypatch.setattr(negotiation, "_chosen", {})
    monkeypatch.setattr(negotiation, "MAX_REMEMBERED", 3)
    for n in range(6):
        response = api.get("/v1/owners", headers={"Accept": f"application/json;v={n}"})
        assert response.status_code == 200
    assert len(negotiation._chosen) == 3
