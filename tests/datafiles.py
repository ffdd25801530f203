"""Where the data vendored for tests and benchmarks lives: `tests/data/` (sources in its README)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
SECRETS = DATA / "secrets"  # gitleaks, Nosey Parker, bandit and detect-secrets, each with LICENSE and SOURCE
EDIT_FIDELITY = DATA / "edit-fidelity"  # the 400 tasks of "When Models Edit Too Much" and their vectors
