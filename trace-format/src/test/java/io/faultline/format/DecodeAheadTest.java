package io.faultline.format;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process's blocks decoded ahead of their delivery on other threads (DecodeAhead) deliver
 * exactly what the delivery's own decoding does: every item in order, a damaged block's loss and
 * error, and a block changed after the survey named as such, whatever the number of threads.
 */
class DecodeAheadTest
{
    @TempDir
    Path tmp;

    /** One process, 40 blocks of 50 references, each after the first with an eviction and an mmap. */
    private Path trace(final String name) throws IOException
    {
        final Path dir = tmp.resolve(name);
        try (TestTrace t = new TestTrace(dir))
        {
            long seq = 0;
            for (int b = 0; b < 40; b++)
            {
                if (b > 0)
                {
                    t.event(EventType.EVICT, 100, 101, seq, "").event(EventType.MMAP, 100, 101 + b % 3, seq, "m" + b);
                }
                t.chunk(100, 101 + b % 3, seq, 50).flush();
                seq += 50;
            }
            t.finish();
        }
        return dir;
    }

    private static <T> T withThreads(final int threads, final Supplier<T> read)
    {
        final String saved = System.getProperty("faultline.read.threads");
        System.setProperty("faultline.read.threads", String.valueOf(threads));
        try
        {
            return read.get();
        }
        finally
        {
            if (saved == null)
            {
                System.clearProperty("faultline.read.threads");
            }
            else
            {
                System.setProperty("faultline.read.threads", saved);
            }
        }
    }

    private static List<String> read(final Path dir, final boolean skipCorrupt, final List<String> seen)
    {
        try (TraceReader reader = TraceReader.open(dir, skipCorrupt))
        {
            final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
            seen.add("skipped " + summary.skipped() + " " + summary.references());
        }
        catch (final TraceFormatException ex)
        {
            seen.add("error " + ex.getMessage());
        }
        return seen;
    }

    @Test
    void everyItemInOrderWhateverTheThreads() throws IOException
    {
        final Path dir = trace("t");
        final List<String> alone = withThreads(0, () -> read(dir, false, new ArrayList<>()));
        assertEquals(2000 + 2 * 39 + 1, alone.size(), alone.toString());
        assertEquals("skipped 0 2000", alone.get(alone.size() - 1));
        for (final int threads : new int[] {1, 3})
        {
            assertEquals(alone, withThreads(threads, () -> read(dir, false, new ArrayList<>())), threads + " threads");
        }
    }

    @Test
    void aDamagedBlockIsLostAndNamedAsWithoutThem() throws IOException
    {
        final Path dir = trace("t");
        final long[] block = blocks(dir).get(17);
        overwrite(queueFile(dir), block[1] - 3, (byte)0x55);
        for (final boolean skip : new boolean[] {false, true})
        {
            final List<String> alone = withThreads(0, () -> read(dir, skip, new ArrayList<>()));
            assertTrue(alone.get(alone.size() - 1).startsWith(skip ? "skipped 1 " : "error corrupt trace"), alone.toString());
            for (final int threads : new int[] {1, 3})
            {
                assertEquals(alone, withThreads(threads, () -> read(dir, skip, new ArrayList<>())), threads + " threads");
            }
        }
    }

    @Test
    void aBlockChangedAfterTheSurveyIsSaidToHaveChanged() throws IOException
    {
        final Path dir = trace("t");
        final long[] block = blocks(dir).get(30);
        for (final int threads : new int[] {0, 2})
        {
            final Path copy = tmp.resolve("c" + threads);
            copyTree(dir, copy);
            final List<String> seen = new ArrayList<>();
            final TraceFormatException ex = withThreads(threads, () -> {
                try (TraceReader reader = TraceReader.open(copy))
                {
                    reader.scan();
                    overwrite(queueFile(copy), block[1] - 3, (byte)0x55);
                    return assertThrows(TraceFormatException.class, () -> reader.forEach(TestTrace.collector(seen)));
                }
                catch (final IOException e)
                {
                    throw new AssertionError(e);
                }
            });
            assertTrue(ex.getMessage().startsWith("trace " + copy + " changed while it was read: "), ex.getMessage());
            assertTrue(ex.getMessage().endsWith(": its checksum does not match its contents"), ex.getMessage());
            // the blocks before it, whole: 30 blocks of 50 references, 29 evictions and 29 mmaps
            assertEquals(30 * 50 + 2 * 29, seen.size(), threads + " threads");
        }
    }

    /** {Chronicle header word, block start, block end} of each block. */
    private static List<long[]> blocks(final Path dir) throws IOException
    {
        final List<long[]> places = new ArrayList<>();
        try (QueueScanner scanner = new QueueScanner(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            for (QueueScanner.Step s = scanner.next(); s != QueueScanner.Step.END; s = scanner.next())
            {
                if (s == QueueScanner.Step.DOCUMENT)
                {
                    places.add(new long[] {scanner.position() + 4, scanner.position() + 4 + scanner.length()});
                }
            }
        }
        return places;
    }

    private static Path queueFile(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            return files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    private static void overwrite(final Path file, final long at, final byte b) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.seek(at);
            f.write(new byte[] {b});
        }
    }

    private static void copyTree(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> all = Files.walk(from))
        {
            for (final Path p : all.toList())
            {
                final Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(p, target);
                }
            }
        }
    }
}
