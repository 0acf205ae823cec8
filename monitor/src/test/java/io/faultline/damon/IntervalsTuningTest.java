package io.faultline.damon;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.ops.TraceIndex;
import io.faultline.damon.ops.TraceMonitor;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.report.Accuracy;
import io.faultline.damon.report.AccuracySweep;
import io.faultline.damon.report.ExactAccesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * DAMON's intervals auto-tuning (mm/damon/core.c: damon_get_intervals_score(),
 * damon_get_intervals_adaptation_bp(), kdamond_tune_intervals(), damon_valid_intervals_goal()),
 * with values worked out by hand from the code: the kernel's unit tests have no case for it.
 */
class IntervalsTuningTest
{
    @TempDir
    Path tmp;

    private static final IntervalsGoal FOUR_PERCENT = new IntervalsGoal(400, 3, 5_000, 10_000_000);

    /** A context at 5 ms / 100 ms (20 samples per aggregation) with one target of these regions. */
    private static DamonContext context(final IntervalsGoal goal, final Region... regions)
    {
        final DamonContext ctx = new DamonContext(Attributes.DEFAULTS.withIntervalsGoal(goal), () -> "test",
            Callbacks.NONE, DamonRandom.seeded(1), MonitorClock.virtual(), 1);
        final Target t = new Target(0);
        for (final Region r : regions)
        {
            t.addRegion(r);
        }
        ctx.addTarget(t);
        return ctx;
    }

    /**
     * 100 bytes accessed in 2 of 20 samples, 200 never: 200 access events of 6,000 observable, the
     * goal 4 % of them (240): score 200 * 10,000 / 240 = 8,333. The feedback loop raises its input
     * 1e8 by (10,000 - 8,333) / 10,000: 116,670,000, adaptation 11,667 bp; 5 ms becomes 5,833 us
     * and the aggregation 20 of them, 116,660 us.
     */
    @Test
    void belowTheGoalTheIntervalsGrowInProportion()
    {
        final DamonContext ctx = context(FOUR_PERCENT, new Region(0, 100).with(2, 0, 0),
            new Region(100, 300).with(0, 0, 0));
        assertEquals(20, ctx.aggrSamples());
        assertEquals(8_333, IntervalsTuning.score(ctx));
        assertEquals(11_667, IntervalsTuning.adaptationBp(ctx));
        IntervalsTuning.tune(ctx);
        assertEquals(5_833, ctx.attrs().sampleIntervalUs());
        assertEquals(116_660, ctx.attrs().aggrIntervalUs());
        assertEquals(20, ctx.aggrSamples());
    }

    /** No access at all: score 0, the input doubles (20,000 bp), up to the goal's maximum. */
    @Test
    void withNoAccessTheSamplingIntervalDoublesUpToTheMaximum()
    {
        final DamonContext ctx = context(new IntervalsGoal(400, 3, 5_000, 8_000), new Region(0, 100));
        assertEquals(0, IntervalsTuning.score(ctx));
        assertEquals(20_000, IntervalsTuning.adaptationBp(ctx));
        IntervalsTuning.tune(ctx);
        assertEquals(8_000, ctx.attrs().sampleIntervalUs());
        assertEquals(160_000, ctx.attrs().aggrIntervalUs());
    }

    /**
     * Every byte accessed in every sample: score 250,000, at least twice the goal, so the loop's
     * input drops to its minimum, 10,000 (adaptation 1 bp), which the kernel rescales to 5,000 bp:
     * the interval halves, down to the goal's minimum.
     */
    @Test
    void farAboveTheGoalTheSamplingIntervalHalvesDownToTheMinimum()
    {
        final DamonContext ctx = context(new IntervalsGoal(400, 3, 1_000, 10_000_000), new Region(0, 100).with(20, 0, 0));
        assertEquals(250_000, IntervalsTuning.score(ctx));
        assertEquals(5_000, IntervalsTuning.adaptationBp(ctx));
        IntervalsTuning.tune(ctx);
        assertEquals(2_500, ctx.attrs().sampleIntervalUs());
        assertEquals(50_000, ctx.attrs().aggrIntervalUs());
        final DamonContext floored = context(FOUR_PERCENT, new Region(0, 100).with(20, 0, 0));
        IntervalsTuning.tune(floored);
        assertEquals(5_000, floored.attrs().sampleIntervalUs());
    }

    /** On the goal the loop keeps its input: adaptation 5,000 + 10,000 / 2 = 10,000, nothing changes. */
    @Test
    void onTheGoalNothingChanges()
    {
        // 240 of 6,000 events: 4 %
        final DamonContext ctx = context(FOUR_PERCENT, new Region(0, 120).with(2, 0, 0), new Region(120, 300));
        assertEquals(10_000, IntervalsTuning.score(ctx));
        assertEquals(10_000, IntervalsTuning.adaptationBp(ctx));
        IntervalsTuning.tune(ctx);
        assertEquals(Attributes.DEFAULTS.withIntervalsGoal(FOUR_PERCENT), ctx.attrs());
    }

    /** damon_valid_intervals_goal(): bounds in order and holding the sampling interval; aggrs 0 is off. */
    @Test
    void aGoalMustHoldTheSamplingInterval()
    {
        assertNull(Attributes.DEFAULTS.withIntervalsGoal(FOUR_PERCENT).problem());
        assertNull(Attributes.DEFAULTS.withIntervalsGoal(new IntervalsGoal(400, 0, 9_000, 1_000)).problem());
        assertNotNull(Attributes.DEFAULTS.withIntervalsGoal(new IntervalsGoal(400, 3, 9_000, 1_000)).problem());
        assertNotNull(Attributes.DEFAULTS.withIntervalsGoal(new IntervalsGoal(400, 3, 6_000, 10_000)).problem());
        assertNotNull(Attributes.DEFAULTS.withIntervalsGoal(new IntervalsGoal(400, 3, 1_000, 4_000)).problem());
    }

    /**
     * kdamond_fn() tunes after every third aggregation (goal aggrs 3) on hotWarmCold's areas: A
     * (16 pages) in every 5 ms, B in every 10 ms, C idle. At 300 ms A and B filled 30 of 60 samples
     * (score 124,999: halve to 2.5 ms), at 450 ms 15 of 60 (62,499: 1.25 ms), at 525 ms 8 of 60
     * (33,333: halve, floored at 1 ms): aggregations of 100, 50, 25, then 20 ms. The exact counts
     * in those windows of 20 samples agree with DAMON's on these uniform areas: no error.
     */
    @Test
    void theMonitorTunesEveryGoalAggregationsAndMatchesTheTruthInTheTunedWindows() throws Exception
    {
        final Path trace = SyntheticTrace.hotWarmCold(Long.MAX_VALUE).write(tmp.resolve("t"), 1_000_000_000L);
        final List<Long> lengthsMs = new ArrayList<>();
        final Callbacks lengths = new Callbacks()
        {
            private long last;

            @Override
            public void aggregated(final DamonContext ctx)
            {
                lengthsMs.add((ctx.clock().nowNs() - last) / 1_000_000);
                last = ctx.clock().nowNs();
            }
        };
        final TraceIndex index = TraceIndex.read(trace);
        final io.faultline.damon.ops.TraceOperations ops = new io.faultline.damon.ops.TraceOperations(index);
        final IntervalsGoal goal = new IntervalsGoal(400, 3, 1_000, 10_000_000);
        final DamonContext ctx = new DamonContext(Attributes.DEFAULTS.withIntervalsGoal(goal), ops, lengths,
            DamonRandom.seeded(1), MonitorClock.virtual(), SyntheticTrace.PAGE);
        ops.addTargets(ctx);
        ctx.run();
        assertEquals(List.of(100L, 100L, 100L, 50L, 50L, 50L, 25L, 25L, 25L, 20L), lengthsMs.subList(0, 10));
        assertEquals(1_000, ctx.attrs().sampleIntervalUs());

        final AccuracySweep.Trial trial = AccuracySweep.trial(index, Attributes.DEFAULTS.withIntervalsGoal(goal), 1);
        assertEquals(0.0, trial.report().meanHeatError());
        assertEquals(0.0, trial.report().meanAbsWssError());
        assertEquals(new Attributes(1_000, 20_000, 1_000_000, 10, 1000, goal), trial.lastAttributes());

        // a monitoring record keeps the goal, and its aggregations compare with the tuned windows
        final Path record = tmp.resolve("r");
        TraceMonitor.run(trace, record, Attributes.DEFAULTS.withIntervalsGoal(goal), 1);
        final MonitorRecordReader reader = MonitorRecordReader.open(record);
        assertEquals(Attributes.DEFAULTS.withIntervalsGoal(goal), reader.attributes());
        final Accuracy.Report report = Accuracy.compare(reader.snapshots(), ExactAccesses.tuned(index, 20));
        assertEquals(trial.report(), report);
    }
}
