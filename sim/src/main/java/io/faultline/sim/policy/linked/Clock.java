package io.faultline.sim.policy.linked;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.KeyTable;

/**
 * CLOCK, the one-bit second-chance approximation of LRU (Corbató, "A paging experiment with
 * the Multics system", MIT Project MAC MAC-M-384, 1968).
 * <p>
 * Exactly: frames form a ring and the hand starts at frame 0. While the cache fills, the
 * i-th distinct page goes into frame i. A page enters with its reference bit <em>clear</em>;
 * a hit sets it. On a miss with a full cache the hand examines the frame it points at: a set
 * bit is cleared and the hand advances (the page gets a second chance); the first page found
 * with a clear bit is evicted, the new page takes its frame (bit clear), and the hand advances
 * one frame past it, so the new page is the last one the hand will reach. This is FIFO with
 * second chance, and the same as libCacheSim's Clock with a one-bit counter.
 */
public final class Clock implements Policy
{
    private final int capacity;
    private final long[] frames;
    private final boolean[] referenced;
    private final KeyTable index;
    private int size;
    private int hand;

    public Clock(final int capacity)
    {
        this.capacity = capacity;
        frames = new long[capacity];
        referenced = new boolean[capacity];
        index = new KeyTable(capacity);
    }

    @Override
    public boolean record(final long key)
    {
        final int frame = index.get(key);
        if (frame != KeyTable.MISSING)
        {
            referenced[frame] = true;
            return true;
        }
        if (size < capacity)
        {
            frames[size] = key;
            index.put(key, size);
            size++;
            return false;
        }
        int hand = this.hand;
        while (referenced[hand])
        {
            referenced[hand] = false;
            hand = hand + 1 == capacity ? 0 : hand + 1;
        }
        index.remove(frames[hand]);
        frames[hand] = key;
        index.put(key, hand);
        this.hand = hand + 1 == capacity ? 0 : hand + 1;
        return false;
    }

    @Override
    public void finished()
    {
        if (index.size() != size || size > capacity || (size < capacity && hand != 0))
        {
            throw new IllegalStateException("clock: indexed=" + index.size() + " size=" + size + " hand=" + hand +
                " capacity=" + capacity);
        }
        for (int i = 0; i < size; i++)
        {
            if (index.get(frames[i]) != i)
            {
                throw new IllegalStateException("clock: frame " + i + " is not indexed");
            }
        }
    }
}
