package io.faultline.damon;

/**
 * An address range {@code [start, end)}: {@code struct damon_addr_range} of include/linux/damon.h.
 * Addresses are unsigned 64-bit values held in longs; user-space addresses on x86-64 stay below
 * 2^47, so signed comparisons are exact for them.
 */
public record AddressRange(long start, long end)
{
    public AddressRange
    {
        if (end < start)
        {
            throw new IllegalArgumentException("address range ends before it starts: [" + start + ", " + end + ")");
        }
    }

    public long size()
    {
        return end - start;
    }

    /** damon_intersect() of mm/damon/core.c. */
    public boolean intersects(final long otherStart, final long otherEnd)
    {
        return !(otherEnd <= start || end <= otherStart);
    }
}
