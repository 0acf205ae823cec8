package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every record carries the tid of the thread whose reference faulted: with an EVMS larger than
 * the working set, each page of each worker's private range appears exactly once, under that
 * worker's tid; and the trace names every thread.
 */
class ThreadAttributionTest
{
    private static final Pattern WORKER = Pattern.compile("worker (\\d+) tid (\\d+) base 0x([0-9a-f]+) sum (\\d+)");
    private static final int THREADS = 4;
    private static final int PAGES = 24;

    @TempDir
    Path tmp;

    @Test
    void eachPageOfEachThreadsPrivateRangeAppearsOnceUnderItsTid() throws Exception
    {
        final Path trace = tmp.resolve("threads");
        final Faultline.Result result = Faultline.run("record", "-q", "--scope", "api", "--evms",
            String.valueOf(THREADS * PAGES + 8), "-o", trace.toString(), "--",
            Workloads.build("threads").toString(), String.valueOf(THREADS), String.valueOf(PAGES));
        assertEquals(0, result.status(), result.describe());

        final Map<Integer, Long> baseOfTid = new HashMap<>();
        final Matcher m = WORKER.matcher(result.out());
        while (m.find())
        {
            baseOfTid.put(Integer.parseInt(m.group(2)), Long.parseUnsignedLong(m.group(3), 16));
        }
        assertEquals(THREADS, baseOfTid.size(), result.out());

        final Traces traces = Traces.read(trace);
        final Map<Integer, List<Long>> pagesOfTid = new HashMap<>();
        for (final Traces.Ref ref : traces.refs)
        {
            final Long base = baseOfTid.get(ref.tid());
            assertTrue(base != null, "record under a tid that is not a worker: " + ref);
            final long page = (ref.address() - base) / 4096;
            assertTrue(ref.address() >= base && page < PAGES, "tid " + ref.tid() + " touched outside its range: " + ref);
            assertTrue(ref.write(), "the first reference to each page is a write: " + ref);
            pagesOfTid.computeIfAbsent(ref.tid(), t -> new ArrayList<>()).add(page);
        }
        final List<Long> everyPage = new ArrayList<>();
        for (long p = 0; p < PAGES; p++)
        {
            everyPage.add(p);
        }
        for (final int tid : baseOfTid.keySet())
        {
            assertEquals(everyPage, pagesOfTid.get(tid), "pages of tid " + tid + " in order, once each");
        }

        final Map<Integer, String> names = new HashMap<>();
        final List<Integer> started = new ArrayList<>();
        for (final TraceEvent event : traces.events)
        {
            if (event.type() == EventType.THREAD_NAME)
            {
                names.put(event.tid(), event.text());
            }
            else if (event.type() == EventType.THREAD_START)
            {
                started.add(event.tid());
            }
        }
        for (final int tid : baseOfTid.keySet())
        {
            assertTrue(started.contains(tid), "thread-start for " + tid + " in " + traces.events);
            assertTrue(names.getOrDefault(tid, "").startsWith("worker-"), "name of " + tid + ": " + names);
        }
        final Faultline.Result info = Faultline.run("info", trace.toString());
        assertEquals(0, info.status(), info.describe());
        for (final int tid : baseOfTid.keySet())
        {
            assertTrue(Pattern.compile("(?m)^" + tid + " +\\d+ +" + PAGES + " +0 +" + PAGES + " +worker-\\d$")
                .matcher(info.out()).find(), "info lists tid " + tid + " with its counts:\n" + info.out());
        }
        // the agents' thread ledgers: every worker's records, as its agent counted them
        final TraceHeader header = TraceHeader.readDirectory(trace, "trace");
        assertEquals("0", header.get(TraceHeader.UNMATCHED_THREADS), header.values().toString());
        for (final int tid : baseOfTid.keySet())
        {
            assertTrue(header.get(TraceHeader.THREAD_PREFIX + tid).contains(" published=" + PAGES + " "),
                header.values().toString());
        }
        assertTrue(info.out().contains("every thread's records as its agent counted them"), info.out());
    }

    /**
     * A thread started by a constructor, before main: its references are recorded under its
     * tid (every page of its buffer), it has a start event, and the program computes what it
     * computes natively.
     */
    @Test
    void aThreadStartedBeforeMainIsTracedUnderItsTid() throws Exception
    {
        final String workload = Workloads.build("early_thread").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(workload), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Path trace = tmp.resolve("early");
        final Faultline.Result result = Faultline.run("record", "-q", "--evms", "4096", "-o", trace.toString(), "--",
            workload);
        assertEquals(0, result.status(), result.describe());
        assertEquals(nativeRun.out().replaceAll("(?m)^early .*\\n", ""), result.out().replaceAll("(?m)^early .*\\n", ""));
        final Matcher m = Pattern.compile("early tid (\\d+) base 0x([0-9a-f]+)").matcher(result.out());
        assertTrue(m.find(), result.out());
        final int tid = Integer.parseInt(m.group(1));
        final long base = Long.parseUnsignedLong(m.group(2), 16);

        final Traces traces = Traces.read(trace);
        final java.util.Set<Long> pages = new java.util.HashSet<>();
        for (final Traces.Ref ref : traces.refs)
        {
            if (ref.tid() == tid)
            {
                pages.add(ref.address() / 4096);
            }
        }
        for (long p = 0; p < 32; p++)
        {
            final long page = (base + p * 4096 + p) / 4096;
            assertTrue(pages.contains(page), "page " + p + " of the early thread's buffer is recorded under its tid");
        }
        assertTrue(traces.events.stream().anyMatch(e -> e.type() == EventType.THREAD_START && e.tid() == tid),
            "the early thread has a start event");
    }
}
