package io.faultline.format;

import java.nio.ByteOrder;

import org.agrona.MutableDirectBuffer;

/**
 * An event: something that happened to a process, a thread or a mapping; the payload of a ring
 * message of type {@link ShmLayout#MSG_EVENT} and, unchanged, of a trace excerpt of kind
 * {@link TraceLayout#EXCERPT_EVENT}. The meaning of a, b, c and d is given per type in
 * {@link EventType}.
 *
 * <pre>
 *   0   u32 type          EventType code
 *   4   u32 pid
 *   8   u32 tid
 *   12  u32 text_length   bytes of UTF-8 text after the fixed part (no NUL)
 *   16  u64 seq           global clock when it happened: records with a smaller seq came before
 *   24  u64 time_ns       CLOCK_MONOTONIC since the recording started
 *   32  u64 a
 *   40  u64 b
 *   48  u64 c
 *   56  u64 d
 *   64  text
 * </pre>
 */
public final class EventDescriptor
{
    public static final int TYPE = 0;
    public static final int PID = 4;
    public static final int TID = 8;
    public static final int TEXT_LENGTH = 12;
    public static final int SEQ = 16;
    public static final int TIME_NS = 24;
    public static final int A = 32;
    public static final int B = 40;
    public static final int C = 48;
    public static final int D = 56;
    public static final int HEADER_SIZE = 64;

    /**
     * Writes one event at offset 0 of {@code buffer} (little-endian, the agent's order), its text
     * after the fixed part; returns its length, what a writer of the event takes.
     */
    public static int encode(final MutableDirectBuffer buffer, final EventType type, final int pid, final int tid,
        final long seq, final long timeNs, final long a, final long b, final long c, final long d, final byte[] text)
    {
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        buffer.putInt(TYPE, type.code(), le);
        buffer.putInt(PID, pid, le);
        buffer.putInt(TID, tid, le);
        buffer.putInt(TEXT_LENGTH, text.length, le);
        buffer.putLong(SEQ, seq, le);
        buffer.putLong(TIME_NS, timeNs, le);
        buffer.putLong(A, a, le);
        buffer.putLong(B, b, le);
        buffer.putLong(C, c, le);
        buffer.putLong(D, d, le);
        buffer.putBytes(HEADER_SIZE, text);
        return HEADER_SIZE + text.length;
    }

    private EventDescriptor()
    {
    }
}
