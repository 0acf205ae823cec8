package io.faultline.sim.policy.linked;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.KeyTable;

/**
 * First In, First Out: pages sit in a ring of frames in load order and a miss with a full
 * cache replaces the page loaded longest ago; hits change nothing. Exhibits Belady's anomaly
 * (Belady, Nelson, Shedler, "An anomaly in space-time characteristics of certain programs
 * running in a paging machine", CACM 12(6), 1969).
 */
public final class Fifo implements Policy
{
    private final int capacity;
    private final long[] frames;
    private final KeyTable index;
    private int size;
    private int oldest;

    public Fifo(final int capacity)
    {
        this.capacity = capacity;
        frames = new long[capacity];
        index = new KeyTable(capacity);
    }

    @Override
    public boolean record(final long key)
    {
        if (index.get(key) != KeyTable.MISSING)
        {
            return true;
        }
        if (size < capacity)
        {
            frames[size] = key;
            index.put(key, size);
            size++;
            return false;
        }
        index.remove(frames[oldest]);
        frames[oldest] = key;
        index.put(key, oldest);
        oldest = oldest + 1 == capacity ? 0 : oldest + 1;
        return false;
    }

    @Override
    public void finished()
    {
        if (index.size() != size || size > capacity)
        {
            throw new IllegalStateException("fifo: indexed=" + index.size() + " size=" + size + " capacity=" + capacity);
        }
        for (int i = 0; i < size; i++)
        {
            if (index.get(frames[i]) != i)
            {
                throw new IllegalStateException("fifo: frame " + i + " is not indexed");
            }
        }
    }
}
