"""Built-in protected path groups (`paths.defaults`). Patterns match at any depth."""

from __future__ import annotations

from types import MappingProxyType

MANIFEST_PATH = ".github/receipt.yml"

GROUPS: MappingProxyType[str, tuple[str, ...]] = MappingProxyType({
    "lockfiles": (
        "*.lock", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock",
        "poetry.lock", "uv.lock", "Pipfile.lock", "Cargo.lock", "go.sum", "composer.lock",
        "Gemfile.lock", "requirements*.lock",
    ),
    "dependency-manifests": (
        "pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt", "package.json", "go.mod",
        "Cargo.toml", "Gemfile", "composer.json", "pom.xml", "build.gradle*",
    ),
    "ci": (
        "**/.github/workflows/**", "**/.github/actions/**", ".gitlab-ci.yml", "**/.circleci/**",
        "Jenkinsfile", "azure-pipelines.yml",
    ),
    "codeowners": ("CODEOWNERS", "**/.github/CODEOWNERS", "**/docs/CODEOWNERS"),
    "agent-instructions": (
        "AGENTS.md", "CLAUDE.md", "GEMINI.md", ".cursorrules", "**/.cursor/**", "**/.claude/**",
        "**/.codex/**", "**/.github/copilot-instructions.md", "**/.github/instructions/**",
    ),
})  # fmt: skip

GROUP_NAMES: tuple[str, ...] = tuple(GROUPS)
