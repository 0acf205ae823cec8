package io.faultline.damon.schemes;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

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
 * Quotas, scores and watermarks against values computed by hand from the kernel's formulas
 * (damos_set_effective_quota(), damos_adjust_quota(), damon_hot_score(), damos_wmark_wait_us()).
 */
class QuotaTest
{
    /** Size quota only: the effective quota is the size quota. */
    @Test
    void sizeQuotaIsTheEffectiveQuota()
    {
        final Quota q = new Quota(0, 16384, 1000, 0, 0, 0, List.of());
        q.setEffectiveQuota(4096);
        assertEquals(16384, q.esz());
    }

    /** Time quota before anything was charged: PAGE_SIZE * 1024 bytes per ms, capped by the size quota. */
    @Test
    void timeQuotaStartsAtTheKernelsThroughput()
    {
        final Quota q = new Quota(10, 0, 1000, 0, 0, 0, List.of());
        q.setEffectiveQuota(4096);
        assertEquals(4096L * 1024 * 10, q.esz());
        final Quota both = new Quota(10, 1 << 20, 1000, 0, 0, 0, List.of());
        both.setEffectiveQuota(4096);
        assertEquals(1 << 20, both.esz());
        final Quota measured = new Quota(10, 0, 1000, 0, 0, 0, List.of());
        measured.totalChargedSz = 1 << 20;
        measured.totalChargedNs = 2_000_000;
        measured.setEffectiveQuota(4096);
        // 1 MiB in 2 ms: 524288 bytes per ms, times 10 ms.
        assertEquals(5_242_880, measured.esz());
    }

    /**
     * A user_input goal below its target raises the effective quota window after window, by the
     * feedback loop (esz_bp 10000 -> 15000 -> 22500 -> 33750 -> 50625 -> 75937 at half the
     * target); at or above twice the target it drops to the minimum; above the target it falls.
     */
    @Test
    void userInputGoalMovesTheQuotaTowardItsTarget()
    {
        final AtomicLong input = new AtomicLong(50);
        final Quota q = new Quota(0, 0, 100, 0, 0, 0,
            List.of(new QuotaGoal(QuotaGoal.Metric.USER_INPUT, 100, input::get)));
        final long[] expected = {1, 2, 3, 5, 7};
        for (final long e : expected)
        {
            q.setEffectiveQuota(4096);
            assertEquals(e, q.esz());
        }
        assertEquals(75_937, q.eszBp);
        input.set(150);
        q.setEffectiveQuota(4096);
        assertEquals(75_937 - 75_937L * 5000 / 10_000, q.eszBp);
        input.set(200);
        q.setEffectiveQuota(4096);
        assertEquals(10_000, q.eszBp);
        assertEquals(1, q.esz());
    }

    /** some_mem_psi_us counts the stall time since the last check. */
    @Test
    void pressureGoalUsesTheDifference()
    {
        final AtomicLong total = new AtomicLong(1000);
        final QuotaGoal g = new QuotaGoal(QuotaGoal.Metric.SOME_MEM_PSI_US, 500, total::get);
        g.updateCurrentValue();
        assertEquals(1000, g.currentValue());
        total.set(1250);
        g.updateCurrentValue();
        assertEquals(250, g.currentValue());
        assertEquals(5000, g.score());
        assertEquals(123_456, PressureStall.someTotalUs("some avg10=0.00 avg60=0.00 avg300=0.00 total=123456\n"
            + "full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n"));
        assertEquals(250, FreeMemRate.perThousand("MemTotal:       16000 kB\nMemFree:         4000 kB\n"));
    }

    private static DamonContext context()
    {
        return new DamonContext(Attributes.DEFAULTS, () -> "test", Callbacks.NONE, DamonRandom.seeded(1),
            MonitorClock.virtual(), 4096);
    }

    /**
     * damon_hot_score() with 5 ms sampling and 100 ms aggregation (20 samples): nr_accesses 10 is
     * a frequency subscore of 50; age 30 aggregations is 3 s, log2 rank 2, age subscore
     * (2 + 32) * 100 / 32 / 2 = 53; with weights 1:1 the hotness is (50 + 53) / 2 = 51, scaled
     * 51 * 99 / 100 = 50. An idle region of the same age counts its age as coldness: subscore
     * (32 - 2) * 100 / 32 / 2 = 46, hotness 0 + 46 = 46 / 2 = 23, scaled 22, cold score 77.
     */
    @Test
    void hotAndColdScores()
    {
        final DamonContext ctx = context();
        final Scheme s = new Scheme(AccessPattern.ANY, SchemeAction.PAGEOUT, 0,
            new Quota(0, 4096, 1000, 0, 1, 1, List.of()), Watermarks.none(), List.of());
        final Region warm = new Region(0, 4096).with(10, 10, 30);
        assertEquals(50, SchemeScore.hot(ctx, warm, s));
        final Region idle = new Region(0, 4096).with(0, 0, 30);
        assertEquals(22, SchemeScore.hot(ctx, idle, s));
        assertEquals(77, SchemeScore.cold(ctx, idle, s));
        assertEquals(77, SchemeScore.forAction(ctx, idle, s));
        // No weights: hotness 0 for every region, coldness the maximum.
        final Scheme unweighted = new Scheme(AccessPattern.ANY, SchemeAction.PAGEOUT);
        assertEquals(SchemeScore.MAX_SCORE, SchemeScore.cold(ctx, warm, unweighted));
    }

    /**
     * damos_adjust_quota()'s minimum score: bytes per score, from the highest down, until they
     * reach the effective quota. Three 4 KiB regions with cold scores 77 (idle, age 30), 75 (idle,
     * age 0: age subscore 50, hotness 25, scaled 24) and 49 (warm, above): a quota of 8 KiB takes
     * the two coldest, so the minimum is 75.
     */
    @Test
    void minimumScoreFitsTheQuota()
    {
        final DamonContext ctx = context();
        final Target t = new Target(1);
        t.addRegion(new Region(0, 4096).with(0, 0, 30));
        t.addRegion(new Region(4096, 8192).with(0, 0, 0));
        t.addRegion(new Region(8192, 12288).with(10, 10, 30));
        ctx.addTarget(t);
        final Scheme s = new Scheme(AccessPattern.ANY, SchemeAction.PAGEOUT, 0,
            new Quota(0, 8192, 1000, 0, 1, 1, List.of()), Watermarks.none(), List.of());
        ctx.addScheme(s);
        assertEquals(77, SchemeScore.cold(ctx, t.regions().get(0), s));
        assertEquals(75, SchemeScore.cold(ctx, t.regions().get(1), s));
        assertEquals(49, SchemeScore.cold(ctx, t.regions().get(2), s));
        Damos.adjustQuota(ctx, s);
        assertEquals(8192, s.quota().esz());
        assertEquals(75, s.quota().minScore());
        assertTrue(Damos.validTarget(ctx, t, t.regions().get(1), s));
        assertFalse(Damos.validTarget(ctx, t, t.regions().get(2), s));
    }

    /**
     * damos_wmark_wait_us(): active from the start; above high or below low it deactivates and
     * waits the interval; inactive between mid and high it stays inactive; below mid it
     * activates, and stays active up to high.
     */
    @Test
    void watermarksActivateBetweenLowAndMid()
    {
        final AtomicLong metric = new AtomicLong(600);
        final Watermarks w = new Watermarks(Watermarks.Metric.FREE_MEM_RATE, 50_000, 800, 500, 100, metric::get);
        assertTrue(w.activated());
        assertEquals(0, w.waitUs());
        assertTrue(w.activated());
        metric.set(900);
        assertEquals(50_000, w.waitUs());
        assertFalse(w.activated());
        metric.set(600);
        assertEquals(50_000, w.waitUs());
        assertFalse(w.activated());
        metric.set(400);
        assertEquals(0, w.waitUs());
        assertTrue(w.activated());
        metric.set(700);
        assertEquals(0, w.waitUs());
        assertTrue(w.activated());
        metric.set(50);
        assertEquals(50_000, w.waitUs());
        assertFalse(w.activated());
    }
}
