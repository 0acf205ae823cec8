package io.faultline.sim;

import io.faultline.sim.mrc.LruCurve;
import io.faultline.sim.mrc.MissRatioCurve;
import io.faultline.sim.mrc.MissRatioCurves;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The live replay's models against the offline ones over the same keys: the same numbers. */
class LiveSweepTest
{
    /** A hot set, a cold scan and a loop: every policy evicts, differently. */
    private static long[] trace()
    {
        final SplittableRandom random = new SplittableRandom(29);
        final long[] keys = new long[60_000];
        for (int i = 0; i < keys.length; i++)
        {
            final int phase = (i / 5_000) % 3;
            keys[i] = switch (phase)
            {
                case 0 -> random.nextInt(300);
                case 1 -> 1_000 + i % 700;
                default -> random.nextInt(4) == 0 ? 5_000 + random.nextInt(3_000) : random.nextInt(300);
            };
        }
        return keys;
    }

    @Test
    void theLiveSweepGivesTheOfflineSweepsResultsPairForPair()
    {
        final long[] keys = trace();
        final List<PolicySpec> specs = new ArrayList<>();
        for (final String policy : List.of("lru", "clock", "2q", "arc", "lirs", "s3fifo", "sieve", "evms:lead=8"))
        {
            specs.add(PolicySpec.parse(policy));
        }
        // 100,000 holds every key: the sweep's shortcut, which the live sweep must give too
        final int[] capacities = {64, 500, 1_000, 4_000, 100_000};
        final LiveSweep live = new LiveSweep(specs, capacities);
        final LruCurve curve = new LruCurve();
        for (final long key : keys)
        {
            live.record(key);
            curve.record(key);
        }
        live.finished();
        assertEquals(Simulator.sweep(specs, capacities, keys, 1), live.results(curve.distinct()));
        assertEquals(specs.size() * capacities.length, live.pairs());
    }

    @Test
    void theCurveBuiltOneReferenceAtATimeIsTheExactCurveAtEveryPoint()
    {
        final long[] keys = trace();
        final LruCurve curve = new LruCurve();
        for (int i = 0; i < keys.length; i++)
        {
            curve.record(keys[i]);
            if (i == 12_345 || i == keys.length - 1)
            {
                final long[] prefix = java.util.Arrays.copyOf(keys, i + 1);
                final MissRatioCurve offline = MissRatioCurves.exact(prefix, OptionalInt.empty());
                final MissRatioCurve online = curve.curve(OptionalInt.empty());
                assertEquals(offline.requests(), online.requests());
                assertEquals(offline.distinct(), online.distinct());
                assertArrayEquals(offline.misses(), online.misses());
                final int[] sizes = {1, 8, 300, 1_000, offline.maxSize(), offline.maxSize() + 10};
                final long[] expected = new long[sizes.length];
                for (int s = 0; s < sizes.length; s++)
                {
                    expected[s] = offline.misses(Math.min(sizes[s], offline.maxSize()));
                }
                assertArrayEquals(expected, curve.misses(sizes));
            }
        }
    }

    @Test
    void optIsRefusedWithTheOfflineWayOut()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new LiveSweep(List.of(PolicySpec.parse("lru"), PolicySpec.parse("opt")), new int[] {64}));
        assertTrue(refused.getMessage().contains("simulate --policies opt"), refused.getMessage());
    }

    @Test
    void pairsBeyondThePolicyTablesAreRefusedBeforeAnyIsBuilt()
    {
        final LimitException refused = assertThrows(LimitException.class,
            () -> new LiveSweep(List.of(PolicySpec.parse("arc")), new int[] {Integer.MAX_VALUE - 8}));
        assertTrue(refused.getMessage().startsWith("arc at 2,147,483,639 pages needs tables of"), refused.getMessage());
        assertTrue(!refused.getMessage().contains("distinct"), refused.getMessage());
    }
}
