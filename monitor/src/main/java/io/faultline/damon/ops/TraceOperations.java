package io.faultline.damon.ops;

import java.util.List;

import io.faultline.damon.AccessRate;
import io.faultline.damon.AddressRange;
import io.faultline.damon.DamonContext;
import io.faultline.damon.Operations;
import io.faultline.damon.Region;
import io.faultline.damon.TargetRegions;
import io.faultline.damon.Target;
import io.faultline.damon.SchemeAction;
import io.faultline.damon.schemes.Applied;
import io.faultline.damon.schemes.Scheme;

/**
 * The {@code trace} operations set: DAMON run over a recorded faultline trace, on the trace's
 * own clock (the context's clock must be {@link io.faultline.damon.MonitorClock#virtual()},
 * starting at the trace's time 0). Targets are the trace's processes. A region's sampling
 * address, chosen when access checks are prepared at time t, counts as accessed at t + sample
 * iff the trace holds a reference of that process to its page in {@code [t, t + sample)}: the
 * same question vaddr answers with the page table's accessed bit.
 *
 * <p>The address space of a process is the set of pages it referenced anywhere in the trace,
 * reduced as vaddr reduces /proc/PID/maps: runs of consecutive pages are its mappings, and the
 * three regions leave out the two biggest gaps between them ({@link ThreeRegions}); a process
 * whose pages form fewer than three runs gets one region per run, where the kernel would give
 * it none.
 *
 * <p>A trace holds only the references that missed its EVMS, the set of pages the agent keeps
 * enabled: a page referenced again while it is still enabled leaves no record. With
 * {@code --evms 16} nearly every reference to a page other than the last few is recorded; with
 * the default 512, a page that stays among the 512 most recently trapped pages is seen once and
 * then looks idle, so hot pages of a small working set read as cold. Monitor traces recorded
 * with a tiny EVMS.
 */
public final class TraceOperations implements Operations
{
    private final TraceIndex trace;
    private long checksPreparedAtNs;

    public TraceOperations(final TraceIndex trace)
    {
        this.trace = trace;
    }

    @Override
    public String id()
    {
        return "trace";
    }

    /** One target per process of the trace, in order of first reference. */
    public void addTargets(final DamonContext ctx)
    {
        for (final int pid : trace.pids())
        {
            ctx.addTarget(new Target(pid));
        }
    }

    private List<AddressRange> threeRegions(final DamonContext ctx, final Target t)
    {
        return ThreeRegions.of(trace.touchedRanges((int)t.id()), ctx.minRegionSize(), true);
    }

    /** damon_va_init(): only targets that have no regions yet. */
    @Override
    public void init(final DamonContext ctx)
    {
        for (final Target t : ctx.targets())
        {
            if (t.nrRegions() == 0)
            {
                ThreeRegions.initRegions(ctx, t, threeRegions(ctx, t));
            }
        }
    }

    /** damon_va_update(). */
    @Override
    public void update(final DamonContext ctx)
    {
        for (final Target t : ctx.targets())
        {
            final List<AddressRange> ranges = threeRegions(ctx, t);
            if (!ranges.isEmpty())
            {
                TargetRegions.set(t, ranges, ctx.minRegionSize());
            }
        }
    }

    /** __damon_va_prepare_access_check(): a uniformly random sampling address per region. */
    @Override
    public void prepareAccessChecks(final DamonContext ctx)
    {
        checksPreparedAtNs = ctx.clock().nowNs();
        for (final Target t : ctx.targets())
        {
            for (final Region r : t.regions())
            {
                r.samplingAddr(ctx.random().rand(r.start(), r.end()));
            }
        }
    }

    /** damon_va_check_accesses(). */
    @Override
    public int checkAccesses(final DamonContext ctx)
    {
        final long now = ctx.clock().nowNs();
        int max = 0;
        for (final Target t : ctx.targets())
        {
            final int pid = (int)t.id();
            for (final Region r : t.regions())
            {
                final long page = Long.divideUnsigned(r.samplingAddr(), trace.pageSize());
                AccessRate.update(r, trace.referenced(pid, page, checksPreparedAtNs, now), ctx.attrs());
                max = Math.max(max, r.nrAccesses());
            }
        }
        return max;
    }

    /**
     * DAMOS actions on a recorded trace are simulated: nothing is changed, the bytes the action
     * would have been applied to are counted (all of the region that the ops-handled filters
     * allow; none for stat). Every page a trace holds is private anonymous memory (the agent
     * traces nothing else), so an {@code anon} filter matches the whole region.
     */
    @Override
    public Applied applyScheme(final DamonContext ctx, final Target target, final Region region, final Scheme scheme)
    {
        if (scheme.opsFilterOut(true))
        {
            return Applied.NOTHING;
        }
        final long passed = region.size();
        return new Applied(scheme.action() == SchemeAction.STAT ? 0 : passed, passed);
    }

    /** A process is gone once the trace passes its exit (or its end). */
    @Override
    public boolean targetValid(final DamonContext ctx, final Target target)
    {
        return ctx.clock().nowNs() < trace.endNs((int)target.id());
    }
}
