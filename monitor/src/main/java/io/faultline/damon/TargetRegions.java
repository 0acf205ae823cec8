package io.faultline.damon;

import java.util.ArrayList;
import java.util.List;

/**
 * damon_set_regions() of mm/damon/core.c: fits a target's regions to new address ranges
 * (sorted, not overlapping), keeping the counters of regions that still intersect them. This
 * is how an operations set follows an address space that changes (the three regions of a
 * process, every operations-update interval).
 */
public final class TargetRegions
{
    private TargetRegions()
    {
    }

    private static long alignDown(final long value, final long align)
    {
        return value - Math.floorMod(value, align);
    }

    private static long alignUp(final long value, final long align)
    {
        return alignDown(value + align - 1, align);
    }

    /**
     * Removes regions that intersect no range; then, for each range, resizes the first and last
     * regions intersecting it to its bounds (aligned to {@code minRegion}) and fills the holes
     * between them with new regions, or, if none intersects, inserts a new region for it.
     */
    public static void set(final Target t, final List<AddressRange> ranges, final long minRegion)
    {
        final List<Region> regions = t.regions;
        regions.removeIf(r -> ranges.stream().noneMatch(range -> range.intersects(r.start, r.end)));

        int r = 0;
        for (final AddressRange range : ranges)
        {
            int first = -1;
            int last = -1;
            for (; r < regions.size(); r++)
            {
                final Region region = regions.get(r);
                if (range.intersects(region.start, region.end))
                {
                    if (first < 0)
                    {
                        first = r;
                    }
                    last = r;
                }
                if (region.start >= range.end())
                {
                    break;
                }
            }
            if (first < 0)
            {
                regions.add(r, new Region(alignDown(range.start(), minRegion), alignUp(range.end(), minRegion)));
                // The kernel's cursor stays on the region it stopped at, now one further.
                r++;
            }
            else
            {
                regions.get(first).start = alignDown(range.start(), minRegion);
                regions.get(last).end = alignUp(range.end(), minRegion);
                // damon_fill_regions_holes()
                for (int i = first; i < last; i++)
                {
                    final Region left = regions.get(i);
                    final Region next = regions.get(i + 1);
                    if (left.end != next.start)
                    {
                        regions.add(i + 1, new Region(left.end, next.start));
                        last++;
                        r++;
                        i++;
                    }
                }
            }
        }
    }

    /** The parts of {@code ranges} (in address order) that no region of {@code regions} (in address order) covers. */
    public static List<AddressRange> uncovered(final List<Region> regions, final List<AddressRange> ranges)
    {
        final List<AddressRange> out = new ArrayList<>();
        int i = 0;
        for (final AddressRange range : ranges)
        {
            long at = range.start();
            while (at < range.end())
            {
                while (i < regions.size() && regions.get(i).end() <= at)
                {
                    i++;
                }
                if (i == regions.size() || regions.get(i).start() >= range.end())
                {
                    out.add(new AddressRange(at, range.end()));
                    break;
                }
                if (regions.get(i).start() > at)
                {
                    out.add(new AddressRange(at, regions.get(i).start()));
                }
                at = regions.get(i).end();
            }
        }
        return out;
    }
}
