from tests.action.scenario import Scenario


def test_in_scope_pass(scenario: Scenario) -> None:
    scenario.base()
    scenario.pr({"src/calc.py": "def add(a, b):\n    return a + b\n"})
    result = scenario.run(scenario.checkout(), event=scenario.event())
    print(result.stdout, result.stderr, result.outputs, result.summary)
    assert result.status == 0
