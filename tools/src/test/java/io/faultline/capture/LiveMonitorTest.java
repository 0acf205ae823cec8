package io.faultline.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.faultline.damon.record.MonitorRecordLayout;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.Snapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code faultline monitor -- PROGRAM}: DAMON's vaddr and fvaddr operations sets over a live C
 * workload (resources/workloads/hot_cold.c: a hot area, a cold one, and one that turns hot
 * halfway). The record must show the hot area near the maximum nr_accesses, the cold one near
 * zero, the turn at the right aggregation, and the program's output must be the native one.
 */
class LiveMonitorTest
{
    private static final int PHASE_MS = 1500;
    private static final long AGGR_NS = 100_000_000L;
    private static final int MAX_NR_ACCESSES = 20; // aggr 100 ms / sample 5 ms, the defaults

    @TempDir
    Path tmp;

    /** An area the workload printed: name, [start, end). */
    record Area(String name, long start, long end)
    {
    }

    /**
     * Under both engines that check accesses. The workload waits half a second before it maps
     * its areas, so the monitor has built its initial regions without them, and must add them at
     * once (VaddrOperations.uncoveredMemory) rather than at the next operations update a second
     * later: without that, the first second of aggregations saw no access whenever the monitor
     * started before the program's mappings (1 in 3 suites under sigbus, once under uffd).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "--engine {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"uffd", "sigbus"})
    void vaddrSeesTheHotAndColdAreasAndTheTurnWithinTwoAggregations(final String engine) throws Exception
    {
        final Path program = Workloads.build("hot_cold");
        final Faultline.Result nativeRun = Faultline.exec(List.of(program.toString(), "300"), 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());

        final Path record = tmp.resolve("mon-" + engine);
        final Faultline.Result run = Faultline.run(List.of("monitor", "--engine", engine, "-o", record.toString(), "--",
            program.toString(), String.valueOf(PHASE_MS), "500"), 300);
        assertEquals(0, run.status(), run.describe());
        assertEquals(integrity(nativeRun.out()), integrity(run.out()), "the program's output changed under monitoring");
        assertTrue(run.err().contains("vaddr over"), run.describe());

        final List<Area> areas = areas(run.out());
        final long switchMono = Long.parseLong(field(run.out(), "switch (\\d+)"));
        final MonitorRecordReader reader = MonitorRecordReader.open(record);
        {
            assertEquals("vaddr", reader.header().get(MonitorRecordLayout.OPS));
            final long switchNs = switchMono - Long.parseLong(reader.header().get(MonitorRecordLayout.START_MONO_NS));
            final List<Snapshot> snapshots = reader.snapshots();
            final long end = snapshots.get(snapshots.size() - 1).endNs();
            final StringBuilder table = new StringBuilder();
            Long firstHotTurn = null;
            int settledCount = 0;
            int beforeCount = 0;
            int afterCount = 0;
            int hotSeen = 0;
            int coldSeen = 0;
            int turnColdSeen = 0;
            int turnHotSeen = 0;
            for (final Snapshot s : snapshots)
            {
                final double hot = meanNrAccesses(s, areas.get(0));
                final double cold = meanNrAccesses(s, areas.get(1));
                final double turn = meanNrAccesses(s, areas.get(2));
                table.append(String.format("%d %.2fs hot %.1f cold %.1f turn %.1f%n", s.aggregation(),
                    (s.endNs() - switchNs) / 1e9, hot, cold, turn));
                if (s.endNs() > switchNs && firstHotTurn == null && turn >= MAX_NR_ACCESSES / 2.0)
                {
                    firstHotTurn = s.endNs();
                }
                // away from the start (first touches, regions still coarse), the switch and the end
                final boolean settled = s.startNs() > switchNs - PHASE_MS * 1_000_000L + 3 * AGGR_NS
                    && s.endNs() < end - AGGR_NS;
                final boolean before = settled && s.endNs() < switchNs;
                final boolean after = settled && s.startNs() > switchNs + 2 * AGGR_NS;
                if (before || after)
                {
                    settledCount++;
                    hotSeen += hot >= MAX_NR_ACCESSES / 2.0 ? 1 : 0;
                    coldSeen += cold <= MAX_NR_ACCESSES / 10.0 ? 1 : 0;
                }
                if (before)
                {
                    beforeCount++;
                    turnColdSeen += turn <= MAX_NR_ACCESSES / 10.0 ? 1 : 0;
                }
                if (after)
                {
                    afterCount++;
                    turnHotSeen += turn >= MAX_NR_ACCESSES / 2.0 ? 1 : 0;
                }
            }
            // Most, not all: on a loaded 2-core machine the program (or the agent's guard, which
            // resolves its checks) may get no CPU for a whole aggregation, and then nothing is hot.
            assertTrue(beforeCount >= 3 && afterCount >= 3, "too few aggregations\n" + table);
            assertTrue(hotSeen >= 0.8 * settledCount, "hot area seen hot in " + hotSeen + " of " + settledCount + "\n" + table);
            assertTrue(coldSeen >= 0.8 * settledCount, "cold area seen cold in " + coldSeen + " of " + settledCount + "\n" + table);
            assertTrue(turnColdSeen >= 0.8 * beforeCount, "turn area seen cold before its switch in " + turnColdSeen
                + " of " + beforeCount + "\n" + table);
            assertTrue(turnHotSeen >= 0.8 * afterCount, "turn area seen hot after its switch in " + turnHotSeen
                + " of " + afterCount + "\n" + table);
            assertTrue(firstHotTurn != null && firstHotTurn - switchNs <= 2 * AGGR_NS + AGGR_NS,
                "the turn was not seen within two aggregations of the switch\n" + table);
        }
    }

    /**
     * Memory no interposed call announces: a thread's stack (glibc's internal mmap) is taken at the
     * thread's start, a raw mmap system call made after the last thread start by the agent's
     * periodic rescan (mode_monitor.c, every second) and the monitor's next operations update.
     */
    @Test
    void vaddrFindsMemoryMappedBehindTheAgentsBack() throws Exception
    {
        final Path program = Workloads.build("hidden_hot");
        final Path record = tmp.resolve("hidden");
        final Faultline.Result run = Faultline.run(List.of("monitor", "-o", record.toString(), "--",
            program.toString(), "4500"), 300);
        assertEquals(0, run.status(), run.describe());
        assertTrue(run.out().contains("stack pages alike: yes") && run.out().contains("raw pages alike: yes"),
            run.describe());
        final Map<String, Area> areas = new HashMap<>();
        final Matcher m = Pattern.compile("(?m)^(stack|raw) 0x([0-9a-f]+) 0x([0-9a-f]+)$").matcher(run.out());
        while (m.find())
        {
            areas.put(m.group(1), new Area(m.group(1), Long.parseUnsignedLong(m.group(2), 16),
                Long.parseUnsignedLong(m.group(3), 16)));
        }
        assertEquals(2, areas.size(), run.describe());
        final List<Snapshot> snapshots = MonitorRecordReader.open(record).snapshots();
        final long end = snapshots.get(snapshots.size() - 1).endNs();
        final StringBuilder table = new StringBuilder();
        int settled = 0;
        int stackHot = 0;
        int rawHot = 0;
        for (final Snapshot s : snapshots)
        {
            final double stack = meanNrAccesses(s, areas.get("stack"));
            final double raw = meanNrAccesses(s, areas.get("raw"));
            table.append(String.format("%d %.2fs stack %.1f raw %.1f%n", s.aggregation(), s.endNs() / 1e9, stack, raw));
            // the raw area is seen within two seconds: a rescan (1 s) then an operations update (1 s)
            if (s.startNs() > 2_500_000_000L && s.endNs() < end - AGGR_NS)
            {
                settled++;
                stackHot += stack >= MAX_NR_ACCESSES / 2.0 ? 1 : 0;
                rawHot += raw >= MAX_NR_ACCESSES / 2.0 ? 1 : 0;
            }
        }
        assertTrue(settled >= 5, "too few aggregations\n" + table);
        assertTrue(stackHot >= 0.8 * settled, "the thread's stack seen hot in " + stackHot + " of " + settled + "\n" + table);
        assertTrue(rawHot >= 0.8 * settled, "the raw mapping seen hot in " + rawHot + " of " + settled + "\n" + table);
    }

    @Test
    void fvaddrMonitorsOnlyTheGivenRange() throws Exception
    {
        // ASLR off: the workload's areas land at the same addresses in the probe run and the monitored one
        final Path program = Workloads.build("hot_cold");
        final List<String> probe = List.of("setarch", "-R", program.toString(), "1");
        // a monitor run of its own: the shared memory and the agent's mappings are the same size as in the next one
        final Faultline.Result first = Faultline.run(concat(List.of("monitor", "-o", tmp.resolve("probe").toString(), "--"),
            probe), 120);
        assertEquals(0, first.status(), first.describe());
        final Area hot = areas(first.out()).get(0);

        final Path record = tmp.resolve("fmon");
        final String range = "0x" + Long.toHexString(hot.start()) + "-0x" + Long.toHexString(hot.end());
        final Faultline.Result run = Faultline.run(concat(List.of("monitor", "--range", range, "-o", record.toString(), "--"),
            List.of("setarch", "-R", program.toString(), "1500")), 300);
        assertEquals(0, run.status(), run.describe());
        assertEquals(hot, areas(run.out()).get(0), "the hot area moved between runs with ASLR off");
        final MonitorRecordReader reader = MonitorRecordReader.open(record);
        {
            assertEquals("fvaddr", reader.header().get(MonitorRecordLayout.OPS));
            final List<Snapshot> snapshots = reader.snapshots();
            assertTrue(snapshots.size() >= 3, "aggregations: " + snapshots.size());
            int hotOnes = 0;
            for (final Snapshot s : snapshots)
            {
                for (final Snapshot.RegionRecord r : s.targets().get(0).regions())
                {
                    assertTrue(r.start() >= hot.start() && r.end() <= hot.end(), "a region outside the range: " + r);
                }
                // the first aggregation may start before the program's loop does
                hotOnes += s.aggregation() == 0 || meanNrAccesses(s, hot) >= MAX_NR_ACCESSES / 2.0 ? 1 : 0;
            }
            assertTrue(hotOnes >= snapshots.size() / 2, hotOnes + " of " + snapshots.size() + " aggregations saw it hot");
        }
    }

    @Test
    void schemesActOnLiveMemoryAndLoseNoPage() throws Exception
    {
        // pageout and cold on every region, parked (armed) pages among them, and hugepage from
        // inside: every area's pages must still be alike and cold's checksum the native one
        final Path program = Workloads.build("hot_cold");
        final Faultline.Result nativeRun = Faultline.exec(List.of(program.toString(), "300"), 60);
        final Faultline.Result run = Faultline.run(concat(List.of("monitor", "-o", tmp.resolve("smon").toString(),
            "--scheme", "action=pageout,sz=4K-max,nr_accesses=0-max,age=0-max",
            "--scheme", "action=cold,sz=4K-max,nr_accesses=0-max,age=0-max",
            "--scheme", "action=hugepage,sz=4K-max,nr_accesses=0-max,age=0-max", "--"),
            List.of(program.toString(), "600")), 300);
        assertEquals(0, run.status(), run.describe());
        assertEquals(integrity(nativeRun.out()), integrity(run.out()), "pages changed under DAMOS actions");
        for (final String action : List.of("pageout", "cold", "hugepage"))
        {
            final Matcher m = Pattern.compile("Scheme \\d \\(" + action + "\\): tried ([\\d,]+) regions .* applied "
                + "([\\d,]+) \\(([\\d.]+ [KMG]?i?B), by madvise\\)").matcher(run.err());
            assertTrue(m.find(), run.describe());
            assertFalse(m.group(3).equals("0 B"), action + " applied to nothing: " + run.err());
        }
    }

    @Test
    void pageoutReclaimsColdFilePagesAndTheOutputStays() throws Exception
    {
        // ASLR off and a probe run of the same shape: the file mapping's address is known before
        final Path program = Workloads.build("file_pages");
        final Faultline.Result probe = Faultline.run(concat(List.of("monitor", "-o", tmp.resolve("fprobe").toString(),
            "--"), List.of("setarch", "-R", program.toString(), tmp.resolve("f0").toString(), "10",
            tmp.resolve("r0").toString())), 120);
        assertEquals(0, probe.status(), probe.describe());
        final Matcher at = Pattern.compile("file 0x([0-9a-f]+) 0x([0-9a-f]+)").matcher(probe.out());
        assertTrue(at.find(), probe.describe());
        final String range = "0x" + at.group(1) + "-0x" + at.group(2);

        final Faultline.Result nativeRun = Faultline.exec(List.of("setarch", "-R", program.toString(),
            tmp.resolve("f1").toString(), "10", tmp.resolve("r1").toString()), 60);
        final Faultline.Result run = Faultline.run(concat(List.of("monitor", "--range", range, "-o",
            tmp.resolve("pmon").toString(), "--scheme", "action=pageout,sz=4K-max,nr_accesses=0-0,age=2-max", "--"),
            // 5 s idle for the scheme to act in: with 2 s, most pages stayed resident in 1 of 4
            // fresh-clone suites on 2026-11-25 (passing alone 4 of 4); the cause is not established
            List.of("setarch", "-R", program.toString(), tmp.resolve("f2").toString(), "5000",
                tmp.resolve("r2").toString())), 300);
        assertEquals(0, run.status(), run.describe());
        assertEquals(nativeRun.out().lines().filter(l -> l.startsWith("sum")).toList(),
            run.out().lines().filter(l -> l.startsWith("sum")).toList(), "the file's contents read differently");
        assertTrue(run.out().contains("file 0x" + at.group(1) + " "), "the mapping moved: " + run.out());
        assertTrue(run.err().contains("this machine has no swap") || !noSwap(), run.err());
        final Matcher report = Pattern.compile("resident before (\\d+) after (\\d+) of (\\d+)")
            .matcher(Files.readString(tmp.resolve("r2")));
        assertTrue(report.find());
        assertEquals(report.group(3), report.group(1), "the pages were read, so all resident before");
        assertTrue(Integer.parseInt(report.group(2)) < Integer.parseInt(report.group(1)) / 2,
            "pageout left most pages resident: " + report.group(0) + "\n" + run.err());
    }

    private static boolean noSwap() throws java.io.IOException
    {
        return Files.readAllLines(Path.of("/proc/meminfo")).stream().anyMatch(l -> l.matches("SwapTotal:\\s+0 kB"));
    }

    /**
     * Under both engines that check accesses. Under sigbus the system-call gate holds and touches
     * each call's memory; it once moved such pages out after the call as if an EVMS had let them
     * go, and the first return through a stack page so lost jumped to 0 (every program died).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "--engine {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"uffd", "sigbus"})
    void aRealProgramsOutputIsByteIdenticalUnderMonitoring(final String engine) throws Exception
    {
        // sort read(2)s its input into heap buffers that may be armed for a check at that
        // moment: a kernel-mode access to an armed page must wait for the agent (uffd) or be
        // touched first by the gate (sigbus) and succeed
        final Path input = tmp.resolve("lines.txt");
        final StringBuilder text = new StringBuilder();
        final java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 200_000; i++)
        {
            text.append(Long.toHexString(random.nextLong())).append(' ').append(i % 977).append('\n');
        }
        Files.writeString(input, text);
        final List<String> sort = List.of("sort", "--parallel=2", "-S", "4M", "-k2,2n", "-k1,1", input.toString());
        final Faultline.Result nativeRun = Faultline.exec(sort, 120);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Faultline.Result run = Faultline.run(concat(List.of("monitor", "--engine", engine, "--sample", "1ms",
            "--aggr", "20ms", "-o", tmp.resolve("sortmon-" + engine).toString(), "--"), sort), 300);
        assertEquals(0, run.status(), run.err());
        assertTrue(nativeRun.out().equals(run.out()), "sort's output differs under monitoring");
    }

    /**
     * Four threads writing private and shared pages while the checks come every millisecond: a
     * check's page comes home by copy on the touching thread under sigbus, and is armed beside
     * the other threads' checks (mode_monitor.c, arm), its slot dropped at the window's end
     * (engine_uffd.c, uffd_unwatch). A write that met a page moved out meanwhile, a stale copy
     * brought home, or a slot dropped that held the only copy would change the sums.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "--engine {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"uffd", "sigbus"})
    void checkedPagesOfFourThreadsKeepEveryWrite(final String engine) throws Exception
    {
        final List<String> stress = List.of(Workloads.build("stress").toString(), "4", "40000000", "512", "4096");
        final Faultline.Result nativeRun = Faultline.exec(stress, 120);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        final Faultline.Result run = Faultline.run(concat(List.of("monitor", "--engine", engine, "--sample", "1ms",
            "--aggr", "20ms", "--min-regions", "200", "-o", tmp.resolve("stress-" + engine).toString(), "--"), stress), 300);
        assertEquals(0, run.status(), run.describe());
        assertEquals(nativeRun.out(), run.out(), "the program's sums changed under monitoring");
        final Matcher checks = Pattern.compile("\\(([0-9,]+) of them access checks").matcher(run.err());
        // thousands on a quiet machine, 80 in 0.8 s in one loaded suite (windows of 4.6 ms): a floor
        // that only says the checks ran
        assertTrue(checks.find() && Long.parseLong(checks.group(1).replace(",", "")) >= 10,
            "too few checks to say anything\n" + run.describe());
    }

    @Test
    void badInputGetsOneLineAndStatusTwo() throws Exception
    {
        final Path program = Workloads.build("hot_cold");
        for (final List<String> args : List.of(
            List.of("monitor", "-o", tmp.resolve("a").toString()),
            List.of("monitor", "--from-trace", tmp.toString(), "-o", tmp.resolve("b").toString(), "--", program.toString()),
            List.of("monitor", "--range", "0x2000-0x1000", "-o", tmp.resolve("c").toString(), "--", program.toString()),
            List.of("monitor", "--range", "zz", "-o", tmp.resolve("d").toString(), "--", program.toString()),
            List.of("monitor", "--range", "0xffff800000000000-0xffff800000100000", "-o", tmp.resolve("g").toString(),
                "--", program.toString()),
            List.of("monitor", "--scope", "most", "-o", tmp.resolve("e").toString(), "--", program.toString()),
            List.of("monitor", "--sample", "200ms", "--aggr", "100ms", "-o", tmp.resolve("f").toString(), "--",
                program.toString())))
        {
            final Faultline.Result r = Faultline.run(args, 60);
            assertEquals(2, r.status(), args + "\n" + r.describe());
            assertEquals(1, r.err().strip().lines().count(), args + "\n" + r.describe());
            assertTrue(!r.err().contains("Exception"), r.describe());
        }
        assertTrue(!Files.exists(tmp.resolve("c")) || Files.list(tmp.resolve("c")).findAny().isEmpty());
    }

    private static List<String> concat(final List<String> head, final List<String> rest)
    {
        final List<String> all = new ArrayList<>(head);
        all.addAll(rest);
        return all;
    }

    /** Size-weighted mean nr_accesses of the regions over an area. */
    private static double meanNrAccesses(final Snapshot s, final Area area)
    {
        double weighted = 0;
        long covered = 0;
        for (final Snapshot.TargetRegions t : s.targets())
        {
            for (final Snapshot.RegionRecord r : t.regions())
            {
                final long overlap = Math.min(r.end(), area.end()) - Math.max(r.start(), area.start());
                if (overlap > 0)
                {
                    weighted += (double)overlap * r.nrAccesses();
                    covered += overlap;
                }
            }
        }
        return covered == 0 ? 0 : weighted / covered;
    }

    private static List<Area> areas(final String out)
    {
        final List<Area> areas = new ArrayList<>();
        final Matcher m = Pattern.compile("(?m)^(hot|cold|turn) 0x([0-9a-f]+) 0x([0-9a-f]+)$").matcher(out);
        while (m.find())
        {
            areas.add(new Area(m.group(1), Long.parseUnsignedLong(m.group(2), 16), Long.parseUnsignedLong(m.group(3), 16)));
        }
        assertEquals(3, areas.size(), out);
        return areas;
    }

    /** The lines that must not change: every area's pages alike, and cold's checksum. */
    private static List<String> integrity(final String out)
    {
        return out.lines().filter(l -> l.contains("alike") || l.startsWith("cold sum")).toList();
    }

    private static String field(final String out, final String regex)
    {
        final Matcher m = Pattern.compile(regex).matcher(out);
        assertTrue(m.find(), out);
        return m.group(1);
    }
}
