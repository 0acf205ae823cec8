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
import io.faultline.format.ReadSummary;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceReader;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * The queue file's first header word damaged, as Chronicle's framing check met it
     * ("Unexpected magic number 400100c1"; the read failed whole). The reader now walks the file
     * itself: the word makes Chronicle's own header look 65 KiB long, the reader finds the trace's
     * block after it by its magic, and reads the trace whole.
     */
    @Test
    void aQueueFileWithBrokenFramingReadsWhole() throws Exception
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {1, 11, 0x1000, 0x2000});
        damageFirstHeader(dir);
        try (TraceReader reader = TraceReader.open(dir))
        {
            final List<Long> addresses = new java.util.ArrayList<>();
            reader.forEachReference((seq, time, pid, tid, address, write) -> addresses.add(address));
            assertEquals(List.of(0x1000L, 0x2000L), addresses);
        }
    }

    /**
     * A first header never completed (zeroed, or its writer died): Chronicle waited 10 s for it on
     * every read, then saw no excerpt. The reader finds the block after it, reads the trace whole,
     * and says what it found.
     */
    @Test
    void aFirstHeaderNeverCompletedIsReadPastAndSaid() throws Exception
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {1, 11, 0x1000, 0x2000});
        writeFirstHeader(dir, new byte[] {0, 0, 0, 0});
        try (TraceReader reader = TraceReader.open(dir))
        {
            final ReadSummary summary = reader.forEachReference((seq, time, pid, tid, address, write) -> { });
            assertEquals(2, summary.references());
            assertEquals(1, summary.damage().size(), summary.damage().toString());
            assertTrue(summary.damage().get(0).endsWith(" at byte 0 (" + summary.damage().get(0).replaceAll(
                ".* \\((\\d+) bytes\\).*", "$1") + " bytes): its Chronicle header word says the written part of the file "
                + "ends there, yet blocks follow; it held none of the trace's blocks (they are all there), so nothing is "
                + "lost"), summary.damage().get(0));
        }
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
