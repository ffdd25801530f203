"""A base commit and a head commit of Python modules, and what `references` says of the change."""

from __future__ import annotations

from typing import Any

from bot.engine.receipt import Receipt
from bot.engine.references.result import ReferencesResult
from tests.gitrepo import GitRepo, check


def change(
    repo: GitRepo,
    base: dict[str, str],
    head: dict[str, str],
    *,
    removed: tuple[str, ...] = (),
    moved: tuple[tuple[str, str], ...] = (),
    message: str = "the change",
    **options: Any,
) -> Receipt:
    for path, text in base.items():
        repo.write(path, text)
    repo.commit("base")
    repo.branch("pr")
    for old, new in moved:
        repo.move(old, new)
    for path in removed:
        repo.remove(path)
    for path, text in head.items():
        repo.write(path, text)
    repo.commit(message)
    return check(repo, base="main", **options)


def references(receipt: Receipt) -> ReferencesResult:
    assert receipt.references is not None
    return receipt.references


def found(receipt: Receipt) -> list[tuple[str, int, str, str]]:
    return [(f.path, f.line, f.kind.value, f.target) for f in references(receipt).findings]
