"""Early stopping recomputed: the table of POLICY_FACTS section 2.2, exact arithmetic, speed."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.earlystop import min_passing, odds, server_min_queries, stream_min_queries
from checker.facts import Run
from checker.rounds import load_round


def exact_odds(h: int, t: int, p: Fraction) -> Fraction:
    """P[at most t failures in h + t trials], each failing with probability 1 - p, as a fraction."""
    n = h + t
    return sum((Fraction(math.comb(n, k)) * (1 - p) ** k * p ** (n - k) for k in range(t + 1)), Fraction(0))


def exact_passes(h: int, t: int, p: Fraction, limit: Fraction = Fraction(1, 100)) -> bool:
    """exact_odds(h, t, p) < limit, in integers: p = a/b and limit = u/v, so the odds are
    sum C(n, k) (b - a)^k a^(n-k) / b^n."""
    a, b, u, v = p.numerator, p.denominator, limit.numerator, limit.denominator
    n = h + t
    total = sum(math.comb(n, k) * (b - a) ** k * a ** (n - k) for k in range(t + 1))
    return v * total < u * b**n


def brute_min_passing(t: int, p: Fraction) -> int:
    """The first h, counting up from 1, whose exact odds are below 1/100."""
    h = 1
    while not exact_passes(h, t, p):
        h += 1
    return h


# POLICY_FACTS.md section 2.2 (minimum queries: h(t) + t for Server, h(1) + 1 for the streams).
SERVER_P99 = {0: 459, 1: 662, 2: 838, 3: 1001, 4: 1157, 5: 1307, 10: 2010, 20: 3304, 50: 6898, 100: 12571}


@pytest.mark.parametrize("t,queries", sorted(SERVER_P99.items()))
def test_server_minimum_queries_match_the_policy_table(t: int, queries: int) -> None:
    assert server_min_queries(t, 0.99) == queries


def test_stream_and_p999_minimums_match_the_policy_table() -> None:
    assert stream_min_queries(0.90) == 64  # SingleStream: "Need to process at least 64 queries"
    assert stream_min_queries(0.99) == 662  # MultiStream; mlperf.conf min_query_count 662
    assert stream_min_queries(0.999) == 6636  # SingleStream pointpainting
    assert server_min_queries(0, 0.999) == 4603


@pytest.mark.parametrize(
    "p,t,queries",
    [(Fraction(99, 100), t, q) for t, q in sorted(SERVER_P99.items())]
    + [(Fraction(9, 10), 1, 64), (Fraction(999, 1000), 1, 6636), (Fraction(999, 1000), 0, 4603)],
)
def test_each_table_minimum_is_the_exact_boundary(p: Fraction, t: int, queries: int) -> None:
    h = queries - t
    assert exact_passes(h, t, p) and not exact_passes(h - 1, t, p)


@pytest.mark.parametrize("p,largest_t", [(Fraction(99, 100), 8), (Fraction(9, 10), 40)])
def test_min_passing_equals_an_exhaustive_exact_search(p: Fraction, largest_t: int) -> None:
    for t in range(largest_t + 1):
        assert min_passing(t, float(p)) == brute_min_passing(t, p), f"t={t}, p={p}"


@pytest.mark.parametrize("p", [Fraction(99, 100), Fraction(9, 10), Fraction(1, 2)])
def test_odds_agree_with_exact_fractions(p: Fraction) -> None:
    for t in range(0, 13):
        for h in range(1, 400, 7):
            exact = exact_odds(h, t, p)
            assert odds(h, t, float(p)) == pytest.approx(float(exact), rel=1e-12, abs=1e-300), (h, t)


def test_odds_of_the_extremes() -> None:
    assert odds(0, 5, 0.99) == 1.0  # no query within the target is needed
    assert odds(459, 0, 0.99) == pytest.approx(0.99**459, rel=1e-13)
    assert odds(1, 10**6, 0.99) == pytest.approx(1.0)  # far more over the target than expected
    assert odds(10**7, 10, 0.99) == 0.0  # underflows: far fewer over the target than expected
    with pytest.raises(ValueError):
        odds(1, 1, 99.0)
    with pytest.raises(ValueError):
        min_passing(1, 0.99, confidence=1.0)


def test_large_t_is_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real Server logs have tens of thousands of queries over the target (dlrm: 61,510): the
    answer is found by a search of a few dozen evaluations, not by trying every h (counted, not
    timed: a timing depends on the machine)."""
    from checker import earlystop

    min_passing.cache_clear()
    calls = []
    real_odds = earlystop.odds
    monkeypatch.setattr(earlystop, "odds", lambda h, t, p: calls.append(h) or real_odds(h, t, p))
    h = min_passing(50000, 0.99)
    assert odds(h, 50000, 0.99) < 0.01 <= odds(h - 1, 50000, 0.99)
    assert len(calls) <= 2 * math.ceil(math.log2(h)) + 2, len(calls)
    min_passing.cache_clear()


@settings(max_examples=60, deadline=None)
@given(
    t=st.one_of(st.integers(0, 60), st.integers(0, 200_000)),
    p=st.sampled_from([0.5, 0.9, 0.97, 0.99, 0.999]),
    confidence=st.sampled_from([0.9, 0.95, 0.99]),
)
def test_min_passing_is_the_boundary_wherever_the_search_starts(t: int, p: float, confidence: float) -> None:
    """The search starts at an approximation of the answer (earlystop._guess); the answer is
    the first h whose odds are below 1 - confidence however far off that start is."""
    h = min_passing(t, p, confidence)
    assert odds(h, t, p) < 1 - confidence <= odds(h - 1, t, p)


def test_round_files_state_loadgens_constants() -> None:
    for name in ("v5.1", "v6.0", "v6.1", "demo-v6.1"):
        facts = load_round(name).run.early_stopping
        assert facts is not None and (facts.confidence, facts.tolerance) == (0.99, 0.0)
    assert Run(source="a round that does not say", min_duration_ms=1).early_stopping is None
