package io.faultline.sim.policy.linked;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.LinkedSlots;

/**
 * SIEVE: Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is simpler than LRU: an efficient
 * turn-key eviction algorithm for web caches", NSDI 2024.
 * <p>
 * One FIFO queue with a visited bit per object. A new object goes to the head with the bit
 * clear; a hit sets the bit and moves nothing. To evict, the hand starts where it last stopped
 * (the tail at first), walks toward the head clearing set bits, wrapping from the head to the
 * tail, and evicts the first object with a clear bit; the hand then rests on the evicted
 * object's newer neighbour (or, if it was the head, the tail next time). Survivors keep their
 * place in the queue, unlike CLOCK's reinsertion.
 */
public final class Sieve implements Policy
{
    private static final int QUEUE = 0;

    private final int capacity;
    private final LinkedSlots slots;
    private final boolean[] visited;
    private int hand = LinkedSlots.NONE;

    public Sieve(final int capacity)
    {
        this.capacity = capacity;
        slots = new LinkedSlots(capacity, 1);
        visited = new boolean[capacity];
    }

    @Override
    public boolean record(final long key)
    {
        final int slot = slots.find(key);
        if (slot != LinkedSlots.NONE)
        {
            visited[slot] = true;
            return true;
        }
        if (slots.used() == capacity)
        {
            evict();
        }
        final int fresh = slots.allocate(key);
        visited[fresh] = false;
        slots.pushHead(QUEUE, fresh);
        return false;
    }

    private void evict()
    {
        int slot = hand == LinkedSlots.NONE ? slots.tail(QUEUE) : hand;
        while (visited[slot])
        {
            visited[slot] = false;
            slot = slots.newer(slot);
            if (slot == LinkedSlots.NONE)
            {
                slot = slots.tail(QUEUE);
            }
        }
        hand = slots.newer(slot);
        slots.release(slot);
    }

    @Override
    public void finished()
    {
        slots.check("sieve");
        if (slots.size(QUEUE) != slots.used() || slots.used() > capacity ||
            (hand != LinkedSlots.NONE && slots.listOf(hand) != QUEUE))
        {
            throw new IllegalStateException("sieve: queue=" + slots.size(QUEUE) + " used=" + slots.used() +
                " capacity=" + capacity + " hand=" + hand);
        }
    }
}
