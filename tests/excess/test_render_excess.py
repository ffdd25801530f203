from __future__ import annotations

from bot.engine.excess import ComplexityChange, ExcessResult, Excluded, Exclusion, ReferenceInfo
from bot.engine.render.excess_text import headline, notes, percent

REF = ReferenceInfo("gold.patch", "sha256:00")


def test_percent() -> None:
    assert percent(0.042) == "4.2%"
    assert percent(0.0004) == "under 0.1%"
    assert percent(0.0) == "0.0%"


def test_headline_without_anything_to_measure() -> None:
    assert headline(ExcessResult()) == "No text file to measure."


def test_headline_without_a_reference() -> None:
    assert headline(ExcessResult(distance=0.042, files=3)) == (
        "This change rewrote 4.2% of the tokens of the 3 files it touched; "
        "there is no reference fix to compare it with."
    )
    assert "of the 1 file it touched" in headline(ExcessResult(distance=0.5, files=1))


def _with_reference(mine: float, theirs: float) -> ExcessResult:
    return ExcessResult(
        distance=mine,
        reference=REF,
        reference_distance=theirs,
        excess=mine - theirs,
        union_distance=mine,
        union_reference_distance=theirs,
        files=1,
    )


def test_headline_with_a_reference() -> None:
    assert headline(_with_reference(0.042, 0.011)) == (
        "Over the files either touched, this change rewrote 4.2% of the tokens and the reference fix 1.1%, "
        "so it changed 3.1 points more than needed."
    )
    assert headline(_with_reference(0.011, 0.021)).endswith(
        "so it changed 1.0 point less than the reference."
    )
    assert headline(_with_reference(0.02, 0.02)).endswith("the reference fix 2.0%, exactly as much.")
    assert headline(_with_reference(0.0201, 0.02)).endswith(
        "so it changed less than 0.1 points more than needed."
    )


def test_headline_when_only_the_reference_has_text_files() -> None:
    x = ExcessResult(
        reference=REF, reference_distance=0.5, excess=-0.5, union_distance=0.0, union_reference_distance=0.5
    )
    assert headline(x).startswith("Over the files either touched, this change rewrote 0.0% of the tokens")


def test_notes() -> None:
    x = ExcessResult(
        distance=0.1,
        formatting_share=0.25,
        added_complexity=7,
        complexity_changes=tuple(ComplexityChange("a.py", f"f{i}", 1) for i in range(7)),
        unparsed=("b.py",),
        complexity_unmeasured=("b.py", "c.py"),
        excluded=(
            Excluded("x.png", Exclusion.BINARY),
            Excluded("y.png", Exclusion.BINARY),
            Excluded("big.txt", Exclusion.UNREADABLE),
        ),
    )
    assert notes(x, lambda s: f"<{s}>") == [
        "Of what this change edits as written, 25.0% is formatting: layout, comments or quote style, "
        "which leave the code the same.",
        "Cognitive complexity +7 against the base (<f0> +1, <f1> +1, <f2> +1, <f3> +1, <f4> +1, …).",
        "Does not parse, read by the tokenizer alone: <b.py>.",
        "Complexity not measured (does not parse): <c.py>.",
        "Left out: 2 files (binary), 1 file (too large or not text).",
    ]
    with_reference = ExcessResult(
        distance=0.1,
        reference=REF,
        added_complexity=-1,
        complexity_changes=(ComplexityChange("a.py", "g", -1),),
    )
    assert notes(with_reference, str) == ["Cognitive complexity -1 against the reference (g -1)."]
    assert notes(ExcessResult(distance=0.1, formatting_share=0.0, added_complexity=0), str) == []
