"""Dangerous constructs in JavaScript/TypeScript and shell, in added text.

These languages have no parser in the engine, so each pattern is a regex. JavaScript's run over the
view its lexer gives (`jslex.py`) of the file's whole new text when known, else of each hunk's added
text: a match must start in code, and is reported on the first added line it spans. Shell's run over
the view the shell reader gives (`shellscan.py`, a Dockerfile's lines continued with the character
its `# escape=` directive declares) with its words as the shell runs them (`shellwords.py`) and its
aliases and functions as the commands they run (`shelldefinitions.py`), and a download written to a
file a later command runs is found on it too (`shelldownloads.py`), as is PowerShell a command
starts with an encoded command (`shellpowershell.py`). A
`package.json`'s scripts are shell scripts of their own (`npmscripts.py`). What a regex cannot
decide (the name string literals joined by `+` spell, whether an interpreter runs what it reads from
standard input: `shellcommands.py`) a construct's `check` decides on the match. In markup only
its JavaScript is read (`markupjs.py`), each piece a script of its own. PowerShell is read by its
own lexer (`pwshlex.py`) and its constructs are judged command by command (`pwshconstructs.py`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache, partial
from posixpath import basename
from typing import Any

from bot.engine.content.added import AddedFile
from bot.engine.content.downloadtools import DOWNLOAD_WORDS, download, download_word
from bot.engine.content.filekinds import Kind
from bot.engine.content.jslex import Lexed
from bot.engine.content.jsread import read_javascript
from bot.engine.content.npmscripts import INSTALL_HOOKS, npm_scripts
from bot.engine.content.patternset import PatternSet
from bot.engine.content.pwshconstructs import powershell_constructs
from bot.engine.content.pwshlex import PwshLexed
from bot.engine.content.pwshlex import lex as pwsh_lex
from bot.engine.content.shellcommands import INTERPRETERS as _INTERPRETERS
from bot.engine.content.shellcommands import SHELLS as _SHELLS
from bot.engine.content.shellcommands import runs_stdin
from bot.engine.content.shelldefinitions import defined_commands
from bot.engine.content.shelldownloads import downloads_run
from bot.engine.content.shelllines import handed_on
from bot.engine.content.shellpowershell import encoded_commands
from bot.engine.content.shellscan import lex as shell_lex
from bot.engine.content.shellwords import COMMAND_START as _COMMAND_START
from bot.engine.content.shellwords import Words, shell_words
from bot.engine.lazyre import lazy
from bot.engine.regex import compile_named, compile_re2
from bot.engine.wrappers import ASSIGNED, RUNNER


@dataclass(frozen=True, slots=True)
class TextConstruct:
    """`regex` captures the construct itself in group 1; `needs` must occur in the file's text;
    `check`, when set, must accept the matched text (what a regex cannot decide)."""

    id: str
    kinds: frozenset[Kind]
    regex: str
    message: str
    needs: str | None = None
    check: Callable[[bytes], bool] | None = None


_JS = frozenset({Kind.JAVASCRIPT, Kind.MARKUP})
_SHELLISH = frozenset({Kind.SHELL, Kind.DOCKERFILE, Kind.MAKEFILE, Kind.CI})
# A download that can write to standard output (`downloadtools.py`): anywhere, and as a command's word.
_PIPED_DOWNLOAD = download(stdout=True)
_POWERSHELLS = "pwsh|powershell"
_PS_DOWNLOADS = "iwr|irm|Invoke-WebRequest|Invoke-RestMethod|curl|wget"
_PS_EVALS = "iex|Invoke-Expression"
_DOWNLOAD_WORD = download_word(stdout=True)
_PS_DOWNLOAD_EVALUATED = (
    "PowerShell evaluating a download (`iwr URL | iex`) runs whatever the server sends, "
    "unreviewed and unpinned. Download to a file, verify its checksum or signature, then run it."
)
# A program as a command names it (`_reads_stdin_as_code` reads the wrappers' words as each
# consumes its own).
_RUNNER = RUNNER
# What may come before a command and still leave it the command: `! eval`, `builtin eval`, `x=1 eval`.
_PREFIXES = rf"(?:(?:!|builtin|command|time|{ASSIGNED})[ \t]+)*"
# The global object, by any of its names: `globalThis.eval`, `window["ev" + "al"]`.
_GLOBAL = r"(?:globalThis|window|self|global|frames|top|parent)"
# Its names no code uses for its own variables (`self`, `parent`, `top` often are: `self[method](x)`).
_NAMED_GLOBAL = r"(?:globalThis|window|global)"
_STRINGS = r"(?:\?\.\s*)?\[\s*((?:['\"\x60][\w$]*['\"\x60]\s*\+?\s*)+)\]"
# Any key in brackets, one level of brackets inside it (`window[names[0]]`).
_ANY_KEY = r"(?:\?\.\s*)?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]"
_FUNCTIONS_CONSTRUCTOR = (
    "A function's constructor is the Function constructor (or its async or generator kin): calling "
    "it compiles a string into code, as eval() does: code injection if any part of it comes from "
    "outside. Call the code directly."
)
_RUN_TIME_MEMBER = (
    "Calls a member of the global object chosen at run time, which can be eval or Function: code "
    "injection if any part of the name or the argument comes from outside. Call the function by its name."
)
# A first argument that is not one fixed string: interpolated, concatenated, or a value.
_COMPUTED = r"\s*(?:\x60[^\x60]*\$\{|['\"][^'\"\n]*['\"]\s*\+|[\w$.\[\]]+\s*[+,)])"


def _joined_name(*names: bytes) -> Callable[[bytes], bool]:
    """Whether the string literals joined by `+` inside a match's brackets spell one of `names`
    (`window["ev" + "al"]`)."""

    def spells(matched: bytes) -> bool:
        inside = matched[matched.index(b"[") + 1 : matched.rindex(b"]")]
        return bytes(b for b in inside if b not in b"'\"`+ \t\n\r\f\v") in names

    return spells


def _computed_key(matched: bytes) -> bool:
    """Whether the key inside a match's brackets is not string literals joined by `+` (a name the
    source spells, which `_joined_name` judges): it is chosen at run time."""
    inside = matched[matched.index(b"[") + 1 : matched.rindex(b"]")]
    return _LITERAL_KEY().fullmatch(inside) is None


_LITERAL_KEY = lazy(rb"\s*(?:['\"\x60][\w$]*['\"\x60]\s*\+?\s*)+")
_COMMENT = lazy(rb"(?:^|\s)#")


def _reads_stdin_as_code(matched: bytes) -> bool:
    """Whether the command after the match's last `|` runs the script it reads from standard input
    (`shellcommands.py`): a download piped into it is run."""
    command = _COMMENT().split(matched.rsplit(b"|", 1)[1], maxsplit=1)[0].removeprefix(b"&")
    return runs_stdin(command.decode("latin-1"))


_CHILD_PROCESS_EXEC = (
    "child_process exec with a command built at run time (interpolated, concatenated or a variable) "
    "runs it through the shell: shell injection. Use execFile or spawn with an array of arguments."
)
TEXT_CONSTRUCTS: tuple[TextConstruct, ...] = (
    TextConstruct(
        "js-eval",
        _JS,
        # As a name (not a property), called or handed on (`(0, eval)(x)` is the global eval).
        r"(?m)(?:^|[^\w$.])(eval)\s*(?:[^\s\w$.:=?]|\?\.|\.\s*(?:call|apply|bind)\b|$)",
        "eval() runs a string as JavaScript: code injection if any part of it comes from outside. "
        "Parse data with JSON.parse, or call the code directly.",
    ),
    TextConstruct(
        "js-eval",
        _JS,
        rf"(?m)(?:^|[^\w$.]){_GLOBAL}\s*\??\.\s*(eval)\b",
        "eval() runs a string as JavaScript, also reached through the global object: code injection "
        "if any part of it comes from outside. Parse data with JSON.parse, or call the code directly.",
    ),
    TextConstruct(
        "js-eval",
        _JS,
        rf"(?m)(?:^|[^\w$.])({_GLOBAL}\s*){_STRINGS}",
        "eval() runs a string as JavaScript, also reached through the global object: code injection "
        "if any part of it comes from outside. Parse data with JSON.parse, or call the code directly.",
        check=_joined_name(b"eval"),
    ),
    TextConstruct(
        "js-eval",
        _JS,
        # Taken out of the global object by destructuring: `const {eval: run} = globalThis`.
        rf"(?m)(?:^|[^\w$.])(eval)\s*:\s*[\w$]+[^{{}}]*\}}\s*=\s*{_GLOBAL}\b",
        "eval() runs a string as JavaScript, also reached through the global object: code injection "
        "if any part of it comes from outside. Parse data with JSON.parse, or call the code directly.",
    ),
    TextConstruct(
        "js-eval",
        _JS,
        # A member of the global object chosen at run time, called: eval or Function by another name.
        rf"(?m)(?:^|[^\w$.])({_NAMED_GLOBAL}\s*){_ANY_KEY}\s*(?:\?\.\s*)?\(",
        _RUN_TIME_MEMBER,
        check=_computed_key,
    ),
    TextConstruct(
        "js-eval",
        _JS,
        # A timer given a string compiles it as eval() does.
        rf"(?m)(?:^|[^\w$.])((?:{_GLOBAL}\s*\.\s*)?set(?:Timeout|Interval))\s*\(\s*['\"\x60]",
        "setTimeout/setInterval given a string compile it as eval() does: code injection if any part "
        "of it comes from outside. Pass a function instead.",
    ),
    TextConstruct(
        "js-eval",
        _JS,
        # A module whose source is a data: URL is code made from a string.
        r"(?m)(?:^|[^\w$.])(import)\s*\(\s*['\"\x60]data:",
        "import() of a data: URL runs a string as a JavaScript module, as eval() does: code injection "
        "if any part of it comes from outside. Import a module file.",
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        r"(?m)(?:^|[^\w$.])((?:new\s+)?Function)\s*\(",
        "Function(...) compiles a string into code, as eval() does: code injection if any part "
        "of it comes from outside. Call the code directly.",
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        rf"(?m)(?:^|[^\w$.])({_GLOBAL}\s*){_STRINGS}\s*\(",
        "Function(...) compiles a string into code, as eval() does: code injection if any part "
        "of it comes from outside. Call the code directly.",
        check=_joined_name(b"Function"),
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        # The Function constructor reached from any function: `(() => {}).constructor(code)`,
        # `x.constructor.constructor(code)`, `Function.prototype.constructor(code)`.
        r"(?:\}\s*\)\s*\.\s*|\.\s*constructor\s*\.\s*|\bFunction\s*\.\s*prototype\s*\.\s*)(constructor)\s*\(",
        "Function(...) compiles a string into code, as eval() does, also reached as a function's "
        "constructor: code injection if any part of it comes from outside. Call the code directly.",
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        # The constructor handed on as a value: bound to a name, or given to a call (not compared,
        # tested with instanceof, or a type).
        r"(?m)(?:(?:^|[^=!<>])=|[(,\[])\s*(Function)\s*(?:[;,)\]]|$)",
        "The Function constructor handed on as a value: whatever calls it compiles a string into "
        "code, as eval() does: code injection if any part of it comes from outside. Call the code directly.",
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        # A function's constructor read out of it, to call later: `(async () => {}).constructor;`.
        r"(?m)\}\s*\)\s*\.\s*(constructor)\s*(?:[;,)\]]|$)",
        _FUNCTIONS_CONSTRUCTOR,
    ),
    TextConstruct(
        "js-new-function",
        _JS,
        # Destructured out of a function: `const {constructor: C} = () => {}`.
        r"\{[^{}]*?\b(constructor)\b[^{}]*\}\s*=\s*"
        r"(?:\(|async\b|function\b|(?:Object|Reflect)\s*\.\s*getPrototypeOf\b)",
        _FUNCTIONS_CONSTRUCTOR,
    ),
    TextConstruct(
        "js-vm",
        _JS,
        r"(?m)(?:^|[^\w$])(runIn(?:New|This)?Context|compileFunction|(?:new\s+)(?:vm\s*\.\s*)?Script)\s*\(",
        "node:vm compiles a string into code (and its contexts are no security boundary): code "
        "injection if any part of it comes from outside. Call the code directly.",
        needs=r"['\"\x60](?:node:)?vm['\"\x60]",
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"\b((?:child_process|childProcess|cp)\s*\.\s*exec(?:Sync)?)\s*\(" + _COMPUTED,
        _CHILD_PROCESS_EXEC,
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"\b(require\s*\(\s*['\"\x60](?:node:)?child_process['\"\x60]\s*\)\s*\.\s*exec(?:Sync)?)\s*\("
        + _COMPUTED,
        _CHILD_PROCESS_EXEC,
    ),
    TextConstruct(
        "js-child-process-exec",
        _JS,
        r"(?m)(?:^|[^\w$.])(exec(?:Sync)?)\s*\(" + _COMPUTED,
        "exec with a command built at run time (interpolated, concatenated or a variable) runs it "
        "through the shell: shell injection. Use execFile or spawn with an array of arguments.",
        needs=r"child_process",
    ),
    TextConstruct(
        "shell-eval",
        frozenset({Kind.SHELL}),
        rf"(?m){_COMMAND_START}{_PREFIXES}(eval)\b",
        "eval runs its arguments as shell code, expanded twice: injection if any part comes from "
        "outside. Call the command directly, with arrays for argument lists.",
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        # Through any filters (`| tee log | sh`).
        rf"({_PIPED_DOWNLOAD}[^|\n]*(?:\|&?[^|\n]+)*?\|&?[ \t]*{_RUNNER}[\"']?{_INTERPRETERS})[^;&|)\n]*",
        "Piping a download into an interpreter runs whatever the server sends, unreviewed and "
        "unpinned. Download to a file, verify its checksum or signature, then run it.",
        check=_reads_stdin_as_code,
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        rf"\b({_RUNNER}{_INTERPRETERS}[ \t]+(?:-\S+[ \t]+)*"
        r"(?:<?[ \t]*<\(|(?:<<<[ \t]*)?[\"']?[ \t]*(?:\$\(|\x60))"
        rf"[ \t]*{_DOWNLOAD_WORD})",
        "Running a downloaded script straight from an interpreter runs whatever the server sends, "
        "unreviewed and unpinned. Download to a file, verify its checksum or signature, then run it.",
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        rf"(?m){_COMMAND_START}((?:source|\.)[ \t]+(?:<\(|/dev/stdin[ \t]*<<<[ \t]*[\"']?\$\()"
        rf"[ \t]*{_DOWNLOAD_WORD})",
        "Sourcing a downloaded script runs whatever the server sends in this shell, unreviewed and "
        "unpinned. Download to a file, verify its checksum or signature, then source it.",
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        _SHELLISH,
        # PowerShell run from the shell on a download it evaluates (`pwsh -c "iwr URL | iex"`,
        # `iex (irm URL)`, `IEX (New-Object Net.WebClient).DownloadString(URL)`): PowerShell's
        # names in any case.
        rf"\b((?:{_POWERSHELLS})(?:\.exe)?\b[^\n]*?"
        rf"(?i:\b(?:{_PS_DOWNLOADS})\b[^|\n]*\|[ \t]*(?:{_PS_EVALS})\b"
        rf"|\b(?:{_PS_EVALS})[ \t]*\([ \t]*(?:{_PS_DOWNLOADS}|New-Object\b[^)\n]*WebClient)\b))",
        _PS_DOWNLOAD_EVALUATED,
    ),
    TextConstruct(
        "shell-pipe-to-shell",
        # In a script, `shell-eval` already says it.
        frozenset({Kind.DOCKERFILE, Kind.MAKEFILE, Kind.CI}),
        rf"(?m)(?:^|[^\w$-])(eval[ \t]+[\"']?(?:\$\(|\x60)[ \t]*{_DOWNLOAD_WORD})",
        "Evaluating a downloaded script runs whatever the server sends, unreviewed and unpinned. "
        "Download to a file, verify its checksum or signature, then run it.",
    ),
)


@dataclass(frozen=True, slots=True)
class TextFinding:
    construct: TextConstruct
    line: int


@dataclass(frozen=True, slots=True)
class _Compiled:
    construct: TextConstruct
    regex: Any
    needs: Any


@cache
def _compiled() -> tuple[PatternSet, tuple[_Compiled, ...]]:
    compiled = tuple(
        _Compiled(c, compile_re2(c.regex), compile_re2(c.needs) if c.needs else None) for c in TEXT_CONSTRUCTS
    )
    return PatternSet([c.regex for c in TEXT_CONSTRUCTS]), compiled


def _file_text(file: AddedFile) -> bytes:
    if file.head is not None:
        return file.head.encode("utf-8", "surrogatepass")
    return b"\n".join(f.data for f in file.fragments)


_LINE_FEED = lazy(rb"\n")


# Words one of the JavaScript constructs needs, or an escape that can spell one.
_JS_TRIGGER = (
    rf"eval|Function|exec|spawn|child_process|set(?:Timeout|Interval)|import|constructor|\bvm\b|{_GLOBAL}\s*(?:\?\.\s*)?\["
    rf"|=\s*{_NAMED_GLOBAL}\s*(?:[;,)\n]|$)"
    r"|\\[ux0-7]"
)
# In markup, also what can spell one in an attribute: a character reference, a percent-escape.
_MARKUP_TRIGGER = rf"{_JS_TRIGGER}|&#|%[0-9a-fA-F]{{2}}"


@dataclass(frozen=True, slots=True)
class _Read:
    """A text read as its language reads it (`jslex.py`, `shellscan.py`), the diff line each of
    its offsets is on (None where that line is not added), and the text those lines are counted in."""

    lexed: Lexed
    line_of: Callable[[int], int | None]
    data: bytes


def _head_lines(file: AddedFile, data: bytes) -> Callable[[int], int | None]:
    breaks = [found.start() for found in _LINE_FEED().finditer(data)]
    added = file.added_numbers()

    def line_of(offset: int) -> int | None:
        number = file.diff_line(bisect_right(breaks, offset - 1) + 1)
        return number if number in added else None

    return line_of


def _javascript_reads(file: AddedFile) -> Iterator[_Read]:
    """The texts a JavaScript or markup file's constructs are looked for in: its whole new text when
    known (a construct is reported on an added line it spans), else each hunk's added lines."""
    if file.head is not None:
        data = file.head.encode("utf-8", "surrogatepass")
        yield _Read(read_javascript(data, file.kind, file.path), _head_lines(file, data), data)
        return
    for fragment in file.fragments:
        lexed = read_javascript(fragment.data, file.kind, file.path, starts_file=fragment.numbers[0] == 1)
        yield _Read(lexed, fragment.line_at, fragment.data)


def _first_added(read: _Read, start: int, end: int, data: bytes) -> int | None:
    """The first added line among those the span [start, end) of `data` touches."""
    line = read.line_of(start)
    pos = data.find(b"\n", start, end)
    while line is None and pos >= 0:
        line = read.line_of(pos + 1)
        pos = data.find(b"\n", pos + 1, end)
    return line


# child_process as a file binds it: the module (`const proc = require("node:child_process")`,
# `import * as proc from …`) or its functions (`const {exec: run} = require(…)`, `import {exec as
# run} from …`).
_CHILD_PROCESS = r"['\"\x60](?:node:)?child_process['\"\x60]"
_CHILD_LOADED = rf"require\s*\(\s*{_CHILD_PROCESS}\s*\)"
_LOADED = rf"(?:await\s+)?(?:require|import)\s*\(\s*{_CHILD_PROCESS}\s*\)"
_MODULE_BINDINGS = (
    rf"(?:const|let|var)\s+([\w$]+)\s*=\s*{_LOADED}",
    rf"import\s*\*\s*as\s+([\w$]+)\s*from\s*{_CHILD_PROCESS}",
    rf"import\s+([\w$]+)\s*(?:,\s*\{{[^{{}}]*\}}\s*)?from\s*{_CHILD_PROCESS}",
)
_NAMED_BINDINGS = (
    rf"(?:const|let|var)\s*\{{([^{{}}]*)\}}\s*=\s*{_LOADED}",
    rf"import\s+(?:[\w$]+\s*,\s*)?\{{([^{{}}]*)\}}\s*from\s*{_CHILD_PROCESS}",
)
_NAMED = lazy(rb"\s*([\w$]+)\s*(?:(?:as\b|:)\s*([\w$]+))?")
_THROUGH_SHELL = frozenset({b"exec", b"execSync"})
_SPAWNING = frozenset({b"spawn", b"spawnSync", b"execFile", b"execFileSync"})
# A first argument, or an element of an argument list, that is not one fixed string.
_COMPUTED_ELEMENT = r"\s*(?:\x60[^\x60]*\$\{|['\"][^'\"\n]*['\"]\s*\+|[\w$.\[\]]+\s*[+,\]])"
_FALSE = frozenset({b"false", b"0", b"null", b"undefined", b"''", b'""', b"``"})


def _shell_option_true(matched: bytes) -> bool:
    """Whether the `shell:` option a match ends with is set to anything but a false value."""
    return matched.rsplit(b":", 1)[1].strip() not in _FALSE


@dataclass(frozen=True, slots=True)
class _Bound:
    """A child_process call through the file's own bindings: `regex` with `{calls}`, the
    alternatives naming the functions of `functions`."""

    construct: TextConstruct
    functions: frozenset[bytes]


_BOUND_CALLS = (
    _Bound(
        TextConstruct(
            "js-child-process-exec", _JS, r"(?m)(?:^|[^\w$.])({calls})\s*\(" + _COMPUTED, _CHILD_PROCESS_EXEC
        ),
        _THROUGH_SHELL,
    ),
    _Bound(
        TextConstruct(
            "js-child-process-exec",
            _JS,
            r"(?m)(?:^|[^\w$.])({calls})\s*\(" + _COMPUTED + r"(?:[^()]|\([^()]*\))*\bshell\s*:\s*[^\s,})]+",
            "spawn or execFile with the shell option and a command built at run time runs it through "
            "the shell: shell injection. Pass an array of arguments, without shell.",
            check=_shell_option_true,
        ),
        _SPAWNING,
    ),
    _Bound(
        TextConstruct(
            "js-child-process-exec",
            _JS,
            r"(?m)(?:^|[^\w$.])({calls})\s*\(\s*['\"\x60](?:[\w./-]*/)?"
            + _SHELLS
            + r"['\"\x60]\s*,\s*\[\s*['\"\x60]-c['\"\x60]\s*,"
            + _COMPUTED_ELEMENT,
            "spawn or execFile of a shell's -c with a command built at run time runs it through the "
            "shell: shell injection. Run the program itself with an array of arguments.",
        ),
        _SPAWNING,
    ),
)


def _child_process_bindings(view: bytes) -> tuple[set[bytes], dict[bytes, bytes]]:
    """The names `view` binds to child_process, and to each of its functions (by alias)."""
    modules: set[bytes] = set()
    functions: dict[bytes, bytes] = {}
    for pattern in _MODULE_BINDINGS:
        modules.update(found.group(1) for found in compile_re2(pattern).finditer(view))
    for pattern in _NAMED_BINDINGS:
        for found in compile_re2(pattern).finditer(view):
            for item in found.group(1).split(b","):
                named = _NAMED().match(item)
                if named is not None:
                    functions[named.group(2) or named.group(1)] = named.group(1)
    return modules, functions


def _bound_calls(view: bytes) -> Iterator[tuple[TextConstruct, Any]]:
    """Each child_process construct as a regex over the names `view` binds (none without any)."""
    if b"child_process" not in view:
        return
    modules, functions = _child_process_bindings(view)
    for bound in _BOUND_CALLS:
        members = "|".join(sorted(f.decode() for f in bound.functions))
        calls = [rf"(?:{re.escape(m.decode())})\s*\??\.\s*(?:{members})" for m in sorted(modules)]
        calls += [rf"{_CHILD_LOADED}\s*\.\s*(?:{members})"]
        calls += [
            re.escape(alias.decode()) for alias, name in sorted(functions.items()) if name in bound.functions
        ]
        yield bound.construct, compile_named(bound.construct.regex.replace("{calls}", "|".join(calls)))


# A name bound to the global object (`const g = globalThis;`): through it, what the global object's
# constructs read (`g["ev" + "al"](x)`, `g.eval(x)`).
_GLOBAL_ALIAS = rf"(?m)(?:^|[^\w$.])([\w$]+)\s*=\s*{_NAMED_GLOBAL}\s*(?:[;,)\n]|$)"
_THROUGH_GLOBAL = tuple(c for c in TEXT_CONSTRUCTS if _GLOBAL in c.regex or _NAMED_GLOBAL in c.regex)


def _global_alias_calls(view: bytes) -> Iterator[tuple[TextConstruct, Any]]:
    """Each construct of the global object as a regex over the names `view` binds to it."""
    aliases = sorted({found.group(1).decode() for found in compile_re2(_GLOBAL_ALIAS).finditer(view)})
    if not aliases:
        return
    names = "(?:" + "|".join(re.escape(a) for a in aliases) + ")"
    for construct in _THROUGH_GLOBAL:
        yield construct, compile_named(construct.regex.replace(_GLOBAL, names).replace(_NAMED_GLOBAL, names))


def _javascript(file: AddedFile) -> Iterator[TextFinding]:
    trigger = compile_re2(_MARKUP_TRIGGER if file.kind is Kind.MARKUP else _JS_TRIGGER)
    # `run(cmd)` or `g[k](x)` added alone, its binding kept
    bound_elsewhere = file.head is not None and (
        "child_process" in file.head or compile_re2(_GLOBAL_ALIAS).search(file.head) is not None
    )
    if not bound_elsewhere and not any(trigger.search(fragment.data) for fragment in file.fragments):
        return
    present, all_compiled = _compiled()
    text: bytes | None = None
    for read in _javascript_reads(file):
        view = bytes(read.lexed.view)
        for index in present.present(view):
            compiled = all_compiled[index]
            if file.kind not in compiled.construct.kinds:
                continue
            if compiled.needs is not None:
                text = _file_text(file) if text is None else text
                if not compiled.needs.search(text):
                    continue
            yield from _matches(compiled.construct, compiled.regex, read, view)
        for construct, regex in (*_bound_calls(view), *_global_alias_calls(view)):
            yield from _matches(construct, regex, read, view)


def _matches(construct: TextConstruct, regex: Any, read: _Read, view: bytes) -> Iterator[TextFinding]:
    check = construct.check
    for match in regex.finditer(view):
        if read.lexed.hidden(match.start(1)) or (check is not None and not check(match.group())):
            continue
        line = _first_added(read, match.start(1), match.end(), read.data)
        if line is not None:
            yield TextFinding(construct, line)


# A Dockerfile's parser directives come first, before any instruction, comment or blank line.
_ESCAPE_DIRECTIVE = lazy(rb"(?i)\A(?:#[ \t]*\w+[ \t]*=[^\n]*\n)*?#[ \t]*escape[ \t]*=[ \t]*(\S)")
_BACKQUOTE_CONTINUATION = lazy(rb"\x60([ \t]*)\r?\n")


def _dockerfile_lines(data: bytes) -> bytes:
    """A Dockerfile's text with its lines continued as the shell continues them: under `# escape=\x60`
    the backquote ending a line joins it to the next (written as a backslash, offsets kept)."""
    directive = _ESCAPE_DIRECTIVE().match(data)
    if directive is None or directive.group(1) != b"\x60":
        return data
    return _BACKQUOTE_CONTINUATION().sub(
        lambda found: b" " * (len(found.group()) - 2) + b"\\" + found.group()[-1:], data
    )


def _shell_reads(file: AddedFile, texts: list[bytes]) -> Iterator[_Read]:
    """The texts a shell, Dockerfile, Makefile or CI file's constructs are looked for in, read as the
    shell reads them (`shellscan.py`): its whole new text when known, else each hunk's added lines.
    A Dockerfile's parser directives are read where its first line is."""
    kind = file.kind
    options = {"spanning": kind is Kind.SHELL, "yaml": kind is Kind.CI, "make": kind is Kind.MAKEFILE}
    docker = kind is Kind.DOCKERFILE
    if file.head is not None:
        data = _dockerfile_lines(texts[0]) if docker else texts[0]
        yield _Read(shell_lex(data, **options), _head_lines(file, texts[0]), texts[0])
        return
    for fragment, data in zip(file.fragments, texts, strict=True):
        lexed = data if not docker or fragment.numbers[0] != 1 else _dockerfile_lines(data)
        yield _Read(shell_lex(lexed, **options), fragment.line_at, data)


def _rewritten(read: _Read, words: Words | None) -> _Read:
    """`read` as `words` rewrote it, each offset found where it was written."""
    if words is None:
        return read
    line_of = read.line_of
    return _Read(words.lexed, lambda offset: line_of(words.original(offset)), words.data)


def _as_the_shell_runs(read: _Read) -> _Read:
    """`read` with its words as the shell runs them (`shellwords.py`) and its aliases and functions
    as the commands they run (`shelldefinitions.py`, round by round), found where they were written."""
    read = _rewritten(read, shell_words(read.lexed, read.data))
    for words in defined_commands(read.lexed, read.data):
        read = _rewritten(read, words)
    return read


_DOWNLOAD_RUN = TextConstruct(
    "shell-pipe-to-shell",
    _SHELLISH,
    f"({download(stdout=False)})",
    "Running a file a download wrote (`curl -o f …` then `sh f`) runs whatever the server sent, "
    "unreviewed and unpinned. Verify its checksum or signature before running it.",
)


def _downloads_run(read: _Read, view: bytes) -> Iterator[TextFinding]:
    """A download written to a file a later command runs, reported on the run's line when added,
    else the download's."""
    if not any(word in view for word in _DOWNLOAD_WORDS):
        return
    for found in downloads_run(view, read.lexed.hidden):
        line = read.line_of(found.run)
        line = _first_added(read, found.download, found.download + 1, read.data) if line is None else line
        if line is not None:
            yield TextFinding(_DOWNLOAD_RUN, line)


def _spelled(*words: str) -> str:
    """A regex for `words` as the shell may write them, quotes and backslashes inside (`e"val"`)."""
    return "|".join(r"[\\'\"]*".join(word) for word in words)


_DOWNLOAD_WORDS = tuple(word.encode() for word in DOWNLOAD_WORDS)
# Every shell construct names one (PowerShell in any case: Windows finds `PowerShell.exe`).
_SHELL_TRIGGER = _spelled(*DOWNLOAD_WORDS, "eval") + "|(?i:" + _spelled("pwsh", "powershell") + ")"


def _shell(file: AddedFile) -> Iterator[TextFinding]:
    texts = (
        [file.head.encode("utf-8", "surrogatepass")]
        if file.head is not None
        else [f.data for f in file.fragments]
    )
    trigger = compile_re2(_SHELL_TRIGGER)
    if not any(trigger.search(text) for text in texts):
        return
    for read in _shell_reads(file, texts):
        yield from _shell_findings(file.kind, read)


_HANDED_ON_DEPTH = 4  # `sh -c "su -c '…'"`: deeper than this is not read


def _shell_findings(kind: Kind, read: _Read, depth: int = 0) -> Iterator[TextFinding]:
    """The constructs of a shell read, and of each command line it hands on in a string
    (`shelllines.py`), read as a script of its own on the lines it was written on."""
    written = read
    read = _as_the_shell_runs(read)
    present, all_compiled = _compiled()
    view = bytes(read.lexed.view)
    for index in present.present(view):
        compiled = all_compiled[index]
        if kind in compiled.construct.kinds:
            yield from _matches(compiled.construct, compiled.regex, read, view)
    yield from _downloads_run(read, view)
    yield from _encoded_powershell(kind, read)
    if read is not written:  # as written too: the backslashes of `C:\…\powershell.exe`, a JSON array
        yield from _encoded_powershell(kind, written)
    for line in handed_on(view, read.lexed) if depth < _HANDED_ON_DEPTH else ():
        inner = _Read(shell_lex(line.text, spanning=True), partial(_line_from, read, line.origin), line.text)
        yield from _shell_findings(kind, inner, depth + 1)


_ENCODED_MESSAGE = (
    "PowerShell given -EncodedCommand (-enc, -e) runs a base64 script no reviewer can read. "
    "Write the commands in the script, or run a script file."
)
_SHELL_ENCODED = TextConstruct("powershell-encoded-command", _SHELLISH, "", _ENCODED_MESSAGE)


def _encoded_powershell(kind: Kind, read: _Read) -> Iterator[TextFinding]:
    """PowerShell a command starts with an encoded command (`shellpowershell.py`), on the first
    added line of that command."""
    for start, end in encoded_commands(bytes(read.lexed.view), read.lexed.hidden, kind):
        line = _first_added(read, start, end, read.data)
        if line is not None:
            yield TextFinding(_SHELL_ENCODED, line)


def _line_from(read: _Read, origin: tuple[int, ...], offset: int) -> int | None:
    """The line of `read` that `offset` of a command line it hands on was written on."""
    return read.line_of(origin[min(offset, len(origin) - 1)])


def _same_line(line: int, _offset: int) -> int:
    return line


def _package_scripts(file: AddedFile) -> Iterator[TextFinding]:
    """A `package.json`'s scripts (`npmscripts.py`), each read as a shell script, its findings on
    its line and naming its key (from the new text only: a hunk alone does not say which object a
    line is in)."""
    if file.head is None or '"scripts"' not in file.head:
        return
    data = file.head.encode("utf-8", "surrogatepass")
    if not compile_re2(_SHELL_TRIGGER).search(data):
        return
    line_of = _head_lines(file, data)
    for script in npm_scripts(data):
        line = line_of(script.offset)
        if line is None:
            continue
        command = script.command.encode("utf-8", "surrogatepass")
        read = _Read(shell_lex(command, spanning=True), partial(_same_line, line), command)
        when = "runs on `npm install`" if script.key in INSTALL_HOOKS else "runs when npm runs it"
        for finding in _shell_findings(Kind.SHELL, read):
            message = f"The npm script `{script.key}` ({when}): {finding.construct.message}"
            yield TextFinding(replace(finding.construct, message=message), finding.line)


_PWSH = frozenset({Kind.POWERSHELL})
_PWSH_EVAL = (
    "Invoke-Expression (iex) runs a string as PowerShell code: code injection if any part of it comes "
    "from outside. Call the command directly, its arguments splatted (`& $cmd @params`)."
)
# What `pwshconstructs.py` finds, by the name it gives each.
_POWERSHELL_CONSTRUCTS = {
    "eval": TextConstruct("powershell-eval", _PWSH, "", _PWSH_EVAL),
    "eval-name": TextConstruct(
        "powershell-eval",
        _PWSH,
        "",
        "Runs a command whose name is computed at run time (`& ('ie'+'x')`, `& (gcm i?x)`), which can "
        "be Invoke-Expression: code injection if any part of it comes from outside. Name the command "
        "in the source.",
    ),
    "eval-alias": TextConstruct(
        "powershell-eval",
        _PWSH,
        "",
        "Makes an alias that can be Invoke-Expression (`Set-Alias x iex`): every use of it runs a "
        "string as PowerShell code, unseen. Call Invoke-Expression by its name, or better not at all.",
    ),
    "eval-code": TextConstruct(
        "powershell-eval",
        _PWSH,
        "",
        "[scriptblock]::Create, InvokeScript, NewScriptBlock, ExpandString and AddScript compile a "
        "string into PowerShell code: code injection if any part of it comes from outside. Write the "
        "script block in the source ({ … }).",
    ),
    "encoded": TextConstruct("powershell-encoded-command", _PWSH, "", _ENCODED_MESSAGE),
    "download-eval": TextConstruct("shell-pipe-to-shell", _PWSH, "", _PS_DOWNLOAD_EVALUATED),
    "download-run": TextConstruct(
        "shell-pipe-to-shell",
        _PWSH,
        "",
        "Running a file a download wrote (`iwr URL -OutFile f` then `& f` or `Start-Process f`) runs "
        "whatever the server sent, unreviewed and unpinned. Check it first (Get-FileHash against a "
        "pinned hash, or Get-AuthenticodeSignature).",
    ),
}


def _powershell_reads(file: AddedFile) -> Iterator[tuple[_Read, PwshLexed]]:
    """The texts a PowerShell file's constructs are looked for in, read as PowerShell reads them
    (`pwshlex.py`): its whole new text when known, else each hunk's added lines."""
    if file.head is not None:
        data = file.head.encode("utf-8", "surrogatepass")
        lexed = pwsh_lex(data)
        yield _Read(lexed.lexed, _head_lines(file, data), data), lexed
        return
    for fragment in file.fragments:
        lexed = pwsh_lex(fragment.data)
        yield _Read(lexed.lexed, fragment.line_at, fragment.data), lexed


def _powershell(file: AddedFile) -> Iterator[TextFinding]:
    """PowerShell's constructs (`pwshconstructs.py`), each on the first added line it spans (a
    file run, else on its download's line)."""
    for read, lexed in _powershell_reads(file):
        for found in powershell_constructs(lexed, read.data):
            line = _first_added(read, found.start, found.end, read.data)
            if line is None and found.fallback is not None:
                line = read.line_of(found.fallback)
            if line is not None:
                yield TextFinding(_POWERSHELL_CONSTRUCTS[found.what], line)


def text_constructs(file: AddedFile) -> list[TextFinding]:
    """Constructs on added lines of a JavaScript, markup (its script blocks), shell, Dockerfile,
    Makefile, CI or PowerShell file, or of a `package.json`'s scripts."""
    if file.kind in _JS:
        read = _javascript(file)
    elif file.kind in _SHELLISH:
        read = _shell(file)
    elif file.kind is Kind.POWERSHELL:
        read = _powershell(file)
    else:
        read = _package_scripts(file) if basename(file.path) == "package.json" else iter(())
    found: dict[tuple[str, int], TextFinding] = {}
    for finding in read:
        found.setdefault((finding.construct.id, finding.line), finding)
    return sorted(found.values(), key=lambda f: (f.line, f.construct.id))
