package io.faultline.damon.ops;

import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.AddressRange;
import io.faultline.damon.DamonContext;
import io.faultline.damon.Region;
import io.faultline.damon.Target;
import io.faultline.damon.TargetRegions;

/**
 * The virtual address space layout rules of mm/damon/vaddr.c, shared by every operations set
 * that monitors a process's address space ({@code vaddr}, and {@code trace} with the pages a
 * trace touched as its mappings): the mappings are reduced to three regions that leave out the
 * two biggest unmapped gaps (normally heap to mmap area and mmap area to stack:
 * __damon_va_three_regions()), and each is split evenly into pieces so that the target starts
 * with about the minimum number of regions (__damon_va_init_regions()).
 */
public final class ThreeRegions
{
    private ThreeRegions()
    {
    }

    private static long alignUp(final long value, final long align)
    {
        final long v = value + align - 1;
        return v - Math.floorMod(v, align);
    }

    private static long alignDown(final long value, final long align)
    {
        return value - Math.floorMod(value, align);
    }

    /**
     * __damon_va_three_regions(): from mappings sorted by address, the three ranges separated by
     * the two biggest gaps (each bound aligned up to {@code minRegion}). The kernel fails when
     * there are fewer than two gaps; so do we (an empty list) unless {@code fewerAllowed}, in
     * which case one or two mappings give one or two ranges, covering them.
     */
    public static List<AddressRange> of(final List<AddressRange> mappings, final long minRegion,
        final boolean fewerAllowed)
    {
        if (mappings.isEmpty())
        {
            return List.of();
        }
        long firstStart = 0;
        long firstEnd = 0;
        long secondStart = 0;
        long secondEnd = 0;
        AddressRange prev = null;
        for (final AddressRange vma : mappings)
        {
            if (prev != null)
            {
                final long gap = vma.start() - prev.end();
                if (gap > firstEnd - firstStart)
                {
                    secondStart = firstStart;
                    secondEnd = firstEnd;
                    firstStart = prev.end();
                    firstEnd = vma.start();
                }
                else if (gap > secondEnd - secondStart)
                {
                    secondStart = prev.end();
                    secondEnd = vma.start();
                }
            }
            prev = vma;
        }
        final long start = mappings.get(0).start();
        final long end = prev.end();
        if (secondEnd == secondStart || firstEnd == firstStart)
        {
            if (!fewerAllowed)
            {
                return List.of();
            }
            if (firstEnd == firstStart)
            {
                return List.of(new AddressRange(alignUp(start, minRegion), alignUp(end, minRegion)));
            }
            return List.of(new AddressRange(alignUp(start, minRegion), alignUp(firstStart, minRegion)),
                new AddressRange(alignUp(firstEnd, minRegion), alignUp(end, minRegion)));
        }
        if (firstStart > secondStart)
        {
            final long s = firstStart;
            final long e = firstEnd;
            firstStart = secondStart;
            firstEnd = secondEnd;
            secondStart = s;
            secondEnd = e;
        }
        return List.of(
            new AddressRange(alignUp(start, minRegion), alignUp(firstStart, minRegion)),
            new AddressRange(alignUp(firstEnd, minRegion), alignUp(secondStart, minRegion)),
            new AddressRange(alignUp(secondEnd, minRegion), alignUp(end, minRegion)));
    }

    /**
     * damon_va_evenly_split_region(): splits the region at {@code index} of {@code t} into
     * {@code nrPieces} pieces of equal size (aligned down to {@code minRegion}); the last piece
     * takes the remainder.
     *
     * @return false (and no change) if there is no region, no piece, or the pieces would be empty
     */
    public static boolean evenlySplit(final Target t, final int index, final long nrPieces, final long minRegion)
    {
        if (t == null || index < 0 || index >= t.nrRegions() || nrPieces <= 0)
        {
            return false;
        }
        final Region r = t.regions().get(index);
        final long origEnd = r.end();
        final long szPiece = alignDown(r.size() / nrPieces, minRegion);
        if (szPiece == 0)
        {
            return false;
        }
        final List<Region> pieces = new ArrayList<>();
        long start = r.start();
        for (long i = 0; i < nrPieces; i++, start += szPiece)
        {
            pieces.add(new Region(start, i == nrPieces - 1 ? origEnd : start + szPiece));
        }
        t.replaceRegion(index, pieces);
        return true;
    }

    /** __damon_va_init_regions()'s piece: the ranges' total size / the minimum number of regions, at least a minimum region. */
    private static long pieceSize(final DamonContext ctx, final List<AddressRange> ranges)
    {
        long sz = 0;
        for (final AddressRange range : ranges)
        {
            sz += range.size();
        }
        if (ctx.attrs().minNrRegions() != 0)
        {
            sz /= ctx.attrs().minNrRegions();
        }
        return Math.max(sz, ctx.minRegionSize());
    }

    /**
     * __damon_va_init_regions(): gives {@code t} one region per range, each split evenly into
     * pieces of (total size / minimum number of regions) bytes.
     */
    public static void initRegions(final DamonContext ctx, final Target t, final List<AddressRange> ranges)
    {
        final long sz = pieceSize(ctx, ranges);
        for (final AddressRange range : ranges)
        {
            t.addRegion(new Region(range.start(), range.end()));
            evenlySplit(t, t.nrRegions() - 1, range.size() / sz, ctx.minRegionSize());
        }
    }

    /**
     * Regions for the parts of {@code ranges} that no region of {@code t} covers, made as
     * {@link #initRegions} makes a new target's: each part of at least one piece split evenly into
     * pieces of (total size of {@code ranges} / minimum number of regions) bytes, as many as the
     * maximum number of regions leaves room for. Not the kernel's: damon_set_regions() stretches a neighbouring
     * region over new memory, or gives it one region, and a live program's memory mapped after
     * the start then waits for aggregations of splitting before its hot and cold parts are told
     * apart. Called before {@link TargetRegions#set}, which keeps these.
     */
    public static void coverNewMemory(final DamonContext ctx, final Target t, final List<AddressRange> ranges)
    {
        final List<AddressRange> parts = TargetRegions.uncovered(t.regions(), ranges);
        if (parts.isEmpty())
        {
            return;
        }
        final long sz = pieceSize(ctx, ranges);
        for (final AddressRange part : parts)
        {
            final long start = part.start() - Math.floorMod(part.start(), ctx.minRegionSize());
            final long end = part.end() + Math.floorMod(-part.end(), ctx.minRegionSize());
            final long room = ctx.attrs().maxNrRegions() - t.nrRegions();
            if (end - start < sz || room < 1 || t.regions().stream().anyMatch(r -> r.start() < end && start < r.end()))
            {
                // less than a piece (a heap grown by some pages), no room, or narrower than the
                // alignment beside a region: damon_set_regions stretches its neighbour over it
                continue;
            }
            final int index = t.insertRegion(new Region(start, end));
            evenlySplit(t, index, Math.min((end - start) / sz, room), ctx.minRegionSize());
        }
    }
}
