"""Aliases and functions: the command a name the text defines as one stands for where it is used.

`alias e=eval` then `e "$x"` runs eval, and `f() { bash; }` then `curl … | f` pipes the download
into bash, so a name defined as either is read as what it runs. An alias is text the shell puts
in place of a command's first word: its value (quotes removed) is read there as code, after the
definition in the text. A function stands for the first command of its body that runs an
interpreter (past keywords, assignments and wrappers: `then sudo bash -s`), downloads (`curl`,
`wget`) or runs its arguments (`"$@"`, `sudo "$@"`), such commands found once for all bodies.
A use, with its arguments, is that command with the positional parameters it names (`"$@"`,
`$*`, `"$1"`, `${2}`) replaced by the use's arguments; a command naming none is not given them
(`f() { bash; }`: `curl … | f x` runs bash on the download). A function is read wherever it is
used, since a script calls one its text defines further on. A body dangerous on its own (`eval
"$@"`, `curl … | sh`) is reported at the definition, as every body is read: its uses are left as
they are. A name that is itself what the rule looks for (an interpreter, `eval`, `curl`, a
wrapper) is never replaced: bash runs a script without expanding aliases unless told to, and the
command it names is then run. Uses are rewritten as `shellwords.py` rewrites words, so a finding
is reported where the name was used; an alias or function reached through another is read in a
further round (up to `DEFINITION_ROUNDS`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from bot.engine.content.downloadtools import COMMAND_WORD_ONLY, DOWNLOADERS
from bot.engine.content.jslex import Lexed
from bot.engine.content.shellcommands import INTERPRETERS, interpreter, split
from bot.engine.content.shellscan import lex
from bot.engine.content.shellwords import LEADER, Words, rewritten
from bot.engine.lazyre import lazy
from bot.engine.regex import compile_re2
from bot.engine.wrappers import ASSIGNED, WRAPPERS, unwrapped

DEFINITION_ROUNDS = 3
# What the rewrites of a text may add, all rounds together: four times the text, and 1 MiB.
_GROWTH_FACTOR = 4
_GROWTH_SLACK = 1 << 20
_NAME = r"[A-Za-z_][\w.:-]*"
# What may come between where a command starts (a break, or a line's start, where a Dockerfile's `RUN`
# or a CI step's `run:` may lead) and its command word: keywords, assignments, `!`, `time` (not a
# wrapper, which runs a program of that name, never a function), each with the blanks after it (a
# quoted or escaped blank is a value's). Groups: where the first word starts, and where those after a
# leader do.
_LEAD = rf"(?:then|do|else|if|elif|while|until|!|time|{ASSIGNED})[ \t]+".encode()
_LEADS = lazy(_LEAD)
_AFTER_BREAK = lazy(rb"[ \t]*()()(?:" + _LEAD + rb")*")
_AFTER_LINE_START = lazy(rf"[ \t]*()(?:{LEADER})?()".encode() + rb"(?:" + _LEAD + rb")*")
_BREAKS = b";&|({\x60"
# Command substitutions read out of, around a word or from a command's start: past this many, the
# word is taken as a command's (an alias or function use then reported as what it runs).
_NESTED = 64
# A definition's head, found from its `()` or its keyword (found with `bytes.find`: a regex tried at
# every offset costs more than the rest), then checked to start a command: the name before `()`, the
# body's opening after it.
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")
_NAME_WORD = lazy(_NAME)
_OPENING = lazy(rb"\(\)[ \t\n]*([{(])")
_KEYWORD = lazy(rf"function[ \t]+({_NAME})(?:[ \t]*\(\))?[ \t\n]*([{{(])".encode())
_ALIAS = lazy(rb"alias[ \t]+([^;&|)\n\x60]+)")
_AFTER_NAME = frozenset(b" \t\n;&|)")
_DEFINING = lazy(rb"[ \t]*\(")
_BEFORE_WORD = frozenset(b" \t\n;&|({\x60")
_BRACES = lazy(rb"[{}]")
_PARENTHESES = lazy(rb"[()]")
# Where a command of a body starts, and a program a function stands for after keywords, assignments
# and wrappers: an interpreter, a download, a positional parameter (the command then read in full).
_STANDING = (
    r"(?m)(?:^|[;&|(){}\x60])([ \t]*(?:(?:then|do|else|if|elif|while|until|!|time)[ \t]+)*"
    rf"(?:{ASSIGNED}[ \t]+)*(?:(?:"
    + "|".join(re.escape(name) for name in sorted(WRAPPERS))
    + r")\b[^;&|\n(){}\x60]*?)?"
    r"[\"']?(?:[\w./-]*/)?(?:"
    + INTERPRETERS
    + r"|(?:"
    + "|".join(re.escape(name) for name in sorted(DOWNLOADERS, key=len, reverse=True))
    + r")\b|\$\{?[@*1-9]))"
)
# What ends a command of a body (a keyword it starts with is read away: `then bash`).
_BREAK = lazy(rb"[;&|\n(){}\x60]")
_KEYWORDS = frozenset({b"then", b"do", b"else", b"if", b"elif", b"while", b"until", b"!", b"time"})
# What ends a use's command, a bracket counted (`f "$(a; b)"`).
_END = lazy(rb"[;&|\n()\x60]")
_POSITIONAL = lazy(rb'"\$(?:\{([@*1-9])\}|([@*1-9]))"|\$(?:\{([@*1-9])\}|([@*1-9]))')
_DOWNLOADERS = frozenset(DOWNLOADERS)
# The names the rule itself looks for: a definition of one does not hide it. A download tool's name
# other code uses for its own (`fetch() { curl …; }`) is that function's where the file defines it.
_LOOKED_FOR = frozenset({"eval", "source", ".", *(_DOWNLOADERS - COMMAND_WORD_ONLY), *WRAPPERS})


@dataclass(frozen=True, slots=True)
class _Function:
    """A function's definition (from its name to its body's end), the text of the command of its
    body it stands for, and how many positional parameters that text names."""

    start: int
    end: int
    command: bytes
    positional: int


class _Commands:
    """Where a view's lines and commands start (its line feeds and command breaks in code, each
    found once), and what leads the command from each start read so far: the words of one long
    line would each read back to their command's start."""

    def __init__(self, view: bytes, hidden: Callable[[int], bool]) -> None:
        self.view = view
        self.newlines = [found.start() for found in re.finditer(rb"\n", view) if not hidden(found.start())]
        breaks = re.finditer(b"[" + re.escape(_BREAKS) + b"]", view)
        self.breaks = [found.start() for found in breaks if not hidden(found.start())]
        self.read: set[int] = set()  # the command starts read
        self.words: set[int] = set()  # where a command word may start, from those
        # The innermost command substitution `$(…)` (from its `$` to its `)`) around each break in
        # one: its breaks start commands inside it only, and a word after it (`X=$(a b) e`) is led
        # from before it.
        self.around: dict[int, tuple[int, int]] = {}
        if b"$(" in view:
            self._substitutions(_closings(view, hidden, braces=False))

    def _substitutions(self, closings: dict[int, int]) -> None:
        spans = sorted(
            (at - 1, end) for at, end in closings.items() if at > 0 and self.view[at - 1] == ord("$")
        )
        open_spans: list[tuple[int, int]] = []
        pending = iter(spans)
        span = next(pending, None)
        for at in self.breaks:
            while span is not None and span[0] < at:
                open_spans.append(span)
                span = next(pending, None)
            while open_spans and open_spans[-1][1] < at:
                open_spans.pop()
            if open_spans:
                self.around[at] = open_spans[-1]

    def _led_from(self, before: int, line: int, start: int) -> int | None:
        """The last break before `start` not inside a substitution closed before `start` (`before`,
        the last break of all, or one before the substitutions it is in; one before `line` when
        none on it is); None past _NESTED substitutions (the word is then taken as a command's)."""
        breaks = self.breaks
        for _ in range(_NESTED):
            if before < 0 or breaks[before] < line:
                return before
            span = self.around.get(breaks[before])
            if span is None or span[1] >= start:
                return before
            before = bisect_left(breaks, span[0]) - 1
        return None

    def _stop(self, after: int, at: int, end: int) -> int:
        """Where the leads of the command starting at `after` end: the first break from index `at`
        past the substitutions that open in the command (before `end`, its line's end)."""
        breaks = self.breaks
        for _ in range(_NESTED):
            if at >= len(breaks) or breaks[at] >= end:
                return end
            span = self.around.get(breaks[at])  # the first break of one is its own `(`: the outermost
            if span is None or span[0] < after:
                return breaks[at]
            at = bisect_left(breaks, span[1])
        return end

    def command_word(self, start: int) -> bool:
        """Whether a word at `start` is a command's (first on its line, or after `;`, `|`,
        `then`…): what comes between it and the last break before it on its line may only lead a
        command. That is read once for each command's start, up to the break or line feed after it
        (a word after that has a start of its own), so a line costs its length."""
        view, newlines, breaks = self.view, self.newlines, self.breaks
        below = bisect_left(newlines, start)
        line = newlines[below - 1] + 1 if below > 0 else 0
        before = bisect_left(breaks, start) - 1
        if self.around:
            led = self._led_from(before, line, start)
            if led is None:
                return True
            before = led
        broken = before >= 0 and breaks[before] >= line
        after = breaks[before] + 1 if broken else line
        if after not in self.read:
            self.read.add(after)
            end = newlines[below] if below < len(newlines) else len(view)
            stop = self._stop(after, bisect_left(breaks, after), end)
            found = (_AFTER_BREAK() if broken else _AFTER_LINE_START()).match(view, after, stop)
            assert found is not None  # every part of it may be empty
            self.words.update((found.start(1), found.start(2)))
            self.words.update(lead.end() for lead in _LEADS().finditer(view, found.start(2), found.end()))
        return start in self.words


@lru_cache(maxsize=4)
def _commands(view: bytes, hidden: Callable[[int], bool]) -> _Commands:
    return _Commands(view, hidden)


def command_word(view: bytes, hidden: Callable[[int], bool], start: int) -> bool:
    return _commands(view, hidden).command_word(start)


def _shadows(name: str) -> bool:
    return name in _LOOKED_FOR or interpreter(name) is not None


def _program(command: bytes) -> str | None:
    """The program `command` runs past assignments and wrappers, None for a command line handed on."""
    words = split(command.decode("latin-1"))
    at = unwrapped(words)
    return words[at] if isinstance(at, int) and at < len(words) else None


def _runs(program: str) -> bool:
    """Whether a function is the command `program` where it is used."""
    return (
        interpreter(program) is not None
        or program.rsplit("/", 1)[-1] in _DOWNLOADERS
        or _POSITIONAL().fullmatch(program.encode("latin-1")) is not None
    )


def _stands_in(command: bytes) -> bool:
    """Whether a function whose body runs `command` is that command where it is used (its words
    split only when its first word is not itself such a program: an assignment, a wrapper)."""
    if _runs(command.split(maxsplit=1)[0].strip(b"'\"").decode("latin-1")):
        return True
    program = _program(command)
    return program is not None and _runs(program)


def _closings(view: bytes, hidden: Callable[[int], bool], braces: bool) -> dict[int, int]:
    """Where each brace (`braces`) or parenthesis of `view` that opens in code closes, matched in
    one pass: a brace counts as a word of its own (`${x}`, `{a,b}` are words of others)."""
    closings: dict[int, int] = {}
    opened: list[int] = []
    for found in (_BRACES() if braces else _PARENTHESES()).finditer(view):
        at = found.start()
        opens = view[at] in b"{("
        if (braces and not _brace_word(view, at, opens)) or hidden(at):
            continue
        if opens:
            opened.append(at)
        elif opened:
            closings[opened.pop()] = at
    return closings


def _brace_word(view: bytes, at: int, opens: bool) -> bool:
    before = view[at - 1 : at] or b" "
    after = view[at + 1 : at + 2] or b" "
    if opens:
        return before in b" \t\n;&|()" and after in b" \t\n"
    return before in b" \t\n;&" and after in b" \t\n;&|)<>"


def _standing(view: bytes, hidden: Callable[[int], bool]) -> tuple[list[int], list[bytes]]:
    """The commands of `view` a function whose body holds one stands for: where each starts, and
    its text (to the next break, past the keywords it starts with). Found once for all bodies by a
    pattern for such a command's start, each then split into words."""
    starts: list[int] = []
    commands: list[bytes] = []
    for found in compile_re2(_STANDING).finditer(view):
        start = found.start(1)
        if start > 0 and hidden(start - 1):
            continue  # the break is in a string
        breaks = (stop.start() for stop in _BREAK().finditer(view, start) if not hidden(stop.start()))
        end = next(breaks, len(view))
        command = _unkeyworded(view[start:end])
        if _stands_in(command):
            starts.append(start)
            commands.append(command)
    return starts, commands


def _unkeyworded(command: bytes) -> bytes:
    """`command` without the keywords it starts with (`then`, `!`…)."""
    words = command.split(maxsplit=1)
    while words and words[0] in _KEYWORDS:
        words = words[1].split(maxsplit=1) if len(words) > 1 else []
    return b" ".join(words)


def _heads(view: bytes) -> Iterator[tuple[int, str, int]]:
    """Each definition's head in `view`, in order: where its name starts, the name, and where its
    body opens."""
    heads: list[tuple[int, str, int]] = []
    at = view.find(b"()")
    while at >= 0:
        opening = _OPENING().match(view, at)
        name = _name_before(view, at) if opening is not None else None
        if opening is not None and name is not None:
            heads.append((name[0], name[1], opening.start(1)))
        at = view.find(b"()", at + 2)
    for found in _found_from(view, b"function", _KEYWORD()):
        heads.append((found.start(), found.group(1).decode("latin-1"), found.start(2)))
    return iter(sorted(heads))


def _name_before(view: bytes, at: int) -> tuple[int, str] | None:
    """The name that ends at `at` (blanks between), and where it starts, if one does."""
    end = at
    while end > 0 and view[end - 1] in b" \t":
        end -= 1
    start = end
    while start > 0 and view[start - 1] in _NAME_BYTES:
        start -= 1
    name = view[start:end].decode("latin-1")
    return (start, name) if _NAME_WORD().fullmatch(name) else None


def _found_from(view: bytes, word: bytes, pattern: re.Pattern[bytes]) -> Iterator[re.Match[bytes]]:
    """`pattern`'s matches at each occurrence of `word` (found with `bytes.find`) that starts a word."""
    at = view.find(word)
    while at >= 0:
        found = pattern.match(view, at) if at == 0 or view[at - 1] in _BEFORE_WORD else None
        if found is not None:
            yield found
        at = view.find(word, at + len(word))


def _functions(
    view: bytes, hidden: Callable[[int], bool]
) -> tuple[dict[str, list[_Function]], list[tuple[int, int]]]:
    """The functions the view defines that stand for a command, by name, in order; and where the
    bodies of those that stand for none open (a rewrite inside one may make it stand for one)."""
    functions: dict[str, list[_Function]] = {}
    others: list[tuple[int, int]] = []
    closings: dict[bool, dict[int, int]] = {}  # by kind of bracket, read once
    standing: tuple[list[int], list[bytes]] | None = None
    for start, name, opening in _heads(view):
        if hidden(opening) or _shadows(name) or not command_word(view, hidden, start):
            continue
        braces = view[opening] == 0x7B
        if braces not in closings:
            closings[braces] = _closings(view, hidden, braces)
        end = closings[braces].get(opening)
        if end is None:
            continue
        starts, commands = standing = standing or _standing(view, hidden)
        first = bisect_left(starts, opening + 1)  # the body's first command that stands for one
        if first < len(starts) and starts[first] < end:
            command = commands[first]
            positional = len(_POSITIONAL().findall(command))
            functions.setdefault(name, []).append(_Function(start, end + 1, command, positional))
        else:
            others.append((opening, end))
    return functions, others


def _aliases(view: bytes, hidden: Callable[[int], bool]) -> dict[str, list[tuple[int, bytes]]]:
    """The aliases the view defines, by name: where each definition ends and its value."""
    aliases: dict[str, list[tuple[int, bytes]]] = {}
    for found in _found_from(view, b"alias", _ALIAS()):
        if hidden(found.start(1)) or not command_word(view, hidden, found.start()):
            continue
        for word in split(found.group(1).decode("latin-1")):
            name, equals, value = word.partition("=")
            first = value.split(maxsplit=1)[0] if value.strip() else ""
            if equals and _NAME_WORD().fullmatch(name) and not _shadows(name) and first != name:
                aliases.setdefault(name, []).append((found.end(), value.encode("latin-1")))
    return aliases


def _command_end(view: bytes, hidden: Callable[[int], bool], start: int) -> int:
    """Where the command going on at `start` ends: an operator or a closing bracket outside the
    brackets it opens (`$(…)`), or the end."""
    depth = 0
    for found in _END().finditer(view, start):
        if hidden(found.start()):
            continue
        byte = found.group()
        if byte == b"(":
            depth += 1
        elif depth == 0:
            return found.start()
        elif byte == b")":
            depth -= 1
    return len(view)


def _arguments(view: bytes, hidden: Callable[[int], bool], start: int, end: int) -> list[bytes]:
    """The words of `view[start:end]`: split at blanks in code outside brackets."""
    words: list[bytes] = []
    depth = 0
    word = start
    for at in range(start, end):
        byte = view[at]
        if hidden(at):
            continue
        if byte == 0x28:
            depth += 1
        elif byte == 0x29:
            depth -= 1
        elif byte in b" \t\n" and depth == 0:
            words.append(view[word:at])
            word = at + 1
    words.append(view[word:end])
    return [w for w in words if w]


def _given(command: bytes, arguments: list[bytes]) -> bytes:
    """`command` with the positional parameters it names replaced by `arguments`."""

    def argument(found: re.Match[bytes]) -> bytes:
        name = next(group for group in found.groups() if group is not None)
        if name in (b"@", b"*"):
            return b" ".join(arguments)
        number = int(name)
        return arguments[number - 1] if number <= len(arguments) else b""

    return _POSITIONAL().sub(argument, command)


class _Growth:
    """How many bytes the rewrites of one text may still add: uses written as what they run could
    otherwise grow it without bound (`f() { bash $@ $@ $@ …; }` used on every line, round after
    round)."""

    def __init__(self, size: int) -> None:
        self.left = _GROWTH_FACTOR * size + _GROWTH_SLACK

    def spend(self, amount: int) -> bool:
        if amount > self.left:
            return False
        self.left -= max(amount, 0)
        return True


def _defined(
    view: bytes, hidden: Callable[[int], bool], growth: _Growth
) -> tuple[list[tuple[int, int, bytes]], bool]:
    """Each use of an alias or a function of `view` that stands for a command, and its text (while
    `growth` lasts: past it a use is left as written); and whether a further round may find more:
    a text written in names one, or a use was rewritten in the body of a function that stands for
    none."""
    functions, others = _functions(view, hidden) if b"()" in view or b"function" in view else ({}, [])
    aliases = _aliases(view, hidden) if b"alias" in view else {}
    names = sorted({*functions, *aliases}, key=len, reverse=True)
    if not names:
        return [], False
    alternatives = "|".join(re.escape(name) for name in names)
    replaced: list[tuple[int, int, bytes]] = []
    done = 0
    for found in compile_re2(rf"(?:^|[^\w.:-])({alternatives})").finditer(view):
        start, after, name = found.start(1), found.end(1), found.group(1).decode("latin-1")
        if start < done or not _use(view, hidden, start, after):
            continue
        end, text = after, _alias_value(aliases.get(name, []), start)
        function = _function_at(functions.get(name, []), start) if text is None else None
        if function is not None:
            end = _command_end(view, hidden, after)
            most = len(function.command) + function.positional * (end - after)  # before it is written
            if most <= growth.left:
                text = _given(function.command, _arguments(view, hidden, after, end))
        if text is not None and growth.spend(len(text) - (end - start)):
            replaced.append((start, end, text))
            done = end
    named = [name.encode("latin-1") for name in names]
    again = any(name in text for _, _, text in replaced for name in named) or any(
        opening < start < end for start, _, _ in replaced for opening, end in others
    )
    return replaced, again


def _use(view: bytes, hidden: Callable[[int], bool], start: int, end: int) -> bool:
    """Whether the name at `view[start:end]` is a command's word in code, not a definition's."""
    whole = end == len(view) or view[end] in _AFTER_NAME
    defining = _DEFINING().match(view, end) is not None
    return whole and not defining and not hidden(start) and command_word(view, hidden, start)


def _alias_value(definitions: list[tuple[int, bytes]], start: int) -> bytes | None:
    """The value of the last definition of an alias before `start`."""
    values = [value for end, value in definitions if end <= start]
    return values[-1] if values else None


def _function_at(definitions: list[_Function], start: int) -> _Function | None:
    """The definition of a function a use at `start` calls: the last one before it, else the first
    (a use inside a definition of its own is no call to rewrite)."""
    if any(d.start <= start < d.end for d in definitions):
        return None
    before = [d for d in definitions if d.end <= start]
    return before[-1] if before else (definitions[0] if definitions else None)


def _strings(text: bytes) -> Iterator[tuple[int, int]]:
    lexed = lex(text, spanning=True)
    return zip(lexed.strings.starts, lexed.strings.ends, strict=True)


def defined_commands(lexed: Lexed, data: bytes) -> Iterator[Words]:
    """The view of `lexed` (read from `data`) with each use of an alias or a function that stands
    for a command written as that command (its own quoted text hidden): each round's rewrite of
    the one before, while a text written in names one again (at most `DEFINITION_ROUNDS`)."""
    growth = _Growth(len(lexed.view))
    for _ in range(DEFINITION_ROUNDS):
        view = bytes(lexed.view)
        if b"alias" not in view and b"()" not in view and b"function" not in view:
            return
        replaced, again = _defined(view, lexed.hidden, growth)
        if not replaced:
            return
        words = rewritten(lexed, data, replaced, _strings)
        yield words
        if not again:
            return
        lexed, data = words.lexed, words.data
