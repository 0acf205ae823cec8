package io.faultline.damon.report;

import java.io.PrintWriter;
import java.util.List;

import io.faultline.damon.record.Snapshot;

/**
 * {@code faultline report schemes}: every scheme's statistics at the end of every aggregation,
 * one CSV row each. The counters are counted from the start, as the kernel's damos_stat; esz
 * and charged_sz are the current charge window's effective size quota and the bytes charged in
 * it; active says whether the watermarks let the scheme run.
 */
public final class SchemesCsv
{
    public static final String HEADER = "aggregation,time_ns,scheme,nr_tried,sz_tried,nr_applied,sz_applied,qt_exceeds,"
        + "sz_ops_filter_passed,esz,charged_sz,active";

    private SchemesCsv()
    {
    }

    public static void write(final List<Snapshot> snapshots, final PrintWriter out)
    {
        out.print(HEADER + "\n");
        for (final Snapshot s : snapshots)
        {
            for (int i = 0; i < s.schemes().size(); i++)
            {
                final Snapshot.SchemeRecord r = s.schemes().get(i);
                out.print(s.aggregation() + "," + s.endNs() + "," + i + "," + r.nrTried() + "," + r.szTried() + ","
                    + r.nrApplied() + "," + r.szApplied() + "," + r.qtExceeds() + "," + r.szOpsFilterPassed() + ","
                    + r.esz() + "," + r.chargedSz() + "," + (r.active() ? 1 : 0) + "\n");
            }
        }
    }
}
