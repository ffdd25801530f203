"""No rendering of a receipt ever carries a secret: JSON, Markdown, annotations, terminal text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.engine.receipt import render_json
from bot.engine.render.annotations import receipt_annotations
from bot.engine.render.markdown import render_markdown
from bot.engine.render.terminal import render_terminal
from bot.local.check import CheckOptions, run_check
from tests.content.helpers import checksummed, commit_change, fake_aws_key_id, fake_base64
from tests.gitrepo import GitRepo


def _secrets() -> dict[str, str]:
    body = fake_base64("pem-e2e", 64 * 8)
    pem_lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return {
        "github": checksummed("ghp", "Rk4mN8pQ2sT6vW0xZ3bD7fH1jL5nP9"),
        "generic": "Xk9fQ2mZpL7aB3cD8eF1",
        "aws": fake_base64("aws-e2e", 40),
        "url": "Zq8vK2pL9xR4",
        "pem": "\n".join(
            ["-----BEGIN OPENSSH PRIVATE KEY-----", *pem_lines, "-----END OPENSSH PRIVATE KEY-----"]
        ),
        "pem_body": body,
    }


def _bodies(secret: str) -> list[str]:
    """The parts of a secret that must never show: all of it but a 4-character prefix, in pieces."""
    hidden = secret[4:]
    pieces = [hidden[i : i + 8] for i in range(0, len(hidden) - 8, 8)]
    return [hidden, *pieces]


def test_no_output_holds_a_secret(repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = _secrets()
    files = {
        "config/app.cfg": (
            f"github_token = {s['github']}\n"
            f'api_secret = "{s["generic"]}"\n'
            f"aws_access_key_id = {fake_aws_key_id('e2e')}\n"
            f"aws_secret_access_key = {s['aws']}\n"
            f"database = postgres://app:{s['url']}@db.example.net/app\n"
        ),
        "keys/deploy_key": s["pem"] + "\n",
    }
    commit_change(repo, files)
    json_path, markdown_path = tmp_path / "receipt.json", tmp_path / "summary.md"
    outputs_args = ["--json", str(json_path), "--markdown", str(markdown_path)]
    code = main(["check", "--repo", str(repo.root), "--base", "main", "--no-tests", *outputs_args])
    assert code == 1
    terminal = capsys.readouterr().out
    receipt = run_check(CheckOptions(repo=repo.root, base="main", head="pr", no_tests=True))
    annotations = json.dumps([a.as_github() for a in receipt_annotations(receipt)])
    outputs = {
        "json file": json_path.read_text("utf-8"),
        "markdown file": markdown_path.read_text("utf-8"),
        "terminal": terminal,
        "json": render_json(receipt.as_json()),
        "markdown": render_markdown(receipt),
        "terminal text": render_terminal(receipt),
        "annotations": annotations,
    }
    found = json.loads(outputs["json file"])["scope"]["violations"]
    assert sorted((v["path"], v["line"], v["id"]) for v in found) == [
        ("config/app.cfg", 1, "github-pat"),
        ("config/app.cfg", 2, "generic-api-key"),
        ("config/app.cfg", 3, "aws-access-token"),
        ("config/app.cfg", 4, "aws-secret-access-key"),
        ("config/app.cfg", 5, "url-credentials"),
        ("keys/deploy_key", 1, "private-key"),
    ]
    for name, secret in s.items():
        if name == "pem":
            continue
        for body in _bodies(secret):
            for where, text in outputs.items():
                assert body not in text, f"{name} secret shown in the {where}"
