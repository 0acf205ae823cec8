package io.faultline.tools;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import io.faultline.sim.trace.FaultlineTraces;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExportCommandTest
{
    private static final String[] FORMATS = {"lcs-oracle", "lcs-txt", "lirs", "csv"};
    private static final String[] COMPRESSIONS = {"", ".gz", ".xz", ".zst"};

    @TempDir
    Path tmp;

    /** Two processes, three threads, pages revisited; 8 KiB pages so that keys are not addresses / 4096. */
    private Path trace() throws IOException
    {
        return FaultlineTraces.write(tmp.resolve("trace"), 8192,
            new long[] {100, 100, 0x10000, 0x12000, 0x10008, 0x7fff_0000_0000L},
            new long[] {100, 101, 0x12010, 0x30000},
            new long[] {200, 200, 0x10000, 0x7fff_0000_1ff8L, 0x14000});
    }

    @Test
    void everyFormatAndCompressionReadsBackToTheSamePages() throws IOException
    {
        final Path trace = trace();
        final long[] pages = TraceFormats.read(TraceFormats.get("faultline"), trace, TraceOptions.defaults()).toArray();
        assertEquals(9, pages.length);
        for (final String format : FORMATS)
        {
            for (final String compression : COMPRESSIONS)
            {
                final Path file = tmp.resolve("export-" + format + compression);
                final CommandRun run = CommandRun.of("export", "--to", format, "-o", file.toString(), trace.toString());
                assertEquals(0, run.status(), run.toString());
                assertTrue(run.err().matches("Wrote 9 references as " + format + " to " + file
                    + " \\(.*\\) in \\d+\\.\\d{3} s\\R"), run.err());
                // The CSV holds addresses, not pages: reading it needs the trace's page size.
                final TraceOptions options = format.equals("csv") ? TraceOptions.defaults().withPageSize(8192)
                    : TraceOptions.defaults();
                final KeyTrace back = TraceFormats.read(TraceFormats.get(format), file, options);
                assertArrayEquals(pages, back.toArray(), format + compression);
            }
        }
    }

    @Test
    void compressionFollowsTheExtension() throws IOException
    {
        final Path trace = trace();
        final byte[][] magic = {{0x1f, (byte)0x8b}, {(byte)0xfd, '7', 'z', 'X', 'Z', 0}, {0x28, (byte)0xb5, 0x2f, (byte)0xfd}};
        for (int i = 1; i < COMPRESSIONS.length; i++)
        {
            final Path file = tmp.resolve("pages.lirs" + COMPRESSIONS[i]);
            assertEquals(0, CommandRun.of("export", "--to=lirs", "--output=" + file, trace.toString()).status());
            final byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(file), magic[i - 1].length);
            assertArrayEquals(magic[i - 1], head, COMPRESSIONS[i]);
        }
    }

    @Test
    void oracleGeneralRecordsCarryTimeSizeAndTheOneBasedIndexOfTheNextAccess() throws IOException
    {
        // Pages 1 2 1 3 2 at seq * 10 ns (FaultlineTraces): all in second 0.
        final Path trace = FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {1, 1, 0x1000, 0x2000, 0x1008, 0x3000, 0x2ff8});
        final Path file = tmp.resolve("t.oracle");
        assertEquals(0, CommandRun.of("export", "--to", "lcs-oracle", "-o", file.toString(), trace.toString()).status());
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(5 * 24, bytes.remaining());
        final long[] pages = {1, 2, 1, 3, 2};
        final long[] next = {3, 5, -1, -1, -1};
        for (int i = 0; i < 5; i++)
        {
            assertEquals(0, bytes.getInt(), "clock time of " + i);
            assertEquals(pages[i], bytes.getLong(), "object id of " + i);
            assertEquals(4096, bytes.getInt(), "object size of " + i);
            assertEquals(next[i], bytes.getLong(), "next access of " + i);
        }
    }

    @Test
    void csvIsWhatDumpPrintsAndGoesToStandardOutputWithoutAFile() throws IOException
    {
        final Path trace = trace();
        final CommandRun export = CommandRun.of("export", "--to", "csv", trace.toString());
        final CommandRun dump = CommandRun.of("dump", "--format", "csv", trace.toString());
        assertEquals(0, export.status(), export.toString());
        assertEquals(dump.out(), export.out());
        assertTrue(export.err().startsWith("Wrote 9 references as csv to standard output in "), export.err());

        final CommandRun one = CommandRun.of("export", "--to", "lcs-txt", "--tid", "101", trace.toString());
        assertEquals("9\n24\n", one.out(), one.toString());
    }

    @Test
    void badInputIsOneLineAndLeavesNoFile() throws IOException
    {
        final Path trace = trace();
        assertOneLine("faultline export: unknown export format 'xml'; known formats: lcs-oracle, lcs-txt, lirs, csv, kvmtrace",
            "export", "--to", "xml", trace.toString());
        assertOneLine("faultline export: missing --to FORMAT; known formats: lcs-oracle, lcs-txt, lirs, csv, kvmtrace",
            "export", trace.toString());
        final Path nowhere = tmp.resolve("no-such-dir").resolve("x.lirs");
        assertOneLine("faultline export: cannot write " + nowhere + ": no such directory; give -o a file in a "
            + "writable directory", "export", "--to", "lirs", "-o", nowhere.toString(), trace.toString());
        final Path out = tmp.resolve("never.lirs");
        final CommandRun missing = CommandRun.of("export", "--to", "lirs", "-o", out.toString(),
            tmp.resolve("absent").toString());
        assertEquals(1, missing.status());
        assertEquals(1, missing.errLines().length, missing.toString());
        assertFalse(Files.exists(out), "no output for a trace that is not there");
    }

    private static void assertOneLine(final String expected, final String... args)
    {
        final CommandRun run = CommandRun.of(args);
        assertEquals(2, run.status(), run.toString());
        assertEquals(expected + System.lineSeparator(), run.err());
        assertEquals("", run.out());
    }
}
