package io.faultline.damon;

import java.util.SplittableRandom;

/**
 * The core's source of randomness: damon_rand(l, r) of mm/damon/core.c, a uniform value in
 * {@code [l, r)}. Sampling addresses and split sizes come from here, so a context built with
 * the same seed makes the same choices and tests are deterministic.
 */
public interface DamonRandom
{
    /** A uniform value in {@code [low, high)}; {@code low} if the range is empty. */
    long rand(long low, long high);

    /** A generator seeded with {@code seed} (java.util.SplittableRandom). */
    static DamonRandom seeded(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        return (low, high) -> high <= low ? low : low + random.nextLong(high - low);
    }
}
