package io.faultline.format;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Moca chunks (FORMAT.md, "Moca mode") are delivered whole, at their close seq: after the events
 * of their interval, before those that came after it, merged across processes like events; a
 * chunk whose clocks do not match its records is corrupt. Traces of format version 1 still read.
 */
class MocaChunkReadingTest
{
    @TempDir
    Path tmp;

    @Test
    void chunksComeAtTheirIntervalsEndAmongEventsAndOtherProcesses() throws Exception
    {
        final Path dir = tmp.resolve("t");
        final TestTrace t = new TestTrace(dir);
        // process 100: two threads in interval 0 (clock 0..5), closed at 5; an event at 3 came before
        t.event(EventType.THREAD_START, 100, 101, 3, "")
            .mocaChunk(100, 100, 0, 0, 0, 2, 5, false)
            .mocaChunk(100, 101, 0, 0, 2, 3, 5, false)
            .event(EventType.THREAD_EXIT, 100, 101, 5, "")
            .mocaChunk(100, 100, 1, 2, 7, 1, 9, false);
        // process 200 drained later: its chunk closed at 6 goes between
        t.mocaChunk(200, 200, 0, 0, 5, 2, 7, false);
        t.finish();
        final List<String> expected = List.of(
            "-- 3 100 101 thread-start ",
            TestTrace.mocaLine(5, 100, 100, 0, 0, 0, 2), TestTrace.pageLine(0, 0x1000, 1, 0), TestTrace.pageLine(1, 0x2000, 2, 1),
            TestTrace.mocaLine(5, 100, 101, 0, 0, 2, 5), TestTrace.pageLine(2, 0x3000, 1, 0), TestTrace.pageLine(3, 0x4000, 2, 1),
            TestTrace.pageLine(4, 0x5000, 3, 2),
            "-- 5 100 101 thread-exit ",
            TestTrace.mocaLine(7, 200, 200, 0, 0, 5, 7), TestTrace.pageLine(5, 0x6000, 1, 0), TestTrace.pageLine(6, 0x7000, 2, 1),
            TestTrace.mocaLine(9, 100, 100, 1, 2, 7, 8), TestTrace.pageLine(7, 0x8000, 1, 0));
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(expected, TestTrace.read(reader));
            assertEquals(8, reader.scan().references());
        }
    }

    @Test
    void aChunkWhoseClocksDoNotMatchItsRecordsIsCorrupt() throws Exception
    {
        final Path dir = tmp.resolve("t");
        final TestTrace t = new TestTrace(dir, 3);
        t.mocaChunk(100, 100, 0, 0, 0, 2, 2, false).mocaChunk(100, 100, 1, 1, 2, 2, 4, true);
        t.finish();
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class, () -> TestTrace.read(reader));
            assertTrue(ex.getMessage().contains("excerpt 1: Moca chunk's clocks (start 2, end 5, close 4) do not match"),
                ex.getMessage());
        }
    }

    /** In a block, the checksums match (the writer wrote what it was given): the block is refused whole when decoded. */
    @Test
    void aBlockHoldingAChunkWhoseClocksDoNotMatchItsRecordsIsCorrupt() throws Exception
    {
        final Path dir = tmp.resolve("t");
        final TestTrace t = new TestTrace(dir);
        t.mocaChunk(100, 100, 0, 0, 0, 2, 2, false).flush().mocaChunk(100, 100, 1, 1, 2, 2, 4, true);
        t.finish();
        final List<String> seen = new java.util.ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class,
                () -> reader.forEach(TestTrace.collector(seen)));
            assertTrue(ex.getMessage().contains("a damaged block (its checksums match but Moca chunk 0 is not sound (Moca "
                + "chunk's clocks (start 2, end 5, close 4) do not match its records' seq 2 to 3); a faulty writer wrote "
                + "it); lost 2 references and 1 event of process 100"), ex.getMessage());
        }
        assertEquals(3, seen.size(), "the first chunk, whole: " + seen);
    }

    @Test
    void aChunkClosedBeforeWhatPrecedesItGoesBack() throws Exception
    {
        for (final int version : new int[] {3, 4})
        {
            final Path dir = tmp.resolve("t" + version);
            final TestTrace t = new TestTrace(dir, version);
            t.event(EventType.THREAD_START, 100, 101, 6, "").mocaChunk(100, 100, 0, 0, 0, 2, 5, false);
            t.finish();
            try (TraceReader reader = TraceReader.open(dir))
            {
                final String message = assertThrows(TraceFormatException.class, () -> TestTrace.read(reader)).getMessage();
                assertTrue(message.contains(version == 3 ? "Moca chunk closed at seq 5 of process 100 goes back before seq 6"
                    : "seq 5 of process 100 goes back before seq 6"), message);
            }
        }
    }

    @Test
    void aTraceOfFormatVersionOneStillReads() throws Exception
    {
        final Path dir = tmp.resolve("t");
        final TestTrace t = new TestTrace(dir, 3);
        t.chunk(100, 100, 0, 3).event(EventType.THREAD_START, 100, 101, 3, "").chunk(100, 101, 3, 2);
        t.finish();
        final Path header = dir.resolve(TraceLayout.HEADER_FILE);
        TraceHeader.read(header).put(TraceHeader.FORMAT_VERSION, 1).write(header);
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(t.written, TestTrace.read(reader));
            assertTrue(!reader.header().isMoca(), "a version 1 trace has no mode key: it is a trace-mode trace");
        }
    }
}
