package io.faultline.sim;

/**
 * What a policy's structures take at one capacity, computed before any of them is allocated,
 * so that a size beyond what they can hold, or beyond the heap, is refused up front.
 *
 * @param slots the most keys one of its tables must hold (resident and ghost entries), which
 *              {@link io.faultline.sim.policy.KeyTable#MAX_KEYS} bounds
 * @param bytes the heap its arrays and tables take, at most
 */
public record Footprint(long slots, long bytes)
{
    /** Whether its tables can hold {@link #slots()} keys. */
    public boolean fits()
    {
        return slots <= io.faultline.sim.policy.KeyTable.MAX_KEYS;
    }
}
