"""Loadgen's early-stopping arithmetic: how many queries a run needs before its latency
percentile counts as met. Pure functions of numbers; no I/O.

A run meets percentile p (0.99 for Server) with confidence c when, had only a fraction p of
all queries been within the target, a run of h + t queries with at most t of them over the
target would have been less likely than 1 - c:

    odds(h, t, p) = P[X <= t] for X ~ Binomial(h + t, 1 - p)
                  = P[Binomial(h + t, p) >= h] = BetaRegularized(p, h, t + 1)

`min_passing(t, p, c)` is the smallest h with odds(h, t, p) < 1 - c; odds falls as h grows,
so it is found by bisection. Loadgen (loadgen/results.cc, PerformanceSummary::EarlyStopping)
uses it twice:

- Server: with t queries over the target, the run needs h(t) + t queries.
- SingleStream and MultiStream: the run fails only when it issued fewer than h(1) + 1.

The odds are summed in floating point from the largest term outwards, relative to that term,
and the sum stops once the rest of the (geometric) tail cannot change it. The largest term's
logarithm is written as Stirling's series plus the deviances k log(k / nq) + nq - k (Loader,
"Fast and accurate computation of binomial probabilities", 2000), not as a difference of
lgamma values near 10^9 that would lose eight digits: the odds come out to about 1e-13, so
h is exact unless the odds lie within that of 1 - c.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

_TAIL = 2.0**-60  # the sum stops when the rest of the tail is below this fraction of it


def odds(h: int, t: int, p: float) -> float:
    """P[at most t of h + t queries over the target], were each within it with probability p."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"percentile {p!r} is not strictly between 0 and 1")
    if h < 0 or t < 0:
        raise ValueError(f"counts must not be negative (h={h}, t={t})")
    if h == 0:
        return 1.0
    n, q = h + t, 1.0 - p
    # Terms f(k) = C(n, k) q^k p^(n-k), k = 0..t, rise to the mode floor((n+1) q) and fall after it.
    peak = min(t, int((n + 1) * q))
    log_peak = _log_binomial_term(n, peak, p, q)
    total = 1.0
    term, k = 1.0, peak
    while k > 0:  # downwards: f(k-1)/f(k) = k p / ((n-k+1) q), falling as k falls
        ratio = k * p / ((n - k + 1) * q)
        term *= ratio
        total += term
        if ratio < 1.0 and term * ratio < _TAIL * total * (1.0 - ratio):
            break
        k -= 1
    term, k = 1.0, peak
    while k < t:  # upwards (only when the mode is below t): f(k+1)/f(k) = (n-k) q / ((k+1) p)
        ratio = (n - k) * q / ((k + 1) * p)
        term *= ratio
        total += term
        if ratio < 1.0 and term * ratio < _TAIL * total * (1.0 - ratio):
            break
        k += 1
    return min(1.0, math.exp(log_peak) * total)


def _stirling_error(m: int) -> float:
    """log(m!) - log(sqrt(2 pi m) (m / e)^m): small, and known to 1e-16 from its series."""
    if m < 16:
        return math.lgamma(m + 1) - (m + 0.5) * math.log(m) + m - 0.5 * math.log(2 * math.pi)
    inverse = 1.0 / m
    square = inverse * inverse
    return inverse * (1 / 12 - square * (1 / 360 - square * (1 / 1260 - square * (1 / 1680 - square / 1188))))


def _deviance(x: int, mean: float) -> float:
    """x log(x / mean) + mean - x, with the logarithm taken near 1 without cancellation."""
    return x * math.log1p((x - mean) / mean) + (mean - x)


def _log_binomial_term(n: int, k: int, p: float, q: float) -> float:
    """log of C(n, k) q^k p^(n-k), for 0 <= k < n."""
    if k == 0:
        return n * math.log(p)
    return (
        _stirling_error(n)
        - _stirling_error(k)
        - _stirling_error(n - k)
        - _deviance(k, n * q)
        - _deviance(n - k, n * p)
        + 0.5 * math.log(n / (2 * math.pi * k * (n - k)))
    )


@functools.lru_cache(maxsize=4096)
def min_passing(t: int, p: float, confidence: float = 0.99) -> int:
    """The smallest h with odds(h, t, p) < 1 - confidence (strictly)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence {confidence!r} is not strictly between 0 and 1")
    limit = 1.0 - confidence

    def passes(h: int) -> bool:
        return odds(h, t, p) < limit

    # Bracketed around the approximation's answer (`_guess`: off by about 0.35 / (t + 1) of
    # its spread), widened until the lower end fails and the upper passes: a few evaluations
    # of odds where a search up from t p / (1 - p) took twenty (t = 10,000: 4, not 21). odds
    # falls as h grows, so the bisection's answer does not depend on the bracket; h = 0
    # always fails (odds 1).
    guess, spread = _guess(t, p, confidence)
    width = max(2, math.ceil(0.4 * spread / (t + 1)))
    low, high = max(0, guess - width), guess + width
    while low > 0 and passes(low):  # low fails, or is 0
        low, high, width = max(0, low - 2 * width), low, 2 * width
    while not passes(high):  # high passes
        low, high, width = high, high + 2 * width, 2 * width
    while high - low > 1:  # low fails, high passes
        middle = (low + high) // 2
        if passes(middle):
            high = middle
        else:
            low = middle
    return high


def _guess(t: int, p: float, confidence: float) -> tuple[int, float]:
    """The h of the normal approximation to the binomial (with continuity correction) at which
    P[at most t of h + t over the target] is 1 - confidence, and the spread of h there (the
    standard deviation of the count within the target, in queries): a starting point only."""
    q = 1.0 - p
    z = NormalDist().inv_cdf(confidence)
    # Cornish-Fisher: the binomial's lower quantile lies (z^2 - 1) (p - q) / 6 below the normal's.
    shifted = max(0.0, t + 0.5 - (z * z - 1.0) * (p - q) / 6.0)
    root = (z * math.sqrt(p * q) + math.sqrt(z * z * p * q + 4.0 * q * shifted)) / (2.0 * q)
    n = root * root
    return max(1, round(n - t)), math.sqrt(n * p * q) / q


def server_min_queries(t: int, p: float, confidence: float = 0.99) -> int:
    """Queries a Server run with t over the target needs for early stopping: h(t) + t."""
    return min_passing(t, p, confidence) + t


def stream_min_queries(p: float, confidence: float = 0.99) -> int:
    """Queries a SingleStream or MultiStream run needs before early stopping is met: h(1) + 1."""
    return min_passing(1, p, confidence) + 1
