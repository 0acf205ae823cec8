package io.faultline.damon.schemes;

import java.util.function.LongSupplier;

/**
 * A quota auto-tuning goal, {@code struct damos_quota_goal} of include/linux/damon.h: a metric,
 * the value it should have, and its current value, taken at every charge window's start
 * (damos_set_quota_goal_current_value() of mm/damon/core.c).
 *
 * <ul>
 * <li>{@code user_input}: the value the user gives while monitoring runs; here {@code source}
 * returns it ({@link UserInputFile} re-reads a file).</li>
 * <li>{@code some_mem_psi_us}: microseconds some task stalled on memory since the last check;
 * {@code source} returns the cumulative total ({@link PressureStall}) and the goal keeps the
 * difference, as the kernel does with last_psi_total.</li>
 * </ul>
 */
public final class QuotaGoal
{
    /** {@code enum damos_quota_goal_metric}, the two this monitor supports. */
    public enum Metric
    {
        USER_INPUT, SOME_MEM_PSI_US;

        public String label()
        {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Metric metric;
    private final long targetValue;
    private final LongSupplier source;
    private long currentValue;
    private long lastPsiTotal;

    public QuotaGoal(final Metric metric, final long targetValue, final LongSupplier source)
    {
        if (targetValue <= 0)
        {
            throw new IllegalArgumentException("a goal's target value must be positive: " + targetValue);
        }
        this.metric = metric;
        this.targetValue = targetValue;
        this.source = source;
    }

    public Metric metric()
    {
        return metric;
    }

    public long targetValue()
    {
        return targetValue;
    }

    /** Where the metric's value comes from. */
    public LongSupplier source()
    {
        return source;
    }

    public long currentValue()
    {
        return currentValue;
    }

    /** damos_set_quota_goal_current_value(). */
    void updateCurrentValue()
    {
        switch (metric)
        {
            case USER_INPUT -> currentValue = source.getAsLong();
            case SOME_MEM_PSI_US ->
            {
                final long now = source.getAsLong();
                currentValue = now - lastPsiTotal;
                lastPsiTotal = now;
            }
            default -> throw new IllegalStateException(metric.toString());
        }
    }

    /** The goal's score: current value in units of 1/10,000 of the target. */
    long score()
    {
        return currentValue * 10_000 / targetValue;
    }
}
