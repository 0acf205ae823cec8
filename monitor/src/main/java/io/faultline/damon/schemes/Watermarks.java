package io.faultline.damon.schemes;

import java.util.function.LongSupplier;

/**
 * A scheme's watermarks, {@code struct damos_watermarks} of include/linux/damon.h
 * (Documentation/mm/damon/design.rst, "Watermarks"): a metric checked every {@code intervalUs}
 * while the scheme is inactive; above {@code high} or below {@code low} the scheme is
 * deactivated, and an inactive scheme is activated again only once the metric is below
 * {@code mid}. A scheme starts active (damon_new_scheme()).
 */
public final class Watermarks
{
    /** {@code enum damos_wmark_metric}. */
    public enum Metric
    {
        NONE, FREE_MEM_RATE;

        public String label()
        {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Metric metric;
    private final long intervalUs;
    private final long high;
    private final long mid;
    private final long low;
    private final LongSupplier source;
    private boolean activated = true;

    public Watermarks(final Metric metric, final long intervalUs, final long high, final long mid, final long low,
        final LongSupplier source)
    {
        this.metric = metric;
        this.intervalUs = intervalUs;
        this.high = high;
        this.mid = mid;
        this.low = low;
        this.source = source;
    }

    /** No watermarks: always active. */
    public static Watermarks none()
    {
        return new Watermarks(Metric.NONE, 0, 0, 0, 0, () -> 0);
    }

    public Metric metric()
    {
        return metric;
    }

    public long intervalUs()
    {
        return intervalUs;
    }

    public long high()
    {
        return high;
    }

    public long mid()
    {
        return mid;
    }

    public long low()
    {
        return low;
    }

    public boolean activated()
    {
        return activated;
    }

    /** @return null if valid, else what is wrong in the words of the scheme grammar */
    public String problem()
    {
        if (metric == Metric.NONE)
        {
            return null;
        }
        if (intervalUs <= 0)
        {
            return "the watermarks' check interval must be positive";
        }
        if (!(high >= mid && mid >= low && low >= 0))
        {
            return "watermarks must be HIGH >= MID >= LOW >= 0 (per thousand), not " + high + ":" + mid + ":" + low;
        }
        return null;
    }

    /**
     * damos_wmark_wait_us() of mm/damon/core.c: updates whether the scheme is active and returns
     * 0 if it is, else the time to wait before checking again.
     */
    public long waitUs()
    {
        if (metric == Metric.NONE)
        {
            return 0;
        }
        final long value = source.getAsLong();
        if (value > high || low > value)
        {
            activated = false;
            return intervalUs;
        }
        if (high >= value && value >= mid && !activated)
        {
            return intervalUs;
        }
        activated = true;
        return 0;
    }
}
