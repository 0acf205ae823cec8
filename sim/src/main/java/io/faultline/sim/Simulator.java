package io.faultline.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.faultline.format.Tasks;

/**
 * Replays a key sequence through policies. Each (policy, capacity) pair is independent, so a
 * sweep runs them in parallel: each task owns its policy instance and only reads the shared
 * trace array.
 */
public final class Simulator
{
    private Simulator()
    {
    }

    /** References between two updates of a progress count: rare enough to cost nothing. */
    private static final int PROGRESS_BLOCK = 1 << 16;

    /** Replays {@code trace} through a fresh {@code spec} policy of {@code capacity} objects. */
    public static SimulationResult run(final PolicySpec spec, final int capacity, final long[] trace)
    {
        return run(spec, capacity, trace, new LongAdder());
    }

    /** {@link #run(PolicySpec, int, long[])}, adding to {@code progress} the references replayed as it goes. */
    public static SimulationResult run(final PolicySpec spec, final int capacity, final long[] trace,
        final LongAdder progress)
    {
        final Policy policy = Policies.create(spec, capacity, trace);
        long misses = 0;
        for (int from = 0; from < trace.length; from += PROGRESS_BLOCK)
        {
            final int to = Math.min(trace.length, from + PROGRESS_BLOCK);
            for (int i = from; i < to; i++)
            {
                if (!policy.record(trace[i]))
                {
                    misses++;
                }
            }
            progress.add(to - from);
        }
        policy.finished();
        return new SimulationResult(spec.label(), capacity, trace.length, misses);
    }

    /** The result at a capacity that holds every key: one miss per distinct key, its first reference. */
    private static SimulationResult everyKeyFits(final PolicySpec spec, final int capacity, final long[] trace,
        final long distinct, final LongAdder progress)
    {
        progress.add(trace.length);
        return new SimulationResult(spec.label(), capacity, trace.length, distinct);
    }

    /** {@link #sweep(List, int[], long[], int)} on every core. */
    public static List<SimulationResult> sweep(final List<PolicySpec> specs, final int[] capacities, final long[] trace)
    {
        return sweep(specs, capacities, trace, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Runs every (policy, capacity) pair on a fixed pool of {@code threads} threads.
     *
     * @return one result per pair, policy-major in input order: all capacities of
     *         {@code specs[0]} in the order given, then those of {@code specs[1]}, ...
     */
    public static List<SimulationResult> sweep(
        final List<PolicySpec> specs, final int[] capacities, final long[] trace, final int threads)
    {
        return sweep(specs, capacities, trace, threads, new LongAdder());
    }

    /**
     * {@link #sweep(List, int[], long[], int)}, adding to {@code progress} the references
     * replayed by all pairs as they go (at the end: pairs times trace length).
     */
    public static List<SimulationResult> sweep(final List<PolicySpec> specs, final int[] capacities,
        final long[] trace, final int threads, final LongAdder progress)
    {
        return sweep(specs, capacities, trace, threads, progress, null);
    }

    /**
     * @param freeHeap the heap the sweep may take, or null for what the JVM has free
     * @throws LimitException before any replay, for a pair whose policy's tables cannot hold its
     *                        capacity, or pairs the heap cannot hold {@code threads} at once
     */
    static List<SimulationResult> sweep(final List<PolicySpec> specs, final int[] capacities,
        final long[] trace, final int threads, final LongAdder progress, final Long freeHeap)
    {
        if (threads < 1)
        {
            throw new IllegalArgumentException("threads must be >= 1: threads=" + threads);
        }
        for (final int capacity : capacities)
        {
            Policies.checkCapacity(capacity);
        }
        for (final PolicySpec spec : specs)
        {
            Policies.validate(spec);
        }
        final SweepPlan plan = SweepPlan.of(specs, capacities, trace, threads, freeHeap);
        final int tasks = specs.size() * capacities.length;
        final List<SimulationResult> results = new ArrayList<>(tasks);
        if (tasks == 0)
        {
            return results;
        }

        final AtomicInteger threadIds = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, tasks), (runnable) ->
        {
            final Thread thread = new Thread(runnable, "faultline-sim-" + threadIds.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        try
        {
            final List<Future<SimulationResult>> futures = new ArrayList<>(tasks);
            for (final PolicySpec spec : specs)
            {
                for (final int capacity : capacities)
                {
                    futures.add(pool.submit(() -> plan.everyKeyFits(capacity)
                        ? everyKeyFits(spec, capacity, trace, plan.distinct(), progress)
                        : run(spec, capacity, trace, progress)));
                }
            }
            for (final Future<SimulationResult> future : futures)
            {
                results.add(future.get());
            }
            return results;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("simulation sweep interrupted", ex);
        }
        catch (final ExecutionException ex)
        {
            throw Tasks.unchecked(ex);
        }
        finally
        {
            pool.shutdownNow();
        }
    }
}
