package io.faultline.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.record.Snapshot;
import io.faultline.damon.record.Snapshot.RegionRecord;
import io.faultline.damon.record.Snapshot.TargetRegions;
import io.faultline.sim.trace.FaultlineTraces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code faultline monitor} and {@code faultline report} end to end, with exact outputs on small
 * records and traces, and their one-line errors. The trace: process 1 references pages 1, 2 and 5
 * (4 KiB) within 30 ns; at 1 us sampling and aggregation that is one aggregation in which each of
 * the three pages was referenced in its only sampling interval.
 */
class MonitorCommandTest
{
    @TempDir
    Path tmp;

    private Path trace() throws IOException
    {
        return FaultlineTraces.write(tmp.resolve("trace"), 4096,
            new long[] {1, 11, 0x1000, 0x2000, 0x1000},
            new long[] {1, 11, 0x5000});
    }

    private Path record() throws IOException
    {
        final Path dir = tmp.resolve("record");
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(dir,
            MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096)))
        {
            writer.write(new Snapshot(0, 0, 100, List.of(new TargetRegions(7, List.of(new RegionRecord(0, 16384, 10, 0))))));
            writer.write(new Snapshot(1, 100, 200, List.of(new TargetRegions(7, List.of(
                new RegionRecord(0, 8192, 20, 0), new RegionRecord(8192, 16384, 0, 1))))));
            writer.finish(MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096));
        }
        return dir;
    }

    private static void assertOneLineError(final CommandRun run, final String command, final String contains)
    {
        assertEquals(2, run.status(), run.toString());
        // simulate and mrc say what they read before they fail; everything else fails before any output.
        assertEquals(command.equals("simulate") || command.equals("mrc") ? 2 : 1, run.errLines().length, run.toString());
        assertTrue(run.lastErrLine().startsWith("faultline " + command + ": "), run.toString());
        assertTrue(run.lastErrLine().contains(contains), run.toString());
        assertTrue(!run.err().contains("Exception") && !run.err().contains("\tat "), run.toString());
    }

    @Test
    void monitorsATraceIntoARecordThatMatchesTheTruthExactly() throws IOException
    {
        final Path trace = trace();
        final Path out = tmp.resolve("out");
        final CommandRun run = CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", out.toString(),
            "--sample", "1us", "--aggr", "1us", "--min-regions", "3");
        assertEquals(0, run.status(), run.toString());
        assertTrue(run.err().startsWith("Monitored 1 processes over 0.000 s of " + trace + ": 1 aggregations of 1 us"),
            run.err());
        assertTrue(MonitorRecordReader.isRecord(out));

        final CommandRun regions = CommandRun.of("report", "regions", out.toString());
        assertEquals(0, regions.status(), regions.toString());
        final List<String> lines = regions.out().lines().toList();
        assertEquals("aggregation,time_ns,pid,start,end,nr_accesses,age", lines.get(0));
        long covered = 0;
        for (final String line : lines.subList(1, lines.size()))
        {
            final String[] f = line.split(",");
            assertEquals("0", f[0]);
            assertEquals("1000", f[1]);
            assertEquals("1", f[2]);
            assertEquals("1", f[5], line);
            covered += Long.parseLong(f[4]) - Long.parseLong(f[3]);
        }
        assertEquals(3 * 4096, covered);

        final CommandRun accuracy = CommandRun.of("report", "accuracy", "--monitor", out.toString(), "--truth",
            trace.toString());
        assertEquals(0, accuracy.status(), accuracy.toString());
        assertEquals("aggregations  1 of 1 us (sampling 1 us)\n"
            + "heat error    0.00% of the largest frequency (mean absolute, mean over aggregations)\n"
            + "wss error     0.00% mean absolute, 0.00% mean signed (over 1 aggregations with a working set)\n",
            accuracy.out());
    }

    /**
     * report accuracy --attrs runs DAMON over the trace once per choice: on the trace above, at 1 us
     * sampling and aggregation, each choice sees the one aggregation exactly, with or without a
     * tuning goal (it would tune after 3 aggregations); 3 regions checked in 1 sampling interval of
     * a trace that ends at 31 ns are 96.8 million checks per second of its time.
     */
    @Test
    void accuracyRunsDamonOverTheTraceOncePerAttributeChoice() throws IOException
    {
        final Path trace = trace();
        final Path csv = tmp.resolve("choices.csv");
        final CommandRun run = CommandRun.of("report", "accuracy", "--truth", trace.toString(), "--attrs",
            "sample=1us,aggr=1us,regions=3-1000", "--attrs", "sample=1us,aggr=1us,regions=3-1000,goal=4%:3:1us:1ms",
            "--csv", csv.toString());
        assertEquals(0, run.status(), run.toString());
        assertEquals(List.of(
            "attributes                                            aggrs    heat wss |err|   wss err   checks/s last intervals",
            "sample=1us,aggr=1us,regions=3-1000                        1   0.00%     0.00%    +0.00% 96,774,194 1us/1us",
            "sample=1us,aggr=1us,regions=3-1000,goal=4%:3:1us:1ms      1   0.00%     0.00%    +0.00% 96,774,194 1us/1us",
            "best working set: sample=1us,aggr=1us,regions=3-1000 (0.00% mean absolute error)"), run.out().lines().toList());
        assertEquals(List.of(AccuracySweepReport.CSV_HEADER,
            "\"sample=1us,aggr=1us,regions=3-1000\",1,0.000000,0.000000,0.000000,96774193.5,1,1",
            "\"sample=1us,aggr=1us,regions=3-1000,goal=4%:3:1us:1ms\",1,0.000000,0.000000,0.000000,96774193.5,1,1"),
            java.nio.file.Files.readAllLines(csv));
        assertOneLineError(CommandRun.of("report", "accuracy", "--truth", trace.toString(), "--attrs", "sample=1us,"
            + "goal=4%:3:2us:1ms"), "report accuracy", "is outside the intervals goal's bounds");
        assertOneLineError(CommandRun.of("report", "accuracy", "--truth", trace.toString(), "--attrs", "speed=fast"),
            "report accuracy", "unknown key 'speed'; give sample=T,aggr=T");
        assertOneLineError(CommandRun.of("report", "accuracy", "--truth", trace.toString()), "report accuracy",
            "give --monitor DIR (a monitoring record) or --attrs SPEC");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", tmp.resolve("m").toString(),
            "--intervals-goal", "4%:3:5ms"), "monitor", "--intervals-goal '4%:3:5ms': goal takes ACCESS:AGGRS:MIN:MAX");
    }

    /**
     * Schemes end to end on the trace above (one aggregation, every region accessed in its only
     * sample): a stat scheme for nr_accesses=1-1 tries all 3 pages and applies nothing; pageout
     * (simulated) applies them all; an address filter rejecting page 5 leaves 2 pages tried; the
     * same schemes as JSON give the same statistics.
     */
    @Test
    void schemesAreAppliedAndReported() throws IOException
    {
        final Path trace = trace();
        final Path out = tmp.resolve("schemes");
        final CommandRun run = CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", out.toString(),
            "--sample", "1us", "--aggr", "1us", "--min-regions", "3", "--scheme", "action=stat,nr_accesses=1-1",
            "--scheme", "action=pageout,nr_accesses=100%-100%", "--scheme", "action=pageout,filter=addr:out:0x5000-0x6000");
        assertEquals(0, run.status(), run.toString());
        final int regions = (int)CommandRun.of("report", "regions", out.toString()).out().lines().count() - 1;
        assertTrue(regions >= 2, run.toString());
        assertTrue(run.err().contains("Scheme 0 (stat): tried " + regions + " regions (12.0 KiB), applied 0 (0 B,"
            + " simulated), quota exceeded 0 times"), run.err());
        final CommandRun report = CommandRun.of("report", "schemes", out.toString());
        assertEquals(0, report.status(), report.toString());
        final List<String> lines = report.out().lines().toList();
        assertEquals("aggregation,time_ns,scheme,nr_tried,sz_tried,nr_applied,sz_applied,qt_exceeds,"
            + "sz_ops_filter_passed,esz,charged_sz,active", lines.get(0));
        assertEquals(4, lines.size(), report.out());
        assertEquals("0,1000,0," + regions + ",12288,0,0,0,12288,0,12288,1", lines.get(1));
        assertEquals("0,1000,1," + regions + ",12288," + regions + ",12288,0,12288,0,12288,1", lines.get(2));
        assertTrue(lines.get(3).matches("0,1000,2,\\d+,8192,\\d+,8192,0,8192,0,8192,1"), lines.get(3));

        final Path json = Files.writeString(tmp.resolve("s.json"), "[{\"action\": \"stat\", \"access_pattern\": "
            + "{\"nr_accesses\": {\"min\": 1, \"max\": 1}}}]");
        final Path out2 = tmp.resolve("schemes2");
        assertEquals(0, CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", out2.toString(),
            "--sample", "1us", "--aggr", "1us", "--min-regions", "3", "--schemes", json.toString()).status());
        assertEquals(lines.get(1), CommandRun.of("report", "schemes", out2.toString()).out().lines().toList().get(1));

        final CommandRun none = CommandRun.of("report", "schemes", record().toString());
        assertEquals(2, none.status(), none.toString());
        assertTrue(none.err().contains("was monitored without schemes; monitor again with --scheme SPEC"), none.err());
    }

    @Test
    void reportsOnATraceAreExact() throws IOException
    {
        final Path trace = trace();
        final CommandRun regions = CommandRun.of("report", "regions", trace.toString(), "--sample", "1us", "--aggr", "1us");
        assertEquals(0, regions.status(), regions.toString());
        assertEquals("aggregation,time_ns,pid,start,end,nr_accesses,age\n"
            + "0,1000,1,4096,12288,1,0\n"
            + "0,1000,1,20480,24576,1,0\n", regions.out());
        final CommandRun wss = CommandRun.of("report", "wss", trace.toString(), "--sample", "1us", "--aggr", "1us");
        assertEquals("percentile,wss_bytes\n0,12288\n25,12288\n50,12288\n75,12288\n100,12288\n", wss.out());
    }

    @Test
    void reportsOnARecordAreExact() throws IOException
    {
        final Path record = record();
        assertEquals("aggregation,time_ns,pid,start,end,nr_accesses,age\n"
            + "0,100,7,0,16384,10,0\n1,200,7,0,8192,20,0\n1,200,7,8192,16384,0,1\n",
            CommandRun.of("report", "regions", record.toString()).out());
        assertEquals("aggregation,time_ns,wss_bytes\n0,100,16384\n1,200,8192\n",
            CommandRun.of("report", "wss", "--over-time", record.toString()).out());
        assertEquals("percentile,wss_bytes\n0,8192\n25,8192\n50,8192\n75,16384\n100,16384\n",
            CommandRun.of("report", "wss", record.toString()).out());
        final Path png = tmp.resolve("heat.png");
        final CommandRun heats = CommandRun.of("report", "heats", "--resolution", "2", "2", "--plot", png.toString(),
            record.toString());
        assertEquals(0, heats.status(), heats.toString());
        assertEquals("time_ns,address,heat\n0,0,10.000\n0,8192,10.000\n100,0,20.000\n100,8192,0.000\n", heats.out());
        assertArrayEquals(new byte[] {(byte)0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(Files.readAllBytes(png), 4));
    }

    @Test
    void badInputEndsInOneLine() throws IOException
    {
        final Path trace = trace();
        final Path record = record();
        final String out = tmp.resolve("o").toString();
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", out, "--sample", "5ms",
            "--aggr", "1ms"), "monitor", "is shorter than the sampling interval");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", out, "--min-regions", "20",
            "--max-regions", "10"), "monitor", "is above the maximum");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", record.toString(), "-o", out), "monitor",
            "is a monitoring record, not a trace");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", record.toString()),
            "monitor", "choose another -o or delete it");
        assertOneLineError(CommandRun.of("monitor", "-o", out), "monitor", "nothing to monitor: give a program");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString()), "monitor",
            "missing -o DIR; faultline monitor --help shows the usage");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString(), "-o"), "monitor",
            "--output needs a value");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", out, "--", "/bin/true"),
            "monitor", "not both");
        assertOneLineError(CommandRun.of("monitor", "--from-trace", trace.toString(), "-o", out, "--sample", "fast"),
            "monitor", "'fast' is not a duration");
        // refused before the program starts: every process image's sampling board is in one 2 GiB mapping
        assertOneLineError(CommandRun.of("monitor", "-o", out, "--max-regions", "100000000", "--", "true"), "monitor",
            "--max-regions 100000000 gives each of the 16 process images a sampling board larger than the 2 GiB of "
            + "shared memory a live monitor maps; give --max-regions ");
        for (final String command : new String[] {"simulate", "info", "dump", "export", "mrc"})
        {
            final String[] args = switch (command)
            {
                case "simulate" -> new String[] {"simulate", "--policies", "lru", "--sizes", "4", record.toString()};
                case "export" -> new String[] {"export", "--to", "csv", record.toString()};
                default -> new String[] {command, record.toString()};
            };
            assertOneLineError(CommandRun.of(args), command,
                "is a DAMON monitoring record (written by faultline monitor), not a trace");
        }
        assertOneLineError(CommandRun.of("report", "accuracy", "--monitor", trace.toString(), "--truth",
            trace.toString()), "report accuracy", "is a faultline trace, not a monitoring record");
        assertOneLineError(CommandRun.of("report", "accuracy", "--monitor", record.toString(), "--truth",
            record.toString()), "report accuracy", "is a monitoring record, not a trace");
        assertOneLineError(CommandRun.of("report", "regions", record.toString(), "--sample", "1ms"), "report regions",
            "--sample and --aggr apply to traces");
        assertOneLineError(CommandRun.of("report", "heats", "--plot", "heat.gif", record.toString()), "report heats",
            "name it with .png or .svg");
        assertOneLineError(CommandRun.of("report", "wss", "--bogus", record.toString()), "report wss",
            "unknown option --bogus");
        assertOneLineError(CommandRun.of("report"), "report", "missing report");
    }
}
