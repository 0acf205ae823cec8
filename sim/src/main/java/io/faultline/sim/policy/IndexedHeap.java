package io.faultline.sim.policy;

import java.util.Arrays;

/**
 * A binary min-heap of slot indices ordered by a long priority, with each slot's position
 * tracked so that any slot can be re-prioritised or removed in O(log n). OPT keeps its
 * residents here by (negated) next use.
 */
public final class IndexedHeap
{
    private final int[] heap;
    private final int[] position;
    private final long[] priority;
    private int size;

    /** The bytes of a heap for {@code slots} slots. */
    public static long bytes(final long slots)
    {
        return slots * (2L * Integer.BYTES + Long.BYTES);
    }

    /** A heap for slots {@code 0 .. slots - 1}. */
    public IndexedHeap(final int slots)
    {
        heap = new int[slots];
        position = new int[slots];
        priority = new long[slots];
        Arrays.fill(position, -1);
    }

    public int size()
    {
        return size;
    }

    public boolean contains(final int slot)
    {
        return position[slot] >= 0;
    }

    /** The slot with the least priority; the heap must not be empty. */
    public int peek()
    {
        return heap[0];
    }

    public long priority(final int slot)
    {
        return priority[slot];
    }

    /** Adds {@code slot}, which must be absent. */
    public void add(final int slot, final long value)
    {
        priority[slot] = value;
        heap[size] = slot;
        position[slot] = size;
        siftUp(size++);
    }

    /** Changes the priority of {@code slot}, which must be present. */
    public void update(final int slot, final long value)
    {
        final long old = priority[slot];
        priority[slot] = value;
        if (value < old)
        {
            siftUp(position[slot]);
        }
        else
        {
            siftDown(position[slot]);
        }
    }

    /** Removes and returns the slot with the least priority. */
    public int poll()
    {
        final int top = heap[0];
        remove(top);
        return top;
    }

    /** Removes {@code slot}, which must be present. */
    public void remove(final int slot)
    {
        final int at = position[slot];
        position[slot] = -1;
        final int last = heap[--size];
        if (at == size)
        {
            return;
        }
        heap[at] = last;
        position[last] = at;
        siftDown(at);
        siftUp(position[last]);
    }

    private void siftUp(int at)
    {
        final int slot = heap[at];
        final long value = priority[slot];
        while (at > 0)
        {
            final int parent = (at - 1) >>> 1;
            final int above = heap[parent];
            if (priority[above] <= value)
            {
                break;
            }
            heap[at] = above;
            position[above] = at;
            at = parent;
        }
        heap[at] = slot;
        position[slot] = at;
    }

    private void siftDown(int at)
    {
        final int slot = heap[at];
        final long value = priority[slot];
        final int half = size >>> 1;
        while (at < half)
        {
            int child = 2 * at + 1;
            final int right = child + 1;
            if (right < size && priority[heap[right]] < priority[heap[child]])
            {
                child = right;
            }
            final int below = heap[child];
            if (value <= priority[below])
            {
                break;
            }
            heap[at] = below;
            position[below] = at;
            at = child;
        }
        heap[at] = slot;
        position[slot] = at;
    }

    /** Checks the heap order and the position index. */
    public void check(final String policy)
    {
        for (int i = 0; i < size; i++)
        {
            if (position[heap[i]] != i)
            {
                throw new IllegalStateException(policy + ": heap position of slot " + heap[i] + " is stale");
            }
            if (i > 0 && priority[heap[(i - 1) >>> 1]] > priority[heap[i]])
            {
                throw new IllegalStateException(policy + ": heap order broken at " + i);
            }
        }
    }
}
