package io.faultline.tools.chart;

import java.io.IOException;
import java.nio.file.Path;

import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Working set size over time, one point per aggregation. */
public final class WorkingSetChart
{
    private WorkingSetChart()
    {
    }

    public static void write(final Path out, final String title, final long[] endNs, final long[] bytes)
        throws IOException
    {
        MissRatioChart.checkExtension(out);
        System.setProperty("java.awt.headless", "true");
        final XYChart chart = new XYChartBuilder().width(1000).height(640).title(title).xAxisTitle("time (s)")
            .yAxisTitle("working set (MiB)").build();
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setLegendVisible(false);
        final double[] x = new double[Math.max(1, endNs.length)];
        final double[] y = new double[x.length];
        for (int i = 0; i < endNs.length; i++)
        {
            x[i] = endNs[i] / 1e9;
            y[i] = bytes[i] / 1048576.0;
        }
        chart.addSeries("wss", x, y).setMarker(endNs.length <= 50 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
        MissRatioChart.save(chart, out);
    }
}
