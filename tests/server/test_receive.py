"""`receipt receive`: the App's handler on a saved delivery, printing what it would post."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakegithub.harness import AppWorld
from tests.server.appprocess import AppHost


def _receive(host: AppHost, event: str, payload: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "receive", "--event", event, "--payload", str(payload)],
        env=host.env(), capture_output=True, text=True, check=False, timeout=60, cwd=host.tmp,
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
