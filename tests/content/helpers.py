"""Changes for content-rule tests, made by real git repositories and gathered as the CLI does."""

from __future__ import annotations

import ast
import base64
import hashlib
import zlib
from collections.abc import Mapping, Sequence

from bot.engine.change import Change, change_from_diff
from bot.engine.content.pyconstructs import python_constructs
from bot.engine.content.pyselect import selected_source
from bot.engine.content.pywords import may_hold, words_in
from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import Manifest, parse_manifest
from bot.engine.rules import ContentRule
from bot.gather import build_change
from bot.local.check import resolve_revisions
from bot.local.git import Git
from bot.local.source import LocalSource
from tests.gitrepo import GitRepo

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

Files = Mapping[str, str | bytes]


def checksummed(prefix: str, random30: str) -> str:
    """A token in GitHub's classic format with a valid CRC32, computed here independently."""
    assert len(random30) == 30
    number = zlib.crc32(random30.encode())
    digits = ""
    while number:
        number, digit = divmod(number, 62)
        digits = BASE62[digit] + digits
    return f"{prefix}_{random30}{digits.rjust(6, '0')}"


def fake_base64(seed: str, length: int) -> str:
    """Deterministic random-looking base64 text for test credentials (never a real one)."""
    out = b""
    while len(out) * 4 < length * 3 + 8:
        out += hashlib.sha512((seed + str(len(out))).encode()).digest()
    return base64.b64encode(out).decode()[:length]


def fake_aws_key_id(seed: str) -> str:
    return "AKIA" + base64.b32encode(hashlib.sha256(seed.encode()).digest()).decode()[:16]


def commit_change(repo: GitRepo, head: Files, base: Files | None = None, removed: Sequence[str] = ()) -> None:
    """Commit `base` on main, then `head` on branch pr (files written over the base, `removed` ones
    deleted)."""
    for path, content in (base or {"README": "base\n"}).items():
        repo.write(path, content)
    repo.commit("base")
    repo.branch("pr")
    for path, content in head.items():
        repo.write(path, content)
    for path in removed:
        repo.remove(path)
    repo.commit("head")


def change_of(
    repo: GitRepo, head: Files, base: Files | None = None, *, texts: bool = True, removed: Sequence[str] = ()
) -> Change:
    """The change main...pr as the CLI gathers it (with file texts) or from the diff alone."""
    commit_change(repo, head, base, removed)
    git = Git.open(repo.root)
    revisions = resolve_revisions(git, "main", "pr")
    if texts:
        return build_change(LocalSource(git), git.diff(revisions.merge_base, revisions.head), revisions)
    return change_from_diff(git.diff(revisions.merge_base, revisions.head))


def manifest(text: str = "") -> Manifest:
    return parse_manifest("version: 1\n" + text)


def scan(rule: ContentRule, change: Change, policy: Manifest | None = None) -> list[Violation]:
    return sorted(rule.scan(change, policy or manifest()), key=Violation.sort_key)


def where(found: list[Violation]) -> list[tuple[str, int | None, str]]:
    return [(v.path, v.line, v.id) for v in found]


def rules_of(found: list[Violation]) -> set[RuleId]:
    return {v.rule for v in found}


def constructs_found(source: str) -> list[tuple[int, str]]:
    """(line, construct) of what `python_constructs` finds called in a module, having checked that
    what `dangerous` parses of it (the selection, pyselect.py) finds the same, and that its words
    would have it read at all."""
    tree = ast.parse(source)
    found = python_constructs(tree)
    selected = selected_source(source)
    if selected is not None:
        assert python_constructs(ast.parse(selected)) == found, selected
    if found:
        assert may_hold(words_in(source))
    return [(f.line, f.construct.value) for f in found if not f.handed_on]
