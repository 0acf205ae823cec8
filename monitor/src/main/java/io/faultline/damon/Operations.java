package io.faultline.damon;

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

    /** Picks each region's sampling address (with {@link DamonContext#random}) and clears its accessed state. */
    default void prepareAccessChecks(final DamonContext ctx) throws Exception
    {
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

    /** Applies a DAMOS action to a region; returns the bytes it was applied to (0: not supported). */
    default long applyScheme(final DamonContext ctx, final Target target, final Region region, final SchemeAction action)
    {
        return 0;
    }

    /** Releases what the operations set holds, when monitoring ends. */
    default void cleanup(final DamonContext ctx)
    {
    }
}
