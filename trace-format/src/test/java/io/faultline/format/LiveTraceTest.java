package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import net.openhft.chronicle.core.time.SetTimeProvider;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace read while its recorder still writes it (bench/longrun.sh reads an hour's recording
 * every 10 minutes): the read is the trace as its first pass found it, and the queue file
 * growing under the reader is not a break in it.
 */
class LiveTraceTest
{
    private static final int PID = 100;

    @TempDir
    Path tmp;

    private long seq;

    private static TraceHeader header()
    {
        return TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
            .put(TraceHeader.PAGE_SIZE, 4096)
            .put(TraceHeader.COMMAND, "live");
    }

    /** Appends one chunk of {@code records} references (seq, time and address from the running seq). */
    private void chunk(final TraceWriter writer, final UnsafeBuffer buffer, final int records)
    {
        buffer.setMemory(0, ChunkDescriptor.HEADER_SIZE, (byte)0);
        buffer.putInt(ChunkDescriptor.PID, PID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(ChunkDescriptor.TID, PID, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(ChunkDescriptor.COUNT, records, ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < records; i++)
        {
            final int r = ChunkDescriptor.recordOffset(i);
            buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, seq, ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, seq, ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, 0x10000L + (seq % 1024) * 4096, ByteOrder.LITTLE_ENDIAN);
            buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, 0, ByteOrder.LITTLE_ENDIAN);
            seq++;
        }
        writer.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, ChunkDescriptor.length(records));
        writer.flush(); // in the queue at once, as the writer's time bound would put it there
    }

    /**
     * Before, the delivering pass read on to wherever the queue ended by then: a dump of an hour's
     * recording begun at 50 s printed 1.2 million lines while saying it read 104,366 references,
     * and what it printed past the first pass was checked by nobody.
     */
    @Test
    void aReadDeliversTheTraceAsItsFirstPassFoundIt() throws IOException
    {
        final Path dir = tmp.resolve("t");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[ChunkDescriptor.length(1)]);
        try (TraceWriter writer = TraceWriter.create(dir, header()))
        {
            for (int i = 0; i < 10; i++)
            {
                chunk(writer, buffer, 1);
            }
            final List<Long> delivered = new ArrayList<>();
            final ReadSummary summary;
            try (TraceReader reader = TraceReader.open(dir))
            {
                assertTrue(reader.isLive());
                summary = reader.forEachReference((s, t, p, d, a, w) ->
                {
                    if (delivered.isEmpty())
                    {
                        for (int i = 0; i < 10; i++)
                        {
                            chunk(writer, buffer, 1); // written while the read delivers
                        }
                    }
                    delivered.add(s);
                });
            }
            assertEquals(10, summary.references());
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), delivered);
            try (TraceReader reader = TraceReader.open(dir))
            {
                assertEquals(20, reader.forEachReference((s, t, p, d, a, w) -> { }).references(), "a new read sees the rest");
            }
        }
    }

    /**
     * Chronicle extends a queue file by a block (64 MiB here) as the writer reaches its end. The
     * cursor checked every header against the length the file had when it was opened, so a read
     * that began before the extension called the first excerpt past it a break in the queue.
     */
    @Test
    void theQueueFileGrowingUnderAScannerIsNoBreak() throws IOException
    {
        final Path dir = tmp.resolve("t");
        final int records = 2000; // 64,024-byte chunks
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[ChunkDescriptor.length(records)]);
        // version 3: an excerpt for each chunk, at once
        try (TraceWriter writer = TraceWriter.create(dir, header().put(TraceHeader.FORMAT_VERSION, 3)))
        {
            chunk(writer, buffer, records);
            final Path file = queueFile(dir);
            final long before = Files.size(file);
            try (QueueScanner scanner = new QueueScanner(dir.resolve(TraceLayout.QUEUE_DIR)))
            {
                assertEquals(QueueScanner.Step.DOCUMENT, scanner.next());
                int written = 0;
                while (Files.size(file) == before || (long)written * buffer.capacity() < before)
                {
                    chunk(writer, buffer, records);
                    written++;
                    assertTrue(written < 10_000, "the queue file never grew past " + before + " bytes");
                }
                assertNotEquals(before, Files.size(file));
                int read = 0;
                QueueScanner.Step step;
                while ((step = scanner.next()) == QueueScanner.Step.DOCUMENT)
                {
                    read++;
                }
                assertEquals(QueueScanner.Step.END_OF_FILE, step, scanner.problem());
                assertEquals(QueueScanner.EndKind.UNWRITTEN, scanner.endKind());
                assertEquals(written, read);
            }
        }
    }

    /**
     * The queue's roll cycle is daily (UTC): a recording over midnight writes a second queue
     * file, and a read, live or of the finished trace, goes on into it in order.
     */
    @Test
    void aRecordingOverMidnightReadsOnIntoTheNextDaysFile() throws IOException
    {
        final Path dir = tmp.resolve("t");
        final SetTimeProvider clock = new SetTimeProvider(java.time.Instant.parse("2026-11-26T23:59:59Z").toEpochMilli() * 1_000_000L);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[ChunkDescriptor.length(1)]);
        try (TraceWriter writer = TraceWriter.create(dir, header(), new TraceWriter.QueueShape(0, 0, TraceWriter.REOPEN_BYTES, clock)))
        {
            for (int i = 0; i < 5; i++)
            {
                chunk(writer, buffer, 1);
            }
            clock.advanceMillis(2_000);
            for (int i = 0; i < 5; i++)
            {
                chunk(writer, buffer, 1);
            }
            try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
            {
                assertEquals(List.of("20261126F.cq4", "20261127F.cq4"), files.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".cq4")).sorted().toList());
            }
            final List<Long> live = new ArrayList<>();
            try (TraceReader reader = TraceReader.open(dir))
            {
                reader.forEachReference((s, t, p, d, a, w) -> live.add(s));
            }
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), live);
            writer.finish(header().put(TraceHeader.REFERENCES, 10).put(TraceHeader.EVENTS, 0));
        }
        final List<Long> complete = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(10, reader.forEachReference((s, t, p, d, a, w) -> complete.add(s)).references());
        }
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), complete);
    }

    private static Path queueFile(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            return files.filter(f -> f.getFileName().toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }
}
