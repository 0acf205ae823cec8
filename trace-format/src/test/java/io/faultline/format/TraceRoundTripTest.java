package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceRoundTripTest
{
    @TempDir
    Path tmp;

    private static TraceHeader header()
    {
        return TraceHeader.create()
            .put(TraceHeader.FORMAT_VERSION, TraceLayout.FORMAT_VERSION)
            .put(TraceHeader.PAGE_SIZE, 4096)
            .put(TraceHeader.COMMAND, "prog 'a b' = c:d #x");
    }

    /** Writes chunks of (tid, [addresses]) with seq 0.. and one event in the middle. */
    private Path writeTrace(final long references, final long[][] chunks) throws IOException
    {
        final Path dir = tmp.resolve("t");
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        long seq = 0;
        try (TraceWriter writer = TraceWriter.create(dir, header()))
        {
            for (final long[] chunk : chunks)
            {
                final int count = chunk.length - 1;
                buffer.putInt(ChunkDescriptor.PID, 100, ByteOrder.LITTLE_ENDIAN);
                buffer.putInt(ChunkDescriptor.TID, (int)chunk[0], ByteOrder.LITTLE_ENDIAN);
                buffer.putLong(ChunkDescriptor.CHUNK_ID, 0, ByteOrder.LITTLE_ENDIAN);
                buffer.putInt(ChunkDescriptor.COUNT, count, ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < count; i++)
                {
                    final int r = ChunkDescriptor.recordOffset(i);
                    buffer.putLong(r + ChunkDescriptor.RECORD_SEQ, seq, ByteOrder.LITTLE_ENDIAN);
                    buffer.putLong(r + ChunkDescriptor.RECORD_TIME_NS, seq * 10, ByteOrder.LITTLE_ENDIAN);
                    buffer.putLong(r + ChunkDescriptor.RECORD_ADDRESS, chunk[i + 1], ByteOrder.LITTLE_ENDIAN);
                    buffer.putInt(r + ChunkDescriptor.RECORD_FLAGS, (int)(seq & 1), ByteOrder.LITTLE_ENDIAN);
                    seq++;
                }
                writer.write(TraceLayout.EXCERPT_CHUNK, buffer, 0, ChunkDescriptor.length(count));
            }
            final byte[] text = "worker-1".getBytes(StandardCharsets.UTF_8);
            buffer.setMemory(0, EventDescriptor.HEADER_SIZE, (byte)0);
            buffer.putInt(EventDescriptor.TYPE, EventType.THREAD_NAME.code(), ByteOrder.LITTLE_ENDIAN);
            buffer.putInt(EventDescriptor.PID, 100, ByteOrder.LITTLE_ENDIAN);
            buffer.putInt(EventDescriptor.TID, 101, ByteOrder.LITTLE_ENDIAN);
            buffer.putInt(EventDescriptor.TEXT_LENGTH, text.length, ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(EventDescriptor.SEQ, seq, ByteOrder.LITTLE_ENDIAN);
            buffer.putBytes(EventDescriptor.HEADER_SIZE, text);
            writer.write(TraceLayout.EXCERPT_EVENT, buffer, 0, EventDescriptor.HEADER_SIZE + text.length);
            writer.finish(header().put(TraceHeader.REFERENCES, references).put(TraceHeader.EVENTS, 1));
        }
        return dir;
    }

    @Test
    void readsBackEveryRecordAndEventInOrder() throws IOException
    {
        final Path dir = writeTrace(5, new long[][] {{101, 0x1000, 0x2008}, {102, 0x3000, 0x1000, 0x7fff0010}});
        final List<String> seen = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals("prog 'a b' = c:d #x", reader.header().get(TraceHeader.COMMAND));
            assertEquals(4096, reader.header().pageSize());
            reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                    final long address, final boolean write)
                {
                    seen.add(seq + " " + timeNs + " " + pid + " " + tid + " " + Long.toHexString(address) + " " + write);
                }

                @Override
                public void onEvent(final TraceEvent event)
                {
                    seen.add(event.type().label() + " " + event.tid() + " " + event.text() + " " + event.seq());
                }
            });
        }
        assertEquals(List.of(
            "0 0 100 101 1000 false",
            "1 10 100 101 2008 true",
            "2 20 100 102 3000 false",
            "3 30 100 102 1000 true",
            "4 40 100 102 7fff0010 false",
            "thread-name 101 worker-1 5"), seen);
    }

    @Test
    void headerCountingMoreReferencesThanTheQueueIsTruncated() throws IOException
    {
        final Path dir = writeTrace(6, new long[][] {{101, 0x1000}});
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class,
                () -> reader.forEachReference((s, t, p, d, a, w) -> { }));
            assertTrue(ex.getMessage().contains("header counts 6 references but the queue holds 1"), ex.getMessage());
        }
    }

    @Test
    void aTraceIsLiveFromItsCreationUntilItsWriterFinishesOrCloses() throws IOException
    {
        final Path finished = tmp.resolve("finished");
        final TraceWriter writer = TraceWriter.create(finished, header());
        assertTrue(TraceWriter.isBeingWritten(finished));
        try (TraceReader reader = TraceReader.open(finished))
        {
            assertTrue(reader.isPartial() && reader.isLive());
            final ReadSummary summary = reader.forEachReference((s, t, p, d, a, w) -> { });
            assertTrue(summary.notes(finished).get(0).contains("is still being recorded"), summary.notes(finished).toString());
        }
        assertTrue(TraceWriter.isBeingWritten(finished), "a reader in the writer's JVM leaves the lock alone");
        writer.finish(header().put(TraceHeader.REFERENCES, 0).put(TraceHeader.EVENTS, 0));
        assertFalse(TraceWriter.isBeingWritten(finished));
        try (TraceReader reader = TraceReader.open(finished))
        {
            assertFalse(reader.isPartial() || reader.isLive());
        }

        final Path closed = tmp.resolve("closed");
        TraceWriter.create(closed, header()).close();
        assertFalse(TraceWriter.isBeingWritten(closed));
        try (TraceReader reader = TraceReader.open(closed))
        {
            assertTrue(reader.isPartial());
            assertFalse(reader.isLive());
        }
    }

    @Test
    void traceWithoutExcerptsWhoseRecorderDiedIsAnEmptyPartialTrace() throws IOException
    {
        final Path dir = tmp.resolve("half");
        final TraceWriter writer = TraceWriter.create(dir, header());
        writer.close();
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertTrue(reader.isPartial());
            final ReadSummary summary = reader.forEachReference((s, t, p, d, a, w) -> { });
            assertEquals(0, summary.references());
            assertEquals(-1, summary.lastExcerpt());
        }
    }

    @Test
    void missingQueueIsTruncated() throws IOException
    {
        final Path dir = writeTrace(1, new long[][] {{101, 0x1000}});
        try (Stream<Path> files = Files.walk(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        }
        final TraceFormatException ex = assertThrows(TraceFormatException.class, () -> TraceReader.open(dir));
        assertTrue(ex.getMessage().contains("queue files are missing"), ex.getMessage());
    }

    @Test
    void notATraceAndNewerVersionsAreNamed() throws IOException
    {
        final Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceReader.open(empty))
            .getMessage().contains("is not a faultline trace"));
        final Path dir = writeTrace(1, new long[][] {{101, 0x1000}});
        final TraceHeader h = TraceHeader.read(dir.resolve(TraceLayout.HEADER_FILE));
        h.put(TraceHeader.FORMAT_VERSION, 99).write(dir.resolve(TraceLayout.HEADER_FILE));
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceReader.open(dir))
            .getMessage().contains("format version 99"));
    }

    @Test
    void outputHoldingATraceIsRefused() throws IOException
    {
        final Path dir = writeTrace(1, new long[][] {{101, 0x1000}});
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceWriter.checkUsable(dir))
            .getMessage().contains("already holds a trace"));
    }

    @Test
    void removeTraceEmptiesATraceAndLeavesAnythingElse() throws IOException
    {
        final Path dir = writeTrace(1, new long[][] {{101, 0x1000}});
        TraceWriter.removeTrace(dir, "-o");
        try (Stream<Path> left = Files.list(dir))
        {
            assertTrue(left.findAny().isEmpty(), "an empty directory is left");
        }
        TraceWriter.checkUsable(dir);

        final Path monitor = Files.createDirectories(tmp.resolve("m"));
        header().put(TraceHeader.CONTENT, TraceLayout.CONTENT_MONITOR).write(monitor.resolve(TraceLayout.HEADER_FILE));
        assertEquals("output " + monitor + " is not a trace (it is a DAMON monitoring record), and --force replaces only "
            + "a trace; choose another -o", assertThrows(TraceFormatException.class,
                () -> TraceWriter.removeTrace(monitor, "-o")).getMessage());
        final Path other = Files.createDirectories(tmp.resolve("o").resolve(TraceLayout.QUEUE_DIR));
        header().write(other.getParent().resolve(TraceLayout.HEADER_FILE));
        Files.writeString(other.resolve("data.csv"), "1");
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceWriter.removeTrace(other.getParent(), "-o"))
            .getMessage().contains("(its queue holds data.csv, which no trace has)"));
        final Path home = Files.createDirectories(tmp.resolve("home"));
        Files.writeString(home.resolve(".profile"), "x");
        assertTrue(assertThrows(TraceFormatException.class, () -> TraceWriter.removeTrace(home, "-o"))
            .getMessage().contains("(it holds .profile, which no trace has)"));
        assertTrue(Files.exists(other.resolve("data.csv")) && Files.exists(monitor.resolve(TraceLayout.HEADER_FILE))
            && Files.exists(home.resolve(".profile")));
    }

    /** What a visitor throws (dump's closed output under dump | head) comes out as it is, not as a corrupt trace. */
    @Test
    void aVisitorsFailureIsNotTheTraces() throws java.io.IOException
    {
        final Path trace = tmp.resolve("visited");
        try (TestTrace t = new TestTrace(trace))
        {
            t.chunk(7, 7, 0, 3);
            t.finish();
        }
        final IllegalStateException closed = new IllegalStateException("output closed");
        try (TraceReader reader = TraceReader.open(trace))
        {
            final IllegalStateException thrown = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> reader.forEachReference((seq, timeNs, pid, tid, address, write) ->
                {
                    throw closed;
                }));
            org.junit.jupiter.api.Assertions.assertSame(closed, thrown);
        }
    }
}

