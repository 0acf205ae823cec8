package io.faultline.damon;

/**
 * The monitoring attributes of a context, {@code struct damon_attrs} of include/linux/damon.h:
 * the sampling, aggregation and operations-update intervals (microseconds, as in the kernel),
 * the goal of their auto-tuning ({@link IntervalsGoal}, off unless given) and the minimum and
 * maximum number of regions. See Documentation/mm/damon/design.rst, "Access Frequency
 * Monitoring", "Monitoring Intervals Auto-tuning" and "Adaptive Target Regions Adjustment".
 *
 * <p>The defaults are damon_new_ctx()'s in mm/damon/core.c (5 ms, 100 ms, 10 and 1000 regions),
 * except the operations-update interval: 1 s, DAMON's user-space tool damo's default (the core
 * itself starts with 60 s).
 */
public record Attributes(long sampleIntervalUs, long aggrIntervalUs, long opsUpdateIntervalUs,
    int minNrRegions, int maxNrRegions, IntervalsGoal intervalsGoal)
{
    public static final Attributes DEFAULTS = new Attributes(5_000, 100_000, 1_000_000, 10, 1000);

    public Attributes
    {
        intervalsGoal = intervalsGoal == null ? IntervalsGoal.OFF : intervalsGoal;
    }

    /** Attributes without intervals auto-tuning. */
    public Attributes(final long sampleIntervalUs, final long aggrIntervalUs, final long opsUpdateIntervalUs,
        final int minNrRegions, final int maxNrRegions)
    {
        this(sampleIntervalUs, aggrIntervalUs, opsUpdateIntervalUs, minNrRegions, maxNrRegions, IntervalsGoal.OFF);
    }

    public Attributes withIntervalsGoal(final IntervalsGoal goal)
    {
        return new Attributes(sampleIntervalUs, aggrIntervalUs, opsUpdateIntervalUs, minNrRegions, maxNrRegions, goal);
    }

    /** The same attributes with other sampling and aggregation intervals (what tuning changes). */
    public Attributes withIntervals(final long sampleUs, final long aggrUs)
    {
        return new Attributes(sampleUs, aggrUs, opsUpdateIntervalUs, minNrRegions, maxNrRegions, intervalsGoal);
    }

    /**
     * The checks of damon_set_attrs() in mm/damon/core.c (a valid intervals goal, at least 3
     * regions, minimum not above maximum, sampling interval not above aggregation interval),
     * plus one of ours: intervals must be positive, since the {@code trace} operations set
     * advances a clock by them.
     *
     * @return null if valid, else what is wrong, in the words of the command line
     */
    public String problem()
    {
        if (sampleIntervalUs <= 0 || aggrIntervalUs <= 0 || opsUpdateIntervalUs <= 0)
        {
            return "intervals must be positive: sample " + sampleIntervalUs + " us, aggregation " + aggrIntervalUs
                + " us, update " + opsUpdateIntervalUs + " us";
        }
        final String goal = intervalsGoal.problem(sampleIntervalUs);
        if (goal != null)
        {
            return goal;
        }
        if (minNrRegions < 3)
        {
            return "the minimum number of regions must be at least 3 (one per region of the three-region layout), not "
                + minNrRegions;
        }
        if (minNrRegions > maxNrRegions)
        {
            return "the minimum number of regions (" + minNrRegions + ") is above the maximum (" + maxNrRegions
                + "); give a minimum at most the maximum";
        }
        if (sampleIntervalUs > aggrIntervalUs)
        {
            return "the aggregation interval (" + aggrIntervalUs + " us) is shorter than the sampling interval ("
                + sampleIntervalUs + " us); an aggregation holds whole samples, give an aggregation interval at least "
                + "the sampling interval";
        }
        return null;
    }

    /** @throws IllegalArgumentException with {@link #problem()} if the attributes are not valid */
    public Attributes validated()
    {
        final String problem = problem();
        if (problem != null)
        {
            throw new IllegalArgumentException(problem);
        }
        return this;
    }

    /**
     * damon_max_nr_accesses() of include/linux/damon.h: the number of samples in one
     * aggregation interval, the largest value nr_accesses can reach.
     */
    public long maxNrAccesses()
    {
        return Math.min(aggrIntervalUs / Math.max(sampleIntervalUs, 1), 0xFFFF_FFFFL);
    }

    /** Sampling intervals per aggregation: the kernel advances next_aggregation_sis by this. */
    public long samplesPerAggregation()
    {
        return aggrIntervalUs / Math.max(sampleIntervalUs, 1);
    }

    /** Sampling intervals per operations update. */
    public long samplesPerOpsUpdate()
    {
        return opsUpdateIntervalUs / Math.max(sampleIntervalUs, 1);
    }
}
