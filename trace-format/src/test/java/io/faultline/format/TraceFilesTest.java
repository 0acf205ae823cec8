package io.faultline.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.airlift.compress.zstd.ZstdOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace's files hold its content and little more (QueueFiles), and a packed trace (TracePack)
 * reads as its directory does.
 */
class TraceFilesTest
{
    @TempDir
    Path tmp;

    private Path trace(final String name) throws IOException
    {
        final Path dir = tmp.resolve(name);
        try (TestTrace t = new TestTrace(dir))
        {
            t.event(EventType.PROCESS_START, 7, 7, 0, "/bin/prog").chunk(7, 7, 0, 100)
                .event(EventType.THREAD_START, 7, 8, 100, "").chunk(7, 8, 100, 50)
                .event(EventType.PROCESS_EXIT, 7, 7, 150, "");
            t.finish();
        }
        return dir;
    }

    private static long length(final Path dir) throws IOException
    {
        try (Stream<Path> walk = Files.walk(dir))
        {
            return walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static List<String> read(final Path path)
    {
        try (TraceReader reader = TraceReader.open(path))
        {
            return TestTrace.read(reader);
        }
    }

    @Test
    void aFinishedTracesFilesEndWithTheirContent() throws IOException
    {
        final Path dir = trace("t");
        // 150 records and 3 events, some 6 KiB of excerpts after Chronicle's 64 KiB of index arrays;
        // Chronicle's own files were 64 MiB and more (its block) and 128 KiB (its table store)
        final long length = length(dir);
        assertTrue(length < 100 * 1024, "files of " + length + " bytes");
        for (final Path f : QueueFiles.files(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            assertEquals(0, Files.size(f) % 4096, f + " ends at a page");
        }
        assertEquals(153, read(dir).size(), "read whole after the cut");
    }

    /**
     * Chronicle writes no end-of-file marker when a queue closes, and an excerpt may end in zeros:
     * the cut follows the documents' lengths, not the last non-zero byte (a monitoring record of
     * idle regions lost its last snapshot's tail so).
     */
    @Test
    void aTraceEndingInZerosIsCutAfterItsLastExcerptNotInsideIt() throws IOException
    {
        final Path dir = tmp.resolve("zeros");
        final String zeros = "\0".repeat(3 * 4096);
        try (TestTrace t = new TestTrace(dir))
        {
            t.event(EventType.PROCESS_START, 7, 7, 0, "/bin/prog").chunk(7, 7, 0, 3)
                .event(EventType.THREAD_NAME, 7, 7, 3, zeros);
            t.finish();
        }
        final List<String> seen = read(dir);
        assertEquals(5, seen.size());
        assertEquals("-- 3 7 7 thread-name " + zeros, seen.get(4));
    }

    @Test
    void aPackedTraceReadsAsItsDirectoryAndUnpacksToTheSameFiles() throws IOException
    {
        final Path dir = trace("t");
        final Path packed = tmp.resolve("t.flt");
        final long size = TracePack.pack(dir, packed);
        assertTrue(TracePack.isPack(packed));
        assertTrue(size < length(dir) / 4, "compressed: " + size + " of " + length(dir));
        assertEquals(read(dir), read(packed));
        try (TraceReader reader = TraceReader.open(packed))
        {
            assertEquals(packed, reader.dir(), "named as the user named it");
            assertEquals(150, reader.scan().references());
        }
        try (Stream<Path> left = Files.list(Path.of(System.getProperty("java.io.tmpdir"))))
        {
            // the reader's temporary directory went with close (another test run's may be there, not this one's)
            final long mine = left.filter(p -> p.getFileName().toString().startsWith("faultline-trace")
                && Files.exists(p.resolve(TraceLayout.HEADER_FILE))
                && p.toFile().lastModified() >= packed.toFile().lastModified()).count();
            assertEquals(0, mine);
        }
        final Path back = tmp.resolve("back");
        TracePack.unpack(packed, back);
        for (final String name : List.of(TraceLayout.HEADER_FILE, TraceLayout.QUEUE_DIR + "/metadata.cq4t"))
        {
            assertArrayEquals(Files.readAllBytes(dir.resolve(name)), Files.readAllBytes(back.resolve(name)), name);
        }
        assertEquals(read(dir), read(back));
    }

    @Test
    void aFileThatIsNoPackIsRefusedInOneLine() throws IOException
    {
        final Path text = Files.writeString(tmp.resolve("notes.txt"), "not a trace\n");
        final TraceFormatException plain = assertThrows(TraceFormatException.class, () -> TraceReader.open(text));
        assertEquals(InputProblem.MISUSED, plain.problem());
        assertTrue(plain.getMessage().contains("neither a trace directory nor a packed trace"), plain.getMessage());

        // a zstd-compressed text (a compressed address trace) is no pack either
        final Path zst = tmp.resolve("refs.zst");
        try (OutputStream out = new ZstdOutputStream(Files.newOutputStream(zst)))
        {
            out.write("r 0x1000\n".repeat(100).getBytes());
        }
        assertFalse(TracePack.isPack(zst));
    }

    @Test
    void aDamagedPackIsACorruptTraceInOneLine() throws IOException
    {
        final Path packed = tmp.resolve("t.flt");
        TracePack.pack(trace("t"), packed);
        final byte[] bytes = Files.readAllBytes(packed);
        final Path cut = Files.write(tmp.resolve("cut.flt"), java.util.Arrays.copyOf(bytes, bytes.length / 2));
        final TraceFormatException ex = assertThrows(TraceFormatException.class, () -> TraceReader.open(cut));
        assertEquals(InputProblem.CORRUPT, ex.problem(), ex.getMessage());
        assertTrue(ex.getMessage().startsWith("corrupt packed trace " + cut), ex.getMessage());
        assertFalse(ex.getMessage().contains("\n"));
    }
}
