package io.faultline.tools;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TracePack;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code faultline upgrade}: a format-3 trace rewritten as format 4 in place (a packed one stays
 * packed) or into -o DIR, dumping the same; a format-4 trace and a damaged one are refused in one
 * line, and --skip-corrupt upgrades what reads, marking the trace incomplete.
 */
class UpgradeCommandTest
{
    @TempDir
    Path tmp;

    private Path format3(final String name) throws Exception
    {
        return FaultlineTraces.write(tmp.resolve(name), 3, 4096, new long[] {100, 101, 0x1000, 0x2000},
            new long[] {200, 201, 0x5000}, new long[] {100, 102, 0x3000, 0x4000});
    }

    private static String version(final Path dir) throws Exception
    {
        return TraceHeader.read(dir.resolve(TraceLayout.HEADER_FILE)).get(TraceHeader.FORMAT_VERSION);
    }

    private static String dump(final Path trace)
    {
        final CommandRun run = CommandRun.of("dump", trace.toString());
        assertEquals(0, run.status(), run.toString());
        return run.out();
    }

    @Test
    void aDirectoryIsUpgradedInPlaceAndDumpsTheSame() throws Exception
    {
        final Path dir = format3("t");
        final String before = dump(dir);
        final CommandRun run = CommandRun.of("upgrade", dir.toString());
        assertEquals(0, run.status(), run.toString());
        assertTrue(run.out().startsWith("upgraded " + dir + " from format 3 to 4: 5 references and 0 events, "),
            run.out());
        assertEquals("4", version(dir));
        assertEquals(before, dump(dir));
        try (Stream<Path> left = Files.list(tmp))
        {
            assertEquals(1, left.count(), "nothing left beside it");
        }
    }

    @Test
    void aPackedTraceStaysPacked() throws Exception
    {
        final Path dir = format3("t");
        final String before = dump(dir);
        final Path packed = tmp.resolve("t.flt");
        TracePack.pack(dir, packed);
        final CommandRun run = CommandRun.of("upgrade", packed.toString());
        assertEquals(0, run.status(), run.toString());
        assertTrue(TracePack.isPack(packed));
        final Path back = tmp.resolve("back");
        TracePack.unpack(packed, back);
        assertEquals("4", version(back));
        assertEquals(before, dump(packed).replace(packed.toString(), dir.toString()));
    }

    @Test
    void intoAnotherDirectoryTheOldTraceStays() throws Exception
    {
        final Path dir = format3("t");
        final Path out = tmp.resolve("v4");
        final CommandRun run = CommandRun.of("upgrade", "-o", out.toString(), dir.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals("3", version(dir));
        assertEquals("4", version(out));
        assertEquals(dump(dir), dump(out));
    }

    @Test
    void aFormat4TraceIsRefused() throws Exception
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("t"), 4096, new long[] {100, 101, 0x1000});
        final CommandRun run = CommandRun.of("upgrade", dir.toString());
        assertEquals(2, run.status(), run.toString());
        assertEquals("faultline upgrade: " + dir + " is format 4 already; there is nothing to upgrade", run.lastErrLine());
    }

    @Test
    void aDamagedTraceIsRefusedAndSkipCorruptMarksItIncomplete() throws Exception
    {
        final Path dir = format3("t");
        final Path cq4;
        try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            cq4 = files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        // the second excerpt (200's chunk) says it holds 9 records
        final byte[] bytes = Files.readAllBytes(cq4);
        int found = -1;
        for (int i = 0; i + 12 < bytes.length; i += 4)
        {
            if (bytes[i] == 1 && bytes[i + 4] == (byte)200 && bytes[i + 8] == (byte)201)
            {
                found = i;
            }
        }
        assertTrue(found > 0);
        try (RandomAccessFile f = new RandomAccessFile(cq4.toFile(), "rw"))
        {
            f.seek(found + TraceLayout.EXCERPT_KIND_SIZE + ChunkDescriptor.COUNT);
            f.write(new byte[] {9, 0, 0, 0});
        }
        final CommandRun refused = CommandRun.of("upgrade", dir.toString());
        assertEquals(4, refused.status(), refused.toString());
        assertTrue(refused.lastErrLine().startsWith("faultline upgrade: corrupt trace " + dir + ": "), refused.toString());
        assertEquals("3", version(dir), "left as it was");
        final CommandRun skipped = CommandRun.of("upgrade", "--skip-corrupt", dir.toString());
        assertEquals(4, skipped.status(), skipped.toString());
        assertTrue(skipped.out().contains(": 4 references and 0 events (1 corrupt excerpt left out: the trace is marked "
            + "incomplete), "), skipped.out());
        final TraceHeader header = TraceHeader.read(dir.resolve(TraceLayout.HEADER_FILE));
        assertEquals("incomplete", header.get(TraceHeader.STATE));
        assertEquals("upgraded from a damaged format-3 trace: 1 corrupt excerpt left out", header.get(TraceHeader.STOP_CAUSE));
    }
}
