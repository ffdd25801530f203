"""Built-in protected path groups (`paths.defaults`). Patterns match at any depth, in any case."""

from __future__ import annotations

from types import MappingProxyType

MANIFEST_PATH = ".github/receipt.yml"

GROUPS: MappingProxyType[str, tuple[str, ...]] = MappingProxyType({
    "lockfiles": (
        "*.lock", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock",
        "poetry.lock", "uv.lock", "Pipfile.lock", "Cargo.lock", "go.sum", "composer.lock",
        "Gemfile.lock", "requirements*.lock",
    ),
    # What an installer reads: the packages, and where they come from (.npmrc, pip.conf name the
    # registry; .pnpmfile.cjs runs at install time).
    "dependency-manifests": (
        "pyproject.toml", "setup.py", "setup.cfg", "*requirements*.txt", "**/requirements/**",
        "*requirements*.in", "constraints*.txt", "Pipfile", "package.json", "go.mod", "Cargo.toml",
        "Gemfile", "composer.json", "pom.xml", "build.gradle*", ".npmrc", ".yarnrc", ".yarnrc.yml",
        ".pnpmfile.cjs", "pip.conf", "pip.ini", "uv.toml",
    ),
    # What runs with the repository's secrets, or decides what merges and updates.
    "ci": (
        "**/.github/workflows/**", "**/.github/actions/**", ".gitlab-ci.yml", "**/.gitlab/ci/**",
        "**/.circleci/**", "Jenkinsfile", "azure-pipelines.yml", ".travis.yml",
        "bitbucket-pipelines.yml", ".pre-commit-config.yaml", "**/.github/dependabot.yml",
        "**/.github/dependabot.yaml", "renovate.json", "renovate.json5", ".renovaterc",
        ".renovaterc.json", ".renovaterc.json5",
    ),
    "codeowners": ("CODEOWNERS", "**/.github/CODEOWNERS", "**/docs/CODEOWNERS"),
    # What coding agents and editors read as instructions, tools they may call (MCP servers) and
    # commands they run on opening the folder (VS Code tasks, dev containers).
    "agent-instructions": (
        "AGENTS.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", ".cursorrules",
        ".windsurfrules", ".clinerules", ".mcp.json", "**/.cursor/**", "**/.claude/**",
        "**/.codex/**", "**/.gemini/**", "**/.windsurf/**", "**/.github/copilot-instructions.md",
        "**/.github/instructions/**", "**/.github/prompts/**", "**/.github/agents/**",
        "**/.github/chatmodes/**", "**/.vscode/tasks.json", "**/.vscode/mcp.json",
        "**/.devcontainer/**", ".devcontainer.json",
        # other agents' rules, memories and configuration (Aider's names the commands it runs)
        ".aider.conf.yml", "QWEN.md", ".goosehints", ".roomodes", ".augment-guidelines", "/.rules",
        "opencode.json", "**/.continue/**", "**/.roo/**", "**/.kiro/**", "**/.junie/**",
        "**/.amazonq/**", "**/.augment/**", "**/.openhands/**", "**/.qwen/**", "**/.opencode/**",
        "**/.trae/**",
    ),
    # What decides whether tests run and what they see: a new conftest.py can make every test
    # pass without running it; sitecustomize.py runs in every Python process that finds it; a test
    # runner's configuration names setup files run before every test (Jest, Vitest — which also
    # reads vite.config —, Mocha, Karma, AVA, PHPUnit, RSpec) and Cargo's a `runner` for test binaries;
    # pytest, or what it imports, at the root shadows the installed one for `python -m pytest` and
    # `python -c` (the current directory comes first on the module path).
    "test-harness": (
        "conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "noxfile.py", ".coveragerc",
        "sitecustomize.py", "usercustomize.py", "jest.config.*", "vitest.config.*",
        "vitest.workspace.*", "vite.config.*", ".mocharc*", "karma.conf.*", "ava.config.*",
        "phpunit.xml", "phpunit.xml.dist", ".rspec", "**/.cargo/config", "**/.cargo/config.toml",
        "/pytest.py", "/pytest/", "/_pytest/", "/py.py", "/pluggy/", "/pluggy.py",
    ),
    # How git reads the repository: attributes (diff, filters, linguist), submodules, LFS.
    "git-config": (".gitattributes", ".gitmodules", ".lfsconfig"),
})  # fmt: skip

# The files the test command runs (`tests.command`, or the one check is given; testcommand.py):
# a group whose patterns come from the manifest, so not in GROUPS.
TEST_COMMAND = "test-command"
GROUP_NAMES: tuple[str, ...] = (*GROUPS, TEST_COMMAND)
