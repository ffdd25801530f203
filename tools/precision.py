"""Content findings of the built-in policy over the last commits of real repositories, for review.

    nice .venv/bin/python tools/precision.py GIT_DIR... [--commits N] [--manifest FILE]
        [--rules secret,dangerous,invisible-unicode,suppression] [--json FILE] [--markdown FILE]

Each GIT_DIR is a clone of a repository, bare or not. For each of its last N first-parent commits,
the change from the commit's first parent is read the way `receipt check` reads it (the shared
gather over local git, `build_change`) and judged by the content rules of the built-in policy
(or of `--manifest FILE`); no tests run. Every finding of the
chosen rules is listed with its repository, commit, path, line, rule, id and a one-line excerpt
of the line it names, secrets masked (the excerpt is what a review file may keep of someone
else's code), as a table on standard output and, with --json, as JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.engine import (
    MANIFEST_PATH,
    MAX_DIFF_BYTES,
    LoadedManifest,
    ManifestSource,
    ReceiptError,
    load_manifest,
)
from bot.engine.findings import RuleId, Violation
from bot.engine.rules import content_violations
from bot.gather import GivenFile, Revisions
from bot.gather.core import build_change
from bot.local.git import Git, GitError
from bot.local.source import LocalSource

REVIEWED = ("secret", "dangerous", "invisible-unicode", "suppression")
_EXCERPT = 110
# How redact.py shows a secret: its first characters, then its length.
_REDACTED = re.compile(r"'([^']*)…' \((\d+) characters\)")
# Characters a terminal or a Markdown table would hide or break on, shown as escapes.
_HIDDEN = re.compile(r"[^\x20-\x7e\u00a0-\u200a\u2010-\u2027\u2030-\u205f\u2070-\ufefe]|\|")


@dataclass(frozen=True, slots=True)
class Finding:
    repo: str
    commit: str
    path: str | None
    line: int | None
    rule: str
    id: str
    excerpt: str
    message: str

    def key(self) -> str:
        """Names the finding in a review file: repository, short commit, path, line, rule, id."""
        return f"{self.repo}@{self.commit[:10]}:{self.path}:{self.line}:{self.rule}/{self.id}"


@dataclass(frozen=True, slots=True)
class RepoRun:
    repo: str
    first: str
    last: str
    commits: int
    skipped: tuple[str, ...]
    findings: tuple[Finding, ...]
    seconds: float


def first_parent_pairs(git: Git, count: int) -> list[tuple[str, str]]:
    """(parent, commit) for the last `count` first-parent commits of HEAD, newest first; a root
    commit has no parent to compare with and is left out."""
    out = git.run("rev-list", "--first-parent", "--parents", f"--max-count={count}", "HEAD").decode()
    return [(shas[1], shas[0]) for shas in map(str.split, out.splitlines()) if len(shas) >= 2]


def _escape(text: str) -> str:
    return _HIDDEN.sub(lambda m: "\\|" if m.group(0) == "|" else f"\\u{ord(m.group(0)):04x}", text)


def mask_secret(line: str, message: str) -> str:
    """`line` with the secret a `secret` finding's message names masked: the message shows its
    first characters and its length, so every span of that length starting with them is masked
    (one of them is the secret), the shown characters kept. A secret it cannot place withholds the
    line."""
    shown = _REDACTED.search(message)
    prefix, length = (shown.group(1), int(shown.group(2))) if shown else ("", 0)
    masked = list(line)
    at = line.find(prefix) if prefix else -1
    placed = False
    while 0 <= at <= len(line) - length:
        placed = True
        for i in range(at + len(prefix), at + length):
            masked[i] = "*"
        at = line.find(prefix, at + 1)
    return "".join(masked) if placed else "(excerpt withheld)"


def _line_of(source: LocalSource, commits: Sequence[str], path: str | None, number: int | None) -> str:
    if path is None or number is None:
        return ""
    for commit in commits:
        data = source.read_file(commit, path)
        lines = (data or b"").decode("utf-8", "replace").splitlines()
        if 0 < number <= len(lines):
            return lines[number - 1]
    return ""


def excerpt(source: LocalSource, pair: tuple[str, str], violation: Violation) -> str:
    """The line a finding names (head first, then base for a deletion), trimmed, secrets masked."""
    parent, commit = pair
    line = _line_of(source, (commit, parent), violation.path, violation.line).strip()
    if violation.rule is RuleId.SECRET:
        line = mask_secret(line, violation.message)
    if len(line) > _EXCERPT:
        line = line[: _EXCERPT - 1] + "…"
    return _escape(line)


def policy(given: GivenFile | None) -> LoadedManifest:
    """The built-in policy (what a repository without a manifest gets), or the given manifest:
    one policy for every commit, whatever manifest the repositories hold."""
    if given is None:
        return load_manifest(None, MANIFEST_PATH, ManifestSource.DEFAULT)
    return load_manifest(given.data, given.name, ManifestSource.FILE)


def review(directory: Path, count: int, rules: frozenset[str], loaded: LoadedManifest) -> RepoRun:
    git = Git(directory.resolve())
    source = LocalSource(git)
    name = repo_name(directory)
    pairs = first_parent_pairs(git, count)
    findings: list[Finding] = []
    skipped: list[str] = []
    started = time.perf_counter()
    for parent, commit in pairs:
        revisions = Revisions(parent, commit, parent)
        try:
            change = build_change(source, git.diff(parent, commit, limit=MAX_DIFF_BYTES), revisions)
        except ReceiptError as exc:
            skipped.append(f"{commit[:10]}: {exc}")
            continue
        for v in sorted(content_violations(change, loaded.manifest), key=Violation.sort_key):
            if v.rule.value in rules:
                text = excerpt(source, (parent, commit), v)
                findings.append(Finding(name, commit, v.path, v.line, v.rule.value, v.id, text, v.message))
    elapsed = time.perf_counter() - started
    first, last = (pairs[-1][1], pairs[0][1]) if pairs else ("", "")
    return RepoRun(name, first, last, len(pairs), tuple(skipped), tuple(findings), elapsed)


def repo_name(directory: Path) -> str:
    """`owner/name` for a directory named `owner+name/repo` (the mirror's layout), else its name."""
    resolved = directory.resolve()
    folder = resolved.parent if resolved.name in ("repo", ".git") else resolved
    return folder.name.replace("+", "/", 1).removesuffix(".git")


def table(runs: Sequence[RepoRun]) -> Iterator[str]:
    yield "| repo | commit | path | line | rule | id | excerpt |"
    yield "|---|---|---|---|---|---|---|"
    for run in runs:
        for f in run.findings:
            where = f"{_escape(f.path or '')} | {f.line or ''}"
            yield f"| {f.repo} | {f.commit[:10]} | {where} | {f.rule} | {f.id} | `{f.excerpt}` |"


def summary(runs: Sequence[RepoRun]) -> Iterator[str]:
    for run in runs:
        counts = Counter(f.rule for f in run.findings)
        by_rule = ", ".join(f"{rule} {counts[rule]}" for rule in REVIEWED if counts[rule]) or "none"
        yield (
            f"{run.repo}: {run.commits} commits {run.first[:10]}..{run.last[:10]}, findings: {by_rule}; "
            f"{len(run.skipped)} skipped; {run.seconds:.1f} s"
        )
        yield from (f"  skipped {s}" for s in run.skipped)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("repositories", nargs="+", type=Path, help="git directories (bare or not)")
    parser.add_argument("--commits", type=int, default=150, help="first-parent commits per repository")
    parser.add_argument("--manifest", type=Path, help="judge by this manifest, not the built-in policy")
    parser.add_argument("--rules", default=",".join(REVIEWED), help="comma-separated rule ids to list")
    parser.add_argument("--json", type=Path, help="write the findings and the runs here")
    args = parser.parse_args(argv)
    rules = frozenset(r.strip() for r in args.rules.split(",") if r.strip())
    unknown = sorted(rules - {r.value for r in RuleId})
    if unknown:
        parser.error(f"--rules: unknown rule id(s): {', '.join(unknown)}")
    given = None
    if args.manifest is not None:
        try:
            given = GivenFile(str(args.manifest), args.manifest.read_bytes())
        except OSError as exc:
            parser.error(f"--manifest {args.manifest}: {exc.strerror}")
    runs: list[RepoRun] = []
    try:
        loaded = policy(given)
    except ReceiptError as exc:
        print(f"{args.manifest}: {exc}", file=sys.stderr)
        return 2
    for directory in args.repositories:
        try:
            runs.append(review(directory, args.commits, rules, loaded))
        except (GitError, ReceiptError) as exc:
            print(f"{directory}: {exc}", file=sys.stderr)
            return 2
    for line in table(runs):
        print(line)
    for line in summary(runs):
        print(line)
    if args.json is not None:
        data = [{**asdict(run), "findings": [asdict(f) for f in run.findings]} for run in runs]
        args.json.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
