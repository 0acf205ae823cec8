package io.faultline.damon;

/**
 * What a user of the core is told, {@code struct damon_callback} of include/linux/damon.h (as
 * of Linux 6.8; later kernels replaced some with damon_call()): before monitoring starts,
 * after each sampling interval's access checks are prepared, after each aggregation (once
 * regions are merged, before their counters are reset) and before it terminates. Reports and
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

    default void beforeTerminate(final DamonContext ctx) throws Exception
    {
    }
}
