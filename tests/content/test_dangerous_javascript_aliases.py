"""JavaScript's eval and Function reached as values: the Function constructor bound to another name
or handed on, a function's constructor read out of it, the global object under another name, and
a member of the global object chosen at run time, called. Each is how `eval(code)` is written by a
pull request that wants `eval` not to appear."""

from __future__ import annotations

import pytest

from bot.engine.content.dangerous import DangerousRule
from tests.content.helpers import change_of, scan, where
from tests.gitrepo import GitRepo

RULE = DangerousRule()


def _found(repo: GitRepo, source: str, path: str = "web/a.js") -> list[tuple[int | None, str]]:
    return [(line, rule) for _, line, rule in where(scan(RULE, change_of(repo, {path: source})))]


@pytest.mark.parametrize(
    ("source", "line", "construct"),
    [
        # a member of the global object chosen at run time, called
        ("window[name](code);\n", 1, "js-eval"),
        ('globalThis[atob("ZXZhbA==")](code);\n', 1, "js-eval"),
        ("global?.[key]?.(code);\n", 1, "js-eval"),
        ("window[names[0]](code);\n", 1, "js-eval"),
        ("globalThis[`ev${'al'}`](code);\n", 1, "js-eval"),
        # the global object under another name
        ("const x = window;\nx.eval(code);\n", 2, "js-eval"),
        ('let g = globalThis;\ng["ev" + "al"](code);\n', 2, "js-eval"),
        ("var root = window;\nroot[k](code);\n", 2, "js-eval"),
        ('const g = globalThis;\ng["Func" + "tion"](code)();\n', 2, "js-new-function"),
        # the Function constructor bound to another name or handed on
        ("const F = Function;\nF(code)();\n", 1, "js-new-function"),
        ("let make = Function, x = 1;\nnew make(code);\n", 1, "js-new-function"),
        ("Reflect.construct(Function, [code]);\n", 1, "js-new-function"),
        # a function's constructor read out of it
        (
            "const AsyncFunction = (async () => {}).constructor;\nnew AsyncFunction(code);\n",
            1,
            "js-new-function",
        ),
        ("const { constructor: C } = () => {};\nC(code)();\n", 1, "js-new-function"),
        ("const {constructor} = Object.getPrototypeOf(async function () {});\n", 1, "js-new-function"),
    ],
)
def test_eval_and_function_reached_as_values(repo: GitRepo, source: str, line: int, construct: str) -> None:
    assert _found(repo, source) == [(line, construct)]


@pytest.mark.parametrize(
    "source",
    [
        "window['alert'](text);\n",
        "window['on' + 'load'];\n",
        "window[name] = handler;\n",
        "const value = window[name];\n",
        "if (f instanceof Function) {}\n",
        "function call(cb: Function): void {}\n",
        "const kind = typeof Function;\n",
        "const proto = Function.prototype;\n",
        "const x = windowSize;\nx.eval(code);\n",
        "const g = globalThis.document;\ng[k](1);\n",
        "const { constructor } = instance;\n",
        # names the global object has that code uses for its own variables
        "if (this.parent) {\n  parent[_reload](this.name);\n}\n",
        "var self = this;\nself[method](args);\n",
        "const p = parent;\np[k](x);\n",
        "class A {\n  constructor() {}\n}\n",
        "const F = Functions;\nF(code);\n",
    ],
)
def test_near_misses_stay_quiet(repo: GitRepo, source: str) -> None:
    path = "web/a.ts" if ": Function" in source else "web/a.js"
    assert _found(repo, source, path) == []
