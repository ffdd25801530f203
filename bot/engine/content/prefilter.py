"""The content rules' prefilters, in as few RE2 set passes per hunk as serve them all.

A rule reads a hunk further only where some of its patterns occur: `secret` its detectors' keywords
(and which of its near-ubiquitous detectors match at all), `dangerous` the calls it must parse for,
`suppression` its markers. Each rule names those patterns as groups. The registry (rules.py) joins
every rule's groups into one Prefilter, so a hunk is read once for all the light groups: RE2's set
automaton for keywords and short patterns together runs about as fast as for any one of them. A
group with a large automaton of its own (`own_pass`) would slow that pass by more than it costs
alone, so it gets a pass of its own, run only for the rules that ask. A rule built on its own makes
a Prefilter of its own groups.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from threading import Lock

from bot.engine.content.added import Fragment
from bot.engine.content.patternset import PatternSet

Answers = Mapping[str, Sequence[int]]
_NONE: Sequence[int] = ()


class _Pass:
    """Some groups' patterns as one RE2 set, compiled on first use."""

    def __init__(self, groups: Mapping[str, tuple[str, ...]]) -> None:
        self.patterns = [p for patterns in groups.values() for p in patterns]
        self.owner = [(name, i) for name, patterns in groups.items() for i in range(len(patterns))]
        self._set: PatternSet | None = None
        self._lock = Lock()

    def answer(self, fragment: Fragment) -> Answers:
        with self._lock:
            if self._set is None:
                self._set = PatternSet(self.patterns)
        answers: dict[str, list[int]] = {}
        for index in self._set.present(fragment.data):
            name, within = self.owner[index]
            answers.setdefault(name, []).append(within)
        return answers


class Prefilter:
    """Named groups of RE2 patterns, answered once per fragment and pass (the answer is kept on the
    fragment, which every rule of a scan shares)."""

    def __init__(self, groups: Mapping[str, Sequence[str]], *, own_pass: Collection[str] = ()) -> None:
        self._groups = {name: tuple(patterns) for name, patterns in groups.items()}
        shared = {n: p for n, p in self._groups.items() if n not in own_pass}
        alone = [{n: p} for n, p in self._groups.items() if n in own_pass]
        self._passes = [_Pass(g) for g in ([shared] if shared else []) + alone]
        self._pass_of = {name: p for p in self._passes for name, _ in p.owner}

    def patterns(self, group: str) -> tuple[str, ...]:
        """The patterns of `group`, in the order `present` numbers them; KeyError if there is none."""
        if group not in self._groups:
            raise KeyError(f"this prefilter has no group {group!r} (it has {', '.join(self._groups)})")
        return self._groups[group]

    def present(self, fragment: Fragment, group: str) -> Sequence[int]:
        """Indexes (within `group`, ascending) of its patterns that occur in the fragment."""
        self.patterns(group)
        one = self._pass_of.get(group)
        if one is None:  # a group without patterns
            return _NONE
        return fragment.memo(one, one.answer).get(group, _NONE)
