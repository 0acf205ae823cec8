package io.faultline.sim.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultlineTraceFormatTest
{
    @TempDir
    Path tmp;

    private Path trace() throws IOException
    {
        return FaultlineTraces.write(tmp.resolve("t"), 4096,
            new long[] {100, 101, 0x1000, 0x2008, 0x1fff},
            new long[] {100, 102, 0x3000, 0x1000},
            new long[] {200, 201, 0x7fff0010L, 0x7ffffffff000L, 0x1000});
    }

    private KeyTrace read(final Path dir, final TraceOptions options) throws IOException
    {
        return TraceFormats.read(TraceFormats.resolve(dir, java.util.Optional.empty()), dir, options);
    }

    @Test
    void keysArePagesAtTheTracesPageSizeTaggedByThread() throws IOException
    {
        final KeyTrace keys = read(trace(), TraceOptions.defaults());
        assertEquals(4096, keys.pageSize());
        // a page is its process's: pid 200's page 1 is not pid 100's (PageKey)
        final long a = 100L << 36, b = 200L << 36;
        assertArrayEquals(new long[] {a | 1, a | 2, a | 1, a | 3, a | 1, b | 0x7fff0, b | 0x7ffffffffL, b | 1},
            keys.toArray());
        final Map<Integer, long[]> byThread = keys.byTag();
        assertEquals(List.of(101, 102, 201), List.copyOf(byThread.keySet()));
        assertArrayEquals(new long[] {a | 3, a | 1}, byThread.get(102));
    }

    @Test
    void filtersByProcessAndThreadAndRepagesAtAGivenPageSize() throws IOException
    {
        final Path dir = trace();
        final long a = 100L << 36;
        assertArrayEquals(new long[] {a | 1, a | 2, a | 1, a | 3, a | 1},
            read(dir, TraceOptions.defaults().withPid(100)).toArray());
        assertArrayEquals(new long[] {a | 3, a | 1}, read(dir, TraceOptions.defaults().withTid(102)).toArray());
        final KeyTrace huge = read(dir, TraceOptions.defaults().withPid(100).withPageSize(1 << 21));
        assertEquals(1 << 21, huge.pageSize());
        assertArrayEquals(new long[] {a, a, a, a, a}, huge.toArray());
        final TraceException none = assertThrows(TraceException.class,
            () -> read(dir, TraceOptions.defaults().withTid(999)));
        assertEquals(dir + ": the trace holds no reference (format faultline)", none.getMessage());
    }

    @Test
    void anAddressAboveTheFourLevelAddressSpaceIsAOneLineError() throws IOException
    {
        final Path dir = FaultlineTraces.write(tmp.resolve("high"), 4096, new long[] {300, 301, 0x1000L << 36});
        final TraceException ex = assertThrows(TraceException.class, () -> read(dir, TraceOptions.defaults()));
        assertTrue(ex.getMessage().contains("five-level paging is not supported"), ex.getMessage());
    }

    @Test
    void aDirectoryThatIsNoTraceIsAOneLineError()
    {
        final TraceException ex = assertThrows(TraceException.class, () -> read(tmp, TraceOptions.defaults()));
        assertTrue(ex.getMessage().contains("is not a faultline trace"), ex.getMessage());
    }
}
