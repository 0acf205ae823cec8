package io.faultline.format;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Damage to a format-4 trace is found and named (FORMAT.md, "Damage"): the queue file and byte,
 * what is wrong, and what was lost (references, events, process, threads, seq and times), from
 * the damaged block's own header or, where the header went too, from the process's blocks around
 * it; reading stops there, or with --skip-corrupt leaves out exactly what was damaged, reads on
 * past a damaged length word and says how many references it skipped.
 */
class BlockDamageTest
{
    @TempDir
    Path tmp;

    /**
     * Two processes, five blocks: 100's seq 0-3, 200's 4-5 and an mmap at 6, 100's 6-9, 200's
     * 10-11, 100's 12-14 (TestTrace: address 0x1000 * (seq + 1), time 10 ns a seq).
     */
    private TestTrace sample(final Path dir) throws IOException
    {
        final TestTrace t = new TestTrace(dir);
        t.chunk(100, 101, 0, 4).flush()
            .chunk(200, 201, 4, 2).event(EventType.MMAP, 200, 201, 6, "").flush()
            .chunk(100, 101, 6, 4).flush()
            .chunk(200, 201, 10, 2).flush()
            .chunk(100, 101, 12, 3);
        return t;
    }

    /** The blocks' places in the queue file: {Chronicle header word, block start, block end}. */
    private static List<long[]> blocks(final Path dir) throws IOException
    {
        final List<long[]> places = new ArrayList<>();
        try (QueueScanner scanner = new QueueScanner(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            for (QueueScanner.Step s = scanner.next(); s != QueueScanner.Step.END; s = scanner.next())
            {
                if (s == QueueScanner.Step.DOCUMENT)
                {
                    places.add(new long[] {scanner.position(), scanner.position() + 4, scanner.position() + 4
                        + scanner.length()});
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

    private static void overwrite(final Path file, final long at, final byte[] bytes) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.seek(at);
            f.write(bytes);
        }
    }

    private static final List<String> ALL = List.of(
        TestTrace.line(0, 0, 100, 101, 0x1000, false), TestTrace.line(1, 10, 100, 101, 0x2000, true),
        TestTrace.line(2, 20, 100, 101, 0x3000, false), TestTrace.line(3, 30, 100, 101, 0x4000, true),
        TestTrace.line(4, 40, 200, 201, 0x5000, false), TestTrace.line(5, 50, 200, 201, 0x6000, true),
        "-- 6 200 201 mmap ",
        TestTrace.line(6, 60, 100, 101, 0x7000, false), TestTrace.line(7, 70, 100, 101, 0x8000, true),
        TestTrace.line(8, 80, 100, 101, 0x9000, false), TestTrace.line(9, 90, 100, 101, 0xa000, true),
        TestTrace.line(10, 100, 200, 201, 0xb000, false), TestTrace.line(11, 110, 200, 201, 0xc000, true),
        TestTrace.line(12, 120, 100, 101, 0xd000, false), TestTrace.line(13, 130, 100, 101, 0xe000, true),
        TestTrace.line(14, 140, 100, 101, 0xf000, false));

    private static List<String> without(final int from, final int to)
    {
        final List<String> kept = new ArrayList<>(ALL);
        kept.subList(from, to).clear();
        return kept;
    }

    @Test
    void anUndamagedTraceReadsWhole() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = sample(dir))
        {
            t.finish();
        }
        assertEquals(5, blocks(dir).size());
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(ALL, TestTrace.read(reader));
            assertEquals(List.of(), reader.scan().notes(dir));
        }
    }

    @Test
    void aBlockWhoseChecksumFailsIsNamedWithWhatItHeldAndSkippedAlone() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = sample(dir))
        {
            t.finish();
        }
        final long[] third = blocks(dir).get(2);
        final Path file = queueFile(dir);
        overwrite(file, third[2] - 3, new byte[] {0x55}); // a byte of its compressed body
        final String place = file + " at byte " + third[1] + ": a damaged block (its checksum does not match its "
            + "contents); lost 4 references and 0 events of process 100 (thread 101), seq 6 to 9, 0.000 s to 0.000 s";
        final List<String> seen = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class,
                () -> reader.forEach(TestTrace.collector(seen)));
            assertEquals("corrupt trace " + dir + ": " + place + "; faultline reads past it with --skip-corrupt",
                ex.getMessage());
        }
        assertEquals(ALL.subList(0, 7), seen, "the two blocks before it, merged");
        try (TraceReader reader = TraceReader.open(dir, true))
        {
            seen.clear();
            final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
            assertEquals(without(7, 11), seen);
            assertEquals(1, summary.skipped());
            assertEquals(4, summary.skippedReferences());
            assertEquals(List.of("damaged: " + place, "skipped 1 corrupt excerpt of " + dir
                + " (--skip-corrupt): 4 references lost"), summary.notes(dir));
        }
    }

    /**
     * The block's Chronicle header word and its own header destroyed: the reader finds the next
     * block by its magic, and what was lost from process 100's blocks around the damage.
     */
    @Test
    void damageThatTookTheHeadersIsNamedFromTheBlocksAroundIt() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = sample(dir))
        {
            t.finish();
        }
        final long[] third = blocks(dir).get(2);
        final long[] fourth = blocks(dir).get(3); // what the reader finds next: 200's second block
        final Path file = queueFile(dir);
        final byte[] ff = new byte[64];
        java.util.Arrays.fill(ff, (byte)0xff);
        overwrite(file, third[0], ff);
        final String place = file + " at byte " + third[0] + " (" + (fourth[0] - third[0]) + " bytes): its Chronicle "
            + "header word says the written part of the file ends there, yet blocks follow; lost 4 references of "
            + "process 100 after seq 3 (0.000 s) up to seq 12 (0.000 s), by the blocks around it";
        final List<String> seen = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class,
                () -> reader.forEach(TestTrace.collector(seen)));
            assertEquals("corrupt trace " + dir + ": " + place + "; faultline reads past it with --skip-corrupt",
                ex.getMessage());
        }
        assertEquals(ALL.subList(0, 7), seen);
        try (TraceReader reader = TraceReader.open(dir, true))
        {
            seen.clear();
            final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
            assertEquals(without(7, 11), seen);
            assertEquals(4, summary.skippedReferences());
            assertEquals("damaged: " + place, summary.notes(dir).get(0));
        }
    }

    /** A damaged length word before a sound block loses nothing: the block is found again, and the damage said. */
    @Test
    void aDamagedLengthWordBeforeASoundBlockLosesNothing() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = sample(dir))
        {
            t.finish();
        }
        final long[] second = blocks(dir).get(1);
        final Path file = queueFile(dir);
        overwrite(file, second[0], new byte[] {8, 0, 0, 0}); // says 8 bytes
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(ALL, TestTrace.read(reader));
            final ReadSummary summary = reader.scan();
            assertEquals(0, summary.skipped());
            assertEquals(List.of("damaged: " + file + " at byte " + second[0] + ": the excerpt there is no sound block: "
                + "it is 8 bytes long, shorter than a block's header; it held none of the trace's blocks (they are all "
                + "there), so nothing is lost"), summary.notes(dir));
        }
    }

    /** Cut inside its last block, a complete trace is truncated there; --skip-corrupt reads the rest and counts what went. */
    @Test
    void aCompleteTraceCutShortIsTruncatedAndSkipCountsWhatWent() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = sample(dir))
        {
            t.finish();
        }
        final long[] last = blocks(dir).get(4);
        final Path file = queueFile(dir);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.setLength(last[2] - 8);
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class, () -> TestTrace.read(reader));
            assertEquals("truncated trace " + dir + ": the header counts 15 references but the queue holds 12; faultline reads what it "
                + "holds with --skip-corrupt",
                ex.getMessage());
        }
        try (TraceReader reader = TraceReader.open(dir, true))
        {
            final List<String> seen = new ArrayList<>();
            final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
            assertEquals(ALL.subList(0, 13), seen);
            assertEquals(3, summary.skippedReferences());
            assertEquals("skipped 1 corrupt excerpt of " + dir + " (--skip-corrupt): 3 references lost",
                summary.notes(dir).get(summary.notes(dir).size() - 1));
        }
    }

    /** A partial trace ends where its recorder stopped: a last block cut short is its end, not damage. */
    @Test
    void aPartialTraceCutInsideItsLastBlockEndsThere() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = sample(dir))
        {
            t.flush();
        }
        final long[] last = blocks(dir).get(4);
        final Path file = queueFile(dir);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.setLength(last[2] - 8);
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(ALL.subList(0, 13), TestTrace.read(reader));
            final List<String> notes = reader.scan().notes(dir);
            assertEquals(2, notes.size(), notes.toString());
            assertEquals("read " + dir + " only up to a break in its queue: " + file + " at byte " + last[0]
                + ": its Chronicle header says " + (last[2] - last[1]) + " bytes, past the end of the queue file ("
                + (last[2] - 8) + " bytes)", notes.get(1));
        }
    }

    /**
     * A full file system cuts the block being written short, and the checksum of the last block
     * of the partial trace it leaves does not match: that is its end, as a torn write is (read to
     * there, said once); a block so damaged before a sound one is damage all the same.
     */
    @Test
    void aPartialTracesLastBlockWrittenInPartIsItsEndNotDamage() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = sample(dir))
        {
            t.flush();
        }
        final List<long[]> places = blocks(dir);
        final Path file = queueFile(dir);
        overwrite(file, places.get(4)[2] - 3, new byte[] {0x55});
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(ALL.subList(0, 13), TestTrace.read(reader));
            final List<String> notes = reader.scan().notes(dir);
            assertEquals("read " + dir + " only up to a break in its queue: " + file + " at byte " + places.get(4)[1]
                + ": a block written in part (its checksum does not match its contents)", notes.get(notes.size() - 1));
        }
        overwrite(file, places.get(2)[2] - 3, new byte[] {0x55});
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class, () -> TestTrace.read(reader));
            assertEquals("corrupt trace " + dir + ": " + file + " at byte " + places.get(2)[1] + ": a damaged block (its "
                + "checksum does not match its contents); lost 4 references and 0 events of process 100 (thread 101), "
                + "seq 6 to 9, 0.000 s to 0.000 s; faultline reads past it with --skip-corrupt", ex.getMessage());
        }
    }
}
