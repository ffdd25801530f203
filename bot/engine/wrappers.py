"""Commands that run the rest of their words as a command (`sudo -u ci make`, `timeout 9 sh`,
`xargs bash -c`), and how many of their words they consume first: their options, the options that
take a value, and the operands before the command (timeout's duration, su's user). Read by the
test command's files (`testcommand.py`) and the `dangerous` rule's shell (`textconstructs.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# An assignment before a command as the shell reads it: quoted and escaped blanks, a `$(…)` (one level
# of parentheses inside) and backquotes are its value's (`X="a b" eval "$x"` runs eval), a quoted
# line break too; a break or a redirection ends it. A regex (for `re` and RE2 alike): each quote is
# read from the one assignment it opens to the next of its kind, so the text is read once.
ASSIGNED = (
    r"[A-Za-z_]\w*=(?:\\.|'[^']*'|\"(?:\\.|[^\"\\])*\"|\$\((?:[^()\n]|\([^()\n]*\))*\)"
    r"|`[^`\n]*`|[^\s\\'\"`;&|<>()])*"
)


@dataclass(frozen=True, slots=True)
class Wrapper:
    """`valued`: options whose value is the next word; `operands`: words after the options that
    come before the command, when there are more; `command_line`: options whose value is a command
    line of its own (`env -S '…'`, `su -c '…'`); `appends`: the words it reads from standard input
    are added to the command's (xargs)."""

    valued: frozenset[str] = frozenset()
    operands: int = 0
    command_line: frozenset[str] = frozenset()
    appends: bool = False


WRAPPERS: dict[str, Wrapper] = {
    "env": Wrapper(frozenset({"-u", "--unset", "-C", "--chdir"}),
                   command_line=frozenset({"-S", "--split-string"})),
    "sudo": Wrapper(frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"})),
    "doas": Wrapper(frozenset({"-u", "-C"})),
    "su": Wrapper(frozenset({"-s", "--shell", "-g", "--group", "-G"}), operands=1,
                  command_line=frozenset({"-c", "--command"})),
    "timeout": Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), operands=1),
    "nice": Wrapper(frozenset({"-n", "--adjustment"})),
    "ionice": Wrapper(frozenset({"-c", "-n", "-p"})),
    "stdbuf": Wrapper(frozenset({"-i", "-o", "-e"})),
    "xvfb-run": Wrapper(frozenset({"-n", "-s", "-f", "-e", "-p"})),
    "xargs": Wrapper(
        frozenset({"-I", "-n", "-L", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args",
                   "--max-procs", "--max-chars", "--max-lines", "--process-slot-var"}),
        appends=True,
    ),
    "chroot": Wrapper(frozenset({"--userspec", "--groups"}), operands=1),
    **dict.fromkeys(("time", "nohup", "exec", "command", "builtin", "busybox", "setsid"), Wrapper()),
}  # fmt: skip


# A regex for what may come before a program as a command names it: assignments, a wrapper and its
# words (`sudo -u x`, `timeout 60`, `xargs -0`, read loosely: what each consumes is `command_after`'s
# to say), and a directory.
RUNNER = (
    rf"(?:{ASSIGNED}[ \t]+)*(?:(?:"
    + "|".join(re.escape(name) for name in sorted(WRAPPERS))
    + r")\b[^|;&\n]*?[ \t]+)?(?:[\w./-]*/)?"
)


def command_after(words: Sequence[str], at: int) -> int | str:
    """`words[at]` names a wrapper (by its last path component): where the command it runs starts
    (`len(words)` when none does), or the command line it hands on as one word (`env -S '…'`,
    `su -c '…'`). An assignment among its options is the environment it gives the command."""
    wrapper = WRAPPERS[words[at].rsplit("/", 1)[-1]]
    operands = wrapper.operands
    at += 1
    while at < len(words):
        word = words[at]
        if word in wrapper.command_line:
            return words[at + 1] if at + 1 < len(words) else ""
        if word.startswith("-") or ASSIGNMENT.match(word):
            at += 2 if word in wrapper.valued else 1
        elif operands:
            operands -= 1
            at += 1
        else:
            return at
    return at


def unwrapped(words: Sequence[str]) -> int | str:
    """Where the command `words` run starts past assignments and wrappers (`len(words)` when none
    does), or the command line a wrapper hands on as one word."""
    at = 0
    while at < len(words):
        word = words[at]
        if ASSIGNMENT.match(word):
            at += 1
            continue
        if word.rsplit("/", 1)[-1] not in WRAPPERS:
            return at
        after = command_after(words, at)
        if isinstance(after, str):
            return after
        at = after
    return at
