package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A long recording keeps a bounded part of its queue file mapped. Chronicle's indexing kept
 * the 80 MiB mapping of every index array it used across a garbage collection, so a
 * recorder's resident set grew with its trace (BENCHMARKS.md, "Long runs"); the writer now
 * reopens the queue every {@link TraceWriter.REOPEN_BYTES}. Small excerpts, as a recorder's
 * one-record chunks are, put an index array every 524,288 excerpts, some 32 MiB here.
 */
class QueueMappingsTest
{
    @TempDir
    Path tmp;

    @Test
    void aLongRecordingKeepsAFewChunksOfItsQueueFileMapped() throws IOException
    {
        final long bytes = 32L << 20;
        // without reopening, for comparison: whether Chronicle's leak shows depends on when the
        // collector clears its weakly held holders (with 8 MiB it did not show in one run of this
        // module's tests under load here), so only the writer's bound is asserted
        final int leaked = write(tmp.resolve("kept"), new TraceWriter.QueueShape(1L << 20, 256, Long.MAX_VALUE), bytes);
        final int mapped = write(tmp.resolve("reopened"), new TraceWriter.QueueShape(1L << 20, 256, 2L << 20), bytes);
        // the first chunk (the queue file's header), the one written, the one before it (the
        // writer's overlap) and one chunk kept since the last reopening
        assertTrue(mapped <= 4, mapped + " mappings of the queue file after " + (bytes >> 20) + " MiB, against " + leaked
            + " without reopening");
    }

    /**
     * Writes {@code bytes} of one-record chunks, an excerpt each (format 3: the most excerpts a
     * byte; the reopening is the same in every format) with a garbage collection every 2 MiB (as a
     * recorder's young collections come every few minutes), checks that every
     * excerpt reads back in order, and returns how many mappings of the queue file were left.
     */
    private static int write(final Path dir, final TraceWriter.QueueShape shape, final long bytes) throws IOException
    {
        final UnsafeBuffer chunk = new UnsafeBuffer(new byte[ChunkDescriptor.length(1)]);
        chunk.putInt(ChunkDescriptor.PID, 100, ByteOrder.LITTLE_ENDIAN);
        chunk.putInt(ChunkDescriptor.TID, 100, ByteOrder.LITTLE_ENDIAN);
        chunk.putInt(ChunkDescriptor.COUNT, 1, ByteOrder.LITTLE_ENDIAN);
        long excerpts = 0;
        final int mapped;
        try (TraceWriter writer = TraceWriter.create(dir, TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, 3).put(TraceHeader.PAGE_SIZE, 4096), shape))
        {
            for (long written = 0, nextGc = 0; written < bytes; written += chunk.capacity() + 8, excerpts++)
            {
                chunk.putLong(ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_SEQ, excerpts, ByteOrder.LITTLE_ENDIAN);
                writer.write(TraceLayout.EXCERPT_CHUNK, chunk, 0, chunk.capacity());
                if (written >= nextGc)
                {
                    System.gc();
                    nextGc += 2L << 20;
                }
            }
            mapped = queueMappings(dir);
        }
        long read = 0;
        try (var queue = TraceReader.openQueue(dir.resolve(TraceLayout.QUEUE_DIR)); ExcerptTailer tailer = queue.createTailer())
        {
            while (true)
            {
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        break;
                    }
                    assertEquals(read, dc.wire().bytes().readLong(dc.wire().bytes().readPosition()
                        + TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_SEQ),
                        "excerpts in order, none lost at a reopening");
                    read++;
                }
            }
        }
        assertEquals(excerpts, read);
        return mapped;
    }

    /** Mappings of the trace's queue files in this process. */
    private static int queueMappings(final Path dir) throws IOException
    {
        final String queue = dir.resolve(TraceLayout.QUEUE_DIR).toRealPath().toString();
        return (int)Files.readAllLines(Path.of("/proc/self/maps")).stream()
            .filter(l -> l.contains(queue) && l.endsWith(".cq4")).count();
    }
}
