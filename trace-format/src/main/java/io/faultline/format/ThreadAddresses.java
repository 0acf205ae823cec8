package io.faultline.format;

import org.agrona.collections.Long2LongHashMap;

/**
 * The last address each thread of a block referenced (a thread's next reference is coded as a
 * delta from it) and how many threads the block has. A decoder looks it up at every change of
 * thread (most references of a multi-threaded JVM) and empties it for every block, so it is a
 * direct-mapped table by the tid's low bits (a process's tids are mostly close together), with
 * a map for the tids that collide, emptied in O(1) by a generation count.
 */
final class ThreadAddresses
{
    /** What {@link #get} gives for a thread not seen in the block. */
    static final long NONE = Long.MIN_VALUE;
    private static final int SLOTS = 1024;

    private final int[] tids = new int[SLOTS];
    private final long[] addresses = new long[SLOTS];
    private final int[] generations = new int[SLOTS];
    private final Long2LongHashMap collided = new Long2LongHashMap(NONE);
    private int generation = 1;
    private int size;

    void clear()
    {
        generation++;
        size = 0;
        if (!collided.isEmpty())
        {
            collided.clear();
        }
        if (generation == Integer.MAX_VALUE)
        {
            java.util.Arrays.fill(generations, 0);
            generation = 1;
        }
    }

    /** Threads put since the last {@link #clear}. */
    int size()
    {
        return size;
    }

    long get(final int tid)
    {
        final int i = tid & (SLOTS - 1);
        if (generations[i] == generation && tids[i] == tid)
        {
            return addresses[i];
        }
        return collided.isEmpty() ? NONE : collided.get(tid);
    }

    void put(final int tid, final long address)
    {
        final int i = tid & (SLOTS - 1);
        if (generations[i] != generation)
        {
            generations[i] = generation;
            tids[i] = tid;
            addresses[i] = address;
            size++;
        }
        else if (tids[i] == tid)
        {
            addresses[i] = address;
        }
        else if (collided.put(tid, address) == NONE)
        {
            size++;
        }
    }
}
