package io.faultline.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.faultline.format.EventType;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import io.faultline.tools.Main;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One recording of a program whose mappings are known (workload known_maps.c), read as a user
 * reads it: times from the program's start, the same from its packed file as from its directory,
 * and each reference named by its mapping.
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

    /** One in-process run of the command line: status, stdout and stderr in one string. */
    private static String run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return "status " + status + "\n" + out.toString(StandardCharsets.UTF_8) + "--- stderr\n"
            + err.toString(StandardCharsets.UTF_8);
    }

    /** A command's output with the trace's name and the times it took made alike. */
    private static String same(final String output, final Path path)
    {
        return output.replace(path.toString(), "TRACE")
            .replaceAll("\\b" + java.util.regex.Pattern.quote(path.getFileName().toString()) + "\\b", "NAME")
            .replaceAll(" in \\d+\\.\\d+ s", " in T s").replaceAll(" +", " ");
    }

    /**
     * The trace's files hold little more than its content (Chronicle's sparse 80 MiB file is cut
     * at the end of the recording), and its packed file is read by every command as the directory.
     */
    @Test
    void aPackedTraceReadsAsItsDirectory() throws Exception
    {
        long length = 0;
        try (var files = Files.walk(trace))
        {
            for (final Path p : (Iterable<Path>)files::iterator)
            {
                length += Files.isRegularFile(p) ? Files.size(p) : 0;
            }
        }
        assertTrue(length < 256 * 1024, "a trace of a few dozen references in " + length + " bytes of files");

        final Path packed = tmp.resolve("known.flt");
        final Faultline.Result pack = Faultline.run("pack", "-o", packed.toString(), trace.toString());
        assertEquals(0, pack.status(), pack.describe());
        assertTrue(Files.size(packed) < 16 * 1024, Files.size(packed) + " bytes packed");
        final Path csv = tmp.resolve("export.csv");
        for (final String[] command : new String[][] {{"info"}, {"dump"}, {"dump", "--format", "csv"},
            {"simulate", "--policies", "lru,opt", "--sizes", "2,8"}, {"mrc", "--policies", "lru", "--max-size", "16"},
            {"export", "--to", "lirs"}, {"report", "wss"}, {"report", "heats"}, {"report", "regions"}})
        {
            final String[] onDir = java.util.Arrays.copyOf(command, command.length + 1);
            onDir[command.length] = trace.toString();
            final String[] onPack = onDir.clone();
            onPack[command.length] = packed.toString();
            assertEquals(same(run(onDir), trace), same(run(onPack), packed), String.join(" ", command));
        }
        assertTrue(run("export", "--to", "csv", "-o", csv.toString(), packed.toString()).startsWith("status 0"));
        final Path back = tmp.resolve("back");
        final Faultline.Result unpack = Faultline.run("unpack", "-o", back.toString(), packed.toString());
        assertEquals(0, unpack.status(), unpack.describe());
        assertEquals(run("dump", trace.toString()), run("dump", back.toString()));
    }

    private static long announced(final String word)
    {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + word + " 0x([0-9a-f]+)$")
            .matcher(recorded.out());
        assertTrue(m.find(), word + " in " + recorded.out());
        return Long.parseUnsignedLong(m.group(1), 16);
    }

    /**
     * Every reference the workload announced is named by its mapping in dump's last column, and
     * info counts references per mapping: the executable's .bss by the executable, a malloc block
     * [heap], an anonymous mmap [anon], the main thread's stack [stack], a thread's [stack:TID].
     */
    @Test
    void everyReferenceIsNamedByItsMapping()
    {
        final long page = 4096;
        final long bss = announced("bss");
        final long heap = announced("heap");
        final long anon = announced("anon");
        final long stack = announced("stack");
        final java.util.regex.Matcher t = java.util.regex.Pattern.compile("(?m)^thread (\\d+) 0x([0-9a-f]+)$")
            .matcher(recorded.out());
        assertTrue(t.find(), recorded.out());
        final String tid = t.group(1);
        final long threadStack = Long.parseUnsignedLong(t.group(2), 16);

        final String dump = run("dump", "--no-events", trace.toString());
        assertTrue(dump.startsWith("status 0\n#seq time_ns pid tid kind address tag mapping\n"), dump);
        final java.util.Map<String, Integer> named = new java.util.TreeMap<>();
        dump.lines().filter(l -> l.matches("\\d+ \\d+ \\d+ \\d+ [rw] 0x[0-9a-f]+ - \\S+")).forEach(l ->
        {
            final String[] f = l.split(" ");
            final long address = Long.parseUnsignedLong(f[5].substring(2), 16);
            final String expected = address >= (bss + page - 1) / page * page && address < bss + 3 * page ? "known_maps"
                : address / page == heap / page ? "[heap]"
                : address >= anon && address < anon + 4 * page ? "[anon]"
                : address / page == stack / page ? "[stack]"
                : address / page == threadStack / page ? "[stack:" + tid + "]" : null;
            if (expected != null)
            {
                assertEquals(expected, f[7], l);
                named.merge(expected, 1, Integer::sum);
            }
        });
        assertEquals(java.util.Set.of("known_maps", "[heap]", "[anon]", "[stack]", "[stack:" + tid + "]"), named.keySet(),
            "a reference of each announced mapping: " + named + "\n" + dump);
        assertEquals(4, named.get("[anon]"), "each of the 4 mmapped pages once");

        // one mapping's regions: the 4 pages of the anonymous mmap, and other anonymous memory (the
        // dynamic loader's allocations after the last library's .bss), none of the others
        final String regions = run("report", "regions", "--mapping", "[anon]", "--sample", "1ms", "--aggr", "5ms",
            trace.toString()); // the program runs some 60 to 100 ms: aggregations shorter than DAMON's 100 ms
        assertTrue(regions.startsWith("status 0\naggregation,time_ns,pid,start,end,nr_accesses,age\n"), regions);
        final List<String> rows = regions.lines().filter(l -> l.matches("\\d+,.*")).toList();
        assertTrue(rows.stream().anyMatch(r -> Long.parseLong(r.split(",")[3]) >= anon
            && Long.parseLong(r.split(",")[4]) <= anon + 4 * page), "a region in the mmap: " + regions);
        for (final String row : rows)
        {
            final String[] f = row.split(",");
            final long s = Long.parseLong(f[3]);
            final long e = Long.parseLong(f[4]);
            for (final long other : new long[] {bss, heap, stack, threadStack})
            {
                assertTrue(e <= other / page * page || s >= other / page * page + page, row + " is anonymous memory, "
                    + "not the page of 0x" + Long.toHexString(other));
            }
        }
        assertTrue(run("report", "wss", "--mapping", "[stack:" + tid + "]", trace.toString()).startsWith("status 0"));

        final String info = run("info", trace.toString());
        for (final String mapping : named.keySet())
        {
            // name, references, read faults, write faults, pages, pages written
            assertTrue(info.lines().anyMatch(l -> l.startsWith(mapping + " ") && l.trim().split(" +").length == 6),
                mapping + " counted in: " + info);
        }
    }
}
