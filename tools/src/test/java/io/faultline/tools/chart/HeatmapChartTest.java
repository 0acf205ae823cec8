package io.faultline.tools.chart;

import java.nio.file.Files;
import java.nio.file.Path;

import io.faultline.damon.report.Heatmap;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.HeatMapSeries;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeatmapChartTest
{
    @TempDir
    Path tmp;

    @Test
    void legendGivesTwoDecimals() throws Exception
    {
        final Heatmap.Grid grid = new Heatmap.Grid(7, new long[] {0, 100_000_000}, new long[] {0, 4096},
            new double[][] {{0, 1.8126551089149388}, {0.25, 1.5}});
        // the legend prints the series' extremes as they are (SVG draws its text as outlines, so
        // the chart's own series is read here)
        final HeatMapSeries series = HeatmapChart.chart("heat", grid).getHeatMapSeries();
        assertEquals(1.81, series.getMax());
        assertEquals(0, series.getMin());
        final Path svg = tmp.resolve("heat.svg");
        HeatmapChart.write(svg, "heat", grid);
        assertTrue(Files.readString(svg).contains("<svg"));
    }
}
