"""Hostile input: huge lines and files, NUL bytes, invalid UTF-8 and a pattern built to make
backtracking engines explode give sensible results. That they finish in linear time is measured by
bench/content_rules.py (each case at two sizes, and the ratio of their times), not asserted here."""

from __future__ import annotations

from bot.engine.change import Change
from bot.engine.findings import Violation
from bot.engine.receipt import canonical_bytes
from bot.engine.rules import content_violations
from tests.content.helpers import change_of, checksummed, commit_change, manifest, where
from tests.gitrepo import GitRepo, check

TOKEN = checksummed("ghp", "q7Zt2LmW9xK4pR8vN3bC6yF1hJ5sD0")


def _found(change: Change, policy: str = "") -> list[Violation]:
    return sorted(content_violations(change, manifest(policy)), key=Violation.sort_key)


def test_a_one_megabyte_line(repo: GitRepo) -> None:
    line = "let a = 1; " * 95_000 + f'const t = "{TOKEN}"; eval(x); // eval(y)'
    assert len(line) > 1_000_000
    found = _found(change_of(repo, {"big.js": line + "\n"}))
    assert where(found) == [("big.js", 1, "js-eval"), ("big.js", 1, "github-pat")]


def test_a_one_megabyte_line_of_matches(repo: GitRepo) -> None:
    line = "eval(x); it.skip(y); " * 50_000
    found = _found(change_of(repo, {"big.test.js": line + "\n"}))
    assert where(found) == [("big.test.js", 1, "js-eval"), ("big.test.js", 1, "js-skip")]


def test_a_file_of_one_hundred_thousand_added_lines(repo: GitRepo) -> None:
    lines = [f"value_{i} = {i}" for i in range(100_000)]
    lines[50_000] = "result = eval(expression)"
    lines[70_000] = f'TOKEN = "{TOKEN}"'
    lines[99_999] = "import os  # noqa"
    found = _found(change_of(repo, {"huge.py": "\n".join(lines) + "\n"}))
    assert where(found) == [
        ("huge.py", 50_001, "python-eval"),
        ("huge.py", 70_001, "github-pat"),
        ("huge.py", 100_000, "noqa"),
    ]


def test_nul_bytes_in_a_text_diff(repo: GitRepo) -> None:
    # Text by git's reading of the bytes (receipt's own, whatever .gitattributes says): no NUL in
    # the first 8,000 bytes.
    lead = b"x\n" * 4100
    data = lead + b"a\x00b\x00c\n" + f"token = {TOKEN}\x00\n".encode() + b"\x00" * 1000 + b"\n"
    change = change_of(repo, {"blob.dat": data})
    found = _found(change)
    assert where(found) == [("blob.dat", 4102, "github-pat")]


def test_invalid_utf8(repo: GitRepo) -> None:
    data = (
        b"# caf\xe9 \xff\xfe \xc3\x28\n" + f"token = '{TOKEN}'\n".encode() + b"x = '\xed\xa0\x80'; eval(x)\n"
    )
    found = _found(change_of(repo, {"latin1.py": data, "garbage.py": b"\xff\xfe eval(x)\n"}))
    # garbage.py does not parse: its statement read alone still holds the call.
    assert where(found) == [
        ("garbage.py", 1, "python-eval"),
        ("latin1.py", 2, "github-pat"),
        ("latin1.py", 3, "python-eval"),
    ]


def test_a_pattern_that_explodes_backtracking_engines(repo: GitRepo) -> None:
    policy = (
        "content:\n  banned:\n"
        "    - id: nested\n      pattern: '^(a+)+$'\n"
        "    - id: alternation\n      pattern: '(a|aa)*c'\n"
        "    - id: quadratic\n      pattern: '(x+x+)+y'\n"
    )
    hostile = "a" * 200_000 + "!\n" + "x" * 200_000 + "\n" + "a" * 30 + "\n"
    found = _found(change_of(repo, {"input.txt": hostile}), policy)
    assert where(found) == [("input.txt", 3, "nested")]


def test_bytes_that_are_not_utf8_pass_through_every_rule_of_a_check(repo: GitRepo) -> None:
    """The diff and the files' texts keep such bytes (surrogate escapes, for a declared codec to
    read): a whole check, with the change's size, complexity and references measured from them,
    still writes a receipt that encodes."""
    body = "".join(f"def f{i}(x):\n    if x:\n        return {i}\n    return -1\n\n" for i in range(3))
    base = {
        "legacy.py": ("# -*- coding: shift_jis -*-\n" + body).encode("shift_jis"),
        "latin1.py": b"# caf\xe9\n" + body.encode(),
        "tool.sh": b"echo caf\xe9\n",
        "page.js": b"// caf\xe9\nfunction g(x) { return x; }\n",
    }
    head = {
        "legacy.py": ("# -*- coding: shift_jis -*-\n" + body + 's = "表"  # 能\n').encode("shift_jis"),
        "latin1.py": b"# caf\xe9 \xff\n" + body.encode() + b"def h(y):\n    return '\xe9' if y else f0(y)\n",
        "tool.sh": b"echo caf\xe9 \xfe\n",
        "page.js": b"// caf\xe9\nfunction g(x) { return '\xff' + x; }\n",
        "new.py": b"import legacy\nlegacy.f1(b'\xff')\n",
    }
    commit_change(repo, head, base)
    receipt = check(repo, base="main", head="pr")
    assert canonical_bytes(receipt.as_json())
