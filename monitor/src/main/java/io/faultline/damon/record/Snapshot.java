package io.faultline.damon.record;

import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.DamonContext;
import io.faultline.damon.Region;
import io.faultline.damon.Target;
import io.faultline.damon.schemes.Scheme;
import io.faultline.damon.schemes.SchemeStats;

/**
 * One aggregation interval's monitoring results: every target's regions as they stood when the
 * interval ended (after merging, before the counters were reset), as the kernel's
 * damon_aggregated trace event and damo's snapshots report them.
 *
 * @param aggregation index of the aggregation interval, from 0
 * @param startNs     when the interval began, nanoseconds since monitoring started
 * @param endNs       when it ended
 */
public record Snapshot(long aggregation, long startNs, long endNs, List<TargetRegions> targets,
    List<SchemeRecord> schemes)
{
    /**
     * The context's regions and scheme statistics now, as aggregation {@code aggregation} that
     * began at {@code startNs} and ends at the context's clock.
     */
    public static Snapshot of(final DamonContext ctx, final long aggregation, final long startNs)
    {
        final List<TargetRegions> targets = new ArrayList<>();
        for (final Target t : ctx.targets())
        {
            final List<RegionRecord> regions = new ArrayList<>(t.nrRegions());
            for (final Region r : t.regions())
            {
                regions.add(new RegionRecord(r.start(), r.end(), r.nrAccesses(), r.age()));
            }
            targets.add(new TargetRegions(t.id(), regions));
        }
        final List<SchemeRecord> schemes = new ArrayList<>(ctx.schemes().size());
        for (final Scheme s : ctx.schemes())
        {
            final SchemeStats st = s.stats();
            schemes.add(new SchemeRecord(st.nrTried(), st.szTried(), st.nrApplied(), st.szApplied(),
                st.szOpsFilterPassed(), st.qtExceeds(), s.quota().esz(), s.quota().chargedSz(),
                s.watermarks().activated()));
        }
        return new Snapshot(aggregation, startNs, ctx.clock().nowNs(), targets, schemes);
    }

    /** A snapshot of a context without schemes. */
    public Snapshot(final long aggregation, final long startNs, final long endNs, final List<TargetRegions> targets)
    {
        this(aggregation, startNs, endNs, targets, List.of());
    }

    /**
     * One scheme's statistics since monitoring started ({@code struct damos_stat}) and its quota
     * and watermark state, after the aggregation's application.
     *
     * @param esz       effective size quota of the current charge window, bytes (0: none)
     * @param chargedSz bytes charged in the current charge window
     * @param active    whether the watermarks let the scheme run
     */
    public record SchemeRecord(long nrTried, long szTried, long nrApplied, long szApplied, long szOpsFilterPassed,
        long qtExceeds, long esz, long chargedSz, boolean active)
    {
    }

    /** One target's regions in a snapshot. */
    public record TargetRegions(long pid, List<RegionRecord> regions)
    {
    }

    /** One region: {@code [start, end)}, the sampling intervals it was found accessed in, its age in aggregations. */
    public record RegionRecord(long start, long end, int nrAccesses, int age)
    {
        public long size()
        {
            return end - start;
        }
    }
}
