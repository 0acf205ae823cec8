package io.faultline.damon.schemes;

import io.faultline.damon.DamonContext;
import io.faultline.damon.Region;

/**
 * How hot or cold a region is for quota prioritization, damon_hot_score() and
 * damon_cold_score() of mm/damon/ops-common.c (Documentation/mm/damon/design.rst,
 * "Prioritization"): a frequency subscore (nr_accesses as a percentage of the maximum) and an
 * age subscore (log2 of the age in seconds, counted as colder with age when the region is not
 * accessed at all), averaged with the scheme's weights and scaled to [0, {@link #MAX_SCORE}].
 * The kernel ignores the size weight; so does this.
 */
public final class SchemeScore
{
    /** DAMOS_MAX_SCORE of include/linux/damon.h. */
    public static final int MAX_SCORE = 99;
    private static final int MAX_SUBSCORE = 100;
    private static final int MAX_AGE_IN_LOG = 32;

    private SchemeScore()
    {
    }

    public static int hot(final DamonContext ctx, final Region r, final Scheme s)
    {
        final int freqWeight = s.quota().weightNrAccesses();
        final int ageWeight = s.quota().weightAge();
        final int freqSubscore = (int)(r.nrAccesses() * (long)MAX_SUBSCORE / ctx.attrs().maxNrAccesses());
        long ageInSec = (long)r.age() * ctx.attrs().aggrIntervalUs() / 1_000_000;
        // The kernel keeps age_in_sec in an unsigned int.
        ageInSec &= 0xFFFF_FFFFL;
        int ageInLog = 0;
        while (ageInLog < MAX_AGE_IN_LOG && ageInSec != 0)
        {
            ageInLog++;
            ageInSec >>= 1;
        }
        if (freqSubscore == 0)
        {
            ageInLog = -ageInLog;
        }
        ageInLog += MAX_AGE_IN_LOG;
        final int ageSubscore = ageInLog * MAX_SUBSCORE / MAX_AGE_IN_LOG / 2;
        int hotness = freqWeight * freqSubscore + ageWeight * ageSubscore;
        if (freqWeight + ageWeight != 0)
        {
            hotness /= freqWeight + ageWeight;
        }
        return hotness * MAX_SCORE / MAX_SUBSCORE;
    }

    public static int cold(final DamonContext ctx, final Region r, final Scheme s)
    {
        return MAX_SCORE - hot(ctx, r, s);
    }

    /**
     * The score an operations set gives by default: colder first for actions that demote memory
     * (pageout, cold, lru_deprio, migrate_cold), hotter first for those that promote it
     * (willneed, hugepage, lru_prio, migrate_hot), as the issue asks and paddr does for the lru
     * and migrate actions (the kernel's vaddr scores only pageout); every region alike otherwise.
     */
    public static int forAction(final DamonContext ctx, final Region r, final Scheme s)
    {
        return switch (s.action())
        {
            case PAGEOUT, COLD, LRU_DEPRIO, MIGRATE_COLD -> cold(ctx, r, s);
            case WILLNEED, HUGEPAGE, LRU_PRIO, MIGRATE_HOT -> hot(ctx, r, s);
            default -> MAX_SCORE;
        };
    }
}
