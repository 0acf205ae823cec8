package io.faultline.sim.report;

import io.faultline.sim.mrc.MissRatioCurve;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * CSV for simulations and miss-ratio curves: RFC 4180, comma separated, a header line, miss
 * ratios to 6 decimals.
 */
public final class CsvReports
{
    public static final String SIMULATION_HEADER = "trace,policy,size,requests,misses,miss_ratio";
    public static final String MRC_HEADER = "size,misses,miss_ratio";
    /** With {@code --per-thread}: the same columns after the thread id. */
    public static final String MRC_PER_THREAD_HEADER = "tid,size,misses,miss_ratio";

    private CsvReports()
    {
    }

    public static void writeSimulation(final List<SimulationRow> rows, final PrintWriter out)
    {
        out.print(SIMULATION_HEADER + "\n");
        for (final SimulationRow row : rows)
        {
            out.print(field(row.trace()) + "," + field(row.policy()) + "," + row.size() + "," + row.requests()
                + "," + row.misses() + "," + ratio(row.missRatio()) + "\n");
        }
        out.flush();
    }

    /** One row per size from 1 to the curve's largest size. */
    public static void writeMrc(final MissRatioCurve curve, final PrintWriter out)
    {
        out.print(MRC_HEADER + "\n");
        for (int size = 1; size <= curve.maxSize(); size++)
        {
            out.print(size + "," + curve.misses(size) + "," + ratio(curve.missRatio(size)) + "\n");
        }
        out.flush();
    }

    /** One block of rows per thread, each from size 1 to that curve's largest size. */
    public static void writeMrcPerThread(final List<Integer> tids, final List<MissRatioCurve> curves, final PrintWriter out)
    {
        out.print(MRC_PER_THREAD_HEADER + "\n");
        for (int i = 0; i < curves.size(); i++)
        {
            final MissRatioCurve curve = curves.get(i);
            for (int size = 1; size <= curve.maxSize(); size++)
            {
                out.print(tids.get(i) + "," + size + "," + curve.misses(size) + "," + ratio(curve.missRatio(size)) + "\n");
            }
        }
        out.flush();
    }

    static String ratio(final double value)
    {
        return String.format(Locale.ROOT, "%.6f", value);
    }

    /** Quotes a field that holds a comma, a quote or a line break (policy labels may hold ':' and '='). */
    static String field(final String text)
    {
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0)
        {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }
}
