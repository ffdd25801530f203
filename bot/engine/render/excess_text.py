"""The excess field in words: one sentence a reviewer understands, then short notes.

Shared by the Markdown summary and the terminal text; `quote` formats what comes from the pull
request (paths, function names) for the medium.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.engine.excess import ExcessResult, estimated_text, left_out
from bot.engine.gitpath import display_path

_MAX_FUNCTIONS = 5


def percent(value: float) -> str:
    shown = f"{value * 100:.1f}"
    if value > 0 and shown == "0.0":
        return "under 0.1%"
    return f"{shown}%"


def _points(value: float) -> str:
    shown = f"{abs(value) * 100:.1f}"
    if shown == "0.0":
        return "less than 0.1 points"
    return f"{shown} point" + ("" if shown == "1.0" else "s")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def headline(x: ExcessResult) -> str:
    """What the numbers say, in one sentence."""
    if x.too_large is not None:
        return (
            f"Not measured: the {_plural(x.files, 'file')} this change touches hold {x.too_large:,} "
            "characters of text, more than the excess metrics read in one receipt."
        )
    if x.distance is None and x.union_distance is None:
        return "No text file to measure."
    if x.excess is None or x.union_distance is None or x.union_reference_distance is None:
        assert x.distance is not None
        return (
            f"This change rewrote {percent(x.distance)} of the tokens of the "
            f"{_plural(x.files, 'file')} it touched; there is no reference fix to compare it with."
        )
    if x.excess > 0:
        verdict = f"so it changed {_points(x.excess)} more than needed"
    elif x.excess < 0:
        verdict = f"so it changed {_points(x.excess)} less than the reference"
    else:
        verdict = "exactly as much"
    return (
        f"Over the files either touched, this change rewrote {percent(x.union_distance)} of the tokens "
        f"and the reference fix {percent(x.union_reference_distance)}, {verdict}."
    )


def notes(x: ExcessResult, quote: Callable[[str], str]) -> list[str]:
    """Formatting, complexity and what was left out, each in a short sentence."""
    out: list[str] = []
    if x.formatting_share:
        out.append(
            f"Of what this change edits as written, {percent(x.formatting_share)} is formatting: layout, "
            "comments or quote style, which leave the code the same."
        )
    if x.added_complexity:
        # a non-zero sum has at least one function whose complexity changed
        against = "the reference" if x.reference is not None else "the base"
        shown = [f"{quote(c.function)} {c.delta:+d}" for c in x.complexity_changes[:_MAX_FUNCTIONS]]
        more = ", …" if len(x.complexity_changes) > _MAX_FUNCTIONS else ""
        out.append(
            f"Cognitive complexity {x.added_complexity:+d} against {against} ({', '.join(shown)}{more})."
        )
    if x.unparsed:
        shown = [quote(display_path(p)) for p in x.unparsed]
        out.append("Does not parse, read by the tokenizer alone: " + ", ".join(shown) + ".")
    unmeasured = [p for p in x.complexity_unmeasured if p not in x.unparsed]
    if unmeasured:
        shown = [quote(display_path(p)) for p in unmeasured]
        out.append("Complexity not measured (does not parse): " + ", ".join(shown) + ".")
    if x.estimated:
        out.append(f"Estimated: {estimated_text(', '.join(quote(display_path(p)) for p in x.estimated))}.")
    if x.excluded:
        out.append(f"Left out: {left_out(x.excluded)}.")
    return out
