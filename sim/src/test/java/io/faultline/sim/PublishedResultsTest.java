package io.faultline.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Results that libCacheSim publishes for its bundled cloudPhysicsIO trace (see sim/src/test/resources/traces/README.md). */
class PublishedResultsTest
{
    @Test
    void traceHas113872Requests()
    {
        // The file's last line has no trailing newline: wc -l says 113,871, there are 113,872 ids.
        assertEquals(113_872, ReferenceTraces.cloudPhysicsIO().length);
    }

    @Test
    void lruMatchesLibCacheSimTestSimulatorNoSize()
    {
        // libCacheSim test/test_simulator.c, test_simulator_no_size: LRU, every object of size 1.
        final int[] capacities = {128, 256, 384, 512, 640, 768, 896, 1024};
        final long[] expected = {99411, 96397, 95652, 95370, 95182, 94997, 94891, 94816};
        final long[] trace = ReferenceTraces.cloudPhysicsIO();
        final long[] actual = new long[capacities.length];
        for (int i = 0; i < capacities.length; i++)
        {
            final SimulationResult result = Simulator.run(PolicySpec.parse("lru"), capacities[i], trace);
            assertEquals(113_872, result.requests());
            actual[i] = result.misses();
        }
        assertArrayEquals(expected, actual);
    }

    @Test
    void lruMatchesLibCacheSimProfilerMissRatios()
    {
        // libCacheSim test/test_profilerLRU.c: miss ratios at capacities 1..5 and 20, to 6 decimals.
        final long[] trace = ReferenceTraces.cloudPhysicsIO();
        final int[] capacities = {1, 2, 3, 4, 5, 20};
        final double[] expected = {0.976421, 0.970607, 0.965681, 0.959024, 0.956934, 1 - 0.072985};
        for (int i = 0; i < capacities.length; i++)
        {
            final double ratio = Simulator.run(PolicySpec.parse("lru"), capacities[i], trace).missRatio();
            assertEquals(expected[i], ratio, 0.5e-6, "capacity " + capacities[i]);
        }
    }
}
