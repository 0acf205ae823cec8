package io.faultline.damon.ops;

import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.AddressRange;
import io.faultline.damon.Region;
import io.faultline.damon.Target;
import io.faultline.damon.TargetRegions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The expectations of the kernel's virtual address operations set unit tests,
 * mm/damon/tests/vaddr-kunit.h, one test per kunit test function, named after it.
 * DAMON_MIN_REGION is 1, as in kunit builds.
 */
class VaddrKunitTest
{
    private static List<AddressRange> ranges(final long... bounds)
    {
        final List<AddressRange> list = new ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2)
        {
            list.add(new AddressRange(bounds[i], bounds[i + 1]));
        }
        return list;
    }

    private static Target target(final long... bounds)
    {
        final Target t = new Target(0);
        for (final AddressRange r : ranges(bounds))
        {
            t.addRegion(new Region(r.start(), r.end()));
        }
        return t;
    }

    /** damon_test_three_regions_in_vmas: the two biggest gaps (25-200, 220-300) are left out. */
    @Test
    void damonTestThreeRegionsInVmas()
    {
        final List<AddressRange> three = ThreeRegions.of(ranges(10, 20, 20, 25, 200, 210, 210, 220, 300, 305, 307, 330),
            1, false);
        assertEquals(ranges(10, 25, 200, 220, 300, 330), three);
    }

    /** What __damon_va_three_regions() does with fewer than two gaps: fails; our fallback keeps the mappings. */
    @Test
    void fewerThanThreeMappings()
    {
        assertEquals(List.of(), ThreeRegions.of(ranges(10, 20, 30, 40), 1, false));
        assertEquals(ranges(10, 20, 30, 40), ThreeRegions.of(ranges(10, 20, 30, 40), 1, true));
        assertEquals(ranges(10, 40), ThreeRegions.of(ranges(10, 20, 20, 40), 1, true));
    }

    private static void applyThreeRegions(final long[] regions, final long[] three, final long... expected)
    {
        final Target t = target(regions);
        TargetRegions.set(t, ranges(three), 1);
        final List<Long> got = new ArrayList<>();
        for (final Region r : t.regions())
        {
            got.add(r.start());
            got.add(r.end());
        }
        final List<Long> want = new ArrayList<>();
        for (final long e : expected)
        {
            want.add(e);
        }
        assertEquals(want, got);
    }

    private static final long[] REGIONS = {10, 20, 20, 30, 50, 55, 55, 57, 57, 59, 70, 80, 80, 90, 90, 100};

    /** damon_test_apply_three_regions1: the three regions slightly changed. */
    @Test
    void damonTestApplyThreeRegions1()
    {
        applyThreeRegions(REGIONS, new long[] {5, 27, 45, 55, 73, 104}, 5, 20, 20, 27, 45, 55, 73, 80, 80, 90, 90, 104);
    }

    /** damon_test_apply_three_regions2: two regions of the second big region removed. */
    @Test
    void damonTestApplyThreeRegions2()
    {
        applyThreeRegions(REGIONS, new long[] {5, 27, 56, 57, 65, 104}, 5, 20, 20, 27, 56, 57, 65, 80, 80, 90, 90, 104);
    }

    /** damon_test_apply_three_regions3: the second big region moved. */
    @Test
    void damonTestApplyThreeRegions3()
    {
        applyThreeRegions(REGIONS, new long[] {5, 27, 61, 63, 65, 104}, 5, 20, 20, 27, 61, 63, 65, 80, 80, 90, 90, 104);
    }

    /** damon_test_apply_three_regions4: the second and third big regions moved. */
    @Test
    void damonTestApplyThreeRegions4()
    {
        applyThreeRegions(REGIONS, new long[] {5, 7, 30, 32, 65, 68}, 5, 7, 30, 32, 65, 68);
    }

    /** damon_test_split_evenly. */
    @Test
    void damonTestSplitEvenly()
    {
        assertFalse(ThreeRegions.evenlySplit(null, 0, 5, 1));
        splitEvenlyFails(0, 100, 0);
        splitEvenlySucceeds(0, 100, 10);
        splitEvenlySucceeds(5, 59, 5);
        splitEvenlySucceeds(4, 6, 1);
        splitEvenlySucceeds(0, 3, 2);
        splitEvenlyFails(5, 6, 2);
    }

    private static void splitEvenlyFails(final long start, final long end, final int pieces)
    {
        final Target t = target(start, end);
        assertFalse(ThreeRegions.evenlySplit(t, 0, pieces, 1));
        assertEquals(1, t.nrRegions());
        assertEquals(start, t.regions().get(0).start());
        assertEquals(end, t.regions().get(0).end());
    }

    private static void splitEvenlySucceeds(final long start, final long end, final int pieces)
    {
        final Target t = target(start, end);
        final long width = (end - start) / pieces;
        assertTrue(ThreeRegions.evenlySplit(t, 0, pieces, 1));
        assertEquals(pieces, t.nrRegions());
        for (int i = 0; i < pieces; i++)
        {
            final Region r = t.regions().get(i);
            assertEquals(start + i * width, r.start());
            assertEquals(i == pieces - 1 ? end : start + (i + 1) * width, r.end());
        }
    }
}
