"""Which writing system a letter belongs to, for the scripts whose letters pass for one another
(Latin, Greek, Cyrillic, Armenian, Cherokee, Coptic, Lisu), and whether an identifier mixes them.

Python's `unicodedata` has no Script property, but every letter of these scripts is named after its
script (`CYRILLIC SMALL LETTER A`, `GREEK CAPITAL LETTER ALPHA`), so the first word of its name says
it. An identifier is read as Python reads it (NFKC: a fullwidth `ｐ` is `p`, the micro sign is Greek
`μ`). Letters of any other script (Han, Arabic, Devanagari, …) pass for no Latin letter and are left
out; so are marks and digits, which belong to every script.

An identifier is judged word part by word part (split at `_`, digits and a lower-case letter
followed by an upper-case one), as a reader reads it: `α_max`, `σ2`, `ρAir` join a Greek part to
Latin ones, which is notation, while `pаssword` or `ορen` puts a look-alike letter inside a Latin
word, which is a disguise. A part mixes scripts when it holds letters of two of them, except Greek
beside Latin that passes for no Latin letter (`Δt`, `dθ`: scientific code). A part written in
Greek or Cyrillic beside parts in other scripts counts only when it passes for Latin itself
(`get_ехес`); an Armenian, Cherokee, Coptic or Lisu part beside others always counts.

An identifier in one script can pass for another name too, when each of its letters passes for a
Latin one (a Cyrillic `а` beside a Latin `a`, a Cyrillic `ехес`): `passes_for_latin` says which.
A lone Greek letter is mathematics (`ρ`, `ν`), not a disguise; Armenian, Cherokee, Coptic and Lisu
look-alikes are judged only beside other scripts. And Python reads an identifier NFKC-normalized,
so one written in letters that normalize to ASCII (fullwidth `ｅｖａｌ`, a ligature `ﬁle`, a math
bold `𝐞𝐯𝐚𝐥`) is that ASCII name in disguise: `ascii_alias` says which. A combining mark on an ASCII
letter (`adm̶in`, `admiṇ`) is a name written to pass for a plain one: `marked_ascii` finds it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

CONFUSABLE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC", "ARMENIAN", "CHEROKEE", "COPTIC", "LISU")
_NAMED = frozenset(CONFUSABLE_SCRIPTS)
# Greek and Cyrillic letters a reader takes for Latin ones in code fonts, with the one each passes for.
_GREEK_PASSES_FOR = dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿαικνορυχϲϳ", "ABEZHIKMNOPTYXCJaikvopuxcj", strict=True))
_CYRILLIC_PASSES_FOR = dict(
    zip("аеорсухіјѕһԁԛԝӏАВЕКМНОРСТХІЈЅҮ", "aeopcyxijshdqwlABEKMHOPCTXIJSY", strict=True)
)
_PASSES_FOR = {**_GREEK_PASSES_FOR, **_CYRILLIC_PASSES_FOR}
_GREEK_LOOKALIKES = frozenset(_GREEK_PASSES_FOR)
# Scripts with a table of the letters that pass for Latin ones; of the others any letter may.
_TABULATED = frozenset({"LATIN", "GREEK", "CYRILLIC"})


def script_of(char: str) -> str | None:
    """The confusable script `char` is a letter of, or None (another script, or not a letter)."""
    if char.isascii():
        return "LATIN" if char.isalpha() else None
    if not char.isalpha():
        return None
    first = unicodedata.name(char, "").split(" ", 1)[0]
    return first if first in _NAMED else None


@dataclass(frozen=True, slots=True)
class Mixed:
    """The scripts an identifier mixes (Latin first, then in order of use) and the first letter of
    each of the others: what to point a reader at."""

    scripts: tuple[str, ...]
    letters: tuple[str, ...]


def word_parts(identifier: str) -> list[str]:
    """The word parts of `identifier`: runs of letters (with their marks), split at anything else
    (`_`, digits) and where a lower-case letter is followed by an upper-case one."""
    parts: list[str] = []
    part = ""
    for char in identifier:
        letter = char.isalpha() or unicodedata.category(char).startswith("M")
        if letter and not (part and part[-1].islower() and char.isupper()):
            part += char
            continue
        if part:
            parts.append(part)
        part = char if letter else ""
    return [*parts, part] if part else parts


def _part_is_mixed(part: str) -> bool:
    """Whether a word part of an identifier that mixes scripts is a disguise (see above)."""
    scripts = {script for script in map(script_of, part) if script is not None}
    if len(scripts) > 1:
        return scripts != {"LATIN", "GREEK"} or not _GREEK_LOOKALIKES.isdisjoint(part)
    if not scripts or scripts <= {"LATIN"}:
        return False
    return not scripts <= _TABULATED or passes_for_latin(part) is not None


def mixed_scripts(identifier: str) -> Mixed | None:
    """Whether `identifier`, read as Python reads it, mixes confusable scripts within a word part
    (see above)."""
    normalized = unicodedata.normalize("NFKC", identifier)
    first_letter: dict[str, str] = {}
    for char in normalized:
        script = script_of(char)
        if script is not None:
            first_letter.setdefault(script, char)
    if len(first_letter) < 2 or not any(map(_part_is_mixed, word_parts(normalized))):
        return None
    scripts = sorted(first_letter, key=lambda s: s != "LATIN")  # stable: the rest keep their order
    return Mixed(tuple(scripts), tuple(first_letter[s] for s in scripts[1:]))


def passes_for_latin(identifier: str) -> str | None:
    """The Latin name `identifier` (read as Python reads it) passes for, when every letter of it is
    a Greek or Cyrillic one that passes for a Latin letter; None otherwise (see above)."""
    normalized = unicodedata.normalize("NFKC", identifier)
    letters = [char for char in normalized if char.isalpha()]
    if not letters or any(char not in _PASSES_FOR for char in letters):
        return None
    if len(letters) < 2 and letters[0] in _GREEK_PASSES_FOR:
        return None
    return "".join(_PASSES_FOR.get(char, char) for char in normalized)


def ascii_alias(identifier: str) -> str | None:
    """The ASCII name Python reads `identifier` as, when it is written otherwise (NFKC)."""
    normalized = unicodedata.normalize("NFKC", identifier)
    return normalized if normalized != identifier and normalized.isascii() else None


def marked_ascii(identifier: str) -> tuple[str, str] | None:
    """The first ASCII character of `identifier` (as written) that carries a combining mark, and the
    mark: a name no script writes so (a letter with a diacritic is written precomposed, `é`; the
    scripts whose signs are marks put them on their own letters)."""
    base = ""
    for char in identifier:
        if not unicodedata.category(char).startswith("M"):
            base = char
        elif base.isascii() and base:
            return base, char
    return None
