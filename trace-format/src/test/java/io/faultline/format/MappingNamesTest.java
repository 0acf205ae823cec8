package io.faultline.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Names for addresses from a trace's mapping events (FORMAT.md, "Event"). */
class MappingNamesTest
{
    private static TraceEvent event(final EventType type, final int pid, final int tid, final long a, final long b,
        final long c, final long d, final String text)
    {
        return new TraceEvent(type.code(), type, pid, tid, 0, 0, a, b, c, d, text);
    }

    private static TraceEvent range(final int pid, final long start, final long length, final long source,
        final String name)
    {
        return event(EventType.TRACE_RANGE, pid, pid, start, length, source, 0, name);
    }

    @Test
    void rangesAreNamedAsTheirEventsSayAndFollowUnmapRemapAndFork()
    {
        final MappingNames names = new MappingNames();
        names.onEvent(range(7, 0x1000, 0x3000, 0, "/usr/lib/libc.so.6"));
        names.onEvent(range(7, 0x10000, 0x21000, 0, "[heap]"));
        names.onEvent(range(7, 0x40000, 0x4000, 2, ""));
        names.onEvent(event(EventType.THREAD_START, 7, 9, 7, 0x8fe00, 0, 0, ""));
        names.onEvent(range(7, 0x80000, 0x10000, 0, ""));
        names.onEvent(range(7, 0xa0000, 0x1000, 1, ""));
        assertEquals("libc.so.6", names.name(7, 0x2fff));
        assertEquals("[heap]", names.name(7, 0x10000));
        assertEquals("[anon]", names.name(7, 0x43fff));
        assertEquals("[stack:9]", names.name(7, 0x80000), "the range holding thread 9's descriptor");
        assertEquals("[api]", names.name(7, 0xa0000));
        assertEquals(MappingNames.UNKNOWN, names.name(7, 0x4000));
        assertEquals(MappingNames.UNKNOWN, names.name(8, 0x2000), "another process");

        names.onEvent(event(EventType.MUNMAP, 7, 7, 0x41000, 0x1000, 0, 0, ""));
        assertEquals("[anon]", names.name(7, 0x40000));
        assertEquals(MappingNames.UNKNOWN, names.name(7, 0x41000), "unmapped");
        assertEquals("[anon]", names.name(7, 0x42000));
        names.onEvent(event(EventType.MREMAP, 7, 7, 0x10000, 0x21000, 0x200000, 0x40000, ""));
        assertEquals("[heap]", names.name(7, 0x23ffff), "moved and grown");
        assertEquals(MappingNames.UNKNOWN, names.name(7, 0x10000));

        names.onEvent(event(EventType.FORK, 7, 7, 8, 0, 0, 0, ""));
        assertEquals("libc.so.6", names.name(8, 0x1000), "the child starts with its parent's names");
        names.onEvent(event(EventType.MUNMAP, 7, 7, 0x80000, 0x10000, 0, 0, ""));
        names.onEvent(range(7, 0x80000, 0x10000, 2, ""));
        assertEquals("[anon]", names.name(7, 0x80000), "a new mapping where the stack was");
        assertEquals("[stack:9]", names.name(8, 0x80000), "the child's copy keeps it");
    }

    @Test
    void aRangeIsFoundByAnyOfItsAddressesAndRangesAreClippedToTheInterval()
    {
        final MappingNames names = new MappingNames();
        names.onEvent(range(7, 0x1000, 0x3000, 0, "/usr/lib/libc.so.6"));
        names.onEvent(range(7, 0x10000, 0x21000, 0, "[heap]"));
        assertEquals("[4096, 16384]", java.util.Arrays.toString(names.range(7, 0x3fff)));
        assertEquals("[65536, 200704]", java.util.Arrays.toString(names.range(7, 0x10000)));
        assertEquals(null, names.range(7, 0x4000), "between ranges");
        assertEquals(null, names.range(8, 0x1000), "another process");
        assertEquals(java.util.List.of("[8192, 16384]", "[65536, 73728]"), names.ranges(7, 0x2000, 0x12000).stream()
            .map(java.util.Arrays::toString).toList());
        assertEquals(java.util.List.of(), names.ranges(7, 0x4000, 0x10000));
        names.onEvent(event(EventType.MUNMAP, 7, 7, 0x1000, 0x1000, 0, 0, ""));
        assertEquals("[8192, 16384]", java.util.Arrays.toString(names.range(7, 0x2000)), "what the unmapping left");
    }
}
