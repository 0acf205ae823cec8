package io.faultline.damon;

/**
 * What a user of the core is told, {@code struct damon_callback} of include/linux/damon.h (as
 * of Linux 6.8; later kernels replaced some with damon_call()): before monitoring starts,
 * after each sampling interval's access checks are prepared, after each aggregation (once
 * regions are merged, before schemes are applied and counters reset), at the damon_aggregated
 * trace event ({@link #aggregated}) and before it terminates. Reports and
 * schemes are built on these. Returning true stops monitoring, as a non-zero return does in
 * the kernel.
 */
public interface Callbacks
{
    Callbacks NONE = new Callbacks()
    {
    };

    default boolean beforeStart(final DamonContext ctx) throws Exception
    {
        return false;
    }

    default boolean afterSampling(final DamonContext ctx) throws Exception
    {
        return false;
    }

    default boolean afterAggregation(final DamonContext ctx) throws Exception
    {
        return false;
    }

    /**
     * At the end of each aggregation, after the schemes were applied and just before the
     * counters are reset: where kdamond_reset_aggregated() fires the damon_aggregated trace
     * event. Regions are as the schemes left them (split by quotas or filters, ages reset by
     * actions), scheme statistics include this aggregation's application.
     */
    default void aggregated(final DamonContext ctx) throws Exception
    {
    }

    default void beforeTerminate(final DamonContext ctx) throws Exception
    {
    }
}
