package io.faultline.fuzz;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.faultline.damon.Attributes;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.record.Snapshot;
import io.faultline.damon.record.Snapshot.RegionRecord;
import io.faultline.damon.record.Snapshot.TargetRegions;
import io.faultline.format.InputProblem;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceReader;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What TraceReaderFuzzTest found, each as a fixed input (the import formats' are in TraceFormatsTest). */
class FuzzFindingsTest
{
    @TempDir
    Path tmp;

    /** The queue file's first header word, as Chronicle's framing check meets it ("Unexpected magic number 400100c1"). */
    private static void damageFirstHeader(final Path dir) throws Exception
    {
        writeFirstHeader(dir, new byte[] {(byte)0xc1, 0x00, 0x01, 0x40});
    }

    private static void writeFirstHeader(final Path dir, final byte[] word) throws Exception
    {
        try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            final Path cq4 = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
            try (RandomAccessFile raf = new RandomAccessFile(cq4.toFile(), "rw"))
            {
                raf.write(word);
            }
        }
    }

    @Test
    void aQueueFileWithBrokenFramingIsACorruptTraceInOneLine() throws Exception
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {1, 11, 0x1000, 0x2000});
        damageFirstHeader(dir);
        final TraceFormatException ex = assertThrows(TraceFormatException.class, () ->
        {
            try (TraceReader reader = TraceReader.open(dir))
            {
                reader.scan();
            }
        });
        assertEquals("corrupt trace " + dir + ": its queue cannot be read (a queue file's framing is damaged)",
            ex.getMessage());
        assertEquals(InputProblem.CORRUPT, ex.problem());
    }

    /** A first header never completed (zeroed, or its writer died): Chronicle waited 10 s for it on every read. */
    @Test
    void aFirstHeaderNeverCompletedIsATruncatedTraceInOneLine() throws Exception
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {1, 11, 0x1000, 0x2000});
        writeFirstHeader(dir, new byte[] {0, 0, 0, 0});
        final TraceFormatException ex = assertThrows(TraceFormatException.class, () ->
        {
            try (TraceReader reader = TraceReader.open(dir))
            {
                reader.scan();
            }
        });
        // Chronicle gives up after the reader's FIRST_HEADER_TIMEOUT_MS and sees no excerpt; the
        // wait itself is held to TraceReaderFuzzTest's 10 s bound, which its 10 s default broke
        assertEquals("truncated trace " + dir + ": the header counts 2 references but the queue holds 0",
            ex.getMessage());
    }

    @Test
    void aMonitoringRecordWithBrokenFramingIsCorruptInOneLine() throws Exception
    {
        final Path dir = tmp.resolve("r");
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(dir,
            MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096)))
        {
            writer.write(new Snapshot(0, 0, 100_000_000, List.of(
                new TargetRegions(7, List.of(new RegionRecord(0x10000, 0x14000, 10, 0))))));
            writer.finish(MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096));
        }
        damageFirstHeader(dir);
        final TraceFormatException ex = assertThrows(TraceFormatException.class,
            () -> MonitorRecordReader.open(dir).snapshots());
        assertEquals("corrupt monitoring record " + dir + " at excerpt 0: a queue file is damaged", ex.getMessage());
    }

    @Test
    void aHeaderThatIsNotTextIsCorruptNotUnreadable() throws Exception
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {1, 11, 0x1000});
        final Path header = dir.resolve(TraceLayout.HEADER_FILE);
        Files.write(header, new byte[] {'a', '=', (byte)0xff, '\n'});
        final TraceFormatException ex = assertThrows(TraceFormatException.class, () -> TraceReader.open(dir));
        assertEquals("corrupt trace header " + header + ": it is not UTF-8 text", ex.getMessage());
        assertEquals(InputProblem.CORRUPT, ex.problem());
    }
}
