package io.faultline.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers give times from the program's start, its first process-start event, not from the
 * recording's start that the bytes count from (FORMAT.md, "Time").
 */
class ProgramStartTest
{
    private static final long START_UP = 700_000_000L;

    @TempDir
    Path dir;

    /** Every time a visitor sees, in delivery order. */
    private static List<Long> times(final TraceReader reader)
    {
        final List<Long> times = new ArrayList<>();
        reader.forEach(new TraceVisitor()
        {
            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write)
            {
                times.add(timeNs);
            }

            @Override
            public void onEvent(final TraceEvent event)
            {
                times.add(event.timeNs());
            }

            @Override
            public void onMocaChunk(final MocaChunk c)
            {
                times.add(c.closeNs());
                for (int i = 0; i < c.pages(); i++)
                {
                    times.add(c.timeNs(i));
                }
            }
        });
        return times;
    }

    @Test
    void timesCountFromTheFirstProcessStartEvent() throws IOException
    {
        final Path trace = dir.resolve("t");
        try (TestTrace t = new TestTrace(trace))
        {
            t.startUpNs = START_UP;
            t.event(EventType.PROCESS_START, 7, 7, 0, "/bin/prog").chunk(7, 7, 0, 3)
                .event(EventType.PROCESS_START, 8, 8, 3, "/bin/child").chunk(8, 8, 3, 2)
                .event(EventType.PROCESS_EXIT, 7, 7, 5, "");
            t.finish();
        }
        try (TraceReader reader = TraceReader.open(trace))
        {
            assertEquals(START_UP, reader.programStartNs());
            // process-start at seq 0, records 0..2, the child's start at 3, records 3..4, the exit at 5: 10 ns each
            assertEquals(List.of(0L, 0L, 10L, 20L, 30L, 30L, 40L, 50L), times(reader));
            assertEquals(50L, reader.scan().lastTimeNs());
            assertEquals(1_000L, reader.sinceProgramStart(START_UP + 1_000));
            assertEquals(0L, reader.sinceProgramStart(START_UP - 1));
        }
    }

    @Test
    void aTraceWithoutProcessStartKeepsItsTimes() throws IOException
    {
        final Path trace = dir.resolve("t");
        try (TestTrace t = new TestTrace(trace))
        {
            t.startUpNs = START_UP;
            t.chunk(7, 7, 0, 2).event(EventType.THREAD_NAME, 7, 7, 2, "prog");
            t.finish();
        }
        try (TraceReader reader = TraceReader.open(trace))
        {
            assertEquals(0L, reader.programStartNs());
            assertEquals(List.of(START_UP, START_UP + 10, START_UP + 20), times(reader));
        }
    }

    @Test
    void nothingIsEarlierThanTheProgramsStart() throws IOException
    {
        final Path trace = dir.resolve("t");
        try (TestTrace t = new TestTrace(trace))
        {
            t.startUpNs = START_UP;
            t.chunk(7, 7, 0, 2).event(EventType.PROCESS_START, 7, 7, 2, "/bin/prog");
            t.finish();
        }
        try (TraceReader reader = TraceReader.open(trace))
        {
            assertEquals(START_UP, reader.programStartNs());
            assertEquals(List.of(0L, 10L, 20L), times(reader));
        }
    }

    @Test
    void mocaChunksCountFromTheProgramsStartToo() throws IOException
    {
        final Path trace = dir.resolve("t");
        try (TestTrace t = new TestTrace(trace))
        {
            t.startUpNs = START_UP;
            t.event(EventType.PROCESS_START, 7, 7, 1, "/bin/prog").mocaChunk(7, 7, 0, 0, 1, 2, 4, false);
            t.finish();
        }
        try (TraceReader reader = TraceReader.open(trace))
        {
            // process-start at seq 1 (10 ns), pages at seq 1 and 2, closed at seq 4
            assertEquals(START_UP + 10, reader.programStartNs());
            assertEquals(List.of(0L, 30L, 0L, 10L), times(reader));
        }
    }
}
