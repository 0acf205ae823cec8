package io.faultline.damon.live;

import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.AddressRange;
import io.faultline.damon.Attributes;
import io.faultline.damon.Callbacks;
import io.faultline.damon.DamonContext;
import io.faultline.damon.DamonRandom;
import io.faultline.damon.MonitorClock;
import io.faultline.damon.Region;
import io.faultline.damon.Target;
import io.faultline.damon.TargetRegions;
import io.faultline.damon.ops.ThreeRegions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What vaddr adds to the kernel's update for a live program's memory mapped after the start:
 * which traced memory no region covers ({@link TargetRegions#uncovered}), and the regions it then
 * gets ({@link ThreeRegions#coverNewMemory}).
 */
class VaddrOperationsTest
{
    private static final long K = 4096;

    private static List<Region> regions(final long... bounds)
    {
        final List<Region> out = new ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2)
        {
            out.add(new Region(bounds[i], bounds[i + 1]));
        }
        return out;
    }

    private static List<AddressRange> ranges(final long... bounds)
    {
        final List<AddressRange> out = new ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2)
        {
            out.add(new AddressRange(bounds[i], bounds[i + 1]));
        }
        return out;
    }

    @Test
    void uncoveredIsWhatNoRegionHolds()
    {
        final List<Region> r = regions(0x1000, 0x3000, 0x3000, 0x8000, 0x10000, 0x20000);
        assertEquals(List.of(), TargetRegions.uncovered(r, ranges()));
        assertEquals(List.of(), TargetRegions.uncovered(r, ranges(0x1000, 0x8000, 0x10000, 0x11000, 0x1f000, 0x20000)));
        assertEquals(ranges(0x0, 0x1000), TargetRegions.uncovered(r, ranges(0x0, 0x2000)), "below");
        assertEquals(ranges(0x8000, 0x9000), TargetRegions.uncovered(r, ranges(0x7000, 0x9000)), "into a gap");
        assertEquals(ranges(0x9000, 0xa000), TargetRegions.uncovered(r, ranges(0x1000, 0x2000, 0x9000, 0xa000)), "a gap");
        assertEquals(ranges(0x8000, 0x10000, 0x20000, 0x21000), TargetRegions.uncovered(r, ranges(0x7000, 0x21000)),
            "across a gap and past the end");
        assertEquals(ranges(0x1000, 0x2000), TargetRegions.uncovered(regions(), ranges(0x1000, 0x2000)), "no regions");
    }

    private static DamonContext context()
    {
        // minimum 10 regions, maximum 1,000: the kernel's defaults
        return new DamonContext(Attributes.DEFAULTS, () -> "vaddr", Callbacks.NONE, DamonRandom.seeded(1),
            MonitorClock.virtual(), K);
    }

    /**
     * hot_cold's areas mapped below a target whose regions covered 10 pages: 24 MiB of new memory
     * in a span of 24 MiB + 10 pages gets pieces of about a tenth of the span each, not one region.
     */
    @Test
    void newMemoryGetsInitsPiecesAndTheUpdateKeepsThem()
    {
        final DamonContext ctx = context();
        final Target t = new Target(1);
        final long base = 0x7f0000000000L;
        final long areas = 24L << 20;
        for (int i = 0; i < 10; i++)
        {
            t.addRegion(new Region(base + areas + i * K, base + areas + (i + 1) * K));
        }
        final List<AddressRange> span = ranges(base, base + areas + 10 * K);
        ThreeRegions.coverNewMemory(ctx, t, span);
        TargetRegions.set(t, span, K);
        // init's piece: a tenth of the span; the new 24 MiB split evenly into as many whole ones as fit (9)
        final long piece = (areas + 10 * K) / 10;
        final long pieces = areas / piece;
        assertEquals(9, pieces);
        assertEquals(10 + pieces, t.nrRegions(), t.regions().toString());
        assertEquals(base, t.regions().get(0).start());
        assertEquals(base + areas / pieces / K * K, t.regions().get(0).end());
        assertEquals(base + areas, t.regions().get(8).end());
        assertEquals(List.of(), TargetRegions.uncovered(t.regions(), span));
    }

    /** A heap grown by a page: less than a piece, so the kernel's stretch of the neighbour. */
    @Test
    void aLittleGrowthStretchesTheNeighbourAsTheKernelDoes()
    {
        final DamonContext ctx = context();
        final Target t = new Target(1);
        for (int i = 0; i < 10; i++)
        {
            t.addRegion(new Region(i * 16 * K, (i + 1) * 16 * K));
        }
        final List<AddressRange> grown = ranges(0, 160 * K + K);
        ThreeRegions.coverNewMemory(ctx, t, grown);
        TargetRegions.set(t, grown, K);
        assertEquals(10, t.nrRegions());
        assertEquals(160 * K + K, t.regions().get(9).end());
    }
}
