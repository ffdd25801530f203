"""Cognitive complexity against the examples of SonarSource's specification (G. Ann Campbell,
"Cognitive Complexity", version 1.7), translated to Python, and its Python-specific choices."""

from __future__ import annotations

import textwrap

import pytest

from bot.engine.complexity import FunctionComplexity, function_complexities


def cc(source: str) -> int:
    found = function_complexities(textwrap.dedent(source))
    assert found is not None and len(found) == 1
    return found[0].complexity


def test_spec_sum_of_primes() -> None:
    # The spec's Java scores 7: its `continue OUT` to a label earns +1. Python has no labelled
    # continue, and a plain continue earns nothing, so the same code scores 6.
    assert (
        cc("""
        def sum_of_primes(limit):
            total = 0
            for i in range(1, limit):      # +1
                for j in range(2, i):      # +2 (nesting 1)
                    if i % j == 0:         # +3 (nesting 2)
                        continue
                total += i
            return total
        """)
        == 6
    )


def test_spec_get_words_switch_scores_once() -> None:
    assert (
        cc("""
        def get_words(number):
            match number:                  # +1
                case 1:
                    return "one"
                case 2:
                    return "a couple"
                case _:
                    return "lots"
        """)
        == 1
    )


def test_spec_nesting_example() -> None:
    assert (
        cc("""
        def my_method():
            try:
                if condition1:                 # +1
                    for i in range(10):        # +2 (nesting 1)
                        while condition2:      # +3 (nesting 2)
                            pass
            except (ExcepType1, ExcepType2):   # +1
                if condition2:                 # +2 (nesting 1)
                    pass
        """)
        == 9
    )


def test_spec_lambda_raises_nesting() -> None:
    # Java's `() -> { if (condition1) ... }` scores 2; a Python lambda holds a conditional expression
    assert (
        cc("""
        def my_method2():
            r = lambda: a if condition1 else b     # +2 (nesting 1)
        """)
        == 2
    )


def test_spec_boolean_operator_sequences() -> None:
    assert (
        cc("""
        def f():
            if a and b and c or d or e and f:      # +1 if, +1 and, +1 or, +1 and
                pass
        """)
        == 4
    )
    assert cc("def f():\n    return a and not (b and c)\n") == 2  # two sequences
    assert cc("def f():\n    return a or (b or c) and d\n") == 3  # parentheses start a sequence
    assert cc("def f():\n    return a or b and c or d\n") == 3  # or, and, or
    assert cc("def f():\n    return (a and b) or c\n") == 2
    assert cc("def f():\n    return (a and # (\n    b) or c\n") == 2
    assert cc("def f():\n    return a and (  # note\n        b and c)\n") == 2
    assert cc("def f():\n    return a and b  # ( in a comment\n") == 1


def test_spec_else_if_and_else_are_hybrid() -> None:
    assert (
        cc("""
        def f(a):
            if a == 1:          # +1
                return 1
            elif a == 2:        # +1
                if b:           # +2 (nesting 1)
                    return 2
            else:               # +1
                return 3
        """)
        == 5
    )
    # `else: if` is an if nested in an else, not an elif
    assert (
        cc("""
        def f(a):
            if a:               # +1
                pass
            else:               # +1
                if b:           # +2
                    pass
        """)
        == 4
    )


def test_conditional_expressions_nest() -> None:
    assert cc("def f(a, b):\n    return 1 if a else (2 if b else 3)\n") == 3
    assert cc("def f(a, d):\n    return d[1 if a else 2], g(x=1 if a else 2), f'{1 if a else 2}'\n") == 3


def test_loop_and_try_else_count_like_sonarsource_python() -> None:
    assert cc("def f(a):\n    while a:\n        a -= 1\n    else:\n        pass\n") == 2
    assert (
        cc("""
        async def f(a):
            async for x in a:       # +1
                pass
            else:                   # +1
                if x:               # +2: an else nests
                    pass
        """)
        == 4
    )
    assert (
        cc("""
        def f():
            try:
                pass
            except* ValueError:     # +1
                pass
            else:                   # +1
                pass
            finally:
                if a:               # +1: finally adds no nesting
                    pass
        """)
        == 3
    )


def test_with_and_match_guards() -> None:
    assert cc("def f(a):\n    with open(a) as h:\n        if h:\n            return 1\n") == 1
    assert (
        cc("""
        def f(a):
            match a:                    # +1
                case 1 if a and b:      # +1 (the guard's sequence)
                    if a:               # +2
                        pass
        """)
        == 4
    )


def test_nested_functions_add_nesting_except_the_decorator_idiom() -> None:
    assert (
        cc("""
        def outer(a):
            def inner(b):
                if b:           # +2 (nesting 1)
                    return 1
            return inner(a)
        """)
        == 2
    )
    assert (
        cc("""
        def decorator(fn):
            "A docstring does not spoil the idiom."
            @functools.wraps(fn)
            def wrapper(*args):
                if args:        # +1
                    return fn(*args)
            return wrapper
        """)
        == 1
    )
    assert (
        cc("""
        def outer(a):
            if a:               # +1
                def inner(b):
                    if b:       # +3 (nesting 2)
                        pass
        """)
        == 4
    )


def test_a_class_resets_nesting() -> None:
    assert (
        cc("""
        def factory(a):
            if a:                       # +1
                class Local:
                    def m(self, x):
                        if x:           # +1: a class starts again at nesting 0
                            return 1
                return Local
        """)
        == 2
    )


def test_recursion_and_comprehensions_earn_nothing() -> None:
    assert cc("def fact(n):\n    return n * fact(n - 1)\n") == 0
    assert cc("def f(xs):\n    return [x for x in xs if x]\n") == 0
    assert cc("def f(xs):\n    return [x for x in xs if x and y]\n") == 1


def test_units_are_outer_functions_with_qualified_names() -> None:
    source = textwrap.dedent("""
        import os

        if os.name == "nt":
            def platform():
                if a:
                    pass
        else:
            def platform():
                pass

        class A:
            def m(self):
                return 1 if self else 2

            class B:
                async def n(self):
                    for x in y:
                        pass

        try:
            def in_try():
                pass
        except ImportError:
            def in_handler():
                pass

        match os.name:
            case "posix":
                def in_case():
                    pass

        for x in range(3):
            if x:
                pass
        """)
    assert function_complexities(source) == (
        FunctionComplexity("platform", 5, 1),
        FunctionComplexity("platform (2)", 9, 0),
        FunctionComplexity("A.m", 13, 1),
        FunctionComplexity("A.B.n", 17, 1),
        FunctionComplexity("in_try", 22, 0),
        FunctionComplexity("in_handler", 25, 0),
        FunctionComplexity("in_case", 30, 0),
    )  # module-level code is not a function: the `for` at the end counts nowhere


def test_positions_are_utf8_byte_offsets() -> None:
    assert cc("def f():\n    return 'é' and (a and b)\n") == 2
    assert cc("def f():\n    return 'é' and a and b\n") == 1


@pytest.mark.parametrize("source", ["def f(:\n", "x = 1\x00\n"])
def test_source_that_does_not_parse(source: str) -> None:
    assert function_complexities(source) is None


def test_expressions_too_deep_to_walk() -> None:
    deep = "def f():\n    return " + "+".join(["(x if y else 1)"] * 700) + "\n"
    assert function_complexities(deep) is None


def test_deep_expressions_without_decisions_are_not_walked() -> None:
    deep = "def f():\n    return " + "+".join(["1"] * 700) + "\n"
    assert function_complexities(deep) == (FunctionComplexity("f", 1, 0),)
