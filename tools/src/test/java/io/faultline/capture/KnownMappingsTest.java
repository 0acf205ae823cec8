package io.faultline.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One recording of a program whose mappings are known (workload known_maps.c), read as a user
 * reads it: times from the program's start.
 */
class KnownMappingsTest
{
    @TempDir
    static Path tmp;

    static Path trace;
    static Faultline.Result recorded;

    @BeforeAll
    static void record() throws Exception
    {
        trace = tmp.resolve("known");
        recorded = Faultline.run("record", "-q", "-o", trace.toString(), "--", Workloads.build("known_maps").toString());
        assertEquals(0, recorded.status(), recorded.describe());
    }

    /**
     * The trace's bytes count from the recording's start; what a user sees counts from the
     * program's, its first process-start event: that event is at 0, nothing is before it or
     * after the program's exit, and info shows the recorder's start-up once, apart.
     */
    @Test
    void timesCountFromTheProgramsStart() throws Exception
    {
        final List<Long> times = new ArrayList<>();
        final List<String> kinds = new ArrayList<>();
        final long startUp;
        final long duration;
        try (TraceReader reader = TraceReader.open(trace))
        {
            reader.forEach(new TraceVisitor()
            {
                @Override
                public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                    final long address, final boolean write)
                {
                    times.add(timeNs);
                    kinds.add("reference");
                }

                @Override
                public void onEvent(final TraceEvent event)
                {
                    times.add(event.timeNs());
                    kinds.add(event.type().label());
                }
            });
            startUp = reader.programStartNs();
            duration = reader.sinceProgramStart(reader.header().longValue(TraceHeader.DURATION_NS));
            assertEquals(reader.header().longValue(TraceHeader.DURATION_NS) - startUp, duration);
        }
        assertTrue(startUp > 0, "the recorder starts before the program: " + startUp);
        assertEquals(EventType.PROCESS_START.label(), kinds.get(0), kinds.toString());
        assertEquals(0L, times.get(0), "the program's start is time 0");
        assertTrue(times.stream().allMatch(t -> t >= 0 && t <= duration), "every time within the program's run: "
            + times + " duration " + duration);
        assertEquals(EventType.PROCESS_EXIT.label(), kinds.get(kinds.size() - 1));

        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        assertTrue(info.out().contains(String.format(Locale.ROOT, "start-up        %.3f s of the recorder's",
            startUp / 1e9)), info.out());
        assertTrue(info.out().contains(String.format(Locale.ROOT, "duration        %.3f s from the program's start",
            duration / 1e9)), info.out());

        final Faultline.Result first = Faultline.run("dump", "--until", "1ns", trace.toString());
        assertEquals(0, first.status(), first.describe());
        assertTrue(first.out().lines().anyMatch(l -> l.matches("-- 0 0 \\d+ \\d+ process-start .*known_maps")),
            first.out());
    }
}
