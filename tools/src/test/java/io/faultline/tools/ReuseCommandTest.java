package io.faultline.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReuseCommandTest
{
    @TempDir
    Path tmp;

    /**
     * Pages 1 2 1 | 5 1 | 2 from threads 11, 12, 11: in the whole trace the second 1 has 2 between
     * (distance 1, time 2), the third 1 has 5 (1, 2), the second 2 has 1 and 5 (2, 4); thread 11
     * alone sees 1 2 1 2 (distance 1, time 2 twice), thread 12 alone 5 1. In power-of-two buckets:
     * distances 1 1 | 2 in buckets 1 and 2-3, times 2 2 | 4 in 2-3 and 4-7.
     */
    @Test
    void perThreadHistogramsAsTextCsvAndAChart() throws IOException
    {
        final Path trace = FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {1, 11, 0x1000, 0x2000, 0x1000},
            new long[] {1, 12, 0x5000, 0x1000},
            new long[] {1, 11, 0x2000});
        final Path svg = tmp.resolve("reuse.svg");
        final Path csv = tmp.resolve("reuse.csv");
        final CommandRun run = CommandRun.of("report", "reuse", "--per-thread", "--csv", csv.toString(), "--plot",
            svg.toString(), trace.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals(List.of("scope,metric,from,to,count",
            "all,distance,-1,-1,3", "all,distance,0,0,0", "all,distance,1,1,2", "all,distance,2,3,1",
            "all,time,-1,-1,3", "all,time,1,1,0", "all,time,2,3,2", "all,time,4,7,1",
            "11,distance,-1,-1,2", "11,distance,0,0,0", "11,distance,1,1,2",
            "11,time,-1,-1,2", "11,time,1,1,0", "11,time,2,3,2",
            "12,distance,-1,-1,2", "12,time,-1,-1,2"), Files.readAllLines(csv));
        assertEquals(List.of(
            "whole trace: 6 references, 3 first (cold); median reuse distance 1 pages, time 2 references",
            "   reuse  distance     %  cum. %    time     %  cum. %",
            "   cold          3  50.0               3  50.0",
            "   0             0   0.0     0.0",
            "   1             2  33.3    33.3       0   0.0     0.0",
            "   2-3           1  16.7    50.0       2  33.3    33.3",
            "   4-7           0   0.0    50.0       1  16.7    50.0",
            "",
            "thread 11: 4 references, 2 first (cold); median reuse distance 1 pages, time 2 references",
            "   reuse  distance     %  cum. %    time     %  cum. %",
            "   cold          2  50.0               2  50.0",
            "   0             0   0.0     0.0",
            "   1             2  50.0    50.0       0   0.0     0.0",
            "   2-3           0   0.0    50.0       2  50.0    50.0",
            "",
            "thread 12: 2 references, 2 first (cold); median reuse distance - pages, time - references",
            "   reuse  distance      %  cum. %    time      %  cum. %",
            "   cold          2  100.0               2  100.0"), run.out().lines().toList());
        assertTrue(Files.readString(svg).contains("<svg"));
        assertTrue(run.err().contains("Wrote reuse histograms as CSV to " + csv), run.err());
        assertTrue(run.err().contains("Wrote chart to " + svg), run.err());
    }

    @Test
    void aMissingTraceIsOneLineWithTheAccessStatus()
    {
        final Path absent = tmp.resolve("absent");
        final CommandRun run = CommandRun.of("report", "reuse", absent.toString());
        assertEquals(ExitStatus.ACCESS, run.status(), run.toString());
        assertEquals(1, run.errLines().length, run.toString());
        assertTrue(run.lastErrLine().startsWith("faultline report reuse: ") && run.lastErrLine().contains(absent.toString()),
            run.toString());
    }

    @Test
    void perThreadNeedsAFaultlineTrace() throws IOException
    {
        final Path text = Files.writeString(tmp.resolve("t.txt"), "1\n2\n1\n");
        final CommandRun run = CommandRun.of("report", "reuse", "--per-thread", "--format", "lcs-txt", text.toString());
        assertEquals(ExitStatus.USAGE, run.status(), run.toString());
        assertEquals("faultline report reuse: --per-thread needs a faultline trace, which records threads; " + text
            + " is read as lcs-txt", run.lastErrLine());
    }
}
