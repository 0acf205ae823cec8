package io.faultline.damon;

/**
 * DAMOS actions, {@code enum damos_action} of include/linux/damon.h, for
 * {@link Operations#applyScheme}. Schemes themselves (access pattern, quotas, watermarks) come
 * with DAMOS, in a later change; this names what an operations set may be asked to do.
 */
public enum SchemeAction
{
    WILLNEED, COLD, PAGEOUT, HUGEPAGE, NOHUGEPAGE, LRU_PRIO, LRU_DEPRIO, MIGRATE_HOT, MIGRATE_COLD, STAT
}
