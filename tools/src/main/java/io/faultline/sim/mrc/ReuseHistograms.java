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
 * A first reference has neither; it is counted apart ({@link #firstReferences()}) and appears in
 * {@link #distances()} and {@link #times()} under {@link #FIRST}.
 */
public final class ReuseHistograms
{
    /** The value a first reference is listed under (libCacheSim's traceAnalyzer writes -1 so). */
    public static final long FIRST = -1;

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
