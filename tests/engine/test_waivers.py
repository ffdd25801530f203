"""Waivers: a finding accepted by its waiver_id until a date, in real repositories judged as
`receipt check` judges them; expired and unmatched waivers are warnings, never silence."""

from __future__ import annotations

import calendar
from dataclasses import replace

import pytest

from bot.engine.applies import PullRequestFacts
from bot.engine.change import change_from_diff
from bot.engine.content.added import added_files
from bot.engine.days import Day
from bot.engine.evaluation import evaluate
from bot.engine.findings import RuleId, Violation
from bot.engine.manifest import ManifestError, Waiver, parse_manifest
from bot.engine.receipt import Conclusion, Receipt, digest_of, outcome_digest
from bot.engine.render.markdown import render_markdown
from bot.engine.render.terminal import render_terminal
from bot.engine.render.waiver_text import listed
from bot.engine.waivers import apply_waivers, suggested_entry
from bot.gather.core import utc_today
from bot.local.check import CheckOptions, local_inputs
from bot.local.git import Git
from tests.gitrepo import GitRepo, check

APP = "def run(text):\n    return text\n"
EVAL = "    eval(text)\n"


def _pull_request(repo: GitRepo, added: str = EVAL) -> None:
    repo.write("src/app.py", APP)
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/app.py", APP + added)
    repo.commit("adds a call")
    repo.checkout("main")


def _policy(repo: GitRepo, waivers: str) -> None:
    """The base branch's manifest, committed on main (the pull request's base)."""
    repo.checkout("main")
    repo.write(".github/receipt.yml", f"version: 1\nwaivers:\n{waivers}")
    repo.commit("policy")


def _entry(waiver_id: str, expires: str = "2999-12-31", reason: str = "reviewed: the input is ours") -> str:
    return f"  - id: {waiver_id}\n    reason: {reason!r}\n    expires: {expires}\n"


def _dangerous(receipt: Receipt) -> list[Violation]:
    return [v for v in receipt.scope if v.rule is RuleId.DANGEROUS]


def _finding_id(repo: GitRepo) -> str:
    first = check(repo, base="main", head="pr")
    assert first.verdict.conclusion is Conclusion.FAILURE
    (finding,) = _dangerous(first)
    return finding.waiver_id


def test_a_waived_finding_passes_and_the_receipt_says_by_which_entry(repo: GitRepo) -> None:
    _pull_request(repo)
    waiver_id = _finding_id(repo)
    assert waiver_id.startswith("dangerous:") and len(waiver_id) == len("dangerous:") + 16
    _policy(repo, _entry("secret:0123456789abcdef") + _entry(waiver_id))
    receipt = check(repo, base="main", head="pr")
    assert receipt.verdict.conclusion is Conclusion.SUCCESS
    assert _dangerous(receipt) == []
    assert "waived: 1 finding (waivers[1])" in receipt.verdict.reasons
    body = receipt.as_json()["waivers"]
    assert body["as_of"] == utc_today().iso()
    (waived,) = body["waived"]
    assert waived["waiver"] == "waivers[1]" and waived["reason"] == "reviewed: the input is ours"
    assert waived["finding"]["waiver_id"] == waiver_id and waived["finding"]["line"] == 3
    assert body["warnings"] == ["waivers[0] (secret:0123456789abcdef) matches no finding of this change"]
    summary = render_markdown(receipt)
    assert "### Waived findings" in summary and "waived by waivers\\[1\\] until 2999-12-31" in summary
    assert "⚠️ waivers\\[0\\] \\(secret:0123456789abcdef\\) matches no finding of this change" in summary
    text = render_terminal(receipt)
    assert "waived: dangerous at src/app.py:3 waived by waivers[1] until 2999-12-31" in text
    assert "warning: waivers[0] (secret:0123456789abcdef) matches no finding of this change" in text


def test_after_its_expiry_the_finding_fails_naming_the_waiver(repo: GitRepo) -> None:
    _pull_request(repo)
    waiver_id = _finding_id(repo)
    _policy(repo, _entry(waiver_id, expires="2000-01-31"))
    receipt = check(repo, base="main", head="pr")
    assert receipt.verdict.conclusion is Conclusion.FAILURE
    (finding,) = _dangerous(receipt)
    assert f"The waiver waivers[0] ({waiver_id}) expired on 2000-01-31" in finding.message
    assert receipt.waivers.waived == ()
    assert receipt.waivers.warnings == (f"waivers[0] ({waiver_id}) expired on 2000-01-31",)


def test_a_rebase_that_moves_the_line_keeps_the_waiver(repo: GitRepo) -> None:
    _pull_request(repo)
    waiver_id = _finding_id(repo)
    _policy(repo, _entry(waiver_id))
    repo.write("src/app.py", "import sys\n\n\n" + APP)  # an unrelated edit above the finding
    repo.commit("header")
    repo.checkout("pr")
    repo.git("rebase", "-q", "main")
    repo.git("rebase", "-q", "--onto", "main", "main~1")
    receipt = check(repo, base="main", head="pr")
    assert receipt.verdict.conclusion is Conclusion.SUCCESS, receipt.verdict.reasons
    (waived,) = receipt.waivers.waived
    assert waived.finding.line == 6  # three lines further down, the same finding


def test_a_waiver_for_other_content_does_not_waive(repo: GitRepo) -> None:
    _pull_request(repo, added="    eval(text.strip())\n")
    other = _finding_id(repo)
    _policy(repo, _entry(other))
    repo.checkout("pr")
    repo.write("src/app.py", APP + EVAL)  # another call in the same place: another finding
    repo.commit("other call")
    receipt = check(repo, base="main", head="pr")
    assert receipt.verdict.conclusion is Conclusion.FAILURE
    (finding,) = _dangerous(receipt)
    assert finding.waiver_id != other and "waiver" not in finding.message
    assert receipt.waivers.warnings == (f"waivers[0] ({other}) matches no finding of this change",)


def test_indentation_does_not_change_the_id_and_the_path_does() -> None:
    def finding(path: str, basis: str) -> Violation:
        return Violation(RuleId.DANGEROUS, path, 1, "m", "python-eval", basis)

    assert finding("a.py", "eval(x)").waiver_id == finding("a.py", "eval(x)").waiver_id
    assert finding("a.py", "eval(x)").waiver_id != finding("b.py", "eval(x)").waiver_id
    assert finding("a.py", "eval(x)").waiver_id != finding("a.py", "eval(y)").waiver_id


def test_a_secrets_id_is_derived_from_its_digest_never_from_the_secret(repo: GitRepo) -> None:
    secret = "Xk9fQ2mZpL7aB3cD8eF1gH4j"
    repo.write("README", "x\n")
    repo.commit("base")
    repo.branch("pr")
    repo.write("src/config.py", f'api_key = "{secret}"\n')
    repo.commit("key")
    receipt = check(repo, base="main", head="pr")
    (found,) = [v for v in receipt.scope if v.rule is RuleId.SECRET]
    assert secret not in found.basis and len(found.basis) == 64  # a SHA-256, in hex
    assert secret not in str(receipt.as_json()) and secret not in render_markdown(receipt)


def test_blocking_findings_print_the_entry_that_would_waive_them(repo: GitRepo) -> None:
    _pull_request(repo)
    receipt = check(repo, base="main", head="pr")
    (finding,) = _dangerous(receipt)
    expires = utc_today().plus(30).iso()
    entry = (
        f'- id: {finding.waiver_id}\n  reason: "TODO: why this finding is acceptable"\n  expires: {expires}'
    )
    summary = render_markdown(receipt)
    assert "  ```yaml\n" + "\n".join("  " + line for line in entry.split("\n")) + "\n  ```" in summary
    assert "adds the entry printed under it to `waivers:`" in summary
    text = render_terminal(receipt)
    assert "\n".join("    " + line for line in entry.split("\n")) in text
    # the entry is valid YAML for the manifest as printed, once its reason is written
    manifest = parse_manifest("version: 1\nwaivers:\n" + entry.replace("TODO: ", "") + "\n")
    assert manifest.waivers[0].id == finding.waiver_id


def test_the_manifest_change_cannot_be_waived(repo: GitRepo) -> None:
    repo.write("README", "x\n")
    repo.commit("base")
    _policy(repo, _entry("secret:0123456789abcdef"))
    repo.branch("pr")
    repo.write(".github/receipt.yml", "version: 1\n")
    repo.commit("drops the waivers")
    first = check(repo, base="main", head="pr")
    (change,) = [v for v in first.scope if v.rule is RuleId.MANIFEST_CHANGE]
    repo.checkout("main")
    _policy(repo, _entry(change.waiver_id))
    receipt = check(repo, base="main", head="pr")
    assert RuleId.MANIFEST_CHANGE in [v.rule for v in receipt.scope]
    assert receipt.waivers.warnings == (
        f"waivers[0] ({change.waiver_id}) names a manifest-change finding, which cannot be waived",
    )
    assert "id: manifest-change:" not in render_markdown(receipt)  # no entry is suggested for it


FINDING = Violation(RuleId.BINARY, "a.png", None, "m", "paths.allow_binary")


def test_without_a_date_no_waiver_applies() -> None:
    waiver = Waiver(FINDING.waiver_id, "r", Day(2999, 1, 1))
    result = apply_waivers([[FINDING]], [waiver], None)
    assert result.kept == ((FINDING,),) and result.waived == ()
    assert result.warnings == ("no date was given to judge waivers by, so none applies",)
    assert apply_waivers([[FINDING]], [], None).warnings == ()
    assert suggested_entry(FINDING, None).endswith("expires: YYYY-MM-DD")
    assert result.as_json()["as_of"] is None


def test_a_waiver_applies_through_its_last_day() -> None:
    waiver = Waiver(FINDING.waiver_id, "r", Day(2026, 3, 1))
    assert apply_waivers([[FINDING]], [waiver], Day(2026, 3, 1)).kept == ((),)
    late = apply_waivers([[FINDING]], [waiver], Day(2026, 3, 2))
    assert late.kept[0][0].message.startswith("m The waiver waivers[0]")


def test_an_expired_waiver_that_matches_nothing_says_both() -> None:
    waiver = Waiver("binary:0123456789abcdef", "r", Day(2026, 1, 1), index=3)
    assert apply_waivers([[FINDING]], [waiver], Day(2026, 2, 1)).warnings == (
        "waivers[3] (binary:0123456789abcdef) expired on 2026-01-01; it matches no finding of this change",
    )


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("  - {id: x, reason: r, expires: 2026-01-01}\n", "waivers[0].id: a finding's waiver_id"),
        ("  - {id: 'secret:0123456789ABCDEF', reason: r, expires: 2026-01-01}\n", "waivers[0].id:"),
        ("  - {id: ':0123456789abcdef', reason: r, expires: 2026-01-01}\n", "waivers[0].id:"),
        ("  - {id: 'secret:0123456789abcdef', expires: 2026-01-01}\n", "missing required key 'reason'"),
        ("  - {id: 'secret:0123456789abcdef', reason: r}\n", "missing required key 'expires'"),
        (
            "  - {id: 'secret:0123456789abcdef', reason: r, expires: 2026-02-30}\n",
            "waivers[0].expires: 2026-02-30: that month has 28 days",
        ),
        (
            "  - {id: 'secret:0123456789abcdef', reason: r, expires: '2026-13-01'}\n",
            "waivers[0].expires: 2026-13-01: there is no month 13",
        ),
        (
            "  - {id: 'secret:0123456789abcdef', reason: r, expires: 2026-01-01 10:00:00}\n",
            "waivers[0].expires: expected a date as YYYY-MM-DD, got '2026-01-01 10:00:00'",
        ),
        (
            "  - {id: 'secret:0123456789abcdef', reason: r, expires: 20260101}\n",
            "waivers[0].expires: expected a date (YYYY-MM-DD), got an integer",
        ),
        (
            "  - {id: 'secret:0123456789abcdef', reason: r, expires: 2026-01-01}\n"
            "  - {id: 'secret:0123456789abcdef', reason: s, expires: 2026-01-01}\n",
            "waivers[1].id: repeats entry 0",
        ),
        (
            "  - {id: 'noqa:0123456789abcdef', reason: r, expires: 2026-01-01}\n",
            "waivers[0].id: 'noqa' is no rule of receipt's, so this waiver could never apply",
        ),
    ],
)
def test_bad_waivers_are_errors_with_their_position(entry: str, problem: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("version: 1\nwaivers:\n" + entry)
    assert problem in str(caught.value) and ".github/receipt.yml:" in str(caught.value), str(caught.value)


def test_days_compare_and_add_across_months_and_leap_years() -> None:
    assert Day.parse("2024-02-29") == Day(2024, 2, 29)
    assert Day(2024, 2, 20).plus(30).iso() == "2024-03-21"
    assert Day(2023, 2, 20).plus(30).iso() == "2023-03-22"
    assert Day(2026, 12, 15).plus(30).iso() == "2027-01-14"
    assert Day(1900, 2, 28).plus(1).iso() == "1900-03-01" and Day(2000, 2, 28).plus(1).iso() == "2000-02-29"
    assert Day(2026, 1, 1) < Day(2026, 1, 2) < Day(2026, 2, 1) < Day(2027, 1, 1)
    with pytest.raises(ValueError, match="no month 0"):
        Day.parse("2026-00-10")


def test_month_lengths_are_the_calendar_modules() -> None:
    for year in range(10_000):
        for month in range(1, 13):
            days = calendar.monthrange(year, month)[1]
            assert Day(year, month, days - 1).plus(1) == Day(year, month, days), (year, month)
            following = Day(year + 1, 1, 1) if month == 12 else Day(year, month + 1, 1)
            assert Day(year, month, days).plus(1) == following, (year, month)


def test_a_summary_lists_twenty_waived_findings_and_warnings_then_counts() -> None:
    findings = [Violation(RuleId.BINARY, f"{n}.png", None, "m", "paths.allow_binary") for n in range(25)]
    live = [Waiver(f.waiver_id, "r", Day(2999, 1, 1), index=n) for n, f in enumerate(findings)]
    unknown = [Waiver(f"binary:{n:016x}", "r", Day(2999, 1, 1), index=25 + n) for n in range(22)]
    result = apply_waivers([findings], [*live, *unknown], Day(2026, 1, 1))
    waived, warnings = listed(result)
    assert len(waived) == 21 and waived[-1] == "… and 5 more (the receipt JSON lists them)"
    assert waived[0] == "binary at 0.png waived by waivers[0] until 2999-01-01: r"
    assert len(warnings) == 21 and warnings[-1] == "… and 2 more (the receipt JSON lists them)"


def test_the_line_a_finding_is_about_is_found_in_any_hunk(repo: GitRepo) -> None:
    repo.write("a.txt", "".join(f"{n}\n" for n in range(1, 21)))
    repo.commit("base")
    repo.branch("pr")
    repo.write("a.txt", "one\n" + "".join(f"{n}\n" for n in range(2, 20)) + "twenty\n")
    repo.commit("two hunks")
    git = Git.open(repo.root)
    (file,) = added_files(change_from_diff(git.diff("main", "pr")))
    assert len(file.fragments) == 2
    assert (file.added_line(1), file.added_line(20), file.added_line(5)) == ("one", "twenty", None)


def test_a_skipped_receipt_names_no_waiver_in_its_reasons(repo: GitRepo) -> None:
    _pull_request(repo)
    waiver_id = _finding_id(repo)
    _policy(repo, _entry(waiver_id) + "applies_to: {labels: [agent]}\n")
    inputs = local_inputs(CheckOptions(repo=repo.root, base="main", head="pr", no_tests=True))
    receipt = evaluate(replace(inputs, pull_request=PullRequestFacts(labels=("docs",))))
    assert receipt.verdict.conclusion is Conclusion.SKIPPED
    assert receipt.verdict.reasons == (
        "this pull request is not covered by applies_to: it has none of labels (agent)",
    )
    assert len(receipt.waivers.waived) == 1  # still recorded: the finding was waived


def _on(repo: GitRepo, day: str) -> Receipt:
    inputs = local_inputs(CheckOptions(repo=repo.root, base="main", head="pr", no_tests=True))
    return evaluate(replace(inputs, today=Day.parse(day)))


def test_an_unchanged_receipt_judged_a_day_later_is_not_published_again(repo: GitRepo) -> None:
    """The App republishes when `outcome_digest` differs: the receipt's own digest holds the day
    (`waivers.as_of`), the outcome digest does not, while no waiver's expiry falls between."""
    _pull_request(repo)
    _policy(repo, _entry(_finding_id(repo), expires="2026-12-31"))
    monday, tuesday = _on(repo, "2026-11-30").as_json(), _on(repo, "2026-12-01").as_json()
    assert monday["digest"] != tuesday["digest"]  # the receipt records the day it was judged on
    assert outcome_digest(monday) == outcome_digest(tuesday)
    assert monday["verdict"]["conclusion"] == "success"


def test_a_waiver_expiring_between_the_two_days_publishes_the_flipped_verdict(repo: GitRepo) -> None:
    _pull_request(repo)
    _policy(repo, _entry(_finding_id(repo), expires="2026-11-30"))
    last_day, after = _on(repo, "2026-11-30"), _on(repo, "2026-12-01")
    assert (
        last_day.verdict.conclusion is Conclusion.SUCCESS and after.verdict.conclusion is Conclusion.FAILURE
    )
    assert outcome_digest(last_day.as_json()) != outcome_digest(after.as_json())
    # expired on both days: the same receipt, though judged a day apart
    assert outcome_digest(after.as_json()) == outcome_digest(_on(repo, "2026-12-02").as_json())


def test_the_outcome_digest_of_a_body_without_waivers_is_its_digest() -> None:
    body = {"schema": "receipt/1", "verdict": {"conclusion": "success"}}
    assert outcome_digest(body) == digest_of(body)


@pytest.mark.parametrize(
    "moment", [0, 951_782_400, 1_767_225_599, 1_767_225_600, 4_102_444_799, 253_402_300_799]
)
def test_today_is_the_utc_date_datetime_gives(monkeypatch: pytest.MonkeyPatch, moment: int) -> None:
    import datetime
    import time

    from bot.gather import core

    at = time.gmtime(moment)
    monkeypatch.setattr(core.time, "gmtime", lambda: at)
    expected = datetime.datetime.fromtimestamp(moment, datetime.UTC).date().isoformat()
    assert utc_today().iso() == expected
