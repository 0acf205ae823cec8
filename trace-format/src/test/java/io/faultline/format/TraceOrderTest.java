package io.faultline.format;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Several processes' excerpts, written in drain order, come out in global seq order. */
class TraceOrderTest
{
    @TempDir
    Path tmp;

    @Test
    void processesAreMergedBySeqWithEventsBeforeRecordsOfTheSameSeq() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = new TestTrace(dir))
        {
            // The logger drained process 200's ring before process 100's.
            t.chunk(200, 201, 2, 2)
                .chunk(100, 101, 0, 2)
                .event(EventType.FORK, 100, 101, 4, "")
                .chunk(100, 101, 4, 2)
                .event(EventType.MMAP, 200, 201, 6, "")
                .chunk(200, 202, 6, 1)
                .event(EventType.PROCESS_EXIT, 200, 200, 7, "")
                .finish();
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(List.of(
                TestTrace.line(0, 0, 100, 101, 0x1000, false),
                TestTrace.line(1, 10, 100, 101, 0x2000, true),
                TestTrace.line(2, 20, 200, 201, 0x3000, false),
                TestTrace.line(3, 30, 200, 201, 0x4000, true),
                "-- 4 100 101 fork ",
                TestTrace.line(4, 40, 100, 101, 0x5000, false),
                TestTrace.line(5, 50, 100, 101, 0x6000, true),
                "-- 6 200 201 mmap ",
                TestTrace.line(6, 60, 200, 202, 0x7000, false),
                "-- 7 200 200 process-exit "), TestTrace.read(reader));
        }
    }

    @Test
    void eventsOfTheSameSeqInSeveralProcessesComeByTimeThenByFirstAppearance() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = new TestTrace(dir))
        {
            // Same seq and (from TestTrace) same time: the process seen first in the queue comes first.
            t.event(EventType.THREAD_START, 300, 301, 5, "")
                .event(EventType.THREAD_START, 100, 101, 5, "")
                .event(EventType.THREAD_NAME, 300, 301, 5, "w")
                .chunk(100, 101, 5, 1)
                .finish();
        }
        try (TraceReader reader = TraceReader.open(dir))
        {
            assertEquals(List.of("-- 5 300 301 thread-start ", "-- 5 300 301 thread-name w",
                "-- 5 100 101 thread-start ", TestTrace.line(5, 50, 100, 101, 0x6000, true)), TestTrace.read(reader));
        }
    }

    /** Format 3: the excerpt where a process's seq goes back is corrupt, and named. */
    @Test
    void aProcessWhoseSeqGoesBackInTheQueueIsCorruptAtThatExcerpt() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = new TestTrace(dir, 3))
        {
            t.chunk(100, 101, 10, 2).chunk(200, 201, 0, 1).chunk(100, 101, 5, 1).finish();
        }
        final List<String> seen = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class,
                () -> reader.forEach(TestTrace.collector(seen)));
            assertTrue(ex.getMessage().contains(": excerpt 2: seq 5 of process 100 goes back before seq 11"),
                ex.getMessage());
        }
        assertEquals(List.of(TestTrace.line(0, 0, 200, 201, 0x1000, false), TestTrace.line(10, 100, 100, 101, 0xb000, false),
            TestTrace.line(11, 110, 100, 101, 0xc000, true)), seen, "everything before the corrupt excerpt, in seq order");
    }

    /**
     * Format 4: the writer ends a process's block before an item that goes back, so the block it
     * is in is named, by its place and what its header says it held, and nothing of it is
     * delivered; --skip-corrupt reads on.
     */
    @Test
    void aProcessWhoseSeqGoesBackInTheQueueIsCorruptAtThatBlock() throws IOException
    {
        final Path dir = tmp.resolve("t");
        try (TestTrace t = new TestTrace(dir))
        {
            t.chunk(100, 101, 10, 2).flush().chunk(200, 201, 0, 1).flush().chunk(100, 101, 5, 1).chunk(100, 101, 6, 1)
                .chunk(200, 201, 12, 1).finish();
        }
        final List<String> seen = new ArrayList<>();
        try (TraceReader reader = TraceReader.open(dir))
        {
            final TraceFormatException ex = assertThrows(TraceFormatException.class,
                () -> reader.forEach(TestTrace.collector(seen)));
            assertTrue(ex.getMessage().matches("corrupt trace " + java.util.regex.Pattern.quote(dir.toString())
                + ": .*\\.cq4 at byte \\d+: a damaged block \\(seq 5 of process 100 goes back before seq 11, which the "
                + "queue holds before it\\); lost 2 references and 0 events of process 100 \\(thread 101\\), seq 5 to 6, "
                + "0\\.000 s to 0\\.000 s; faultline reads past it with --skip-corrupt"), ex.getMessage());
        }
        assertEquals(List.of(TestTrace.line(0, 0, 200, 201, 0x1000, false), TestTrace.line(10, 100, 100, 101, 0xb000, false),
            TestTrace.line(11, 110, 100, 101, 0xc000, true)), seen, "everything before the damaged block, in seq order");
        seen.clear();
        try (TraceReader reader = TraceReader.open(dir, true))
        {
            final ReadSummary summary = reader.forEach(TestTrace.collector(seen));
            assertEquals(1, summary.skipped());
            assertEquals(2, summary.skippedReferences());
        }
        assertEquals(List.of(TestTrace.line(0, 0, 200, 201, 0x1000, false), TestTrace.line(10, 100, 100, 101, 0xb000, false),
            TestTrace.line(11, 110, 100, 101, 0xc000, true), TestTrace.line(12, 120, 200, 201, 0xd000, false)), seen);
    }

    /** One reader reads its trace as often as it is asked, whole each time, both formats, one process or several. */
    @Test
    void aReaderReadsItsTraceWholeEveryTime() throws IOException
    {
        for (final int version : new int[] {3, 4})
        {
            for (final int processes : new int[] {1, 2})
            {
                final Path dir = tmp.resolve("t" + version + processes);
                final List<String> written;
                try (TestTrace t = new TestTrace(dir, version))
                {
                    t.chunk(100, 101, 0, 3).event(EventType.MMAP, 100, 101, 3, "").flush()
                        .chunk(processes == 1 ? 100 : 200, 201, 3, 2).finish();
                    written = t.written;
                }
                try (TraceReader reader = TraceReader.open(dir))
                {
                    final List<String> first = TestTrace.read(reader);
                    assertEquals(6, first.size());
                    assertEquals(new java.util.HashSet<>(written), new java.util.HashSet<>(first));
                    assertEquals(first, TestTrace.read(reader), "read again");
                    final long[] references = {0};
                    reader.forEachReference((seq, time, pid, tid, address, write) -> references[0]++);
                    assertEquals(5, references[0], "and its references alone");
                }
            }
        }
    }

    /**
     * The references a run at a time (forEachReferenceRun, the replays' path) are the references
     * one at a time, in the same order: both formats, several processes whose references
     * interleave in seq, events among them, a real trace too.
     */
    @Test
    void runsOfReferencesAreTheReferencesInOrder() throws IOException
    {
        for (final int version : new int[] {3, 4})
        {
            final Path dir = tmp.resolve("r" + version);
            try (TestTrace t = new TestTrace(dir, version))
            {
                t.chunk(200, 201, 2, 2).chunk(100, 101, 0, 2).event(EventType.FORK, 100, 101, 4, "")
                    .chunk(100, 102, 4, 2).flush().event(EventType.MMAP, 200, 201, 6, "").chunk(200, 202, 6, 1)
                    .chunk(100, 101, 7, 3).chunk(200, 201, 10, 1).event(EventType.PROCESS_EXIT, 200, 200, 11, "")
                    .finish();
            }
            assertRunsAreReferences(dir);
        }
        assertRunsAreReferences(Format3TraceTest.FIXTURE);
    }

    private static void assertRunsAreReferences(final Path trace)
    {
        try (TraceReader reader = TraceReader.open(trace))
        {
            final List<String> one = new ArrayList<>();
            reader.forEachReference((seq, time, pid, tid, address, write) -> one.add(pid + " " + tid + " " + address));
            final List<String> runs = new ArrayList<>();
            final ReadSummary summary = reader.forEachReferenceRun((pid, tids, addresses, from, to) ->
            {
                for (int i = from; i < to; i++)
                {
                    runs.add(pid + " " + tids[i] + " " + addresses[i]);
                }
            });
            assertEquals(one, runs, trace.toString());
            assertEquals(summary.references(), runs.size());
        }
    }
}
