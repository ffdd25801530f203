"""The action's inputs and the runner's variables, read once and validated."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath

from bot.engine import MANIFEST_PATH
from bot.gather import UsageError
from bot.gather.whatif import DEFAULT_LAST, MAX_LAST
from bot.github.client import DEFAULT_API_URL
from bot.github.repo import RepoRef

DEFAULT_RECEIPT_PATH = "receipt.json"


class Mode(StrEnum):
    CHECK = "check"
    COMPUTE = "compute"
    PUBLISH = "publish"


@dataclass(frozen=True)
class Settings:
    mode: Mode
    manifest: str
    test_command: str | None
    reference: str | None
    receipt_path: Path
    workspace: Path
    event_name: str
    event_path: Path
    repository: RepoRef
    api_url: str
    output_file: Path | None
    summary_file: Path | None
    token: str | None
    whatif_last: int = DEFAULT_LAST

    def __repr__(self) -> str:
        return f"Settings(mode={self.mode}, repository={self.repository}, event={self.event_name})"


def _input(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get("INPUT_" + name.upper().replace("-", "_"), "").strip()
    return value or None


def _parser(environ: Mapping[str, str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m action", exit_on_error=False)
    parser.add_argument("--mode", default=_input(environ, "mode") or Mode.CHECK.value)
    parser.add_argument("--manifest", default=_input(environ, "manifest") or MANIFEST_PATH)
    parser.add_argument("--test-command", default=_input(environ, "test-command"))
    parser.add_argument("--reference", default=_input(environ, "reference"))
    parser.add_argument("--receipt-path", default=_input(environ, "receipt-path") or DEFAULT_RECEIPT_PATH)
    parser.add_argument("--whatif-last", default=_input(environ, "whatif-last") or str(DEFAULT_LAST))
    return parser


def _required(environ: Mapping[str, str], name: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise UsageError(f"{name} is not set: run this inside a GitHub Actions job")
    return value


def repository_path(value: str, what: str) -> str:
    """A path inside the repository, '/'-separated, without '..' or a leading '/'."""
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or not path.parts or str(path) == ".":
        raise UsageError(f"{what} {value!r} must be a relative path inside the repository")
    return str(path)


def _whatif_last(value: str) -> int:
    if not (value.isascii() and value.isdigit()) or not 0 <= int(value) <= MAX_LAST:
        raise UsageError(f"whatif-last {value!r} must be a whole number from 0 to {MAX_LAST}")
    return int(value)


def read_settings(argv: Sequence[str], environ: Mapping[str, str]) -> Settings:
    """Inputs come as INPUT_* variables (as action.yml passes them) or as flags; UsageError otherwise."""
    try:
        args, extra = _parser(environ).parse_known_args(list(argv))
    except argparse.ArgumentError as exc:
        raise UsageError(str(exc)) from exc
    if extra:
        raise UsageError(f"unexpected arguments: {' '.join(extra)}")
    try:
        mode = Mode(args.mode)
    except ValueError:
        raise UsageError(f"mode {args.mode!r} is not one of: check, compute, publish") from None
    workspace = Path(_required(environ, "GITHUB_WORKSPACE"))
    try:
        repository = RepoRef.parse(_required(environ, "GITHUB_REPOSITORY"))
    except ValueError as exc:
        raise UsageError(f"GITHUB_REPOSITORY: {exc}") from exc
    token = _input(environ, "github-token")
    if token is None and mode is not Mode.COMPUTE:
        raise UsageError(f"the github-token input is empty; mode {mode} needs a token to call the API")
    output, summary = environ.get("GITHUB_OUTPUT"), environ.get("GITHUB_STEP_SUMMARY")
    return Settings(
        mode=mode,
        manifest=repository_path(args.manifest, "manifest"),
        test_command=args.test_command,
        reference=args.reference,
        receipt_path=workspace / args.receipt_path,
        workspace=workspace,
        event_name=_required(environ, "GITHUB_EVENT_NAME"),
        event_path=Path(_required(environ, "GITHUB_EVENT_PATH")),
        repository=repository,
        api_url=environ.get("GITHUB_API_URL", "").strip() or DEFAULT_API_URL,
        output_file=Path(output) if output else None,
        summary_file=Path(summary) if summary else None,
        token=token,
        whatif_last=_whatif_last(args.whatif_last),
    )
