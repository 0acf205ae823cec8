package io.faultline.capture;

import java.nio.file.Path;

import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ends of record's option ranges work with the other options at their defaults. */
class OptionRangesTest
{
    @TempDir
    Path tmp;

    @Test
    void smallestRingWithTheLargestChunksRecordsACompleteTrace() throws Exception
    {
        final Path trace = tmp.resolve("t");
        final Faultline.Result result = Faultline.run("record", "-q", "--ring-size", "64K", "--chunk-records", "65536",
            "-o", trace.toString(), "--", Workloads.build("churn").toString(), "1");
        assertEquals(0, result.status(), result.describe());
        final TraceHeader header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        assertTrue(header.isComplete(), result.describe());
        assertEquals(65536, header.longValue(TraceHeader.RING_CAPACITY));
        assertTrue(header.longValue(TraceHeader.REFERENCES) > 1000, "references: " + header.get(TraceHeader.REFERENCES));
    }
}
