package io.faultline.damon.schemes;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.AdaptiveRegions;
import io.faultline.damon.DamonContext;
import io.faultline.damon.Region;
import io.faultline.damon.SchemeAction;
import io.faultline.damon.Target;

/**
 * The core's part of DAMOS, rule for rule after mm/damon/core.c as of torvalds/linux commit
 * 004ded6bee11 (Linux 6.16/6.17: allow and reject filters, core and ops filter lists,
 * damos_migrate_dests): kdamond_apply_schemes() and what it calls, kdamond_wait_activation(),
 * and kdamond_init_ctx()'s scheme part. Once per sampling interval, after the aggregation's regions are merged and
 * before their counters are reset, every scheme whose apply interval has passed and whose
 * watermarks let it run gets its quota adjusted (a new charge window, the effective size quota,
 * the minimum score that fits the quota), then every region of every target is offered to
 * every such scheme in order: skipped if the quota is used up or the region was charged in the
 * window before, tried if it matches the pattern and scores high enough, cut to what is left of
 * the quota, passed through the core-handled filters, handed to the operations set, charged, and
 * counted. An action other than stat resets the region's age.
 */
public final class Damos
{
    private Damos()
    {
    }

    /**
     * damos_set_next_apply_sis() for every scheme: the next application is one apply interval
     * from now (kdamond_init_ctx() at the start, damon_set_attrs() when the intervals change).
     */
    public static void setNextApplySis(final DamonContext ctx)
    {
        for (final Scheme s : ctx.schemes())
        {
            s.nextApplySis = ctx.passedSampleIntervals() + applyIntervalUs(ctx, s) / sampleInterval(ctx);
        }
    }

    private static long sampleInterval(final DamonContext ctx)
    {
        return Math.max(ctx.attrs().sampleIntervalUs(), 1);
    }

    private static long applyIntervalUs(final DamonContext ctx, final Scheme s)
    {
        return s.applyIntervalUs() != 0 ? s.applyIntervalUs() : ctx.attrs().aggrIntervalUs();
    }

    /**
     * The watermark checks of kdamond_wait_activation(): updates every scheme's activation and
     * returns 0 if any is active (or there are none), else the shortest time to wait before
     * checking again; monitoring pauses meanwhile.
     */
    public static long activationWaitUs(final DamonContext ctx)
    {
        long min = 0;
        boolean first = true;
        for (final Scheme s : ctx.schemes())
        {
            final long wait = s.watermarks().waitUs();
            if (first || wait < min)
            {
                min = wait;
                first = false;
            }
        }
        return min;
    }

    /** kdamond_apply_schemes(). */
    public static void applySchemes(final DamonContext ctx)
    {
        boolean any = false;
        for (final Scheme s : ctx.schemes())
        {
            if (ctx.passedSampleIntervals() < s.nextApplySis || !s.watermarks().activated())
            {
                continue;
            }
            any = true;
            adjustQuota(ctx, s);
        }
        if (!any)
        {
            return;
        }
        for (final Target t : ctx.targets())
        {
            // The kernel walks with damon_for_each_region_safe(): a piece split off a region while
            // it is handled is not visited in this pass. For the piece a core address filter cuts
            // off that starves a scheme: the regions are merged before every application, so the
            // piece merges back into its neighbour and is cut off again at the next one, and a
            // region that qualifies behind a filter's edge (or behind another scheme's filter) is
            // never tried (issue 43: a scheme on a cold area tried nothing in a whole run). Here
            // that piece is offered, in the same pass, to the scheme whose filter cut it and to
            // those after it (the ones before it have handled it as part of the whole region).
            // Pieces split off for a quota stay unvisited, as in the kernel.
            for (final Region r : new ArrayList<>(t.regions()))
            {
                final ArrayDeque<Piece> pieces = new ArrayDeque<>();
                pieces.add(new Piece(r, 0));
                while (!pieces.isEmpty())
                {
                    final Piece p = pieces.poll();
                    doApplySchemes(ctx, t, p.region(), p.fromScheme(), pieces);
                }
            }
        }
        for (final Scheme s : ctx.schemes())
        {
            if (ctx.passedSampleIntervals() < s.nextApplySis)
            {
                continue;
            }
            s.nextApplySis = ctx.passedSampleIntervals() + applyIntervalUs(ctx, s) / sampleInterval(ctx);
        }
    }

    /** A region still to be offered to the schemes from {@code fromScheme} on. */
    private record Piece(Region region, int fromScheme)
    {
    }

    /**
     * damon_do_apply_schemes(): offers one region to every scheme due from {@code fromScheme} on;
     * a piece a core address filter splits off goes to {@code pieces} (see applySchemes).
     */
    static void doApplySchemes(final DamonContext ctx, final Target t, final Region region, final int fromScheme,
        final ArrayDeque<Piece> pieces)
    {
        Region r = region;
        final List<Scheme> schemes = ctx.schemes();
        for (int i = fromScheme; i < schemes.size(); i++)
        {
            final Scheme s = schemes.get(i);
            final Quota quota = s.quota();
            if (ctx.passedSampleIntervals() < s.nextApplySis || !s.watermarks().activated())
            {
                continue;
            }
            if (quota.esz != 0 && quota.chargedSz >= quota.esz)
            {
                continue;
            }
            final Region unskipped = skipChargedRegion(ctx, t, r, s);
            if (unskipped == null)
            {
                continue;
            }
            r = unskipped;
            if (!validTarget(ctx, t, r, s))
            {
                continue;
            }
            final Region cut = applyScheme(ctx, t, r, s);
            if (cut != null)
            {
                pieces.addFirst(new Piece(cut, i));
            }
        }
    }

    /** damos_valid_target(): the pattern, and with a quota in force, a score at least the minimum. */
    static boolean validTarget(final DamonContext ctx, final Target t, final Region r, final Scheme s)
    {
        final boolean matches = s.pattern().matches(r);
        if (!matches || s.quota().esz == 0)
        {
            return matches;
        }
        return ctx.ops().schemeScore(ctx, t, r, s) >= s.quota().minScore;
    }

    /**
     * damos_skip_charged_region(): in a new charge window, skips the regions charged in the
     * previous one, which ended at charge_addr_from of charge_target_from, and splits a region
     * that straddles it. Returns the region to go on with (the remainder after a split), or null
     * to skip. The kernel's charge_addr_from is one past the end of the last charged region, so
     * the region after it loses its first DAMON_MIN_REGION to the split; that is kept.
     */
    static Region skipChargedRegion(final DamonContext ctx, final Target t, final Region r, final Scheme s)
    {
        final Quota quota = s.quota();
        if (quota.chargeTargetFrom == null)
        {
            return r;
        }
        if (t != quota.chargeTargetFrom)
        {
            return null;
        }
        final List<Region> regions = t.regions();
        if (r == regions.get(regions.size() - 1))
        {
            quota.chargeTargetFrom = null;
            quota.chargeAddrFrom = 0;
            return null;
        }
        if (quota.chargeAddrFrom != 0 && Long.compareUnsigned(r.end(), quota.chargeAddrFrom) <= 0)
        {
            return null;
        }
        Region next = r;
        if (quota.chargeAddrFrom != 0 && Long.compareUnsigned(r.start(), quota.chargeAddrFrom) < 0)
        {
            final long min = ctx.minRegionSize();
            long szToSkip = quota.chargeAddrFrom - r.start();
            szToSkip -= Math.floorMod(szToSkip, min);
            if (szToSkip == 0)
            {
                if (r.size() <= min)
                {
                    return null;
                }
                szToSkip = min;
            }
            final int index = regions.indexOf(r);
            AdaptiveRegions.splitRegionAt(t, index, szToSkip);
            next = t.regions().get(index + 1);
        }
        quota.chargeTargetFrom = null;
        quota.chargeAddrFrom = 0;
        return next;
    }

    /**
     * damos_filter_out(): the core-handled filters in order; the first that matches decides,
     * else the default.
     */
    static boolean filterOut(final DamonContext ctx, final Target t, final Region r, final Scheme s)
    {
        for (final Filter f : s.coreFilters())
        {
            if (f.coreMatch(ctx, t, r))
            {
                return !f.allow();
            }
        }
        return s.coreFiltersDefaultReject();
    }

    /**
     * damos_apply_scheme(). Returns the piece of {@code r} a core address filter split off (the
     * region after it, to be offered again), else null.
     */
    static Region applyScheme(final DamonContext ctx, final Target t, final Region r, final Scheme s)
    {
        final Quota quota = s.quota();
        long sz = r.size();
        Applied applied = Applied.NOTHING;
        if (quota.esz != 0 && quota.chargedSz + sz > quota.esz)
        {
            sz = quota.esz - quota.chargedSz;
            sz -= Math.floorMod(sz, ctx.minRegionSize());
            if (sz == 0)
            {
                s.stats = s.stats.plus(0, 0, 0);
                return null;
            }
            AdaptiveRegions.splitRegionAt(t, t.regions().indexOf(r), sz);
        }
        final long end = r.end();
        final boolean out = filterOut(ctx, t, r, s);
        final Region cut = r.end() != end ? t.regions().get(t.regions().indexOf(r) + 1) : null;
        if (out)
        {
            return cut;
        }
        final long begin = ctx.clock().nowNs();
        applied = ctx.ops().applyScheme(ctx, t, r, s);
        quota.totalChargedNs += ctx.clock().nowNs() - begin;
        quota.chargedSz += sz;
        if (quota.esz != 0 && quota.chargedSz >= quota.esz)
        {
            quota.chargeTargetFrom = t;
            quota.chargeAddrFrom = r.end() + 1;
        }
        if (s.action() != SchemeAction.STAT)
        {
            r.age(0);
        }
        s.stats = s.stats.plus(sz, applied.sz(), applied.szOpsFilterPassed());
        return cut;
    }

    /**
     * damos_adjust_quota(): starts a new charge window when the reset interval has passed
     * (counting qt_exceeds if the last one used its quota up), and sets the minimum score: the
     * highest score such that the regions matching the pattern at or above it hold at least the
     * effective quota, from a histogram of bytes per score.
     */
    static void adjustQuota(final DamonContext ctx, final Scheme s)
    {
        final Quota quota = s.quota();
        if (!quota.enabled())
        {
            return;
        }
        final long now = ctx.clock().nowNs();
        if (!quota.windowStarted || now >= quota.chargedFromNs + quota.resetIntervalMs() * 1_000_000)
        {
            if (quota.esz != 0 && quota.chargedSz >= quota.esz)
            {
                s.stats = s.stats.quotaExceeded();
            }
            quota.totalChargedSz += quota.chargedSz;
            quota.chargedFromNs = now;
            quota.windowStarted = true;
            quota.chargedSz = 0;
            quota.setEffectiveQuota(ctx.minRegionSize());
        }
        final long[] histogram = new long[SchemeScore.MAX_SCORE + 1];
        int maxScore = 0;
        for (final Target t : ctx.targets())
        {
            for (final Region r : t.regions())
            {
                if (!s.pattern().matches(r))
                {
                    continue;
                }
                final int score = ctx.ops().schemeScore(ctx, t, r, s);
                histogram[score] += r.size();
                maxScore = Math.max(maxScore, score);
            }
        }
        long cumulated = 0;
        int score = maxScore;
        while (true)
        {
            cumulated += histogram[score];
            if (cumulated >= quota.esz || score == 0)
            {
                break;
            }
            score--;
        }
        quota.minScore = score;
    }
}
