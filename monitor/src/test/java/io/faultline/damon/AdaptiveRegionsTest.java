package io.faultline.damon;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Rules of mm/damon/core.c that its kunit tests leave unchecked, with expected values worked
 * out by hand from the code: the age rule of damon_merge_regions_of(), the two- and three-piece
 * splits of kdamond_split_regions(), and nr_accesses reaching aggregation / sampling in
 * kdamond_fn().
 */
class AdaptiveRegionsTest
{
    /** A generator whose every draw is {@code value}: damon_rand(1, 10) = 5 cuts a region in half. */
    private static DamonRandom always(final long value)
    {
        return (low, high) -> value;
    }

    @Test
    void ageIsResetWhenNrAccessesChangedBeyondTheThresholdAndIncrementedOtherwise()
    {
        final Target t = new Target(0);
        final Region changed = new Region(0, 10).with(10, 2, 7);
        final Region kept = new Region(20, 30).with(10, 8, 7);
        t.addRegion(changed);
        t.addRegion(kept);
        AdaptiveRegions.mergeRegionsOf(t, 2, 1000);
        assertEquals(0, changed.age());
        assertEquals(8, kept.age());
    }

    @Test
    void splitsIntoTwoThenIntoThreeWhenTheNumberOfRegionsDidNotChange()
    {
        final DamonContext ctx = new DamonContext(Attributes.DEFAULTS, () -> "test", Callbacks.NONE, always(5),
            MonitorClock.virtual(), 1);
        final Target t = new Target(0);
        t.addRegion(new Region(0, 1000));
        ctx.addTarget(t);
        AdaptiveRegions.splitRegions(ctx);
        assertEquals(List.of(0L, 500L, 500L, 1000L), bounds(t));

        // Two regions now, two at the last split too: the middle of each may differ, cut in three.
        final Target u = new Target(1);
        final DamonContext same = new DamonContext(Attributes.DEFAULTS, () -> "test", Callbacks.NONE, always(5),
            MonitorClock.virtual(), 1);
        same.lastNrRegions = 2;
        u.addRegion(new Region(0, 1000));
        u.addRegion(new Region(2000, 3000));
        same.addTarget(u);
        AdaptiveRegions.splitRegions(same);
        assertEquals(List.of(0L, 250L, 250L, 500L, 500L, 1000L, 2000L, 2250L, 2250L, 2500L, 2500L, 3000L), bounds(u));
    }

    @Test
    void noSplitAboveHalfTheMaximum()
    {
        final DamonContext ctx = new DamonContext(new Attributes(5000, 100_000, 1_000_000, 3, 10), () -> "test",
            Callbacks.NONE, always(5), MonitorClock.virtual(), 1);
        final Target t = new Target(0);
        for (int i = 0; i < 6; i++)
        {
            t.addRegion(new Region(i * 100, i * 100 + 100));
        }
        ctx.addTarget(t);
        AdaptiveRegions.splitRegions(ctx);
        assertEquals(6, t.nrRegions());
    }

    @Test
    void aRegionAccessedInEverySampleReachesAggregationOverSampling() throws Exception
    {
        final List<Integer> seen = new ArrayList<>();
        final Operations everyPageHot = new Operations()
        {
            @Override
            public String id()
            {
                return "test";
            }

            @Override
            public int checkAccesses(final DamonContext ctx)
            {
                int max = 0;
                for (final Target t : ctx.targets())
                {
                    for (final Region r : t.regions())
                    {
                        AccessRate.update(r, true, ctx.attrs());
                        max = Math.max(max, r.nrAccesses());
                    }
                }
                return max;
            }
        };
        final Callbacks callbacks = new Callbacks()
        {
            @Override
            public boolean afterAggregation(final DamonContext ctx)
            {
                for (final Region r : ctx.targets().get(0).regions())
                {
                    seen.add(r.nrAccesses());
                }
                return seen.size() > 50;
            }
        };
        final DamonContext ctx = new DamonContext(Attributes.DEFAULTS, everyPageHot, callbacks, DamonRandom.seeded(1),
            MonitorClock.virtual(), 4096);
        final Target t = new Target(1);
        t.addRegion(new Region(0, 1 << 20));
        ctx.addTarget(t);
        ctx.run();
        assertEquals(List.of(20), seen.stream().distinct().toList());
    }

    private static List<Long> bounds(final Target t)
    {
        final List<Long> list = new ArrayList<>();
        for (final Region r : t.regions())
        {
            list.add(r.start());
            list.add(r.end());
        }
        return list;
    }
}
