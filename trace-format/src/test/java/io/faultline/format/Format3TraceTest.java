package io.faultline.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace recorded in format 3 (src/test/resources/traces/README.md: four processes, five
 * threads, call stacks, kernel events, evictions) reads as it always did, and its upgrade to
 * format 4 delivers every reference and event the same, field for field, in far fewer bytes.
 */
class Format3TraceTest
{
    static final Path FIXTURE = Path.of("src/test/resources/traces/xz-pipeline-v3.flt");

    @TempDir
    Path tmp;

    /** Every field of every reference and event, as delivered, one line each. */
    static List<String> everything(final TraceReader reader)
    {
        final List<String> lines = new ArrayList<>();
        everything(reader, lines);
        return lines;
    }

    /** As {@link #everything(TraceReader)}, into {@code lines}, which keeps what came before a failure. */
    static ReadSummary everything(final TraceReader reader, final List<String> lines)
    {
        return reader.forEach(new TraceVisitor()
        {
            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write)
            {
                throw new AssertionError("the reader calls the fullest onReference");
            }

            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write, final boolean kernel, final int stack)
            {
                lines.add(seq + " " + timeNs + " " + pid + " " + tid + " " + Long.toHexString(address) + " " + write
                    + " " + kernel + " " + stack);
            }

            @Override
            public void onEvent(final TraceEvent e)
            {
                lines.add("-- " + e.code() + " " + e.seq() + " " + e.timeNs() + " " + e.pid() + " " + e.tid() + " "
                    + e.a() + " " + e.b() + " " + e.c() + " " + e.d() + " " + e.text());
            }

            @Override
            public void onMocaChunk(final MocaChunk chunk)
            {
                throw new AssertionError("not a Moca trace");
            }
        });
    }

    @Test
    void aFormat3TraceReadsAsItAlwaysDid()
    {
        try (TraceReader reader = TraceReader.open(FIXTURE))
        {
            assertEquals("3", reader.header().get(TraceHeader.FORMAT_VERSION));
            final ReadSummary summary = reader.scan();
            assertEquals(10_409, summary.references());
            assertEquals(10_736, summary.events());
            assertEquals(4, summary.processes());
            final List<String> lines = everything(reader);
            assertEquals(10_409 + 10_736, lines.size());
            assertEquals(10_387, lines.stream().filter(l -> l.startsWith("-- 16 ")).count(), "eviction records");
            assertTrue(lines.stream().anyMatch(l -> !l.startsWith("--") && !l.endsWith(" 0")), "references with stacks");
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("-- 32 ")), "stack events");
        }
    }

    @Test
    void anUpgradedTraceDeliversTheSameInFarFewerBytes() throws IOException
    {
        final Path upgraded = tmp.resolve("v4");
        final List<String> before;
        final TraceUpgrade.Result result;
        try (TraceReader reader = TraceReader.open(FIXTURE))
        {
            before = everything(reader);
            result = TraceUpgrade.upgrade(reader, upgraded);
        }
        assertEquals(new TraceUpgrade.Result(3, 10_409, 10_736, 0), result);
        final Map<String, String> oldHeader;
        try (TraceReader reader = TraceReader.open(FIXTURE))
        {
            oldHeader = new TreeMap<>(reader.header().values());
        }
        try (TraceReader reader = TraceReader.open(upgraded))
        {
            assertEquals(before, everything(reader));
            final Map<String, String> newHeader = new TreeMap<>(reader.header().values());
            assertEquals("4", newHeader.remove(TraceHeader.FORMAT_VERSION));
            assertEquals("3", newHeader.remove(TraceUpgrade.UPGRADED_FROM));
            assertEquals(String.valueOf(reader.programStartNs()), newHeader.remove(TraceHeader.PROGRAM_START_NS));
            oldHeader.remove(TraceHeader.FORMAT_VERSION);
            assertEquals(oldHeader, newHeader, "every other header key as it was");
            assertEquals(reader.scan().references(), 10_409);
        }
        final long oldBytes = queueBytes(unpacked());
        final long newBytes = queueBytes(upgraded);
        assertTrue(newBytes * 5 < oldBytes, "format 4 in " + newBytes + " bytes, format 3 in " + oldBytes);
        try (TraceReader reader = TraceReader.open(upgraded))
        {
            final TraceFormatException again = assertThrows(TraceFormatException.class,
                () -> TraceUpgrade.upgrade(reader, tmp.resolve("v5")));
            assertEquals(upgraded + " is format 4 already; there is nothing to upgrade", again.getMessage());
        }
    }

    private Path unpacked() throws IOException
    {
        final Path dir = tmp.resolve("v3");
        TracePack.unpack(FIXTURE, dir);
        return dir;
    }

    private static long queueBytes(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir.resolve(TraceLayout.QUEUE_DIR)))
        {
            long n = 0;
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                n += Files.size(f);
            }
            return n;
        }
    }
}
