package io.faultline.tools.chart;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.faultline.sim.mrc.ReuseHistograms;
import io.faultline.sim.report.ReuseScope;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Reuse distance and reuse time as cumulative distributions, one line each per scope (the whole
 * trace, or a thread): the fraction of re-references (first references left out) whose reuse is
 * at most x, x on a logarithmic axis from 1. A distance of 0 and a time of 1 both mean "in a
 * row"; distances are drawn at distance + 1, so the two lines start at the same point.
 */
public final class ReuseChart
{
    private ReuseChart()
    {
    }

    public static void write(final Path out, final String title, final List<ReuseScope> scopes) throws IOException
    {
        MissRatioChart.checkExtension(out);
        System.setProperty("java.awt.headless", "true");
        final XYChart chart = new XYChartBuilder().width(1000).height(640).title(title)
            .xAxisTitle("reuse distance + 1 (pages) or reuse time (references)")
            .yAxisTitle("fraction of re-references at most x").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(1.0);
        chart.getStyler().setYAxisDecimalPattern("0.00");
        chart.getStyler().setXAxisDecimalPattern("#,###");
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (final ReuseScope scope : scopes)
        {
            final String label = scope.name().equals("all") ? "all" : "tid " + scope.name();
            add(chart, label + " distance", scope.histograms().distances(), 1);
            add(chart, label + " time", scope.histograms().times(), 0);
        }
        MissRatioChart.save(chart, out);
    }

    private static void add(final XYChart chart, final String name, final ReuseHistograms.Histogram histogram,
        final long shift)
    {
        final long[] values = histogram.values();
        final long reused = histogram.total() - histogram.count(ReuseHistograms.FIRST);
        final int first = values.length > 0 && values[0] == ReuseHistograms.FIRST ? 1 : 0;
        final int points = values.length - first;
        final int[] keep = MissRatioChart.thin(Math.max(points, 1));
        final double[] x = new double[Math.max(keep.length, 1)];
        final double[] y = new double[x.length];
        if (points == 0)
        {
            x[0] = 1;
            y[0] = 0;
        }
        else
        {
            // cumulative[i]: re-references with a value at most values[first + i]
            final long[] cumulative = new long[points];
            long sum = 0;
            for (int i = 0; i < points; i++)
            {
                sum += histogram.count(values[first + i]);
                cumulative[i] = sum;
            }
            for (int i = 0; i < keep.length; i++)
            {
                x[i] = values[first + keep[i]] + shift;
                y[i] = (double)cumulative[keep[i]] / reused;
            }
        }
        chart.addSeries(name, x, y).setMarker(keep.length <= 50 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
    }
}
