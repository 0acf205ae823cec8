package io.faultline.capture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kVMTrace's kernel events, recorded in the order they happened: the workload announces each
 * mapping change with its addresses, and the trace holds exactly that sequence of events for
 * the traced range; the forked child and the exec'd image are traced as their own processes,
 * with their memory intact.
 */
class MappingEventsTest
{
    private static final int PAGE = 4096;

    @TempDir
    Path tmp;

    private static long hex(final String out, final String regex)
    {
        final Matcher m = Pattern.compile(regex).matcher(out);
        assertTrue(m.find(), regex + " in " + out);
        return Long.parseUnsignedLong(m.group(1), 16);
    }

    @Test
    void mmapMremapMadviseForkMunmapExecInOrder() throws Exception
    {
        final String mapops = Workloads.build("mapops").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(mapops), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Path trace = tmp.resolve("mapops");
        final Faultline.Result result = Faultline.run("record", "-q", "--scope", "api", "--evms", "64", "-o",
            trace.toString(), "--", mapops);
        assertEquals(0, result.status(), result.describe());
        assertEquals(nativeRun.out().replaceAll("0x[0-9a-f]+", "ADDR").replaceAll("(fork) \\d+", "$1 PID"),
            result.out().replaceAll("0x[0-9a-f]+", "ADDR").replaceAll("(fork) \\d+", "$1 PID"),
            "same output as native, data included (sums, child sum)");

        final long a = hex(result.out(), "mmap 0x([0-9a-f]+)");
        final long b = hex(result.out(), "mremap 0x[0-9a-f]+ \\d+ 0x([0-9a-f]+)");
        final int child = Integer.parseInt(result.out().replaceAll("(?s).*fork (\\d+).*", "$1"));

        final Traces traces = Traces.read(trace);
        final int pid = traces.events.stream().filter(e -> e.type() == EventType.PROCESS_START).findFirst()
            .orElseThrow().pid();
        final List<String> seen = new ArrayList<>();
        for (final TraceEvent e : traces.events)
        {
            if (e.pid() != pid || e.type() == null)
            {
                continue;
            }
            switch (e.type())
            {
                case MMAP -> {
                    if (e.a() == a)
                    {
                        seen.add("mmap " + (e.a() - a) + " " + e.b());
                    }
                }
                case TRACE_RANGE -> seen.add("trace-range " + (e.a() - a) + " " + e.b());
                case MREMAP -> seen.add("mremap " + (e.a() - a) + " " + e.b() + " " + (e.c() - b) + " " + e.d());
                case MADVISE -> seen.add("madvise " + (e.a() - b) + " " + e.b());
                case FORK -> seen.add("fork " + (e.a() == child ? "child" : e.a()));
                case MUNMAP -> {
                    if (e.a() == b)
                    {
                        seen.add("munmap " + (e.a() - b) + " " + e.b());
                    }
                }
                case EXEC -> seen.add("exec");
                default -> { }
            }
        }
        assertEquals(List.of(
            "mmap 0 " + 8 * PAGE,
            "trace-range 0 " + 8 * PAGE,
            "mremap 0 " + 8 * PAGE + " 0 " + 8 * PAGE,
            "madvise " + 2 * PAGE + " " + 2 * PAGE,
            "fork child",
            "munmap 0 " + 8 * PAGE,
            "exec"), seen, "events of the traced range in order: " + traces.events);

        final List<Integer> processes = new ArrayList<>();
        traces.events.stream().filter(e -> e.type() == EventType.PROCESS_START).forEach(e -> processes.add(e.pid()));
        assertTrue(processes.contains(child), "the child is traced as its own process: " + processes);
        final long childRecords = traces.refs.stream().filter(r -> r.pid() == child).count();
        assertEquals(8, childRecords, "the child reads each of the 8 moved pages once");
        assertTrue(traces.refs.stream().filter(r -> r.pid() == child).allMatch(r -> r.address() >= b && r.address() < b + 8 * PAGE));
    }

    /**
     * The agent learns new mappings with PROCMAP_QUERY (one mapping per ioctl) rather than by
     * reading all of /proc/self/maps; with FAULTLINE_CHECK=1 it reads both ways for every query
     * and prints "maps-disagree" where they differ. churn (malloc'd blocks, a large mmap) and
     * mapops (an mremap that grows, a fork, an exec) under scope all: native output, no
     * disagreement, and queries did happen.
     */
    /**
     * Each madvise event names the advice the program gave (MADV_FREE 8, MADV_DONTNEED 4), given
     * through libc's madvise or as a raw system call. Under uffd the REMOVE event does not say
     * it, and madvise returns once the handler has read the event, not once it has applied it:
     * the handler here waits 40 ms between the two (FAULTLINE_TEST_EVENT_DELAY_US), so an
     * interposer or gate that withdrew its hint when the call returned would leave every
     * MADV_FREE said as DONTNEED, as it did.
     */
    @ParameterizedTest(name = "--engine {0}")
    @ValueSource(strings = {"uffd", "sigbus", "mprotect"})
    void eachMadviseEventNamesItsAdviceEvenWhenTheEventIsAppliedLate(final String engine) throws Exception
    {
        final String advice = Workloads.build("advice").toString();
        final Faultline.Result nativeRun = Faultline.exec(List.of(advice, "2"), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Path trace = tmp.resolve("advice-" + engine);
        final ProcessBuilder builder = Faultline.builder(List.of("record", "-q", "--engine", engine, "--scope", "api",
            "--evms", "64", "-o", trace.toString(), "--", advice, "2"));
        builder.environment().put("FAULTLINE_TEST_EVENT_DELAY_US", "40000");
        final Faultline.Result traced = Faultline.finish(builder, 120);
        assertEquals(0, traced.status(), traced.describe());
        assertEquals(nativeRun.out().replaceAll("0x[0-9a-f]+", "ADDR"), traced.out().replaceAll("0x[0-9a-f]+", "ADDR"));
        final long range = hex(traced.out(), "range 0x([0-9a-f]+)");
        final List<String> seen = new ArrayList<>();
        for (final TraceEvent e : Traces.read(trace).events)
        {
            if (e.type() == EventType.MADVISE && e.a() >= range && e.a() < range + 8 * PAGE)
            {
                seen.add((e.a() - range) / PAGE + "+" + e.b() / PAGE + " advice " + e.c());
            }
        }
        final List<String> round = List.of("2+2 advice 8", "5+1 advice 4", "7+1 advice 8");
        final List<String> expected = new ArrayList<>(round);
        expected.addAll(round);
        assertEquals(expected, seen, "page+pages and advice of each madvise, free, dontneed, raw free, twice");
    }

    @Test
    void mappingsLearnedByQueryAgreeWithTheMapsFile() throws Exception
    {
        for (final List<String> program : List.of(List.of(Workloads.build("churn").toString(), "3"),
            List.of(Workloads.build("mapops").toString())))
        {
            final Faultline.Result nativeRun = Faultline.exec(program, 60);
            final List<String> args = new ArrayList<>(List.of("record", "-q", "--evms", "64", "-o",
                tmp.resolve("check-" + program.get(0).hashCode()).toString(), "--"));
            args.addAll(program);
            final ProcessBuilder builder = Faultline.builder(args);
            builder.environment().put("FAULTLINE_CHECK", "1");
            builder.environment().put("FAULTLINE_DEBUG", "1");
            final Faultline.Result result = Faultline.finish(builder, 300);
            assertEquals(0, result.status(), result.describe());
            assertEquals(nativeRun.out().replaceAll("0x[0-9a-f]+", "ADDR").replaceAll("(fork) \\d+", "$1 PID"),
                result.out().replaceAll("0x[0-9a-f]+", "ADDR").replaceAll("(fork) \\d+", "$1 PID"), "native output");
            assertTrue(result.err().contains("faultline debug: scan+"), "mappings were learned: " + result.describe());
            assertTrue(!result.err().contains("maps-disagree"), "query and maps file agree: "
                + result.err().lines().filter(l -> l.contains("maps-disagree")).toList());
        }
    }

    @Test
    void noFollowTracesOnlyTheFirstProcessAndKeepsTheChildIntact() throws Exception
    {
        final String mapops = Workloads.build("mapops").toString();
        final Path trace = tmp.resolve("nofollow");
        final Faultline.Result result = Faultline.run("record", "-q", "--no-follow", "--scope", "api", "-o",
            trace.toString(), "--", mapops);
        assertEquals(0, result.status(), result.describe());
        assertTrue(result.out().contains("child sum 83"), result.out());
        assertTrue(result.out().contains("exec-child ran"), result.out());
        final Traces traces = Traces.read(trace);
        assertEquals(1, traces.refs.stream().map(Traces.Ref::pid).distinct().count(), "one process traced");
    }

    /**
     * A vfork child runs in the parent's memory, agent included, until it execs: its exec is not
     * the parent's (the old agent recorded an exec event for the parent), and the exec'd image
     * is traced as a process of its own whose parent is the vforking process.
     */
    @Test
    void aVforkChildsExecIsNotTakenForTheParents() throws Exception
    {
        final List<String> program = List.of(Workloads.build("vfork_exec").toString(), "/bin/true");
        final Faultline.Result nativeRun = Faultline.exec(program, 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Path trace = tmp.resolve("vfork");
        final List<String> record = new ArrayList<>(List.of("record", "-q", "-o", trace.toString(), "--"));
        record.addAll(program);
        final Faultline.Result result = Faultline.run(record, 120);
        assertEquals(0, result.status(), result.describe());
        assertEquals(nativeRun.out(), result.out());

        final List<TraceEvent> events = Traces.read(trace).events;
        final int parent = events.stream().filter(e -> e.type() == EventType.PROCESS_START && e.text().endsWith("vfork_exec"))
            .findFirst().orElseThrow().pid();
        assertTrue(events.stream().noneMatch(e -> e.type() == EventType.EXEC && e.pid() == parent),
            "no exec event for the vforking process: " + events);
        assertTrue(events.stream().anyMatch(e -> e.type() == EventType.PROCESS_START && e.text().endsWith("/true")
            && e.a() == parent), "the exec'd image is a process of its own, child of " + parent + ": " + events);
    }
}
