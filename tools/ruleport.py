"""What the ruleset generators share: RE2 checks and the command line that writes a module."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import re2


class PortError(ValueError):
    """A rule the port cannot carry over faithfully: the generator stops rather than drop it."""


def compiled(where: str, pattern: str) -> Any:
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        raise PortError(f"{where}: RE2 rejects {pattern!r}: {exc}") from exc


def generate(
    argv: list[str] | None,
    *,
    doc: str,
    folder_help: str,
    output: Path,
    render: Callable[[Path], str],
    errors: tuple[type[Exception], ...],
) -> int:
    """Parse the command line, render the module from the folder given, write it and format it."""
    name = Path(sys.argv[0]).stem
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("folder", type=Path, help=folder_help)
    parser.add_argument("--output", type=Path, default=output)
    args = parser.parse_args(argv)
    try:
        text = render(args.folder)
    except (PortError, OSError, *errors) as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 1
    args.output.write_text(text, encoding="utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    subprocess.run([str(ruff), "format", "--quiet", str(args.output)], check=True)
    return 0
