package io.faultline.damon.schemes;

import io.faultline.damon.AdaptiveRegions;
import io.faultline.damon.DamonContext;
import io.faultline.damon.Region;
import io.faultline.damon.Target;

/**
 * A DAMOS filter, {@code struct damos_filter} of include/linux/damon.h, with the semantics of
 * Linux 6.14 and later (Documentation/mm/damon/design.rst, "Filters"): memory that
 * {@code matching} describes is allowed ({@code allow}, written {@code in}) or rejected
 * ({@code out}); the first filter that matches decides; memory no filter matched is rejected
 * if the last filter allows and allowed otherwise.
 *
 * <p>{@code addr} and {@code target} are handled by the core, before the action, and memory
 * they reject is not counted as tried. {@code anon} (anonymous versus file-backed pages) is
 * handled by the operations set, page by page, inside {@link io.faultline.damon.Operations#applyScheme}:
 * the region is tried, and only the bytes it allows count in sz_ops_filter_passed.
 */
public final class Filter
{
    /** {@code enum damos_filter_type}: the three supported here. */
    public enum Type
    {
        ANON, ADDR, TARGET;

        public String label()
        {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** damos_filter_for_ops(). */
        public boolean opsHandled()
        {
            return this == ANON;
        }
    }

    private final Type type;
    private final boolean matching;
    private final boolean allow;
    private final long addrStart;
    private final long addrEnd;
    private final int targetIdx;

    private Filter(final Type type, final boolean matching, final boolean allow, final long addrStart,
        final long addrEnd, final int targetIdx)
    {
        this.type = type;
        this.matching = matching;
        this.allow = allow;
        this.addrStart = addrStart;
        this.addrEnd = addrEnd;
        this.targetIdx = targetIdx;
    }

    public static Filter anon(final boolean matching, final boolean allow)
    {
        return new Filter(Type.ANON, matching, allow, 0, 0, 0);
    }

    public static Filter addr(final boolean matching, final boolean allow, final long start, final long end)
    {
        return new Filter(Type.ADDR, matching, allow, start, end, 0);
    }

    public static Filter target(final boolean matching, final boolean allow, final int targetIdx)
    {
        return new Filter(Type.TARGET, matching, allow, 0, 0, targetIdx);
    }

    public Type type()
    {
        return type;
    }

    public boolean matching()
    {
        return matching;
    }

    public boolean allow()
    {
        return allow;
    }

    public long addrStart()
    {
        return addrStart;
    }

    public long addrEnd()
    {
        return addrEnd;
    }

    public int targetIdx()
    {
        return targetIdx;
    }

    /** @return null if valid, else what is wrong */
    public String problem()
    {
        if (type == Type.ADDR && Long.compareUnsigned(addrStart, addrEnd) >= 0)
        {
            return "an addr filter's range must have START < END, not 0x" + Long.toHexString(addrStart) + "-0x"
                + Long.toHexString(addrEnd);
        }
        if (type == Type.TARGET && targetIdx < 0)
        {
            return "a target filter's index must not be negative: " + targetIdx;
        }
        return null;
    }

    /**
     * damos_filter_match() of mm/damon/core.c for the core-handled types. An address filter
     * whose range covers only part of {@code r} splits it at the range's edge, so that the part
     * it returns the answer for is {@code r} itself (now smaller) and the rest comes next.
     */
    public boolean coreMatch(final DamonContext ctx, final Target t, final Region r)
    {
        boolean matched;
        switch (type)
        {
            case TARGET -> matched = ctx.targets().indexOf(t) == targetIdx;
            case ADDR ->
            {
                final long min = ctx.minRegionSize();
                final long start = addrStart - Math.floorMod(addrStart, min);
                final long end = addrEnd - Math.floorMod(addrEnd, min);
                if (start <= r.start() && r.end() <= end)
                {
                    matched = true;
                }
                else if (r.end() <= start || end <= r.start())
                {
                    matched = false;
                }
                else if (r.start() < start)
                {
                    AdaptiveRegions.splitRegionAt(t, t.regions().indexOf(r), start - r.start());
                    matched = false;
                }
                else
                {
                    AdaptiveRegions.splitRegionAt(t, t.regions().indexOf(r), end - r.start());
                    matched = true;
                }
            }
            default ->
            {
                return false;
            }
        }
        return matched == matching;
    }

    /** damos_folio_filter_match() for the ops-handled {@code anon} type, given what the page is. */
    public boolean opsMatch(final boolean anonymous)
    {
        return (type == Type.ANON && anonymous) == matching;
    }

    @Override
    public String toString()
    {
        final String arg = switch (type)
        {
            case ADDR -> ":0x" + Long.toHexString(addrStart) + "-0x" + Long.toHexString(addrEnd);
            case TARGET -> ":" + targetIdx;
            default -> "";
        };
        return (matching ? "" : "!") + type.label() + ":" + (allow ? "in" : "out") + arg;
    }
}
