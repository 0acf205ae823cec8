package io.faultline.sim;

/**
 * A page-replacement or cache policy fed one reference at a time, in the manner of Caffeine's
 * simulator. Every object has size 1; capacity counts objects (pages).
 */
public interface Policy
{
    /**
     * Records a reference to {@code key}.
     *
     * @return true on a hit, false on a miss (the key was not resident and is now handled)
     */
    boolean record(long key);

    /**
     * Called once after the last reference: checks the policy's invariants (sizes of its
     * queues, resident count within capacity) and throws {@link IllegalStateException} if one
     * is broken.
     */
    default void finished()
    {
    }
}
