package io.faultline.damon.report;

import java.util.Arrays;
import java.util.List;

import io.faultline.damon.record.Snapshot;

/**
 * Working set size as damo reports it ({@code damo report wss}): in each aggregation, the total
 * size of the regions found accessed at least once (nr_accesses >= 1), summed over the targets
 * (or of one process); and its distribution over the aggregations as percentiles.
 */
public final class WorkingSetSize
{
    /** The percentiles printed: 0 (smallest), 25, 50, 75, 100 (largest). */
    public static final int[] PERCENTILES = {0, 25, 50, 75, 100};

    private WorkingSetSize()
    {
    }

    /** Bytes of the working set of {@code snapshot}; {@code pid} &lt; 0 sums every target. */
    public static long of(final Snapshot snapshot, final long pid)
    {
        long bytes = 0;
        for (final Snapshot.TargetRegions t : snapshot.targets())
        {
            if (pid >= 0 && t.pid() != pid)
            {
                continue;
            }
            for (final Snapshot.RegionRecord r : t.regions())
            {
                if (r.nrAccesses() >= 1)
                {
                    bytes += r.size();
                }
            }
        }
        return bytes;
    }

    public static long[] overTime(final List<Snapshot> snapshots, final long pid)
    {
        final long[] sizes = new long[snapshots.size()];
        for (int i = 0; i < sizes.length; i++)
        {
            sizes[i] = of(snapshots.get(i), pid);
        }
        return sizes;
    }

    /**
     * The nearest-rank percentile: the smallest value such that at least p% of the values are
     * at most it (p = 0: the smallest value).
     */
    public static long percentile(final long[] values, final int p)
    {
        if (values.length == 0)
        {
            return 0;
        }
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        final int rank = (int)Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
