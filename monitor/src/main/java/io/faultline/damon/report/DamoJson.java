package io.faultline.damon.report;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.faultline.damon.Attributes;
import io.faultline.damon.record.MonitorRecordReader;
import io.faultline.damon.record.Snapshot;

/**
 * Writes monitoring results in the JSON record format of damo, DAMON's user-space tool
 * (awslabs/damo, _damon_records.py: write_json(), with raw=True): a list of records, one per
 * target, each {@code {kdamond_idx, context_idx, intervals {sample_us, aggr_us, ops_update_us},
 * scheme_idx, target_id, snapshots [{start_time, end_time, regions [{start, end, nr_accesses
 * {samples, percent}, age {usec, aggr_intervals}, sz_filter_passed}], total_bytes}]}}. Numbers
 * damo writes as formatted strings (addresses, times, sizes) are decimal strings here too;
 * {@code damo report heats --input FILE} and the other damo reports read it.
 */
public final class DamoJson
{
    private DamoJson()
    {
    }

    /** Reads the monitoring record {@code record} and writes it to {@code out} as damo JSON. */
    public static void write(final Path record, final Path out) throws IOException
    {
        final MonitorRecordReader reader = MonitorRecordReader.open(record);
        try (Writer writer = Files.newBufferedWriter(out, StandardCharsets.UTF_8))
        {
            write(reader.snapshots(), reader.attributes(), writer);
        }
    }

    public static void write(final List<Snapshot> snapshots, final Attributes attrs, final Writer out)
        throws IOException
    {
        final Map<Long, List<String>> byTarget = new LinkedHashMap<>();
        for (final Snapshot s : snapshots)
        {
            for (final Snapshot.TargetRegions t : s.targets())
            {
                final List<String> regions = new ArrayList<>();
                long total = 0;
                for (final Snapshot.RegionRecord r : t.regions())
                {
                    regions.add("{\"start\": \"" + r.start() + "\", \"end\": \"" + r.end()
                        + "\", \"nr_accesses\": {\"samples\": " + r.nrAccesses() + ", \"percent\": null}"
                        + ", \"age\": {\"usec\": null, \"aggr_intervals\": \"" + r.age() + "\"}"
                        + ", \"sz_filter_passed\": \"0\"}");
                    total += r.size();
                }
                byTarget.computeIfAbsent(t.pid(), p -> new ArrayList<>()).add(
                    "{\"start_time\": \"" + s.startNs() + "\", \"end_time\": \"" + s.endNs() + "\", \"regions\": ["
                        + String.join(", ", regions) + "], \"total_bytes\": \"" + total + "\"}");
            }
        }
        out.write("[");
        boolean first = true;
        for (final Map.Entry<Long, List<String>> e : byTarget.entrySet())
        {
            out.write(first ? "\n" : ",\n");
            first = false;
            out.write("    {\"kdamond_idx\": 0, \"context_idx\": 0, \"intervals\": {\"sample_us\": \""
                + attrs.sampleIntervalUs() + "\", \"aggr_us\": \"" + attrs.aggrIntervalUs() + "\", \"ops_update_us\": \""
                + attrs.opsUpdateIntervalUs() + "\"}, \"scheme_idx\": null, \"target_id\": " + e.getKey()
                + ", \"snapshots\": [\n        " + String.join(",\n        ", e.getValue()) + "]}");
        }
        out.write("\n]\n");
    }
}
