package io.faultline.sim.mrc;

import java.util.Arrays;
import java.util.OptionalInt;
import java.util.concurrent.atomic.LongAdder;

/**
 * Builds LRU miss-ratio curves from a trace in one pass: exactly, or estimated from a spatially
 * hashed sample of the keys (SHARDS: Waldspurger, Park, Garthwaite and Ahmad, "Efficient MRC
 * Construction with SHARDS", FAST 2015).
 *
 * <p>SHARDS with fixed rate R keeps the references to keys with {@code hash(key) mod P < R * P}
 * (P = 2^24), computes their exact stack distances among themselves and scales each distance by
 * 1/R. The SHARDS_adj correction of section 4.3 adds the difference between the expected and
 * the actual number of sampled references, R*N - Ns, to the smallest distance, which removes
 * most of the bias that a few hot keys falling in or out of the sample cause.
 *
 * <p>Measured error: the mean absolute error (MAE) of the miss ratio over sizes 1..distinct
 * against the exact curve, at R = 0.1, is 0.0148 on cloudPhysicsIO (113,872 references, 48,974
 * keys) and 0.0020 on the gzip address trace (481,044 references, 39,856 pages); at R = 0.01,
 * 0.0267 and 0.0074. Over 20 hash seeds (keys remapped by a bijection) the R = 0.1 MAE averaged
 * 0.011 (worst 0.022) and 0.0013 (worst 0.0031): the error is that of a sample of a few thousand
 * keys, and shrinks as traces grow. {@code MissRatioCurvesTest} holds both traces under
 * {@link #SHARDS_ERROR_BOUND_AT_TENTH}. Sizes below 1/R pages cannot be resolved (a sampled
 * distance of 1 stands for 1/R), so the estimate there is pessimistic: the largest pointwise
 * error is at those sizes on traces with very hot pages.
 */
public final class MissRatioCurves
{
    /** Mean absolute miss-ratio error at rate 0.1 the tests allow on the two reference traces. */
    public static final double SHARDS_ERROR_BOUND_AT_TENTH = 0.025;

    /** References between two updates of a progress count: rare enough to cost nothing. */
    static final int PROGRESS_BLOCK = 1 << 16;

    static final int MODULUS_BITS = 24;
    static final long MODULUS = 1L << MODULUS_BITS;

    private MissRatioCurves()
    {
    }

    /**
     * The exact LRU curve.
     *
     * @param maxSize the largest size to report; empty, or more than the number of distinct keys,
     *                means that number, beyond which the curve is flat
     */
    public static MissRatioCurve exact(final long[] trace, final OptionalInt maxSize)
    {
        return exact(trace, maxSize, new LongAdder());
    }

    /** {@link #exact(long[], OptionalInt)}, adding to {@code progress} the references done as it goes. */
    public static MissRatioCurve exact(final long[] trace, final OptionalInt maxSize, final LongAdder progress)
    {
        final LruCurve curve = new LruCurve();
        for (int from = 0; from < trace.length; from += PROGRESS_BLOCK)
        {
            final int to = Math.min(trace.length, from + PROGRESS_BLOCK);
            for (int i = from; i < to; i++)
            {
                curve.record(trace[i]);
            }
            progress.add(to - from);
        }
        return curve.curve(maxSize);
    }

    /**
     * The SHARDS estimate of the LRU curve at sampling rate {@code rate}, 0 &lt; rate &lt;= 1.
     *
     * @param maxSize the largest size to report; empty, or more than the sampled distinct keys over
     *                the rate, means that number, beyond which the estimate is flat
     */
    public static MissRatioCurve shards(final long[] trace, final double rate, final OptionalInt maxSize)
    {
        return shards(trace, rate, maxSize, new LongAdder());
    }

    /** {@link #shards(long[], double, OptionalInt)}, adding to {@code progress} the references done as it goes. */
    public static MissRatioCurve shards(final long[] trace, final double rate, final OptionalInt maxSize,
        final LongAdder progress)
    {
        if (!(rate > 0 && rate <= 1))
        {
            throw new IllegalArgumentException("sampling rate must be in (0, 1]: rate=" + rate);
        }
        final long threshold = Math.max(1, Math.round(rate * MODULUS));
        final double effectiveRate = (double)threshold / MODULUS;
        final StackDistances distances = new StackDistances();
        final DistanceHistogram histogram = new DistanceHistogram();
        long sampled = 0;
        for (int from = 0; from < trace.length; from += PROGRESS_BLOCK)
        {
            final int to = Math.min(trace.length, from + PROGRESS_BLOCK);
            for (int i = from; i < to; i++)
            {
                if (sampled(trace[i], threshold))
                {
                    sampled++;
                    histogram.add(distances.record(trace[i]));
                }
            }
            progress.add(to - from);
        }
        final double expected = trace.length * effectiveRate;
        final long distinct = Math.round(distances.distinct() / effectiveRate);
        // From the sampled distinct keys over R on, every sampled distance is a hit: the estimate is flat.
        final long flat = (long)Math.ceil(distances.distinct() / effectiveRate - 1e-9);
        final int sizes = (int)Math.min(maxSize.orElse(Integer.MAX_VALUE), Math.max(1, Math.min(Integer.MAX_VALUE - 8, flat)));
        final long[] misses = new long[sizes];
        // Sampled distance d stands for distance d / R: a hit at size c iff d <= c * R.
        double hits = 0;
        int counted = 0;
        for (int size = 1; size <= sizes; size++)
        {
            final int reach = (int)Math.min(Integer.MAX_VALUE, (long)Math.floor(size * effectiveRate + 1e-9));
            while (counted < reach)
            {
                counted++;
                hits += histogram.count(counted);
                if (counted == 1)
                {
                    hits += expected - sampled;
                }
            }
            final double ratio = expected == 0 ? 1.0 : Math.min(1.0, Math.max(0.0, 1.0 - hits / expected));
            misses[size - 1] = Math.round(ratio * trace.length);
        }
        return new MissRatioCurve("LRU (SHARDS R=" + rate + ")", trace.length, distinct, misses);
    }

    /**
     * The references of {@code trace} to the keys SHARDS keeps at rate {@code rate}, in order:
     * the spatial sample that mini-simulations (MINISIM) replay through any policy, with the
     * cache scaled by the same rate (Waldspurger, Saemundsson, Ahmad and Park, "Cache Modeling
     * and Optimization using Miniature Simulations", USENIX ATC 2017).
     *
     * @return the sampled references, and in {@code [0]} of {@code effectiveRate} the rate the
     *         hash threshold gives (rate rounded to a multiple of 2^-24)
     */
    public static long[] spatialSample(final long[] trace, final double rate, final double[] effectiveRate)
    {
        if (!(rate > 0 && rate <= 1))
        {
            throw new IllegalArgumentException("sampling rate must be in (0, 1]: rate=" + rate);
        }
        final long threshold = Math.max(1, Math.round(rate * MODULUS));
        effectiveRate[0] = (double)threshold / MODULUS;
        int kept = 0;
        for (final long key : trace)
        {
            if (sampled(key, threshold))
            {
                kept++;
            }
        }
        final long[] sample = new long[kept];
        int at = 0;
        for (final long key : trace)
        {
            if (sampled(key, threshold))
            {
                sample[at++] = key;
            }
        }
        return sample;
    }

    static boolean sampled(final long key, final long threshold)
    {
        return (mix(key) & (MODULUS - 1)) < threshold;
    }

    /** The splitmix64 finaliser: spreads sequential block and page numbers over the modulus. */
    static long mix(final long key)
    {
        long z = key + 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Counts of references by finite stack distance. */
    static final class DistanceHistogram
    {
        private long[] counts = new long[1 << 10];

        void add(final long distance)
        {
            if (distance == StackDistances.INFINITE)
            {
                return;
            }
            if (distance >= counts.length)
            {
                counts = Arrays.copyOf(counts, (int)Math.max(distance + 1, (long)counts.length * 2));
            }
            counts[(int)distance]++;
        }

        long count(final int distance)
        {
            return distance < counts.length ? counts[distance] : 0;
        }
    }
}
