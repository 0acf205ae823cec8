package io.faultline.damon;

import io.faultline.damon.schemes.Applied;
import io.faultline.damon.schemes.Scheme;
import io.faultline.damon.schemes.SchemeScore;

/**
 * An operations set, {@code struct damon_operations} of include/linux/damon.h: the address
 * space specific primitives that the core calls (Documentation/mm/damon/design.rst,
 * "Operations Set Layer"). The core never touches an address space itself; an operations set
 * builds the initial regions ({@link #init}), follows the address space as it changes
 * ({@link #update}), picks and prepares one sampling address per region
 * ({@link #prepareAccessChecks}), reports whether each was accessed ({@link #checkAccesses},
 * through {@link AccessRate#update}), and says when a target is gone ({@link #targetValid}).
 *
 * <p>Implementations: {@code trace} (a recorded faultline trace, replayed on its clock,
 * {@link io.faultline.damon.ops.TraceOperations}); {@code vaddr} and {@code fvaddr} (a live
 * process's virtual address space, through the agent's access checks) are to come and need
 * nothing more than this interface and {@link io.faultline.damon.ops.ThreeRegions}.
 */
public interface Operations
{
    /** The operations set's name, as the kernel's DAMON_OPS_* ids: vaddr, fvaddr, paddr, trace. */
    String id();

    /** Builds each target's initial regions (kernel: only for targets that have none). */
    default void init(final DamonContext ctx) throws Exception
    {
    }

    /** Follows changes of the address spaces, every operations-update interval. */
    default void update(final DamonContext ctx) throws Exception
    {
    }

    /**
     * Whether a target has memory that no region covers and that appeared since the last
     * {@link #init} or {@link #update}: the core then updates at once instead of at the next
     * operations-update interval. The kernel has no such call (kdamond_fn updates on the interval
     * only), and the default keeps its behaviour. A live set that learns of new mappings as they
     * are made uses it because the monitor starts together with the program: the kernel's vaddr
     * is attached to a running process, whereas a launched program maps most of its memory just
     * after the initial regions are built, and would go unmonitored until the first update.
     */
    default boolean uncoveredMemory(final DamonContext ctx) throws Exception
    {
        return false;
    }

    /** Picks each region's sampling address (with {@link DamonContext#random}) and clears its accessed state. */
    default void prepareAccessChecks(final DamonContext ctx) throws Exception
    {
    }

    /**
     * Lets one sampling interval pass between preparing and checking accesses, as kdamond_fn
     * sleeps (kdamond_usleep() in mm/damon/core.c). The default sleeps on the monitoring clock;
     * an operations set whose windows are timed elsewhere (vaddr: the agent's deadline loop
     * closes each one) waits for that instead.
     */
    default void awaitSampleInterval(final DamonContext ctx, final MonitorClock clock) throws Exception
    {
        clock.sleepUs(ctx.attrs().sampleIntervalUs());
    }

    /**
     * Checks whether each region's sampling address was accessed since it was prepared, counts
     * it with {@link AccessRate#update}, and returns the largest nr_accesses of any region.
     */
    default int checkAccesses(final DamonContext ctx) throws Exception
    {
        return 0;
    }

    /** Called after every aggregation's counters are reset. */
    default void resetAggregated(final DamonContext ctx)
    {
    }

    /** Whether {@code target} still exists; monitoring stops when no target does. */
    default boolean targetValid(final DamonContext ctx, final Target target)
    {
        return true;
    }

    /**
     * Applies {@code scheme}'s action to {@code region} of {@code target}
     * ({@code damon_operations.apply_scheme}). The core has already checked the access pattern,
     * the quota (the region is cut to what is left of it) and the core-handled filters (address,
     * target); the operations set handles the rest:
     *
     * <ul>
     * <li>the ops-handled filters ({@code anon}), page by page: for each page (or folio) it would
     * act on it asks {@link io.faultline.damon.schemes.Scheme#opsFilterOut(boolean)} with whether
     * that page is anonymous, and leaves rejected pages alone. A live set learns that from the
     * mapping (/proc/PID/smaps, or /proc/PID/pagemap's file-page bit);</li>
     * <li>the action itself, or for {@code stat} nothing;</li>
     * <li>the result: bytes the action was applied to (0 for stat, and for pages the action
     * failed on, as the kernel's madvise-based actions count 0 for a failed call) and bytes that
     * passed the ops-handled filters (the whole region when there are none).</li>
     * </ul>
     *
     * The core then charges the region's whole size to the quota, resets the region's age unless
     * the action is stat, and counts the result. The default applies nothing.
     */
    default Applied applyScheme(final DamonContext ctx, final Target target, final Region region, final Scheme scheme)
    {
        return Applied.NOTHING;
    }

    /**
     * The region's priority for {@code scheme} when its quota binds
     * ({@code damon_operations.get_scheme_score}), 0 to {@link SchemeScore#MAX_SCORE}, higher
     * first. The default scores by action ({@link SchemeScore#forAction}).
     */
    default int schemeScore(final DamonContext ctx, final Target target, final Region region, final Scheme scheme)
    {
        return SchemeScore.forAction(ctx, region, scheme);
    }

    /** Releases what the operations set holds, when monitoring ends. */
    default void cleanup(final DamonContext ctx)
    {
    }
}
