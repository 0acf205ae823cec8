package io.faultline.sim.policy.linked;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.LinkedSlots;

/**
 * Least Recently Used: a hit moves the page to the head of one list, a miss with a full cache
 * evicts the tail (the page whose last reference is oldest). The stack algorithm of Mattson,
 * Gecsei, Slutz and Traiger, "Evaluation techniques for storage hierarchies", IBM Systems
 * Journal 9(2), 1970. With every object of size 1 it reproduces libCacheSim's LRU miss counts.
 */
public final class Lru implements Policy
{
    private static final int LIST = 0;

    private final int capacity;
    private final LinkedSlots slots;

    public Lru(final int capacity)
    {
        this.capacity = capacity;
        slots = new LinkedSlots(capacity, 1);
    }

    @Override
    public boolean record(final long key)
    {
        final LinkedSlots slots = this.slots;
        final int slot = slots.find(key);
        if (slot != LinkedSlots.NONE)
        {
            slots.moveToHead(LIST, slot);
            return true;
        }
        if (slots.used() == capacity)
        {
            final int victim = slots.tail(LIST);
            slots.rekey(victim, key);
            slots.moveToHead(LIST, victim);
        }
        else
        {
            slots.pushHead(LIST, slots.allocate(key));
        }
        return false;
    }

    @Override
    public void finished()
    {
        slots.check("lru");
        if (slots.size(LIST) != slots.used() || slots.used() > capacity)
        {
            throw new IllegalStateException("lru: list=" + slots.size(LIST) + " used=" + slots.used() +
                " capacity=" + capacity);
        }
    }
}
