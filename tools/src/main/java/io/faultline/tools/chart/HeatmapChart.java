package io.faultline.tools.chart;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.faultline.damon.report.Heatmap;
import io.faultline.sim.report.MissRatioChart;
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
        System.setProperty("java.awt.headless", "true");
        final HeatMapChart chart = new HeatMapChartBuilder().width(1000).height(700).title(title)
            .xAxisTitle("time (s)").yAxisTitle("address offset (MiB)").build();
        chart.getStyler().setShowValue(false);
        chart.getStyler().setDrawBorder(false);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setMin(0);
        final List<Number> times = new ArrayList<>();
        for (final long t : grid.timeNs())
        {
            times.add(Math.round(t / 1e6) / 1e3);
        }
        final List<Number> addresses = new ArrayList<>();
        for (final long a : grid.address())
        {
            addresses.add(Math.round((a - grid.address()[0]) / 1048.576) / 1e3);
        }
        final List<Number[]> heat = new ArrayList<>();
        double max = 0;
        for (int t = 0; t < grid.heat().length; t++)
        {
            for (int a = 0; a < grid.heat()[t].length; a++)
            {
                heat.add(new Number[] {t, a, grid.heat()[t][a]});
                max = Math.max(max, grid.heat()[t][a]);
            }
        }
        chart.getStyler().setMax(Math.max(max, 1));
        chart.addSeries("nr_accesses", times, addresses, heat);
        MissRatioChart.save(chart, out);
    }
}
