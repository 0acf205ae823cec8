package io.faultline.damon;

/**
 * A monitoring region, {@code struct damon_region} of include/linux/damon.h: an address range,
 * the address sampled in the current sampling interval, the number of sampling intervals of
 * the current aggregation interval in which an access was found ({@code nr_accesses}), its
 * pseudo moving sum in basis points ({@code nr_accesses_bp}, the kernel's since 6.7), the value
 * of {@code nr_accesses} at the end of the previous aggregation ({@code last_nr_accesses}), and
 * the number of aggregation intervals its access frequency has kept ({@code age}).
 * damon_new_region() of mm/damon/core.c starts every counter at 0.
 */
public final class Region
{
    long start;
    long end;
    long samplingAddr;
    int nrAccesses;
    long nrAccessesBp;
    int lastNrAccesses;
    int age;

    public Region(final long start, final long end)
    {
        this.start = start;
        this.end = end;
    }

    public long start()
    {
        return start;
    }

    public long end()
    {
        return end;
    }

    /** damon_sz_region(). */
    public long size()
    {
        return end - start;
    }

    public long samplingAddr()
    {
        return samplingAddr;
    }

    /** Set by an operations set's prepare-access-checks step. */
    public void samplingAddr(final long address)
    {
        samplingAddr = address;
    }

    public int nrAccesses()
    {
        return nrAccesses;
    }

    public long nrAccessesBp()
    {
        return nrAccessesBp;
    }

    public int lastNrAccesses()
    {
        return lastNrAccesses;
    }

    public int age()
    {
        return age;
    }

    /** Sets the age: a DAMOS action other than stat resets it to 0 (damos_apply_scheme()). */
    public void age(final int age)
    {
        this.age = age;
    }

    /** Sets the counters together, as the kunit tests do before calling a core function. */
    public Region with(final int nrAccesses, final int lastNrAccesses, final int age)
    {
        this.nrAccesses = nrAccesses;
        this.nrAccessesBp = nrAccesses * 10_000L;
        this.lastNrAccesses = lastNrAccesses;
        this.age = age;
        return this;
    }

    @Override
    public String toString()
    {
        return "[" + start + ", " + end + ") nr_accesses=" + nrAccesses + " age=" + age;
    }
}
