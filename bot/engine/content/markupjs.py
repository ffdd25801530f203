"""Where markup holds JavaScript, and the text that runs there.

HTML: `<script>` blocks' contents (a block ends at the first `</script`, inside a JavaScript string
too: the HTML parser closes it there), event handler attributes' values (`onerror="…"`, quoted or
not) and `javascript:` URLs (`href`, `src`, `action`, `formaction`, `xlink:href`). The browser
decodes an attribute's character references before it runs the value (`&#101;val`, `ev&#x61;l`,
`&quot;`), so each such value is decoded here, in place: each of its lines written out and padded
with spaces, so that every line stays where it was. A script block is never decoded (browsers do
not). Vue templates: every directive's value (`v-on:x`/`@x`, `v-bind:x`/`:x`, `v-html`, `v-if`, …)
and `{{ … }}` interpolations, decoded as Vue's compiler decodes them. Svelte and Astro templates:
`{ … }` in text and in attribute values (`on:click={…}`, `{@html …}`, `class="a {b}"`), as written;
an Astro file's `---` frontmatter (TypeScript). Attributes are read inside tags only (`onerror=` in
a paragraph's text is prose), and an HTML comment or a `<style>` block holds no JavaScript.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from posixpath import splitext

from bot.engine.lazyre import lazy

_VUE, _BRACES, _HTML = "vue", "braces", "html"
_DIALECTS = {".vue": _VUE, ".svelte": _BRACES, ".astro": _BRACES}
# What can open JavaScript or hide it, in lowercased text: a comment, a script or style block, a
# tag (its attributes are read one by one), and each dialect's expressions.
_OPENINGS = {
    _HTML: lazy(rb"<!--|<(script|style)\b[^>]*>?|<[a-z][^\s/>]*"),
    _VUE: lazy(rb"<!--|<(script|style)\b[^>]*>?|<[a-z][^\s/>]*|\{\{"),
    _BRACES: lazy(rb"<!--|<(script|style)\b[^>]*>?|<[a-z][^\s/>]*|\{"),
}
_ATTRIBUTE = lazy(rb"[\s/]*([^\s\"'>/=]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|(\{)|([^\s>]*)))?")
_GAP = lazy(rb"[\s/]+")
_URL_NAMES = frozenset({b"href", b"src", b"action", b"formaction", b"xlink:href"})
# URL parsers drop leading C0 controls and spaces, and tabs and line breaks anywhere.
_URL_NOISE = lazy(rb"[\t\n\r]")
_REFERENCE = lazy(rb"&(?:#[xX][0-9a-fA-F]+;?|#[0-9]+;?|[A-Za-z][A-Za-z0-9]*;?)")
_PERCENT = lazy(rb"%([0-9a-fA-F]{2})")
_BRACE_STOP = lazy(rb"[{}'\"`/]")
_FRONTMATTER = lazy(rb"[ \t\r\n]*---[ \t]*\r?\n")
_FRONTMATTER_END = lazy(rb"^---[ \t]*\r?$", re.MULTILINE)
_SCRIPT_TAG = lazy(rb"<(/?)script\b", re.IGNORECASE)


def dialect_of(path: str) -> str:
    """How a markup file's templates hold JavaScript, from its extension."""
    return _DIALECTS.get(splitext(path)[1].lower(), _HTML)


@dataclass(frozen=True, slots=True)
class MarkupScript:
    """`text`: the markup with every decoded value written out in place (the same length, and
    every line break where it was); `blocks`: the spans of it that are JavaScript, in order, each a
    script of its own."""

    text: bytes
    blocks: list[tuple[int, int]]


def _reference(match: re.Match[bytes]) -> bytes:
    """A character reference decoded, unless its UTF-8 would be longer than the reference."""
    written = match.group()
    decoded = html.unescape(written.decode("ascii")).encode("utf-8", "surrogatepass")
    return decoded if len(decoded) <= len(written) else written


def _percent(match: re.Match[bytes]) -> bytes:
    return bytes([int(match.group(1), 16)])


def _decode(text: bytearray, start: int, end: int, *, url: bool = False) -> None:
    """Decode the character references of `text[start:end]` line by line, in place; in a URL, then
    its percent-escapes too (a `javascript:` URL's code is percent-decoded before it runs)."""
    value = text[start:end]
    if b"&" not in value and not (url and b"%" in value):
        return
    line_start = start
    while line_start <= end:
        line_end = text.find(b"\n", line_start, end)
        line_end = end if line_end < 0 else line_end
        line = bytes(text[line_start:line_end])
        decoded = _REFERENCE().sub(_reference, line)
        if url:
            decoded = _PERCENT().sub(_percent, decoded)
        text[line_start:line_end] = decoded + b" " * (len(line) - len(decoded))
        line_start = line_end + 1


def _string_end(data: bytes, at: int, end: int) -> int:
    """The offset after the string or template literal opened at `at` (its quote unescaped)."""
    quote = data[at]
    pos = at + 1
    while pos < end:
        byte = data[pos]
        if byte == 0x5C:
            pos += 2
            continue
        if byte == quote or (byte == 0x0A and quote != 0x60):
            return pos + 1
        pos += 1
    return end


def _closing_brace(data: bytes, at: int, end: int) -> int:
    """The offset of the `}` closing the brace at `at` (or `end`), past the braces of strings,
    template text and comments inside."""
    depth = 0
    pos = at
    stop = _BRACE_STOP()
    while True:
        found = stop.search(data, pos, end)
        if found is None:
            return end
        pos = found.start()
        byte = data[pos]
        if byte == 0x7B:
            depth += 1
        elif byte == 0x7D:
            depth -= 1
            if depth == 0:
                return pos
        elif byte == 0x2F:
            following = data[pos + 1 : pos + 2]
            if following in (b"/", b"*"):
                close = data.find(b"\n" if following == b"/" else b"*/", pos + 2, end)
                pos = end if close < 0 else close
        else:
            pos = _string_end(data, pos, end) - 1
        pos += 1


class _Scanner:
    def __init__(self, data: bytes, dialect: str) -> None:
        self.data = data
        self.lowered = data.lower()
        self.dialect = dialect
        self.text = bytearray(data)
        self.blocks: list[tuple[int, int]] = []

    def _add(self, start: int, end: int, *, decoded: bool, url: bool = False) -> None:
        if decoded:
            _decode(self.text, start, end, url=url)
        self.blocks.append((start, end))

    def _braces_in(self, start: int, end: int) -> None:
        """Svelte's and Astro's `{ … }` expressions of text between `start` and `end`."""
        pos = self.data.find(b"{", start, end)
        while pos >= 0:
            close = _closing_brace(self.data, pos, end)
            self._add(pos + 1, close, decoded=False)
            pos = self.data.find(b"{", close + 1, end) if close < end else -1

    def scan(self, pos: int) -> None:
        lowered = self.lowered
        end = len(lowered)
        opening = _OPENINGS[self.dialect]()
        while pos < end:
            found = opening.search(lowered, pos)
            if found is None:
                return
            matched = found.group()
            if matched == b"<!--":
                close = lowered.find(b"-->", found.end())
                pos = end if close < 0 else close + 3
            elif found.group(1) is not None:
                name = found.group(1)
                close = lowered.find(b"</" + name, found.end())
                close = end if close < 0 else close
                if name == b"script":
                    self._add(found.end(), close, decoded=False)
                pos = close + 1
            elif matched.startswith(b"{{"):
                close = lowered.find(b"}}", found.end())
                close = end if close < 0 else close
                self._add(found.end(), close, decoded=True)
                pos = close + 2
            elif matched == b"{":
                close = _closing_brace(self.data, found.start(), end)
                self._add(found.end(), close, decoded=False)
                pos = close + 1
            else:
                pos = self._attributes(found.end())

    def _attributes(self, pos: int) -> int:
        """Read a tag's attributes from `pos`; the offset after the tag."""
        lowered = self.lowered
        end = len(lowered)
        attribute = _ATTRIBUTE()
        while pos < end:
            found = attribute.match(lowered, pos)
            if found is None:  # the tag's end, or a stray quote or `=`, skipped
                gap = _GAP().match(lowered, pos)
                pos = (pos if gap is None else gap.end()) + 1
                if lowered[pos - 1 : pos] == b">":
                    return pos
                continue
            pos = found.end()
            if found.group(4) is not None:  # `name={…}`
                close = _closing_brace(self.data, found.start(4), end)
                self._add(found.end(), close, decoded=False)
                pos = close + 1
                continue
            value = next((group for group in (2, 3, 5) if found.group(group) is not None), None)
            if value is not None:
                self._value(found.group(1), *found.span(value))
        return pos

    def _value(self, name: bytes, start: int, end: int) -> None:
        if name.startswith(b"on") or (self.dialect == _VUE and name.startswith((b"v-", b":", b"@"))):
            self._add(start, end, decoded=True)
        elif name in _URL_NAMES:
            value = self.lowered[start:end]
            url = value if b"&" not in value else html.unescape(value.decode("utf-8", "replace")).encode()
            if _URL_NOISE().sub(b"", url).lstrip(bytes(range(0x21))).startswith(b"javascript:"):
                self._add(start, end, decoded=True, url=True)
        elif self.dialect == _BRACES:
            self._braces_in(start, end)


def markup_script(data: bytes, path: str, *, starts_file: bool = True) -> MarkupScript:
    """The JavaScript of markup `data` (of file `path`): its whole text (`starts_file`), or a
    hunk's lines, which start inside a `<script>` block when their first script tag closes one."""
    scanner = _Scanner(data, dialect_of(path))
    pos = 0
    if starts_file and path.lower().endswith(".astro"):
        opened = _FRONTMATTER().match(data)
        if opened is not None:
            closed = _FRONTMATTER_END().search(data, opened.end())
            pos = len(data) if closed is None else closed.end()
            scanner.blocks.append((opened.end(), len(data) if closed is None else closed.start()))
    elif not starts_file:
        first = _SCRIPT_TAG().search(data)
        if first is not None and first.group(1) == b"/":
            scanner.blocks.append((0, first.start()))
            pos = first.end()
    scanner.scan(pos)
    return MarkupScript(bytes(scanner.text), scanner.blocks)
