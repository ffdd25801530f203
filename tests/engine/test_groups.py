"""Built-in groups cover what agents and tools read, in every spelling a checkout can give a name.

A case-insensitive filesystem (macOS, Windows) and several agents read `Agents.md` as `AGENTS.md`:
protecting patterns match every spelling of a path. Patterns that allow (paths.allow) or unprotect
(`!` in paths.protect) match only the spelling they name, so case never loosens the policy.
"""

from __future__ import annotations

import pytest

from bot.engine.groups import GROUP_NAMES, GROUPS, MANIFEST_PATH
from bot.engine.manifest import Manifest, parse_manifest
from bot.engine.scope import explain, protection
from tests.gitrepo import GitRepo, check, rules

PROTECTED = {
    "agent-instructions": [
        "CLAUDE.local.md", "docs/CLAUDE.local.md", ".windsurfrules", ".clinerules", ".clinerules/style.md",
        ".mcp.json", "pkg/.mcp.json", ".github/prompts/fix.prompt.md", ".github/agents/reviewer.md",
        ".vscode/tasks.json", ".devcontainer/devcontainer.json", ".devcontainer/Dockerfile",
        "claude.md", "Agents.md", ".CURSORRULES", ".Claude/settings.json", "AGENT.md",
        ".windsurf/rules/x.md", ".gemini/settings.json", ".vscode/mcp.json", ".github/chatmodes/x.md",
        ".aider.conf.yml", "QWEN.md", ".goosehints", ".roomodes", ".augment-guidelines", ".rules",
        "opencode.json", ".continue/rules/a.md", ".roo/rules/a.md", ".kiro/steering/product.md",
        ".junie/guidelines.md", ".amazonq/rules/a.md", ".augment/rules/a.md", ".openhands/microagents/repo.md",
        ".qwen/settings.json", ".opencode/agent/review.md", ".trae/rules/project_rules.md",
    ],
    "ci": [
        ".travis.yml", "bitbucket-pipelines.yml", ".gitlab/ci/build.yml", ".pre-commit-config.yaml",
        ".github/dependabot.yml", ".github/dependabot.yaml", "renovate.json", ".github/renovate.json",
        "renovate.json5", ".renovaterc", ".renovaterc.json", ".GitHub/Workflows/ci.yml",
        "JENKINSFILE", ".circleci/config.yml",
    ],
    "dependency-manifests": [
        "requirements.txt", "dev-requirements.txt", "requirements-dev.txt", "test_requirements.txt",
        "requirements/base.txt", "requirements/dev.in", "requirements.in", "constraints.txt",
        "Pipfile", ".npmrc", ".yarnrc.yml", ".yarnrc", "pip.conf", "pip.ini", "PyProject.toml",
        "sub/Package.json", ".pnpmfile.cjs", "uv.toml",
    ],
    "test-harness": [
        "conftest.py", "tests/conftest.py", "src/pkg/tests/unit/conftest.py", "pytest.ini",
        ".pytest.ini", "tox.ini", "noxfile.py", ".coveragerc", "ConfTest.py", "TOX.INI",
        "sitecustomize.py", "usercustomize.py", "jest.config.js", "web/jest.config.ts",
        "vitest.config.mts", "vitest.workspace.ts", "vite.config.js", ".mocharc.yml", ".mocharc.json",
        "karma.conf.js", "ava.config.cjs", "phpunit.xml", "phpunit.xml.dist", ".rspec",
        ".cargo/config.toml", "crates/x/.cargo/config", "JEST.CONFIG.JS", "pytest.py", "pytest/__init__.py",
        "_pytest/python.py", "py.py", "pluggy/__init__.py", "pluggy.py", "_Pytest/main.py",
    ],
    "git-config": [
        ".gitattributes", "src/.gitattributes", ".gitmodules", ".lfsconfig", ".GitAttributes",
        ".GITMODULES",
    ],
    "lockfiles": ["POETRY.LOCK", "Package-Lock.json", "deep/Cargo.LOCK"],
    "codeowners": ["codeowners", ".github/codeowners", "Docs/CodeOwners"],
}  # fmt: skip

QUIET = [
    "src/agents.py", "CLAUDE.md.bak", "docs/claude-notes.md", "conftest_helpers.py", "tests/test_conftest.py",
    "src/requirements.py", "requirements.md", "src/pipfile_parser.py", "tox.ini.example", "mytox.ini",
    ".npmrc.example", "renovate.json.md", "docs/travis.md", "src/gitattributes.py", "lfsconfig.md",
    "pytest_plugin.py", "src/noxfile_helper.py", "coveragerc.txt", ".github/workflow-notes.md",
    "vscode/tasks.json", ".vscode/settings.json", "devcontainer.md", "src/.rules", "docs/rules.md",
    "aider.conf.yml.md", "qwen.py", "src/prompts/x.md",
    "jest.configure.js", "src/jest-config.js", "docs/vite.md", "mocharc.md", "cargo/config.toml",
    ".cargo/credentials.toml", "phpunit.xml.bak", "tests/pytest.py", "src/_pytest/x.py", "docs/pytest/index.md",
    "pytest_helpers.py", "copy.py",
]  # fmt: skip


def test_the_new_groups_exist_and_the_manifest_accepts_them() -> None:
    assert {"git-config", "test-harness"} <= set(GROUP_NAMES)
    parsed = parse_manifest("version: 1\npaths:\n  defaults: [git-config, test-harness]\n")
    assert parsed.paths.defaults == ("git-config", "test-harness")


@pytest.mark.parametrize(("group", "path"), [(g, p) for g, paths in PROTECTED.items() for p in paths])
def test_protected_in_any_spelling(group: str, path: str) -> None:
    decided = protection(Manifest(), path)
    assert decided is not None and decided.protected, path
    assert decided.source == f"built-in group {group}"


@pytest.mark.parametrize("path", QUIET)
def test_near_misses_stay_unprotected(path: str) -> None:
    assert protection(Manifest(), path) is None


@pytest.mark.parametrize(("group", "patterns"), sorted(GROUPS.items()))
def test_every_pattern_matches_its_upper_and_lower_case_spelling(
    group: str, patterns: tuple[str, ...]
) -> None:
    for pattern in patterns:
        anchored = pattern.startswith("/")  # at the root only
        example = pattern.lstrip("/").replace("**/", "").replace("/**", "/x").replace("*", "any")
        example += "x" if example.endswith("/") else ""
        nested = [] if anchored else [f"Nested/{example.swapcase()}"]
        for path in (example.upper(), example.lower(), *nested):
            decided = protection(Manifest(), path)
            assert decided is not None and decided.protected and decided.source == f"built-in group {group}"
        if anchored:
            assert protection(Manifest(), f"nested/{example}") is None


POLICY = parse_manifest(
    """version: 1
paths:
  defaults: false
  allow: ["src/**", "tests/**", ".env*", "!src/secret/**"]
  protect: [".env*", "!.env.example", {paths: ["tests/**"], allow: [added]}]
"""
)


@pytest.mark.parametrize(
    ("path", "protected"),
    [
        (".env", True), (".ENV", True), (".Env.local", True), ("src/.ENVRC", True),
        (".env.example", False),  # unprotected in the spelling the manifest names
        (".ENV.EXAMPLE", True), (".Env.Example", True),  # any other spelling stays protected
        ("TESTS/test_a.py", True), ("Tests/unit/x.py", True), ("tests/test_a.py", True),
        ("src/app.py", False), ("envs/x", False),
    ],
)  # fmt: skip
def test_manifest_protect_entries_match_every_spelling_and_unprotect_only_one(
    path: str, protected: bool
) -> None:
    decided = protection(POLICY, path)
    assert (decided is not None and decided.protected) is protected


def test_case_never_opens_the_allowlist(repo: GitRepo) -> None:
    repo.write(
        MANIFEST_PATH, "version: 1\npaths:\n  defaults: false\n  allow: ['src/**', '!src/secret/**']\n"
    )
    repo.write("src/app.py", "x = 1\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("SRC/evil.py", "x = 1\n")  # another directory on Linux; the same on macOS
    repo.write("src/Secret/key.py", "x = 1\n")  # excluded in any spelling
    repo.write("src/SECRET/deep/key.py", "x = 1\n")
    repo.write("src/ok.py", "x = 1\n")
    repo.commit("pr")
    assert rules(check(repo)) == [
        ("outside-allowlist", "SRC/evil.py"),
        ("outside-allowlist", "src/SECRET/deep/key.py"),
        ("outside-allowlist", "src/Secret/key.py"),
    ]


def test_a_receipt_flags_case_variants_of_protected_files(repo: GitRepo) -> None:
    repo.write("README.md", "x\n")
    repo.commit("base")
    repo.branch("pr")
    for path in ("Agents.md", "claude.md", "TESTS/conftest.py", ".GitAttributes", "src/.Mcp.json"):
        repo.write(path, "x\n")
    repo.commit("pr")
    receipt = check(repo)
    assert rules(receipt) == [
        ("protected-path", ".GitAttributes"),
        ("protected-path", "Agents.md"),
        ("protected-path", "TESTS/conftest.py"),
        ("protected-path", "claude.md"),
        ("protected-path", "src/.Mcp.json"),
    ]
    agents = receipt.scope[1]
    assert "built-in group agent-instructions ('AGENTS.md', matched case-insensitively)" in agents.message
    assert agents.id == "agent-instructions"


def test_explain_says_when_case_decided() -> None:
    manifest = Manifest()
    assert explain("Agents.md", manifest, (MANIFEST_PATH,)).lines[0] == (
        "protected-path: protected by built-in group agent-instructions ('AGENTS.md', matched "
        "case-insensitively); allows nothing"
    )
    assert explain("AGENTS.md", manifest, (MANIFEST_PATH,)).lines[0] == (
        "protected-path: protected by built-in group agent-instructions ('AGENTS.md'); allows nothing"
    )
    assert explain("src/Secret/x.py", POLICY, (MANIFEST_PATH,)).lines[1] == (
        "outside-allowlist: excluded by paths.allow[3] '!src/secret/**' (matched case-insensitively)"
    )
    assert explain(".ENV.EXAMPLE", POLICY, (MANIFEST_PATH,)).lines[0] == (
        "protected-path: protected by paths.protect[0] ('.env*', matched case-insensitively); allows nothing"
    )
