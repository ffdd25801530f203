"""PostgreSQL and Redis for the scaled App's tests, isolated per test.

One rule, in `services`: when a server does not answer, its tests are skipped with the reason,
unless RECEIPT_REQUIRE_SERVICES=1 (CI sets it), when they fail. Each test gets a PostgreSQL schema
of its own (`search_path` in the URL, dropped afterwards) and a queue name of its own (its Redis
keys deleted afterwards), so runs never see each other's rows or messages.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import quote

import psycopg
import pytest
import redis

POSTGRES = os.environ.get("RECEIPT_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("RECEIPT_TEST_REDIS", "redis://127.0.0.1:6379/0")


@dataclass(frozen=True)
class Services:
    postgres: str  # the server's database, without a schema
    redis: str


@dataclass(frozen=True)
class Scaled:
    """What one test's App processes share: a database URL in its own schema, a queue of its own."""

    database_url: str
    queue_url: str
    queue_name: str
    schema: str


def _probe(postgres: str = POSTGRES, redis_url: str = REDIS) -> str | None:
    problems = []
    try:
        with psycopg.connect(postgres, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        problems.append(f"PostgreSQL at {postgres}: {str(exc).strip() or type(exc).__name__}")
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        problems.append(f"Redis at {redis_url}: {exc}")
    return "; ".join(problems) or None


def unavailable(problem: str, environ: Mapping[str, str]) -> None:
    """The one rule: skip with the reason, or fail when the services are required (CI)."""
    message = f"services not reachable: {problem}"
    if environ.get("RECEIPT_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{message} (RECEIPT_REQUIRE_SERVICES=1)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def services() -> Services:
    problem = _probe()
    if problem is not None:
        unavailable(problem, os.environ)
    return Services(POSTGRES, REDIS)


def _with_schema(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def scaled(services: Services) -> Iterator[Scaled]:
    """A fresh PostgreSQL schema and queue name for this test; both removed afterwards."""
    suffix = secrets.token_hex(6)
    schema, name = f"receipt_test_{suffix}", f"receipttest{suffix}"  # huey keeps [a-z0-9] of a name
    with psycopg.connect(services.postgres, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield Scaled(_with_schema(services.postgres, schema), services.redis, name, schema)
    finally:
        with psycopg.connect(services.postgres, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        client = redis.Redis.from_url(services.redis)
        keys = list(client.scan_iter(match=f"huey.*{name}*", count=1000))
        if keys:
            client.delete(*keys)
