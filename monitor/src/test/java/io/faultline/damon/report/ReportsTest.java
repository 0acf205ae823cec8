package io.faultline.damon.report;

import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

import io.faultline.damon.Attributes;
import io.faultline.damon.SyntheticTrace;
import io.faultline.damon.ops.TraceIndex;
import io.faultline.damon.ops.TraceMonitor;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.MonitorRecordWriter;
import io.faultline.damon.record.Snapshot;
import io.faultline.damon.record.Snapshot.RegionRecord;
import io.faultline.damon.record.Snapshot.TargetRegions;
import io.faultline.format.TraceHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Exact outputs of the reports on small records and traces, computed by hand. */
class ReportsTest
{
    @TempDir
    Path tmp;

    private static final List<Snapshot> TWO = List.of(
        new Snapshot(0, 0, 100, List.of(new TargetRegions(7, List.of(new RegionRecord(0, 16384, 10, 0))))),
        new Snapshot(1, 100, 200, List.of(new TargetRegions(7, List.of(new RegionRecord(0, 8192, 20, 0),
            new RegionRecord(8192, 16384, 0, 1))))));

    @Test
    void regionsCsvHasOneRowPerRegionPerAggregation()
    {
        final StringWriter bytes = new StringWriter();
        RegionsCsv.write(TWO, new java.io.PrintWriter(bytes, true));
        assertEquals("aggregation,time_ns,pid,start,end,nr_accesses,age\n"
            + "0,100,7,0,16384,10,0\n"
            + "1,200,7,0,8192,20,0\n"
            + "1,200,7,8192,16384,0,1\n", bytes.toString());
    }

    @Test
    void workingSetIsTheSizeOfAccessedRegionsAndItsPercentilesAreNearestRank()
    {
        assertArrayEquals(new long[] {16384, 8192}, WorkingSetSize.overTime(TWO, -1));
        final long[] sizes = {16384, 4096, 12288, 8192};
        assertEquals(4096, WorkingSetSize.percentile(sizes, 0));
        assertEquals(4096, WorkingSetSize.percentile(sizes, 25));
        assertEquals(8192, WorkingSetSize.percentile(sizes, 50));
        assertEquals(12288, WorkingSetSize.percentile(sizes, 75));
        assertEquals(16384, WorkingSetSize.percentile(sizes, 100));
    }

    @Test
    void heatIsTheAreaWeightedAverageOfNrAccesses()
    {
        final Heatmap.Grid grid = Heatmap.compute(TWO, 7, 0, 16384, 2, 2);
        assertArrayEquals(new long[] {0, 100}, grid.timeNs());
        assertArrayEquals(new long[] {0, 8192}, grid.address());
        assertArrayEquals(new double[] {10, 10}, grid.heat()[0]);
        assertArrayEquals(new double[] {20, 0}, grid.heat()[1]);
        // Finer in time than the aggregations: each 50 ns pixel lies inside one aggregation.
        final Heatmap.Grid fine = Heatmap.compute(TWO, 7, 0, 16384, 4, 4);
        assertArrayEquals(new double[] {10, 10, 10, 10}, fine.heat()[1]);
        assertArrayEquals(new double[] {20, 20, 0, 0}, fine.heat()[2]);
        // Coarser: one pixel averages both aggregations over the whole range: (10 * 100 * 16384 + 20 * 100 * 8192) / (200 * 16384).
        assertEquals(10.0, Heatmap.compute(TWO, 7, 0, 16384, 1, 1).heat()[0][0], 1e-12);
        assertArrayEquals(new long[] {0, 16384}, Heatmap.defaultAddressRange(TWO, 7));
    }

    @Test
    void exactAccessesOfATraceAreItsPerPageSampleCounts() throws Exception
    {
        final Path trace = SyntheticTrace.hotWarmCold(Long.MAX_VALUE).write(tmp.resolve("t"), 1_000_000_000L);
        final ExactAccesses exact = new ExactAccesses(TraceIndex.read(trace), 5000, 100_000);
        final List<Snapshot> snapshots = exact.snapshots();
        assertEquals(10, snapshots.size());
        assertEquals(List.of(new RegionRecord(0x100000, 0x110000, 20, 0), new RegionRecord(0x200000, 0x210000, 10, 0),
            new RegionRecord(0x300000, 0x310000, 1, 0)), snapshots.get(0).targets().get(0).regions());
        assertEquals(List.of(new RegionRecord(0x100000, 0x110000, 20, 3), new RegionRecord(0x200000, 0x210000, 10, 3)),
            snapshots.get(3).targets().get(0).regions());
        assertEquals(32 * 4096L, WorkingSetSize.of(snapshots.get(3), 100));
    }

    @Test
    void accuracyOfAMonitorThatSeesUniformAreasIsPerfect() throws Exception
    {
        final Path trace = SyntheticTrace.hotWarmCold(500_000_000L).write(tmp.resolve("t"), 1_000_000_000L);
        final Path record = tmp.resolve("r");
        TraceMonitor.run(trace, record, Attributes.DEFAULTS, 3);
        final Accuracy.Report report = Accuracy.compare(MonitorRecordReader.open(record).snapshots(),
            new ExactAccesses(TraceIndex.read(trace), 5000, 100_000));
        assertEquals(10, report.intervals().size());
        assertEquals(0.0, report.meanHeatError());
        assertEquals(0.0, report.meanAbsWssError());
        assertEquals(48 * 4096L, report.intervals().get(0).trueWssBytes());
        assertEquals(32 * 4096L, report.intervals().get(1).trueWssBytes());
        assertEquals(48 * 4096L, report.intervals().get(9).damonWssBytes());
    }

    @Test
    void accuracyOfAWrongRecordIsWhatTheDefinitionGives() throws Exception
    {
        final Path trace = SyntheticTrace.hotWarmCold(Long.MAX_VALUE).write(tmp.resolve("t"), 1_000_000_000L);
        final Path record = tmp.resolve("r");
        // Aggregation 0 truth: A's 16 pages at 20, B's 16 at 10, C's 16 at 1. The record says A is at 10,
        // B at 10, and has no region over C.
        try (MonitorRecordWriter writer = MonitorRecordWriter.create(record,
            MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096)))
        {
            writer.write(new Snapshot(0, 0, 100_000_000, List.of(new TargetRegions(100, List.of(
                new RegionRecord(0x100000, 0x110000, 10, 0), new RegionRecord(0x200000, 0x210000, 10, 0))))));
            writer.finish(MonitorRecordWriter.header(Attributes.DEFAULTS, "trace", 4096));
        }
        final Accuracy.Report report = Accuracy.compare(MonitorRecordReader.open(record).snapshots(),
            new ExactAccesses(TraceIndex.read(trace), 5000, 100_000));
        final Accuracy.Interval row = report.intervals().get(0);
        // |P| = 32 pages in regions + 16 referenced outside; errors 16 * |10 - 20| + 0 + 16 * 1 = 176; M = 20.
        assertEquals(48, row.comparedPages());
        assertEquals(176.0 / (48 * 20), row.heatError(), 1e-12);
        assertEquals(48 * 4096L, row.trueWssBytes());
        assertEquals(32 * 4096L, row.damonWssBytes());
        assertEquals(-1.0 / 3, row.wssError(), 1e-12);
        assertEquals(1.0 / 3, report.meanAbsWssError(), 1e-12);
    }

    /** The choices run on several threads over one shared index give what each gives alone. */
    @Test
    void aSweepGivesEachChoiceTheResultOfItsOwnRun() throws Exception
    {
        final Path trace = SyntheticTrace.hotWarmCold(500_000_000L).write(tmp.resolve("t"), 1_000_000_000L);
        final TraceIndex index = TraceIndex.read(trace);
        final List<Attributes> choices = List.of(Attributes.DEFAULTS, new Attributes(1_000, 20_000, 1_000_000, 3, 100),
            Attributes.DEFAULTS, new Attributes(1_000, 20_000, 1_000_000, 3, 100));
        final List<AccuracySweep.Trial> trials = AccuracySweep.run(index, choices, 5, 4);
        for (int i = 0; i < choices.size(); i++)
        {
            assertEquals(AccuracySweep.trial(index, choices.get(i), 5), trials.get(i), "choice " + i);
        }
    }

    @Test
    void damoJsonHoldsOneRecordPerTargetWithItsSnapshots() throws Exception
    {
        final StringWriter out = new StringWriter();
        DamoJson.write(TWO.subList(0, 1), Attributes.DEFAULTS, out);
        assertEquals("[\n"
            + "    {\"kdamond_idx\": 0, \"context_idx\": 0, \"intervals\": {\"sample_us\": \"5000\", \"aggr_us\": \"100000\","
            + " \"ops_update_us\": \"1000000\"}, \"scheme_idx\": null, \"target_id\": 7, \"snapshots\": [\n"
            + "        {\"start_time\": \"0\", \"end_time\": \"100\", \"regions\": [{\"start\": \"0\", \"end\": \"16384\","
            + " \"nr_accesses\": {\"samples\": 10, \"percent\": null}, \"age\": {\"usec\": null, \"aggr_intervals\": \"0\"},"
            + " \"sz_filter_passed\": \"0\"}], \"total_bytes\": \"16384\"}]}\n"
            + "]\n", out.toString());
    }
}
