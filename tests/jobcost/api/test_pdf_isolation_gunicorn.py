"""20 concurrent PDFs of a 1,000-line draft pay app from one account never hold another
account's read more than 1 s (docs/operations/limits.md, "Rendering PDFs").

A real gunicorn of `config/gunicorn.conf.py` as production runs it (the gthread worker, 4
threads a worker; one worker, so every request shares it: the hardest case) on the test
database and Redis. One account's key fires 20 requests for the PDF at once; meanwhile another
account's key reads `GET /v1/projects` over and over, timed, until every PDF request has its
answer. Each PDF request gets the PDF or a clean 429 envelope (`too_many_renders` past the
account's 2 renderings at once, `rate_limited` past its tokens), and every read answers in
under a second.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from tests.factories import AccountFactory, ProjectFactory, make_key
from tests.jobcost.api.long_pay_app import make_long_draft
from tests.live_gunicorn import database_url, gunicorn

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

PDF_REQUESTS = 20
READ_LIMIT_SECONDS = 1.0


def _fire_pdfs(base: str, secret: str, pay_app_id: str, results: list, gate: threading.Barrier):
    with httpx.Client(base_url=base, timeout=60) as client:
        gate.wait()
        started = time.monotonic()
        response = client.get(
            f"/v1/pay-apps/{pay_app_id}/pdf", headers={"Authorization": f"Bearer {secret}"}
        )
        results.append((started, time.monotonic(), response))


def test_pdfs_of_one_account_never_hold_another_accounts_read(transactional_db):
    renderer = AccountFactory(name="Renders a lot")
    pay_app = make_long_draft(renderer, lines=1_000)
    _, renderer_secret = make_key(renderer, "viewer")  # any role that reads it may print it
    reader = AccountFactory(name="Just reads")
    for _ in range(3):
        ProjectFactory(account=reader)
    _, reader_secret = make_key(reader, "viewer")

    with gunicorn(database_url(), workers=1, threads=4) as port:
        base = f"http://127.0.0.1:{port}"
        results: list = []
        gate = threading.Barrier(PDF_REQUESTS + 1)
        threads = [
            threading.Thread(
                target=_fire_pdfs, args=(base, renderer_secret, pay_app.pk, results, gate)
            )
            for _ in range(PDF_REQUESTS)
        ]
        for thread in threads:
            thread.start()
        reads: list[tuple[float, float, int]] = []
        with httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {reader_secret}"}, timeout=30
        ) as client:
            assert client.get("/v1/projects").status_code == 200  # connected and warm
            gate.wait()
            while any(thread.is_alive() for thread in threads):
                started = time.monotonic()
                response = client.get("/v1/projects")
                reads.append((started, time.monotonic() - started, response.status_code))
        for thread in threads:
            thread.join()

    outcomes = []
    for _, _, response in results:
        if response.status_code == 200:
            assert response.headers["content-type"] == "application/pdf"
            assert response.content.startswith(b"%PDF")
            outcomes.append("pdf")
        else:
            assert response.status_code == 429, (response.status_code, response.content[:300])
            error = response.json()["error"]
            assert error["code"] in ("too_many_renders", "rate_limited"), error
            assert int(response.headers["retry-after"]) >= 1
            outcomes.append(error["code"])
    assert len(outcomes) == PDF_REQUESTS
    assert 1 <= outcomes.count("pdf") <= 2, outcomes  # never more than 2 at once
    rendering = [(start, end) for start, end, r in results if r.status_code == 200]
    during = [
        seconds
        for started, seconds, _ in reads
        if any(start <= started <= end for start, end in rendering)
    ]
    slowest = max(seconds for _, seconds, _ in reads)
    print(
        f"PDFs: {outcomes.count('pdf')} rendered in "
        f"{', '.join(f'{end - start:.2f} s' for start, end in rendering)}; "
        f"{len(reads)} reads, {len(during)} during a rendering, slowest {slowest:.3f} s, "
        f"median {sorted(s for _, s, _ in reads)[len(reads) // 2]:.3f} s"
    )
    assert all(status == 200 for _, _, status in reads)
    assert len(during) >= 3, (len(reads), rendering)
    assert slowest < READ_LIMIT_SECONDS, sorted(s for _, s, _ in reads)[-5:]
