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
            new long[] {200, 201, 0x7fff0010L, 0xffffffffffff1000L});
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
        assertArrayEquals(new long[] {1, 2, 1, 3, 1, 0x7fff0, 0xffffffffffff1L}, keys.toArray());
        final Map<Integer, long[]> byThread = keys.byTag();
        assertEquals(List.of(101, 102, 201), List.copyOf(byThread.keySet()));
        assertArrayEquals(new long[] {3, 1}, byThread.get(102));
    }

    @Test
    void filtersByProcessAndThreadAndRepagesAtAGivenPageSize() throws IOException
    {
        final Path dir = trace();
        assertArrayEquals(new long[] {1, 2, 1, 3, 1}, read(dir, TraceOptions.defaults().withPid(100)).toArray());
        assertArrayEquals(new long[] {3, 1}, read(dir, TraceOptions.defaults().withTid(102)).toArray());
        final KeyTrace huge = read(dir, TraceOptions.defaults().withPid(100).withPageSize(1 << 21));
        assertEquals(1 << 21, huge.pageSize());
        assertArrayEquals(new long[] {0, 0, 0, 0, 0}, huge.toArray());
        final TraceException none = assertThrows(TraceException.class,
            () -> read(dir, TraceOptions.defaults().withTid(999)));
        assertEquals(dir + ": the trace holds no reference (format faultline)", none.getMessage());
    }

    @Test
    void aDirectoryThatIsNoTraceIsAOneLineError()
    {
        final TraceException ex = assertThrows(TraceException.class, () -> read(tmp, TraceOptions.defaults()));
        assertTrue(ex.getMessage().contains("is not a faultline trace"), ex.getMessage());
    }
}
