package io.faultline.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.faultline.sim.policy.KeyTable;
import io.faultline.sim.report.Written;

/**
 * Which (policy, capacity) pairs of a sweep must be replayed, and whether they fit, decided
 * before any policy is built.
 * <p>
 * A capacity of at least the trace's distinct keys needs no replay: every policy then misses
 * exactly once per key, on its first reference (PolicyPropertiesTest checks it for each), so
 * any size up to {@code Integer.MAX_VALUE} gives its result without allocating a slot. The
 * others must fit the policies' tables ({@link KeyTable#MAX_KEYS}) and, the largest
 * {@code threads} of them at once, the heap.
 */
final class SweepPlan
{
    /**
     * Heap left to the rest of the JVM (the trace's other copies, reports, the pool's threads):
     * an eighth of the heap, at most 64 MiB.
     */
    static final long RESERVE_BYTES = Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 8);

    /**
     * The distinct keys of a trace not read yet (a live replay): no capacity is known to hold
     * them all, so every pair is sized.
     */
    static final long UNKNOWN = Long.MAX_VALUE;

    private final long distinct;

    private SweepPlan(final long distinct)
    {
        this.distinct = distinct;
    }

    /** The distinct keys of the trace. */
    long distinct()
    {
        return distinct;
    }

    /** Whether {@code capacity} holds every key of the trace, so that only first references miss. */
    boolean everyKeyFits(final int capacity)
    {
        return capacity >= distinct;
    }

    /**
     * @param freeHeap bytes the heap can still give (null: ask the JVM, collecting garbage first
     *                 if the plan would not fit otherwise)
     * @throws LimitException naming the pair that does not fit and the fix
     */
    static SweepPlan of(final List<PolicySpec> specs, final int[] capacities, final long[] trace, final int threads,
        final Long freeHeap)
    {
        return of(specs, capacities, trace.length, distinctKeys(trace), threads, freeHeap);
    }

    /** {@link #of(List, int[], long[], int, Long)} for a trace of {@code length} references to {@code distinct} keys. */
    static SweepPlan of(final List<PolicySpec> specs, final int[] capacities, final long length, final long distinct,
        final int threads, final Long freeHeap)
    {
        final SweepPlan plan = new SweepPlan(distinct);
        final List<Long> bytes = new ArrayList<>();
        String largest = null;
        long largestBytes = -1;
        for (final PolicySpec spec : specs)
        {
            for (final int capacity : capacities)
            {
                if (plan.everyKeyFits(capacity))
                {
                    continue;
                }
                final Footprint footprint = Policies.footprint(spec, capacity, length, plan.distinct);
                if (!footprint.fits())
                {
                    throw new LimitException(String.format(Locale.ROOT, "%s at %,d pages needs tables of %,d keys, "
                        + "beyond the %,d they hold (a Java array's largest power of two, half full); give sizes "
                        + "below %,d", spec.label(), capacity, footprint.slots(), KeyTable.MAX_KEYS,
                        largestFitting(spec, length, plan.distinct)) + (distinct == UNKNOWN ? ""
                        : String.format(Locale.ROOT, ", or of at least the trace's %,d distinct pages, where no "
                        + "policy evicts", plan.distinct)));
                }
                bytes.add(footprint.bytes());
                if (footprint.bytes() > largestBytes)
                {
                    largestBytes = footprint.bytes();
                    largest = spec.label() + " at " + String.format(Locale.ROOT, "%,d", capacity) + " pages";
                }
            }
        }
        if (bytes.isEmpty())
        {
            return plan;
        }
        // The pool runs any `threads` of the pairs at once: the worst case is the largest ones.
        final long[] sorted = bytes.stream().mapToLong(Long::longValue).sorted().toArray();
        final int atOnce = Math.min(threads, sorted.length);
        long need = 0;
        for (int i = sorted.length - atOnce; i < sorted.length; i++)
        {
            need += sorted[i];
        }
        final long free = freeHeap != null ? freeHeap : freeHeap(need + RESERVE_BYTES);
        if (need + RESERVE_BYTES > free)
        {
            throw new LimitException(String.format(Locale.ROOT, "%s needs %s of heap%s, and %s of the JVM's %s are "
                    + "free; give smaller sizes%s, or more heap (FAULTLINE_JAVA_OPTS=-Xmx%dg)",
                largest, gib(largestBytes), atOnce > 1 ? ", " + atOnce + " runs at once " + gib(need) : "",
                gib(Math.max(0, free - RESERVE_BYTES)), gib(Runtime.getRuntime().maxMemory()),
                atOnce > 1 ? ", fewer at once (--threads 1)" : "",
                Math.max(1, (Runtime.getRuntime().maxMemory() + need - free + RESERVE_BYTES + (1L << 30) - 1) >> 30)));
        }
        return plan;
    }

    /** The largest capacity of {@code spec} whose tables fit, by bisection (footprints grow with capacity). */
    static int largestFitting(final PolicySpec spec, final long traceLength, final long distinct)
    {
        int low = 1;
        int high = Integer.MAX_VALUE;
        while (low < high)
        {
            final int mid = (int)(((long)low + high + 1) >>> 1);
            if (Policies.footprint(spec, mid, traceLength, distinct).fits())
            {
                low = mid;
            }
            else
            {
                high = mid - 1;
            }
        }
        return low;
    }

    /** Bytes the heap can still give; collects garbage first only when {@code wanted} would not fit without. */
    private static long freeHeap(final long wanted)
    {
        final Runtime runtime = Runtime.getRuntime();
        long free = runtime.maxMemory() - (runtime.totalMemory() - runtime.freeMemory());
        if (free < wanted)
        {
            // what reading the trace left behind counts as used until collected
            System.gc();
            free = runtime.maxMemory() - (runtime.totalMemory() - runtime.freeMemory());
        }
        return free;
    }

    static long distinctKeys(final long[] trace)
    {
        if (trace.length == 0)
        {
            return 0;
        }
        final KeyTable seen = new KeyTable(1 << 10);
        try
        {
            for (final long key : trace)
            {
                if (seen.get(key) == KeyTable.MISSING)
                {
                    seen.put(key, 0);
                }
            }
            return seen.size();
        }
        catch (final IllegalStateException tooMany)
        {
            // beyond a table's keys: count on a sorted copy instead
        }
        final long[] sorted = trace.clone();
        Arrays.parallelSort(sorted);
        long distinct = 1;
        for (int i = 1; i < sorted.length; i++)
        {
            if (sorted[i] != sorted[i - 1])
            {
                distinct++;
            }
        }
        return distinct;
    }

    /** Bytes for people: a table of 20 MiB read as "0.0 GiB" in GiB alone. */
    private static String gib(final long bytes)
    {
        return Written.humanBytes(bytes);
    }
}
