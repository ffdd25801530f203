"""Generate bot/engine/content/_noseyparker_rules.py from a chosen few of Nosey Parker's rules.

    .venv/bin/python tools/gen_noseyparker_rules.py tests/data/secrets/noseyparker

The folder holds `rules/*.yml`, the upstream `LICENSE` (Apache-2.0) and `NOTICE`, and `SOURCE`
(repository@commit).
gitleaks' ruleset is receipt's base; from Nosey Parker come the credential formats gitleaks lacks
whose tokens carry a prefix or a setting of their own (CHOSEN below, each with the keywords that
gate it, gitleaks-style, since Nosey Parker's rules have none). Its fuzzy and generic rules, and
its password-hash and identifier rules, are not ported: a required check must not flag a
`password = ...` that may be a test value, or a bucket name.

Nosey Parker writes patterns in Rust's verbose syntax; RE2 has no verbose mode, so each pattern is
compacted (comments and insignificant whitespace dropped, as Rust's `x` flag reads them). The port
then checks every pattern against its rule's own examples: each example must match, each negative
example must not, or the script stops.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ruleport import PortError, compiled, generate

OUTPUT = Path(__file__).resolve().parent.parent / "bot" / "engine" / "content" / "_noseyparker_rules.py"


@dataclass(frozen=True)
class Choice:
    id: str  # receipt's rule id for its findings
    keywords: tuple[str, ...]  # lower case; a hunk holding none of them is not searched
    secret_group: int = 0  # 0: the first group that matched


CHOSEN: dict[str, Choice] = {
    "np.adafruit.1": Choice("adafruit-io-key", ("aio_",)),
    "np.azure.4": Choice("azure-devops-pat", ("azdo",)),
    "np.blynk.1": Choice("blynk-device-token", ("blynk.cloud",)),
    "np.cratesio.1": Choice("crates-io-api-key", ("cio",)),
    "np.dockerhub.1": Choice("docker-hub-pat", ("dckr_pat_",)),
    "np.doppler.1": Choice("doppler-cli-token", ("dp.ct.",)),
    "np.doppler.3": Choice("doppler-service-token", ("dp.st.",)),
    "np.doppler.4": Choice("doppler-service-account-token", ("dp.sa.",)),
    "np.doppler.5": Choice("doppler-scim-token", ("dp.scim.",)),
    "np.doppler.6": Choice("doppler-audit-token", ("dp.audit.",)),
    "np.dtrack.1": Choice("dependency-track-api-key", ("odt_",)),
    "np.google.4": Choice("google-oauth-access-token", ("ya29.",)),
    "np.groq.1": Choice("groq-api-key", ("gsk_",)),
    "np.kubernetes.2": Choice("kubernetes-bootstrap-token", ("token-secret",), secret_group=2),
    "np.msteams.1": Choice("microsoft-teams-webhook", ("outlook.office.com/webhook",)),
    "np.netrc.1": Choice("netrc-password", ("login",), secret_group=3),
    "np.newrelic.1": Choice("new-relic-license-key", ("nral",)),
    "np.newrelic.3": Choice("new-relic-api-service-key", ("nrak-",)),
    "np.nuget.1": Choice("nuget-api-key", ("oy2",)),
    "np.okta.1": Choice("okta-api-token", ("okta", "ssws")),
    "np.salesforce.1": Choice("salesforce-access-token", ("!",)),
    "np.slack.5": Choice("slack-app-token-legacy", ("xapp-",)),
    "np.tavily.1": Choice("tavily-api-key", ("tvly-",)),
    "np.thingsboard.1": Choice("thingsboard-access-token", ("thingsboard.cloud/api/v1/",)),
    "np.twitch.1": Choice("twitch-stream-key", ("live_",)),
}


_LARGE_BOUND = re.compile(r"\{(\d+),\d{4,}\}")


def _flags_without_x(group: str) -> str:
    """`(?xi)` → `(?i)`, `(?x)` → ``."""
    flags = group[2:-1].replace("x", "")
    return f"(?{flags})" if flags else ""


def compact(pattern: str) -> str:
    """A pattern in Rust's verbose syntax (`(?x)`) as RE2 reads it: `(?# ...)` and `#` comments and
    unescaped whitespace (also inside classes, as in Rust) dropped; `\\_` (an escape RE2 refuses)
    becomes `_`, and a repetition bound past RE2's limit of 1000 none. A pattern without `x` keeps
    its whitespace."""
    verbose = False
    out: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if pattern.startswith("(?#", at):
            at = pattern.index(")", at) + 1
            continue
        if pattern.startswith("(?", at) and pattern[at + 2 : at + 3].isalpha():
            end = pattern.index(")", at)
            if ":" not in pattern[at:end]:  # a flag group, not (?i:...)
                group = pattern[at : end + 1]
                verbose = verbose or "x" in group
                out.append(_flags_without_x(group))
                at = end + 1
                continue
        if char == "\\":
            escaped = pattern[at : at + 2]
            out.append("_" if escaped == "\\_" else escaped)
            at += 2
            continue
        if verbose and char.isspace():
            at += 1
            continue
        if verbose and char == "#":
            newline = pattern.find("\n", at)
            at = len(pattern) if newline < 0 else newline + 1
            continue
        out.append(char)
        at += 1
    return _LARGE_BOUND.sub(lambda m: f"{{{m.group(1)},}}", "".join(out))


def _checked(rule: dict[str, Any], choice: Choice) -> str:
    where = f"rule {rule['id']}"
    regex = compact(rule["pattern"])
    pattern = compiled(where, regex)
    if choice.secret_group > pattern.groups:
        raise PortError(f"{where}: no group {choice.secret_group} in {regex!r}")
    for example in rule.get("examples") or []:
        if not pattern.search(example):
            raise PortError(f"{where}: the port misses its example {example!r}")
    for example in rule.get("negative_examples") or []:
        if pattern.search(example):
            raise PortError(f"{where}: the port matches its negative example {example!r}")
    return regex


def _pattern(rule: dict[str, Any], choice: Choice) -> str:
    args = [f"id={choice.id!r}", f"regex={_checked(rule, choice)!r}"]
    args.append("keywords=(" + "".join(f"{k!r}, " for k in choice.keywords) + ")")
    if choice.secret_group:
        args.append(f"secret_group={choice.secret_group}")
    return f"# {rule['id']}: {rule['name']}\n    SecretPattern({', '.join(args)}),"


def render(folder: Path) -> str:
    if not (folder / "rules").is_dir():
        raise PortError(f"{folder} holds no rules/ folder of Nosey Parker rule files")
    rules = {
        rule["id"]: rule
        for path in sorted((folder / "rules").glob("*.yml"))
        for rule in yaml.safe_load(path.read_text("utf-8"))["rules"]
    }
    missing = sorted(set(CHOSEN) - set(rules))
    if missing:
        raise PortError(f"chosen rules not in {folder}: {', '.join(missing)}")
    source = (folder / "SOURCE").read_text("utf-8").strip()
    license_text = (folder / "LICENSE").read_text("utf-8").strip()
    licensed = "\n".join(f"#   {line}".rstrip() for line in license_text.splitlines())
    notice_text = (folder / "NOTICE").read_text("utf-8").strip()
    noticed = "\n".join(f"#   {line}".rstrip() for line in notice_text.splitlines())
    patterns = "\n".join(f"    {_pattern(rules[i], c)}" for i, c in sorted(CHOSEN.items()))
    return f'''# Generated by tools/gen_noseyparker_rules.py: do not edit; run the tool again to update.
#
# Ported from Nosey Parker's rules (crates/noseyparker/data/default/rules) at {source}.
# Changes: {len(CHOSEN)} of its rules chosen, their patterns compacted from Rust's verbose syntax
# for RE2, gating keywords and receipt's rule ids added. Nosey Parker is distributed under the
# Apache License 2.0; its NOTICE and the license are reproduced here, as the license requires.
#
{noticed}
#
{licensed}
"""Credential formats from Nosey Parker that gitleaks' ruleset lacks ({len(CHOSEN)} rules), as data
for `bot.engine.content.secrets` (receipt's own detectors: placeholders are not reported).

Source: {source}
"""

from bot.engine.content.ruleset import SecretPattern

SOURCE = {source!r}
PORTED = {tuple(sorted(CHOSEN))!r}  # Nosey Parker's ids of the rules below

RULES: tuple[SecretPattern, ...] = (
{patterns}
)
'''


def main(argv: list[str] | None = None) -> int:
    return generate(
        argv,
        doc=__doc__ or "",
        folder_help="folder with rules/*.yml, LICENSE, NOTICE and SOURCE",
        output=OUTPUT,
        render=render,
        errors=(yaml.YAMLError,),
    )


if __name__ == "__main__":
    sys.exit(main())
