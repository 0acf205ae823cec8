package io.faultline.damon;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The expectations of the kernel's DAMON core unit tests, mm/damon/tests/core-kunit.h (Linux
 * 6.16 to 6.18), one test per kunit test function, named after it. As in kunit builds,
 * DAMON_MIN_REGION is 1.
 */
class CoreKunitTest
{
    private static final long MIN_REGION = 1;

    private static DamonContext context(final Attributes attrs)
    {
        return new DamonContext(attrs, () -> "test", Callbacks.NONE, DamonRandom.seeded(42), MonitorClock.virtual(),
            MIN_REGION);
    }

    private static Target target(final long... bounds)
    {
        final Target t = new Target(0);
        for (int i = 0; i < bounds.length; i += 2)
        {
            t.addRegion(new Region(bounds[i], bounds[i + 1]));
        }
        return t;
    }

    private static void assertBounds(final Target t, final long... bounds)
    {
        assertEquals(bounds.length / 2, t.nrRegions(), t.regions().toString());
        for (int i = 0; i < bounds.length; i += 2)
        {
            assertEquals(bounds[i], t.regions().get(i / 2).start(), "start of region " + i / 2);
            assertEquals(bounds[i + 1], t.regions().get(i / 2).end(), "end of region " + i / 2);
        }
    }

    /** damon_test_regions. */
    @Test
    void damonTestRegions()
    {
        final Region r = new Region(1, 2);
        assertEquals(1, r.start());
        assertEquals(2, r.end());
        assertEquals(0, r.nrAccesses());
        final Target t = new Target(0);
        assertEquals(0, t.nrRegions());
        t.addRegion(r);
        assertEquals(1, t.nrRegions());
        t.destroyRegion(r);
        assertEquals(0, t.nrRegions());
    }

    /** damon_test_target. */
    @Test
    void damonTestTarget()
    {
        final DamonContext c = context(Attributes.DEFAULTS);
        assertEquals(0, c.targets().size());
        c.addTarget(new Target(0));
        assertEquals(1, c.targets().size());
    }

    /** damon_test_aggregate: kdamond_reset_aggregated() zeroes nr_accesses, keeps regions and targets. */
    @Test
    void damonTestAggregate()
    {
        final long[][] saddr = {{10, 20, 30}, {5, 42, 49}, {13, 33, 55}};
        final long[][] eaddr = {{15, 27, 40}, {31, 45, 55}, {23, 44, 66}};
        final int[][] accesses = {{42, 95, 84}, {10, 20, 30}, {0, 1, 2}};
        final DamonContext ctx = context(Attributes.DEFAULTS);
        for (int it = 0; it < 3; it++)
        {
            final Target t = new Target(it);
            for (int ir = 0; ir < 3; ir++)
            {
                t.addRegion(new Region(saddr[it][ir], eaddr[it][ir]).with(accesses[it][ir], 0, 0));
            }
            ctx.addTarget(t);
        }
        AdaptiveRegions.resetAggregated(ctx);
        assertEquals(3, ctx.targets().size());
        for (int it = 0; it < 3; it++)
        {
            final Target t = ctx.targets().get(it);
            assertEquals(3, t.nrRegions());
            for (int ir = 0; ir < 3; ir++)
            {
                assertEquals(0, t.regions().get(ir).nrAccesses());
                // What the kernel keeps for the age rule: the count of the aggregation just ended.
                assertEquals(accesses[it][ir], t.regions().get(ir).lastNrAccesses());
            }
        }
    }

    /** damon_test_split_at: both pieces keep every counter. */
    @Test
    void damonTestSplitAt()
    {
        final Target t = new Target(0);
        final Region r = new Region(0, 100).with(42, 15, 10);
        t.addRegion(r);
        AdaptiveRegions.splitRegionAt(t, 0, 25);
        assertEquals(0, r.start());
        assertEquals(25, r.end());
        final Region right = t.regions().get(1);
        assertEquals(25, right.start());
        assertEquals(100, right.end());
        assertEquals(r.nrAccessesBp(), right.nrAccessesBp());
        assertEquals(r.nrAccesses(), right.nrAccesses());
        assertEquals(r.lastNrAccesses(), right.lastNrAccesses());
        assertEquals(r.age(), right.age());
    }

    /** damon_test_merge_two: size-weighted nr_accesses and age. */
    @Test
    void damonTestMergeTwo()
    {
        final Target t = new Target(0);
        final Region r = new Region(0, 100).with(10, 0, 9);
        t.addRegion(r);
        t.addRegion(new Region(100, 300).with(20, 0, 21));
        AdaptiveRegions.mergeTwo(t, 0);
        assertEquals(0, r.start());
        assertEquals(300, r.end());
        assertEquals(16, r.nrAccesses());
        assertEquals(160_000, r.nrAccessesBp());
        assertEquals(17, r.age());
        assertEquals(1, t.nrRegions());
        assertSame(r, t.regions().get(0));
    }

    /** damon_test_merge_regions_of: threshold 9, size limit 9999. */
    @Test
    void damonTestMergeRegionsOf()
    {
        final long[] sa = {0, 100, 114, 122, 130, 156, 170, 184, 230};
        final long[] ea = {100, 112, 122, 130, 156, 170, 184, 230, 10170};
        final int[] nrs = {0, 0, 10, 10, 20, 30, 1, 2, 5};
        final Target t = new Target(0);
        for (int i = 0; i < sa.length; i++)
        {
            t.addRegion(new Region(sa[i], ea[i]).with(nrs[i], 0, 0));
        }
        AdaptiveRegions.mergeRegionsOf(t, 9, 9999);
        assertBounds(t, 0, 112, 114, 130, 130, 156, 156, 170, 170, 230, 230, 10170);
    }

    /**
     * damon_test_split_regions_of: at most 2, 4 and 12 regions. The kernel's last check
     * (size % 5 >= 0) cannot fail; we also check what it means: with DAMON_MIN_REGION 5 every
     * cut is aligned, so every piece is a multiple of 5 bytes.
     */
    @Test
    void damonTestSplitRegionsOf()
    {
        final DamonRandom random = DamonRandom.seeded(7);
        final Target one = target(0, 22);
        AdaptiveRegions.splitRegionsOf(one, 2, 1, random);
        assertTrue(one.nrRegions() <= 2);

        final Target two = target(0, 220);
        AdaptiveRegions.splitRegionsOf(two, 4, 1, random);
        assertTrue(two.nrRegions() <= 4);

        final Target three = target(0, 220, 300, 400, 500, 700);
        AdaptiveRegions.splitRegionsOf(three, 4, 5, random);
        assertTrue(three.nrRegions() <= 12);
        for (final Region r : three.regions())
        {
            assertEquals(0, r.size() % 5, r.toString());
        }
    }

    /** damon_test_set_regions: the five cases of Linux 6.18. */
    @Test
    void damonTestSetRegions()
    {
        setRegions(new long[] {}, new long[] {5, 15, 15, 25}, 5, 15, 15, 25);
        setRegions(new long[] {4, 16, 24, 32}, new long[] {18, 23}, 18, 23);
        setRegions(new long[] {4, 16, 24, 32}, new long[] {8, 28}, 8, 16, 16, 24, 24, 28);
        setRegions(new long[] {0, 4, 4, 17}, new long[] {0, 15, 25, 40}, 0, 4, 4, 15, 25, 40);
        setRegions(new long[] {0, 4, 42, 52}, new long[] {0, 15, 25, 40, 44, 50}, 0, 15, 25, 40, 44, 50);
    }

    private static void setRegions(final long[] old, final long[] ranges, final long... expected)
    {
        final Target t = target(old);
        final List<AddressRange> list = new java.util.ArrayList<>();
        for (int i = 0; i < ranges.length; i += 2)
        {
            list.add(new AddressRange(ranges[i], ranges[i + 1]));
        }
        TargetRegions.set(t, list, MIN_REGION);
        assertBounds(t, expected);
    }

    /** damon_test_nr_accesses_to_accesses_bp: a huge aggregation interval does not overflow. */
    @Test
    void damonTestNrAccessesToAccessesBp()
    {
        final Attributes attrs = new Attributes(10, (0xFFFF_FFFFL + 1) * 10, 1, 10, 1000);
        assertEquals(0, AccessRate.nrAccessesToBp(123, attrs));
    }

    /** damon_test_update_monitoring_result: nr_accesses and age keep their meaning under new intervals. */
    @Test
    void damonTestUpdateMonitoringResult()
    {
        final Attributes old = new Attributes(10, 1000, 0, 0, 0);
        final Region r = new Region(3, 7).with(15, 0, 20);

        AccessRate.rescale(r, old, new Attributes(100, 10_000, 0, 0, 0), false);
        assertEquals(15, r.nrAccesses());
        assertEquals(2, r.age());

        AccessRate.rescale(r, old, new Attributes(1, 1000, 0, 0, 0), false);
        assertEquals(150, r.nrAccesses());
        assertEquals(2, r.age());

        AccessRate.rescale(r, old, new Attributes(1, 100, 0, 0, 0), false);
        assertEquals(150, r.nrAccesses());
        assertEquals(20, r.age());
    }

    /** damon_test_set_attrs. */
    @Test
    void damonTestSetAttrs()
    {
        final Attributes valid = new Attributes(5000, 100_000, 1_000_000, 10, 1000);
        assertNull(valid.problem());
        context(Attributes.DEFAULTS).setAttrs(valid);
        assertNotNull(new Attributes(5000, 100_000, 1_000_000, 1, 1000).problem());
        assertNotNull(new Attributes(5000, 100_000, 1_000_000, 10, 9).problem());
        assertNotNull(new Attributes(5000, 4999, 1_000_000, 10, 1000).problem());
    }

    /** damon_test_moving_sum. */
    @Test
    void damonTestMovingSum()
    {
        long mvsum = 50_000;
        final long[] newValues = {10_000, 0, 10_000, 0, 0, 0, 10_000, 0, 0, 0};
        final long[] expects = {55_000, 50_000, 55_000, 50_000, 45_000, 40_000, 45_000, 40_000, 35_000, 30_000};
        for (int i = 0; i < newValues.length; i++)
        {
            mvsum = AccessRate.movingSum(mvsum, 50_000, 10, newValues[i]);
            assertEquals(expects[i], mvsum);
        }
    }

    /** damon_test_rand: damon_rand(0, 10) stays in [0, 9]. */
    @Test
    void damonTestRand()
    {
        final DamonRandom random = DamonRandom.seeded(System.nanoTime());
        for (int i = 0; i < 10_000; i++)
        {
            final long value = random.rand(0, 10);
            assertTrue(value >= 0 && value <= 9, "rand gave " + value);
        }
    }
}
