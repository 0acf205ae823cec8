package io.faultline.sweep.grid;

import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.Simulator;
import io.faultline.sweep.traces.StagedTrace;
import io.faultline.sweep.traces.TraceCache;

import java.io.IOException;

/**
 * A miniature simulation (MINISIM): the policy replays only the references to a spatially
 * sampled subset of the keys, SHARDS's hash sample at rate R, with the cache scaled by the same
 * rate (Waldspurger, Saemundsson, Ahmad and Park, "Cache Modeling and Optimization using
 * Miniature Simulations", USENIX ATC 2017). As libCacheSim's mrcProfiler (MINISIM), the sample's
 * misses scaled by 1/R count as the trace's, so the miss ratio is misses / (R N), not misses over
 * the sampled references: a hot key in or out of the sample moves the sample's size, not the
 * misses, as SHARDS's adjustment reasons (MissRatioCurves.shards). Any policy, at about R of a
 * full replay's cost; sizes below 1/R pages fall to a one-page cache and are not resolved.
 */
final class MiniSim
{
    private MiniSim()
    {
    }

    static CellResult run(final PolicySpec spec, final int size, final double rate, final StagedTrace trace,
        final long[] readNanos) throws IOException
    {
        final double[] effectiveRate = new double[1];
        final long[] sample = TraceCache.sample(trace, rate, effectiveRate, readNanos);
        if (sample.length == 0)
        {
            return CellResult.failed("no reference sampled at rate " + rate + "; give a larger --minisim rate",
                readNanos[0]);
        }
        final int scaled = (int)Math.max(1, Math.round(size * effectiveRate[0]));
        final long start = System.nanoTime();
        final SimulationResult result = Simulator.run(spec, scaled, sample);
        final long misses = Math.min(trace.references(), Math.round(result.misses() / effectiveRate[0]));
        return new CellResult(trace.references(), misses, result.requests(), null, readNanos[0],
            System.nanoTime() - start);
    }
}
