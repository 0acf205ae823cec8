package io.faultline.sim.policy;

/**
 * A fixed pool of slots, each holding one key, threaded onto a few intrusive doubly-linked
 * lists over int indices, with a {@link KeyTable} from key to slot: the node store behind the
 * linked, adaptive and irr policies. No allocation after construction, no boxing.
 * <p>
 * Each list runs from its head (the newest entry, MRU) to its tail (the oldest, LRU or next
 * in FIFO order). List {@code l}'s sentinel is the extra index {@code slots + l}; a slot is on
 * at most one list at a time.
 */
public final class LinkedSlots
{
    /** No slot: an empty list's head, the end of a walk, an absent key. */
    public static final int NONE = -1;

    private final int slots;
    private final long[] keys;
    private final int[] prev;
    private final int[] next;
    private final byte[] listOf;
    private final int[] sizes;
    private final KeyTable index;
    private final int[] free;
    private int freeCount;

    /** The bytes of a pool of {@code slots} slots on {@code lists} lists: its arrays and its key table. */
    public static long bytes(final long slots, final int lists)
    {
        return slots * (Long.BYTES + Byte.BYTES + Integer.BYTES) + 2L * Integer.BYTES * (slots + lists)
            + KeyTable.bytes(slots);
    }

    public LinkedSlots(final int slots, final int lists)
    {
        if (slots < 1 || lists < 1 || lists > Byte.MAX_VALUE)
        {
            throw new IllegalArgumentException("slots=" + slots + " lists=" + lists);
        }
        this.slots = slots;
        keys = new long[slots];
        prev = new int[slots + lists];
        next = new int[slots + lists];
        listOf = new byte[slots];
        sizes = new int[lists];
        index = new KeyTable(slots);
        free = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            free[i] = slots - 1 - i;
            listOf[i] = NONE;
        }
        freeCount = slots;
        for (int l = 0; l < lists; l++)
        {
            prev[slots + l] = slots + l;
            next[slots + l] = slots + l;
        }
    }

    /** The slot holding {@code key}, or {@link #NONE}. */
    public int find(final long key)
    {
        return index.get(key);
    }

    /** Takes a free slot for {@code key} (which must be absent); the slot is on no list. */
    public int allocate(final long key)
    {
        if (freeCount == 0)
        {
            throw new IllegalStateException("no free slot for key " + key + ": slots=" + slots);
        }
        final int slot = free[--freeCount];
        keys[slot] = key;
        index.put(key, slot);
        return slot;
    }

    /** Unlinks {@code slot} if linked, forgets its key and returns it to the pool. */
    public void release(final int slot)
    {
        if (listOf[slot] != NONE)
        {
            unlink(slot);
        }
        index.remove(keys[slot]);
        free[freeCount++] = slot;
    }

    /** Moves {@code slot} to the key {@code key}, reusing it without a trip through the pool. */
    public void rekey(final int slot, final long key)
    {
        index.remove(keys[slot]);
        keys[slot] = key;
        index.put(key, slot);
    }

    public long key(final int slot)
    {
        return keys[slot];
    }

    /** Slots in use (holding a key). */
    public int used()
    {
        return slots - freeCount;
    }

    public int capacity()
    {
        return slots;
    }

    /** The list {@code slot} is on, or {@link #NONE}. */
    public int listOf(final int slot)
    {
        return listOf[slot];
    }

    public int size(final int list)
    {
        return sizes[list];
    }

    /** The newest slot of {@code list}, or {@link #NONE} if empty. */
    public int head(final int list)
    {
        final int slot = next[slots + list];
        return slot >= slots ? NONE : slot;
    }

    /** The oldest slot of {@code list}, or {@link #NONE} if empty. */
    public int tail(final int list)
    {
        final int slot = prev[slots + list];
        return slot >= slots ? NONE : slot;
    }

    /** The next older slot on the same list, or {@link #NONE} at the tail. */
    public int older(final int slot)
    {
        final int older = next[slot];
        return older >= slots ? NONE : older;
    }

    /** The next newer slot on the same list, or {@link #NONE} at the head. */
    public int newer(final int slot)
    {
        final int newer = prev[slot];
        return newer >= slots ? NONE : newer;
    }

    /** Links {@code slot} (on no list) as the newest of {@code list}. */
    public void pushHead(final int list, final int slot)
    {
        linkAfter(slots + list, list, slot);
    }

    /** Links {@code slot} (on no list) as the oldest of {@code list}. */
    public void pushTail(final int list, final int slot)
    {
        linkAfter(prev[slots + list], list, slot);
    }

    /** Links {@code slot} (on no list) just newer than {@code anchor}, on the anchor's list. */
    public void insertNewerThan(final int anchor, final int slot)
    {
        linkAfter(prev[anchor], listOf[anchor], slot);
    }

    /** Unlinks {@code slot} and makes it the newest of {@code list}. */
    public void moveToHead(final int list, final int slot)
    {
        unlink(slot);
        linkAfter(slots + list, list, slot);
    }

    /** Unlinks {@code slot} and makes it the oldest of {@code list}. */
    public void moveToTail(final int list, final int slot)
    {
        unlink(slot);
        linkAfter(prev[slots + list], list, slot);
    }

    private void linkAfter(final int before, final int list, final int slot)
    {
        final int after = next[before];
        prev[slot] = before;
        next[slot] = after;
        next[before] = slot;
        prev[after] = slot;
        listOf[slot] = (byte)list;
        sizes[list]++;
    }

    /** Takes {@code slot} off its list; it keeps its key. */
    public void unlink(final int slot)
    {
        final int p = prev[slot];
        final int n = next[slot];
        next[p] = n;
        prev[n] = p;
        sizes[listOf[slot]]--;
        listOf[slot] = NONE;
    }

    /**
     * Checks the lists against the index: every list's links agree and its length matches its
     * count, and every used slot is indexed under its key.
     *
     * @throws IllegalStateException naming the broken invariant
     */
    public void check(final String policy)
    {
        int linked = 0;
        for (int l = 0; l < sizes.length; l++)
        {
            int count = 0;
            for (int s = next[slots + l]; s != slots + l; s = next[s])
            {
                if (s >= slots || listOf[s] != l || prev[next[s]] != s)
                {
                    throw new IllegalStateException(policy + ": list " + l + " is corrupt at slot " + s);
                }
                if (index.get(keys[s]) != s)
                {
                    throw new IllegalStateException(policy + ": slot " + s + " on list " + l + " is not indexed");
                }
                if (++count > slots)
                {
                    throw new IllegalStateException(policy + ": list " + l + " has a cycle");
                }
            }
            if (count != sizes[l])
            {
                throw new IllegalStateException(policy + ": list " + l + " has " + count + " slots, counted " + sizes[l]);
            }
            linked += count;
        }
        if (index.size() != used())
        {
            throw new IllegalStateException(policy + ": " + index.size() + " keys indexed, " + used() + " slots used");
        }
        if (linked > used())
        {
            throw new IllegalStateException(policy + ": " + linked + " slots linked, " + used() + " used");
        }
    }
}
