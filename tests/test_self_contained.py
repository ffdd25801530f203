"""A clone needs nothing beside it: no file points outside the repository, and vendored data keeps
its license and source."""

from __future__ import annotations

import os
from pathlib import Path

from tests.datafiles import DATA

ROOT = Path(__file__).resolve().parents[1]
# Written in two pieces so that this file does not match itself.
_OUTSIDE = ("../" + "shared", "shared" + "/data")
_NOT_THE_PROJECT = {
    ".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
}  # fmt: skip
# The project's own data, not vendored: diffs of this repository's history (fuzz seeds), which quote
# what the project once said, under the project's license (their README says so).
OWN_DATA = DATA / "fuzz"


def _project_files() -> list[Path]:
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in _NOT_THE_PROJECT and not d.endswith(".egg-info")]
        found.extend(Path(directory) / name for name in filenames)
    return found


def test_nothing_in_the_project_points_beside_the_repository() -> None:
    offenders = []
    for path in _project_files():
        if path.is_symlink() or OWN_DATA / "diffs" in path.parents:
            continue
        text = path.read_bytes()
        offenders.extend(
            f"{path.relative_to(ROOT)}: {needle}" for needle in _OUTSIDE if needle.encode() in text
        )
    assert offenders == []


def test_every_vendored_file_sits_in_a_folder_with_its_license_and_source() -> None:
    sources = {p.parent for p in DATA.rglob("SOURCE")}
    assert {p.relative_to(DATA).as_posix() for p in sources} == {
        "edit-fidelity", "secrets/bandit", "secrets/detect-secrets", "secrets/gitleaks", "secrets/noseyparker",
    }  # fmt: skip
    for folder in sources:
        assert (folder / "LICENSE").read_text(encoding="utf-8").strip(), folder
        assert (folder / "SOURCE").read_text(encoding="utf-8").strip(), folder
    assert "this project's own work" in (OWN_DATA / "README.md").read_text(encoding="utf-8")
    for path in DATA.rglob("*"):
        if path.is_file() and path != DATA / "README.md" and OWN_DATA not in path.parents:
            assert any(folder in path.parents for folder in sources), path


def test_an_upstream_notice_travels_with_its_data_and_with_what_is_generated_from_it() -> None:
    """Apache-2.0 (section 4d) asks that a NOTICE the upstream ships be kept with what is derived."""
    notice = (DATA / "secrets" / "noseyparker" / "NOTICE").read_text(encoding="utf-8")
    assert "Praetorian Security" in notice
    generated = (ROOT / "bot" / "engine" / "content" / "_noseyparker_rules.py").read_text(encoding="utf-8")
    for line in notice.strip().splitlines():
        assert f"#   {line}".rstrip() in generated, line


def test_the_project_carries_its_own_license() -> None:
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
