"""PowerShell started from the shell (a script, a Dockerfile, a Makefile, a CI file, a package.json's
scripts) with an encoded command: `pwsh -enc …` runs a base64 script no reviewer can read, whoever
starts it. Its program as the shell reads words (quotes, wrappers, assignments, a path), the option
by any spelling PowerShell accepts, before `-File` or `-Command` ends PowerShell's own options."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.pwshconstructs import starts_encoded
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()
_ENCODED = "powershell-encoded-command"


def _found(repo: GitRepo, path: str, source: str, **kw: bool) -> list[tuple[str, int | None, str]]:
    return where(scan(RULE, change_of(repo, {path: source}, **kw)))


@pytest.mark.parametrize(
    ("path", "source", "line"),
    [
        ("a.sh", "set -e\npwsh -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\npowershell.exe -EncodedCommand SQBFAFgA\n", 2),
        ("a.sh", "set -e\npwsh.exe -e SQBFAFgA\n", 2),
        ("a.sh", "set -e\npowershell -ec SQBFAFgA\n", 2),
        ("a.sh", "set -e\npowershell -EncodedC SQBFAFgA\n", 2),
        ("a.sh", "set -e\nPowerShell.EXE /ENC SQBFAFgA\n", 2),
        ("a.sh", "set -e\npwsh \u2013enc SQBFAFgA\n", 2),
        (
            "a.sh",
            "set -e\npwsh -NoProfile -NonInteractive -ExecutionPolicy Bypass -w hidden -enc SQBFAFgA\n",
            2,
        ),
        ("a.sh", "set -e\n/opt/microsoft/powershell/7/pwsh -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\npw''sh -enc SQBFAFgA\n", 2),
        ("a.sh", 'set -e\n"pwsh" "-enc" SQBFAFgA\n', 2),
        ("a.sh", "set -e\np\\wsh -e\\nc SQBFAFgA\n", 2),
        ("a.sh", "set -e\nsudo -u ci pwsh -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\nenv -i HOME=/x timeout 60 pwsh -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\nX=1 Y='a b' pwsh -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\nX=$(id -u) pwsh -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\nif pwsh -enc SQBFAFgA; then :; fi\n", 2),
        ("a.sh", "set -e\ntrue && pwsh -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\nout=$(pwsh -enc SQBFAFgA)\n", 2),
        ("a.sh", "set -e\n{ pwsh -enc SQBFAFgA; }\n", 2),
        ("a.sh", 'set -e\ncase "$1" in\n  go) pwsh -enc SQBFAFgA;;\nesac\n', 3),
        ("a.sh", 'set -e\ncase "$1" in (go) pwsh -enc SQBFAFgA;; esac\n', 2),
        ("a.sh", "set -e\n(cd x && pwsh -enc SQBFAFgA)\n", 2),
        ("a.sh", 'set -e\nf() { pwsh "$@"; }\nf -enc SQBFAFgA\n', 3),
        ("a.sh", "set -e\nls | xargs pwsh -enc SQBFAFgA\n", 2),
        ("a.sh", 'set -e\nenv -S "pwsh -enc SQBFAFgA"\n', 2),
        ("a.sh", "set -e\np=pwsh\n$p -enc SQBFAFgA\n", 3),
        ("a.sh", "set -e\nopt=-enc\npwsh $opt SQBFAFgA\n", 3),
        ("a.sh", "set -e\nalias ps=pwsh\nps -enc SQBFAFgA\n", 3),
        ("a.sh", "set -e\npwsh -NoProfile \\\n  -enc SQBFAFgA\n", 2),
        ("a.sh", "set -e\npwsh -enc $(cat payload.b64)\n", 2),
        ("a.sh", 'set -e\n"/c/Program Files/PowerShell/7/pwsh.exe" -enc SQBFAFgA\n', 2),
        ("a.sh", "set -e\nsh -c 'pwsh -enc SQBFAFgA'\n", 2),
        ("a.sh", 'set -e\nbash -c "echo hi; powershell -e SQBFAFgA"\n', 2),
        ("a.sh", "set -e\nsudo sh -c 'sudo pwsh -enc SQBFAFgA'\n", 2),
        ("a.sh", "set -e\nsu -c 'pwsh -enc SQBFAFgA' ci\n", 2),
        ("a.sh", "set -e\ncmd.exe /c powershell -enc SQBFAFgA\n", 2),
        ("a.sh", 'set -e\ncmd /c "powershell -NoP -enc SQBFAFgA"\n', 2),
        (
            ".github/workflows/x.yml",
            "on: push\njobs:\n  b:\n    steps:\n      - run: pwsh -enc SQBFAFgA\n",
            5,
        ),
        (
            ".github/workflows/x.yml",
            "on: push\njobs:\n  b:\n    steps:\n      - run: |\n          pwsh -e SQBFAFgA\n",
            6,
        ),
        (
            ".github/workflows/x.yml",
            'on: push\njobs:\n  b:\n    steps:\n      - run: "pwsh -enc SQBFAFgA"\n',
            5,
        ),
        (
            ".github/workflows/x.yml",
            "on: push\njobs:\n  b:\n    steps:\n      - run: C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe -ec SQBFAFgA\n",
            5,
        ),
        (".gitlab-ci.yml", "b:\n  script:\n    - pwsh -enc SQBFAFgA\n", 3),
        (".gitlab-ci.yml", "b:\n  script: powershell -enc SQBFAFgA\n", 2),
        (
            ".circleci/config.yml",
            "jobs:\n  b:\n    steps:\n      - run:\n          command: pwsh -enc SQBFAFgA\n",
            5,
        ),
        ("Dockerfile", "FROM x\nRUN pwsh -e SQBFAFgA\n", 2),
        ("Dockerfile", "FROM x\nRUN --mount=type=cache,target=/c pwsh -e SQBFAFgA\n", 2),
        ("Dockerfile", "FROM x\nrun powershell -enc SQBFAFgA\n", 2),
        ("Dockerfile", "FROM x\nRUN apt-get update && \\\n    pwsh -enc SQBFAFgA\n", 3),
        ("Dockerfile", 'FROM x\nRUN ["powershell", "-NoProfile", "-EncodedCommand", "SQBFAFgA"]\n', 2),
        ("Dockerfile", 'FROM x\nENTRYPOINT ["pwsh", "-enc", "SQBFAFgA"]\n', 2),
        ("Dockerfile", "FROM x\nCMD pwsh -enc SQBFAFgA\n", 2),
        ("Makefile", "all:\n\tpwsh -enc SQBFAFgA\n", 2),
        ("Makefile", "all:\n\t@pwsh -enc SQBFAFgA\n", 2),
        ("Makefile", "all:\n\t-@powershell -e SQBFAFgA\n", 2),
    ],
)
def test_encoded_powershell_from_the_shell(repo: GitRepo, path: str, source: str, line: int) -> None:
    assert (path, line, _ENCODED) in _found(repo, path, source)


@pytest.mark.parametrize(
    "source",
    [
        "pwsh -File script.ps1 -enc x\n",
        "pwsh -f script.ps1 -e x\n",
        'pwsh -Command "echo -enc"\n',
        "pwsh -c Write-Output -enc x\n",
        "pwsh -NoProfile -c 'Get-Date'\n",
        "pwsh -ExecutionPolicy Bypass -File ./build.ps1\n",
        "echo pwsh -enc x\n",
        "echo 'pwsh -enc x'\n",
        "grep -e pwsh file\n",
        "mypwsh -enc x\n",
        "pwsh-preview-tool -enc x\n",
        "# pwsh -enc x\n",
        "ls # pwsh -enc x\n",
        "echo $(date) pwsh -enc x\n",
        "echo $((1 + 2)) pwsh -enc x\n",
        "diff <(sort a) pwsh -enc x\n",
        "pwsh -ExecutionPolicy Bypass -c x -enc y\n",
        "sudo -u pwsh ls -enc x\n",
        "cat <<'EOF' > doc.txt\nnot run\nEOF\necho powershell\n",
        "pwsh -NoProfile\n",
        "pwsh\n",
        "sh -c 'echo pwsh -enc x'\n",
    ],
)
def test_other_powershell_commands_stay_quiet(repo: GitRepo, source: str) -> None:
    assert _found(repo, "a.sh", "set -e\n" + source) == []


@pytest.mark.parametrize(
    ("path", "source"),
    [
        (".github/workflows/x.yml", "on: push\njobs:\n  b:\n    steps:\n      - name: pwsh -enc x\n"),
        (
            ".github/workflows/x.yml",
            "on: push\njobs:\n  b:\n    steps:\n      - run: pwsh -File x.ps1 -enc y\n",
        ),
        ("Dockerfile", "FROM x\nLABEL note=pwsh\nRUN pwsh -File x.ps1 -enc y\n"),
        ("Dockerfile", 'FROM x\nRUN ["pwsh", "-File", "x.ps1", "-enc", "y"]\n'),
        ("Dockerfile", 'FROM x\nRUN ["pwsh", "-enc", \n'),
        ("Dockerfile", 'FROM x\nRUN ["pwsh", 1, "-enc", "x"]\n'),
        ("Makefile", "all:\n\techo pwsh -enc x\n"),
    ],
)
def test_other_files_quiet(repo: GitRepo, path: str, source: str) -> None:
    assert _found(repo, path, source) == []


_PACKAGE = '{{\n  "name": "x",\n  "scripts": {{\n    "build": "tsc",\n{script}\n  }}\n}}\n'


@pytest.mark.parametrize(
    ("script", "key"),
    [
        ('    "postinstall": "pwsh -enc SQBFAFgA"', "postinstall"),
        ('    "go": "node x.js && powershell.exe -NoProfile -EncodedCommand SQBFAFgA"', "go"),
        ('    "go": "sh -c \'pwsh -e SQBFAFgA\'"', "go"),
    ],
)
def test_package_json_scripts(repo: GitRepo, script: str, key: str) -> None:
    found = scan(RULE, change_of(repo, {"package.json": _PACKAGE.format(script=script)}))
    assert [(v.path, v.line) for v in found] == [("package.json", 5)]
    assert f"`{key}`" in found[0].message


def test_only_added_lines(repo: GitRepo) -> None:
    base = {"a.sh": "set -e\npwsh -enc SQBFAFgA\n"}
    change = change_of(repo, {"a.sh": "set -e\npwsh -enc SQBFAFgA\necho done\n"}, base)
    assert where(scan(RULE, change)) == []


def test_the_added_line_of_a_continued_command(repo: GitRepo) -> None:
    continued = {"a.sh": "set -e\npwsh -NoProfile \\\n  -enc SQBFAFgA\n"}
    change = change_of(repo, continued, {"a.sh": "set -e\npwsh -NoProfile \\\n  -File x.ps1\n"})
    assert where(scan(RULE, change)) == [("a.sh", 3, _ENCODED)]


def test_from_the_diff_alone(repo: GitRepo) -> None:
    assert _found(repo, "a.sh", "set -e\npwsh -enc SQBFAFgA\n", texts=False) == [("a.sh", 2, _ENCODED)]


@pytest.mark.parametrize(
    ("words", "encoded"),
    [
        (["pwsh", "-enc", "x"], True),
        (["pwsh", "\u2014EncodedCommand", "x"], True),
        (["pwsh", "-File", "f.ps1", "-enc", "x"], False),
        (["pwsh", "-Command", "-enc"], False),
        (["pwsh", "-NoProfile"], False),
        (["ls", "-enc", "x"], False),
        (["cmd", "/c", "powershell -enc x"], True),
        ([], False),
    ],
)
def test_starts_encoded(words: list[str], encoded: bool) -> None:
    assert starts_encoded(words) is encoded


@pytest.mark.parametrize(
    "text",
    [
        "pwsh -e " * 200_000 + "\n",
        "set -e\npwsh -NoLogo " + "x " * 500_000 + "\n",
        "pwsh $(" * 100_000 + "\n",
        "echo " + "pwsh " * 200_000 + "\n",
        "time " * 200_000 + "pwsh -enc x\n",
        ("a=1 " * 100 + "pwsh -c x; ") * 5_000 + "\n",
    ],
)
def test_hostile_sizes_finish(repo: GitRepo, text: str) -> None:
    # Each command's words are read once: linear in the text (no timing asserted).
    _found(repo, "a.sh", text)
