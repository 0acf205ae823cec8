package io.faultline.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * A sweep fed one reference at a time while its trace is still being made ({@code record
 * --live}): one policy instance per (policy, capacity) pair, each the same model that
 * {@link Simulator#run} replays, all updated by every reference. Its {@link #results} equal
 * {@link Simulator#sweep} over the same keys, the shortcut included: a capacity of at least the
 * distinct keys reports one miss per key (SweepPlan), as a sweep does without replaying it.
 * <p>
 * {@code opt} is refused: it needs every future reference before the first. Every pair is built
 * at once (no capacity is known to hold every key of a trace not made yet), so the limit check
 * sizes them all against the heap before any is allocated. Single-threaded.
 */
public final class LiveSweep
{
    private final List<PolicySpec> specs;
    private final int[] capacities;
    /** Policy-major: all capacities of specs[0], then of specs[1], ... */
    private final Policy[] policies;
    private final long[] misses;
    private long requests;

    /**
     * @throws IllegalArgumentException for an unknown policy or parameter, a capacity below 1, or {@code opt}
     * @throws LimitException           for pairs whose tables, or all of them together, do not fit
     */
    public LiveSweep(final List<PolicySpec> specs, final int[] capacities)
    {
        for (final int capacity : capacities)
        {
            Policies.checkCapacity(capacity);
        }
        for (final PolicySpec spec : specs)
        {
            Policies.validate(spec);
            if (spec.name().equals("opt"))
            {
                throw new IllegalArgumentException("opt needs every future reference before the first, which a live "
                    + "replay does not have; drop opt from --policies and run faultline simulate --policies opt on "
                    + "the trace (-o)");
            }
        }
        SweepPlan.of(specs, capacities, 0, SweepPlan.UNKNOWN, Math.max(1, specs.size() * capacities.length), null);
        this.specs = List.copyOf(specs);
        this.capacities = capacities.clone();
        this.policies = new Policy[specs.size() * capacities.length];
        this.misses = new long[policies.length];
        final long[] noTrace = new long[0];
        int i = 0;
        for (final PolicySpec spec : specs)
        {
            for (final int capacity : capacities)
            {
                policies[i++] = Policies.create(spec, capacity, noTrace);
            }
        }
    }

    /** Replays one reference through every pair. */
    public void record(final long key)
    {
        requests++;
        for (int i = 0; i < policies.length; i++)
        {
            if (!policies[i].record(key))
            {
                misses[i]++;
            }
        }
    }

    /** The pairs replayed: every reference costs this many policy updates. */
    public int pairs()
    {
        return policies.length;
    }

    /** Misses so far of pair {@code i}, policy-major as {@link #results}. */
    public long misses(final int i)
    {
        return misses[i];
    }

    /**
     * The results so far, policy-major in input order as {@link Simulator#sweep} gives them.
     *
     * @param distinct the distinct keys recorded so far: a capacity of at least that many reports
     *                 one miss per key, as a sweep does
     */
    public List<SimulationResult> results(final long distinct)
    {
        final List<SimulationResult> results = new ArrayList<>(policies.length);
        int i = 0;
        for (final PolicySpec spec : specs)
        {
            for (final int capacity : capacities)
            {
                results.add(new SimulationResult(spec.label(), capacity, requests,
                    capacity >= distinct ? distinct : misses[i]));
                i++;
            }
        }
        return results;
    }

    /** After the last reference: every policy checks its invariants, as a sweep's runs do. */
    public void finished()
    {
        for (final Policy policy : policies)
        {
            policy.finished();
        }
    }
}
