from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace

from bot.engine.change import Change, FileTexts, change_from_diff
from bot.engine.evaluation import Inputs, evaluate
from bot.engine.excess import ExcessResult, ReferenceInfo
from bot.engine.findings import RuleId, Violation
from bot.engine.groups import MANIFEST_PATH
from bot.engine.manifest import Manifest, ManifestSource, load_manifest
from bot.engine.receipt import SCHEMA, Subject, canonical_bytes, digest_of, render_json
from bot.engine.rules import content_violations
from bot.engine.semantic import CheckConclusion, CheckResult, TestEvidence
from bot.local.git import Git
from tests.gitrepo import GitRepo, check
from tests.texts import change_with_texts

SHA = "a" * 40


def _pr(repo: GitRepo, base_files: dict[str, str], head_files: dict[str, str]) -> None:
    for path, content in base_files.items():
        repo.write(path, content)
    repo.commit("base")
    repo.branch("pr")
    for path, content in head_files.items():
        repo.write(path, content)
    repo.commit("pr")


def test_receipt_json_has_every_field_and_a_verifiable_digest(repo: GitRepo) -> None:
    _pr(repo, {"src/a.py": "x = 1\n"}, {"src/a.py": "x = 2\n", "yarn.lock": "lock\n"})
    body = check(repo).as_json()
    assert list(body) == [
        "schema", "subject", "manifest", "change", "semantic", "scope", "locality", "excess", "verdict", "report",
        "waivers", "digest",
    ]  # fmt: skip
    assert body["schema"] == SCHEMA
    assert set(body["subject"]) == {"repo", "pr", "base", "head", "merge_base", "merge"}
    assert len(body["subject"]["head"]) == 40 and body["subject"]["pr"] is None
    assert body["manifest"] == {
        "path": MANIFEST_PATH, "source": "default", "digest": body["manifest"]["digest"],
        "changed_in_pr": False, "dry_run": None,
    }  # fmt: skip
    assert body["change"]["files"] == 2 and body["change"]["digest"].startswith("sha256:")
    assert body["semantic"]["status"] == "skipped"  # receipt's own references check runs, not the tests
    assert [(c["name"], c["conclusion"], c["findings"]) for c in body["semantic"]["checks"]] == [
        ("references", "success", [])
    ]
    assert body["scope"]["pass"] is False
    assert body["scope"]["violations"][0]["rule"] == "protected-path"
    assert set(body["excess"]) == {
        "distance", "reference", "reference_distance", "excess", "formatting_share", "added_complexity", "alarm",
        "not_measured",
    }  # fmt: skip
    assert body["excess"]["not_measured"] is None
    assert body["verdict"]["conclusion"] == "failure"
    assert body["digest"] == digest_of(body)
    tampered = json.loads(json.dumps(body))
    tampered["verdict"]["conclusion"] = "success"
    assert digest_of(tampered) != body["digest"]


def test_same_inputs_give_the_same_bytes(repo: GitRepo) -> None:
    _pr(
        repo,
        {"a.py": "1\n", "b.py": "2\n"},
        {"a.py": "3\n", "b.py": "4\n", "Cargo.lock": "x\n", "z.lock": "y\n"},
    )
    first = render_json(check(repo).as_json())
    second = render_json(check(repo).as_json())
    assert first == second
    assert first.endswith("\n") and json.loads(first)["digest"].startswith("sha256:")


def test_canonical_bytes_follow_design() -> None:
    obj = {"b": [1, 2.5], "a": "ü", "c": None}
    assert canonical_bytes(obj) == '{"a":"ü","b":[1,2.5],"c":null}'.encode()
    assert digest_of({"x": 1, "digest": "ignored"}) == digest_of({"x": 1})


def _inputs(repo: GitRepo, proposed: bytes | None, base_manifest: bytes | None) -> Inputs:
    git = Git(repo.root)
    base, head = git.resolve("main"), git.resolve("pr")
    return Inputs(
        change=change_from_diff(git.diff(base, head)),
        manifest=load_manifest(base_manifest, MANIFEST_PATH, ManifestSource.BASE),
        subject=Subject(base=base, head=head, merge_base=base, repo="o/r", pr=7),
        proposed_manifest=proposed,
    )


def test_dry_run_of_a_manifest_that_loosens_itself(repo: GitRepo) -> None:
    strict = "version: 1\npaths: {protect: ['tests/**']}\n"
    loose = "version: 1\npaths: {protect: []}\n"
    _pr(repo, {MANIFEST_PATH: strict, "tests/t.py": "1\n"}, {MANIFEST_PATH: loose, "tests/t.py": "2\n"})
    receipt = evaluate(_inputs(repo, loose.encode(), strict.encode()))
    assert [v.rule for v in receipt.scope] == [RuleId.MANIFEST_CHANGE, RuleId.PROTECTED_PATH]
    assert receipt.manifest.changed_in_pr
    dry = receipt.manifest.dry_run
    assert dry is not None and dry.valid and dry.verdict is not None
    assert dry.verdict.conclusion.value == "success"
    body = receipt.as_json()
    assert body["manifest"]["dry_run"]["conclusion"] == "success"
    assert body["subject"]["pr"] == 7


def test_dry_run_of_an_invalid_or_deleted_manifest(repo: GitRepo) -> None:
    _pr(repo, {MANIFEST_PATH: "version: 1\n"}, {MANIFEST_PATH: "version: 2\n"})
    receipt = evaluate(_inputs(repo, b"version: 2\n", b"version: 1\n"))
    dry = receipt.manifest.dry_run
    assert dry is not None and not dry.valid and dry.verdict is None
    assert dry.errors == (".github/receipt.yml:1:10: version: expected one of 1, got 2",)
    assert receipt.as_json()["manifest"]["dry_run"] == {
        "valid": False, "conclusion": None, "reasons": [], "errors": list(dry.errors),
        "too_expensive": False,
    }  # fmt: skip
    deleted = evaluate(_inputs(repo, None, b"version: 1\n"))
    assert deleted.manifest.dry_run is not None and deleted.manifest.dry_run.valid


class _FlagTodo:
    one_pass = False

    def scan(
        self, change: Change, manifest: Manifest, files: object = None, added: object = None
    ) -> Iterable[Violation]:
        del manifest, files
        for f in change.diff.files:
            for line in f.added_lines():
                if "TODO" in line.text:
                    yield Violation(RuleId.BANNED_PATTERN, f.path, line.number, "todo", "todo")


def test_content_rule_registry_runs_each_rule(repo: GitRepo) -> None:
    _pr(repo, {"a.py": "1\n"}, {"a.py": "1\n# TODO later\n"})
    git = Git(repo.root)
    change = change_with_texts(
        git.diff("main", "pr"), {"a.py": FileTexts(base="1\n", head="1\n# TODO later\n")}
    )
    found = content_violations(change, Manifest(), rules=(_FlagTodo(),))
    assert [(v.path, v.line) for v in found] == [("a.py", 2)]
    assert change.texts_of(change.diff.files[0]).head == "1\n# TODO later\n"
    assert change_from_diff(b"").texts_of(change.diff.files[0]) == FileTexts()


def test_excess_and_semantic_fields_serialize(repo: GitRepo) -> None:
    _pr(repo, {"a.py": "1\n"}, {"a.py": "2\n"})
    receipt = check(repo)
    excess = ExcessResult(
        distance=0.25, reference=ReferenceInfo("fix.patch", "sha256:00"), reference_distance=0.1,
        excess=0.15, formatting_share=0.0, added_complexity=2, alarm=True,
    )  # fmt: skip
    checks = (CheckResult("pytest", CheckConclusion.SUCCESS, "ok"),)
    body = replace(receipt, excess=excess, checks=checks).as_json()
    assert body["excess"]["reference"] == {"source": "fix.patch", "digest": "sha256:00"}
    assert body["excess"]["excess"] == 0.15 and body["excess"]["alarm"] is True
    assert body["semantic"]["checks"] == [{"name": "pytest", "conclusion": "success", "details": "ok"}]


def test_default_test_evidence_says_none_configured(repo: GitRepo) -> None:
    _pr(repo, {"a.py": "1\n"}, {"a.py": "2\n"})
    git = Git(repo.root)
    inputs = Inputs(
        change=change_from_diff(git.diff("main", "pr")),
        manifest=load_manifest(None, MANIFEST_PATH, ManifestSource.BASE),
        subject=Subject(base=SHA, head=SHA, merge_base=SHA),
    )
    assert inputs.tests == TestEvidence(not_run_reason="no test command configured")
    assert (
        evaluate(inputs).verdict.reasons[-1]
        == "semantic skipped: tests were not run (no test command configured)"
    )


def test_text_no_encoder_takes_still_gives_a_receipt(repo: GitRepo) -> None:
    """A lone surrogate left in free text (a test check's name read from the filesystem) is written
    as its escape; paths never reach this point (they are in their shown form already)."""
    _pr(repo, {"a.txt": "x\n"}, {"a.txt": "y\n"})
    receipt = check(repo)
    checks = (CheckResult("tests in dir\udcff", CheckConclusion.SUCCESS, "ok ü"),)
    body = replace(receipt, checks=checks).as_json()
    assert body["semantic"]["checks"][0]["name"] == "tests in dir\\udcff"
    assert body["semantic"]["checks"][0]["details"] == "ok ü"
    assert json.loads(render_json(body))["digest"] == digest_of(body)
    canonical_bytes(body)
