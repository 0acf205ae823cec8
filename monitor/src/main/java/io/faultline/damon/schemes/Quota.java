package io.faultline.damon.schemes;

import java.util.List;

import io.faultline.damon.Target;

/**
 * A scheme's quota, {@code struct damos_quota} of include/linux/damon.h, and its state between
 * charge windows (Documentation/mm/damon/design.rst, "Quotas"): a time quota ({@code ms}) and a
 * size quota ({@code sz}) per {@code resetIntervalMs}, the weights that prioritize regions when
 * the quota binds, and goals that tune the effective size quota ({@code esz}) by feedback.
 *
 * <p>Time is the monitor's clock: a charge window starts when {@code resetIntervalMs} of it have
 * passed since the last one started, and the first check starts one (the kernel compares
 * jiffies, which start far from 0). The time an action took is measured on the same clock, so
 * over a recorded trace (a virtual clock, which does not move while actions run) nothing is ever
 * charged in time and a time quota stays at the kernel's starting throughput, PAGE_SIZE * 1024
 * bytes per millisecond.
 */
public final class Quota
{
    private final long ms;
    private final long sz;
    private final long resetIntervalMs;
    private final int weightSz;
    private final int weightNrAccesses;
    private final int weightAge;
    private final List<QuotaGoal> goals;

    long esz;
    long eszBp;
    long chargedSz;
    long chargedFromNs;
    boolean windowStarted;
    long totalChargedSz;
    long totalChargedNs;
    Target chargeTargetFrom;
    long chargeAddrFrom;
    int minScore;

    public Quota(final long ms, final long sz, final long resetIntervalMs, final int weightSz,
        final int weightNrAccesses, final int weightAge, final List<QuotaGoal> goals)
    {
        this.ms = ms;
        this.sz = sz;
        this.resetIntervalMs = resetIntervalMs;
        this.weightSz = weightSz;
        this.weightNrAccesses = weightNrAccesses;
        this.weightAge = weightAge;
        this.goals = List.copyOf(goals);
    }

    /** Unlimited, with the weights damo uses when none are given (all 0). */
    public static Quota unlimited()
    {
        return new Quota(0, 0, 0, 0, 0, 0, List.of());
    }

    public long ms()
    {
        return ms;
    }

    public long sz()
    {
        return sz;
    }

    public long resetIntervalMs()
    {
        return resetIntervalMs;
    }

    public int weightSz()
    {
        return weightSz;
    }

    public int weightNrAccesses()
    {
        return weightNrAccesses;
    }

    public int weightAge()
    {
        return weightAge;
    }

    public List<QuotaGoal> goals()
    {
        return goals;
    }

    /** Whether any limit is set: damos_adjust_quota() does nothing otherwise. */
    public boolean enabled()
    {
        return ms != 0 || sz != 0 || !goals.isEmpty();
    }

    /** The effective size quota of the current charge window; 0 if none applies. */
    public long esz()
    {
        return esz;
    }

    /** Bytes charged in the current charge window. */
    public long chargedSz()
    {
        return chargedSz;
    }

    /** The lowest score a region may have to be applied in this window (damos_adjust_quota()). */
    public int minScore()
    {
        return minScore;
    }

    /** @return null if valid, else what is wrong in the words of the scheme grammar */
    public String problem()
    {
        if (ms < 0 || sz < 0 || resetIntervalMs < 0)
        {
            return "quota_ms, quota_sz and quota_reset must not be negative";
        }
        if (enabled() && resetIntervalMs == 0)
        {
            return "a quota (quota_ms, quota_sz or goal) needs its reset interval; add quota_reset=1s, say";
        }
        if (weightSz < 0 || weightNrAccesses < 0 || weightAge < 0)
        {
            return "weights must not be negative";
        }
        return null;
    }

    /** damos_quota_score(): the highest goal score, which makes the scheme least aggressive. */
    long goalScore()
    {
        long highest = 0;
        for (final QuotaGoal g : goals)
        {
            g.updateCurrentValue();
            highest = Math.max(highest, g.score());
        }
        return highest;
    }

    /**
     * damos_set_effective_quota(): the size quota, the size the time quota allows at the
     * throughput measured so far, and the goals' feedback-tuned size; the smallest of those set.
     *
     * @param pageSize PAGE_SIZE, for the throughput assumed before anything was charged
     */
    void setEffectiveQuota(final long pageSize)
    {
        if (ms == 0 && goals.isEmpty())
        {
            esz = sz;
            return;
        }
        long e = Long.MAX_VALUE;
        if (!goals.isEmpty())
        {
            eszBp = FeedLoop.nextInput(Math.max(eszBp, 10_000L), goalScore());
            e = eszBp / 10_000;
        }
        if (ms != 0)
        {
            final long throughput = totalChargedNs != 0 ? totalChargedSz * 1_000_000 / totalChargedNs : pageSize * 1024;
            e = Math.min(multiplySaturated(throughput, ms), e);
        }
        if (sz != 0 && sz < e)
        {
            e = sz;
        }
        esz = e;
    }

    private static long multiplySaturated(final long a, final long b)
    {
        final long high = Math.multiplyHigh(a, b);
        final long low = a * b;
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }
}
