"""Which language a changed file is written in, from its name or its `#!` line."""

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
    DOCUMENT = "document"
    OTHER = "other"


_EXTENSIONS = {
    ".py": Kind.PYTHON, ".pyw": Kind.PYTHON,
    ".js": Kind.JAVASCRIPT, ".mjs": Kind.JAVASCRIPT, ".cjs": Kind.JAVASCRIPT, ".jsx": Kind.JAVASCRIPT,
    ".ts": Kind.JAVASCRIPT, ".mts": Kind.JAVASCRIPT, ".cts": Kind.JAVASCRIPT, ".tsx": Kind.JAVASCRIPT,
    ".sh": Kind.SHELL, ".bash": Kind.SHELL, ".zsh": Kind.SHELL, ".ksh": Kind.SHELL,
    ".dockerfile": Kind.DOCKERFILE, ".mk": Kind.MAKEFILE,
    ".md": Kind.DOCUMENT, ".markdown": Kind.DOCUMENT, ".rst": Kind.DOCUMENT, ".txt": Kind.DOCUMENT,
    ".adoc": Kind.DOCUMENT,
}  # fmt: skip
_NAMES = {
    "Dockerfile": Kind.DOCKERFILE, "Containerfile": Kind.DOCKERFILE,
    "Makefile": Kind.MAKEFILE, "GNUmakefile": Kind.MAKEFILE, "makefile": Kind.MAKEFILE,
    "Jenkinsfile": Kind.CI, ".gitlab-ci.yml": Kind.CI, "azure-pipelines.yml": Kind.CI,
}  # fmt: skip
_CI_DIRECTORIES = (".github/workflows/", ".github/actions/", ".circleci/")
_INTERPRETERS = {
    "python": Kind.PYTHON, "node": Kind.JAVASCRIPT, "deno": Kind.JAVASCRIPT, "bun": Kind.JAVASCRIPT,
    "sh": Kind.SHELL, "bash": Kind.SHELL, "zsh": Kind.SHELL, "ksh": Kind.SHELL, "dash": Kind.SHELL,
}  # fmt: skip


def _interpreter(first_line: str) -> Kind | None:
    """The language a `#!` line names: `#!/bin/sh`, `#!/usr/bin/env -S python3 -u`."""
    if not first_line.startswith("#!"):
        return None
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
    if not extension and first_line is not None:
        return _interpreter(first_line) or Kind.OTHER
    return Kind.OTHER
