"""The excess field: how much more a change rewrote than it needed to.

The metrics themselves arrive with the edit-fidelity work; until then every number is null and no
alarm is raised, which the verdict reports as "not measured" rather than as a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.manifest import ExcessPolicy


@dataclass(frozen=True, slots=True)
class ReferenceInfo:
    source: str
    digest: str


@dataclass(frozen=True, slots=True)
class ExcessResult:
    distance: float | None = None
    reference: ReferenceInfo | None = None
    reference_distance: float | None = None
    excess: float | None = None
    formatting_share: float | None = None
    added_complexity: int | None = None
    alarm: bool = False
    alarm_reasons: tuple[str, ...] = ()


def evaluate_excess(policy: ExcessPolicy) -> ExcessResult:
    del policy
    return ExcessResult()
