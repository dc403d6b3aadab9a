"""Statistics the benchmark scripts' summaries share (startup.sh, metrics-overhead.sh).

Plain Python 3, no packages: the scripts import it from benchmarks/ (their working directory is the
repository root).
"""
import math


def pct(values, p):
    """The p-th percentile, linear interpolation between closest ranks (numpy's default, R's type 7)."""
    v = sorted(values)
    k = (len(v) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def median_ci(values, level=0.95):
    """Distribution-free confidence interval of a median from order statistics (binomial).

    Returns (low, high), or None when there are too few values for one at this level (under 6 for 95%).
    """
    v = sorted(values)
    n = len(v)
    cdf, k = 0.0, 0
    while True:
        nxt = cdf + math.comb(n, k) / 2 ** n
        if nxt > (1 - level) / 2:
            break
        cdf, k = nxt, k + 1
    if k == 0:
        return None
    return v[k - 1], v[n - k]
