package io.faultline.sweep.grid;

import java.io.Serializable;

/**
 * What a task sends back for its {@link Cell}: the misses, or why there are none. A task never
 * throws: a failure is this cell's alone, and the sweep keeps the others.
 *
 * @param requests  references of the trace
 * @param misses    misses (MINISIM: the sample's miss ratio times {@code requests}, rounded)
 * @param replayed  references the policy saw: the trace's, or MINISIM's sample's
 * @param error     one line naming what went wrong, or null
 * @param readNanos time this task spent reading the trace (0 if its executor had it already)
 * @param runNanos  time in the policy
 */
public record CellResult(long requests, long misses, long replayed, String error, long readNanos, long runNanos)
    implements Serializable
{
    static CellResult failed(final String error, final long readNanos)
    {
        return new CellResult(0, 0, 0, error, readNanos, 0);
    }
}
