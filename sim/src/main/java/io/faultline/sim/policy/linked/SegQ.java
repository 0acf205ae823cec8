package io.faultline.sim.policy.linked;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.LinkedSlots;

/**
 * SEGQ, the segmented queue: Babaoglu and Ferrari, "Two-level replacement decisions in paging
 * stores", IEEE Transactions on Computers C-32(12), 1983; as used by kVMTrace (Kaplan,
 * Smaragdakis and Wilson, "Flexible reference trace reduction for VM simulations", ACM TOMACS
 * 13(1), 2003) to model a VM system whose recent pages are access-enabled and whose older
 * pages are access-protected.
 * <p>
 * The leading segment holds the {@code lead} fraction of the capacity (at least one page;
 * default 0.1) as a FIFO: hits there are not seen by the VM and move nothing. A page pushed
 * out of the leading segment enters the trailing segment. A hit in the trailing segment (a
 * protection fault, still a hit) moves the page back to the head of the leading segment, whose
 * oldest page then drops into the trailing segment. On a miss with a full cache the trailing
 * segment gives up its victim first, then the new page enters the leading segment. The
 * {@code trail} parameter chooses how the trailing segment picks its victim:
 * <ul>
 * <li>{@code lru} (classic SEGQ): the page whose last reference, counting the hits
 *     absorbed by the leading segment, is oldest; the simulator sees every reference, so this
 *     is exact LRU order within the trailing segment. Since the leading segment holds the
 *     pages loaded most recently, the whole is close to plain LRU (it differs only when a page
 *     still in the leading segment is the least recently used).</li>
 * <li>{@code fifo}: the page that entered the trailing segment first, i.e. the order an
 *     access-protected segment itself observes (its pages leave it on their next reference).</li>
 * <li>{@code clock} (default, kVMTrace's trailing CLOCK segment): FIFO order with a second chance for a page referenced while it was in the
 *     leading segment (its hardware reference bit): the bit is cleared and the page goes back
 *     to the newest end of the trailing segment.</li>
 * </ul>
 * With a capacity of 1 there is no trailing segment and SEGQ is FIFO.
 */
public final class SegQ implements Policy
{
    public static final double DEFAULT_LEAD = 0.1;

    /** How the trailing segment chooses its victim. */
    public enum Trail
    {
        LRU, FIFO, CLOCK
    }

    private static final int LEAD = 0;
    private static final int TRAIL = 1;

    private final int capacity;
    private final int leadCapacity;
    private final Trail trail;
    private final LinkedSlots slots;
    private final boolean[] referenced;
    private final long[] lastReference;
    private long time;

    public SegQ(final int capacity, final double lead, final Trail trail)
    {
        this.capacity = capacity;
        this.trail = trail;
        leadCapacity = Math.min(capacity, Math.max(1, (int)(capacity * lead)));
        slots = new LinkedSlots(capacity, 2);
        referenced = new boolean[capacity];
        lastReference = new long[capacity];
    }

    @Override
    public boolean record(final long key)
    {
        time++;
        final int slot = slots.find(key);
        if (slot != LinkedSlots.NONE)
        {
            if (slots.listOf(slot) == LEAD)
            {
                referenced[slot] = true;
                lastReference[slot] = time;
                return true;
            }
            slots.unlink(slot);
            enterLead(slot);
            return true;
        }
        if (slots.used() == capacity)
        {
            slots.release(trailVictim());
        }
        enterLead(slots.allocate(key));
        return false;
    }

    private void enterLead(final int slot)
    {
        referenced[slot] = false;
        lastReference[slot] = time;
        slots.pushHead(LEAD, slot);
        if (slots.size(LEAD) > leadCapacity)
        {
            final int demoted = slots.tail(LEAD);
            slots.unlink(demoted);
            if (trail == Trail.LRU)
            {
                enterTrailByRecency(demoted);
            }
            else
            {
                slots.pushHead(TRAIL, demoted);
            }
        }
    }

    /**
     * Keeps the trailing segment sorted by last reference, newest at the head. Its pages are
     * never referenced while there, and a demoted page was referenced recently, so the walk
     * from the head is short.
     */
    private void enterTrailByRecency(final int demoted)
    {
        final long last = lastReference[demoted];
        int slot = slots.head(TRAIL);
        while (slot != LinkedSlots.NONE && lastReference[slot] > last)
        {
            slot = slots.older(slot);
        }
        if (slot == LinkedSlots.NONE)
        {
            slots.pushTail(TRAIL, demoted);
        }
        else
        {
            slots.insertNewerThan(slot, demoted);
        }
    }

    private int trailVictim()
    {
        if (slots.size(TRAIL) == 0)
        {
            return slots.tail(LEAD);
        }
        switch (trail)
        {
            case CLOCK:
                int slot = slots.tail(TRAIL);
                while (referenced[slot])
                {
                    referenced[slot] = false;
                    slots.moveToHead(TRAIL, slot);
                    slot = slots.tail(TRAIL);
                }
                return slot;
            default:
                return slots.tail(TRAIL);
        }
    }

    @Override
    public void finished()
    {
        slots.check("segq");
        final int lead = slots.size(LEAD);
        final int trailing = slots.size(TRAIL);
        if (lead > leadCapacity || lead + trailing != slots.used() || slots.used() > capacity ||
            (trailing > 0 && lead != leadCapacity))
        {
            throw new IllegalStateException("segq: lead=" + lead + "/" + leadCapacity + " trail=" + trailing +
                " used=" + slots.used() + " capacity=" + capacity);
        }
        if (trail == Trail.LRU)
        {
            for (int slot = slots.head(TRAIL); slot != LinkedSlots.NONE; slot = slots.older(slot))
            {
                final int older = slots.older(slot);
                if (older != LinkedSlots.NONE && lastReference[older] > lastReference[slot])
                {
                    throw new IllegalStateException("segq: trailing segment out of recency order at slot " + slot);
                }
            }
        }
    }
}
