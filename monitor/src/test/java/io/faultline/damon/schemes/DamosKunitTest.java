package io.faultline.damon.schemes;

import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.Callbacks;
import io.faultline.damon.DamonContext;
import io.faultline.damon.DamonRandom;
import io.faultline.damon.MonitorClock;
import io.faultline.damon.Region;
import io.faultline.damon.SchemeAction;
import io.faultline.damon.Target;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DAMOS expectations of the kernel's unit tests, mm/damon/tests/core-kunit.h, one test per
 * kunit test function, named after it; DAMON_MIN_REGION is 1, as in kunit builds.
 */
class DamosKunitTest
{
    private static DamonContext context()
    {
        return new DamonContext(Attributes.DEFAULTS, () -> "test", Callbacks.NONE, DamonRandom.seeded(42),
            MonitorClock.virtual(), 1);
    }

    /** damos_test_filter_out: an address filter [2, 6) against regions in, before, after and across it. */
    @Test
    void damosTestFilterOut()
    {
        final DamonContext ctx = context();
        final Filter f = Filter.addr(true, false, 2, 6);
        final Target t = new Target(0);
        ctx.addTarget(t);
        Region r = new Region(3, 5);
        t.addRegion(r);
        assertTrue(f.coreMatch(ctx, t, r), "region in the range");
        assertEquals(1, t.nrRegions());

        t.destroyRegion(r);
        r = new Region(1, 2);
        t.addRegion(r);
        assertFalse(f.coreMatch(ctx, t, r), "region before the range");
        assertEquals(1, t.nrRegions());

        t.destroyRegion(r);
        r = new Region(6, 8);
        t.addRegion(r);
        assertFalse(f.coreMatch(ctx, t, r), "region after the range");
        assertEquals(1, t.nrRegions());

        t.destroyRegion(r);
        r = new Region(1, 4);
        t.addRegion(r);
        assertFalse(f.coreMatch(ctx, t, r), "region started before the range");
        assertEquals(1, r.start());
        assertEquals(2, r.end());
        assertEquals(2, t.nrRegions());
        Region r2 = t.regions().get(1);
        assertEquals(2, r2.start());
        assertEquals(4, r2.end());
        t.destroyRegion(r2);

        t.destroyRegion(r);
        r = new Region(2, 8);
        t.addRegion(r);
        assertTrue(f.coreMatch(ctx, t, r), "region started in the range");
        assertEquals(2, r.start());
        assertEquals(6, r.end());
        assertEquals(2, t.nrRegions());
        r2 = t.regions().get(1);
        assertEquals(6, r2.start());
        assertEquals(8, r2.end());
    }

    /** damon_test_feed_loop_next_input. */
    @Test
    void damonTestFeedLoopNextInput()
    {
        final long lastInput = 900_000;
        assertTrue(FeedLoop.nextInput(lastInput, 200) > lastInput);
        assertTrue(FeedLoop.nextInput(lastInput, 250_000_000) < lastInput);
        assertTrue(FeedLoop.nextInput(lastInput, 200) > FeedLoop.nextInput(lastInput, 2000));
        // The formula's exact values: last * (1 + (goal - score) / goal), at least 10000.
        assertEquals(900_000 + 900_000L * 9800 / 10_000, FeedLoop.nextInput(lastInput, 200));
        assertEquals(lastInput, FeedLoop.nextInput(lastInput, 10_000));
        assertEquals(10_000, FeedLoop.nextInput(lastInput, 20_000));
        assertEquals(900_000 - 900_000L * 5000 / 10_000, FeedLoop.nextInput(lastInput, 15_000));
    }

    /** damon_test_set_filters_default_reject. */
    @Test
    void damonTestSetFiltersDefaultReject()
    {
        Scheme s = scheme(List.of());
        assertFalse(s.coreFiltersDefaultReject());
        assertFalse(s.opsFiltersDefaultReject());

        final Filter targetAllow = Filter.target(true, true, 0);
        s = scheme(List.of(targetAllow));
        assertTrue(s.coreFiltersDefaultReject());
        assertFalse(s.opsFiltersDefaultReject());

        final Filter targetReject = Filter.target(true, false, 0);
        s = scheme(List.of(targetReject));
        assertFalse(s.coreFiltersDefaultReject());
        assertFalse(s.opsFiltersDefaultReject());

        final Filter anonAllow = Filter.anon(true, true);
        s = scheme(List.of(targetReject, anonAllow));
        assertFalse(s.coreFiltersDefaultReject());
        assertTrue(s.opsFiltersDefaultReject());

        s = scheme(List.of(targetAllow, anonAllow));
        assertFalse(s.coreFiltersDefaultReject());
        assertTrue(s.opsFiltersDefaultReject());
    }

    /** damos_test_new_filter. */
    @Test
    void damosTestNewFilter()
    {
        final Filter f = Filter.anon(true, false);
        assertEquals(Filter.Type.ANON, f.type());
        assertTrue(f.matching());
        assertTrue(f.type().opsHandled());
        assertFalse(Filter.Type.ADDR.opsHandled());
        assertFalse(Filter.Type.TARGET.opsHandled());
    }

    private static Scheme scheme(final List<Filter> filters)
    {
        return new Scheme(AccessPattern.ANY, SchemeAction.STAT, 0, Quota.unlimited(), Watermarks.none(), filters);
    }
}
