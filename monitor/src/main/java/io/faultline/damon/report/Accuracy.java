package io.faultline.damon.report;

import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.record.Snapshot;

/**
 * How far DAMON's results are from the truth of a complete trace, per aggregation interval and
 * overall. For aggregation k of the record (window W, M = aggregation / sampling samples) and
 * each target process:
 *
 * <ul>
 *   <li>c(p), the exact frequency of page p: in how many of W's sampling intervals the trace
 *       references p ({@link ExactAccesses}); n(p), DAMON's: the nr_accesses of the record's
 *       region that holds p's first byte, 0 if none;</li>
 *   <li>the compared pages P: those in the record's regions, and those with c(p) &gt; 0 outside them;</li>
 *   <li><b>heat error</b> = sum over P of |n(p) - c(p)| / (|P| * M): the mean absolute error of
 *       the access frequency, as a fraction of its largest value (0: exact; 1: every page
 *       maximally wrong);</li>
 *   <li><b>wss error</b> = (DAMON's working set - the true one) / the true one, where DAMON's is
 *       the size of its regions with nr_accesses &gt;= 1 and the true one the size of the pages
 *       with c(p) &gt;= 1 (signed; undefined when the true working set is empty).</li>
 * </ul>
 *
 * Overall: the mean heat error over aggregations (each counts once, pages of all targets
 * pooled within one), and the mean absolute and mean signed wss error over aggregations with
 * a non-empty true working set.
 */
public final class Accuracy
{
    /** One aggregation's comparison; wssError is NaN when the true working set is empty. */
    public record Interval(long aggregation, long endNs, long trueWssBytes, long damonWssBytes, double wssError,
        double heatError, long comparedPages)
    {
    }

    /** The per-interval rows and their summary. */
    public record Report(List<Interval> intervals, double meanHeatError, double meanAbsWssError,
        double meanWssError)
    {
    }

    private Accuracy()
    {
    }

    /**
     * @param truth windows must match the record's: same sampling and aggregation intervals, or
     *              the same samples per aggregation if the record's intervals were tuned
     */
    public static Report compare(final List<Snapshot> record, final ExactAccesses truth)
    {
        final int pageSize = truth.trace().pageSize();
        final long max = truth.maxNrAccesses();
        final List<Interval> rows = new ArrayList<>();
        double heatSum = 0;
        double wssAbsSum = 0;
        double wssSum = 0;
        int wssCount = 0;
        for (final Snapshot s : record)
        {
            long errorSum = 0;
            long compared = 0;
            long trueWss = 0;
            long damonWss = 0;
            for (final Snapshot.TargetRegions t : s.targets())
            {
                final int pid = (int)t.pid();
                final long[] pages = truth.trace().pages(pid);
                final List<Snapshot.RegionRecord> regions = t.regions();
                int ri = 0;
                int pi = 0;
                // Both lists are sorted by address: one merge pass.
                for (final Snapshot.RegionRecord r : regions)
                {
                    if (r.nrAccesses() >= 1)
                    {
                        damonWss += r.size();
                    }
                }
                for (; pi < pages.length; pi++)
                {
                    final long address = pages[pi] * pageSize;
                    while (ri < regions.size() && regions.get(ri).end() <= address)
                    {
                        ri++;
                    }
                    final int c = truth.frequency(pid, pages[pi], s);
                    if (c > 0)
                    {
                        trueWss += pageSize;
                    }
                    final boolean inside = ri < regions.size() && regions.get(ri).start() <= address;
                    if (inside)
                    {
                        // The region's untouched pages are added below as |n - 0|; correct for this one.
                        errorSum += Math.abs(regions.get(ri).nrAccesses() - c) - regions.get(ri).nrAccesses();
                    }
                    else if (c > 0)
                    {
                        errorSum += c;
                        compared++;
                    }
                }
                for (final Snapshot.RegionRecord r : regions)
                {
                    final long regionPages = (r.end() - r.start() + pageSize - 1) / pageSize;
                    errorSum += regionPages * r.nrAccesses();
                    compared += regionPages;
                }
            }
            final double heatError = compared == 0 ? 0 : (double)errorSum / ((double)compared * max);
            final double wssError = trueWss == 0 ? Double.NaN : (double)(damonWss - trueWss) / trueWss;
            rows.add(new Interval(s.aggregation(), s.endNs(), trueWss, damonWss, wssError, heatError, compared));
            heatSum += heatError;
            if (trueWss > 0)
            {
                wssAbsSum += Math.abs(wssError);
                wssSum += wssError;
                wssCount++;
            }
        }
        return new Report(rows, rows.isEmpty() ? 0 : heatSum / rows.size(),
            wssCount == 0 ? Double.NaN : wssAbsSum / wssCount, wssCount == 0 ? Double.NaN : wssSum / wssCount);
    }
}
