package io.faultline.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.record.Snapshot;
import io.faultline.damon.record.Snapshot.RegionRecord;
import io.faultline.damon.record.Snapshot.TargetRegions;
import io.faultline.format.TraceLayout;

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
    private static final String[] FORMATS = {"lcs-oracle", "lcs", "lcs-txt", "lirs", "csv"};
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
            assertEquals(1L << 36 | pages[i], bytes.getLong(), "object id of " + i + ": process 1's page (PageKey)");
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
        // process 100's pages 9 and 24 (PageKey: the pid from bit 36)
        assertEquals((100L << 36 | 9) + "\n" + (100L << 36 | 24) + "\n", one.out(), one.toString());
    }

    @Test
    void badInputIsOneLineAndLeavesNoFile() throws IOException
    {
        final Path trace = trace();
        assertOneLine("faultline export: unknown export format 'xml'; known formats: lcs-oracle, lcs, lcs-txt, lirs, csv, "
            + "kvmtrace, damo-json, moca, folded, parquet", "export", "--to", "xml", trace.toString());
        assertOneLine("faultline export: missing --to FORMAT; known formats: lcs-oracle, lcs, lcs-txt, lirs, csv, kvmtrace, damo-json, moca, folded, parquet",
            "export", trace.toString());
        final Path nowhere = tmp.resolve("no-such-dir").resolve("x.lirs");
        final CommandRun unwritable = CommandRun.of("export", "--to", "lirs", "-o", nowhere.toString(), trace.toString());
        assertEquals(3, unwritable.status(), "an output the OS refuses: " + unwritable);
        assertEquals("faultline export: cannot write " + nowhere + ": no such directory; give -o a file in a "
            + "writable directory" + System.lineSeparator(), unwritable.err());
        final Path out = tmp.resolve("never.lirs");
        final CommandRun missing = CommandRun.of("export", "--to", "lirs", "-o", out.toString(),
            tmp.resolve("absent").toString());
        assertEquals(3, missing.status(), "a trace that is not there");
        assertEquals(1, missing.errLines().length, missing.toString());
        assertFalse(Files.exists(out), "no output for a trace that is not there");
    }

    /**
     * A monitoring record of two processes over two aggregations: process 7's one region of
     * 16 KiB, then split in two; process 9's one page throughout, aging.
     */
    private Path monitoringRecord() throws IOException
    {
        final Path dir = tmp.resolve("record");
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(dir,
            MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096)))
        {
            writer.write(new Snapshot(0, 0, 100_000_000, List.of(
                new TargetRegions(7, List.of(new RegionRecord(0x10000, 0x14000, 10, 0))),
                new TargetRegions(9, List.of(new RegionRecord(0x1000, 0x2000, 3, 2))))));
            writer.write(new Snapshot(1, 100_000_000, 200_000_000, List.of(
                new TargetRegions(7, List.of(new RegionRecord(0x10000, 0x12000, 20, 0),
                    new RegionRecord(0x12000, 0x14000, 0, 1))),
                new TargetRegions(9, List.of(new RegionRecord(0x1000, 0x2000, 4, 3))))));
            writer.finish(MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096));
        }
        return dir;
    }

    /** damo_record_shape.py's summary of a file, after it checked the file has the shape damo reads. */
    private String damoShape(final Path file) throws Exception
    {
        final Path script = tmp.resolve("damo_record_shape.py");
        try (InputStream in = getClass().getResourceAsStream("/damo_record_shape.py"))
        {
            Files.write(script, in.readAllBytes());
        }
        final Process python = new ProcessBuilder("python3", script.toString(), file.toString()).redirectErrorStream(true)
            .start();
        final String out = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, python.waitFor(), out);
        return out;
    }

    @Test
    void damoJsonOfAMonitoringRecordHasDamosShapeWithEveryRegion() throws Exception
    {
        final Path record = monitoringRecord();
        final Path file = tmp.resolve("record.json");
        final CommandRun run = CommandRun.of("export", "--to", "damo-json", "-o", file.toString(), record.toString());
        assertEquals(0, run.status(), run.toString());
        assertTrue(run.err().matches("Wrote 2 aggregations as damo-json to " + file + " \\(.*\\) in \\d+\\.\\d{3} s\\R"),
            run.err());
        // per target: the record's regions, their nr_accesses and ages summed, the bytes they cover
        assertEquals("target=7 sample_us=5000 aggr_us=100000 ops_update_us=1000000 snapshots=2 regions=3 samples=30 "
            + "ages=1 bytes=32768\n"
            + "target=9 sample_us=5000 aggr_us=100000 ops_update_us=1000000 snapshots=2 regions=2 samples=7 ages=5 "
            + "bytes=8192\n", damoShape(file));

        final CommandRun stdout = CommandRun.of("export", "--to", "damo-json", record.toString());
        assertEquals(Files.readString(file), stdout.out());

        // any other name: zlib, as damo record writes damon.data
        final Path data = tmp.resolve("damon.data");
        final CommandRun compressed = CommandRun.of("export", "--to", "damo-json", "-o", data.toString(), record.toString());
        assertTrue(compressed.err().startsWith("Wrote 2 aggregations as damo-json (zlib) to " + data), compressed.err());
        assertEquals("zlib\n" + damoShape(file), damoShape(data));
    }

    @Test
    void damoJsonOfATraceHoldsItsExactRegions() throws Exception
    {
        // process 1 references pages 1, 2 and 5 within 30 ns: at 1 us sampling and aggregation,
        // one aggregation with regions [1, 3) and [5, 6) of pages, each referenced in its one sample
        final Path trace = FaultlineTraces.write(tmp.resolve("exact"), 4096,
            new long[] {1, 11, 0x1000, 0x2000, 0x1000},
            new long[] {1, 11, 0x5000});
        final Path file = tmp.resolve("exact.json");
        final CommandRun run = CommandRun.of("export", "--to", "damo-json", "--sample", "1us", "--aggr", "1us", "-o",
            file.toString(), trace.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals("target=1 sample_us=1 aggr_us=1 ops_update_us=1000000 snapshots=1 regions=2 samples=2 ages=0 "
            + "bytes=12288\n", damoShape(file));
    }

    @Test
    void damoJsonBadInputIsOneLine() throws IOException
    {
        final Path record = monitoringRecord();
        final Path trace = trace();
        assertOneLine("faultline export: --sample and --aggr apply to traces; " + record + " is a monitoring record "
            + "made with sampling 5 ms and aggregation 100 ms; leave them out", "export", "--to", "damo-json", "--aggr",
            "1s", record.toString());
        assertOneLine("faultline export: --sample and --aggr apply to --to damo-json; leave them out for lirs", "export",
            "--to", "lirs", "--sample", "1ms", trace.toString());
        assertOneLine("faultline export: --pid and --tid apply to reference formats; --to damo-json writes every target "
            + "of the record, leave them out", "export", "--to", "damo-json", "--pid", "7", record.toString());
        assertOneLine("faultline export: --to damo-json writes plain JSON, the form damo reads; give -o a name that "
            + "does not end in .gz, .xz or .zst", "export", "--to", "damo-json", "-o", tmp.resolve("d.json.gz").toString(),
            record.toString());
        assertOneLine("faultline export: the aggregation interval (1 ms) must be at least the sampling interval (5 ms), "
            + "both positive", "export", "--to", "damo-json", "--aggr", "1ms", trace.toString());
        final Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertOneLine("faultline export: " + empty + " is neither a monitoring record nor a faultline trace (no "
            + TraceLayout.HEADER_FILE + "); give one written by faultline monitor or faultline record", "export", "--to",
            "damo-json", empty.toString());
    }

    private static void assertOneLine(final String expected, final String... args)
    {
        final CommandRun run = CommandRun.of(args);
        assertEquals(2, run.status(), run.toString());
        assertEquals(expected + System.lineSeparator(), run.err());
        assertEquals("", run.out());
    }
}
