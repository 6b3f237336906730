"""`rules --round` lists the codes that apply in that round, from its facts (attack24 L5): a
rule that needs a file the round cannot have (an Endpoints file in a round without Endpoints
facts) is left out; the bundled catalogue says the same as the registry and the rounds."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.commands import catalogue
from checker.model.views import ROUND_FACT
from checker.rounds import load_round, real_rounds

runner = CliRunner()


@pytest.mark.parametrize("name", real_rounds())
def test_every_code_listed_for_a_round_is_one_its_facts_allow(name: str) -> None:
    """Every rule and every real round: listed exactly when each round fact its needs require
    is set."""
    the_round = load_round(name)
    listed = {
        entry["code"] for entry in json.loads(runner.invoke(app, ["rules", "--round", name, "-f", "json"]).stdout)
    }
    for code, rule in catalogue.rules().items():
        required = {ROUND_FACT[need] for need in rule.needs if need in ROUND_FACT}
        assert (code in listed) == all(getattr(the_round, fact) for fact in required), code


def test_endpoints_codes_only_where_the_round_has_endpoints_results() -> None:
    """attack24 L5: 10 EPT codes were listed for v5.1 and v6.0, rounds without Endpoints."""
    counts = {}
    for name in ("v5.1", "v6.0", "v6.1"):
        lines = runner.invoke(app, ["rules", "--round", name]).stdout.splitlines()
        counts[name] = (sum(line.startswith("EPT") for line in lines), len(lines))
    assert counts == {"v5.1": (0, 88), "v6.0": (0, 88), "v6.1": (10, 98)}
    assert len(runner.invoke(app, ["rules"]).stdout.splitlines()) == 98  # without --round: every code
