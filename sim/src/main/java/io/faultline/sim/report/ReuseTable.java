package io.faultline.sim.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.faultline.sim.mrc.ReuseHistograms;

/**
 * The reuse histograms of a scope as text for a terminal: a heading with the references, the
 * first references and the medians, then one row per power-of-two bucket with the reuse
 * distance and reuse time counts, their share of all references and the cumulative share.
 * First references (cold misses) get their own row above the buckets. Figures grouped by
 * thousands; the CSV keeps them raw.
 */
public final class ReuseTable
{
    private static final String[] HEADER = {"reuse", "distance", "%", "cum. %", "time", "%", "cum. %"};

    private ReuseTable()
    {
    }

    public static void print(final ReuseScope scope, final PrintStream out)
    {
        final ReuseHistograms h = scope.histograms();
        final long refs = h.references();
        out.printf(Locale.ROOT, "%s: %,d references, %,d first (cold); median reuse distance %s pages, time %s"
            + " references%n", scope.name().equals("all") ? "whole trace" : "thread " + scope.name(), refs,
            h.firstReferences(), median(h.distances()), median(h.times()));
        final long[] distances = h.distances().buckets();
        final long[] times = h.times().buckets();
        final List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        rows.add(new String[] {"cold", grouped(h.firstReferences()), percent(h.firstReferences(), refs), "",
            grouped(h.firstReferences()), percent(h.firstReferences(), refs), ""});
        long distanceSum = 0;
        long timeSum = 0;
        for (int k = 0; k < Math.max(distances.length, times.length); k++)
        {
            final long d = k < distances.length ? distances[k] : 0;
            final long t = k < times.length ? times[k] : 0;
            distanceSum += d;
            timeSum += t;
            final long from = ReuseHistograms.bucketFrom(k);
            final long to = ReuseHistograms.bucketTo(k);
            // A reuse time is at least 1: bucket 0 has no time cells rather than a misleading 0.
            final boolean timeCells = k > 0;
            rows.add(new String[] {from == to ? grouped(from) : grouped(from) + "-" + grouped(to),
                grouped(d), percent(d, refs), percent(distanceSum, refs),
                timeCells ? grouped(t) : "", timeCells ? percent(t, refs) : "", timeCells ? percent(timeSum, refs) : ""});
        }
        final int[] widths = new int[HEADER.length];
        for (final String[] row : rows)
        {
            for (int c = 0; c < row.length; c++)
            {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        for (final String[] row : rows)
        {
            final StringBuilder line = new StringBuilder(" ");
            for (int c = 0; c < row.length; c++)
            {
                // The bucket left-aligned, figures right-aligned; a wider gap between distance and time.
                line.append(c == 4 ? "    " : "  ");
                line.append(String.format(Locale.ROOT, c == 0 ? "%-" + widths[c] + "s" : "%" + widths[c] + "s", row[c]));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    private static String grouped(final long value)
    {
        return String.format(Locale.ROOT, "%,d", value);
    }

    private static String percent(final long part, final long whole)
    {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f", 100.0 * part / whole);
    }

    private static String median(final ReuseHistograms.Histogram histogram)
    {
        final long median = histogram.median();
        return median == ReuseHistograms.FIRST ? "-" : grouped(median);
    }
}
