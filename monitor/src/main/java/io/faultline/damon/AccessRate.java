package io.faultline.damon;

/**
 * How a region's access frequency is counted and rescaled, after mm/damon/core.c:
 * damon_update_region_access_rate(), damon_moving_sum(), and the conversions
 * damon_update_monitoring_result() makes when the intervals change.
 */
public final class AccessRate
{
    private AccessRate()
    {
    }

    /**
     * damon_moving_sum(): a pseudo moving sum that keeps no window. It assumes the last
     * window's values were all equal to its non-moving sum divided by the window length and
     * drops one of them for each new value. Unsigned 32-bit arithmetic, as the kernel's.
     */
    public static long movingSum(final long mvsum, final long nomvsum, final long lenWindow, final long newValue)
    {
        return (mvsum - nomvsum / lenWindow + newValue) & 0xFFFF_FFFFL;
    }

    /**
     * damon_update_region_access_rate(): counts one sampling interval's access check of
     * {@code region}, in nr_accesses and in the moving sum nr_accesses_bp (window = one
     * aggregation interval's samples).
     */
    public static void update(final Region region, final boolean accessed, final Attributes attrs)
    {
        final long lenWindow = attrs.sampleIntervalUs() != 0 ? attrs.maxNrAccesses() : 1;
        region.nrAccessesBp = movingSum(region.nrAccessesBp, region.lastNrAccesses * 10_000L, lenWindow,
            accessed ? 10_000 : 0);
        if (accessed)
        {
            region.nrAccesses++;
        }
    }

    /** damon_nr_accesses_to_accesses_bp(): nr_accesses as basis points of the maximum. */
    static long nrAccessesToBp(final long nrAccesses, final Attributes attrs)
    {
        return nrAccesses * 10_000 / attrs.maxNrAccesses();
    }

    /** damon_accesses_bp_to_nr_accesses(). */
    static long bpToNrAccesses(final long bp, final Attributes attrs)
    {
        return bp * attrs.maxNrAccesses() / 10_000;
    }

    /**
     * damon_update_monitoring_result(): rescales a region's nr_accesses and age to new
     * intervals, so that they keep their meaning (a fraction of the samples; a time).
     *
     * @param aggregating true if called in the middle of an aggregation interval: the partial
     *                    count is dropped and last_nr_accesses is rescaled instead
     */
    public static void rescale(final Region r, final Attributes oldAttrs, final Attributes newAttrs,
        final boolean aggregating)
    {
        if (!aggregating)
        {
            r.nrAccesses = (int)bpToNrAccesses(nrAccessesToBp(r.nrAccesses, oldAttrs), newAttrs);
            r.nrAccessesBp = r.nrAccesses * 10_000L;
        }
        else
        {
            r.lastNrAccesses = (int)bpToNrAccesses(nrAccessesToBp(r.lastNrAccesses, oldAttrs), newAttrs);
            r.nrAccessesBp = r.lastNrAccesses * 10_000L;
            r.nrAccesses = 0;
        }
        r.age = (int)(r.age * oldAttrs.aggrIntervalUs() / newAttrs.aggrIntervalUs());
    }
}
