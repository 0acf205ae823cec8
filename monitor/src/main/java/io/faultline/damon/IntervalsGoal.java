package io.faultline.damon;

/**
 * The goal of DAMON's monitoring intervals auto-tuning, {@code struct damon_intervals_goal} of
 * include/linux/damon.h (Linux 6.15; Documentation/mm/damon/design.rst, "Monitoring Intervals
 * Auto-tuning"): every {@code aggrs} aggregation intervals, the sampling interval (and with it
 * the aggregation interval, which keeps its number of samples) is scaled so that the access
 * events DAMON observes come to {@code accessBp} basis points of those it could observe, within
 * {@code [minSampleUs, maxSampleUs]} ({@link IntervalsTuning}). {@code aggrs} 0 turns tuning
 * off. The kernel's document and its DAMON_STAT module use 4 % (400 bp), 3 aggregations, 5 ms
 * and 10 s ({@link #RECOMMENDED}).
 */
public record IntervalsGoal(long accessBp, long aggrs, long minSampleUs, long maxSampleUs)
{
    public static final IntervalsGoal OFF = new IntervalsGoal(0, 0, 0, 0);
    public static final IntervalsGoal RECOMMENDED = new IntervalsGoal(400, 3, 5_000, 10_000_000);

    public boolean enabled()
    {
        return aggrs != 0;
    }

    /**
     * damon_valid_intervals_goal() of mm/damon/core.c: with tuning on, the bounds must be in order
     * and hold the sampling interval.
     *
     * @return null if valid, else what is wrong
     */
    public String problem(final long sampleIntervalUs)
    {
        if (!enabled())
        {
            return null;
        }
        if (accessBp < 0 || aggrs < 0 || minSampleUs < 0)
        {
            return "the intervals goal's values must not be negative: " + this;
        }
        if (minSampleUs > maxSampleUs)
        {
            return "the intervals goal's minimum sampling interval (" + minSampleUs + " us) is above its maximum ("
                + maxSampleUs + " us)";
        }
        if (sampleIntervalUs < minSampleUs || maxSampleUs < sampleIntervalUs)
        {
            return "the sampling interval (" + sampleIntervalUs + " us) is outside the intervals goal's bounds ("
                + minSampleUs + " to " + maxSampleUs + " us); start from a sampling interval between them";
        }
        return null;
    }
}
