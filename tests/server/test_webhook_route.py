"""`POST /webhook` is a plain route beside the FastAPI ones: it answers what they answer where it
does not run (before start-up, other methods) in FastAPI's shape."""

from __future__ import annotations

from fastapi.testclient import TestClient

from bot.server.app import create_app
from bot.server.runtime import Runtime


def _never() -> Runtime:
    raise AssertionError("the runtime is made at start-up, which these requests never reach")


def test_a_delivery_before_start_up_is_told_to_come_back() -> None:
    client = TestClient(create_app(_never))  # no `with`: the lifespan has not run
    answer = client.post("/webhook", content=b"{}", headers={"X-GitHub-Event": "ping"})
    assert (answer.status_code, answer.json()) == (503, {"detail": "starting"})


def test_other_methods_are_refused_as_fastapi_refuses_them() -> None:
    client = TestClient(create_app(_never))
    answer = client.get("/webhook")
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
    assert answer.json() == {"detail": "Method Not Allowed"}
