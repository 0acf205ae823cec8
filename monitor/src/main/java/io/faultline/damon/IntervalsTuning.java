package io.faultline.damon;

import io.faultline.damon.schemes.FeedLoop;

/**
 * DAMON's monitoring intervals auto-tuning, rule for rule after mm/damon/core.c as of torvalds/linux
 * commit 004ded6bee11 (Linux 6.16/6.17): damon_get_intervals_score(),
 * damon_get_intervals_adaptation_bp() and kdamond_tune_intervals(); when it runs is kdamond_fn()'s
 * ({@link DamonContext#run()}: every {@code aggrs} aggregations, after the schemes are applied and
 * before the counters are reset). The kernel's unit tests (mm/damon/tests/core-kunit.h) have no
 * case for these; {@code IntervalsTuningTest} holds them to values worked out from the code.
 *
 * <p>The score compares the access events of the last aggregation, the sum over regions of size
 * times nr_accesses, with the goal's share ({@link IntervalsGoal#accessBp()}) of the most that
 * could be observed, size times samples per aggregation; the feedback loop of DAMOS quota goals
 * ({@link FeedLoop}) turns it into a factor between 0.5 and 2 for the sampling interval; the
 * aggregation interval follows, keeping its number of samples ({@link DamonContext#aggrSamples()}).
 * The kernel's unsigned long arithmetic is kept: products wrap at 64 bits and divide unsigned.
 */
public final class IntervalsTuning
{
    /** damon_get_intervals_adaptation_bp(): the feedback loop's fixed last input. */
    static final long LAST_INPUT = 100_000_000;

    private IntervalsTuning()
    {
    }

    /** damon_get_intervals_score(): the observed access events against the goal, in bp (10,000 = on goal). */
    public static long score(final DamonContext ctx)
    {
        long maxAccessEvents = 0;
        long accessEvents = 0;
        for (final Target t : ctx.targets())
        {
            for (final Region r : t.regions())
            {
                maxAccessEvents += r.size() * ctx.aggrSamples();
                accessEvents += r.size() * r.nrAccesses();
            }
        }
        long target = Long.divideUnsigned(maxAccessEvents * ctx.attrs().intervalsGoal().accessBp(), 10_000);
        target = target == 0 ? 1 : target;
        return Long.divideUnsigned(accessEvents * 10_000, target);
    }

    /**
     * damon_get_intervals_adaptation_bp(): the factor for the sampling interval in bp, from 5,000
     * (halve) to 20,000 (double); 10,000 leaves it.
     */
    public static long adaptationBp(final DamonContext ctx)
    {
        final long score = score(ctx);
        // a score beyond Long.MAX_VALUE is, unsigned, far above twice the goal
        long adaptation = FeedLoop.nextInput(LAST_INPUT, score < 0 ? Long.MAX_VALUE : score) / 10_000;
        if (adaptation <= 10_000)
        {
            adaptation = 5_000 + adaptation / 2; // avoid too rapid reduction
        }
        return adaptation;
    }

    /**
     * kdamond_tune_intervals(): scales the sampling interval by {@link #adaptationBp}, within the
     * goal's bounds, sets the aggregation interval to it times the samples per aggregation and
     * applies both as damon_set_attrs() does (rescaling nr_accesses and age).
     */
    public static void tune(final DamonContext ctx)
    {
        final long adaptation = adaptationBp(ctx);
        if (adaptation == 10_000)
        {
            return;
        }
        final Attributes attrs = ctx.attrs();
        final IntervalsGoal goal = attrs.intervalsGoal();
        long sample = Math.min(goal.maxSampleUs(), Long.divideUnsigned(attrs.sampleIntervalUs() * adaptation, 10_000));
        sample = Math.max(goal.minSampleUs(), sample);
        ctx.setTunedIntervals(sample, sample * ctx.aggrSamples());
    }
}
