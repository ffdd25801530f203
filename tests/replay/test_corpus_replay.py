"""The edit-fidelity corpus replayed at small N (the 400-task run is bench/replay_corpus.py): four
tasks whose tests need nothing beyond the standard library, three scripted arms."""

from __future__ import annotations

import ast
import json
import shlex
import sys
from pathlib import Path

from tests.replay import corpus_repo
from tests.replay.scenario import cli


def _stdlib_only(*sources: str) -> bool:
    names = set()
    for node in (n for source in sources for n in ast.walk(ast.parse(source))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names <= {*sys.stdlib_module_names, "tasks"}  # tasks: the corpus repository's own modules


def test_three_arms_on_corpus_tasks(tmp_path: Path) -> None:
    every = corpus_repo.load()
    chosen = [t for t in every if _stdlib_only(t.gold, corpus_repo.test_file(t))][:4]
    repo = corpus_repo.build(tmp_path / "repo", chosen)
    arms = corpus_repo.oracle(tmp_path / "oracle", chosen)
    task_file = tmp_path / "tasks" / "tasks.jsonl"
    task_file.parent.mkdir()
    command = f"{shlex.quote(sys.executable)} -m unittest -q {{tests}}"
    code, _, err = cli("replay", "tasks", "--repo", str(repo), "--last", "4", "--test-command", command,
                       "--out", str(task_file))  # fmt: skip
    assert code == 0 and "4 task(s), 0 skipped" in err
    arm_args = [a for name, cmd in arms.items() for a in ("--arm", f"{name}={cmd}")]
    code, _, err = cli("replay", "run", "--tasks", str(task_file), "--run-dir", str(tmp_path / "run"),
                       "--repo", str(repo), *arm_args)  # fmt: skip
    assert code == 0, err
    code, _, _ = cli("replay", "report", "--run-dir", str(tmp_path / "run"), "--json", str(tmp_path / "r.json"),
                     "--iterations", "200")  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text())
    rows = {(r["arm"], r["task"]): r for r in report["attempts"]}
    for number in range(1, 5):
        task = f"pr-{number}"
        gold, reformatted, guard = (rows[a, task] for a in corpus_repo.ARMS)
        assert gold["status"] == reformatted["status"] == guard["status"] == "scored"
        assert gold["functional"] is reformatted["functional"]  # the same program
        assert gold["excess"] == 0.0 and reformatted["excess"] == 0.0  # same AST: normalization sees none
        assert guard["excess"] > 0 and guard["added_complexity"] == 1  # one `if` more than the gold
        assert gold["trace"]["read_before_edit"] == 1.0 and gold["trace"]["tests_after_last_edit"] is True
    assert report["arms"]["gold"]["functional_rate"] > 0  # the hidden BigCodeBench tests ran and passed
    code, out, _ = cli("inspect", str(tmp_path / "r.json"))
    assert code == 0, out
