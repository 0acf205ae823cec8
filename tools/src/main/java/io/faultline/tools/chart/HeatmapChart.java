package io.faultline.tools.chart;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.report.Heatmap;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;

/** A {@link Heatmap.Grid} drawn as damo draws heats: time across, address up, access frequency as colour. */
public final class HeatmapChart
{
    private HeatmapChart()
    {
    }

    public static void write(final Path out, final String title, final Heatmap.Grid grid) throws IOException
    {
        MissRatioChart.checkExtension(out);
        MissRatioChart.save(chart(title, grid), out);
    }

    /** The chart, not yet drawn. */
    static HeatMapChart chart(final String title, final Heatmap.Grid grid)
    {
        System.setProperty("java.awt.headless", "true");
        final HeatMapChart chart = new HeatMapChartBuilder().width(1000).height(700).title(title)
            .xAxisTitle("time (s)").yAxisTitle("address offset (MiB)").build();
        chart.getStyler().setShowValue(false);
        chart.getStyler().setDrawBorder(false);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setMin(0);
        chart.getStyler().setHeatMapValueDecimalPattern("0.00");
        // one label per tenth of an axis: a tick mark and a grid line per pixel are a dotted smear
        // along the axes, where the cells do not cover them
        chart.getStyler().setAxisTicksMarksVisible(false);
        chart.getStyler().setPlotGridLinesVisible(false);
        chart.getStyler().setRangeColors(new java.awt.Color[] {java.awt.Color.WHITE, new java.awt.Color(255, 200, 0),
            java.awt.Color.RED, new java.awt.Color(110, 0, 0)});
        // The axes are categories, one label per pixel; label about ten of them so they stay readable.
        final List<String> times = new ArrayList<>();
        final int timeStep = Math.max(1, grid.timeNs().length / 10);
        for (int i = 0; i < grid.timeNs().length; i++)
        {
            times.add(i % timeStep == 0 ? String.format(java.util.Locale.ROOT, "%.2f", grid.timeNs()[i] / 1e9)
                : " ".repeat(i));
        }
        final List<String> addresses = new ArrayList<>();
        final int addressStep = Math.max(1, grid.address().length / 10);
        for (int i = 0; i < grid.address().length; i++)
        {
            addresses.add(i % addressStep == 0 ? String.format(java.util.Locale.ROOT, "%.2f",
                (grid.address()[i] - grid.address()[0]) / 1048576.0) : " ".repeat(i));
        }
        final List<Number[]> heat = new ArrayList<>();
        double max = 0;
        for (int t = 0; t < grid.heat().length; t++)
        {
            for (int a = 0; a < grid.heat()[t].length; a++)
            {
                // XChart's legend prints the series' extremes with all their digits (1.8126551089149388):
                // two decimals are all a colour can tell apart
                final double value = Math.round(grid.heat()[t][a] * 100) / 100.0;
                heat.add(new Number[] {t, a, value});
                max = Math.max(max, value);
            }
        }
        chart.getStyler().setMax(Math.max(max, 1));
        chart.addSeries("nr_accesses", times, addresses, heat);
        return chart;
    }
}
