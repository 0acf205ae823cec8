package io.faultline.sim.policy;

/**
 * An open-addressing map from a key to a non-negative int (a slot index), with linear probing,
 * Fibonacci hashing and backward-shift deletion, so there are no tombstones and lookups stay
 * short however many keys come and go. A policy's resident set churns on every miss; this map
 * does that without allocating.
 */
public final class KeyTable
{
    /** Returned by {@link #get} and {@link #remove} for an absent key. */
    public static final int MISSING = -1;

    /**
     * The most keys a table holds: its length is a power of two kept at most half full, and the
     * largest power-of-two array Java allows has 2^30 entries.
     */
    public static final int MAX_KEYS = 1 << 29;

    private long[] keys;
    private int[] values;
    private int shift;
    private int mask;
    private int size;
    private int resizeAt;

    /** A table that holds {@code expected} keys without growing. */
    public KeyTable(final int expected)
    {
        if (expected > MAX_KEYS)
        {
            throw new IllegalArgumentException("a key table holds at most " + MAX_KEYS + " keys: expected=" + expected);
        }
        allocate((int)length(expected));
    }

    /** The table length for {@code expected} keys: a power of two, at least twice that. */
    private static long length(final long expected)
    {
        return Math.max(16, Long.highestOneBit(Math.max(1, expected) * 2 - 1) << 1);
    }

    /** The bytes of a table made for {@code expected} keys (its two arrays). */
    public static long bytes(final long expected)
    {
        return length(expected) * (Long.BYTES + Integer.BYTES);
    }

    private void allocate(final int length)
    {
        keys = new long[length];
        values = new int[length];
        java.util.Arrays.fill(values, MISSING);
        mask = length - 1;
        shift = 64 - Integer.numberOfTrailingZeros(length);
        resizeAt = length / 2;
    }

    private int home(final long key)
    {
        return (int)((key * 0x9E3779B97F4A7C15L) >>> shift);
    }

    public int size()
    {
        return size;
    }

    /** The value of {@code key}, or {@link #MISSING}. */
    public int get(final long key)
    {
        final long[] keys = this.keys;
        final int[] values = this.values;
        int i = home(key);
        while (true)
        {
            final int value = values[i];
            if (value == MISSING || keys[i] == key)
            {
                return value;
            }
            i = (i + 1) & mask;
        }
    }

    /** Maps {@code key} to {@code value} (>= 0), replacing any previous value. */
    public void put(final long key, final int value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException("value must be >= 0: value=" + value);
        }
        int i = home(key);
        while (values[i] != MISSING)
        {
            if (keys[i] == key)
            {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        if (++size > resizeAt)
        {
            grow();
        }
    }

    /** Removes {@code key}, returning its value or {@link #MISSING}. */
    public int remove(final long key)
    {
        final long[] keys = this.keys;
        final int[] values = this.values;
        int i = home(key);
        while (true)
        {
            final int value = values[i];
            if (value == MISSING)
            {
                return MISSING;
            }
            if (keys[i] == key)
            {
                size--;
                closeGap(i);
                return value;
            }
            i = (i + 1) & mask;
        }
    }

    /** Shifts back the entries of the probe run after {@code gap} that may move into it. */
    private void closeGap(int gap)
    {
        final long[] keys = this.keys;
        final int[] values = this.values;
        int i = gap;
        while (true)
        {
            i = (i + 1) & mask;
            if (values[i] == MISSING)
            {
                break;
            }
            final int home = home(keys[i]);
            // The entry at i may fill the gap unless its home lies cyclically in (gap, i].
            final boolean stays = gap <= i ? (gap < home && home <= i) : (gap < home || home <= i);
            if (!stays)
            {
                keys[gap] = keys[i];
                values[gap] = values[i];
                gap = i;
            }
        }
        values[gap] = MISSING;
    }

    private void grow()
    {
        final long[] oldKeys = keys;
        final int[] oldValues = values;
        if (oldKeys.length > MAX_KEYS)
        {
            throw new IllegalStateException("a key table holds at most " + MAX_KEYS + " keys");
        }
        allocate(oldKeys.length * 2);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++)
        {
            if (oldValues[i] != MISSING)
            {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }
}
