"""The suite's own fences (tests/network.py, tests/webhooks/resolvers.py): a connection off
loopback is refused at once and fails the test that made it, in this process and in the
processes the tests start; loopback is untouched; webhook hosts never go to DNS."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest
from django.conf import settings

from tests import network
from tests.webhooks.resolvers import PUBLIC_NAMES, offline

# Documentation addresses (RFC 5737, RFC 3849): nothing answers there.
OFF_LOOPBACK = [("192.0.2.1", 443), ("198.51.100.7", 80), ("2001:db8::1", 443)]


@pytest.mark.parametrize(("host", "port"), OFF_LOOPBACK)
def test_a_connection_off_loopback_is_refused_and_recorded(host, port):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as sock, pytest.raises(network.OutboundConnectionRefused):
        sock.connect((host, port))
    refused = network.take_refusals()  # taken here, so that this test itself passes
    assert len(refused) == 1
    assert f"a connection to {host}:{port}" in refused[0]
    assert "test_network.py" in refused[0]  # the stack names who asked


def test_a_child_process_with_the_test_settings_is_refused_and_recorded():
    code = (
        "import django, socket; django.setup(); s = socket.socket()\n"
        "try: s.connect(('203.0.113.9', 443))\n"
        "except ConnectionRefusedError as e: print(type(e).__name__)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.stdout.strip() == "OutboundConnectionRefused", run.stderr
    [refused] = network.take_refusals()
    assert "a connection to 203.0.113.9:443" in refused


def test_loopback_is_not_refused():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        for host in ("127.0.0.1", "localhost"):
            with socket.create_connection((host, port), timeout=5):
                pass
    assert network.take_refusals() == []


def test_webhook_hosts_resolve_without_dns():
    assert settings.WEBHOOKS_RESOLVER == "tests.webhooks.resolvers.offline"
    for name, answer in PUBLIC_NAMES.items():
        assert offline(name, 443) == answer
    assert offline("localhost", 443) == ["127.0.0.1"]
    with pytest.raises(socket.gaierror):
        offline("example.org", 443)  # a name the tests do not own: no lookup, no answer
