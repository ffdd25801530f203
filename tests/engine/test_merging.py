"""The engine's merge side, given as data: path rules over the union, budgets over the larger side,
an unknown merge failing closed. The diffs are real git output; which diff plays the merge side is
chosen here, since the engine only ever sees data."""

from __future__ import annotations

from dataclasses import replace

from bot.engine.change import Change, change_from_diff
from bot.engine.evaluation import Inputs, evaluate
from bot.engine.manifest import ManifestSource, load_manifest
from bot.engine.merging import MergeSide, MergeSource
from bot.engine.receipt import Subject
from bot.local.git import Git
from tests.gitrepo import GitRepo

SHA = "a" * 40
POLICY = """version: 1
paths:
  protect: ['protected/**']
budgets:
  files: 2
  logical_lines: 3
  per_path: [{paths: ['src/**'], hunks: 1}]
"""


def _changes(repo: GitRepo) -> tuple[Change, Change]:
    """A small change (one file), and a larger one touching a protected path too."""
    repo.write("src/a.py", "a = 1\n")
    repo.write("protected/p.py", "p = 1\n")
    base = repo.commit("base")
    repo.write("src/a.py", "a = 2\n")
    small = repo.commit("small")
    repo.write("src/b.py", "b = 1\nc = 2\nd = 3\n\n\n\n\n\n\ne = 4\n")
    repo.write("protected/p.py", "p = 2\n")
    large = repo.commit("large")
    git = Git(repo.root)
    return change_from_diff(git.diff(base, small)), change_from_diff(git.diff(base, large))


def _inputs(head: Change, merge: MergeSide | None) -> Inputs:
    loaded = load_manifest(POLICY.encode(), ".github/receipt.yml", ManifestSource.BASE)
    return Inputs(change=head, manifest=loaded, subject=Subject(SHA, SHA, SHA), merge=merge)


def test_budgets_count_the_larger_side_and_say_so(repo: GitRepo) -> None:
    small, large = _changes(repo)
    merge = MergeSide(MergeSource.GITHUB, tree="b" * 40, commit="c" * 40, change=large)

    receipt = evaluate(_inputs(small, merge))

    budgets = {b.name: b.used for b in receipt.locality.budgets}
    assert budgets == {"files": 3, "logical_lines": 6, "per_path[0].hunks": 2}
    messages = sorted(v.message for v in receipt.locality_violations)
    assert len(messages) == 3 and all(
        m.startswith("When merged onto the base, the change uses") for m in messages
    )
    assert any("(merge-base..head alone: 1)" in m for m in messages)
    body = receipt.as_json()
    assert body["change"]["files"] == 1  # each side keeps its own numbers
    assert body["subject"]["merge"]["change"]["files"] == 3
    assert body["subject"]["merge"]["change"]["logical_lines"] == 6
    assert body["subject"]["merge"]["commit"] == "c" * 40


def test_a_merge_side_finding_names_the_side_and_is_not_repeated(repo: GitRepo) -> None:
    small, large = _changes(repo)
    merge = MergeSide(MergeSource.MERGE_TREE, tree="b" * 40, change=large)

    found = evaluate(_inputs(small, merge)).scope
    assert [(v.rule.value, v.path) for v in found] == [("protected-path", "protected/p.py")]
    assert "the base branch changed it since this branch forked" in found[0].message

    both = evaluate(_inputs(large, merge)).scope  # the head side reports it already: once, its words
    assert [(v.rule.value, v.path) for v in both] == [("protected-path", "protected/p.py")]
    assert "when merged" not in both[0].message

    added = replace(merge, added_since_fork=frozenset({"protected/p.py"}))
    assert (
        "the base branch added it, or renamed a file to it"
        in evaluate(_inputs(small, added)).scope[0].message
    )


def test_the_smaller_merge_side_leaves_the_head_sides_numbers(repo: GitRepo) -> None:
    small, large = _changes(repo)
    receipt = evaluate(_inputs(large, MergeSide(MergeSource.MERGE_TREE, tree="b" * 40, change=small)))
    assert {b.name: b.used for b in receipt.locality.budgets}["files"] == 3
    assert all(v.message.startswith("The change uses") for v in receipt.locality_violations)


def test_an_unknown_merge_fails_scope_and_a_missing_one_is_not_judged(repo: GitRepo) -> None:
    small, _ = _changes(repo)
    unknown = MergeSide(MergeSource.GITHUB, unassessable="GitHub reports it unmergeable")

    receipt = evaluate(_inputs(small, unknown))
    assert [(v.rule.value, v.id) for v in receipt.scope] == [("merge", "merge-unknown")]
    assert receipt.verdict.conclusion == "failure"
    assert receipt.as_json()["subject"]["merge"] == {
        "source": "github", "tree": None, "commit": None, "change": None,
        "problem": "GitHub reports it unmergeable", "conflicts": [],
    }  # fmt: skip

    none = evaluate(_inputs(small, None))
    assert none.as_json()["subject"]["merge"] is None and none.verdict.conclusion != "failure"
