package io.faultline.sim.trace;

import java.util.Arrays;

import org.agrona.collections.Long2LongHashMap;

/**
 * The references an export holds until its end, because each record names the next reference
 * to the same page (libCacheSim's next_access_vtime): page, time in whole seconds and one int
 * of the format's own (lcs: op and tenant), 16 bytes per reference.
 */
final class HeldReferences
{
    /** A page with no later reference. */
    static final long NO_NEXT_ACCESS = -1;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long UINT32_MAX = 0xffff_ffffL;

    private final String format;
    long[] keys = new long[1 << 12];
    int[] seconds = new int[1 << 12];
    int[] tags = new int[1 << 12];
    int size;

    /** @param format the export's name, for the message when the arrays are full */
    HeldReferences(final String format)
    {
        this.format = format;
    }

    void add(final long key, final long timeNs, final int tag)
    {
        if (size == keys.length)
        {
            if (size == Integer.MAX_VALUE - 8)
            {
                throw new TraceException(format + " export holds at most " + size
                    + " references; export a part with --pid or --tid");
            }
            final int capacity = (int)Math.min(Integer.MAX_VALUE - 8L, 2L * size);
            keys = Arrays.copyOf(keys, capacity);
            seconds = Arrays.copyOf(seconds, capacity);
            tags = Arrays.copyOf(tags, capacity);
        }
        keys[size] = key;
        seconds[size] = (int)Math.min(UINT32_MAX, Math.max(0, timeNs) / NANOS_PER_SECOND);
        tags[size] = tag;
        size++;
    }

    /**
     * For each reference, the 1-based index of the next reference to the same key, or
     * {@link #NO_NEXT_ACCESS}: one backward pass, as libCacheSim's traceConv computes it.
     */
    long[] nextAccesses()
    {
        final long[] next = new long[size];
        final Long2LongHashMap laterIndex = new Long2LongHashMap(NO_NEXT_ACCESS);
        for (int i = size - 1; i >= 0; i--)
        {
            final long later = laterIndex.put(keys[i], i);
            next[i] = later == NO_NEXT_ACCESS ? NO_NEXT_ACCESS : later + 1;
        }
        return next;
    }
}
