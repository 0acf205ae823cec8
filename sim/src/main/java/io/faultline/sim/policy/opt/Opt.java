package io.faultline.sim.policy.opt;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.IndexedHeap;
import io.faultline.sim.policy.KeyTable;

/**
 * Belady's MIN (OPT): on a miss with a full cache, evict the resident page whose next
 * reference lies farthest in the future; a page never referenced again is infinitely far.
 * Belady, "A study of replacement algorithms for a virtual-storage computer", IBM Systems
 * Journal 5(2), 1966; optimality of MIN for demand paging: Mattson et al., 1970.
 * <p>
 * A backward pre-pass over the trace computes each reference's next-use position with a map
 * of last positions; residents sit in a heap keyed by next use, so each reference costs
 * O(log capacity). Ties (several pages never used again) are broken arbitrarily: any choice
 * among them is optimal. The policy must be fed exactly the trace it was built with.
 */
public final class Opt implements Policy
{
    private static final int NEVER = Integer.MAX_VALUE;

    private final int capacity;
    private final long[] trace;
    private final int[] nextUse;
    private final long[] keys;
    private final KeyTable index;
    /** Residents by negated next use: the top is the page needed farthest in the future. */
    private final IndexedHeap byNextUse;
    private int size;
    private int cursor;

    public Opt(final int capacity, final long[] trace)
    {
        this.capacity = capacity;
        this.trace = trace;
        nextUse = new int[trace.length];
        final KeyTable lastPosition = new KeyTable(Math.min(trace.length, 1 << 16));
        for (int i = trace.length - 1; i >= 0; i--)
        {
            final int later = lastPosition.get(trace[i]);
            nextUse[i] = later == KeyTable.MISSING ? NEVER : later;
            lastPosition.put(trace[i], i);
        }
        keys = new long[capacity];
        index = new KeyTable(capacity);
        byNextUse = new IndexedHeap(capacity);
    }

    @Override
    public boolean record(final long key)
    {
        if (cursor >= trace.length || trace[cursor] != key)
        {
            throw new IllegalStateException("opt: reference " + cursor + " is key " + key + " but the trace given to " +
                "the constructor has " + (cursor < trace.length ? "key " + trace[cursor] : "ended"));
        }
        final long farness = -(long)nextUse[cursor++];
        final int slot = index.get(key);
        if (slot != KeyTable.MISSING)
        {
            byNextUse.update(slot, farness);
            return true;
        }
        if (size < capacity)
        {
            keys[size] = key;
            index.put(key, size);
            byNextUse.add(size, farness);
            size++;
            return false;
        }
        final int victim = byNextUse.peek();
        index.remove(keys[victim]);
        keys[victim] = key;
        index.put(key, victim);
        byNextUse.update(victim, farness);
        return false;
    }

    @Override
    public void finished()
    {
        byNextUse.check("opt");
        if (index.size() != size || byNextUse.size() != size || size > capacity)
        {
            throw new IllegalStateException("opt: indexed=" + index.size() + " heap=" + byNextUse.size() +
                " size=" + size + " capacity=" + capacity);
        }
    }
}
