"""Dangerous constructs in PowerShell, read from its tokens (`pwshlex.py`) command by command.

Code made at run time and run: `Invoke-Expression` (`iex`) given anything but one fixed string
(its piped input included), `[scriptblock]::Create(…)`, `$ExecutionContext.InvokeCommand`'s
`InvokeScript`, `NewScriptBlock` and `ExpandString` (which runs a string's `$(…)`), and a runspace's
`AddScript`, each given anything but one fixed string; `powershell -c $cmd` (or `-c -`, the command
read from the pipeline). Invoke-Expression is also reached by a name computed at run time: the call
(`&`) or dot-source (`.`) operator given a string or an expression whose value could name it (`&
('ie'+'x')`, `. (gcm i?x)`, `& (Get-Command *-Expression)`, a runspace's `AddCommand`, or a
variable assigned one), or an alias made for it (`Set-Alias x iex`, whose uses are then
Invoke-Expression too). A name is judged by the text the source fixes in it: string literals joined
by `+`, a lookup's (`Get-Command`, `Get-Alias`, `Get-Item alias:…`) wildcard pattern (a lookup by
verb, noun or type alone can be any command), `Join-Path`'s parts, each part computed at run time
read as any text. A command's output is a path or data (`& (vswhere …)`), but for commands that read
text from elsewhere (a variable, a file, the user, the network: `Get-Variable`, `Get-Content`,
`Read-Host`, `irm`); any other expression (`-join`, indexing, a method's result) computes a name and
is taken for Invoke-Expression (fail closed). A variable called (`& $exe --version`, `& $t.Path`) is
judged by what the text read assigns it (`$x = …`, `$x += …`, `foreach ($x in …)`, `Set-Variable`): a
fixed path, a script block or a lookup of another command stays quiet, as does a variable the text
never assigns (a parameter, `$_`).

`powershell`/`pwsh` given `-EncodedCommand` (any prefix PowerShell accepts: `-e`, `-ec`, `-enc`)
run a base64 script no reviewer can read (`starts_encoded`, which also judges the commands the
shell starts: `shellpowershell.py`). A command line handed to PowerShell in a string
(`powershell -c "…"`, `Start-Process powershell -ArgumentList '-c', '…'`, `cmd /c "powershell …"`) is
read as a script of its own. A download evaluated (`iwr URL | iex`, `iex (irm URL)`,
`.DownloadString(…)` given to `iex`) is the shell's download run by an interpreter, as is a file a
download wrote (`-OutFile f`, `.DownloadFile(u, f)`, `Start-BitsTransfer`) that a later command runs
(`& f`, `.\\f`, `Start-Process f`, `Invoke-Item f`, `msiexec /i f`, `Import-Module f`) with no
`Get-FileHash` or `Get-AuthenticodeSignature` between them.

`Add-Type -TypeDefinition` compiles C# at run time, but nearly always from a here-string in the
script itself (a P/Invoke signature): it stays quiet, as its source can be reviewed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate

from bot.engine.content.pwshlex import COMPUTED, DASHES, PwshLexed, T, Token, lex
from bot.engine.lazyre import lazy

# Invoke-Expression by each name PowerShell finds it by.
_EVALS = ("iex", "invoke-expression", "microsoft.powershell.utility\\invoke-expression")
# The type name GetCmdletByTypeName looks up.
_EVAL_TYPE = "microsoft.powershell.commands.invokeexpressioncommand"
_DOWNLOADERS = frozenset(
    {"iwr", "irm", "invoke-webrequest", "invoke-restmethod", "curl", "wget", "curl.exe", "wget.exe",
     "start-bitstransfer"}
)  # fmt: skip
_DOWNLOAD_MEMBERS = frozenset(
    {"downloadstring", "downloaddata", "downloadfile", "openread", "getstringasync"}
)
_CODE_MEMBERS = frozenset({"invokescript", "newscriptblock", "expandstring", "addscript"})
_BLOCK_MAKERS = _CODE_MEMBERS | {"create"}
_LOOKUPS = frozenset({"gcm", "get-command", "gal", "get-alias"})
_ITEM_LOOKUPS = frozenset({"gi", "get-item", "gci", "get-childitem", "ls", "dir"})
# The switches of lookups: -All, -ListImported, -Syntax, -ShowCommandInfo, -UseFuzzyMatching, -Force,
# -Recurse (any other option takes a value).
_LOOKUP_SWITCHES = ("-a", "-li", "-sy", "-sh", "-u", "-fo", "-r")
# Commands whose output can be any text, a command's name too: read from a variable, a file, the
# user, the clipboard, the registry or the network.
_VALUE_READERS = frozenset(
    {"gv", "get-variable", "gc", "get-content", "cat", "type", "read-host", "get-clipboard", "gp",
     "get-itemproperty", "gpv", "get-itempropertyvalue", "select-object", "select", "foreach-object", "%"}
) | _DOWNLOADERS  # fmt: skip
_LOOKUP_MEMBERS = frozenset({"getcommand", "getcmdlet", "getcommandname", "getcmdletbytypename"})
_ALIASES = frozenset({"set-alias", "sal", "new-alias", "nal"})
_ITEM_WRITERS = frozenset({"set-item", "si", "new-item", "ni"})
_VARIABLES = frozenset({"set-variable", "sv", "set", "new-variable", "nv"})
# Switches of those commands, which take no value: `-Force`, `-PassThru`, `-WhatIf`, `-Confirm`.
_SWITCHES = ("-f", "-pa", "-wh", "-wi", "-c")
_POWERSHELLS = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
# Commands that run the file they are given.
_RUNNERS = frozenset(
    {"start-process", "saps", "start", "invoke-item", "ii", "msiexec", "msiexec.exe", "cmd", "cmd.exe",
     "import-module", "ipmo", "powershell", "powershell.exe", "pwsh", "pwsh.exe", "start-job"}
)  # fmt: skip
# PowerShell's program named in a runner's arguments (`cmd /c "C:\\…\\powershell.exe -c …"`).
_POWERSHELL_WORD = lazy(r"(?i)(?:^|[\s\\/'\"])((?:powershell|pwsh)(?:\.exe)?)(?=[\s'\"]|$)")
_VERIFIERS = frozenset({"get-filehash", "get-authenticodesignature"})
# Words after which a command starts, as after a line break.
_BEFORE_COMMAND = frozenset({"return", "throw"})
_STARTS = frozenset({T.END, T.PIPE, T.ASSIGN, T.CALL, T.DOT})
_ARGUMENT_ENDS = frozenset({T.END, T.PIPE, T.CLOSE, T.ASSIGN, T.CALL, T.DOT})
# Commands whose output names a command (`(Write-Output iex)`): their arguments are judged.
_ECHOES = frozenset({"echo", "write", "write-output"})
# What a pattern is for a command's output: a path or data, no command's name (`& (vswhere …)`).
NO_NAME = "\1"
# How a value assigned a variable is read (`_Reader.assigned`): the text before its pattern.
_ARGUMENT, _EXPRESSION, _APPENDED = "argument", "", COMPUTED
_DEPTH = 16  # expressions inside one another judged; deeper is computed
_HANDED_ON_DEPTH = 4  # `powershell -c "pwsh -c '…'"`: deeper than this is not read
# powershell.exe's and pwsh's options that take a value (by the prefixes that name them).
_POWERSHELL_VALUED = (
    "e", "w", "if", "inputformat", "of", "o", "config", "wd", "workingdirectory", "settingsfile",
    "v", "psconsolefile", "custompipename",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Found:
    """A construct (`what`, a key of `textconstructs`' PowerShell messages) over [start, end)."""

    what: str
    start: int
    end: int
    fallback: int | None = None  # where to report it when no line of [start, end) is added


def matches(pattern: str, name: str) -> bool:
    """Whether a wildcard `pattern` (`*`, `?`, `[…]`, and `COMPUTED` parts: any text) can be
    `name`, ignoring case. Cost: the pattern's length times the name's."""
    reached = {0}
    at = 0
    while at < len(pattern) and reached:
        char = pattern[at]
        if char in ("*", COMPUTED):
            reached = set(range(min(reached), len(name) + 1))
        elif char == "[" and "]" in pattern[at + 1 : at + 64]:
            close = pattern.index("]", at + 1)
            allowed = _class(pattern[at + 1 : close])
            reached = {p + 1 for p in reached if p < len(name) and name[p] in allowed}
            at = close
        else:
            reached = {p + 1 for p in reached if p < len(name) and (char == "?" or name[p] == char.lower())}
        at += 1
    return len(name) in reached


def _class(inside: str) -> set[str]:
    """The characters a wildcard's `[…]` holds (`a-z` ranges), lowercased."""
    chars: set[str] = set()
    at = 0
    while at < len(inside):
        if at + 2 < len(inside) and inside[at + 1] == "-":
            chars.update(chr(c).lower() for c in range(ord(inside[at]), ord(inside[at + 2]) + 1))
            at += 3
        else:
            chars.add(inside[at].lower())
            at += 1
    return chars


def names_eval(pattern: str) -> bool:
    """Whether a command named by `pattern` could be Invoke-Expression."""
    return any(matches(pattern, name) for name in _EVALS)


class _Reader:
    def __init__(self, lexed: PwshLexed, data: bytes) -> None:
        self.tokens = lexed.tokens
        self.data = data
        self.aliases: set[str] = set()
        # A variable's name: where each value assigned it starts, and how it is read: a command's
        # argument (`Set-Variable n iex`), an expression, or one added to what it held (`+=`).
        self.assigned: dict[str, list[tuple[int, str]]] = {}
        self.judged: dict[str, bool] = {}
        tokens = self.tokens
        self.downloads = list(accumulate((_is_download(t) for t in tokens), initial=0))
        self.verifies = list(
            accumulate((t.kind is T.WORD and t.text.lower() in _VERIFIERS for t in tokens), initial=0)
        )
        self.opener = {t.after - 1: i for i, t in enumerate(tokens) if t.kind is T.OPEN and t.after > i + 1}
        self.pipeline_start = _pipeline_starts(tokens)
        self.commands = list(self.command_names())
        self.starts = {at for at, _ in self.commands}

    def arguments_of(self, at: int) -> list[int]:
        """A command's arguments; none for `return` and `throw`, whose command is the next."""
        token = self.tokens[at]
        if token.kind is T.WORD and token.text.lower() in _BEFORE_COMMAND:
            return []
        return self.arguments(token.after)

    def arguments(self, start: int) -> list[int]:
        """The indices of the top-level tokens from `start` to its command's end (where another
        starts: `try { } iex $x`)."""
        tokens = self.tokens
        found = []
        at = start
        while (
            at < len(tokens)
            and tokens[at].kind not in _ARGUMENT_ENDS
            and (at == start or at not in self.starts)
        ):
            found.append(at)
            at = max(tokens[at].after, at + 1)
        return found

    def command_names(self) -> Iterator[tuple[int, bool]]:
        """Each command's name token and whether an operator calls it (`&`, `.`)."""
        tokens = self.tokens
        for at, token in enumerate(tokens):
            before = tokens[at - 1] if at else None
            if token.kind in (T.CALL, T.DOT) or (
                before is not None and before.kind is T.OPEN and before.text == "["
            ):
                continue
            starts = (
                before is None
                or before.kind in _STARTS
                or (before.kind is T.OPEN)
                or (before.kind is T.WORD and before.text.lower() in _BEFORE_COMMAND)
                or (before.kind is T.CLOSE and self.closes_a_block(at - 1))
            )
            if starts:
                yield at, before is not None and before.kind in (T.CALL, T.DOT)

    def closes_a_block(self, at: int) -> bool:
        """Whether the bracket closed at `at` ends a block a statement may follow on its line: a
        script block's `}` (`try { } iex $x`: read as a command, failing closed) or `param(…)`."""
        if self.data[self.tokens[at].start : self.tokens[at].end] == b"}":
            return True
        opener = self.opener.get(at, 0)
        return opener > 0 and self.tokens[opener - 1].text.lower() == "param"

    def raw(self, token: Token) -> str:
        """A token's text as written, its quotes off, ignoring case (what a path is compared by)."""
        text = self.data[token.start : token.end].decode("utf-8", "replace").strip("'\"").lower()
        return text.removeprefix(".\\").removeprefix("./")

    # What a name can be
    def pattern(self, start: int, end: int, depth: int = 0) -> str:
        """The text the tokens [start, end) compute, as a pattern: what the source fixes, and
        `COMPUTED` where it does not."""
        tokens = self.tokens
        top = []
        at = start
        while at < end:
            top.append(at)
            at = max(tokens[at].after, at + 1)
        if not top or depth > _DEPTH:
            return COMPUTED
        first = tokens[top[0]]
        command = first.text.lower() if first.kind is T.WORD and first.text[:1] not in ("-", "+") else None
        if command in _LOOKUPS or command in _ITEM_LOOKUPS:
            return self.looked_up(top, command)
        if command == "join-path":
            parts = [self.part(i, depth) for i in top[1:] if not tokens[i].text.startswith("-")]
            return "\\".join(parts[:2]) if len(parts) >= 2 else COMPUTED
        if command in _ECHOES:
            return self.part(top[1], depth) if len(top) == 2 else COMPUTED
        if command in _VALUE_READERS:
            return COMPUTED
        if command is not None or first.kind is T.CALL:
            return NO_NAME
        if any(tokens[i].kind is T.MEMBER and tokens[i].text in _BLOCK_MAKERS for i in top):
            return NO_NAME  # a script block, judged where it is made (`_member`)
        if any(tokens[i].kind is T.MEMBER and tokens[i].text in _LOOKUP_MEMBERS for i in top):
            return self.member_lookup(top)
        if len(top) > 1 and all(tokens[i].kind is T.MEMBER for i in top[1:]) and first.kind is T.VARIABLE:
            # `$tool.Source`: a name if the variable can hold Invoke-Expression's (or a table)
            return COMPUTED if self.variable_names_eval(first.text, depth + 1) else NO_NAME
        if len(top) > 1 and tokens[top[-1]].kind is T.MEMBER:  # `(gcm python).Source`
            return self.pattern(top[0], top[-1], depth + 1)
        parts = [self.part(i, depth) for i in top if tokens[i].text != "+" or tokens[i].kind is not T.WORD]
        joined = all(tokens[i].kind in (T.STRING, T.OPEN) or tokens[i].text == "+" for i in top)
        return "".join(parts) if joined else COMPUTED

    def part(self, at: int, depth: int) -> str:
        token = self.tokens[at]
        if token.kind in (T.STRING, T.WORD):
            return token.text
        if token.kind is T.OPEN and token.text in ("(", "$(", "@("):
            return self.pattern(at + 1, token.after - 1, depth + 1)
        if token.kind is T.OPEN and token.text == "{":
            return NO_NAME  # a script block: its code is in the source, read as code
        return COMPUTED

    def looked_up(self, top: list[int], command: str) -> str:
        """The name pattern a lookup is given (`-Name`'s value, or its first argument that is no
        option's), any name without one (`gcm -Verb Invoke -Noun Expression`); an item's path
        outside the `alias:` and `function:` drives names no command."""
        tokens = self.tokens
        named: list[int] = []
        positional: list[int] = []
        index = 1
        while index < len(top):
            text = tokens[top[index]].text.lower()
            if tokens[top[index]].kind is not T.WORD or not text.startswith("-") or len(text) < 2:
                positional.append(top[index])
            elif _names_the_item(text) and index + 1 < len(top):
                named.append(top[index + 1])
                index += 1
            elif not text.startswith(_LOOKUP_SWITCHES):
                index += 1  # an option's value
            index += 1
        chosen = named[0] if named else positional[0] if positional else None
        if chosen is None:
            return COMPUTED
        pattern = self.part(chosen, _DEPTH)
        if command not in _ITEM_LOOKUPS:
            return pattern
        drive, colon, rest = pattern.partition(":")
        if colon and drive.lower() in ("alias", "function"):
            return rest.lstrip("\\/")
        return COMPUTED if pattern.startswith(COMPUTED) else pattern

    def member_lookup(self, top: list[int]) -> str:
        """`$ExecutionContext.InvokeCommand.GetCommand('iex', …)`: its first argument."""
        tokens = self.tokens
        at = next(i for i in top if tokens[i].kind is T.MEMBER and tokens[i].text in _LOOKUP_MEMBERS)
        after = tokens[at].after
        if after >= len(tokens) or tokens[after].kind is not T.OPEN:
            return COMPUTED
        inside = self.arguments(after + 1)
        first = [i for i in inside if tokens[i].kind is not T.COMMA][:1]
        pattern = self.part(first[0], _DEPTH) if first else COMPUTED
        if tokens[at].text == "getcmdletbytypename":
            return COMPUTED if COMPUTED in pattern or _EVAL_TYPE in pattern.lower() else NO_NAME
        return pattern

    def variable_names_eval(self, name: str, depth: int = 0) -> bool:
        """Whether the text assigns the variable a value that could name Invoke-Expression (one
        judged through more than `_DEPTH` others could)."""
        if depth > _DEPTH:
            return True
        if name not in self.judged:
            self.judged[name] = False  # `$x = $x` judged once
            self.judged[name] = any(
                names_eval(self.part(at, depth) if how == _ARGUMENT else how + self.value(at, depth))
                for at, how in self.assigned.get(name, ())
            )
        return self.judged[name]

    def value(self, at: int, depth: int) -> str:
        """The pattern of the value assigned from `at` to its statement's end (or the next `=`)."""
        tokens = self.tokens
        end = at
        while end < len(tokens) and tokens[end].kind not in (T.END, T.CLOSE, T.ASSIGN):
            end = max(tokens[end].after, end + 1)
        return self.pattern(at, end, depth)

    def chain(self, at: int) -> int:
        """The index after the members and calls written onto the value at `at` (`$x.a.b(1)`)."""
        tokens = self.tokens
        end = tokens[at].end
        after = at + 1
        while after < len(tokens) and tokens[after].start == end and tokens[after].kind in (T.MEMBER, T.OPEN):
            following = tokens[after]
            if following.kind is T.OPEN and following.text not in ("(", "["):
                break
            end = tokens[following.after - 1].end
            after = following.after
        return after

    def name_evals(self, at: int, called: bool) -> bool:
        """Whether the command named at `at` could be Invoke-Expression."""
        token = self.tokens[at]
        if token.kind is T.WORD:
            text = token.text.lower()
            return text in self.aliases or (names_eval(text) if COMPUTED in text else text in _EVALS)
        if not called:
            return False
        chain = self.chain(at)
        if token.kind is T.VARIABLE and chain > at + 1:  # `& $ExecutionContext.InvokeCommand.GetCmdlet(…)`
            return names_eval(self.pattern(at, chain))
        if token.kind is T.VARIABLE:
            return self.variable_names_eval(token.text)
        return token.text != "{" and names_eval(self.part(at, 0))


def _names_the_item(option: str) -> bool:
    """Whether a lookup's option is `-Name`, `-Path` or `-LiteralPath` (by a prefix)."""
    return any(name.startswith(option) for name in ("-name", "-path", "-literalpath"))


def _is_download(token: Token) -> bool:
    if token.kind is T.WORD:
        return token.text.lower() in _DOWNLOADERS
    return token.kind is T.MEMBER and token.text in _DOWNLOAD_MEMBERS


def _fixed(tokens: Sequence[Token], args: list[int]) -> bool:
    """Whether the arguments are one fixed string (`-Command` aside)."""
    values = [i for i in args if not (tokens[i].kind is T.WORD and _is_command_parameter(tokens[i].text))]
    return (
        len(values) == 1
        and tokens[values[0]].kind in (T.STRING, T.WORD)
        and COMPUTED not in tokens[values[0]].text
    )


def _is_command_parameter(text: str) -> bool:
    return len(text) > 1 and "-command".startswith(text.lower())


def _encoded_option(word: str) -> bool:
    """Whether `word` is PowerShell's `-EncodedCommand` (or `-EncodedArguments`) by any prefix."""
    lowered = word.lower()
    if lowered[:1] not in ("-", "/") or len(lowered) < 2:
        return False
    option = lowered[1:]
    return (
        option in ("ec", "ea")
        or "encodedcommand".startswith(option)
        or (len(option) > 7 and "encodedarguments".startswith(option))
    )


def _words(texts: Sequence[str]) -> list[str]:
    return [word.strip("'\",") for text in texts for word in text.replace(",", " ").split()]


def _runs_encoded(reader: _Reader, at: int, args: list[int]) -> bool:
    """Whether the command starts PowerShell with an encoded command (`starts_encoded`)."""
    tokens = reader.tokens
    if tokens[at].kind not in (T.WORD, T.STRING):
        return False
    return starts_encoded([tokens[i].text for i in (at, *args) if tokens[i].kind in (T.WORD, T.STRING)])


def starts_encoded(texts: Sequence[str]) -> bool:
    """Whether the command whose program and arguments are `texts` (as PowerShell or the shell
    hands them on) starts PowerShell with an encoded command: `powershell -NoP -enc …`, or a
    runner given it (`Start-Process powershell -ArgumentList '-enc', $b`, `cmd /c "…"`). The
    option (`_encoded_option`, a typographic dash read as `-`) counts before `-File` or `-Command`
    (any prefix) ends PowerShell's own options."""
    if not texts or (_program(texts[0]) not in _POWERSHELLS and texts[0].lower() not in _RUNNERS):
        return False
    words = _words(texts)
    shell = next((at for at, word in enumerate(words) if _program(word) in _POWERSHELLS), None)
    for written in words[len(words) if shell is None else shell + 1 :]:
        word = "-" + written[1:] if written.startswith(DASHES) else written
        option = word.lower()[1:]
        if word[:1] in ("-", "/") and option and ("file".startswith(option) or "command".startswith(option)):
            return False  # what follows is the script's arguments, or the command line
        if _encoded_option(word):
            return True
    return False


def _program(word: str) -> str:
    return word.replace("/", "\\").rsplit("\\", 1)[-1].lower()


def powershell_constructs(lexed: PwshLexed, data: bytes, depth: int = 0) -> Iterator[Found]:
    """The dangerous constructs of a PowerShell text, each over the tokens it spans; `depth`: how
    many command lines handed on in strings (`powershell -c "…"`) hold it."""
    reader = _Reader(lexed, data)
    tokens = reader.tokens
    commands = reader.commands
    _assignments(reader)
    for at, _ in commands:
        _collect(reader, at)
    for at, called in commands:
        yield from _command(reader, at, called, depth)
    for at, token in enumerate(tokens):
        if token.kind is T.MEMBER:
            yield from _member(reader, at)
        elif token.kind is T.WORD and token.text.lower() in _CODE_MEMBERS:  # `… | % InvokeScript $s`
            yield Found("eval-code", token.start, token.end)
    yield from _files_run(reader, commands)


def _assignments(reader: _Reader) -> None:
    """Where each variable is assigned a value: `$x = …`, `[string]$x = …`, `$x += …` (what it
    adds to is unknown), `foreach ($x in …)`."""
    tokens = reader.tokens
    for at, token in enumerate(tokens[:-2]):
        if token.kind is not T.VARIABLE:
            continue
        following = tokens[at + 1]
        if following.kind is T.ASSIGN:
            reader.assigned.setdefault(token.text, []).append((at + 2, _EXPRESSION))
        elif following.kind is T.WORD and following.text == "+" and tokens[at + 2].kind is T.ASSIGN:
            reader.assigned.setdefault(token.text, []).append((at + 3, _APPENDED))
        elif following.text.lower() == "in" and at > 1 and tokens[at - 2].text.lower() == "foreach":
            reader.assigned.setdefault(token.text, []).append((at + 2, _EXPRESSION))


def _collect(reader: _Reader, at: int) -> None:
    """Note what a command defines: an alias for Invoke-Expression, a variable's value
    (`Set-Variable n iex`, `Set-Item variable:n iex`)."""
    made = _name_value(reader, at)
    if made is None:
        return
    kind, name, value = made
    if kind == "alias" and names_eval(reader.part(value, 0)):
        reader.aliases.add(name)
    elif kind == "variable":
        reader.assigned.setdefault(name, []).append((value, _ARGUMENT))


def _name_value(reader: _Reader, at: int) -> tuple[str, str, int] | None:
    """What a command names and the value it gives it: an alias (`Set-Alias x iex`, `New-Item
    alias:x -Value iex`) or a variable (`Set-Variable n iex`), as (`alias` or `variable`, the
    name, the value's token)."""
    tokens = reader.tokens
    command = tokens[at].text.lower() if tokens[at].kind is T.WORD else ""
    if command not in _ALIASES and command not in _VARIABLES and command not in _ITEM_WRITERS:
        return None
    options: dict[str, int] = {}
    positional: list[int] = []
    args = reader.arguments_of(at)
    index = 0
    while index < len(args):
        arg = args[index]
        text = tokens[arg].text.lower()
        if tokens[arg].kind is T.WORD and text.startswith("-") and len(text) > 1:
            if index + 1 < len(args) and not text.startswith(_SWITCHES):
                options[text] = args[index + 1]
                index += 1
        else:
            positional.append(arg)
        index += 1
    name_at = next((v for k, v in options.items() if "-name".startswith(k) or "-path".startswith(k)), None)
    value_at = next((v for k, v in options.items() if "-value".startswith(k)), None)
    name_at = positional.pop(0) if name_at is None and positional else name_at
    value_at = positional.pop(0) if value_at is None and positional else value_at
    if name_at is None or value_at is None:
        return None
    name = reader.part(name_at, 0).lower()
    if command in _ALIASES:
        return "alias", name, value_at
    if command in _VARIABLES:
        return "variable", name.lstrip("$"), value_at
    drive, colon, rest = name.partition(":")
    if not colon or drive not in ("alias", "variable"):
        return None
    return drive, rest.lstrip("\\/"), value_at


def _span(reader: _Reader, first: int, args: list[int]) -> tuple[int, int]:
    """From the command's first token to the end of its last argument (its brackets' contents)."""
    tokens = reader.tokens
    last = tokens[max(tokens[args[-1]].after - 1, args[-1])] if args else tokens[first]
    return tokens[first].start, last.end


def _downloaded(reader: _Reader, start: int, end: int) -> bool:
    return reader.downloads[end] > reader.downloads[start]


def _command(reader: _Reader, at: int, called: bool, depth: int) -> Iterator[Found]:
    tokens = reader.tokens
    token = tokens[at]
    args = reader.arguments_of(at)
    made = _name_value(reader, at)
    if made is not None and made[0] == "alias" and names_eval(reader.part(made[2], 0)):
        yield Found("eval-alias", *_span(reader, at, args))
    if _runs_encoded(reader, at, args):
        yield Found("encoded", *_span(reader, at, args))
    yield from _handed_on(reader, at, args, depth)
    if not reader.name_evals(at, called):
        return
    first = at - 1 if called else at
    if not called and _fixed(tokens, args):
        return
    piped = first > 0 and tokens[first - 1].kind is T.PIPE
    end = tokens[args[-1]].after if args else at + 1
    downloaded = _downloaded(reader, token.after, end) or (
        piped and _downloaded(reader, reader.pipeline_start[first - 1], first - 1)
    )
    what = "download-eval" if downloaded else ("eval" if not called or token.kind is T.WORD else "eval-name")
    yield Found(what, *_span(reader, first, args))


def _command_line(reader: _Reader, args: list[int]) -> list[int] | None:
    """The arguments of `powershell`/`pwsh` that are the command line it runs: `-Command`'s (any
    prefix), else the first that is no option's; None when it runs a file (`-File`)."""
    tokens = reader.tokens
    index = 0
    while index < len(args):
        token = tokens[args[index]]
        text = token.text.lower()
        if token.kind is not T.WORD or not text.startswith(("-", "/")) or len(text) < 2:
            return args[index:]
        option = text[1:]
        if "command".startswith(option):
            return args[index + 1 :]
        if "file".startswith(option):
            return None
        index += 2 if option.startswith(_POWERSHELL_VALUED) else 1
    return None


def _handed_on(reader: _Reader, at: int, args: list[int], depth: int) -> Iterator[Found]:
    """PowerShell started on a command line: one wholly computed (`-c $cmd`, `-c -` reading it
    from the pipeline) is evaluated; any other is read as a script of its own (its computed parts
    as variables), its constructs reported on the whole command."""
    tokens = reader.tokens
    if tokens[at].kind not in (T.WORD, T.STRING) or _program(tokens[at].text) not in _POWERSHELLS:
        yield from _started(reader, at, args, depth)
        return
    line = _command_line(reader, args)
    if not line or (tokens[line[0]].kind is T.OPEN and tokens[line[0]].text == "{"):
        return
    span = _span(reader, at, args)
    first = tokens[line[0]]
    if first.kind not in (T.WORD, T.STRING) or first.text in (COMPUTED, "-"):
        yield Found("eval", *span)
        return
    if depth >= _HANDED_ON_DEPTH:
        return
    inner = _line_text(reader, line).encode("utf-8", "surrogatepass")
    for found in powershell_constructs(lex(inner), inner, depth + 1):
        yield Found(found.what, *span)


def _started(reader: _Reader, at: int, args: list[int], depth: int) -> Iterator[Found]:
    """PowerShell a runner starts (`Start-Process powershell -ArgumentList '-c …'`, `cmd /c
    "powershell -c …"`): its command line read as a script of its own."""
    tokens = reader.tokens
    if tokens[at].text.lower() not in _RUNNERS or depth >= _HANDED_ON_DEPTH:
        return
    text = _line_text(reader, [i for i in args if not _names_argument_list(tokens[i])])
    found = _POWERSHELL_WORD().search(text)
    if found is None:
        return
    inner = text[found.start(1) :].encode("utf-8", "surrogatepass")
    span = _span(reader, at, args)
    for inside in powershell_constructs(lex(inner), inner, depth + 1):
        if inside.what != "encoded":  # `_runs_encoded` said it
            yield Found(inside.what, *span)


def _names_argument_list(token: Token) -> bool:
    """Whether a token is Start-Process's `-ArgumentList` (by a prefix) or `-Args`, or a comma
    between its arguments."""
    lowered = token.text.lower()
    return token.kind is T.COMMA or (
        len(lowered) > 2 and ("-argumentlist".startswith(lowered) or lowered == "-args")
    )


def _line_text(reader: _Reader, line: list[int]) -> str:
    """The command line tokens give PowerShell: a string's or a word's value (its computed parts
    as a variable), anything else as written."""
    tokens = reader.tokens
    parts = []
    for at in line:
        token = tokens[at]
        if token.kind in (T.WORD, T.STRING):
            parts.append(token.text.replace(COMPUTED, "$x"))
        else:
            end = max(token.end, tokens[token.after - 1].end)
            parts.append(reader.data[token.start : end].decode("utf-8", "replace"))
    return " ".join(parts)


def _pipeline_starts(tokens: Sequence[Token]) -> dict[int, int]:
    """For each `|`, where its statement starts (after the last end or open bracket at its level):
    what `iwr URL | sort | iex` pipes into its last command."""
    starts: dict[int, int] = {}
    level = [0]
    for at, token in enumerate(tokens):
        if token.kind is T.OPEN:
            level.append(at + 1)
        elif token.kind is T.CLOSE and len(level) > 1:
            level.pop()
        elif token.kind is T.END:
            level[-1] = at + 1
        elif token.kind is T.PIPE:
            starts[at] = level[-1]
    return starts


def _member(reader: _Reader, at: int) -> Iterator[Found]:
    """`[scriptblock]::Create(…)`, `….InvokeScript(…)` and their kin given code not fixed."""
    tokens = reader.tokens
    member = tokens[at]
    after = member.after
    if after >= len(tokens) or tokens[after].kind is not T.OPEN or tokens[after].text != "(":
        return
    if member.text == "addcommand":  # `[PowerShell]::Create().AddCommand('iex').AddArgument($s)`
        inside = reader.arguments(after + 1)
        if inside and names_eval(reader.part(inside[0], 0)):
            yield Found("eval-name", member.start, tokens[max(tokens[after].after - 1, after)].end)
        return
    if member.text == "create" and not _scriptblock_type(reader, at - 1):
        return
    if member.text != "create" and member.text not in _CODE_MEMBERS:
        return
    args = [i for i in reader.arguments(after + 1) if tokens[i].kind is not T.COMMA]
    if _fixed(tokens, args[:1]):
        return
    closing = max(tokens[after].after - 1, after)
    what = "download-eval" if _downloaded(reader, after, closing) else "eval-code"
    yield Found(what, member.start, tokens[closing].end)


def _scriptblock_type(reader: _Reader, at: int) -> bool:
    """Whether the value before `::Create` at `at` is the ScriptBlock type (`[scriptblock]`,
    `([type]'ScriptBlock')`), or a variable that may hold it."""
    tokens = reader.tokens
    if tokens[at].kind is T.VARIABLE:
        return reader.data.startswith(b"::", tokens[at].end)
    opener = reader.opener.get(at)
    if opener is None:
        return False
    return any("scriptblock" in tokens[i].text.lower() for i in range(opener + 1, at))


def _written_file(reader: _Reader, at: int) -> int | None:
    """The token of the path a download command at `at` writes (`-OutFile f`, `curl.exe -o f`,
    `Start-BitsTransfer u f`), or a `.DownloadFile(u, f)` member."""
    tokens = reader.tokens
    token = tokens[at]
    if token.kind is T.MEMBER and token.text == "downloadfile":
        after = token.after
        if after < len(tokens) and tokens[after].kind is T.OPEN:
            args = [i for i in reader.arguments(after + 1) if tokens[i].kind is not T.COMMA]
            return args[1] if len(args) > 1 else None
        return None
    if token.kind is not T.WORD or token.text.lower() not in _DOWNLOADERS:
        return None
    args = reader.arguments(token.after)
    for index, arg in enumerate(args[:-1]):
        text = tokens[arg].text.lower()
        if tokens[arg].kind is T.WORD and (
            (len(text) > 1 and "-outfile".startswith(text)) or text in ("--output", "-destination", "-d")
        ):
            return args[index + 1]
    if token.text.lower() == "start-bitstransfer":
        values = [i for i in args if not tokens[i].text.startswith("-")]
        return values[1] if len(values) > 1 else None
    return None


def _files_run(reader: _Reader, commands: list[tuple[int, bool]]) -> Iterator[Found]:
    """A file a download wrote that a later command runs, with no check of it between."""
    tokens = reader.tokens
    written: dict[str, int] = {}
    for at in range(len(tokens)):
        path = _written_file(reader, at)
        if path is not None:
            written.setdefault(reader.raw(tokens[path]), at)
    if not written:
        return
    for at, _called in commands:
        name = tokens[at]
        args = reader.arguments_of(at)
        candidates = [at]
        if name.kind is T.WORD and name.text.lower() in _RUNNERS:
            candidates += args
        for candidate in candidates:
            download = written.get(reader.raw(tokens[candidate]))
            if download is not None and download < at and reader.verifies[at] == reader.verifies[download]:
                yield Found(
                    "download-run", tokens[candidate].start, tokens[candidate].end, tokens[download].start
                )
                break
