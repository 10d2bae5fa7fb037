"""What the side-by-side benches share: the tolerance rule and the bootstrap interval of a
difference of medians (fixed seed, so a table is reproducible from its raw numbers)."""
import statistics


def within_tolerance(ref_us, other_us):
    """True when other is within max(1 %, 0.3 us) of ref: the rule every bench here states."""
    return abs(other_us - ref_us) <= max(0.01 * ref_us, 0.3)


def ci95(a, b, rng):
    """95 % bootstrap interval (2000 resamples) of median(b) - median(a)."""
    d = sorted(statistics.median(rng.choices(b, k=len(b))) - statistics.median(rng.choices(a, k=len(a)))
               for _ in range(2000))
    return d[50], d[1949]
