package io.faultline.tools.sql;

/**
 * A set of pairs of longs, the first never 0, open addressing with linear probing over one array
 * (a pair's two longs side by side: one cache line a probe): what counts distinct pages per
 * thread, process and mapping in one pass (a boxed set would allocate for every reference).
 * {@link #add} may also keep a value with a pair, which {@link #value} gives back.
 */
final class PairSet
{
    private final int width;
    /** {@code width} longs a slot: first (0: empty), second, then the value if any. */
    private long[] slots;
    private int mask;
    private int size;
    /** The slot of the last {@link #add}, in longs. */
    private int last;

    /** @param values whether each pair keeps a value */
    PairSet(final boolean values)
    {
        width = values ? 3 : 2;
        slots = new long[width << 12];
        mask = (1 << 12) - 1;
    }

    /** Adds the pair; true if it was not there. Either way {@link #value} is then its value. */
    boolean add(final long first, final long second)
    {
        int i = slot(first, second);
        while (true)
        {
            final int at = i * width;
            final long f = slots[at];
            if (f == 0)
            {
                slots[at] = first;
                slots[at + 1] = second;
                last = at;
                if (++size * 2 > mask + 1)
                {
                    grow();
                    find(first, second);
                }
                return true;
            }
            if (f == first && slots[at + 1] == second)
            {
                last = at;
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /** The value of the pair last added. */
    long value()
    {
        return slots[last + 2];
    }

    void value(final long value)
    {
        slots[last + 2] = value;
    }

    private void find(final long first, final long second)
    {
        int i = slot(first, second);
        while (slots[i * width] != first || slots[i * width + 1] != second)
        {
            i = (i + 1) & mask;
        }
        last = i * width;
    }

    private int slot(final long first, final long second)
    {
        long h = first * 0x9E3779B97F4A7C15L + second;
        h *= 0xC2B2AE3D27D4EB4FL;
        return (int)(h ^ h >>> 31) & mask;
    }

    private void grow()
    {
        final long[] old = slots;
        slots = new long[old.length * 2];
        mask = mask * 2 + 1;
        for (int at = 0; at < old.length; at += width)
        {
            if (old[at] != 0)
            {
                int i = slot(old[at], old[at + 1]);
                while (slots[i * width] != 0)
                {
                    i = (i + 1) & mask;
                }
                System.arraycopy(old, at, slots, i * width, width);
            }
        }
    }
}
