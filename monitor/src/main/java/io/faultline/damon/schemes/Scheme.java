package io.faultline.damon.schemes;

import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.SchemeAction;

/**
 * A DAMON-based operation scheme, {@code struct damos} of include/linux/damon.h
 * (Documentation/mm/damon/design.rst, "Operation Schemes"): an access pattern, the action to
 * apply to regions that have it, how often ({@code applyIntervalUs}, 0 = every aggregation
 * interval), and the controls: quota, watermarks and filters. It also holds what the core keeps
 * for it while monitoring runs: statistics and the sampling interval of its next application.
 *
 * <p>Single writer: only the monitoring loop changes its state.
 */
public final class Scheme
{
    private final AccessPattern pattern;
    private final SchemeAction action;
    private final long applyIntervalUs;
    private final Quota quota;
    private final Watermarks watermarks;
    private final List<Filter> filters;
    private final List<Filter> coreFilters = new ArrayList<>();
    private final List<Filter> opsFilters = new ArrayList<>();
    private final boolean coreFiltersDefaultReject;
    private final boolean opsFiltersDefaultReject;

    SchemeStats stats = SchemeStats.ZERO;
    long nextApplySis;

    public Scheme(final AccessPattern pattern, final SchemeAction action, final long applyIntervalUs, final Quota quota,
        final Watermarks watermarks, final List<Filter> filters)
    {
        this.pattern = pattern;
        this.action = action;
        this.applyIntervalUs = applyIntervalUs;
        this.quota = quota;
        this.watermarks = watermarks;
        this.filters = List.copyOf(filters);
        for (final Filter f : filters)
        {
            (f.type().opsHandled() ? opsFilters : coreFilters).add(f);
        }
        // damos_set_filters_default_reject(): with ops-handled filters, the core lets unmatched memory
        // through for them to decide.
        opsFiltersDefaultReject = !opsFilters.isEmpty() && opsFilters.get(opsFilters.size() - 1).allow();
        coreFiltersDefaultReject = opsFilters.isEmpty() && !coreFilters.isEmpty()
            && coreFilters.get(coreFilters.size() - 1).allow();
    }

    /** A scheme with no quota, no watermarks and no filters. */
    public Scheme(final AccessPattern pattern, final SchemeAction action)
    {
        this(pattern, action, 0, Quota.unlimited(), Watermarks.none(), List.of());
    }

    public AccessPattern pattern()
    {
        return pattern;
    }

    public SchemeAction action()
    {
        return action;
    }

    public long applyIntervalUs()
    {
        return applyIntervalUs;
    }

    public Quota quota()
    {
        return quota;
    }

    public Watermarks watermarks()
    {
        return watermarks;
    }

    /** Every filter, in the order given. */
    public List<Filter> filters()
    {
        return filters;
    }

    List<Filter> coreFilters()
    {
        return coreFilters;
    }

    public boolean coreFiltersDefaultReject()
    {
        return coreFiltersDefaultReject;
    }

    public boolean opsFiltersDefaultReject()
    {
        return opsFiltersDefaultReject;
    }

    public SchemeStats stats()
    {
        return stats;
    }

    /** @return null if valid, else what is wrong, in the words of the scheme grammar */
    public String problem()
    {
        String p = pattern.problem();
        if (p == null)
        {
            p = quota.problem();
        }
        if (p == null)
        {
            p = watermarks.problem();
        }
        for (final Filter f : filters)
        {
            if (p == null)
            {
                p = f.problem();
            }
        }
        if (p == null && applyIntervalUs < 0)
        {
            p = "the apply interval must not be negative";
        }
        return p;
    }

    /**
     * Whether the operations-set-handled filters reject a page, given whether it is anonymous
     * (damos_pa_filter_out() of mm/damon/paddr.c: the first ops filter that matches decides, else
     * the default). An operations set calls it for each page or folio it would apply the action
     * to, and counts the bytes it allows in {@link Applied#szOpsFilterPassed()}.
     */
    public boolean opsFilterOut(final boolean anonymous)
    {
        for (final Filter f : opsFilters)
        {
            if (f.opsMatch(anonymous))
            {
                return !f.allow();
            }
        }
        return opsFiltersDefaultReject;
    }

    /**
     * The scheme in the grammar of {@code faultline monitor --scheme}, every value in the core's
     * units (bytes, samples, aggregation intervals, microseconds), as the record header keeps it.
     */
    @Override
    public String toString()
    {
        final StringBuilder b = new StringBuilder("action=").append(action.label());
        b.append(",sz=").append(bound(pattern.minSz())).append('-').append(bound(pattern.maxSz()));
        b.append(",nr_accesses=").append(bound(pattern.minNrAccesses())).append('-')
            .append(bound(pattern.maxNrAccesses()));
        b.append(",age=").append(bound(pattern.minAge())).append('-').append(bound(pattern.maxAge()));
        if (applyIntervalUs != 0)
        {
            b.append(",apply_interval=").append(applyIntervalUs).append("us");
        }
        if (quota.ms() != 0)
        {
            b.append(",quota_ms=").append(quota.ms());
        }
        if (quota.sz() != 0)
        {
            b.append(",quota_sz=").append(quota.sz());
        }
        if (quota.resetIntervalMs() != 0)
        {
            b.append(",quota_reset=").append(quota.resetIntervalMs()).append("ms");
        }
        if (quota.weightSz() != 0 || quota.weightNrAccesses() != 0 || quota.weightAge() != 0)
        {
            b.append(",weights=").append(quota.weightSz()).append(':').append(quota.weightNrAccesses()).append(':')
                .append(quota.weightAge());
        }
        for (final QuotaGoal g : quota.goals())
        {
            b.append(",goal=").append(g.metric().label()).append(':').append(g.targetValue());
            if (g.source() instanceof UserInputFile f)
            {
                b.append(':').append(f.file());
            }
            else if (g.source() instanceof PressureStall p)
            {
                b.append(':').append(p.file());
            }
        }
        if (watermarks.metric() != Watermarks.Metric.NONE)
        {
            b.append(",wmarks=").append(watermarks.metric().label()).append(':').append(watermarks.intervalUs())
                .append("us:").append(watermarks.high()).append(':').append(watermarks.mid()).append(':')
                .append(watermarks.low());
        }
        for (final Filter f : filters)
        {
            b.append(",filter=").append(f);
        }
        return b.toString();
    }

    private static String bound(final long value)
    {
        return value == AccessPattern.MAX ? "max" : Long.toString(value);
    }

    /** Whether any filter is handled by the operations set. */
    public boolean hasOpsFilters()
    {
        return !opsFilters.isEmpty();
    }
}
