package io.faultline.sim.mrc;

import java.io.IOException;
import java.util.OptionalInt;

import io.faultline.sim.trace.SharedTraces;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ReuseHistogramsTest
{
    /**
     * a b c a b b d a: the second a has b and c between (distance 2, time 3), the second b c and
     * a (2, 3), the third b nothing (0, 1), the third a b and d (2, 4); a, b, c, d are first.
     */
    @Test
    void countsEachReferenceOfAHandBuiltTrace()
    {
        final long a = 10;
        final long b = 20;
        final long c = 30;
        final long d = 40;
        final ReuseHistograms h = ReuseHistograms.of(new long[] {a, b, c, a, b, b, d, a});
        assertEquals(8, h.references());
        assertEquals(4, h.firstReferences());
        assertArrayEquals(new long[] {ReuseHistograms.FIRST, 0, 2}, h.distances().values());
        assertEquals(4, h.distances().count(ReuseHistograms.FIRST));
        assertEquals(1, h.distances().count(0));
        assertEquals(3, h.distances().count(2));
        assertEquals(0, h.distances().count(1));
        assertArrayEquals(new long[] {ReuseHistograms.FIRST, 1, 3, 4}, h.times().values());
        assertEquals(4, h.times().count(ReuseHistograms.FIRST));
        assertEquals(1, h.times().count(1));
        assertEquals(2, h.times().count(3));
        assertEquals(1, h.times().count(4));
        assertEquals(8, h.distances().total());
        assertEquals(8, h.times().total());
        // Powers of two: distances 0 | 2 2 2 in buckets 0 and 2-3; times 1 | 3 3 | 4 in 1, 2-3, 4-7.
        assertArrayEquals(new long[] {1, 0, 3}, h.distances().buckets());
        assertArrayEquals(new long[] {0, 1, 2, 1}, h.times().buckets());
        assertEquals(2, h.distances().median());
        assertEquals(3, h.times().median());
    }

    @Test
    void bucketsArePowersOfTwo()
    {
        assertEquals(0, ReuseHistograms.bucket(0));
        assertEquals(1, ReuseHistograms.bucket(1));
        assertEquals(2, ReuseHistograms.bucket(2));
        assertEquals(2, ReuseHistograms.bucket(3));
        assertEquals(3, ReuseHistograms.bucket(4));
        assertEquals(63, ReuseHistograms.bucket(Long.MAX_VALUE));
        assertEquals(0, ReuseHistograms.bucketTo(0));
        assertEquals(1, ReuseHistograms.bucketFrom(1));
        assertEquals(1, ReuseHistograms.bucketTo(1));
        assertEquals(8, ReuseHistograms.bucketFrom(4));
        assertEquals(15, ReuseHistograms.bucketTo(4));
        assertEquals(Long.MAX_VALUE, ReuseHistograms.bucketTo(63));
        assertArrayEquals(new long[0], ReuseHistograms.of(new long[] {7, 8}).distances().buckets());
        assertEquals(ReuseHistograms.FIRST, ReuseHistograms.of(new long[] {7, 8}).times().median());
    }

    /** An LRU cache of c pages hits exactly the references whose reuse distance is below c. */
    @Test
    void reuseDistancesGiveTheExactLruCurve() throws IOException
    {
        final long[] trace = SharedTraces.read("lcs-txt", SharedTraces.cloudPhysicsIO());
        final MissRatioCurve curve = MissRatioCurves.exact(trace, OptionalInt.empty());
        final ReuseHistograms h = ReuseHistograms.of(trace);
        assertEquals(curve.distinct(), h.firstReferences());
        long hits = 0;
        for (int size = 1; size <= curve.maxSize(); size++)
        {
            hits += h.distances().count(size - 1);
            assertEquals(curve.misses(size), trace.length - hits, "size " + size);
        }
    }
}
