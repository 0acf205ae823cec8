package io.faultline.sim.mrc;

import io.faultline.sim.PolicySpec;
import io.faultline.sim.Simulator;
import io.faultline.sim.trace.SharedTraces;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.OptionalInt;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MissRatioCurvesTest
{
    private static long[] cloudPhysics;
    private static long[] gzip;
    private static MissRatioCurve cloudExact;
    private static MissRatioCurve gzipExact;

    @BeforeAll
    static void readReferenceTraces() throws IOException
    {
        cloudPhysics = SharedTraces.read("lcs-txt", SharedTraces.cloudPhysicsIO());
        gzip = SharedTraces.read("address", SharedTraces.addressGzip());
        cloudExact = MissRatioCurves.exact(cloudPhysics, OptionalInt.empty());
        gzipExact = MissRatioCurves.exact(gzip, OptionalInt.empty());
    }

    @Test
    void reproducesLibCacheSimLruMissCounts()
    {
        // libCacheSim test/test_simulator.c, test_simulator_no_size.
        final int[] sizes = {128, 256, 384, 512, 640, 768, 896, 1024};
        final long[] expected = {99411, 96397, 95652, 95370, 95182, 94997, 94891, 94816};
        final long[] got = new long[sizes.length];
        for (int i = 0; i < sizes.length; i++)
        {
            got[i] = cloudExact.misses(sizes[i]);
        }
        assertArrayEquals(expected, got);
        assertEquals(113_872, cloudExact.requests());
        assertEquals(48_974, cloudExact.distinct());
        assertEquals(48_974, cloudExact.maxSize());
        assertEquals(48_974, cloudExact.misses(48_974));
    }

    @Test
    void reproducesLibCacheSimProfilerMissRatios()
    {
        // libCacheSim test/test_profilerLRU.c.
        final double[] expected = {0.976421, 0.970607, 0.965681, 0.959024, 0.956934};
        for (int size = 1; size <= 5; size++)
        {
            assertEquals(expected[size - 1], cloudExact.missRatio(size), 0.5e-6, "size " + size);
        }
        assertEquals(1 - 0.072985, cloudExact.missRatio(20), 0.5e-6);
    }

    @Test
    void equalsLruSimulationOnCloudPhysicsAtASpreadOfSizes()
    {
        for (final int size : new int[] {1, 2, 3, 7, 100, 1000, 4096, 10_000, 10_500, 30_000, 48_973, 48_974})
        {
            assertEquals(lruMisses(size, cloudPhysics), cloudExact.misses(size), "size " + size);
        }
    }

    @Test
    void progressCountsEveryReferenceOfTheTrace()
    {
        final long[] trace = new long[150_000];
        for (int i = 0; i < trace.length; i++)
        {
            trace[i] = i % 501;
        }
        final java.util.concurrent.atomic.LongAdder progress = new java.util.concurrent.atomic.LongAdder();
        final MissRatioCurve exact = MissRatioCurves.exact(trace, OptionalInt.empty(), progress);
        assertEquals(trace.length, progress.sum());
        // A cyclic trace of 501 keys: LRU misses every reference below 501 pages, only cold ones at 501.
        assertEquals(trace.length, exact.misses(500));
        assertEquals(501, exact.misses(501));
        MissRatioCurves.shards(trace, 0.5, OptionalInt.empty(), progress);
        assertEquals(2L * trace.length, progress.sum());
    }

    @Test
    void equalsLruSimulationOnTheGzipAddressTrace()
    {
        assertEquals(39_856, gzipExact.distinct());
        for (final int size : new int[] {1, 2, 4, 16, 64, 256, 1024, 8192, 39_855, 39_856})
        {
            assertEquals(lruMisses(size, gzip), gzipExact.misses(size), "size " + size);
        }
    }

    @Test
    void equalsLruSimulationAtEverySizeOnRandomTraces()
    {
        for (int seed = 1; seed <= 5; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final int keys = 50 + 150 * seed;
            final long[] trace = new long[20_000];
            for (int i = 0; i < trace.length; i++)
            {
                // A hot set and a cold tail, so the curve has shape.
                trace[i] = random.nextInt(4) == 0 ? random.nextInt(keys) : random.nextInt(keys / 10);
            }
            final MissRatioCurve curve = MissRatioCurves.exact(trace, OptionalInt.of(keys + 5));
            assertEquals(java.util.Arrays.stream(trace).distinct().count(), curve.maxSize(), "ends where every key fits");
            for (int size = 1; size <= keys + 5; size++)
            {
                assertEquals(lruMisses(size, trace), curve.misses(Math.min(size, curve.maxSize())),
                    "seed " + seed + " size " + size);
            }
        }
    }

    @Test
    void maxSizeCutsOrExtendsTheCurve()
    {
        final long[] trace = {1, 2, 1, 3, 1, 2};
        assertArrayEquals(new long[] {6, 4, 3}, MissRatioCurves.exact(trace, OptionalInt.empty()).misses());
        assertArrayEquals(new long[] {6}, MissRatioCurves.exact(trace, OptionalInt.of(1)).misses());
        // sizes beyond the 3 distinct keys add nothing: the curve stops there
        assertArrayEquals(new long[] {6, 4, 3}, MissRatioCurves.exact(trace, OptionalInt.of(5)).misses());
    }

    @Test
    void shardsAtRateOneIsExact()
    {
        assertArrayEquals(cloudExact.misses(),
            MissRatioCurves.shards(cloudPhysics, 1.0, OptionalInt.of(cloudExact.maxSize())).misses());
    }

    @Test
    void shardsStaysWithinTheStatedErrorAtRateOneTenth()
    {
        final double cloud = meanAbsoluteError(cloudExact, MissRatioCurves.shards(cloudPhysics, 0.1,
            OptionalInt.of(cloudExact.maxSize())));
        final double address = meanAbsoluteError(gzipExact, MissRatioCurves.shards(gzip, 0.1,
            OptionalInt.of(gzipExact.maxSize())));
        // The figures stated in MissRatioCurves' Javadoc and the README: 0.0148 and 0.0020.
        assertEquals(0.0148, cloud, 0.0005);
        assertEquals(0.0020, address, 0.0005);
        assertTrue(cloud < MissRatioCurves.SHARDS_ERROR_BOUND_AT_TENTH, "cloudPhysicsIO MAE " + cloud);
        assertTrue(address < MissRatioCurves.SHARDS_ERROR_BOUND_AT_TENTH, "gzip MAE " + address);
    }

    @Test
    void shardsEstimatesTheDistinctKeys()
    {
        final MissRatioCurve sampled = MissRatioCurves.shards(cloudPhysics, 0.1, OptionalInt.empty());
        assertEquals(48_974, sampled.distinct(), 48_974 * 0.05);
        assertEquals(sampled.distinct(), sampled.maxSize());
    }

    private static double meanAbsoluteError(final MissRatioCurve exact, final MissRatioCurve estimate)
    {
        double sum = 0;
        for (int size = 1; size <= exact.maxSize(); size++)
        {
            sum += Math.abs(exact.missRatio(size) - estimate.missRatio(Math.min(size, estimate.maxSize())));
        }
        return sum / exact.maxSize();
    }

    private static long lruMisses(final int size, final long[] trace)
    {
        return Simulator.run(PolicySpec.parse("lru"), size, trace).misses();
    }
}
