"""Secrets: credentials and private keys in added text (`content.secrets`).

gitleaks' default ruleset (`_gitleaks_rules.py`) runs with gitleaks' semantics: a rule runs on a
hunk only when one of its keywords occurs in the hunk, case aside; its secret must exceed the
rule's entropy (and, for `generic-*` rules, hold a digit); the global and per-rule allowlists drop
the rest. receipt's own detectors (`detectors.py`) add token checksums, AWS secret keys, credentials
in URLs and a few formats gitleaks finds only beside the provider's name; Nosey Parker's rules for
formats gitleaks lacks (`_noseyparker_rules.py`: Docker Hub, Groq, Doppler...) run as receipt's
own, placeholders not reported. One secret found by several detectors is reported once, by the
most specific. Findings show a redacted form only (`redact.py`).

gitleaks' global path allowlist (vendored code, lockfiles, images, virtualenvs) silences only what
receipt cannot verify: a token whose checksum verifies, a private key and a JWT whose header decodes
are reported wherever they are, since adding such a directory is exactly what the check is for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import re2

from bot.engine.change import Change
from bot.engine.content._gitleaks_rules import GLOBAL_ALLOWLIST, RULES
from bot.engine.content._noseyparker_rules import RULES as NOSEY_PARKER_RULES
from bot.engine.content.added import AddedFile, Fragment, chosen
from bot.engine.content.detectors import CHECKSUMS, OWN_DETECTORS, VALIDATORS, VERIFIED_FORMATS
from bot.engine.content.examples import EXAMPLES
from bot.engine.content.exclude import excluded_by, excluded_note
from bot.engine.content.heuristics import (
    base64_text,
    has_digit,
    is_placeholder,
    looks_like_name,
    shannon_entropy,
)
from bot.engine.content.limits import capped
from bot.engine.content.literals import Literals, literal_text
from bot.engine.content.prefilter import Prefilter
from bot.engine.content.redact import redact
from bot.engine.content.ruleset import Allowlist, SecretPattern, Target
from bot.engine.findings import RuleId, Violation, hashed_basis
from bot.engine.gitpath import matchable
from bot.engine.manifest import Manifest
from bot.engine.regex import compile_re2, widened

_OVERRIDE = (
    "Not a credential? That is a maintainer's call: merge with admin approval, or set "
    "content.secrets: false in the base branch's manifest."
)


@cache
def _any_of(sources: tuple[str, ...]) -> Any | None:
    """One RE2 pattern matching wherever one of `sources` does (None for none): a match is checked
    in one pass, not once per pattern. Cached per allowlist of the built-in rules, a fixed set."""
    return compile_re2("|".join(f"(?:{source})" for source in sources)) if sources else None


@cache
def _any_word(words: tuple[str, ...]) -> Any | None:
    """Whether a text holds any of `words`, in one RE2 pass: gitleaks' generic rule has 1,446
    stopwords, and testing each against every candidate made the rule crawl on text with many."""
    return compile_re2("|".join(re2.escape(word) for word in words)) if words else None


@dataclass(frozen=True, slots=True)
class _Allow:
    """An allowlist. Its patterns compile when first consulted (compile_re2 caches them): most
    detectors never match anything in a given change, and compiling them all costs more than a
    typical whole receipt."""

    regex_sources: tuple[str, ...]
    target: Target
    path_sources: tuple[str, ...]
    stopwords: tuple[str, ...]
    require_all: bool

    @classmethod
    def of(cls, allow: Allowlist) -> _Allow:
        return cls(allow.regexes, allow.target, allow.paths, allow.stopwords, allow.require_all)

    def regexes_match(self, text: str) -> bool:
        regex = _any_of(self.regex_sources)
        return regex is not None and regex.search(text) is not None

    def stopword_in(self, secret: str) -> bool:
        words = _any_word(self.stopwords)
        return words is not None and words.search(secret.lower()) is not None

    def drops(self, path: str, secret: str, match: str, line: Callable[[], str]) -> bool:
        checks: list[bool] = []
        if self.regex_sources:
            target = self.target
            text = secret if target is Target.SECRET else match if target is Target.MATCH else line()
            checks.append(self.regexes_match(text))
        if self.path_sources:
            paths = _any_of(self.path_sources)
            checks.append(paths is not None and paths.search(matchable(path)) is not None)
        if self.stopwords:
            checks.append(self.stopword_in(secret))
        return bool(checks) and (all(checks) if self.require_all else any(checks))


@dataclass(frozen=True, slots=True)
class Detector:
    """One detector; its patterns compile on first use, like allowlists'."""

    id: str
    regex_source: str
    keywords: tuple[str, ...]
    entropy: float
    secret_group: int
    path_source: str | None
    allowlists: tuple[_Allow, ...]
    checksum: Callable[[str], bool] | None = None
    valid: Callable[[str], bool] | None = None
    requires_source: str | None = None
    own: bool = False

    @property
    def regex(self) -> Any:
        return compile_re2(self.regex_source)

    @property
    def path(self) -> Any | None:
        return compile_re2(self.path_source) if self.path_source else None

    @property
    def requires(self) -> Any | None:
        return compile_re2(self.requires_source) if self.requires_source else None

    @property
    def generic(self) -> bool:
        return self.id.startswith("generic")

    @property
    def verifies(self) -> bool:
        """Whether its findings can be verified (a checksum, or a format checked by structure)."""
        return self.checksum is not None or self.id in VERIFIED_FORMATS

    @classmethod
    def of(
        cls,
        pattern: SecretPattern,
        *,
        checksum: Callable[[str], bool] | None = None,
        valid: Callable[[str], bool] | None = None,
        requires: str | None = None,
        own: bool = False,
    ) -> Detector:
        return cls(
            id=pattern.id,
            regex_source=pattern.regex,
            keywords=pattern.keywords,
            entropy=pattern.entropy,
            secret_group=pattern.secret_group,
            path_source=pattern.path or None,
            allowlists=tuple(_Allow.of(a) for a in pattern.allowlists),
            checksum=checksum,
            valid=valid,
            requires_source=requires or None,
            own=own,
        )


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """One secret: `start`/`end` are byte offsets in its fragment, `line` its head line."""

    detector: str
    line: int
    start: int
    end: int
    secret: str
    checksum: bool | None
    own: bool
    generic: bool
    public_prefix: int
    verified: bool = False  # its checksum verifies, or its format is one of VERIFIED_FORMATS

    def rank(self) -> tuple[bool, bool, int, int, str]:
        """Most trustworthy first: a verified checksum, a specific format, the longest span."""
        return (self.checksum is not True, self.generic, self.start - self.end, self.start, self.detector)


def _public_prefix(detector: Detector, secret: str) -> int:
    """How much of the secret is format rather than secret: `-----BEGIN ... KEY-----`, `ghp_`."""
    if secret.startswith("-----BEGIN"):
        end = secret.find("-----", len("-----BEGIN"))
        return end + 5 if end > 0 else len("-----BEGIN")
    lowered = secret.lower()
    return max((len(k) for k in detector.keywords if lowered.startswith(k)), default=0)


def _best_of(cluster: list[SecretFinding]) -> list[SecretFinding]:
    kept: list[SecretFinding] = []
    for candidate in sorted(cluster, key=SecretFinding.rank):
        if all(candidate.end <= k.start or k.end <= candidate.start for k in kept):
            kept.append(candidate)
    return kept


def _resolve_overlaps(found: list[SecretFinding]) -> list[SecretFinding]:
    """Overlapping findings (one secret, several detectors) keep the best; others all stay. Spans
    are grouped into clusters that overlap first, so the work grows with the findings, not their square."""
    kept: list[SecretFinding] = []
    cluster: list[SecretFinding] = []
    cluster_end = -1
    for finding in sorted(found, key=lambda f: (f.start, f.end, f.detector)):
        if finding.start >= cluster_end and cluster:
            kept.extend(_best_of(cluster))
            cluster = []
        cluster.append(finding)
        cluster_end = max(cluster_end, finding.end)
    kept.extend(_best_of(cluster))
    return sorted(kept, key=lambda f: (f.start, f.detector))


# A detector without keywords, or with one this short (`key`, `ey`, `s.`) or this common in code
# (`test_` names every test; `curl` is in scripts and docs, and in "curly"), is a candidate in most
# hunks, though it rarely matches: the prefilter also says which of these match at all, so a hunk is
# read once for all of them rather than once for each. The set holds their patterns widened (see
# regex.widened), which makes its pass about a quarter faster; a detector it names still runs its
# own pattern.
_COMMON_KEYWORD = 3
_UBIQUITOUS_KEYWORDS = frozenset({"test_", "curl"})
KEYWORDS = "secret-keywords"
COMMON = "secret-common"
OWN_PASS = frozenset({COMMON})  # its automaton is large: joined with others, it slows their pass
# A leading `[\w.-]{0,50}?` (gitleaks' generic rules) changes where a match starts, not whether
# there is one (unless an assertion follows it); without it the set's automaton is a quarter faster.
_OPTIONAL_LEAD = re.compile(r"\A(\(\?i\))?\[\\w\.-\]\{0,\d+\}\??(?!\\[bBAz]|\^|\$)")


def _keywords(detectors: Sequence[Detector]) -> list[str]:
    return sorted({k for d in detectors for k in d.keywords})


def _is_common(detector: Detector) -> bool:
    keywords = detector.keywords
    return (
        not keywords
        or min(map(len, keywords)) <= _COMMON_KEYWORD
        or not _UBIQUITOUS_KEYWORDS.isdisjoint(keywords)
    )


def _common(detectors: Sequence[Detector]) -> tuple[int, ...]:
    return tuple(i for i, d in enumerate(detectors) if _is_common(d))


def prefilter_groups(detectors: Sequence[Detector]) -> dict[str, tuple[str, ...]]:
    """The prefilter patterns of a scanner of `detectors`: each keyword, case folded by RE2 (as
    gitleaks lower-cases a hunk, Unicode-wise), and whether each common detector matches at all."""
    return {
        KEYWORDS: tuple("(?i)" + re2.escape(k) for k in _keywords(detectors)),
        COMMON: tuple(
            widened(_OPTIONAL_LEAD.sub(lambda m: m.group(1) or "", detectors[i].regex_source))
            for i in _common(detectors)
        ),
    }


class SecretScanner:
    """Detectors compiled once, behind a prefilter: only the detectors whose keywords occur in a hunk
    run their regex (and of those that are candidates almost everywhere, only the ones that match at
    all). `prefilter` must hold `prefilter_groups(detectors)`; by default the scanner makes its own."""

    def __init__(
        self, detectors: Sequence[Detector], global_allow: Allowlist, prefilter: Prefilter | None = None
    ) -> None:
        self._detectors = tuple(detectors)
        self._global = _Allow.of(global_allow)
        paths = global_allow.paths
        self._allowlisted_paths = compile_re2("|".join(f"(?:{p})" for p in paths)) if paths else None
        groups = prefilter_groups(detectors)
        self._prefilter = Prefilter(groups, own_pass=OWN_PASS) if prefilter is None else prefilter
        for name, patterns in groups.items():
            if self._prefilter.patterns(name) != patterns:
                raise ValueError(f"the prefilter's group {name!r} is not this scanner's")
        # Each keyword's detectors in one pass over their keywords, not every keyword asked of
        # every detector: 276 keywords by 257 detectors cost 3 ms of every start.
        holders: dict[str, list[int]] = {k: [] for k in _keywords(detectors)}
        for i, d in enumerate(detectors):
            for k in dict.fromkeys(d.keywords):
                holders[k].append(i)
        self._by_keyword = tuple(map(tuple, holders.values()))
        self._always = tuple(i for i, d in enumerate(detectors) if not d.keywords)
        self._common = _common(detectors)

    def path_allowlisted(self, path: str) -> bool:
        """Whether the global path allowlist silences unverified findings in `path`."""
        return (
            self._allowlisted_paths is not None
            and self._allowlisted_paths.search(matchable(path)) is not None
        )

    def _candidates(self, fragment: Fragment) -> list[int]:
        chosen = set(self._always)
        for hit in self._prefilter.present(fragment, KEYWORDS):
            chosen.update(self._by_keyword[hit])
        matching = {self._common[i] for i in self._prefilter.present(fragment, COMMON)}
        chosen.difference_update(i for i in self._common if i not in matching)
        return sorted(chosen)

    def scan(self, path: str, fragment: Fragment, *, verified_only: bool = False) -> list[SecretFinding]:
        """`verified_only`: the path is excluded (content.exclude), where only verified findings count."""
        data = fragment.data
        allowlisted = verified_only or self.path_allowlisted(path)
        found: list[SecretFinding] = []
        for index in self._candidates(fragment):
            detector = self._detectors[index]
            if allowlisted and not detector.verifies:
                continue
            where, requires = detector.path, detector.requires
            if where is not None and not where.search(matchable(path)):
                continue
            if requires is not None and not requires.search(data):
                continue
            found.extend(self._matches(detector, path, fragment))
        return _resolve_overlaps([f for f in found if f.verified] if allowlisted else found)

    def _matches(self, detector: Detector, path: str, fragment: Fragment) -> Iterator[SecretFinding]:
        """The detector's findings in the fragment; a secret that runs past the closing quote of the
        literal it starts in is looked for again inside that literal alone."""
        literals = Literals(fragment.data)
        for match in detector.regex.finditer(fragment.data):
            span = self._secret_span(detector, match)
            bounds = None if span is None else literals.bounding(*span)
            if bounds is not None:
                inside = literal_text(fragment.data, *bounds)
                for again in detector.regex.finditer(inside):
                    yield from self._finding(detector, path, fragment, again, data=inside, shift=bounds[0])
            else:
                yield from self._finding(detector, path, fragment, match, data=fragment.data, shift=0)

    @staticmethod
    def _secret_span(detector: Detector, match: Any) -> tuple[int, int] | None:
        group = detector.secret_group or next(
            (g for g in range(1, detector.regex.groups + 1) if match.group(g)), 0
        )
        start, end = match.span(group)
        return None if start < 0 or start == end else (start, end)

    def _finding(
        self, detector: Detector, path: str, fragment: Fragment, match: Any, *, data: bytes, shift: int
    ) -> Iterator[SecretFinding]:
        """The finding of one match of `data`, which starts at byte `shift` of the fragment."""
        span = self._secret_span(detector, match)
        if span is None:
            return
        secret = data[span[0] : span[1]].decode("utf-8", "replace")
        start, end = span[0] + shift, span[1] + shift
        if detector.valid is not None and not detector.valid(secret):
            return
        verified = detector.checksum(secret) if detector.checksum else None
        if verified is not True and not self._keeps(detector, path, secret, match, fragment, shift=shift):
            return
        yield SecretFinding(
            detector=detector.id,
            line=fragment.line_at(start),
            start=start,
            end=end,
            secret=secret,
            checksum=verified,
            own=detector.own,
            generic=detector.generic,
            public_prefix=_public_prefix(detector, secret),
            verified=verified is True or detector.id in VERIFIED_FORMATS,
        )

    def _keeps(
        self, detector: Detector, path: str, secret: str, match: Any, fragment: Fragment, *, shift: int
    ) -> bool:
        if detector.entropy:
            if shannon_entropy(secret) <= detector.entropy:
                return False
            if detector.generic and not has_digit(secret):
                return False
        if detector.generic and looks_like_name(secret):
            return False
        if (detector.own or detector.checksum) and is_placeholder(secret):
            return False
        decoded = None if detector.verifies else base64_text(secret)
        if decoded is not None and is_placeholder(decoded):
            return False
        text = match.group(0).decode("utf-8", "replace")
        example = EXAMPLES.get(detector.id)
        if example is not None and example(secret, text):
            return False
        if self._global.regexes_match(secret) or self._global.stopword_in(secret):
            return False
        if not detector.allowlists:
            return True
        read: list[str] = []

        def lines() -> str:
            """The match's lines, read once for every allowlist that looks at them."""
            if not read:
                first, last = fragment.lines_around(match.start() + shift, match.end() + shift)
                read.append(fragment.data[first:last].decode("utf-8", "replace"))
            return read[0]

        return not any(a.drops(path, secret, text, lines) for a in detector.allowlists)


@cache
def default_detectors() -> tuple[Detector, ...]:
    """gitleaks' rules, receipt's own detectors and those ported from Nosey Parker (their patterns
    compile on first use)."""
    detectors = [Detector.of(p, checksum=CHECKSUMS.get(p.id), valid=VALIDATORS.get(p.id)) for p in RULES]
    detectors += [
        Detector.of(d.pattern, requires=d.requires, valid=VALIDATORS.get(d.pattern.id), own=True)
        for d in OWN_DETECTORS
    ]
    detectors += [Detector.of(p, own=True) for p in NOSEY_PARKER_RULES]
    return tuple(detectors)


@cache
def default_scanner() -> SecretScanner:
    return SecretScanner(default_detectors(), GLOBAL_ALLOWLIST)


def describe(finding: SecretFinding) -> str:
    shown = redact(finding.secret, finding.public_prefix)
    if finding.checksum is True:
        return (
            f"A {finding.detector} token whose checksum verifies: {shown}. Revoke it now and remove it "
            f"from the change; it is in the branch's history. {_OVERRIDE}"
        )
    if finding.checksum is False:
        return (
            f"Looks like a {finding.detector} token: {shown}. Its checksum does not verify, so it may be "
            "invented, but a credential-shaped literal does not belong in code: remove it, read it from "
            f"the environment or a secret store, and revoke it if it was ever real. {_OVERRIDE}"
        )
    source = "detector" if finding.own else "gitleaks rule"
    return (
        f"Possible credential ({source} {finding.detector}): {shown}. Remove it, read it from the "
        f"environment or a secret store, and rotate it: it is in the branch's history. {_OVERRIDE}"
    )


def file_findings(
    scanner: SecretScanner, file: AddedFile, *, verified_only: bool = False
) -> list[SecretFinding]:
    return [
        f
        for fragment in file.fragments
        for f in scanner.scan(file.path, fragment, verified_only=verified_only)
    ]


def _violations(file: AddedFile, found: list[SecretFinding], excluded: str | None) -> Iterator[Violation]:
    note = excluded_note(excluded) if excluded is not None else ""
    listed = [
        Violation(RuleId.SECRET, file.path, f.line, describe(f) + note, f.detector, hashed_basis(f.secret))
        for f in found
    ]
    return capped(listed, rule=RuleId.SECRET, path=file.path, what="possible secret(s)", more_id="more")


@dataclass(frozen=True, slots=True)
class SecretsRule:
    """`content.secrets`: credentials and private keys in added lines (with `scanner`, or the
    default one)."""

    scanner: SecretScanner | None = None

    one_pass: ClassVar[bool] = False

    def scan(
        self,
        change: Change,
        manifest: Manifest,
        files: Sequence[AddedFile] | None = None,
        added: Sequence[AddedFile] | None = None,
    ) -> Iterator[Violation]:
        if not manifest.content.secrets:
            return
        scanner = self.scanner or default_scanner()
        for file in chosen(change, files):
            excluded = excluded_by(manifest, "secrets", file.path)
            found = file_findings(scanner, file, verified_only=excluded is not None)
            yield from _violations(file, found, excluded)
