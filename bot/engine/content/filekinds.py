"""Which language a changed file is written in, from its name or its `#!` line.

A file without an extension is what its `#!` line names; without one, a shell runs it when it is
executed (execve refuses it, and the shell reads it as a script), so it is shell, unless its name
says it is a document (`README`, `LICENSE`) or another tool's file (`Gemfile`, `.gitignore`).
Markup (`.html`, `.vue`, `.svelte`, `.astro`) holds JavaScript in its `<script>` blocks, attributes
and templates (`markupjs.py`). PowerShell is its scripts, modules and manifests (`.ps1`, `.psm1`,
`.psd1`) and a file whose `#!` line names `pwsh`. A patch (`.patch`, `.diff`) is text that becomes
code only where it adds lines; configuration (YAML, TOML, INI) is data whose comments no linter of
the code reads.
"""

from __future__ import annotations

from enum import StrEnum
from posixpath import basename, splitext


class Kind(StrEnum):
    PYTHON = "python"
    JAVASCRIPT = "javascript"
    SHELL = "shell"
    DOCKERFILE = "dockerfile"
    MAKEFILE = "makefile"
    CI = "ci"
    POWERSHELL = "powershell"
    MARKUP = "markup"
    DOCUMENT = "document"
    PATCH = "patch"
    CONFIG = "config"
    OTHER = "other"


_EXTENSIONS = {
    ".py": Kind.PYTHON, ".pyw": Kind.PYTHON, ".pyi": Kind.PYTHON,
    ".js": Kind.JAVASCRIPT, ".mjs": Kind.JAVASCRIPT, ".cjs": Kind.JAVASCRIPT, ".jsx": Kind.JAVASCRIPT,
    ".ts": Kind.JAVASCRIPT, ".mts": Kind.JAVASCRIPT, ".cts": Kind.JAVASCRIPT, ".tsx": Kind.JAVASCRIPT,
    ".es6": Kind.JAVASCRIPT, ".es": Kind.JAVASCRIPT, ".jsm": Kind.JAVASCRIPT,
    ".sh": Kind.SHELL, ".bash": Kind.SHELL, ".zsh": Kind.SHELL, ".ksh": Kind.SHELL, ".bats": Kind.SHELL,
    ".command": Kind.SHELL,
    ".dockerfile": Kind.DOCKERFILE, ".mk": Kind.MAKEFILE,
    ".ps1": Kind.POWERSHELL, ".psm1": Kind.POWERSHELL, ".psd1": Kind.POWERSHELL,
    ".md": Kind.DOCUMENT, ".markdown": Kind.DOCUMENT, ".rst": Kind.DOCUMENT, ".txt": Kind.DOCUMENT,
    ".adoc": Kind.DOCUMENT,
    ".html": Kind.MARKUP, ".htm": Kind.MARKUP, ".xhtml": Kind.MARKUP, ".vue": Kind.MARKUP,
    ".svelte": Kind.MARKUP, ".astro": Kind.MARKUP,
    ".patch": Kind.PATCH, ".diff": Kind.PATCH,
    ".yml": Kind.CONFIG, ".yaml": Kind.CONFIG, ".toml": Kind.CONFIG, ".ini": Kind.CONFIG,
    ".cfg": Kind.CONFIG,
}  # fmt: skip
_NAMES = {
    "Dockerfile": Kind.DOCKERFILE, "Containerfile": Kind.DOCKERFILE,
    "Makefile": Kind.MAKEFILE, "GNUmakefile": Kind.MAKEFILE, "makefile": Kind.MAKEFILE,
    "Jenkinsfile": Kind.CI, ".gitlab-ci.yml": Kind.CI, "azure-pipelines.yml": Kind.CI,
}  # fmt: skip
_CI_DIRECTORIES = (".github/workflows/", ".github/actions/", ".circleci/")
_DOCUMENT_NAMES = frozenset(
    {"README", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS", "CHANGELOG",
     "CHANGES", "HISTORY", "NEWS", "TODO", "INSTALL", "THANKS", "MAINTAINERS", "PATENTS", "CODEOWNERS",
     "OWNERS", "VERSION"}
)  # fmt: skip
# Extensionless files of other tools (Ruby DSLs, TOML, lists of patterns): no shell runs them.
_OTHER_NAMES = frozenset(
    {"Gemfile", "Rakefile", "Vagrantfile", "Podfile", "Fastfile", "Brewfile", "Guardfile", "Capfile",
     "Pipfile", "Berksfile", "Dangerfile", "Appfile", "Matchfile"}
)  # fmt: skip
_SHELL_DOTFILES = frozenset(
    {".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
     ".zshenv", ".zlogin", ".kshrc", ".envrc"}
)  # fmt: skip
_INTERPRETERS = {
    "python": Kind.PYTHON, "node": Kind.JAVASCRIPT, "deno": Kind.JAVASCRIPT, "bun": Kind.JAVASCRIPT,
    "sh": Kind.SHELL, "bash": Kind.SHELL, "zsh": Kind.SHELL, "ksh": Kind.SHELL, "dash": Kind.SHELL,
    "ash": Kind.SHELL, "mksh": Kind.SHELL, "nodejs": Kind.JAVASCRIPT,
    "pwsh": Kind.POWERSHELL, "powershell": Kind.POWERSHELL,
}  # fmt: skip


def _interpreter(first_line: str) -> Kind | None:
    """The language a `#!` line names: `#!/bin/sh`, `#!/usr/bin/env -S python3 -u`."""
    words = first_line[2:].split()
    for word in words[:4]:
        name = basename(word).rstrip("0123456789.")
        if name in _INTERPRETERS:
            return _INTERPRETERS[name]
    return None


def kind_of(path: str, first_line: str | None = None) -> Kind:
    name = basename(path)
    if name in _NAMES:
        return _NAMES[name]
    if name.startswith("Dockerfile.") or name.endswith(".Dockerfile"):
        return Kind.DOCKERFILE
    if path.startswith(_CI_DIRECTORIES) and name.endswith((".yml", ".yaml")):
        return Kind.CI
    extension = splitext(name)[1].lower()
    if extension in _EXTENSIONS:
        return _EXTENSIONS[extension]
    if extension:
        return Kind.OTHER
    if first_line is not None and first_line.startswith("#!"):
        return _interpreter(first_line) or Kind.OTHER
    if name.upper() in _DOCUMENT_NAMES and not name.islower():  # `bin/install` is a script
        return Kind.DOCUMENT
    if name in _OTHER_NAMES or (name.startswith(".") and name not in _SHELL_DOTFILES):
        return Kind.OTHER
    return Kind.SHELL
