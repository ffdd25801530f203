"""The rule for tests that need PostgreSQL and Redis: skipped with the reason when a server does
not answer, failed instead when RECEIPT_REQUIRE_SERVICES=1 (CI)."""

from __future__ import annotations

import pytest

from tests.server.appprocess import free_port
from tests.server.services import _probe, unavailable


def test_an_absent_server_is_named() -> None:
    port = free_port()  # nothing listens there
    problem = _probe(f"postgresql://postgres@127.0.0.1:{port}/test", f"redis://127.0.0.1:{port}/0")
    assert problem is not None
    assert f"PostgreSQL at postgresql://postgres@127.0.0.1:{port}/test" in problem
    assert f"Redis at redis://127.0.0.1:{port}/0" in problem


def test_absent_services_skip_unless_they_are_required() -> None:
    with pytest.raises(pytest.skip.Exception, match="services not reachable: Redis at x"):
        unavailable("Redis at x", {})
    with pytest.raises(pytest.fail.Exception, match="RECEIPT_REQUIRE_SERVICES=1"):
        unavailable("Redis at x", {"RECEIPT_REQUIRE_SERVICES": "1"})
