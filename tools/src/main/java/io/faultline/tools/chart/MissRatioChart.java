package io.faultline.tools.chart;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

import io.faultline.sim.mrc.MissRatioCurve;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Miss ratio against cache size, one line per series, written as PNG or SVG by the output
 * file's extension. Sizes spanning two decades or more go on a logarithmic axis; a series longer
 * than {@link #MAX_POINTS} is thinned to geometrically spaced sizes, which keeps an exact curve
 * over a million sizes drawable and its knees visible.
 */
public final class MissRatioChart
{
    static final int MAX_POINTS = 2000;
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 640;

    /** One line: miss ratios at increasing sizes. */
    public record Series(String name, int[] sizes, double[] missRatios)
    {
        public Series
        {
            if (sizes.length != missRatios.length || sizes.length == 0)
            {
                throw new IllegalArgumentException("a series needs as many sizes as ratios, at least one: sizes="
                    + sizes.length + " ratios=" + missRatios.length);
            }
        }

        /** The curve at every size from 1 page to its largest, named by its label. */
        public static Series of(final MissRatioCurve curve)
        {
            final int[] sizes = new int[curve.maxSize()];
            final double[] ratios = new double[curve.maxSize()];
            for (int size = 1; size <= curve.maxSize(); size++)
            {
                sizes[size - 1] = size;
                ratios[size - 1] = curve.missRatio(size);
            }
            return new Series(curve.label(), sizes, ratios);
        }
    }

    private enum Encoding { PNG, SVG }

    private MissRatioChart()
    {
    }

    /**
     * Checks that {@code out} ends in .png or .svg, before any long work is done.
     *
     * @throws IllegalArgumentException naming the accepted extensions
     */
    public static void checkExtension(final Path out)
    {
        encodingOf(out);
    }

    public static void write(final Path out, final String title, final List<Series> series) throws IOException
    {
        encodingOf(out);
        System.setProperty("java.awt.headless", "true");
        final XYChart chart = new XYChartBuilder()
            .width(WIDTH).height(HEIGHT).title(title).xAxisTitle("cache size (pages)").yAxisTitle("miss ratio")
            .build();
        int minSize = Integer.MAX_VALUE;
        int maxSize = 1;
        for (final Series s : series)
        {
            minSize = Math.min(minSize, s.sizes()[0]);
            maxSize = Math.max(maxSize, s.sizes()[s.sizes().length - 1]);
        }
        final boolean logarithmic = minSize > 0 && (double)maxSize / minSize >= 100;
        chart.getStyler().setXAxisLogarithmic(logarithmic);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(1.0);
        chart.getStyler().setYAxisDecimalPattern("0.00");
        chart.getStyler().setXAxisDecimalPattern("#,###");
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (final Series s : series)
        {
            final int[] keep = thin(s.sizes());
            final double[] x = new double[keep.length];
            final double[] y = new double[keep.length];
            for (int i = 0; i < keep.length; i++)
            {
                x[i] = s.sizes()[keep[i]];
                y[i] = s.missRatios()[keep[i]];
            }
            final XYSeries line = chart.addSeries(s.name(), x, y);
            line.setMarker(keep.length <= 50 ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
        }
        save(chart, out);
    }

    /** Writes any XChart chart as PNG or SVG, by the extension of {@code out}. */
    public static void save(final Chart<?, ?> chart, final Path out) throws IOException
    {
        final Encoding encoding = encodingOf(out);
        try (OutputStream stream = Files.newOutputStream(out))
        {
            if (encoding == Encoding.PNG)
            {
                BitmapEncoder.saveBitmap(chart, stream, BitmapEncoder.BitmapFormat.PNG);
            }
            else
            {
                VectorGraphicsEncoder.saveVectorGraphic(chart, stream, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            }
        }
    }

    /** Indices of at most {@link #MAX_POINTS} points, geometrically spaced, first and last kept. */
    static int[] thin(final int[] sizes)
    {
        return thin(sizes.length);
    }

    /** Indices of at most {@link #MAX_POINTS} of {@code n} points, geometrically spaced, first and last kept. */
    static int[] thin(final int n)
    {
        if (n <= MAX_POINTS)
        {
            final int[] all = new int[n];
            for (int i = 0; i < n; i++)
            {
                all[i] = i;
            }
            return all;
        }
        final int[] picked = new int[MAX_POINTS];
        int count = 0;
        int last = -1;
        for (int k = 0; k < MAX_POINTS; k++)
        {
            final int index = (int)Math.round(Math.pow(n, (double)k / (MAX_POINTS - 1))) - 1;
            final int clamped = Math.min(n - 1, Math.max(0, index));
            if (clamped > last)
            {
                picked[count++] = clamped;
                last = clamped;
            }
        }
        return java.util.Arrays.copyOf(picked, count);
    }

    private static Encoding encodingOf(final Path out)
    {
        final String name = out.getFileName() == null ? "" : out.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".png"))
        {
            return Encoding.PNG;
        }
        if (name.endsWith(".svg"))
        {
            return Encoding.SVG;
        }
        throw new IllegalArgumentException("cannot tell the plot format of '" + out
            + "'; name it with .png or .svg");
    }
}
