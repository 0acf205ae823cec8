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
     * alone sees 1 2 1 2 (distance 1, time 2 twice), thread 12 alone 5 1.
     */
    @Test
    void perThreadHistogramsAsCsvAndAChart() throws IOException
    {
        final Path trace = FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {1, 11, 0x1000, 0x2000, 0x1000},
            new long[] {1, 12, 0x5000, 0x1000},
            new long[] {1, 11, 0x2000});
        final Path svg = tmp.resolve("reuse.svg");
        final CommandRun run = CommandRun.of("report", "reuse", "--per-thread", "--plot", svg.toString(),
            trace.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals(List.of("scope,metric,reuse,count",
            "all,distance,-1,3", "all,distance,1,2", "all,distance,2,1",
            "all,time,-1,3", "all,time,2,2", "all,time,4,1",
            "11,distance,-1,2", "11,distance,1,2", "11,time,-1,2", "11,time,2,2",
            "12,distance,-1,2", "12,time,-1,2"), run.out().lines().toList());
        assertTrue(run.err().contains("all: 6 references, 3 first; median reuse distance 1 pages, time 2 references"),
            run.err());
        assertTrue(run.err().contains("12: 2 references, 2 first; median reuse distance - pages"), run.err());
        assertTrue(Files.readString(svg).contains("<svg"));
        assertTrue(run.err().contains("Wrote chart to " + svg), run.err());
    }

    @Test
    void perThreadNeedsAFaultlineTrace() throws IOException
    {
        final Path text = Files.writeString(tmp.resolve("t.txt"), "1\n2\n1\n");
        final CommandRun run = CommandRun.of("report", "reuse", "--per-thread", "--format", "lcs-txt", text.toString());
        assertEquals(2, run.status(), run.toString());
        assertEquals("faultline report reuse: --per-thread needs a faultline trace, which records threads; " + text
            + " is read as lcs-txt", run.lastErrLine());
    }
}
