package io.faultline.sim;

/**
 * The outcome of replaying one trace through one policy at one capacity.
 *
 * @param policy   the policy's label, as the user wrote it ({@link PolicySpec#label()})
 * @param capacity the cache size in objects (pages)
 * @param requests the number of references replayed
 * @param misses   the number of references that missed
 */
public record SimulationResult(String policy, int capacity, long requests, long misses)
{
    public long hits()
    {
        return requests - misses;
    }

    /** Misses over requests; 0 for an empty trace. */
    public double missRatio()
    {
        return requests == 0 ? 0.0 : (double)misses / requests;
    }
}
