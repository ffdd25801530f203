"""Path rules on real repositories: each rule fires when it should and stays quiet otherwise."""

from __future__ import annotations

import pytest

from bot.engine.diff import FileDiff, FileStatus
from bot.engine.groups import GROUPS, MANIFEST_PATH
from bot.engine.manifest import Manifest, parse_manifest
from bot.engine.scope import escapes_repository, explain, protection, sides, symlink_target
from tests.gitrepo import GitRepo, check, rules


def _base(repo: GitRepo, manifest: str | None, files: dict[str, str]) -> None:
    if manifest is not None:
        repo.write(MANIFEST_PATH, manifest)
    for path, content in files.items():
        repo.write(path, content)
    repo.commit("base")
    repo.branch("pr")


POLICY = """version: 1
paths:
  allow: ["src/**", "tests/**", "docs/*.md"]
  protect: [".env*", {paths: ["tests/**"], allow: [added]}, "!tests/fixtures/**"]
"""


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"src/app.py": "x = 2\n"}, []),
        ({"src/new.py": "y = 1\n"}, []),
        ({"tests/test_new.py": "def test(): pass\n"}, []),
        ({"tests/test_app.py": "def test(): assert False\n"}, [("protected-path", "tests/test_app.py")]),
        ({"tests/fixtures/data.json": "{}\n"}, []),
        ({"README.md": "hi\n"}, [("outside-allowlist", "README.md")]),
        ({"docs/guide.md": "hi\n"}, []),
        ({"docs/deep/guide.md": "hi\n"}, [("outside-allowlist", "docs/deep/guide.md")]),
        ({"src/.env": "A=1\n"}, [("protected-path", "src/.env")]),
        ({"src/package-lock.json": "{}\n"}, [("protected-path", "src/package-lock.json")]),
        (
            {"src/.github/workflows/ci.yml": "on: push\n"},
            [("protected-path", "src/.github/workflows/ci.yml")],
        ),
        (
            {".github/workflows/ci.yml": "on: push\n"},
            [
                ("outside-allowlist", ".github/workflows/ci.yml"),
                ("protected-path", ".github/workflows/ci.yml"),
            ],
        ),
    ],
)
def test_path_rules(repo: GitRepo, change: dict[str, str], expected: list[tuple[str, str]]) -> None:
    _base(repo, POLICY, {"src/app.py": "x = 1\n", "tests/test_app.py": "def test(): pass\n"})
    for path, content in change.items():
        repo.write(path, content)
    repo.commit("pr")
    assert rules(check(repo)) == expected


@pytest.mark.parametrize(("count", "named"), [(5, "d4/**"), (8, "d4/** and 3 more")])
def test_a_path_outside_a_long_allowlist_names_its_first_patterns_and_counts_the_rest(
    repo: GitRepo, count: int, named: str
) -> None:
    allow = ", ".join(f'"d{i}/**"' for i in range(count))
    _base(repo, f"version: 1\npaths:\n  allow: [{allow}]\n", {"d0/a.txt": "a\n"})
    repo.write("README.md", "hi\n")
    repo.commit("pr")
    [outside] = check(repo).scope
    assert f"inside d0/**, d1/**, d2/**, d3/**, {named}, or " in outside.message
    assert "d5/**" not in outside.message


def test_an_empty_allowlist_allows_nothing_and_says_so(repo: GitRepo) -> None:
    _base(repo, "version: 1\npaths:\n  allow: []\n", {"a.txt": "a\n"})
    repo.write("README.md", "hi\n")
    repo.commit("pr")
    [outside] = check(repo).scope
    assert "matched by no pattern" in outside.message and "inside the allowed paths, or" in outside.message


def test_deleting_a_protected_test_and_renaming_out_of_the_protected_directory(repo: GitRepo) -> None:
    _base(repo, POLICY, {"tests/test_a.py": "a = 1\n", "tests/test_b.py": "b = 1\n"})
    repo.remove("tests/test_a.py")
    repo.move("tests/test_b.py", "src/test_b.py")
    repo.commit("pr")
    receipt = check(repo)
    assert rules(receipt) == [("protected-path", "tests/test_a.py"), ("protected-path", "tests/test_b.py")]
    moved = receipt.scope[1]
    assert "renames 'tests/test_b.py' to 'src/test_b.py'" in moved.message
    assert moved.id == "paths.protect[1]" and moved.line is None


def test_rename_into_a_protected_directory_counts_as_an_addition(repo: GitRepo) -> None:
    _base(repo, POLICY, {"src/helper.py": "h = 1\n" * 5})
    repo.move("src/helper.py", "tests/helper.py")
    repo.commit("pr")
    assert rules(check(repo)) == []


def test_manifest_change_is_always_flagged_even_with_defaults_off(repo: GitRepo) -> None:
    _base(repo, "version: 1\npaths: {defaults: false}\n", {"a.py": "1\n"})
    repo.write(MANIFEST_PATH, "version: 1\npaths: {defaults: false, allow_binary: true}\n")
    repo.write("package-lock.json", "{}\n")
    repo.commit("loosen")
    receipt = check(repo)
    assert rules(receipt) == [("manifest-change", MANIFEST_PATH)]
    assert receipt.scope[0].id == "manifest"


def test_defaults_groups_and_overrides(repo: GitRepo) -> None:
    policy = 'version: 1\npaths:\n  defaults: [lockfiles]\n  protect: ["!yarn.lock", {paths: [Cargo.lock], allow: [modified]}]\n'
    _base(repo, policy, {"Cargo.lock": "a\n", "AGENTS.md": "be good\n"})
    repo.write("Cargo.lock", "b\n")
    repo.write("yarn.lock", "x\n")
    repo.write("poetry.lock", "x\n")
    repo.write("AGENTS.md", "be bad\n")
    repo.commit("pr")
    assert rules(check(repo)) == [("protected-path", "poetry.lock")]


@pytest.mark.parametrize(("group", "patterns"), sorted(GROUPS.items()))
def test_every_builtin_group_protects_at_any_depth(group: str, patterns: tuple[str, ...]) -> None:
    """Every group's pattern at any depth, but the few anchored at the root (`/pytest.py`: a module
    shadowing the runner matters only where the run starts), which protect the root alone."""
    manifest = Manifest()
    for pattern in patterns:
        example = pattern.lstrip("/").replace("**/", "").replace("/**", "/x").replace("*", "any")
        for path in (example,) if pattern.startswith("/") else (example, f"nested/dir/{example}"):
            decided = protection(manifest, path)
            assert decided is not None and decided.protected, (group, path)
            assert decided.source == f"built-in group {group}"
    assert protection(manifest, "src/app.py") is None


def test_kinds_mode_symlink_binary_submodule(repo: GitRepo, tmp_path) -> None:
    _base(repo, None, {"run.sh": "echo\n", "img.png": "\x00old"})
    inner = GitRepo.create(tmp_path / "inner")
    sub_commit = inner.commit("one")
    repo.write("run.sh", "echo\n", mode=0o755)
    repo.write("img.png", b"\x00new")
    repo.symlink("docs/link", "../README.md")
    repo.git("add", "-A")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sub_commit},vendor/lib")
    repo.git("commit", "-q", "-m", "kinds")
    assert rules(check(repo)) == [
        ("symlink", "docs/link"),
        ("binary", "img.png"),
        ("mode-change", "run.sh"),
        ("submodule", "vendor/lib"),
    ]
    allowed = "version: 1\npaths: {allow_binary: true, allow_symlinks: true, allow_mode_changes: true, allow_submodules: true}\n"
    repo.checkout("main")
    repo.write(MANIFEST_PATH, allowed)
    repo.commit("allow")
    assert rules(check(repo, base="main", head="pr")) == []


def test_deleting_binaries_and_submodules_is_fine(repo: GitRepo, tmp_path) -> None:
    inner = GitRepo.create(tmp_path / "inner")
    sub_commit = inner.commit("one")
    repo.write("img.png", b"\x00old")
    repo.git("add", "-A")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sub_commit},vendor/lib")
    repo.git("commit", "-q", "-m", "base")
    repo.branch("pr")
    repo.remove("img.png")
    repo.git("rm", "-q", "--cached", "vendor/lib")
    repo.commit("pr")
    assert rules(check(repo)) == []


@pytest.mark.parametrize(
    ("link", "target", "escapes"),
    [
        ("link", "../../etc/passwd", True),
        ("a/b/link", "../../../x", True),
        ("a/b/link", "../../x", False),
        ("link", "/etc/passwd", True),
        ("link", "~/secrets", True),
        ("link", "C:\\Windows", True),
        ("link", "\\\\server\\share", True),
        ("a/link", "../.git/config", True),
        ("a/link", "../src/main.py", False),
        ("link", "..", True),
    ],
)
def test_symlink_escape(link: str, target: str, escapes: bool) -> None:
    assert escapes_repository(link, target) is escapes


def test_escaping_symlink_fails_even_when_symlinks_are_allowed(repo: GitRepo) -> None:
    _base(repo, "version: 1\npaths: {allow_symlinks: true}\n", {"README.md": "x\n"})
    repo.symlink("src/passwd", "../../../etc/passwd")
    repo.symlink("src/readme", "../README.md")
    repo.commit("links")
    receipt = check(repo)
    assert rules(receipt) == [("symlink", "src/passwd")]
    assert receipt.scope[0].id == "symlink-escape"
    assert "'../../../etc/passwd'" in receipt.scope[0].message


def test_quoted_names_cannot_hide_a_protected_directory(repo: GitRepo) -> None:
    """Names with control characters are shown C-quoted (gitpath.display_path)."""
    _base(repo, 'version: 1\npaths:\n  protect: ["tests/**"]\n', {"tests/ok.py": "1\n"})
    for name in ["tests/ü x.py", "tests/t\tab.py", 'tests/"q".py', "tests/new\nline.py", "tests/\\.py"]:
        repo.write(name, "evil = 1\n")
    repo.write(".github/workflows/\tci.yml", "on: push\n")
    repo.commit("sneaky")
    assert sorted(rules(check(repo))) == sorted(
        [
            ("protected-path", '".github/workflows/\\tci.yml"'),
            ("protected-path", "tests/ü x.py"),
            ("protected-path", '"tests/t\\tab.py"'),
            ("protected-path", 'tests/"q".py'),
            ("protected-path", '"tests/new\\nline.py"'),
            ("protected-path", "tests/\\.py"),
        ]
    )


def test_sides_of_each_status() -> None:
    def f(status: FileStatus, old: str | None, new: str | None) -> FileDiff:
        return FileDiff(old_path=old, new_path=new, status=status)

    assert list(sides(f(FileStatus.ADDED, None, "n"))) == [("n", "added")]
    assert list(sides(f(FileStatus.COPIED, "o", "n"))) == [("n", "added")]
    assert list(sides(f(FileStatus.DELETED, "o", None))) == [("o", "deleted")]
    assert list(sides(f(FileStatus.RENAMED, "o", "n"))) == [("o", "deleted"), ("n", "added")]
    assert list(sides(f(FileStatus.MODIFIED, "p", "p"))) == [("p", "modified")]


def test_copy_into_protected_path_is_an_addition_there(repo: GitRepo) -> None:
    from bot.engine.change import change_from_diff
    from bot.engine.scope import path_violations

    repo.write("src/a.py", "".join(f"{i}\n" for i in range(30)))
    base = repo.commit("base")
    repo.write("tests/a.py", "".join(f"{i}\n" for i in range(30)))
    head = repo.commit("copy")
    data = repo.git_bytes("diff", "-C", "--find-copies-harder", "--full-index", base, head)
    manifest = parse_manifest('version: 1\npaths: {protect: ["tests/**"]}\n')
    found = path_violations(change_from_diff(data).diff, manifest, (MANIFEST_PATH,))
    assert [(v.rule.value, v.path) for v in found] == [("protected-path", "tests/a.py")]
    assert "copies 'src/a.py' to 'tests/a.py'" in found[0].message


def test_symlink_target_absent_when_not_a_symlink() -> None:
    assert (
        symlink_target(FileDiff(old_path=None, new_path="x", status=FileStatus.ADDED, new_mode="100644"))
        is None
    )
    link = FileDiff(old_path=None, new_path="x", status=FileStatus.ADDED, new_mode="120000")
    assert symlink_target(link) is None


EXPLAIN_POLICY = parse_manifest(
    """version: 1
paths:
  allow: ["src/**", "!src/generated/**"]
  protect: ["!CLAUDE.md", {paths: ["src/core/**"], allow: [added, modified]}]
budgets: {per_path: [{paths: ["src/core/**"], logical_lines: 5}]}
"""
)


@pytest.mark.parametrize(
    ("path", "lines"),
    [
        (
            "src/app.py",
            (
                "not protected: no built-in group or paths.protect pattern matches",
                "allowed: matches paths.allow[0] 'src/**'",
            ),
        ),
        (
            "src/generated/x.py",
            (
                "not protected: no built-in group or paths.protect pattern matches",
                "outside-allowlist: excluded by paths.allow[1] '!src/generated/**'",
            ),
        ),
        (
            "package-lock.json",
            (
                "protected-path: protected by built-in group lockfiles ('package-lock.json'); allows nothing",
                "outside-allowlist: no paths.allow pattern matches",
            ),
        ),
        (
            "CLAUDE.md",
            (
                "not protected: unprotected by paths.protect[0] ('!CLAUDE.md')",
                "outside-allowlist: no paths.allow pattern matches",
            ),
        ),
        (
            "src/core/engine.py",
            (
                "protected-path: protected by paths.protect[1] ('src/core/**'); allows added, modified",
                "allowed: matches paths.allow[0] 'src/**'",
                "budget: counted in budgets.per_path[0] ('src/core/**')",
            ),
        ),
        (
            MANIFEST_PATH,
            (
                "manifest-change: this is the receipt policy itself; every change to it is flagged and "
                "judged by the base branch's policy (it cannot be unprotected).",
            ),
        ),
    ],
)
def test_explain(path: str, lines: tuple[str, ...]) -> None:
    assert explain(path, EXPLAIN_POLICY, (MANIFEST_PATH,)).lines == lines


def test_explain_without_allowlist() -> None:
    assert explain("anything.txt", Manifest(), (MANIFEST_PATH,)).lines[1] == (
        "allowed: paths.allow is not set, so any unprotected path may change"
    )
