package io.faultline.sim.mrc;

import java.util.OptionalInt;

/**
 * The exact LRU miss-ratio curve of a reference stream, built one reference at a time: the
 * stack distances of {@link StackDistances} (Mattson et al. 1970) counted by distance, from which
 * the misses at every size follow. {@link MissRatioCurves#exact} runs it over a whole trace;
 * {@code record --live} runs it as the references arrive and reads the curve while it grows.
 * Single-threaded: one thread records and reads.
 */
public final class LruCurve
{
    private final StackDistances distances = new StackDistances();
    private final MissRatioCurves.DistanceHistogram histogram = new MissRatioCurves.DistanceHistogram();
    private long references;

    /** Records a reference to {@code key}; returns its stack distance, or {@link StackDistances#INFINITE}. */
    public long record(final long key)
    {
        references++;
        final long distance = distances.record(key);
        histogram.add(distance);
        return distance;
    }

    public long references()
    {
        return references;
    }

    /** Distinct keys so far: from this size on every key fits and only first references miss. */
    public int distinct()
    {
        return distances.distinct();
    }

    /**
     * Misses so far of LRU caches of each of {@code sizes} pages (ascending, each at least 1), in
     * one pass over the distances up to the largest.
     */
    public long[] misses(final int[] sizes)
    {
        final long[] misses = new long[sizes.length];
        long hits = 0;
        int distance = 0;
        for (int i = 0; i < sizes.length; i++)
        {
            final int to = Math.min(sizes[i], distinct());
            while (distance < to)
            {
                distance++;
                hits += histogram.count(distance);
            }
            misses[i] = references - hits;
        }
        return misses;
    }

    /**
     * The curve so far.
     *
     * @param maxSize the largest size to report; empty, or more than the number of distinct keys,
     *                means that number, beyond which the curve is flat
     */
    public MissRatioCurve curve(final OptionalInt maxSize)
    {
        // From the distinct keys on, every key fits and only first references miss: larger sizes add nothing.
        final int sizes = Math.min(maxSize.orElse(Integer.MAX_VALUE), Math.max(1, distinct()));
        final long[] misses = new long[sizes];
        long hits = 0;
        for (int size = 1; size <= sizes; size++)
        {
            hits += histogram.count(size);
            misses[size - 1] = references - hits;
        }
        return new MissRatioCurve("LRU", references, distinct(), misses);
    }
}
