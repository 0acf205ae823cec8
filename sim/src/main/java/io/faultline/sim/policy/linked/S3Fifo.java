package io.faultline.sim.policy.linked;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.LinkedSlots;

/**
 * S3-FIFO: Yang, Zhang, Qiu, Yue, Rashmi, "FIFO queues are all you need for cache eviction",
 * SOSP 2023, following the paper's Algorithm 1.
 * <p>
 * A small FIFO S (fraction {@code small} of the capacity, default 0.1) takes new objects; a
 * main FIFO M holds the rest; a ghost FIFO G remembers the ids of objects evicted from S
 * ({@code ghost} entries as a fraction of the capacity, default 1 - small, i.e. as many as M
 * holds). Each object has a frequency counter capped at 3, incremented on hits. A miss whose id
 * is in G goes straight to M; any other miss goes to S, with frequency 0. To make room: if
 * |S| &gt;= small x capacity (or M is empty), S's tail is examined: an object with frequency
 * &gt; 1 moves to M (frequency reset to 0, as in libCacheSim, whose default
 * move-to-main-threshold is 2), evicting from M if M is then over its share, and the scan
 * continues; the first with frequency &lt;= 1 is evicted and its id enters G. Otherwise M's
 * tail is examined: frequency &gt; 0 is decremented and the object reinserted at M's head, the
 * first with frequency 0 is evicted.
 */
public final class S3Fifo implements Policy
{
    public static final double DEFAULT_SMALL = 0.1;

    private static final int SMALL = 0;
    private static final int MAIN = 1;
    private static final int GHOST = 2;
    private static final int MAX_FREQUENCY = 3;

    private final int capacity;
    private final double smallTarget;
    private final int mainCapacity;
    private final int ghostCapacity;
    private final LinkedSlots slots;
    private final byte[] frequency;

    public S3Fifo(final int capacity, final double small, final double ghost)
    {
        this.capacity = capacity;
        smallTarget = small * capacity;
        mainCapacity = capacity - (int)(small * capacity);
        ghostCapacity = (int)(ghost * capacity);
        slots = new LinkedSlots(capacity + ghostCapacity + 1, 3);
        frequency = new byte[capacity + ghostCapacity + 1];
    }

    @Override
    public boolean record(final long key)
    {
        final int slot = slots.find(key);
        if (slot != LinkedSlots.NONE && slots.listOf(slot) != GHOST)
        {
            if (frequency[slot] < MAX_FREQUENCY)
            {
                frequency[slot]++;
            }
            return true;
        }
        final boolean ghostHit = slot != LinkedSlots.NONE;
        if (ghostHit)
        {
            // Off the ghost list first, so that trimming G while making room cannot drop it.
            slots.unlink(slot);
        }
        while (slots.size(SMALL) + slots.size(MAIN) >= capacity)
        {
            evict();
        }
        if (ghostHit)
        {
            frequency[slot] = 0;
            slots.pushHead(MAIN, slot);
        }
        else
        {
            final int fresh = slots.allocate(key);
            frequency[fresh] = 0;
            slots.pushHead(SMALL, fresh);
        }
        return false;
    }

    private void evict()
    {
        if ((slots.size(SMALL) >= smallTarget || slots.size(MAIN) == 0) && slots.size(SMALL) > 0)
        {
            evictSmall();
        }
        else
        {
            evictMain();
        }
    }

    private void evictSmall()
    {
        while (slots.size(SMALL) > 0)
        {
            final int tail = slots.tail(SMALL);
            if (frequency[tail] > 1)
            {
                frequency[tail] = 0;
                slots.moveToHead(MAIN, tail);
                if (slots.size(MAIN) > mainCapacity)
                {
                    evictMain();
                }
            }
            else
            {
                if (ghostCapacity == 0)
                {
                    slots.release(tail);
                }
                else
                {
                    slots.moveToHead(GHOST, tail);
                    if (slots.size(GHOST) > ghostCapacity)
                    {
                        slots.release(slots.tail(GHOST));
                    }
                }
                return;
            }
        }
    }

    private void evictMain()
    {
        while (slots.size(MAIN) > 0)
        {
            final int tail = slots.tail(MAIN);
            if (frequency[tail] > 0)
            {
                frequency[tail]--;
                slots.moveToHead(MAIN, tail);
            }
            else
            {
                slots.release(tail);
                return;
            }
        }
    }

    @Override
    public void finished()
    {
        slots.check("s3fifo");
        final int small = slots.size(SMALL);
        final int main = slots.size(MAIN);
        final int ghost = slots.size(GHOST);
        if (small + main > capacity || ghost > ghostCapacity || slots.used() != small + main + ghost)
        {
            throw new IllegalStateException("s3fifo: small=" + small + " main=" + main + " ghost=" + ghost +
                " capacity=" + capacity + " ghostCapacity=" + ghostCapacity);
        }
    }
}
