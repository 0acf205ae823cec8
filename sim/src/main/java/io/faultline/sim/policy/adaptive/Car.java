package io.faultline.sim.policy.adaptive;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.LinkedSlots;

/**
 * CAR, CLOCK with Adaptive Replacement: Bansal and Modha, "CAR: Clock with Adaptive
 * Replacement", FAST 2004, following the paper's Figure 2 line by line.
 * <p>
 * T1 and T2 are clocks of resident pages with a reference bit (a hit only sets the bit); B1
 * and B2 are LRU lists of ghosts. A miss with a full cache runs REPLACE: while |T1| &gt;=
 * max(1, p) the page under T1's hand is examined (bit clear: demoted to B1's MRU end; bit set:
 * cleared and moved to T2's tail), otherwise the page under T2's hand (bit clear: demoted to
 * B2; bit set: cleared and moved to T2's tail), until one page is demoted. Then, for a page in
 * neither ghost list, the LRU ghost of B1 is discarded if |T1| + |B1| = c, else that of B2 if
 * the directory holds 2c pages; the page enters T1's tail. A B1 hit raises p by max(1,
 * |B2|/|B1|), a B2 hit lowers it by max(1, |B1|/|B2|), within [0, c], and the page enters
 * T2's tail. As in {@link Arc}, p is an integer and the ratios use floor division. In the
 * lists here a clock's hand is the oldest end and its tail the newest.
 */
public final class Car implements Policy
{
    private static final int T1 = 0;
    private static final int T2 = 1;
    private static final int B1 = 2;
    private static final int B2 = 3;

    private final int capacity;
    private final LinkedSlots slots;
    private final boolean[] referenced;
    private int p;

    public Car(final int capacity)
    {
        this.capacity = capacity;
        slots = new LinkedSlots(2 * capacity + 1, 4);
        referenced = new boolean[2 * capacity + 1];
    }

    /** The current target size of T1, for tests. */
    public int target()
    {
        return p;
    }

    @Override
    public boolean record(final long key)
    {
        int slot = slots.find(key);
        final int list = slot == LinkedSlots.NONE ? LinkedSlots.NONE : slots.listOf(slot);
        if (list == T1 || list == T2)
        {
            referenced[slot] = true;
            return true;
        }
        final boolean ghost = list == B1 || list == B2;
        if (slots.size(T1) + slots.size(T2) == capacity)
        {
            replace();
            if (!ghost)
            {
                if (slots.size(T1) + slots.size(B1) == capacity)
                {
                    slots.release(slots.tail(B1));
                }
                else if (slots.size(T1) + slots.size(T2) + slots.size(B1) + slots.size(B2) == 2 * capacity)
                {
                    slots.release(slots.tail(B2));
                }
            }
        }
        if (!ghost)
        {
            slot = slots.allocate(key);
            referenced[slot] = false;
            slots.pushHead(T1, slot);
            return false;
        }
        final int b1 = slots.size(B1);
        final int b2 = slots.size(B2);
        if (list == B1)
        {
            p = Math.min(p + Math.max(1, b2 / b1), capacity);
        }
        else
        {
            p = Math.max(p - Math.max(1, b1 / b2), 0);
        }
        referenced[slot] = false;
        slots.moveToHead(T2, slot);
        return false;
    }

    private void replace()
    {
        while (true)
        {
            if (slots.size(T1) >= Math.max(1, p))
            {
                final int hand = slots.tail(T1);
                if (!referenced[hand])
                {
                    slots.moveToHead(B1, hand);
                    return;
                }
                referenced[hand] = false;
                slots.moveToHead(T2, hand);
            }
            else
            {
                final int hand = slots.tail(T2);
                if (!referenced[hand])
                {
                    slots.moveToHead(B2, hand);
                    return;
                }
                referenced[hand] = false;
                slots.moveToHead(T2, hand);
            }
        }
    }

    @Override
    public void finished()
    {
        slots.check("car");
        final int t1 = slots.size(T1);
        final int t2 = slots.size(T2);
        final int b1 = slots.size(B1);
        final int b2 = slots.size(B2);
        if (t1 + t2 > capacity || t1 + b1 > capacity || t2 + b2 > 2 * capacity ||
            t1 + t2 + b1 + b2 > 2 * capacity || p < 0 || p > capacity || slots.used() != t1 + t2 + b1 + b2)
        {
            throw new IllegalStateException("car: t1=" + t1 + " t2=" + t2 + " b1=" + b1 + " b2=" + b2 + " p=" + p +
                " capacity=" + capacity);
        }
    }
}
