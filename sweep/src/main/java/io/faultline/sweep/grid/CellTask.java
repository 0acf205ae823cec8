package io.faultline.sweep.grid;

import io.faultline.sim.PolicySpec;
import io.faultline.sim.SimulationResult;
import io.faultline.sim.Simulator;
import io.faultline.sweep.traces.StagedTrace;
import io.faultline.sweep.traces.TraceCache;
import org.apache.spark.api.java.function.Function;

import java.util.List;

/**
 * The work of one Spark task: replays its {@link Cell} with tools' simulator ({@link Simulator})
 * on the trace its executor holds ({@link TraceCache}), in full or as a mini-simulation
 * ({@link MiniSim}). Catches everything, so that a failing cell comes back as a
 * {@link CellResult} naming the problem instead of failing the job and losing the other cells.
 */
public final class CellTask implements Function<Cell, CellResult>
{
    private static final long serialVersionUID = 1L;

    private final List<StagedTrace> traces;

    public CellTask(final List<StagedTrace> traces)
    {
        this.traces = List.copyOf(traces);
    }

    @Override
    public CellResult call(final Cell cell)
    {
        final long[] readNanos = new long[1];
        try
        {
            final StagedTrace trace = traces.get(cell.trace());
            final PolicySpec spec = PolicySpec.parse(cell.policy());
            if (cell.rate() > 0)
            {
                return MiniSim.run(spec, cell.size(), cell.rate(), trace, readNanos);
            }
            final long[] keys = TraceCache.keys(trace, readNanos);
            final long start = System.nanoTime();
            final SimulationResult result = Simulator.run(spec, cell.size(), keys);
            return new CellResult(result.requests(), result.misses(), result.requests(), null, readNanos[0],
                System.nanoTime() - start);
        }
        catch (final OutOfMemoryError ex)
        {
            return CellResult.failed("out of memory (" + ex.getMessage() + "); give executors more with --conf "
                + "spark.executor.memory=SIZE", readNanos[0]);
        }
        catch (final Exception | StackOverflowError ex)
        {
            final String message = ex.getMessage() == null ? ex.getClass().getSimpleName()
                : ex.getMessage().lines().findFirst().orElse("");
            return CellResult.failed(message, readNanos[0]);
        }
    }
}
