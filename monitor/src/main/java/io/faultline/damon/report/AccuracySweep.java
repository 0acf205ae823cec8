package io.faultline.damon.report;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.faultline.damon.Attributes;
import io.faultline.damon.Callbacks;
import io.faultline.damon.DamonContext;
import io.faultline.damon.DamonRandom;
import io.faultline.damon.MonitorClock;
import io.faultline.damon.Target;
import io.faultline.damon.ops.TraceIndex;
import io.faultline.damon.ops.TraceOperations;
import io.faultline.damon.record.Snapshot;

/**
 * DAMON run over one complete trace with each of several attribute choices (intervals, region
 * bounds, an intervals auto-tuning goal), in memory, each result compared with the exact
 * counts of the same trace ({@link Accuracy}): which attributes describe this program best, and
 * what each costs. The cost is DAMON's work, the access checks: one per region per sampling
 * interval, per second of the trace's time (on a live program each is a page disabled and, if
 * touched, a fault handed to the agent and back).
 */
public final class AccuracySweep
{
    /**
     * One choice's outcome.
     *
     * @param attributes      the choice
     * @param report          DAMON's errors against the trace
     * @param checksPerSecond access checks per second of the trace's time
     * @param lastAttributes  the intervals in force at the end (tuning moves them)
     */
    public record Trial(Attributes attributes, Accuracy.Report report, double checksPerSecond,
        Attributes lastAttributes)
    {
    }

    private AccuracySweep()
    {
    }

    /** Runs every choice on {@code threads} threads; results in the order of {@code choices}. */
    public static List<Trial> run(final TraceIndex trace, final List<Attributes> choices, final long seed,
        final int threads) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, choices.size())),
            runnable ->
            {
                final Thread thread = new Thread(runnable, "faultline-accuracy");
                thread.setDaemon(true);
                return thread;
            });
        try
        {
            final List<Future<Trial>> futures = new ArrayList<>();
            for (final Attributes attrs : choices)
            {
                futures.add(pool.submit(() -> trial(trace, attrs, seed)));
            }
            final List<Trial> trials = new ArrayList<>();
            for (final Future<Trial> future : futures)
            {
                trials.add(future.get());
            }
            return trials;
        }
        catch (final ExecutionException ex)
        {
            throw ex.getCause() instanceof Exception cause ? cause : ex;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** One choice: the monitor over the trace, every aggregation kept, then the comparison. */
    public static Trial trial(final TraceIndex trace, final Attributes attrs, final long seed) throws Exception
    {
        final TraceOperations ops = new TraceOperations(trace);
        final List<Snapshot> snapshots = new ArrayList<>();
        final long[] checks = new long[1];
        final Callbacks collect = new Callbacks()
        {
            private long lastEndNs;

            @Override
            public boolean afterSampling(final DamonContext ctx)
            {
                for (final Target t : ctx.targets())
                {
                    checks[0] += t.nrRegions();
                }
                return false;
            }

            @Override
            public void aggregated(final DamonContext ctx)
            {
                final Snapshot s = Snapshot.of(ctx, snapshots.size(), lastEndNs);
                snapshots.add(s);
                lastEndNs = s.endNs();
            }
        };
        final DamonContext ctx = new DamonContext(attrs, ops, collect, DamonRandom.seeded(seed), MonitorClock.virtual(),
            trace.pageSize());
        ops.addTargets(ctx);
        ctx.run();
        final ExactAccesses truth = attrs.intervalsGoal().enabled()
            ? ExactAccesses.tuned(trace, attrs.samplesPerAggregation())
            : new ExactAccesses(trace, attrs.sampleIntervalUs(), attrs.aggrIntervalUs());
        final double seconds = Math.max(trace.endNs(), 1) / 1e9;
        return new Trial(attrs, Accuracy.compare(snapshots, truth), checks[0] / seconds, ctx.attrs());
    }
}
