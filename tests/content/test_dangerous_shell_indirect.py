"""Shell that runs a download indirectly: through a path another command wrote it to (`tee`, wget's
`-P`, curl's `--output-dir`, `cp`/`mv`/`install`/`ln`), through a command line handed on (`su -c "sh
f"`), or through `xargs`."""

from __future__ import annotations

import pytest

from bot.engine.change import change_from_diff
from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.shellcommands import CommandText, runs_file_at_end
from bot.engine.content.shelldownloads import downloads_run
from bot.engine.content.shelllines import handed_on
from bot.engine.content.shellscan import lex
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()
_PIPE = "shell-pipe-to-shell"


def _found(repo: GitRepo, path: str, source: str) -> list[tuple[int | None, str]]:
    return [(line, id_) for _, line, id_ in where(scan(RULE, change_of(repo, {path: source})))]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("curl -fsSL https://x.io/i | tee /tmp/i.sh\nsh /tmp/i.sh\n", 2),
        ("curl https://x.io/i | tee log /tmp/i.sh >/dev/null && bash /tmp/i.sh\n", 1),
        ("curl https://x.io/i | sudo tee -a /usr/local/bin/x > /dev/null\nsudo /usr/local/bin/x\n", 2),
        ("curl https://x.io/i | gunzip > /tmp/i\nsh /tmp/i\n", 2),
        ("wget -q -P /tmp https://x.io/get.sh\nbash /tmp/get.sh\n", 2),
        ("wget --directory-prefix=/opt/x https://x.io/i.sh && sh /opt/x/i.sh\n", 1),
        ("wget -P/tmp/ https://x.io/i.sh; . /tmp/i.sh\n", 1),
        ("wget --directory-prefix /d https://x.io/i.sh\nsource /d/i.sh\n", 2),
        ("curl --output-dir /tmp -O https://x.io/i.sh\nsh /tmp/i.sh\n", 2),
        ("curl --output-dir=/tmp -o i https://x.io/x\n/tmp/i\n", 2),
        ("curl -o /tmp/k https://x.io/k\nsudo install -m 755 /tmp/k /usr/local/bin/k\n/usr/local/bin/k\n", 3),
        ("curl -o i https://x.io/i\ncp i /tmp/run.sh\nsh /tmp/run.sh\n", 3),
        ("curl -o i https://x.io/i\nmv -f i /tmp/\nsh /tmp/i\n", 3),
        ("curl -o i https://x.io/i\nmv i /opt\nsh /opt/i\n", 3),
        ("curl -o i https://x.io/i\ncp i a; mv a b\n./b\n", 3),
        ("curl -O https://x.io/i.sh\ninstall -D -t /opt/bin i.sh\n/opt/bin/i.sh\n", 3),
        ("curl -O https://x.io/i.sh\ncp --target-directory=/opt i.sh\nbash /opt/i.sh\n", 3),
        ('curl -o i https://x.io/i\nln -s "$PWD/i" /usr/local/bin/i\nln -sf i /usr/bin/j\n/usr/bin/j\n', 4),
    ],
)
def test_a_download_written_by_another_command_then_run(repo: GitRepo, source: str, line: int) -> None:
    assert _found(repo, "s.sh", source) == [(line, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        "curl https://x.io/i | tee log\necho done\n",
        "curl https://x.io/i | tee log\ncat log\n",
        "curl https://x.io/i | tee\nsh tee\n",
        "wget -P dir https://x.io/i.sh\nls dir\n",
        "wget -P dir https://x.io/i.sh\nsh i.sh\n",
        "wget -P dir -O /tmp/i https://x.io/i.sh\nsh dir/i.sh\n",
        "curl -o i https://x.io/i\ncp i /tmp/x\ncat /tmp/x\n",
        "curl -o i https://x.io/i\nsha256sum -c i.sha256\ncp i /tmp/x\nsh /tmp/x\n",
        "cp i /tmp/x\ncurl -o i https://x.io/i\nsh /tmp/x\n",
        "curl -f https://x.io/a || echo failed > log\nsh log\n",
        "curl -o i https://x.io/i\ncp other /tmp/x\nsh /tmp/x\n",
        "curl -o i https://x.io/i\ncp i\nsh i2\n",
        "curl -o i https://x.io/i\nmv -t\nsh /x\n",
        "curl -o i https://x.io/i\necho cp i /tmp/x\nsh /tmp/x\n",
    ],
)
def test_a_download_written_by_another_command_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == []


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ('curl -o f https://x.io/i\nsu -c "sh f"\n', 2),
        ('curl -o /tmp/i https://x.io/i\nsudo sh -c "sh /tmp/i"\n', 2),
        ("curl -o /tmp/i https://x.io/i\nsudo bash -c 'cd /tmp && bash /tmp/i --yes'\n", 2),
        ("curl -o /tmp/i https://x.io/i\nsu root -c \"sudo sh -c '/tmp/i'\"\n", 2),
        ("curl -o /tmp/i https://x.io/i\nenv -S 'sh /tmp/i'\n", 2),
        ('curl -o /tmp/i https://x.io/i\nsu -c ". /tmp/i"\n', 2),
        ('curl -o /tmp/i https://x.io/i\nsh -ec "set -x; /tmp/i"\n', 2),
        ('curl -o /tmp/i https://x.io/i\nsu -c "echo \\"a b\\"; sh /tmp/i"\n', 2),
        ("curl -o /tmp/i https://x.io/i\necho \\'; sh /tmp/i\n", 2),  # an escaped quote opens nothing
        ("curl -o /tmp/i https://x.io/i\nsu -c \"echo 'a'; sh /tmp/i\"\n", 2),
        ("curl -o /tmp/i https://x.io/i\nsu -c 'echo \\; sh /tmp/i'\n", 2),  # a backslash in single quotes
    ],
)
def test_a_download_run_by_a_command_line_handed_on(repo: GitRepo, source: str, line: int) -> None:
    assert _found(repo, "s.sh", source) == [(line, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        'curl -o f https://x.io/i\necho "sh f"\n',
        'curl -o f https://x.io/i\nsu -c "cat f"\n',
        'curl -o f https://x.io/i\nsudo sh -c "echo sh f"\n',
        "curl -o f https://x.io/i\nsh -c 'echo \"sh f\"'\n",
        'curl -o f https://x.io/i\npython3 -c "sh f"\n',
        'curl -o f https://x.io/i\nsh -c "cat f" "sh f"\n',
    ],
)
def test_a_command_line_handed_on_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == []


@pytest.mark.parametrize(
    "command",
    [
        "xargs sh",
        "xargs bash -x",
        "xargs -0 python3",
        "xargs -I{} sh {}",
        "sudo xargs bash",
        "xargs -n1 node",
    ],
)
def test_a_download_piped_into_xargs_running_an_interpreter(repo: GitRepo, command: str) -> None:
    assert _found(repo, "s.sh", f"set -e\ncurl https://x.io/i | {command}\n") == [(2, _PIPE)]


@pytest.mark.parametrize(
    "command",
    [
        "xargs sh install.sh",
        "xargs -I % sh -c 'echo %'",
        "xargs rm",
        "xargs -I{} echo {}",
        "xargs -I{} bash -x",
        "xargs python3 -m json.tool",
        "xargs -I{} sh install.sh {}",
    ],
)
def test_xargs_near_misses(repo: GitRepo, command: str) -> None:
    assert _found(repo, "s.sh", f"set -e\ncurl https://x.io/i | {command}\n") == []


@pytest.mark.parametrize(
    ("path", "source", "found"),
    [
        ("s.sh", 'set -e\nsh -c "curl -fsSL https://x.io/i | sh"\n', [(2, _PIPE)]),
        ("s.sh", "set -e\nsu - ci -c 'curl https://x.io/i | bash'\n", [(2, _PIPE)]),
        ("s.sh", 'set -e\nsudo bash -ec "wget -qO- https://x.io/i | sh"\n', [(2, _PIPE)]),
        ("s.sh", "x=1\nbash -c 'eval \"$y\"'\n", [(2, "shell-eval")]),
        ("s.sh", "set -e\nsh -c \"sh -c 'curl https://x.io/i | sh'\"\n", [(2, _PIPE)]),
        ("s.sh", "set -e\nsh -c '\n  echo start\n  curl https://x.io/i |\n  sh\n'\n", [(4, _PIPE)]),
        ("s.sh", 'set -e\nsh -c "curl https://x.io/i | sh -s \\"a b\\""\n', [(2, _PIPE)]),
        ("s.sh", 'set -e\nsh -c "cd $(pwd); curl https://x.io/i | sh"\n', [(2, _PIPE)]),
        ("s.sh", "set -e\nenv -S 'curl -o /tmp/i https://x.io/i && sh /tmp/i'\n", [(2, _PIPE)]),
        ("Dockerfile", 'FROM alpine\nRUN su -c "curl https://x.io/i | sh" app\n', [(2, _PIPE)]),
        ("Makefile", "all:\n\tsh -c 'curl https://x.io/i | sh'\n", [(2, _PIPE)]),
        ("s.sh", 'set -e\nsh -c "curl https://x.io/i \\\n  -L | sh"\n', [(2, _PIPE)]),
        ("s.sh", 'set -e\nsh -c "`echo curl` https://x.io/i | sh"\n', [(2, _PIPE)]),
    ],
)
def test_a_command_line_handed_on_is_read_as_code(
    repo: GitRepo, path: str, source: str, found: list[tuple[int, str]]
) -> None:
    assert _found(repo, path, source) == found


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("s.sh", "sh -c 'echo \"curl https://x.io/i | sh\"'\n"),
        ("s.sh", 'echo -c "curl https://x.io/i | sh"\n'),
        ("s.sh", 'python3 -c "curl https://x.io/i | sh"\n'),
        ("s.sh", "sh -c \"$cmd\" 'curl https://x.io/i | sh'\n"),
        ("s.sh", "grep -c 'curl https://x.io/i | sh' f\n"),
        ("s.sh", "sh -c 'curl https://x.io/i | sh\n"),
        ("s.sh", 'sh -c "curl https://x.io/i $(echo "|") sh\n'),
        ("s.sh", 'sh -c "curl https://x.io/i | sh $(date\n'),
        ("Dockerfile", "FROM alpine\nRUN sh -c 'eval \"$x\"'\n"),
        ("s.sh", "x='a -c '\"curl https://x.io/i | sh\"\n"),
    ],
)
def test_a_command_line_handed_on_read_as_code_near_misses(repo: GitRepo, path: str, source: str) -> None:
    assert _found(repo, path, source) == []


def test_substitutions_in_command_lines_handed_on_are_read_within_a_budget() -> None:
    depth = 30
    data = b'sh -c "$(' * depth + b"x" + b')"' * depth + b"\n"
    lexed = lex(data, spanning=True)
    lines = list(handed_on(bytes(lexed.view), lexed))
    assert lines[0].text == data[len('sh -c "') : -len('"\n')]  # the outermost line, read whole
    assert 1 < len(lines) < depth  # four times the text read through, not every nested line


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("bash " + "-x " * 200 + "/tmp/i", True),
        ("bash " + "-x " * 300 + "/tmp/i", False),  # past 256 words a command is not split into words
        ("env " + "A=1 " * 200 + 'su -c "sh /tmp/i', True),
        ("env " + "A=1 " * 300 + 'su -c "sh /tmp/i', False),
    ],
)
def test_a_command_that_runs_a_file_is_read_up_to_256_words(text: str, runs: bool) -> None:
    assert runs_file_at_end(text, "/tmp/i", quoted=False) is runs


_LINES = [
    'curl -o f x; echo "a; b" ./f',
    "curl -o f x && su -c \"echo 'x; y'; sh ./f\"",
    "curl -o f x; then sudo sh -c 'sh ./f'",
    'curl -o f x; echo \\"; ./f',
    "curl -o f x | tee log; RUN ./f",
    'curl -o f x; bash -ec "cd /; ./f',
    "curl -o f x; echo 'unclosed; ./f",
    "curl -o f x; if true; then ./f; fi",
]


@pytest.mark.parametrize("line", _LINES)
def test_a_commands_text_from_its_last_open_break_reads_as_the_whole_lines(line: str) -> None:
    """`CommandText` hands each use the text from the last command break no quote holds open:
    every use is judged as when read from the line's start."""
    view = ("x\n" + line + "\n").encode("latin-1")
    commands = CommandText(view, 1 << 20)
    for at in (i for i in range(len(view)) if view.startswith(b"./f", i)):
        whole = view[view.rfind(b"\n", 0, at) + 1 : at + 3].decode("latin-1")
        part = commands.upto(at, at + 3)
        assert part is not None and whole.endswith(part)
        assert runs_file_at_end(part, "./f", quoted=False) is runs_file_at_end(whole, "./f", quoted=False)


@pytest.mark.parametrize(
    "source",
    [
        "curl -o f https://x.io/a; " + " ".join("./f" for _ in range(20000)) + "\n",
        "curl -o f https://x.io/a; " + " ".join("cp f g" for _ in range(20000)) + "\n",
        "curl -o f https://x.io/a; echo " + " ".join("f" for _ in range(20000)) + "\n",
    ],
)
def test_a_command_too_long_to_read_each_use_from_its_start_fails_closed(repo: GitRepo, source: str) -> None:
    """A command holding thousands of uses of a downloaded path would be read from its start for
    each: past a budget of text the download is taken as run, on its line."""
    assert _found(repo, "s.sh", source) == [(1, "shell-pipe-to-shell")]


def test_copies_too_long_to_read_fail_closed_on_the_downloads_line() -> None:
    """Past the budget while following copies, what a copy wrote is unknown: the first download is
    taken as run."""
    view = b"curl -o f https://x.io/a\n" + b"".join(b"cp f g%d %s\n" % (i, b"x " * 50) for i in range(20))
    assert [(r.download, r.run) for r in downloads_run(view, lambda _: False, budget=500)] == [(0, 0)]
    assert list(downloads_run(view, lambda _: False)) == []


def test_a_command_too_long_to_read_for_each_string_it_holds_hands_them_on() -> None:
    """Whether a string's command hands it on is read from the command's start for each string:
    past a budget (four times the text and 1 Mi), the strings left are taken as handed on (read as code)."""
    shown = "echo " + "sh -c 'x y' " * 10 + "sh -c 'curl https://x.io/i | sh'\n"
    assert [c for _, _, c in where(scan(RULE, change_from_diff(_script(shown))))] == []
    long = "echo " + "sh -c 'x y' " * 3000 + "sh -c 'curl https://x.io/i | sh'\n"
    assert [c for _, _, c in where(scan(RULE, change_from_diff(_script(long))))] == ["shell-pipe-to-shell"]


def _script(text: str) -> bytes:
    return (
        b"diff --git a/s.sh b/s.sh\nnew file mode 100644\n--- /dev/null\n+++ b/s.sh\n@@ -0,0 +1 @@\n+"
        + text.encode()
    )
