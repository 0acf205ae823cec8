package io.faultline.damon;

/**
 * DAMOS actions, {@code enum damos_action} of include/linux/damon.h, for
 * {@link Operations#applyScheme}: what an operations set may be asked to do to a region
 * (io.faultline.damon.schemes holds the schemes themselves).
 */
public enum SchemeAction
{
    WILLNEED, COLD, PAGEOUT, HUGEPAGE, NOHUGEPAGE, LRU_PRIO, LRU_DEPRIO, MIGRATE_HOT, MIGRATE_COLD, STAT;

    /** The name damo and the kernel's sysfs use: {@code pageout}, {@code lru_prio}... */
    public String label()
    {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** @return the action of that name (any case), or null */
    public static SchemeAction byLabel(final String label)
    {
        for (final SchemeAction a : values())
        {
            if (a.label().equalsIgnoreCase(label))
            {
                return a;
            }
        }
        return null;
    }
}
