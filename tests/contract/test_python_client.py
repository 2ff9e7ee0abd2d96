"""The Python client generated from /v1/openapi.json by openapi-python-client (pinned in
requirements.txt) builds with no warning, installs, and works against a live server: list,
follow `next_cursor`, create with an Idempotency-Key (and replay it), read an error envelope
(docs/openapi.md, "OpenAPI schema and SDKs")."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from jobcost.models import Vendor

BIN = Path(sys.executable).parent
PACKAGE = "job_cost_api_client"
# The repository's generator settings (application/pdf read as bytes), as docs/openapi.md says.
CONFIG = Path(__file__).resolve().parents[2] / "openapi-python-client.yml"


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",  # pip would ask PyPI for a newer pip
    }
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False
    )


@pytest.fixture
def client_package(seeded_server, tmp_path):
    """Generate the client from the live schema, `pip install` it into a directory of its
    own, and import it from there; removed from sys.path and sys.modules afterwards."""
    schema = tmp_path / "openapi.json"
    schema.write_bytes(httpx.get(f"{seeded_server.url}/v1/openapi.json").content)
    generated = _run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            f"--path={schema}",
            "--meta=setup",
            f"--config={CONFIG}",
            f"--output-path={tmp_path / 'client'}",
        ],
        tmp_path,
    )
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "warning" not in output.lower(), output
    site = tmp_path / "site"
    installed = _run(
        [
            str(BIN / "pip"),
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            f"--target={site}",
            str(tmp_path / "client"),
        ],
        tmp_path,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    sys.path.insert(0, str(site))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.mark.postgres
def test_generated_client_lists_paginates_creates_and_reads_errors(seeded_server, client_package):
    vendors_list = importlib.import_module(f"{PACKAGE}.api.vendors.vendors_list")
    vendors_retrieve = importlib.import_module(f"{PACKAGE}.api.vendors.vendors_retrieve")
    owners_create = importlib.import_module(f"{PACKAGE}.api.owners.owners_create")
    models = importlib.import_module(f"{PACKAGE}.models")
    unset = importlib.import_module(f"{PACKAGE}.types").UNSET
    client = client_package.AuthenticatedClient(
        base_url=seeded_server.url, token=seeded_server.secret
    )

    # List, following next_cursor page by page: every vendor once, newest first.
    seen, cursor, pages = [], unset, 0
    while True:
        page = vendors_list.sync(client=client, limit=5, cursor=cursor)
        assert isinstance(page, models.PaginatedVendorList), page
        seen += [vendor.id for vendor in page.data]
        pages += 1
        if not page.has_more:
            assert page.next_cursor is None
            break
        assert page.next_cursor.startswith("cur_")
        cursor = page.next_cursor
    expected = list(
        Vendor.objects.filter(account=seeded_server.account)
        .order_by("-created_at", "-id")
        .values_list("id", flat=True)
    )
    assert seen == expected and pages == -(-len(expected) // 5) > 1

    # Create with an Idempotency-Key; the same key and body replay the stored response.
    body = models.OwnerCreateRequest(name="Harbor School District")
    created = owners_create.sync_detailed(client=client, body=body, idempotency_key="sdk-1")
    assert created.status_code == 201, created.content
    assert isinstance(created.parsed, models.Owner) and created.parsed.name == body.name
    replayed = owners_create.sync_detailed(client=client, body=body, idempotency_key="sdk-1")
    assert replayed.status_code == 201
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.parsed.id == created.parsed.id

    # An error is the envelope: ErrorResponse → ErrorObject, typed.
    missing = vendors_retrieve.sync_detailed(client=client, id="vnd_missing")
    assert missing.status_code == 404
    error = missing.parsed.error
    assert isinstance(error, models.ErrorObject)
    assert (error.type_, error.code, error.param) == ("not_found", "resource_missing", "id")
    assert error.request_id == missing.headers["Request-Id"]
