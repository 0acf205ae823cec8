package io.faultline.damon.report;

import java.io.PrintWriter;
import java.util.List;

import io.faultline.damon.record.Snapshot;

/** {@code faultline report regions}: the raw data, one CSV row per region per aggregation. */
public final class RegionsCsv
{
    public static final String HEADER = "aggregation,time_ns,pid,start,end,nr_accesses,age";

    private RegionsCsv()
    {
    }

    /** time_ns is when the aggregation ended; start and end are decimal byte addresses. */
    public static void write(final List<Snapshot> snapshots, final PrintWriter out)
    {
        out.print(HEADER + "\n");
        for (final Snapshot s : snapshots)
        {
            for (final Snapshot.TargetRegions t : s.targets())
            {
                for (final Snapshot.RegionRecord r : t.regions())
                {
                    out.print(s.aggregation() + "," + s.endNs() + "," + t.pid() + "," + r.start() + "," + r.end() + ","
                        + r.nrAccesses() + "," + r.age() + "\n");
                }
            }
        }
    }
}
