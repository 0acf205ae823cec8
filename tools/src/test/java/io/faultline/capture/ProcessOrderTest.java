package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parent and its forked child take turns touching pages (pingpong.c), so the program fixes
 * the order of their references; the recorder drains the two rings in its own order. The
 * trace read back follows the program: pages 0, 1, 2, ... alternating parent and child, in
 * increasing seq, with the fork event before the child's first reference.
 * <p>
 * Pipelines of short processes that fork and exec (pipeline.c, as a shell runs
 * {@code echo | cat | wc}) give a trace whose every process holds what it did, in its order.
 */
class ProcessOrderTest
{
    private static final int PAGE = 4096;
    private static final Pattern BASE = Pattern.compile("base=0x([0-9a-f]+)");
    private static final Pattern IMAGE = Pattern.compile("image (\\d+) (\\d) 0x([0-9a-f]+) (\\d+)");

    @TempDir
    Path tmp;

    @Test
    void referencesOfAParentAndItsChildComeInSeqOrder() throws Exception
    {
        final int pages = 400;
        final Path trace = tmp.resolve("pingpong");
        final Faultline.Result result = Faultline.run(List.of("record", "-q", "--evms", "16", "-o", trace.toString(),
            "--", Workloads.build("pingpong").toString(), String.valueOf(pages)), 120);
        assertEquals(0, result.status(), result.describe());
        final Matcher m = BASE.matcher(result.out());
        assertTrue(m.find(), result.describe());
        final long base = Long.parseUnsignedLong(m.group(1), 16);

        final Traces traces = Traces.read(trace);
        final TraceEvent fork = traces.events.stream().filter(e -> e.type() == EventType.FORK).findFirst().orElseThrow();
        final int parent = fork.pid();
        final List<Long> pagesSeen = new ArrayList<>();
        final List<String> roles = new ArrayList<>();
        long previous = -1;
        for (final Traces.Ref ref : traces.refs)
        {
            assertTrue(ref.seq() > previous, "seq increases in the order references are read: " + ref);
            previous = ref.seq();
            final long page = Long.divideUnsigned(ref.address() - base, PAGE);
            if (ref.address() >= base && page < pages)
            {
                pagesSeen.add(page);
                roles.add(ref.pid() == parent ? "parent" : "child");
            }
        }
        final List<Long> expectedPages = new ArrayList<>();
        final List<String> expectedRoles = new ArrayList<>();
        for (long p = 0; p < pages; p++)
        {
            expectedPages.add(p);
            expectedRoles.add(p % 2 == 0 ? "parent" : "child");
        }
        assertEquals(expectedPages, pagesSeen);
        assertEquals(expectedRoles, roles);

        final long firstChildSeq = traces.refs.stream().filter(r -> r.pid() == (int)fork.a()).findFirst()
            .orElseThrow().seq();
        assertTrue(fork.seq() <= firstChildSeq, "fork at seq " + fork.seq() + ", child's first reference " + firstChildSeq);
    }

    /**
     * 20 rounds of a producer, a filter and a counter (61 processes, 101 images; the filter and
     * the counter exec after touching pages of their own, and the logger gives their slots back
     * for reuse). The trace reads whole (no process goes back in seq in the queue), and every
     * process holds exactly what it did: per image, its region's pages in order, each one write
     * record, the exec'd image's after its exec event; its fork event before anything of its
     * own; one exit event, after all of it. Before the logger drained every image of a process
     * that was gone before writing its exit event, the exec'd image's records came after that
     * event in the queue, and the trace was corrupt in most recordings.
     */
    @BothEngines
    void pipelinesOfShortProcessesKeepEveryProcessWholeAndInOrder(final String engine) throws Exception
    {
        final int rounds = 20;
        final Path trace = tmp.resolve("pipeline");
        final Faultline.Result result = Faultline.run(List.of("record", "-q", "--engine", engine, "-o", trace.toString(),
            "--", Workloads.build("pipeline").toString(), String.valueOf(rounds)), 240);
        assertEquals(0, result.status(), result.describe());
        assertTrue(result.out().contains("rounds " + rounds + " ok"), result.describe());
        // per pid, its images (index 0 the forked one or the main process, 1 the exec'd one): base, pages
        final Map<Integer, TreeMap<Integer, long[]>> images = new HashMap<>();
        final Matcher m = IMAGE.matcher(result.out());
        while (m.find())
        {
            images.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new TreeMap<>())
                .put(Integer.parseInt(m.group(2)), new long[] {Long.parseUnsignedLong(m.group(3), 16), Long.parseLong(m.group(4))});
        }
        assertEquals(1 + 3 * rounds, images.size(), result.describe());

        final Traces traces = Traces.read(trace);
        final int main = traces.events.stream().filter(e -> e.type() == EventType.FORK).findFirst().orElseThrow().pid();
        final Map<Integer, List<Object>> byPid = new HashMap<>();
        for (final Object item : traces.delivered)
        {
            byPid.computeIfAbsent(item instanceof Traces.Ref r ? r.pid() : ((TraceEvent)item).pid(), k -> new ArrayList<>()).add(item);
        }
        assertEquals(images.keySet(), byPid.keySet(), "the processes of the trace are the program's");
        for (final Map.Entry<Integer, TreeMap<Integer, long[]>> process : images.entrySet())
        {
            final int pid = process.getKey();
            final List<Object> items = byPid.get(pid);
            final List<TraceEvent> forks = events(traces.events, EventType.FORK, e -> e.a() == pid);
            final List<TraceEvent> execs = events(items, EventType.EXEC, e -> true);
            final List<TraceEvent> exits = events(items, EventType.PROCESS_EXIT, e -> true);
            final List<TraceEvent> starts = events(items, EventType.PROCESS_START, e -> true);
            final String who = "process " + pid + " (images " + process.getValue().keySet() + ")";
            assertEquals(1, exits.size(), who + ": one exit event");
            assertEquals(exits.get(0), items.get(items.size() - 1), who + ": its exit event comes after all of it");
            assertEquals(process.getValue().size() - 1, execs.size(), who + ": an exec event per exec'd image");
            assertEquals(process.getValue().size(), starts.size(), who + ": a process-start per image");
            assertEquals(pid == main ? 0 : 1, forks.size(), who + ": forked once by the main process");
            long previous = -1;
            for (final Object item : items)
            {
                final long seq = item instanceof Traces.Ref r ? r.seq() : ((TraceEvent)item).seq();
                assertTrue(seq >= previous, who + ": seq goes back at " + item);
                previous = seq;
                if (!forks.isEmpty())
                {
                    assertEquals(main, forks.get(0).pid());
                    assertTrue(forks.get(0).seq() <= seq, who + ": " + item + " before its fork event " + forks.get(0));
                }
            }
            final long execSeq = execs.isEmpty() ? Long.MAX_VALUE : execs.get(0).seq();
            if (!execs.isEmpty())
            {
                assertTrue(starts.get(0).seq() <= execSeq && execSeq <= starts.get(1).seq(),
                    who + ": exec " + execs.get(0) + " between the images' starts " + starts);
            }
            for (final Map.Entry<Integer, long[]> image : process.getValue().entrySet())
            {
                final long base = image.getValue()[0];
                final int pages = (int)image.getValue()[1];
                final boolean exec = image.getKey() == 1;
                final List<Long> expected = new ArrayList<>();
                for (long p = 0; p < pages; p++)
                {
                    expected.add(base + p * PAGE);
                }
                final List<Long> seen = new ArrayList<>();
                for (final Object item : items)
                {
                    if (item instanceof Traces.Ref r && (r.seq() >= execSeq) == exec
                        && r.address() >= base && r.address() < base + (long)pages * PAGE)
                    {
                        assertTrue(r.write(), who + ": " + r + " is a write");
                        seen.add(r.address() & -PAGE);
                    }
                }
                assertEquals(expected, seen, who + ", image " + image.getKey() + ": its pages, once each, in order");
            }
        }
    }

    private static List<TraceEvent> events(final List<?> items, final EventType type,
        final java.util.function.Predicate<TraceEvent> which)
    {
        final List<TraceEvent> found = new ArrayList<>();
        for (final Object item : items)
        {
            if (item instanceof TraceEvent e && e.type() == type && which.test(e))
            {
                found.add(e);
            }
        }
        return found;
    }
}
