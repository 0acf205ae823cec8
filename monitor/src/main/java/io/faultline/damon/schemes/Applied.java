package io.faultline.damon.schemes;

/**
 * What an operations set's {@link io.faultline.damon.Operations#applyScheme} did to one region
 * (the return value and the {@code sz_filter_passed} out-parameter of the kernel's
 * {@code damon_operations.apply_scheme}).
 *
 * @param sz                bytes the action was applied to (0 for stat, whose action is counting)
 * @param szOpsFilterPassed bytes of the region the operations-set-handled filters allowed
 *                          ({@link Scheme#opsFilterOut}); the whole region when it has none
 */
public record Applied(long sz, long szOpsFilterPassed)
{
    public static final Applied NOTHING = new Applied(0, 0);
}
