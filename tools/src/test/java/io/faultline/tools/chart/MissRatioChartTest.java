package io.faultline.tools.chart;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MissRatioChartTest
{
    @TempDir
    Path tmp;

    @Test
    void chartIsPngOrSvgByExtension() throws IOException
    {
        final List<MissRatioChart.Series> series = List.of(
            new MissRatioChart.Series("lru", new int[] {1, 10, 100, 1000}, new double[] {0.9, 0.7, 0.5, 0.1}),
            new MissRatioChart.Series("clock", new int[] {1, 10, 100, 1000}, new double[] {0.95, 0.75, 0.5, 0.2}));
        final Path png = tmp.resolve("curve.PNG");
        MissRatioChart.write(png, "test", series);
        final byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte)0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head);

        final Path svg = tmp.resolve("curve.svg");
        MissRatioChart.write(svg, "test", series);
        final String content = Files.readString(svg);
        assertTrue(content.startsWith("<?xml") && content.contains("<svg") && content.trim().endsWith("</svg>"));
    }

    @Test
    void chartWithAnotherExtensionIsRefused()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> MissRatioChart.checkExtension(tmp.resolve("curve.jpg")));
        assertEquals("cannot tell the plot format of '" + tmp.resolve("curve.jpg") + "'; name it with .png or .svg",
            ex.getMessage());
    }

    @Test
    void longSeriesAreThinnedGeometricallyKeepingTheEnds()
    {
        final int[] sizes = new int[1_000_000];
        for (int i = 0; i < sizes.length; i++)
        {
            sizes[i] = i + 1;
        }
        final int[] kept = MissRatioChart.thin(sizes);
        assertTrue(kept.length <= MissRatioChart.MAX_POINTS && kept.length > MissRatioChart.MAX_POINTS / 2);
        assertEquals(0, kept[0]);
        assertEquals(sizes.length - 1, kept[kept.length - 1]);
        for (int i = 1; i < kept.length; i++)
        {
            assertTrue(kept[i] > kept[i - 1]);
        }
        assertEquals(5, MissRatioChart.thin(new int[] {1, 2, 3, 4, 5}).length);
    }
}
