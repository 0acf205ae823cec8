package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.sim.policy.evms.EvmsModel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reading side of eviction records on one segq trace: dump's seventh column, export to
 * kVMTrace's reduced trace, simulate in eviction order, and the header's EVMS in the replay
 * tools' warning. Expected values come from {@link EvmsModel} through {@link ScriptModel}.
 */
class EvictionReadingTest
{
    private static final int PAGE = 4096;
    private static final int EVMS = 16;
    private static final int LEAD = 4;
    private static final int PAGES = 28;
    private static final String SCRIPT = "r0,r1,w2,r3,r4,r5,r6,r7,r8,r9,r10,r11,r0,w1,r2,r12,r13,r14,r15,r16,"
        + "r17,r18,r0,r19,r20,w3,r21,r22,r1,r23,r24,r25,r26,r27,r0,r1,r2,r3";

    @TempDir
    static Path tmp;
    static Path trace;
    static long base;
    /** the model's evictions, "R0" (tag, page), in emission order */
    static List<String> evictions;

    @BeforeAll
    static void record() throws Exception
    {
        trace = tmp.resolve("segq");
        final Faultline.Result result = Faultline.run("record", "-q", "-o", trace.toString(), "--scope", "api", "--evms",
            String.valueOf(EVMS), "--policy", "clock", "--lead", String.valueOf(LEAD), "--",
            Workloads.build("api_script").toString(), String.valueOf(PAGES), String.valueOf(PAGES), SCRIPT);
        assertEquals(0, result.status(), result.describe());
        final Matcher m = Pattern.compile("base=0x([0-9a-f]+)").matcher(result.out());
        assertTrue(m.find(), result.describe());
        base = Long.parseUnsignedLong(m.group(1), 16);
        evictions = new ArrayList<>();
        for (final String item : ScriptModel.expected(EvmsModel.Trail.CLOCK, EVMS, LEAD, PAGES, SCRIPT))
        {
            if (item.startsWith("evict "))
            {
                evictions.add(item.substring("evict ".length()));
            }
        }
        assertEquals(30, evictions.size(), "the script evicts: " + evictions);
    }

    @Test
    void dumpCsvHasATagColumnAndEvictionRowsInOrder() throws Exception
    {
        final Faultline.Result dump = Faultline.run("dump", "--format", "csv", trace.toString());
        assertEquals(0, dump.status(), dump.describe());
        final List<String> lines = dump.out().lines().toList();
        assertEquals("seq,time_ns,pid,tid,kind,address,tag", lines.get(0));
        final List<String> seen = new ArrayList<>();
        int references = 0;
        for (final String line : lines.subList(1, lines.size()))
        {
            final String[] f = line.split(",", -1);
            assertEquals(7, f.length, line);
            if (f[4].equals("evict"))
            {
                final long page = (Long.parseUnsignedLong(f[5].substring(2), 16) - base) / PAGE;
                seen.add(f[6] + page);
            }
            else
            {
                assertEquals("", f[6], "a reference record has an empty tag: " + line);
                references++;
            }
        }
        assertEquals(evictions, seen);
        assertEquals(ScriptModel.expected(EvmsModel.Trail.CLOCK, EVMS, LEAD, PAGES, SCRIPT).size() - evictions.size(), references);
    }

    @Test
    void kvmtraceExportHasOneLinePerEvictionInOrder() throws Exception
    {
        final Path out = tmp.resolve("kvm.txt");
        final Faultline.Result export = Faultline.run("export", "--to", "kvmtrace", "-o", out.toString(), trace.toString());
        assertEquals(0, export.status(), export.describe());
        final List<String> seen = new ArrayList<>();
        for (final String line : Files.readAllLines(out))
        {
            final String[] f = line.split(" ");
            if (!"rwRW".contains(f[0]))
            {
                // a kernel record (the program's standard descriptors at least): kVMTrace's tags
                assertTrue(List.of("(", ")", "<", ">", "t", "-", "s", "U").contains(f[0]), line);
                continue;
            }
            assertEquals(4, f.length, line);
            seen.add(f[0] + (Long.parseUnsignedLong(f[3].substring(2), 16) - base / PAGE));
        }
        assertEquals(evictions, seen);
    }

    @Test
    void simulateReadsEvictionOrderAndWarnsBelowTheEvms() throws Exception
    {
        final Faultline.Result sim = Faultline.run("simulate", "--order", "eviction", "--policies", "fifo", "--sizes",
            "8,64", trace.toString());
        assertEquals(0, sim.status(), sim.describe());
        assertTrue(sim.err().contains("Read " + evictions.size() + " references"), sim.describe());
        assertEquals(1, sim.err().lines().filter(l -> l.startsWith("warning: sizes 8 are below the EVMS that recorded "
            + "this trace (segq, 16 pages, lead 4, trail clock)")).count(), sim.describe());
        final Faultline.Result bad = Faultline.run("simulate", "--order", "lru", "--policies", "fifo", "--sizes", "8",
            trace.toString());
        assertEquals(2, bad.status(), bad.describe());
        assertEquals("faultline simulate: unknown --order 'lru'; use --order reference or --order eviction", bad.err().strip());
    }
}
