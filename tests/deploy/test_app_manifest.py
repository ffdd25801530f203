"""`app.yml`, the GitHub App manifest: the permissions the App needs and no more, and the events
it acts on, each allowed by a permission it asks for."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.github.events import parse_event
from bot.server.plan import plan
from tests.fakegithub import payloads
from tests.fakegithub.state import DEFAULT_APP_PERMISSIONS

ROOT = Path(__file__).resolve().parents[2]
MANIFEST_KEYS = {  # GitHub's manifest parameters
    "name", "url", "hook_attributes", "redirect_url", "callback_urls", "setup_url", "description",
    "public", "default_events", "default_permissions", "request_oauth_on_install", "setup_on_update",
}  # fmt: skip
EVENT_PERMISSION = {  # the permission GitHub requires before an App may subscribe to the event
    "pull_request": "pull_requests", "check_run": "checks", "check_suite": "checks",
    "workflow_run": "actions", "merge_group": "merge_queues",
}  # fmt: skip


def _manifest() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((ROOT / "app.yml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_manifest_asks_for_exactly_the_permissions_the_app_uses() -> None:
    manifest = _manifest()
    assert set(manifest) <= MANIFEST_KEYS
    assert manifest["default_permissions"] == {
        "checks": "write", "pull_requests": "read", "contents": "read", "metadata": "read",
        "actions": "read", "merge_queues": "read",
    }  # fmt: skip
    assert manifest["default_permissions"] == DEFAULT_APP_PERMISSIONS, "the App tests run with these"
    assert manifest["hook_attributes"]["url"].endswith("/webhook") and manifest["public"] is False


def test_every_subscribed_event_is_one_the_app_acts_on_and_may_receive() -> None:
    manifest = _manifest()
    events = manifest["default_events"]
    assert sorted(events) == sorted(EVENT_PERMISSION)
    examples = {"pull_request": "opened", "check_run": "completed", "check_suite": "completed",
                "workflow_run": "completed", "merge_group": "checks_requested"}  # fmt: skip
    for event in events:
        assert EVENT_PERMISSION[event] in manifest["default_permissions"]
        decided = plan(parse_event(event, payloads.example(event, examples[event])), app_id=None)
        assert decided.outcome == "queued", (event, decided.detail)
