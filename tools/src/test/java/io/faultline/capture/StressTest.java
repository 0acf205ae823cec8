package io.faultline.capture;

import java.nio.file.Path;
import java.util.List;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads hammering shared and private pages with a tiny EVMS: no hang (bounded by the
 * timeout), the data intact (the native result), and not one record lost (the agents' count is
 * the recorder's).
 */
class StressTest
{
    @TempDir
    Path tmp;

    @Test
    void threadsHammeringSharedAndPrivatePagesWithATinyEvms() throws Exception
    {
        final List<String> args = List.of(Workloads.build("stress").toString(), "4", "4000", "24", "16");
        final Faultline.Result nativeRun = Faultline.exec(args, 60);
        assertEquals(0, nativeRun.status(), nativeRun.describe());
        for (final String evms : List.of("16", "17"))
        {
            final Path trace = tmp.resolve("stress-" + evms);
            final List<String> record = new java.util.ArrayList<>(List.of("record", "-q", "--evms", evms, "-o",
                trace.toString(), "--"));
            record.addAll(args);
            final Faultline.Result traced = Faultline.run(record, 240);
            assertEquals(0, traced.status(), traced.describe());
            assertEquals(nativeRun.out(), traced.out(), "evms " + evms);
            final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
            assertEquals(header.get(TraceHeader.AGENT_RECORDS), header.get(TraceHeader.REFERENCES), "no record lost");
            assertEquals(header.longValue(TraceHeader.REFERENCES), Traces.read(trace).refs.size());
            assertTrue(header.longValue(TraceHeader.REFERENCES) > 4 * 4000, "a tiny EVMS traps most references");
        }
    }
}
