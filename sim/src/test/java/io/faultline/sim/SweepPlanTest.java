package io.faultline.sim;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.SplittableRandom;

import io.faultline.sim.policy.KeyTable;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The limits a sweep checks before it builds a policy: the tables' and the heap's. */
class SweepPlanTest
{
    private static final List<PolicySpec> ARC = List.of(PolicySpec.parse("arc"));

    @Test
    void theLargestAcceptedSizeWorksForEveryPolicyWithoutAllocatingIt()
    {
        final long[] trace = PolicyPropertiesTest.randomTrace(new SplittableRandom(5), 500, 66);
        final long distinct = java.util.Arrays.stream(trace).distinct().count();
        final List<SimulationResult> results = Simulator.sweep(PolicyPropertiesTest.everyPolicy(),
            new int[] {Integer.MAX_VALUE - 8, (int)distinct}, trace, 2);
        for (final SimulationResult result : results)
        {
            assertEquals(distinct, result.misses(), result.toString());
            assertEquals(500, result.requests());
        }
    }

    @Test
    void tablesRefuseTheFirstCapacityBeyondThemAndNoSmaller()
    {
        // ARC keeps a ghost list as long as its cache: 2c + 1 keys in one table.
        final int largest = (KeyTable.MAX_KEYS - 1) / 2;
        assertEquals(largest, SweepPlan.largestFitting(ARC.get(0), 1L << 31, 1L << 31));
        final long distinct = 1L << 31;
        SweepPlan.of(ARC, new int[] {largest}, distinct, distinct, 1, Long.MAX_VALUE);
        final LimitException ex = assertThrows(LimitException.class,
            () -> SweepPlan.of(ARC, new int[] {largest + 1}, distinct, distinct, 1, Long.MAX_VALUE));
        assertEquals("arc at 268,435,456 pages needs tables of 536,870,913 keys, beyond the 536,870,912 they hold "
            + "(a Java array's largest power of two, half full); give sizes below 268,435,455, or of at least the "
            + "trace's 2,147,483,648 distinct pages, where no policy evicts", ex.getMessage());
        // every size the validator accepts passes when the trace has fewer distinct pages
        SweepPlan.of(PolicyPropertiesTest.everyPolicy(), new int[] {Integer.MAX_VALUE - 8}, 1 << 20, 66, 2, 0L);
    }

    @Test
    void theHeapRefusesTheRunsThatGoAtOnceByOneByte()
    {
        final int capacity = 1 << 20;
        final long one = Policies.footprint(ARC.get(0), capacity, 1 << 24, 1 << 22).bytes();
        final int[] two = {capacity, capacity};
        SweepPlan.of(ARC, two, 1 << 24, 1 << 22, 2, 2 * one + SweepPlan.RESERVE_BYTES);
        final LimitException ex = assertThrows(LimitException.class,
            () -> SweepPlan.of(ARC, two, 1 << 24, 1 << 22, 2, 2 * one + SweepPlan.RESERVE_BYTES - 1));
        assertTrue(ex.getMessage().startsWith("arc at 1,048,576 pages needs 138.0 MiB of heap, 2 runs at once 276.0 MiB, "
            + "and 276.0 MiB of the JVM's "), ex.getMessage());
        assertTrue(ex.getMessage().contains("; give smaller sizes, fewer at once (--threads 1), or more heap "
            + "(FAULTLINE_JAVA_OPTS=-Xmx"), ex.getMessage());
        // one at a time fits
        SweepPlan.of(ARC, two, 1 << 24, 1 << 22, 1, one + SweepPlan.RESERVE_BYTES);
    }

    @Test
    void footprintsCoverWhatEachPolicyAllocates()
    {
        // What a policy's constructor allocates, against the footprint computed before it: the
        // estimate may be above (the table's load factor rounds), never far below.
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final int capacity = 100_000;
        final long[] trace = PolicyPropertiesTest.randomTrace(new SplittableRandom(9), 300_000, 200_000);
        final long distinct = SweepPlan.distinctKeys(trace);
        for (final PolicySpec spec : PolicyPropertiesTest.everyPolicy())
        {
            if (spec.name().equals("evms"))
            {
                continue; // objects allocated as pages come, not in its constructor
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            final Policy policy = Policies.create(spec, capacity, trace);
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            if (spec.name().equals("opt"))
            {
                // its growing table's earlier lengths (half the last) are garbage before the last growth
                allocated -= KeyTable.bytes(distinct) / 2;
            }
            final long estimate = Policies.footprint(spec, capacity, trace.length, distinct).bytes();
            assertTrue(estimate >= allocated * 0.95 && estimate <= allocated * 2.2,
                spec.label() + ": allocated " + allocated + ", estimated " + estimate);
            assertFalse(policy == null);
        }
    }
}
