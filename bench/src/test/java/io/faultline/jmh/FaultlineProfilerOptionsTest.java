package io.faultline.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.BenchmarkResultMetaData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The profiler's warmup option without running a benchmark (FaultlineProfilerTest runs one). */
class FaultlineProfilerOptionsTest
{
    /** 300 references counted over 20 warmup and 100 measurement operations. */
    @Test
    void refsPerOpIsPerOperationOfTheCountedIterations()
    {
        final BenchmarkResultMetaData metadata = new BenchmarkResultMetaData(0, 1, 2, 20, 100);
        assertEquals(3.0, FaultlineProfiler.refsPerOp(300, metadata, false));
        assertEquals(2.5, FaultlineProfiler.refsPerOp(300, metadata, true));
        assertTrue(Double.isNaN(FaultlineProfiler.refsPerOp(300, new BenchmarkResultMetaData(0, 1, 2, 20, 0), false)));
    }

    @Test
    void warmupTakesTrueOrFalse() throws ProfilerException
    {
        new FaultlineProfiler("warmup=true");
        new FaultlineProfiler("warmup=false;evms=512");
        final ProfilerException bad = assertThrows(ProfilerException.class, () -> new FaultlineProfiler("warmup=yes"));
        assertEquals("faultline profiler: warmup takes true or false, not 'yes'", bad.getMessage());
    }
}
