"""Arms described as whole configurations: an arm file (YAML or JSON) names the command, the model,
the prompt, the tools, the agent's version and the variables it needs; the run records all of it
with digests, the agent is told it, the report shows it, and a changed prompt is another arm."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from bot.engine import digest_bytes
from tests.replay import scenario
from tests.replay.scenario import cli

PROBE = (
    "import json, os, sys\n"
    "names = ('RECEIPT_MODEL', 'RECEIPT_TOOLS', 'RECEIPT_ARM', 'ARM_KEY', 'RUN_KEY')\n"
    "seen = {n: os.environ.get(n) for n in names}\n"
    "path = os.environ.get('RECEIPT_PROMPT_FILE')\n"
    "seen['prompt'] = open(path).read() if path else None\n"
    "with open(sys.argv[1], 'a') as out:\n"
    "    out.write(json.dumps(seen) + '\\n')\n"
)
PROMPT = "Fix the bug the task describes. Change nothing else.\n"


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    repo = scenario.build(tmp_path / "repo")
    task_file = tmp_path / "t.jsonl"
    code, _, err = cli("replay", "tasks", "--repo", str(repo.root), "--pr", "4", "--test-command", "true",
                       "--out", str(task_file))  # fmt: skip
    assert code == 0, err
    arms = tmp_path / "arms"
    arms.mkdir()
    (arms / "probe.py").write_text(PROBE)
    (arms / "prompts").mkdir()
    (arms / "prompts" / "careful.md").write_text(PROMPT)
    probe = f"{shlex.quote(sys.executable)} {shlex.quote(str(arms / 'probe.py'))} {shlex.quote(str(tmp_path / 'seen.jsonl'))}"
    (arms / "careful.yml").write_text(
        f"# the careful configuration\ncommand: {json.dumps(probe)}\nmodel: gpt-5-codex\n"
        "prompt: prompts/careful.md\ntools: [shell, apply_patch]\nagent_version: codex-cli 0.40.0\n"
        "env: [ARM_KEY]\ndescription: the careful prompt\n"
    )
    (arms / "json-arm.json").write_text(json.dumps({"name": "terse", "command": probe, "model": "small"}))
    return {"repo": repo.root, "tasks": task_file, "arms": arms, "root": tmp_path}


def run(setup: dict[str, Path], *arms: str) -> tuple[int, str]:
    code, _, err = cli("replay", "run", "--tasks", str(setup["tasks"]), "--run-dir", str(setup["root"] / "run"),
                       "--repo", str(setup["repo"]), "--pass-env", "RUN_KEY", *arms)  # fmt: skip
    return code, err


def test_an_arm_file_is_recorded_told_and_reported(
    setup: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARM_KEY", "arm-secret")
    monkeypatch.setenv("RUN_KEY", "run-value")
    arms = setup["arms"]
    careful = arms / "careful.yml"
    code, err = run(
        setup, "--arm", f"careful={careful}", "--arm", "bare=true", "--arm-file", str(arms / "json-arm.json")
    )
    assert code == 0, err
    spec = json.loads((setup["root"] / "run" / "run.json").read_text())
    recorded = {a["name"]: a for a in spec["arms"]}
    assert list(recorded) == ["careful", "bare", "terse"]  # --arm first, then --arm-file
    assert recorded["careful"] == {
        "name": "careful",
        "command": recorded["careful"]["command"],
        "model": "gpt-5-codex",
        "prompt": {"file": "prompts/careful.md", "digest": digest_bytes(PROMPT.encode()), "text": PROMPT},
        "tools": ["shell", "apply_patch"],
        "agent_version": "codex-cli 0.40.0",
        "env": ["ARM_KEY"],
        "description": "the careful prompt",
        "file": {"path": str(careful), "digest": digest_bytes(careful.read_bytes())},
    }
    assert recorded["bare"] == {
        "name": "bare", "command": "true", "model": None, "prompt": None, "tools": None, "agent_version": None,
        "env": [], "description": None, "file": None,
    }  # fmt: skip
    assert recorded["terse"]["model"] == "small" and recorded["terse"]["file"]["path"].endswith(
        "json-arm.json"
    )
    assert "arm-secret" not in (setup["root"] / "run" / "run.json").read_text()  # names, never values
    seen = {
        s["RECEIPT_ARM"]: s for s in map(json.loads, (setup["root"] / "seen.jsonl").read_text().splitlines())
    }
    assert seen["careful"] == {
        "RECEIPT_MODEL": "gpt-5-codex", "RECEIPT_TOOLS": "shell,apply_patch", "RECEIPT_ARM": "careful",
        "ARM_KEY": "arm-secret", "RUN_KEY": "run-value", "prompt": PROMPT,
    }  # fmt: skip
    assert seen["terse"] == {
        "RECEIPT_MODEL": "small", "RECEIPT_TOOLS": None, "RECEIPT_ARM": "terse", "ARM_KEY": None,
        "RUN_KEY": "run-value", "prompt": None,
    }  # fmt: skip
    report = setup["root"] / "r.json"
    page = setup["root"] / "r.html"
    cli("replay", "report", "--run-dir", str(setup["root"] / "run"), "--json", str(report), "--html", str(page),
        "--iterations", "10")  # fmt: skip
    body = json.loads(report.read_text())
    assert body["run"]["arms"] == spec["arms"]
    html = page.read_text()
    for text in ("gpt-5-codex", "codex-cli 0.40.0", "<code>apply_patch</code>", "<code>ARM_KEY</code>",
                 digest_bytes(PROMPT.encode()), "Fix the bug the task describes.", "the careful prompt",
                 digest_bytes(careful.read_bytes())):  # fmt: skip
        assert text in html, text
    code, out, _ = cli("inspect", str(report))
    assert code == 0, out
    assert f"ok        run.arms.careful.prompt.digest: {digest_bytes(PROMPT.encode())}" in out
    # the prompt is part of the arm: a run with another prompt is another run
    (arms / "prompts" / "careful.md").write_text(PROMPT + "Run the tests.\n")
    code, err = run(
        setup, "--arm", f"careful={careful}", "--arm", "bare=true", "--arm-file", str(arms / "json-arm.json")
    )
    assert code == 2 and "holds a run with other arms" in err


def test_an_invalid_arm_file_names_every_problem(setup: dict[str, Path]) -> None:
    bad = setup["arms"] / "bad.yaml"
    bad.write_text("model: [x]\ntools: shell\nenv: [API-KEY]\ncolour: blue\n")
    code, err = run(setup, "--arm", f"a={bad}")
    assert code == 2
    assert err == (
        f"receipt: error: invalid arm file (5 problem(s)): {bad}:1:1: missing required key 'command'; "
        f"{bad}:1:8: model: expected a string, got a list; {bad}:2:8: tools: expected a list, got a string; "
        f"{bad}:3:7: env[0]: an environment variable name (letters, digits and '_', not starting with a digit); "
        f"{bad}:4:1: colour: unknown key; expected one of: name, command, model, prompt, tools, agent_version, "
        "env, description\n"
    )


@pytest.mark.parametrize(
    ("arms", "message"),
    [
        (["--arm", "a=missing.yml"], "missing.yml: cannot read the arm file: No such file or directory"),
        (["--arm-file", "ARMS/nameless.yml", "--arm-file", "ARMS/nameless.yml"], "arm nameless: given twice"),
        (["--arm", "a=ARMS/no-prompt.yml"], "no-such.md: cannot read the prompt: No such file or directory"),
        (["--arm", "x.lock=true"], "arm name 'x.lock': use letters, digits"),
        (["--arm", "a..b=true"], "arm name 'a..b': use letters, digits"),
        (["--arm", "a=ARMS/empty.json"], "the arm file is empty; it needs at least 'command'"),
        (["--arm", "a=ARMS/syntax.yml"], "syntax.yml:2:1: YAML syntax: while parsing a flow sequence"),
    ],
)
def test_bad_arms_are_one_line_and_exit_2(setup: dict[str, Path], arms: list[str], message: str) -> None:
    folder = setup["arms"]
    (folder / "nameless.yml").write_text("command: 'true'\n")
    (folder / "no-prompt.yml").write_text("command: 'true'\nprompt: no-such.md\n")
    (folder / "empty.json").write_text("")
    (folder / "syntax.yml").write_text("command: [unclosed\n")
    code, err = run(setup, *(a.replace("ARMS", str(folder)) for a in arms))
    assert code == 2 and message in err and "Traceback" not in err and err.count("\n") == 1, err


def test_a_command_that_looks_like_a_file_name_only_with_a_space_is_a_command(setup: dict[str, Path]) -> None:
    """A near miss: `NAME=COMMAND` stays a command unless the whole value is a .yml/.yaml/.json name."""
    code, err = run(setup, "--arm", "a=cat notes.yml")
    assert code == 0, err
    spec = json.loads((setup["root"] / "run" / "run.json").read_text())
    assert spec["arms"][0]["command"] == "cat notes.yml" and spec["arms"][0]["file"] is None


def test_the_arm_file_schema() -> None:
    code, out, _ = cli("schema", "replay-arm")
    assert code == 0
    schema = json.loads(out)
    assert schema["title"] == "receipt replay arm" and schema["required"] == ["command"]
    assert list(schema["properties"]) == [
        "name", "command", "model", "prompt", "tools", "agent_version", "env", "description",
    ]  # fmt: skip
    assert schema["additionalProperties"] is False
    code, out, _ = cli("schema")
    assert json.loads(out)["title"] == "receipt manifest"
