package io.faultline.format;

/**
 * The items of one block (or one version-3 excerpt) of one process, decoded into arrays, in seq
 * order: what the reader delivers from. Times are as written, from the recording's start.
 * <p>
 * A reference: {@code kind} RECORD, its seq, time, tid, address, record flags (FORMAT.md: write,
 * first touch, kernel) and stack id. An event: {@code kind} EVENT, {@code flags} its type,
 * {@code address} its a, then b, c, d and text (null: none). A Moca chunk: {@code kind} MOCA, its
 * payload (FORMAT.md, "Moca chunk") in {@code moca}; its seq is its close_seq, its time its close_ns.
 */
final class ItemBatch
{
    static final byte RECORD = 0;
    static final byte EVENT = 1;
    static final byte MOCA = 2;

    int pid;
    int size;
    byte[] kind = new byte[0];
    long[] seq = new long[0];
    long[] time = new long[0];
    int[] tid = new int[0];
    long[] address = new long[0];
    int[] flags = new int[0];
    int[] stack = new int[0];
    long[] b = new long[0];
    long[] c = new long[0];
    long[] d = new long[0];
    String[] text = new String[0];
    byte[][] moca = new byte[0][];

    void clear(final int pid, final int capacity)
    {
        this.pid = pid;
        size = 0;
        if (kind.length < capacity)
        {
            final int n = Math.max(capacity, kind.length * 2);
            kind = new byte[n];
            seq = new long[n];
            time = new long[n];
            tid = new int[n];
            address = new long[n];
            flags = new int[n];
            stack = new int[n];
            b = new long[n];
            c = new long[n];
            d = new long[n];
            text = new String[n];
            moca = new byte[n][];
        }
    }

    boolean isRecord(final int i)
    {
        return kind[i] == RECORD;
    }

    /** Records before events of the same seq (FORMAT.md, "Order"): an event's rank is 0, a record's 1. */
    int rank(final int i)
    {
        return kind[i] == RECORD ? 1 : 0;
    }
}
