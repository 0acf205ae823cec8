package io.faultline.format;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Format 3 traces (an excerpt per chunk or event, no checksums): partial traces are read to their
 * end; corrupt and cut queues give one line, never a Java exception. Format 4's damage:
 * BlockDamageTest.
 */
class DamagedTraceTest
{
    @TempDir
    Path tmp;

    /** Where each excerpt lies in the queue file: {Chronicle header word position, end}. */
    private static List<long[]> layout(final Path dir)
    {
        final List<long[]> excerpts = new ArrayList<>();
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.resolve(TraceLayout.QUEUE_DIR).toFile())
            .readOnly(true).build(); ExcerptTailer t = q.createTailer())
        {
            while (true)
            {
                try (DocumentContext dc = t.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        return excerpts;
                    }
                    final Bytes<?> b = dc.wire().bytes();
                    excerpts.add(new long[] {b.readPosition() - 4, b.readLimit()});
                }
            }
        }
    }

    private static Path queueFile(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            return files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    /** Two processes, 24 excerpts: chunks of 1 to 4 records and events with text. */
    private TestTrace sample(final Path dir) throws IOException
    {
        final TestTrace t = new TestTrace(dir, 3);
        long seq = 0;
        for (int i = 0; i < 12; i++)
        {
            final int pid = i % 3 == 0 ? 200 : 100;
            t.chunk(pid, pid + 1, seq, 1 + i % 4);
            seq += 1 + i % 4;
            t.event(i % 2 == 0 ? EventType.MMAP : EventType.EXEC, pid, pid + 1, seq, i % 2 == 0 ? "" : "/bin/x" + i);
        }
        return t;
    }

    @Test
    void aPartialTraceIsReadToItsLastCompleteExcerpt() throws IOException
    {
        final Path dir = tmp.resolve("p");
        final List<String> written;
        try (TestTrace t = sample(dir))
        {
            written = t.written;
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertTrue(reader.isPartial());
            final List<String> seen = new ArrayList<>();
            final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
            assertEquals(written.size(), seen.size());
            assertEquals(new HashSet<>(written), new HashSet<>(seen));
            assertEquals(23, summary.lastExcerpt());
            assertEquals(List.of("trace " + dir + " is partial (its recorder stopped before finishing): read 30 "
                + "references and 12 events, up to excerpt 23 at 0.000 s"), summary.notes(dir));
        }
    }

    @Test
    void aCorruptExcerptStopsReadingWithOneLineAndSkipCorruptReadsPastIt() throws IOException
    {
        final Path dir = tmp.resolve("c");
        final List<String> written;
        try (TestTrace t = sample(dir))
        {
            t.finish();
            written = t.written;
        }
        final long[] sixth = layout(dir).get(6);
        try (RandomAccessFile f = new RandomAccessFile(queueFile(dir).toFile(), "rw"))
        {
            // excerpt 6 is a chunk of 4 records of process 200 (seq 6..9): make it say 9
            f.seek(sixth[0] + 4 + TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.COUNT);
            f.write(new byte[] {9, 0, 0, 0});
        }
        final List<String> seen = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = org.junit.jupiter.api.Assertions.assertThrows(TraceFormatException.class,
                () -> reader.forEach(TestTrace.collector(seen)));
            assertEquals("corrupt trace " + dir + ": " + queueFile(dir) + ": excerpt 6: chunk says 9 records but "
                + "holds 152 bytes; faultline reads past it with --skip-corrupt", ex.getMessage());
        }
        assertEquals(written.subList(0, 9), seen, "everything before excerpt 6, nothing from it");
        try (TraceReader reader = TraceReader.open(dir, true))
        {
            seen.clear();
            final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
            final List<String> expected = new ArrayList<>(written);
            expected.subList(9, 13).clear();
            assertEquals(expected, seen);
            assertEquals(1, summary.skipped());
            assertEquals(List.of("skipped 1 corrupt excerpt of " + dir + " (--skip-corrupt): 4 references lost"),
                summary.notes(dir));
        }
    }

    /**
     * Seeded damage to the queue: the file cut at every excerpt boundary and inside every
     * excerpt, the Chronicle length word and our own count and text length fields changed, and
     * random bytes written over the data and Chronicle's metadata. Every read, strict or
     * skipping, ends normally or with one line that carries no Java exception text, within
     * seconds; and cut or length-damaged traces deliver nothing that was not written.
     */
    @Test
    void damagedQueuesNeverCrashHangOrLeakExceptionText() throws IOException
    {
        final Path dir = tmp.resolve("f");
        final Set<String> written;
        try (TestTrace t = sample(dir))
        {
            t.finish();
            written = new HashSet<>(t.written);
        }
        final Path file = queueFile(dir);
        final Path metadata = dir.resolve(TraceLayout.QUEUE_DIR).resolve("metadata.cq4t");
        final List<long[]> excerpts = layout(dir);
        final long dataEnd = excerpts.get(excerpts.size() - 1)[1] + 64;
        final long length = Files.size(file);
        final byte[] original = new byte[(int)dataEnd];
        final byte[] originalMetadata = Files.readAllBytes(metadata);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r"))
        {
            f.readFully(original);
        }
        final Random random = new Random(20250314L);
        int cases = 0;
        for (final long[] e : excerpts)
        {
            for (final long cut : new long[] {e[0], e[0] + 2, e[0] + 4, (e[0] + e[1]) / 2, e[1] - 1, e[1]})
            {
                damage(file, original, length, f -> f.setLength(cut));
                check(dir, written, true, "cut at " + cut);
                cases++;
            }
            // Chronicle's length word, the excerpt kind, and the chunk's count or the event's text length
            final boolean chunk = original[(int)e[0] + 4] == TraceLayout.EXCERPT_CHUNK;
            final long[] fields = {e[0], e[0] + 4, e[0] + 4 + TraceLayout.EXCERPT_KIND_SIZE
                + (chunk ? ChunkDescriptor.COUNT : EventDescriptor.TEXT_LENGTH)};
            for (final long at : fields)
            {
                final int bit = random.nextInt(32);
                damage(file, original, length, f ->
                {
                    f.seek(at);
                    final int v = Integer.reverseBytes(f.readInt());
                    f.seek(at);
                    f.writeInt(Integer.reverseBytes(v ^ (1 << bit)));
                });
                check(dir, written, true, "bit " + bit + " flipped at " + at);
                cases++;
            }
        }
        for (int i = 0; i < 150; i++)
        {
            final boolean inMetadata = i % 10 == 9;
            final long start = inMetadata ? random.nextInt(originalMetadata.length - 16)
                : excerpts.get(0)[0] - 512 + random.nextInt((int)(dataEnd - excerpts.get(0)[0] + 512));
            final byte[] noise = new byte[1 + random.nextInt(24)];
            random.nextBytes(noise);
            if (inMetadata)
            {
                final byte[] damaged = originalMetadata.clone();
                System.arraycopy(noise, 0, damaged, (int)start, Math.min(noise.length, damaged.length - (int)start));
                Files.write(metadata, damaged);
                check(dir, written, false, "metadata noise at " + start);
                Files.write(metadata, originalMetadata);
            }
            else
            {
                damage(file, original, length, f ->
                {
                    f.seek(start);
                    f.write(noise);
                });
                check(dir, written, false, noise.length + " random bytes at " + start);
            }
            cases++;
        }
        assertTrue(cases > 250, "cases: " + cases);
    }

    private interface Damage
    {
        void apply(RandomAccessFile f) throws IOException;
    }

    /** Applies one damage; the next call restores the file first. */
    private static void damage(final Path file, final byte[] original, final long length, final Damage d)
        throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.setLength(length);
            f.seek(0);
            f.write(original);
            d.apply(f);
        }
    }

    private static void check(final Path dir, final Set<String> written, final boolean onlyWritten, final String what)
    {
        for (final boolean skip : new boolean[] {false, true})
        {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
            {
                final List<String> seen = new ArrayList<>();
                try (TraceReader reader = TraceReader.open(dir, skip))
                {
                    final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
                    summary.notes(dir).forEach(n -> assertOneCleanLine(n, what));
                }
                catch (final TraceFormatException ex)
                {
                    assertOneCleanLine(ex.getMessage(), what);
                }
                catch (final Throwable ex)
                {
                    fail(what + (skip ? " (skipping)" : "") + ": " + ex);
                }
                if (onlyWritten)
                {
                    for (final String line : seen)
                    {
                        assertTrue(written.contains(line), what + ": delivered what was never written: " + line);
                    }
                }
            }, what);
        }
    }

    private static void assertOneCleanLine(final String message, final String what)
    {
        assertFalse(message.contains("\n"), what + ": " + message);
        for (final String leak : new String[] {"java.", "Exception", "Error", "net.openhft"})
        {
            assertFalse(message.contains(leak), what + ": " + message);
        }
    }
}
