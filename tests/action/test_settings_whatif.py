"""The `whatif-last` input: a whole number from 0 to 30, 10 when empty; anything else is a usage
error naming the input."""

from __future__ import annotations

from pathlib import Path

import pytest

from action.settings import read_settings
from bot.gather import UsageError


def _env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    return {
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_REPOSITORY": "acme/widgets",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "INPUT_GITHUB_TOKEN": "t",
        "INPUT_MODE": "publish",
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},
    }


@pytest.mark.parametrize(("given", "read"), [(None, 10), ("0", 0), ("30", 30), (" 7 ", 7)])
def test_whatif_last_is_read(tmp_path: Path, given: str | None, read: int) -> None:
    env = _env(tmp_path, **({"whatif_last": given} if given is not None else {}))
    assert read_settings([], env).whatif_last == read


@pytest.mark.parametrize("given", ["31", "-1", "ten", "1.5", "１"])
def test_whatif_last_out_of_range_is_a_usage_error(tmp_path: Path, given: str) -> None:
    with pytest.raises(UsageError, match=r"whatif-last .* must be a whole number from 0 to 30"):
        read_settings([], _env(tmp_path, whatif_last=given))
