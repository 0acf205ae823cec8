package io.faultline.damon.schemes;

import io.faultline.damon.Region;

/**
 * The access pattern of a scheme, {@code struct damos_access_pattern} of include/linux/damon.h:
 * inclusive ranges of region size (bytes), access frequency (nr_accesses, sampling intervals per
 * aggregation interval) and age (aggregation intervals). Unbounded ends are {@link #MAX}.
 * Documentation/mm/damon/design.rst, "Target Access Pattern".
 */
public record AccessPattern(long minSz, long maxSz, long minNrAccesses, long maxNrAccesses, long minAge, long maxAge)
{
    /** "max": the kernel's ULONG_MAX / UINT_MAX, any value. */
    public static final long MAX = Long.MAX_VALUE;

    /** Every region: damo's default pattern. */
    public static final AccessPattern ANY = new AccessPattern(0, MAX, 0, MAX, 0, MAX);

    /**
     * __damos_valid_target() of mm/damon/core.c. The frequency compared is the moving sum's whole
     * samples (nr_accesses_bp / 10000), which equals nr_accesses at the end of an aggregation and
     * keeps a meaning when a scheme's apply interval ends in the middle of one.
     */
    public boolean matches(final Region r)
    {
        final long sz = r.size();
        final long nrAccesses = r.nrAccessesBp() / 10_000;
        return minSz <= sz && sz <= maxSz && minNrAccesses <= nrAccesses && nrAccesses <= maxNrAccesses
            && minAge <= r.age() && r.age() <= maxAge;
    }

    /** @return null if every range has its minimum at most its maximum, else which does not */
    public String problem()
    {
        if (minSz > maxSz)
        {
            return "the size range is reversed (" + minSz + " > " + maxSz + " bytes); give sz=MIN-MAX with MIN <= MAX";
        }
        if (minNrAccesses > maxNrAccesses)
        {
            return "the nr_accesses range is reversed (" + minNrAccesses + " > " + maxNrAccesses
                + " samples); give nr_accesses=MIN-MAX with MIN <= MAX";
        }
        if (minAge > maxAge)
        {
            return "the age range is reversed (" + minAge + " > " + maxAge
                + " aggregation intervals); give age=MIN-MAX with MIN <= MAX";
        }
        return null;
    }
}
