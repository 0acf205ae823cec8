package io.faultline.sim.mrc;

import java.util.Arrays;

import org.agrona.collections.Long2LongHashMap;

/**
 * The reuse distance and reuse time histograms of a key sequence, exact, in one pass: the
 * statistics DynamoRIO's drmemtrace tools {@code reuse_distance} and {@code reuse_time} and
 * libCacheSim's traceAnalyzer ({@code --reuse}) report.
 *
 * <ul>
 *   <li>reuse distance of a reference to a key referenced before: the number of distinct keys
 *       referenced between the two references (0 when the same key is referenced twice in a
 *       row); it is the LRU stack distance minus one ({@link StackDistances}: an LRU cache of
 *       c pages hits exactly the references whose reuse distance is below c, Mattson et al. 1970);</li>
 *   <li>reuse time: the number of references from the previous reference to the key to this one
 *       (1 when in a row), drmemtrace's {@code reuse_time} and libCacheSim's virtual-time reuse.</li>
 * </ul>
 *
 * A first reference has neither (a cold miss at every cache size); it is counted apart
 * ({@link #firstReferences()}) and appears in {@link #distances()} and {@link #times()} under
 * {@link #FIRST}.
 *
 * <p>Reports group the values into powers of two ({@link #bucket}): 0, 1, 2-3, 4-7, ..., the
 * logarithmic bins drmemtrace's and libCacheSim's plots use, because reuse times run up to the
 * trace length. Distance bucket k ends at 2^k - 1, so the re-references up to the end of bucket k
 * are the hits of an LRU memory of 2^k pages.
 */
public final class ReuseHistograms
{
    /** The value a first reference is listed under (libCacheSim's traceAnalyzer writes -1 so). */
    public static final long FIRST = -1;

    /** The power-of-two bucket of a reuse value: bucket 0 holds 0, bucket k > 0 holds 2^(k-1) to 2^k - 1. */
    public static int bucket(final long value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("a reuse value is at least 0, got " + value);
        }
        return 64 - Long.numberOfLeadingZeros(value);
    }

    /** The smallest value of bucket {@code k}. */
    public static long bucketFrom(final int k)
    {
        return k == 0 ? 0 : 1L << (k - 1);
    }

    /** The largest value of bucket {@code k} (written so that bucket 63 ends at Long.MAX_VALUE without overflow). */
    public static long bucketTo(final int k)
    {
        return k == 0 ? 0 : (1L << (k - 1)) - 1 + (1L << (k - 1));
    }

    /** Counts by value, sparse: reuse times spread over the whole trace length. */
    public static final class Histogram
    {
        private final Long2LongHashMap counts = new Long2LongHashMap(0);
        private long total;

        void add(final long value)
        {
            counts.put(value, counts.get(value) + 1);
            total++;
        }

        /** How many references have reuse {@code value} ({@link #FIRST}: first references). */
        public long count(final long value)
        {
            return counts.get(value);
        }

        /** References counted, first references included. */
        public long total()
        {
            return total;
        }

        /** The values that occur, ascending ({@link #FIRST} first if any). */
        public long[] values()
        {
            final long[] values = new long[counts.size()];
            int i = 0;
            final Long2LongHashMap.KeyIterator keys = counts.keySet().iterator();
            while (keys.hasNext())
            {
                values[i++] = keys.nextValue();
            }
            Arrays.sort(values);
            return values;
        }

        /**
         * The re-references by power-of-two {@link #bucket}, from bucket 0 to the highest one
         * holding any (empty if there are none); first references are left out.
         */
        public long[] buckets()
        {
            final long[] values = values();
            if (values.length == 0 || values[values.length - 1] == FIRST)
            {
                return new long[0];
            }
            final long[] buckets = new long[bucket(values[values.length - 1]) + 1];
            for (final long value : values)
            {
                if (value != FIRST)
                {
                    buckets[bucket(value)] += counts.get(value);
                }
            }
            return buckets;
        }

        /** The median of the re-references' values, or {@link #FIRST} if there are none. */
        public long median()
        {
            final long reused = total - counts.get(FIRST);
            long seen = 0;
            for (final long value : values())
            {
                if (value != FIRST)
                {
                    seen += counts.get(value);
                    if (2 * seen >= reused)
                    {
                        return value;
                    }
                }
            }
            return FIRST;
        }
    }

    private final StackDistances stack = new StackDistances();
    private final Long2LongHashMap lastIndex = new Long2LongHashMap(-1);
    private final Histogram distances = new Histogram();
    private final Histogram times = new Histogram();
    private long references;
    private long first;

    /** The histograms of {@code keys}, in order. */
    public static ReuseHistograms of(final long[] keys)
    {
        final ReuseHistograms histograms = new ReuseHistograms();
        for (final long key : keys)
        {
            histograms.record(key);
        }
        return histograms;
    }

    /** Counts the next reference. */
    public void record(final long key)
    {
        final long depth = stack.record(key);
        final long previous = lastIndex.put(key, references);
        if (depth == StackDistances.INFINITE)
        {
            first++;
            distances.add(FIRST);
            times.add(FIRST);
        }
        else
        {
            distances.add(depth - 1);
            times.add(references - previous);
        }
        references++;
    }

    public Histogram distances()
    {
        return distances;
    }

    public Histogram times()
    {
        return times;
    }

    public long references()
    {
        return references;
    }

    /** References to keys not referenced before: the distinct keys. */
    public long firstReferences()
    {
        return first;
    }
}
