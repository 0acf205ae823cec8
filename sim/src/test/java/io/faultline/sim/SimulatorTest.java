package io.faultline.sim;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatorTest
{
    @Test
    void runCountsRequestsAndMisses()
    {
        final SimulationResult result = Simulator.run(PolicySpec.parse("LRU"), 2, new long[] {1, 2, 1, 3, 2, 1});
        assertEquals(new SimulationResult("LRU", 2, 6, 5), result);
        assertEquals(5.0 / 6, result.missRatio());
        assertEquals(1, result.hits());
        assertEquals(0.0, Simulator.run(PolicySpec.parse("lru"), 2, new long[0]).missRatio());
    }

    @Test
    void progressCountsEveryReplayedReferenceOfEveryPair()
    {
        // 200,000 references: more than one progress block (65,536) and not a multiple of it.
        final long[] trace = new long[200_000];
        for (int i = 0; i < trace.length; i++)
        {
            trace[i] = i % 977;
        }
        final java.util.concurrent.atomic.LongAdder progress = new java.util.concurrent.atomic.LongAdder();
        final List<SimulationResult> results = Simulator.sweep(List.of(PolicySpec.parse("lru"), PolicySpec.parse("fifo")),
            new int[] {10, 1000}, trace, 2, progress);
        assertEquals(4L * trace.length, progress.sum());
        // The blocks change no result: LRU of 1000 holds all 977 keys, so only the cold misses.
        assertEquals(new SimulationResult("lru", 1000, trace.length, 977), results.get(1));
        assertEquals(Simulator.run(PolicySpec.parse("fifo"), 10, trace), results.get(2));
    }

    @Test
    void sweepOnManyThreadsEqualsSequentialRunsInInputOrder() throws Exception
    {
        final long[] trace = ReferenceTraces.cloudPhysicsIO();
        final List<PolicySpec> specs = PolicyPropertiesTest.everyPolicy();
        final int[] capacities = {1024, 64, 512};

        final Set<String> workers = new HashSet<>();
        final AtomicBoolean done = new AtomicBoolean();
        final CompletableFuture<Void> watcher = CompletableFuture.runAsync(() ->
        {
            while (!done.get())
            {
                for (final Thread thread : Thread.getAllStackTraces().keySet())
                {
                    if (thread.getName().startsWith("faultline-sim-"))
                    {
                        workers.add(thread.getName());
                    }
                }
                Thread.onSpinWait();
            }
        });
        final List<SimulationResult> parallel = Simulator.sweep(specs, capacities, trace, 4);
        done.set(true);
        watcher.get();

        final List<SimulationResult> sequential = new ArrayList<>();
        for (final PolicySpec spec : specs)
        {
            for (final int capacity : capacities)
            {
                sequential.add(Simulator.run(spec, capacity, trace));
            }
        }
        assertEquals(sequential, parallel);
        assertEquals(specs.size() * capacities.length, parallel.size());
        assertEquals("lru", parallel.get(0).policy());
        assertEquals(64, parallel.get(1).capacity());
        assertTrue(workers.size() >= 2, "sweep ran on " + workers);
        assertEquals(parallel, Simulator.sweep(specs, capacities, trace));
    }

    @Test
    void sweepRejectsBadArguments()
    {
        final List<PolicySpec> lru = List.of(PolicySpec.parse("lru"));
        assertEquals("threads must be >= 1: threads=0", assertThrows(IllegalArgumentException.class,
            () -> Simulator.sweep(lru, new int[] {1}, new long[0], 0)).getMessage());
        assertEquals("capacity must be >= 1: capacity=-3", assertThrows(IllegalArgumentException.class,
            () -> Simulator.sweep(lru, new int[] {4, -3}, new long[0], 2)).getMessage());
        assertEquals(List.of(), Simulator.sweep(List.of(), new int[] {4}, new long[0], 2));
    }

    @Test
    void sweepPropagatesPolicyFailures()
    {
        // OPT must be fed the trace it was built with; a sweep hands every task the same array.
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () ->
        {
            final io.faultline.sim.Policy opt = Policies.create(PolicySpec.parse("opt"), 2, new long[] {1, 2});
            opt.record(2);
        });
        assertEquals("opt: reference 0 is key 2 but the trace given to the constructor has key 1", ex.getMessage());
    }
}
