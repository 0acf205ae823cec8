package io.faultline.sim.report;

import io.faultline.sim.mrc.MissRatioCurve;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportsTest
{
    private static final List<SimulationRow> ROWS = List.of(
        new SimulationRow("cloudPhysicsIO.txt", "lru", 128, 113_872, 99_411),
        new SimulationRow("cloudPhysicsIO.txt", "2q:kin=0.25,x", 1024, 113_872, 94_816));

    @TempDir
    Path tmp;

    @Test
    void consoleTableAlignsTextLeftAndNumbersRightWithThousandsSeparators()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsoleTable.print(ROWS, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(String.join(System.lineSeparator(),
            "trace               policy          size  requests  misses  miss ratio",
            "cloudPhysicsIO.txt  lru              128   113,872  99,411    0.873007",
            "cloudPhysicsIO.txt  2q:kin=0.25,x  1,024   113,872  94,816    0.832654",
            ""), bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void simulationCsvHasTheExactHeaderAndQuotesCommas()
    {
        final StringWriter text = new StringWriter();
        CsvReports.writeSimulation(ROWS, new PrintWriter(text));
        assertEquals("trace,policy,size,requests,misses,miss_ratio\n"
            + "cloudPhysicsIO.txt,lru,128,113872,99411,0.873007\n"
            + "cloudPhysicsIO.txt,\"2q:kin=0.25,x\",1024,113872,94816,0.832654\n", text.toString());
    }

    @Test
    void mrcCsvHasOneRowPerSize()
    {
        final StringWriter text = new StringWriter();
        CsvReports.writeMrc(new MissRatioCurve("LRU", 6, 3, new long[] {6, 4, 3}), new PrintWriter(text));
        assertEquals("size,misses,miss_ratio\n1,6,1.000000\n2,4,0.666667\n3,3,0.500000\n", text.toString());

        final StringWriter perThread = new StringWriter();
        CsvReports.writeMrcPerThread(List.of(7, 9), List.of(
            new MissRatioCurve("tid 7", 2, 1, new long[] {1}),
            new MissRatioCurve("tid 9", 4, 2, new long[] {4, 2})), new PrintWriter(perThread));
        assertEquals("tid,size,misses,miss_ratio\n7,1,1,0.500000\n9,1,4,1.000000\n9,2,2,0.500000\n", perThread.toString());
    }

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
