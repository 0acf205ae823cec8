package io.faultline.damon.schemes;

import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;

import io.faultline.damon.Attributes;
import io.faultline.damon.DamonContext;
import io.faultline.damon.DamonRandom;
import io.faultline.damon.MonitorClock;
import io.faultline.damon.SchemeAction;
import io.faultline.damon.SyntheticTrace;
import io.faultline.damon.ops.TraceIndex;
import io.faultline.damon.ops.TraceMonitor;
import io.faultline.damon.ops.TraceOperations;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.record.Snapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Schemes end to end on {@link SyntheticTrace#hotWarmCold}: areas A (hot, 20 of 20 samples),
 * B (warm, 10) and C (cold: 1 in aggregation 0, then 0), 64 KiB each, 1 MiB apart. With at
 * most 5 regions and at least 3, the core never splits (it splits only at or below half the
 * maximum) and the areas never merge (they do not touch), so each area is one region and every
 * count below follows from the kernel's rules by hand. Ages at the end of aggregation k >= 1:
 * A and B k, C k + 1 (C's frequency moved by 1, within the merge threshold of 2).
 *
 * <p>Without a quota the kernel never starts a charge window, so charged_sz only grows: it
 * equals the bytes tried.
 */
class SchemesOnTraceTest
{
    private static final long AREA = 16 * SyntheticTrace.PAGE;
    private static final long C = 0x300000;
    private static final Attributes ATTRS = new Attributes(5_000, 100_000, 1_000_000, 3, 5);

    @TempDir
    Path tmp;

    private int runs;

    private List<Snapshot> monitor(final Scheme... schemes) throws Exception
    {
        runs++;
        final Path trace = SyntheticTrace.hotWarmCold(Long.MAX_VALUE).write(tmp.resolve("t" + runs), 1_000_000_000L);
        final Path out = tmp.resolve("r" + runs);
        final TraceMonitor.Result result = TraceMonitor.run(trace, out, ATTRS, 1, List.of(schemes));
        assertEquals(10, result.aggregations());
        final MonitorRecordReader reader = MonitorRecordReader.open(out);
        assertEquals(schemes[0].toString(), reader.header().get("scheme.0"));
        return reader.snapshots();
    }

    private static Scheme scheme(final SchemeAction action, final AccessPattern pattern, final Quota quota,
        final List<Filter> filters)
    {
        return new Scheme(pattern, action, 0, quota, Watermarks.none(), filters);
    }

    private static Snapshot.SchemeRecord stats(final Snapshot s)
    {
        return s.schemes().get(0);
    }

    /**
     * stat for nr_accesses=0-0, age=5-max tries C from aggregation 4 on (age 5), 6 times, and
     * never A or B; stat applies nothing and does not reset ages.
     */
    @Test
    void statTriesTheColdRegionOnly() throws Exception
    {
        final List<Snapshot> snapshots = monitor(scheme(SchemeAction.STAT,
            new AccessPattern(0, AccessPattern.MAX, 0, 0, 5, AccessPattern.MAX), Quota.unlimited(), List.of()));
        for (int k = 0; k < 10; k++)
        {
            final long tried = Math.max(0, k - 3);
            assertEquals(new Snapshot.SchemeRecord(tried, tried * AREA, 0, 0, tried * AREA, 0, 0, tried * AREA, true),
                stats(snapshots.get(k)), "aggregation " + k);
        }
        final Snapshot.RegionRecord c = snapshots.get(9).targets().get(0).regions().get(2);
        assertEquals(C, c.start());
        assertEquals(10, c.age());
    }

    /**
     * pageout of idle memory (any age) with a 16 KiB size quota reset every 200 ms (two
     * aggregations). Windows start at 100, 300, 500, 700 and 900 ms. In the first aggregation of
     * each window (k odd) the first 16 KiB of C are split off and paged out, using the quota up,
     * and the charge resumes after them (charge_addr_from); in the window's second aggregation
     * (k even) C is whole again (merged back) and is the target's last region, which the kernel
     * skips and so resets the resume point. Each new window counts the last one as exceeded.
     */
    @Test
    void sizeQuotaCapsPageoutPerWindow() throws Exception
    {
        final List<Snapshot> snapshots = monitor(scheme(SchemeAction.PAGEOUT,
            new AccessPattern(0, AccessPattern.MAX, 0, 0, 0, AccessPattern.MAX),
            new Quota(0, 16384, 200, 0, 0, 0, List.of()), List.of()));
        for (int k = 0; k < 10; k++)
        {
            final long applied = (k + 1) / 2;
            final long exceeded = Math.max(0, k / 2);
            final long charged = k % 2 == 1 ? 16384 : 0;
            assertEquals(new Snapshot.SchemeRecord(applied, applied * 16384, applied, applied * 16384,
                applied * 16384, exceeded, 16384, charged, true), stats(snapshots.get(k)), "aggregation " + k);
        }
        // The pageout split C and reset the age of the part it applied to.
        final List<Snapshot.RegionRecord> regions = snapshots.get(1).targets().get(0).regions();
        assertEquals(4, regions.size());
        assertEquals(new Snapshot.RegionRecord(C, C + 16384, 0, 0), regions.get(2));
        assertEquals(new Snapshot.RegionRecord(C + 16384, C + AREA, 0, 2), regions.get(3));
    }

    /**
     * A user_input goal read from a file that says 50 against a target of 100: the scheme
     * under-achieves, so every charge window (100 ms, one per aggregation) the feedback loop
     * raises esz_bp by half (10000 -> 15000 -> 22500 -> 33750 -> 50625 -> 75937 -> 113905 ->
     * 170857 -> 256285 -> 384427 -> 576640), and the effective quota, esz_bp / 10000, with it.
     */
    @Test
    void userInputGoalRaisesTheEffectiveQuota() throws Exception
    {
        final Path input = java.nio.file.Files.writeString(tmp.resolve("input"), "50\n");
        final List<Snapshot> snapshots = monitor(scheme(SchemeAction.STAT,
            new AccessPattern(0, AccessPattern.MAX, 0, 0, 0, AccessPattern.MAX),
            new Quota(0, 0, 100, 0, 0, 0, List.of(new QuotaGoal(QuotaGoal.Metric.USER_INPUT, 100,
                new UserInputFile(input)))), List.of()));
        final long[] esz = {1, 2, 3, 5, 7, 11, 17, 25, 38, 57};
        for (int k = 0; k < 10; k++)
        {
            assertEquals(esz[k], stats(snapshots.get(k)).esz(), "aggregation " + k);
        }
    }

    /** An address filter rejecting B keeps B out of the tried regions; the others are tried every time. */
    @Test
    void addressFilterOutRemovesARange() throws Exception
    {
        final List<Snapshot> snapshots = monitor(scheme(SchemeAction.STAT, AccessPattern.ANY, Quota.unlimited(),
            List.of(Filter.addr(true, false, 0x200000, 0x200000 + AREA))));
        assertEquals(new Snapshot.SchemeRecord(20, 20 * AREA, 0, 0, 20 * AREA, 0, 0, 20 * AREA, true),
            stats(snapshots.get(9)));
    }

    /**
     * An address filter allowing the first half of C: the core splits C at the range's end and
     * applies the action to that half only; A and B fall to the default (rejected, the last
     * filter allows). As in damos_apply_scheme(), the size tried and charged is the region's
     * size before the filter split it: all of C.
     */
    @Test
    void addressFilterInKeepsOnlyTheRange() throws Exception
    {
        final List<Snapshot> snapshots = monitor(scheme(SchemeAction.COLD, AccessPattern.ANY, Quota.unlimited(),
            List.of(Filter.addr(true, true, C, C + AREA / 2))));
        assertEquals(new Snapshot.SchemeRecord(10, 10 * AREA, 10, 10 * AREA / 2, 10 * AREA / 2, 0, 0, 10 * AREA, true),
            stats(snapshots.get(9)));
    }

    /**
     * Two schemes each filtered to one of two idle areas of 16 KiB that touch, X and then C
     * (after a hot area A of 256 KiB, which makes the largest region a third of 304 KiB): X, C and
     * the idle area D after them merge into one region before every
     * application, which starts at X. The first scheme's filter cuts that region at X's end and
     * tries X; the second scheme's filter cuts what is left at C's end and tries C. The kernel's
     * walk would not visit the pieces cut off (damon_for_each_region_safe), and as they merge
     * back before the next application the second scheme would try nothing in the whole run
     * (issue 43); here each scheme tries its area in every aggregation in which it qualifies
     * (age 5 and up: from aggregation 4), and nothing else.
     */
    @Test
    void twoFilteredSchemesEachTryTheirAreaEveryTime() throws Exception
    {
        runs++;
        final long area = 4 * SyntheticTrace.PAGE;
        final long x = 0x300000;
        final long c = x + area;
        final long d = c + area;
        final SyntheticTrace trace = new SyntheticTrace();
        trace.touchPages(1000, 100, x, 12);
        for (long k = 0; k < 200; k++)
        {
            trace.touchPages(k * 5_000_000 + 10_000, 100, 0x100000, 64);
        }
        final Path dir = trace.write(tmp.resolve("t" + runs), 1_000_000_000L);
        final AccessPattern idle = new AccessPattern(0, AccessPattern.MAX, 0, 0, 5, AccessPattern.MAX);
        final Scheme onX = scheme(SchemeAction.STAT, idle, Quota.unlimited(), List.of(Filter.addr(true, true, x, c)));
        final Scheme onC = scheme(SchemeAction.STAT, idle, Quota.unlimited(), List.of(Filter.addr(true, true, c, d)));
        final Path out = tmp.resolve("r" + runs);
        assertEquals(10, TraceMonitor.run(dir, out, ATTRS, 1, List.of(onX, onC)).aggregations());
        final List<Snapshot> snapshots = MonitorRecordReader.open(out).snapshots();
        for (int k = 0; k < 10; k++)
        {
            final long tried = Math.max(0, k - 3);
            assertEquals(tried, snapshots.get(k).schemes().get(0).nrTried(), "scheme on X, aggregation " + k);
            assertEquals(tried, snapshots.get(k).schemes().get(1).nrTried(), "scheme on C, aggregation " + k);
        }
    }

    /**
     * anon is handled by the operations set: every page of a trace is anonymous, so
     * {@code anon:out} leaves every region tried but nothing passed or applied, and
     * {@code anon:in} passes everything.
     */
    @Test
    void anonFilterIsOpsHandled() throws Exception
    {
        final List<Snapshot> out = monitor(scheme(SchemeAction.PAGEOUT, AccessPattern.ANY, Quota.unlimited(),
            List.of(Filter.anon(true, false))));
        assertEquals(new Snapshot.SchemeRecord(30, 30 * AREA, 0, 0, 0, 0, 0, 30 * AREA, true), stats(out.get(9)));
        final List<Snapshot> in = monitor(scheme(SchemeAction.PAGEOUT, AccessPattern.ANY, Quota.unlimited(),
            List.of(Filter.anon(true, true))));
        assertEquals(new Snapshot.SchemeRecord(30, 30 * AREA, 30, 30 * AREA, 30 * AREA, 0, 0, 30 * AREA, true),
            stats(in.get(9)));
    }

    /**
     * Watermarks on a metric that follows the trace's clock: above high until 300 ms, between mid
     * and high until 500 ms (still inactive: it has not dropped below mid), below mid from 500 ms
     * (active: monitoring runs), below low from 800 ms (inactive again). Monitoring pauses while
     * the scheme is inactive, so exactly three aggregations happen, ending at 600, 700 and 800 ms,
     * each trying all three regions.
     */
    @Test
    void watermarksSwitchTheSchemeOnAndOff() throws Exception
    {
        final Path trace = SyntheticTrace.hotWarmCold(Long.MAX_VALUE).write(tmp.resolve("t"), 1_000_000_000L);
        final MonitorClock clock = MonitorClock.virtual();
        final LongSupplier metric = () ->
        {
            final long ms = clock.nowNs() / 1_000_000;
            return ms < 300 ? 900 : ms < 500 ? 600 : ms < 800 ? 400 : 50;
        };
        final Scheme s = new Scheme(AccessPattern.ANY, SchemeAction.STAT, 0, Quota.unlimited(),
            new Watermarks(Watermarks.Metric.FREE_MEM_RATE, 50_000, 800, 500, 100, metric), List.of());
        final TraceIndex index = TraceIndex.read(trace);
        final TraceOperations ops = new TraceOperations(index);
        final Path out = tmp.resolve("r");
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(out,
            MonitorRecordWriter.header(ATTRS, ops.id(), SyntheticTrace.PAGE)))
        {
            final DamonContext ctx = new DamonContext(ATTRS, ops, writer, DamonRandom.seeded(1), clock,
                SyntheticTrace.PAGE);
            ops.addTargets(ctx);
            ctx.addScheme(s);
            ctx.run();
            writer.finish(MonitorRecordWriter.header(ATTRS, ops.id(), SyntheticTrace.PAGE));
        }
        final List<Snapshot> snapshots = MonitorRecordReader.open(out).snapshots();
        assertEquals(3, snapshots.size());
        for (int k = 0; k < 3; k++)
        {
            assertEquals((600 + 100 * k) * 1_000_000L, snapshots.get(k).endNs());
            final long tried = 3 * (k + 1);
            assertEquals(new Snapshot.SchemeRecord(tried, tried * AREA, 0, 0, tried * AREA, 0, 0, tried * AREA, true),
                stats(snapshots.get(k)), "aggregation " + k);
        }
        assertTrue(!s.watermarks().activated());
    }
}
