package io.faultline.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Properties every policy must have, checked on many random traces. */
class PolicyPropertiesTest
{
    /** Every registered policy, with non-default parameters for those that take them. */
    static List<PolicySpec> everyPolicy()
    {
        final List<PolicySpec> specs = new ArrayList<>();
        for (final String name : Policies.names())
        {
            specs.add(PolicySpec.parse(name));
        }
        for (final String text : new String[] {"segq:trail=fifo", "segq:trail=clock:lead=0.3", "2q:kin=0.5:kout=1",
            "lirs:hir=0.3:stack=0", "lirs:hir=0.25:stack=1", "s3fifo:small=0.25:ghost=0.5", "s3fifo:ghost=0"})
        {
            specs.add(PolicySpec.parse(text));
        }
        return specs;
    }

    static long[] randomTrace(final SplittableRandom random, final int length, final int keys)
    {
        final long[] trace = new long[length];
        for (int i = 0; i < length; i++)
        {
            trace[i] = random.nextInt(keys);
        }
        return trace;
    }

    /** A trace with some locality: mostly a small hot set, sometimes a wide range. */
    static long[] skewedTrace(final SplittableRandom random, final int length, final int keys)
    {
        final long[] trace = new long[length];
        for (int i = 0; i < length; i++)
        {
            trace[i] = random.nextInt(4) == 0 ? random.nextInt(keys) : random.nextInt(Math.max(1, keys / 8));
        }
        return trace;
    }

    @Test
    void noPolicyBeatsOpt()
    {
        final SplittableRandom random = new SplittableRandom(42);
        for (int round = 0; round < 400; round++)
        {
            final int keys = 2 + random.nextInt(40);
            final long[] trace = round % 2 == 0 ? randomTrace(random, 1 + random.nextInt(300), keys) :
                skewedTrace(random, 1 + random.nextInt(300), keys);
            final int capacity = 1 + random.nextInt(keys);
            final long opt = Simulator.run(PolicySpec.parse("opt"), capacity, trace).misses();
            for (final PolicySpec spec : everyPolicy())
            {
                final long misses = Simulator.run(spec, capacity, trace).misses();
                assertTrue(misses >= opt, spec + " at capacity " + capacity + " missed " + misses + " < OPT " + opt);
            }
        }
    }

    @Test
    void onlyColdMissesWhenEveryKeyFits()
    {
        final SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 200; round++)
        {
            final int keys = 1 + random.nextInt(30);
            final long[] trace = randomTrace(random, 1 + random.nextInt(500), keys);
            final long distinct = java.util.Arrays.stream(trace).distinct().count();
            final int capacity = keys + random.nextInt(3);
            for (final PolicySpec spec : everyPolicy())
            {
                assertEquals(distinct, Simulator.run(spec, capacity, trace).misses(), spec + " at capacity " + capacity);
            }
        }
    }

    @Test
    void invariantsHoldOnLongSkewedTraces()
    {
        // Simulator.run calls finished(), which throws if a policy's invariants are broken.
        final SplittableRandom random = new SplittableRandom(3);
        for (final int capacity : new int[] {1, 2, 3, 5, 10, 64})
        {
            final long[] trace = skewedTrace(random, 20_000, capacity * 6);
            for (final PolicySpec spec : everyPolicy())
            {
                final SimulationResult result = Simulator.run(spec, capacity, trace);
                assertEquals(20_000, result.requests());
                assertTrue(result.misses() >= Math.min(capacity, 1), spec.label());
            }
        }
    }

    @Test
    void missesAtCapacityOneAreTheKeyChanges()
    {
        // With one frame every demand-paging policy holds exactly the last key referenced.
        final SplittableRandom random = new SplittableRandom(11);
        final long[] trace = randomTrace(random, 2_000, 3);
        long changes = 0;
        for (int i = 0; i < trace.length; i++)
        {
            if (i == 0 || trace[i] != trace[i - 1])
            {
                changes++;
            }
        }
        for (final PolicySpec spec : everyPolicy())
        {
            assertEquals(changes, Simulator.run(spec, 1, trace).misses(), spec.label());
        }
    }
}
