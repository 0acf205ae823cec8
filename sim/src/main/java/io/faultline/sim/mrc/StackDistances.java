package io.faultline.sim.mrc;

import org.agrona.collections.Long2LongHashMap;

import java.util.Arrays;

/**
 * Exact LRU stack distances in one pass (Mattson, Gecsei, Slutz and Traiger, "Evaluation
 * techniques for storage hierarchies", IBM Systems Journal 9(2), 1970), in O(log M) per
 * reference with the time-stamp method: each key remembers the slot (logical time) of its last
 * reference, and a Fenwick tree over slots marks the slot of every key's latest reference. The
 * stack distance of a reference is one plus the number of marks after the key's previous slot:
 * the distinct keys referenced since.
 *
 * <p>Slots run out after M references; then the live marks (one per distinct key) are
 * renumbered in order to 0..distinct-1, and M doubles whenever more than half of it is live, so
 * the work of compaction is amortised O(1) per reference and memory stays O(distinct keys).
 */
public final class StackDistances
{
    /** The distance of a first reference: a cold miss at every cache size. */
    public static final long INFINITE = -1;

    private static final int INITIAL_SLOTS = 1 << 12;
    private static final long ABSENT = -1;

    private final Long2LongHashMap slotOfKey = new Long2LongHashMap(ABSENT);
    private long[] keyOfSlot;
    private long[] live;
    /** Fenwick tree, 1-based: tree[i] counts the marks in slots (i - lowbit(i), i]. */
    private int[] tree;
    private int nextSlot;
    private int distinct;

    public StackDistances()
    {
        allocate(INITIAL_SLOTS);
    }

    /** The stack distance (1 = the most recently used key) of this reference, or {@link #INFINITE}. */
    public long record(final long key)
    {
        if (nextSlot == keyOfSlot.length)
        {
            compact();
        }
        final long previous = slotOfKey.get(key);
        final long distance;
        if (previous == ABSENT)
        {
            distinct++;
            distance = INFINITE;
        }
        else
        {
            final int slot = (int)previous;
            distance = distinct - prefixCount(slot) + 1;
            add(slot, -1);
            live[slot >>> 6] &= ~(1L << slot);
        }
        final int slot = nextSlot++;
        add(slot, 1);
        live[slot >>> 6] |= 1L << slot;
        keyOfSlot[slot] = key;
        slotOfKey.put(key, slot);
        return distance;
    }

    /** The number of distinct keys seen so far. */
    public int distinct()
    {
        return distinct;
    }

    private void compact()
    {
        final long[] oldKeys = keyOfSlot;
        final long[] oldLive = live;
        final int oldSlots = nextSlot;
        final int slots = distinct > oldKeys.length / 2 ? Math.multiplyExact(oldKeys.length, 2) : oldKeys.length;
        allocate(slots);
        int slot = 0;
        for (int i = 0; i < oldSlots; i++)
        {
            if ((oldLive[i >>> 6] & (1L << i)) != 0)
            {
                keyOfSlot[slot] = oldKeys[i];
                live[slot >>> 6] |= 1L << slot;
                slotOfKey.put(oldKeys[i], slot);
                slot++;
            }
        }
        nextSlot = slot;
        // Slots 0..distinct-1 all marked: node i covers (i - lowbit(i), i], clipped to the marks.
        for (int i = 1; i < tree.length; i++)
        {
            final int low = i - (i & -i);
            tree[i] = Math.max(0, Math.min(i, distinct) - low);
        }
    }

    private void allocate(final int slots)
    {
        keyOfSlot = new long[slots];
        live = new long[(slots + 63) >>> 6];
        tree = new int[slots + 1];
    }

    /** Marks in slots 0..slot inclusive. */
    private int prefixCount(final int slot)
    {
        int sum = 0;
        for (int i = slot + 1; i > 0; i -= i & -i)
        {
            sum += tree[i];
        }
        return sum;
    }

    private void add(final int slot, final int delta)
    {
        for (int i = slot + 1; i < tree.length; i += i & -i)
        {
            tree[i] += delta;
        }
    }

    @Override
    public String toString()
    {
        return "StackDistances{distinct=" + distinct + ", slots=" + keyOfSlot.length + ", next=" + nextSlot
            + ", live=" + Arrays.stream(live).map(Long::bitCount).sum() + "}";
    }
}
