package io.faultline.sim.report;

import io.faultline.sim.mrc.MissRatioCurve;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReportsTest
{
    private static final List<SimulationRow> ROWS = List.of(
        new SimulationRow("cloudPhysicsIO.txt", "lru", 128, 113_872, 99_411),
        new SimulationRow("cloudPhysicsIO.txt", "2q:kin=0.25,x", 1024, 113_872, 94_816));

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
}
