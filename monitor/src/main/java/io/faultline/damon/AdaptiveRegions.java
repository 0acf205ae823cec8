package io.faultline.damon;

import java.util.List;

/**
 * Adaptive regions adjustment (Documentation/mm/damon/design.rst, "Adaptive Target Regions
 * Adjustment"), rule for rule after mm/damon/core.c: at the end of each aggregation interval
 * adjacent regions whose access frequencies differ by no more than a threshold are merged, as
 * long as the merged region stays within a size limit that keeps the number of regions at or
 * above the minimum; then, while the total stays at most half the maximum, every region is
 * split into two (or three, when the number of regions did not change since the last split)
 * randomly sized pieces. Age is reset when nr_accesses changed beyond the threshold since the
 * previous aggregation, and incremented otherwise.
 */
public final class AdaptiveRegions
{
    private AdaptiveRegions()
    {
    }

    private static long alignDown(final long value, final long align)
    {
        return value - Math.floorMod(value, align);
    }

    /**
     * damon_merge_two_regions(): merges the region at {@code index} with the next one; the
     * merged nr_accesses and age are the size-weighted averages (integer division).
     */
    public static void mergeTwo(final Target t, final int index)
    {
        final Region l = t.regions.get(index);
        final Region r = t.regions.get(index + 1);
        final long szL = l.size();
        final long szR = r.size();
        l.nrAccesses = (int)((l.nrAccesses * szL + r.nrAccesses * szR) / (szL + szR));
        l.nrAccessesBp = l.nrAccesses * 10_000L;
        l.age = (int)((l.age * szL + r.age * szR) / (szL + szR));
        l.end = r.end;
        t.regions.remove(index + 1);
    }

    /**
     * damon_merge_regions_of(): one pass over a target's regions, updating each region's age
     * and merging it into the previous one if they touch, their nr_accesses differ by at most
     * {@code thres} and their total size is at most {@code szLimit}.
     */
    public static void mergeRegionsOf(final Target t, final int thres, final long szLimit)
    {
        final List<Region> regions = t.regions;
        int prev = -1;
        int i = 0;
        while (i < regions.size())
        {
            final Region r = regions.get(i);
            if (Math.abs(r.nrAccesses - r.lastNrAccesses) > thres)
            {
                r.age = 0;
            }
            else
            {
                r.age++;
            }
            final Region p = prev >= 0 ? regions.get(prev) : null;
            if (p != null && p.end == r.start && Math.abs(p.nrAccesses - r.nrAccesses) <= thres
                && p.size() + r.size() <= szLimit)
            {
                mergeTwo(t, prev);
            }
            else
            {
                prev = i;
                i++;
            }
        }
    }

    /**
     * kdamond_merge_regions(): merges every target's regions with {@code threshold}, and while
     * more regions remain than the maximum, doubles the threshold and merges again (up to the
     * largest possible nr_accesses).
     */
    public static void mergeRegions(final DamonContext c, final int threshold, final long szLimit)
    {
        final long maxThres = c.attrs().aggrIntervalUs() / Math.max(c.attrs().sampleIntervalUs(), 1);
        int thres = threshold;
        int nrRegions;
        do
        {
            nrRegions = 0;
            for (final Target t : c.targets())
            {
                mergeRegionsOf(t, thres, szLimit);
                nrRegions += t.nrRegions();
            }
            thres = Math.max(1, thres * 2);
        }
        while (nrRegions > c.attrs().maxNrRegions() && thres / 2 < maxThres);
    }

    /**
     * damon_split_region_at(): cuts the region at {@code index} after {@code szR} bytes; the new
     * right part copies every counter.
     */
    public static void splitRegionAt(final Target t, final int index, final long szR)
    {
        final Region r = t.regions.get(index);
        final Region right = new Region(r.start + szR, r.end);
        r.end = right.start;
        right.age = r.age;
        right.lastNrAccesses = r.lastNrAccesses;
        right.nrAccessesBp = r.nrAccessesBp;
        right.nrAccesses = r.nrAccesses;
        t.regions.add(index + 1, right);
    }

    /**
     * damon_split_regions_of(): splits every region of {@code t} into up to {@code nrSubs}
     * pieces; each cut leaves a left piece of 10% to 90% of what is left (a random tenth,
     * aligned down to {@code minRegion}); regions of at most two minimal regions stay whole.
     */
    public static void splitRegionsOf(final Target t, final int nrSubs, final long minRegion, final DamonRandom random)
    {
        int i = 0;
        while (i < t.regions.size())
        {
            final Region r = t.regions.get(i);
            long szRegion = r.size();
            int pieces = 1;
            for (int s = 0; s < nrSubs - 1 && szRegion > 2 * minRegion; s++)
            {
                final long szSub = alignDown(random.rand(1, 10) * szRegion / 10, minRegion);
                if (szSub == 0 || szSub >= szRegion)
                {
                    continue;
                }
                splitRegionAt(t, i, szSub);
                pieces++;
                szRegion = szSub;
            }
            // The kernel's loop continues with the region that followed the original one.
            i += pieces;
        }
    }

    /**
     * kdamond_split_regions(): splits when the total number of regions is at most half the
     * maximum; into three pieces if the total has not changed since the last split and is
     * below a third of the maximum, else into two.
     */
    public static void splitRegions(final DamonContext ctx)
    {
        int nrRegions = 0;
        for (final Target t : ctx.targets())
        {
            nrRegions += t.nrRegions();
        }
        if (nrRegions > ctx.attrs().maxNrRegions() / 2)
        {
            return;
        }
        int nrSubregions = 2;
        if (ctx.lastNrRegions == nrRegions && nrRegions < ctx.attrs().maxNrRegions() / 3)
        {
            nrSubregions = 3;
        }
        for (final Target t : ctx.targets())
        {
            splitRegionsOf(t, nrSubregions, ctx.minRegionSize(), ctx.random());
        }
        ctx.lastNrRegions = nrRegions;
    }

    /**
     * damon_region_sz_limit(): the largest region a merge may make, the total monitored size
     * divided by the minimum number of regions, at least one minimal region.
     */
    public static long regionSizeLimit(final DamonContext ctx)
    {
        long sz = 0;
        for (final Target t : ctx.targets())
        {
            for (final Region r : t.regions)
            {
                sz += r.size();
            }
        }
        if (ctx.attrs().minNrRegions() != 0)
        {
            sz /= ctx.attrs().minNrRegions();
        }
        return Math.max(sz, ctx.minRegionSize());
    }

    /**
     * kdamond_reset_aggregated(): at the end of an aggregation, nr_accesses becomes
     * last_nr_accesses and starts again from 0. Like damon_warn_fix_nr_accesses_corruption(),
     * the moving sum is set back to nr_accesses first if they disagree.
     */
    public static void resetAggregated(final DamonContext ctx)
    {
        for (final Target t : ctx.targets())
        {
            for (final Region r : t.regions)
            {
                if (r.nrAccessesBp != r.nrAccesses * 10_000L)
                {
                    r.nrAccessesBp = r.nrAccesses * 10_000L;
                }
                r.lastNrAccesses = r.nrAccesses;
                r.nrAccesses = 0;
            }
        }
    }
}
