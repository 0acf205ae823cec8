package io.faultline.sim.policy.adaptive;

import io.faultline.sim.Policy;
import io.faultline.sim.policy.LinkedSlots;

/**
 * ARC, the Adaptive Replacement Cache: Megiddo and Modha, "ARC: a self-tuning, low overhead
 * replacement cache", FAST 2003, following the pseudocode of the paper's Figure 4 case by case.
 * <p>
 * T1 holds pages seen once recently, T2 pages seen at least twice; B1 and B2 are the ghosts
 * of pages evicted from T1 and T2. The target size p of T1 grows on a B1 hit (by 1, or
 * |B2|/|B1| when B1 is the smaller) and shrinks on a B2 hit (by 1, or |B1|/|B2|), within
 * [0, c]. By default p is a real number, as in the paper (Figure 4 writes
 * p = min(p + delta1, c) with delta1 = |B2|/|B1|, a ratio, and compares |T1| with p), and as in
 * libCacheSim's ARC, whose miss counts ours equal (pinned on the LIRS project's traces in
 * LirsTracesPinsTest). With {@code integer=true} p is kept as a whole number of pages and the
 * ratios use floor division, as in Caffeine's ArcPolicy: on those traces, at 100, 250, 500 and
 * 1000 blocks, it differs from the paper at 13 of the 24 points. REPLACE evicts the LRU page of T1 into B1 when T1 is
 * non-empty and either |T1| &gt; p, or |T1| = p and the request is a B2 hit; otherwise the LRU
 * page of T2 into B2. Ghost hits count as misses. Parameter: {@code integer} (default false).
 */
public final class Arc implements Policy
{
    private static final int T1 = 0;
    private static final int T2 = 1;
    private static final int B1 = 2;
    private static final int B2 = 3;

    private final int capacity;
    private final LinkedSlots slots;
    private final boolean integer;
    private double p;

    /** ARC as in the paper: real-valued p. */
    public Arc(final int capacity)
    {
        this(capacity, false);
    }

    /** @param integer keep p a whole number and divide with floor, as Caffeine's ArcPolicy does */
    public Arc(final int capacity, final boolean integer)
    {
        this.capacity = capacity;
        this.integer = integer;
        slots = new LinkedSlots(2 * capacity + 1, 4);
    }

    /** The current target size of T1, for tests. */
    public double target()
    {
        return p;
    }

    /** Sizes of T1, T2, B1, B2, for tests. */
    public int[] sizes()
    {
        return new int[] {slots.size(T1), slots.size(T2), slots.size(B1), slots.size(B2)};
    }

    @Override
    public boolean record(final long key)
    {
        final int slot = slots.find(key);
        if (slot != LinkedSlots.NONE)
        {
            final int list = slots.listOf(slot);
            if (list == T1 || list == T2)
            {
                slots.moveToHead(T2, slot);
                return true;
            }
            final int b1 = slots.size(B1);
            final int b2 = slots.size(B2);
            if (list == B1)
            {
                p = Math.min(p + (b1 >= b2 ? 1 : ratio(b2, b1)), capacity);
                replace(false);
            }
            else
            {
                p = Math.max(p - (b2 >= b1 ? 1 : ratio(b1, b2)), 0);
                replace(true);
            }
            slots.moveToHead(T2, slot);
            return false;
        }

        final int l1 = slots.size(T1) + slots.size(B1);
        if (l1 == capacity)
        {
            if (slots.size(T1) < capacity)
            {
                slots.release(slots.tail(B1));
                replace(false);
            }
            else
            {
                slots.release(slots.tail(T1));
            }
        }
        else
        {
            final int total = l1 + slots.size(T2) + slots.size(B2);
            if (total >= capacity)
            {
                if (total == 2 * capacity)
                {
                    slots.release(slots.tail(B2));
                }
                replace(false);
            }
        }
        slots.pushHead(T1, slots.allocate(key));
        return false;
    }

    private double ratio(final int larger, final int smaller)
    {
        return integer ? larger / smaller : larger / (double)smaller;
    }

    private void replace(final boolean inB2)
    {
        final int t1 = slots.size(T1);
        if (t1 >= 1 && ((inB2 && t1 == p) || t1 > p))
        {
            slots.moveToHead(B1, slots.tail(T1));
        }
        else
        {
            final int victim = slots.tail(T2);
            if (victim == LinkedSlots.NONE)
            {
                throw new IllegalStateException("arc: REPLACE found T2 empty: t1=" + t1 + " p=" + p);
            }
            slots.moveToHead(B2, victim);
        }
    }

    @Override
    public void finished()
    {
        slots.check("arc");
        final int t1 = slots.size(T1);
        final int t2 = slots.size(T2);
        final int b1 = slots.size(B1);
        final int b2 = slots.size(B2);
        if (t1 + t2 > capacity || t1 + b1 > capacity || t1 + t2 + b1 + b2 > 2 * capacity || p < 0 || p > capacity ||
            slots.used() != t1 + t2 + b1 + b2)
        {
            throw new IllegalStateException("arc: t1=" + t1 + " t2=" + t2 + " b1=" + b1 + " b2=" + b2 + " p=" + p +
                " capacity=" + capacity);
        }
    }
}
