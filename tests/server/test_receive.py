"""`receipt receive`: the App's handler on a saved delivery, printing what it would post."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakegithub.harness import AppWorld
from tests.server.appprocess import AppHost


def _receive(
    host: AppHost, event: str, payload: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "receive", "--event", event, "--payload", str(payload)],
        env=env or host.env(), capture_output=True, text=True, check=False, timeout=120, cwd=host.tmp,
    )  # fmt: skip


def test_receive_runs_the_handler_and_prints_what_it_would_post(
    github_app: AppWorld, host: AppHost, tmp_path: Path
) -> None:
    saved = tmp_path / "delivery.json"
    saved.write_text(json.dumps(github_app.pull_request_payload("opened")), encoding="utf-8")
    done = _receive(host, "pull_request", saved)
    assert done.returncode == 0, done.stderr
    assert "would POST check run on acme/widgets" in done.stdout
    assert '"conclusion": "success"' in done.stdout
    assert not github_app.fake.runs_for(github_app.pull.head_sha, "receipt"), "nothing was posted"


def test_receive_names_a_bad_payload(host: AppHost, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    done = _receive(host, "pull_request", bad)
    assert done.returncode == 2 and "bad.json" in done.stderr and "Traceback" not in done.stderr
    missing = _receive(host, "pull_request", tmp_path / "nope.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_receive_that_cannot_finish_says_so_and_fails(
    github_app: AppWorld, host: AppHost, tmp_path: Path
) -> None:
    """GitHub out of reach: the handler's failure is the command's, one line each, never exit 0."""
    saved = tmp_path / "delivery.json"
    saved.write_text(json.dumps(github_app.pull_request_payload("opened")), encoding="utf-8")
    done = _receive(host, "pull_request", saved, host.env(RECEIPT_GITHUB_API_URL="http://127.0.0.1:9"))
    assert done.returncode == 2, done.stderr
    assert "the handler did not finish, so nothing above is what the App would post" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "would POST" not in done.stdout


def test_receive_needs_the_apps_credentials_not_the_webhook_secret(host: AppHost, tmp_path: Path) -> None:
    saved = tmp_path / "delivery.json"
    saved.write_text(json.dumps({"action": "opened"}), encoding="utf-8")
    env = {k: v for k, v in host.env().items() if k not in ("RECEIPT_APP_ID", "RECEIPT_WEBHOOK_SECRET")}
    done = _receive(host, "pull_request", saved, env)
    assert done.returncode == 2
    assert "set RECEIPT_APP_ID and RECEIPT_PRIVATE_KEY" in done.stderr
    assert "RECEIPT_WEBHOOK_SECRET" not in done.stderr
