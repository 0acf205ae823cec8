package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the writer writes a process's block (FORMAT.md, "Blocks"): when it is full, when the
 * process's exit event came, at the latest {@link TraceWriter#FLUSH_NS} after its first item
 * (by the writer's own thread, with nothing more written), and whatever it holds when the trace
 * is closed, as a killed recorder's would be; and across the queue's reopenings.
 */
class TraceWriterTest
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    @TempDir
    Path tmp;

    private final UnsafeBuffer chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(1)]);
    private final UnsafeBuffer event = new UnsafeBuffer(new byte[EventDescriptor.HEADER_SIZE]);

    private void reference(final TraceWriter writer, final int pid, final long seq)
    {
        chunk.putInt(ChunkDescriptor.PID, pid, LE);
        chunk.putInt(ChunkDescriptor.TID, pid, LE);
        chunk.putInt(ChunkDescriptor.COUNT, 1, LE);
        chunk.putLong(ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_SEQ, seq, LE);
        chunk.putLong(ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_TIME_NS, seq * 100, LE);
        chunk.putLong(ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_ADDRESS, 0x10000 + seq % 4096 * 4096, LE);
        writer.write(TraceLayout.EXCERPT_CHUNK, chunk, 0, chunk.capacity());
    }

    private void exit(final TraceWriter writer, final int pid, final long seq)
    {
        event.putInt(EventDescriptor.TYPE, EventType.PROCESS_EXIT.code(), LE);
        event.putInt(EventDescriptor.PID, pid, LE);
        event.putInt(EventDescriptor.TID, pid, LE);
        event.putLong(EventDescriptor.SEQ, seq, LE);
        event.putLong(EventDescriptor.TIME_NS, seq * 100, LE);
        writer.write(TraceLayout.EXCERPT_EVENT, event, 0, event.capacity());
    }

    /** A trace's shape without the time bound: what a test checks happens whatever the machine's load. */
    private static TraceWriter.QueueShape unbound()
    {
        return TraceWriter.shape(TestTrace.header()).withFlushNs(Long.MAX_VALUE);
    }

    /** References and blocks a reader finds in the queue now. */
    private static long[] inQueue(final Path dir)
    {
        try (TraceReader reader = TraceReader.open(dir))
        {
            final ReadSummary summary = reader.scan();
            return new long[] {summary.references(), summary.excerpts()};
        }
    }

    @Test
    void aBlockIsWrittenByTheTimeBoundWithNothingMoreWritten() throws IOException, InterruptedException
    {
        final Path dir = tmp.resolve("t");
        try (TraceWriter writer = TraceWriter.create(dir, TestTrace.header()))
        {
            reference(writer, 100, 0);
            reference(writer, 200, 1);
            // the writer's own thread writes them once they are due; this waits for it, at most 10 s
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (inQueue(dir)[0] < 2 && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(2, inQueue(dir)[0], "written without a call");
        }
    }

    @Test
    void aProcessExitWritesItsBlockAtOnce() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TraceWriter writer = TraceWriter.create(dir, TestTrace.header(), unbound()))
        {
            reference(writer, 100, 0);
            reference(writer, 100, 1);
            exit(writer, 100, 2);
            // one block: the two references and the exit, there before any time bound
            assertEquals(2, inQueue(dir)[0]);
            assertEquals(1, inQueue(dir)[1]);
        }
    }

    @Test
    void aFullBlockIsWrittenAndCloseWritesTheRest() throws IOException
    {
        final Path dir = tmp.resolve("t");
        final int n = TraceWriter.BLOCK_ITEMS + 10;
        // no time bound: under load the bound would write the block before it is full
        try (TraceWriter writer = TraceWriter.create(dir, TestTrace.header(), unbound()))
        {
            for (int i = 0; i < n; i++)
            {
                reference(writer, 100, i);
            }
            assertEquals(TraceWriter.BLOCK_ITEMS, inQueue(dir)[0], "the full block, at once");
        }
        // closed as a recorder's writer is when it stops early: what it was handed is in the queue
        assertEquals(n, inQueue(dir)[0]);
        assertEquals(2, inQueue(dir)[1]);
    }

    @Test
    void blocksReadBackAcrossTheQueuesReopenings() throws IOException
    {
        final Path dir = tmp.resolve("t");
        final int n = 20_000;
        try (TraceWriter writer = TraceWriter.create(dir, TestTrace.header(),
            new TraceWriter.QueueShape(1L << 20, 256, 64L << 10)))
        {
            for (int i = 0; i < n; i++)
            {
                reference(writer, 100 + i % 3, i);
                if (i % 7 == 0)
                {
                    writer.flush(); // many small blocks: a reopening every 64 KiB
                }
            }
            writer.finish(TestTrace.header().put(TraceHeader.REFERENCES, n).put(TraceHeader.EVENTS, 0));
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            final long[] next = {0};
            reader.forEachReference((seq, time, pid, tid, address, write) ->
            {
                assertEquals(next[0]++, seq, "every reference once, in order");
                assertEquals(100 + seq % 3, pid);
            });
            assertEquals(n, next[0]);
            assertTrue(reader.scan().excerpts() > 2000, "blocks: " + reader.scan().excerpts());
        }
    }

    /** A recording that stopped early: its header counts what reached the queue, not what the writer was handed. */
    @Test
    void anIncompleteTraceCountsWhatItsQueueHolds() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TraceWriter writer = TraceWriter.create(dir, TestTrace.header(), unbound()))
        {
            for (int i = 0; i < 5; i++)
            {
                reference(writer, 100, i);
            }
            assertEquals(0, writer.referencesWritten(), "a block waits for its time");
            writer.finishIncomplete(TestTrace.header().put(TraceHeader.REFERENCES, 999).put(TraceHeader.EVENTS, 0)
                .put(TraceHeader.STOP_CAUSE, "a test"));
            assertEquals(5, writer.referencesWritten());
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals("5", reader.header().get(TraceHeader.REFERENCES));
            assertEquals(5, reader.scan().references());
        }
    }
    /**
     * A trace directory removed before the queue made its first file: Chronicle makes it again for
     * that file, and only the writer can tell it is not the directory it began in. Removing what it
     * made leaves the user's removal standing.
     */
    @Test
    void aDirectoryRemovedAndMadeAgainIsToldFromTheOneTheWriterBeganIn() throws IOException
    {
        final Path dir = tmp.resolve("t");
        final TraceWriter writer = TraceWriter.create(dir, TestTrace.header(), unbound());
        assertFalse(writer.directoryReplaced());
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        assertTrue(writer.directoryReplaced(), "removed");
        reference(writer, 100, 0);
        writer.close();
        assertTrue(Files.isDirectory(dir.resolve(TraceLayout.QUEUE_DIR)), "the queue made it again");
        assertTrue(writer.directoryReplaced(), "made again");
        writer.removeRemade();
        assertFalse(Files.exists(dir));
    }

    @Test
    void somethingElseInTheDirectoryMadeAgainStays() throws IOException
    {
        final Path dir = tmp.resolve("t");
        final TraceWriter writer = TraceWriter.create(dir, TestTrace.header(), unbound());
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("notes.txt"), "mine");
        reference(writer, 100, 0);
        writer.close();
        assertTrue(writer.directoryReplaced());
        writer.removeRemade();
        assertEquals("mine", Files.readString(dir.resolve("notes.txt")));
        assertFalse(Files.exists(dir.resolve(TraceLayout.QUEUE_DIR)));
    }
}
