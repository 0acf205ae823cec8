package io.faultline.sim.report;

/**
 * One simulated (trace, policy, size) point, as reported.
 *
 * @param trace    the trace file's name
 * @param policy   the policy's label
 * @param size     cache size in pages
 * @param requests references replayed
 * @param misses   references that missed
 */
public record SimulationRow(String trace, String policy, int size, long requests, long misses)
{
    public double missRatio()
    {
        return requests == 0 ? 0.0 : (double)misses / requests;
    }
}
