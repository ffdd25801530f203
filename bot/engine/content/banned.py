"""Repository-banned patterns (`content.banned`): the maintainers' own RE2 regexes, each matched
against every added line of the files its `paths` select (all files when it has none).

A pattern is read line by line (`^` and `$` are the line's ends). One pass of the pattern over a
whole hunk, with `^`/`$` at line ends, finds every line that can match; only those lines are then
matched alone. Matched text is never quoted in a finding: a banned pattern may well match a secret.
The patterns come from the manifest, compiled when it was read; what matching them may cost is
counted (bounds.MAX_MATCH_WORK), so a pull request's hostile text cannot stall a hostile pattern.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from bot.engine.change import Change
from bot.engine.content.added import AddedFile, Fragment
from bot.engine.content.exclude import read_files
from bot.engine.content.limits import capped
from bot.engine.findings import RuleId, Violation
from bot.engine.globs import matches
from bot.engine.manifest import BannedPattern, Manifest
from bot.engine.patterns import MatchWork, PatternStore, hunk_form


@dataclass(frozen=True, slots=True)
class _Compiled:
    entry: BannedPattern
    line: Any
    hunk: Any | None

    @classmethod
    def of(cls, entry: BannedPattern, patterns: PatternStore) -> _Compiled:
        hunk = hunk_form(entry.pattern)
        return cls(entry, patterns.regex(entry.pattern), None if hunk is None else patterns.regex(hunk))

    def message(self) -> str:
        entry = self.entry
        why = f": {entry.message}" if entry.message else f" (content.banned pattern {entry.pattern!r})"
        return (
            f"Adds text the repository bans ({entry.id}){why}. Rewrite it without that; the policy is "
            "the maintainers' to change, in content.banned of the base branch's manifest."
        )


def _candidate_lines(
    compiled: _Compiled, fragment: Fragment, work: MatchWork
) -> Iterator[tuple[int, int, int]]:
    """(index, start, end) of each line that can match, once each, in order."""
    if compiled.hunk is None:
        yield from fragment.lines_in(0, len(fragment.data) + 1)  # the last line too, if empty
        return
    work.charge(compiled.hunk.programsize, len(fragment.data))
    last = -1
    for match in compiled.hunk.finditer(fragment.data):
        for line in fragment.lines_in(*match.span()):
            if line[0] > last:
                last = line[0]
                yield line


def _matching_lines(compiled: _Compiled, fragment: Fragment, work: MatchWork) -> Iterator[int]:
    data = fragment.data
    for index, start, end in _candidate_lines(compiled, fragment, work):
        work.charge(compiled.line.programsize, end - start + 1)
        if compiled.line.search(data[start:end]) is not None:
            yield fragment.numbers[index]


def _file_violations(compiled: _Compiled, file: AddedFile, work: MatchWork) -> Iterator[Violation]:
    entry = compiled.entry
    listed = [
        Violation(RuleId.BANNED_PATTERN, file.path, number, compiled.message(), entry.id)
        for fragment in file.fragments
        for number in _matching_lines(compiled, fragment, work)
    ]
    what = f"line(s) matching {entry.id}"
    return capped(listed, rule=RuleId.BANNED_PATTERN, path=file.path, what=what, more_id=entry.id)


@dataclass(frozen=True, slots=True)
class BannedPatternsRule:
    """`content.banned`: the maintainers' regexes over added lines."""

    one_pass: ClassVar[bool] = True  # its match budget is the whole change's (patterns.MatchWork)

    def scan(
        self,
        change: Change,
        manifest: Manifest,
        files: Sequence[AddedFile] | None = None,
        added: Sequence[AddedFile] | None = None,
    ) -> Iterator[Violation]:
        entries = [_Compiled.of(e, manifest.patterns) for e in manifest.content.banned]
        work = MatchWork("content.banned's patterns against the text this change adds")
        for file in read_files(change, manifest, None, files) if entries else ():
            for compiled in entries:
                paths = compiled.entry.paths
                if paths is None or matches(paths, file.path, manifest.patterns):
                    yield from _file_violations(compiled, file, work)
