package io.faultline.tools;

import io.faultline.sim.trace.FaultlineTraces;
import io.faultline.sim.trace.SharedTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulateCommandTest
{
    @TempDir
    Path tmp;

    private final String cloud = SharedTraces.cloudPhysicsIO().toString();

    @Test
    void writesTableCsvAndPngForLibCacheSimsPublishedSizes() throws IOException
    {
        final Path csv = tmp.resolve("out.csv");
        final Path png = tmp.resolve("out.png");
        final CommandRun run = CommandRun.of("simulate", "--format", "lcs-txt", "--policies", "lru",
            "--sizes", "128,1024,1M", "--csv", csv.toString(), "--plot", png.toString(), "--threads", "2", cloud);
        assertEquals(0, run.status(), run.toString());
        assertEquals(String.join(System.lineSeparator(),
            "trace               policy   size  requests  misses  miss ratio",
            "cloudPhysicsIO.txt  lru       128   113,872  99,411    0.873007",
            "cloudPhysicsIO.txt  lru     1,024   113,872  94,816    0.832654",
            "cloudPhysicsIO.txt  lru       256   113,872  96,397    0.846538",
            ""), run.out());
        assertEquals(String.join("\n",
            "trace,policy,size,requests,misses,miss_ratio",
            "cloudPhysicsIO.txt,lru,128,113872,99411,0.873007",
            "cloudPhysicsIO.txt,lru,1024,113872,94816,0.832654",
            "cloudPhysicsIO.txt,lru,256,113872,96397,0.846538",
            ""), Files.readString(csv));
        assertArrayEquals(new byte[] {(byte)0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(Files.readAllBytes(png), 4));
        assertTrue(run.err().contains("Read 113,872 references from cloudPhysicsIO.txt in "), run.err());
        assertTrue(run.err().contains("Wrote 3 results as CSV to " + csv), run.err());
        assertTrue(run.err().contains("Wrote chart to " + png), run.err());
    }

    @Test
    void theLargestSizeTheValidatorAcceptsWorksForEveryPolicy() throws IOException
    {
        // 2,147,483,639 pages hold every page of any trace: only first references miss, and no
        // policy allocates its slots (it printed OutOfMemoryError or negative slot counts).
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {1, 11, 0x0000, 0x1000, 0x2000, 0x0008, 0x1010, 0x2fff});
        final CommandRun run = CommandRun.of("simulate", "--policies", String.join(",", io.faultline.sim.Policies.names()),
            "--sizes", "2147483639", dir.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals(io.faultline.sim.Policies.names().size(), run.out().lines().filter(l -> l.contains(" 2,147,483,639 ")
            && l.endsWith("6       3    0.500000")).count(), run.out());
    }

    @Test
    void sizesWithSuffixesCountPagesAtAFaultlineTracesOwnPageSizeAndDuplicatesRunOnce() throws IOException
    {
        // 8 KiB pages: 16K = 2 pages. Pages 0,1,2,0,1,2 -> 2 LRU pages miss every time, 3 pages only cold.
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 8192,
            new long[] {1, 11, 0x0000, 0x2000, 0x4000, 0x0008, 0x2010, 0x5fff});
        final Path svg = tmp.resolve("plot.svg");
        // 16K and 2 are one size at 8 KiB pages: simulated once
        final CommandRun run = CommandRun.of("simulate", "--policies", "lru", "--sizes", "16K,3,2", "--plot",
            svg.toString(), dir.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals(String.join(System.lineSeparator(),
            "trace  policy  size  requests  misses  miss ratio",
            "t      lru        2         6       6    1.000000",
            "t      lru        3         6       3    0.500000",
            ""), run.out());
        assertTrue(Files.readString(svg).contains("<svg"));
    }

    @Test
    void severalTracesGiveRowsForEach() throws IOException
    {
        final Path lirs = tmp.resolve("small.lirs");
        Files.writeString(lirs, "1\n2\n1\n*\n3\n");
        final CommandRun run = CommandRun.of("simulate", "--format=lirs", "--policies=lru", "--sizes=1,2",
            lirs.toString(), lirs.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals(String.join(System.lineSeparator(),
            "trace       policy  size  requests  misses  miss ratio",
            "small.lirs  lru        1         4       4    1.000000",
            "small.lirs  lru        2         4       3    0.750000",
            "small.lirs  lru        1         4       4    1.000000",
            "small.lirs  lru        2         4       3    0.750000",
            ""), run.out());
    }

    @Test
    void badInputIsOneLineWithExitStatusTwo() throws IOException
    {
        final Path lirs = tmp.resolve("small.lirs");
        Files.writeString(lirs, "1\n2\n");
        final String file = lirs.toString();

        assertOneLine("faultline simulate: cannot tell the format of " + file + "; give --format, one of: "
            + "faultline, lirs, lcs-txt, lcs-oracle, lcs, address, lackey, csv, kvmtrace",
            "simulate", "--policies", "lru", "--sizes", "4", file);
        assertOneLine("faultline simulate: unknown trace format 'xml'; known formats: "
            + "faultline, lirs, lcs-txt, lcs-oracle, lcs, address, lackey, csv, kvmtrace",
            "simulate", "--format", "xml", "--policies", "lru", "--sizes", "4", file);
        assertOneLine("faultline simulate: --sizes: '1K' is not a whole number of 4096-byte pages; "
            + "give a multiple of the page size",
            "simulate", "--format", "lirs", "--policies", "lru", "--sizes", "1K", file);
        assertOneLine("faultline simulate: --sizes: 'big' is not a size; give a whole number, or bytes with K, M, G, "
            + "KiB, MiB or GiB (4M)",
            "simulate", "--format", "lirs", "--policies", "lru", "--sizes", "4,big", file);
        assertOneLine("faultline simulate: --sizes: '0' gives 0 pages; a cache holds from 1 to 2147483639 pages",
            "simulate", "--format", "lirs", "--policies", "lru", "--sizes", "0", file);
        assertOneLine("faultline simulate: cannot tell the plot format of 'x.gif'; name it with .png or .svg",
            "simulate", "--format", "lirs", "--policies", "lru", "--sizes", "4", "--plot", "x.gif", file);
        assertOneLine("faultline simulate: missing --policies; e.g. --policies lru,clock; known policies: "
            + String.join(", ", io.faultline.sim.Policies.names()),
            "simulate", "--format", "lirs", "--sizes", "4", file);
        assertOneLine("faultline simulate: unknown option --size (did you mean --sizes?); faultline simulate --help "
            + "lists the options",
            "simulate", "--size", "4", file);
        assertOneLine("faultline simulate: --threads must be at least 1: 0",
            "simulate", "--threads", "0", file);
        assertOneLine("faultline simulate: missing TRACE; give one or more trace files or directories",
            "simulate", "--policies", "lru", "--sizes", "4");

        final CommandRun unknownPolicy = CommandRun.of("simulate", "--format", "lirs", "--policies", "lru,nope",
            "--sizes", "4", file);
        assertEquals(2, unknownPolicy.status());
        assertEquals(1, unknownPolicy.errLines().length, unknownPolicy.err());
        assertTrue(unknownPolicy.err().contains("nope") && unknownPolicy.err().contains("lru"), unknownPolicy.err());

        final CommandRun missing = CommandRun.of("simulate", "--format", "lirs", "--policies", "lru", "--sizes", "4",
            tmp.resolve("absent").toString());
        assertEquals(3, missing.status(), "a file that is not there");
        assertEquals("faultline simulate: no such trace: " + tmp.resolve("absent"), missing.lastErrLine());

        Files.writeString(lirs, "1\n2\nthree\n");
        final CommandRun malformed = CommandRun.of("simulate", "--format", "lirs", "--policies", "lru", "--sizes", "4", file);
        assertEquals(4, malformed.status(), "a corrupt input");
        assertEquals("faultline simulate: " + file + ":3: expected a block number as an unsigned decimal number: 'three'",
            malformed.lastErrLine());
    }

    @Test
    void helpPrintsUsage()
    {
        final CommandRun run = CommandRun.of("simulate", "--help");
        assertEquals(0, run.status());
        assertTrue(run.out().startsWith("usage: faultline simulate [--format F] --policies P1,P2,... --sizes S1,S2,..."),
            run.out());
        assertTrue(run.out().contains("lcs-oracle"), run.out());
    }

    private static void assertOneLine(final String expected, final String... args)
    {
        final CommandRun run = CommandRun.of(args);
        assertEquals(2, run.status(), run.toString());
        assertEquals(expected + System.lineSeparator(), run.err());
        assertEquals("", run.out());
    }
}
