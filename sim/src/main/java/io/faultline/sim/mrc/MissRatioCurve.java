package io.faultline.sim.mrc;

/**
 * LRU misses at every cache size from 1 to {@link #maxSize()} pages for one trace. A curve
 * computed to its end stops where every key fits (the distinct keys): larger caches miss as
 * often, only on first references.
 *
 * @param label    what the curve is of: "LRU" or a thread
 * @param requests references in the trace
 * @param distinct distinct keys (estimated when sampled)
 * @param misses   misses[c - 1] = misses of an LRU cache of c pages (estimated when sampled)
 */
public record MissRatioCurve(String label, long requests, long distinct, long[] misses)
{
    public int maxSize()
    {
        return misses.length;
    }

    /** Misses of an LRU cache holding {@code size} pages, {@code 1 <= size <= maxSize()}. */
    public long misses(final int size)
    {
        return misses[size - 1];
    }

    public double missRatio(final int size)
    {
        return (double)misses(size) / requests;
    }

    public MissRatioCurve withLabel(final String newLabel)
    {
        return new MissRatioCurve(newLabel, requests, distinct, misses);
    }
}
