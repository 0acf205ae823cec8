package io.faultline.sim.policy;

/**
 * One intrusive doubly-linked list over slot indices, for policies whose entries sit on
 * several lists at once (LIRS keeps a block on its stack S and its queue Q together). Runs
 * from head (newest) to tail (oldest); index {@code slots} is the sentinel.
 */
public final class SlotList
{
    private final int sentinel;
    private final int[] prev;
    private final int[] next;
    private final boolean[] member;
    private int size;

    /** The bytes of a list over {@code slots} slots. */
    public static long bytes(final long slots)
    {
        return 2L * Integer.BYTES * (slots + 1) + slots;
    }

    public SlotList(final int slots)
    {
        sentinel = slots;
        prev = new int[slots + 1];
        next = new int[slots + 1];
        member = new boolean[slots];
        prev[sentinel] = sentinel;
        next[sentinel] = sentinel;
    }

    public int size()
    {
        return size;
    }

    public boolean contains(final int slot)
    {
        return member[slot];
    }

    /** The newest slot, or {@link LinkedSlots#NONE}. */
    public int head()
    {
        final int slot = next[sentinel];
        return slot == sentinel ? LinkedSlots.NONE : slot;
    }

    /** The oldest slot, or {@link LinkedSlots#NONE}. */
    public int tail()
    {
        final int slot = prev[sentinel];
        return slot == sentinel ? LinkedSlots.NONE : slot;
    }

    /** The next older slot, or {@link LinkedSlots#NONE} at the tail. */
    public int older(final int slot)
    {
        final int older = next[slot];
        return older == sentinel ? LinkedSlots.NONE : older;
    }

    /** The next newer slot, or {@link LinkedSlots#NONE} at the head. */
    public int newer(final int slot)
    {
        final int newer = prev[slot];
        return newer == sentinel ? LinkedSlots.NONE : newer;
    }

    /** Makes {@code slot} the newest, unlinking it first if it is on the list. */
    public void pushHead(final int slot)
    {
        if (member[slot])
        {
            remove(slot);
        }
        final int after = next[sentinel];
        prev[slot] = sentinel;
        next[slot] = after;
        next[sentinel] = slot;
        prev[after] = slot;
        member[slot] = true;
        size++;
    }

    /** Takes {@code slot} off the list if it is on it. */
    public void remove(final int slot)
    {
        if (!member[slot])
        {
            return;
        }
        final int p = prev[slot];
        final int n = next[slot];
        next[p] = n;
        prev[n] = p;
        member[slot] = false;
        size--;
    }

    /** Checks links and count; returns the number of slots walked. */
    public void check(final String policy, final String name)
    {
        int count = 0;
        for (int s = next[sentinel]; s != sentinel; s = next[s])
        {
            if (!member[s] || prev[next[s]] != s || ++count > member.length)
            {
                throw new IllegalStateException(policy + ": list " + name + " is corrupt at slot " + s);
            }
        }
        if (count != size)
        {
            throw new IllegalStateException(policy + ": list " + name + " has " + count + " slots, counted " + size);
        }
    }
}
