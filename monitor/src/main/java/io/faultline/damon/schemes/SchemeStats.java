package io.faultline.damon.schemes;

/**
 * A scheme's statistics, {@code struct damos_stat} of include/linux/damon.h, counted from the
 * start as the kernel's are (Documentation/mm/damon/design.rst, "Statistics"): regions and
 * bytes the action was tried on (matched the pattern, within the quota, not rejected by a
 * core-handled filter), regions and bytes it was applied to, bytes that passed the
 * operations-set-handled filters, and charge windows that ended with the quota exceeded.
 */
public record SchemeStats(long nrTried, long szTried, long nrApplied, long szApplied, long szOpsFilterPassed,
    long qtExceeds)
{
    public static final SchemeStats ZERO = new SchemeStats(0, 0, 0, 0, 0, 0);

    /** damos_update_stat(). */
    SchemeStats plus(final long szTriedNow, final long szAppliedNow, final long szPassedNow)
    {
        return new SchemeStats(nrTried + 1, szTried + szTriedNow, nrApplied + (szAppliedNow != 0 ? 1 : 0),
            szApplied + szAppliedNow, szOpsFilterPassed + szPassedNow, qtExceeds);
    }

    SchemeStats quotaExceeded()
    {
        return new SchemeStats(nrTried, szTried, nrApplied, szApplied, szOpsFilterPassed, qtExceeds + 1);
    }
}
