from __future__ import annotations

from bot.engine.content.banned import BannedPatternsRule
from bot.engine.content.bannedimports import BannedImportsRule
from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.secrets import SecretsRule
from bot.engine.content.suppressions import SuppressionsRule
from bot.engine.content.unicode import InvisibleUnicodeRule
from bot.engine.findings import RuleId
from bot.engine.rules import CONTENT_RULES
from bot.local.check import CheckOptions, run_check
from tests.content.helpers import commit_change
from tests.gitrepo import GitRepo


def test_the_registry_lists_every_content_rule() -> None:
    assert [type(r) for r in CONTENT_RULES] == [
        SecretsRule,
        DangerousRule,
        SuppressionsRule,
        InvisibleUnicodeRule,
        BannedPatternsRule,
        BannedImportsRule,
    ]


def test_content_findings_fail_scope_and_are_sorted(repo: GitRepo) -> None:
    commit_change(repo, {"b.py": "import os  # noqa\nos.system(c)\n", "a.txt": "x\u202ey\n"})
    receipt = run_check(CheckOptions(repo=repo.root, base="main", head="pr", no_tests=True))
    assert not receipt.scope_pass
    assert [(v.path, v.line, v.rule) for v in receipt.scope] == [
        ("a.txt", 1, RuleId.INVISIBLE_UNICODE),
        ("b.py", 1, RuleId.SUPPRESSION),
        ("b.py", 2, RuleId.DANGEROUS),
    ]


def test_a_clean_change_passes(repo: GitRepo) -> None:
    commit_change(repo, {"src/calc.py": "def add(a, b):\n    return a + b\n"})
    receipt = run_check(CheckOptions(repo=repo.root, base="main", head="pr", no_tests=True))
    assert receipt.scope == ()
