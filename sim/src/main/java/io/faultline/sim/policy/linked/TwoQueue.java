package io.faultline.sim.policy.linked;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.LinkedSlots;

/**
 * Full 2Q: Johnson and Shasha, "2Q: a low overhead high performance buffer management
 * replacement algorithm", VLDB 1994 (the "full version" of section 2.2).
 * <p>
 * A first reference puts a page in A1in, a FIFO of resident pages; hits there change nothing,
 * because a burst of correlated references says nothing about long-term value. A page evicted
 * from A1in leaves its identifier at the head of A1out, a FIFO of ghosts; a reference to a
 * ghost brings the page into Am, an LRU of resident pages. Reclaiming a frame takes the tail
 * of A1in when |A1in| &gt; Kin (its id goes to A1out, whose tail is dropped past Kout),
 * otherwise the tail of Am (no ghost: it has not been used for a while).
 * <p>
 * Parameters: {@code kin}, Kin as a fraction of capacity (default 0.25, the paper's
 * recommendation), and {@code kout}, Kout as a fraction of capacity (default 0.5); both are
 * rounded down to whole pages as in Caffeine's TwoQueuePolicy. One deviation to keep the
 * pseudocode total: when Am is empty the tail of A1in is taken even if |A1in| &lt;= Kin (only
 * reachable when Kin rounds to the whole capacity). A ghost hit counts as a miss, and its id
 * leaves A1out before the frame is reclaimed.
 */
public final class TwoQueue implements Policy
{
    public static final double DEFAULT_KIN = 0.25;
    public static final double DEFAULT_KOUT = 0.5;

    private static final int A1IN = 0;
    private static final int AM = 1;
    private static final int A1OUT = 2;

    private final int capacity;
    private final int kin;
    private final int kout;
    private final LinkedSlots slots;

    public TwoQueue(final int capacity, final double kin, final double kout)
    {
        this.capacity = capacity;
        this.kin = (int)(capacity * kin);
        this.kout = (int)(capacity * kout);
        slots = new LinkedSlots(capacity + this.kout + 1, 3);
    }

    @Override
    public boolean record(final long key)
    {
        final int slot = slots.find(key);
        if (slot != LinkedSlots.NONE)
        {
            final int list = slots.listOf(slot);
            if (list == AM)
            {
                slots.moveToHead(AM, slot);
                return true;
            }
            if (list == A1IN)
            {
                return true;
            }
            slots.unlink(slot);
            reclaimFrame();
            slots.pushHead(AM, slot);
            return false;
        }
        reclaimFrame();
        slots.pushHead(A1IN, slots.allocate(key));
        return false;
    }

    private void reclaimFrame()
    {
        if (slots.size(A1IN) + slots.size(AM) < capacity)
        {
            return;
        }
        if (slots.size(A1IN) > kin || slots.size(AM) == 0)
        {
            slots.moveToHead(A1OUT, slots.tail(A1IN));
            if (slots.size(A1OUT) > kout)
            {
                slots.release(slots.tail(A1OUT));
            }
        }
        else
        {
            slots.release(slots.tail(AM));
        }
    }

    @Override
    public void finished()
    {
        slots.check("2q");
        final int resident = slots.size(A1IN) + slots.size(AM);
        if (resident > capacity || slots.size(A1OUT) > kout || slots.used() != resident + slots.size(A1OUT))
        {
            throw new IllegalStateException("2q: a1in=" + slots.size(A1IN) + " am=" + slots.size(AM) + " a1out=" +
                slots.size(A1OUT) + " used=" + slots.used() + " capacity=" + capacity + " kout=" + kout);
        }
    }
}
