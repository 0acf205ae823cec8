package io.faultline.tracer;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.ShmLayout;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The consumer side of one agent ring (Agrona's {@code OneToOneRingBuffer} layout,
 * faultline_shm.h and docs/ARCHITECTURE.md "Rings"), one record at a time and with a look at the
 * next one before it is taken: the {@link Logger} merges a process image's rings by seq, so it
 * must see every ring's next record before it takes any. A chunk message is consumed record by
 * record; an event or a Moca chunk as a whole.
 * <p>
 * Consumed space is zeroed and the head published in {@link #commit()}, as Agrona's consumer does
 * (its {@code read}), so that the producer's "length 0: not yet written" holds for the next lap.
 * <p>
 * Every message of one ring has a seq at least that of the message before it (one producer at a
 * time, which takes its seqs from the global clock in order), which the merge relies on; the
 * key of what is next ({@link #key()}) orders an event (or a Moca chunk, at its close_seq) before
 * a record with the same seq: {@code 2 * seq} for an event, {@code 2 * seq + 1} for a record.
 */
final class RingCursor
{
    private static final int HEADER = 8;

    private final UnsafeBuffer buffer;
    private final int capacity;
    private final int headPositionIndex;
    /** Head position of the next unconsumed byte (may be ahead of the published head until commit). */
    private long head;
    /** Published head: what the producer sees as consumed. */
    private long committed;

    /** The message at head, when {@link #peek()} found one. */
    private int type;
    private int messageIndex;
    private int messageLength;
    private int alignedLength;
    /** A plain chunk: records in it, and the next one to take. */
    private int records;
    private int record;
    private boolean present;

    RingCursor(final UnsafeBuffer ring, final int capacity)
    {
        this.buffer = ring;
        this.capacity = capacity;
        this.headPositionIndex = capacity + 384;
        this.head = ring.getLongVolatile(headPositionIndex);
        this.committed = head;
    }

    /**
     * Looks at the next message (skipping padding): true if one is there. Calling it again
     * without a {@link #take()} in between reads nothing new.
     */
    boolean peek()
    {
        if (present)
        {
            return true;
        }
        for (;;)
        {
            final int index = (int)head & (capacity - 1);
            final int length = buffer.getIntVolatile(index);
            if (length <= 0)
            {
                return false;
            }
            final int aligned = (length + 7) & ~7;
            final int t = buffer.getInt(index + 4);
            if (t == -1)
            {
                head += aligned; // padding to the end of the buffer
                continue;
            }
            type = t;
            messageIndex = index + HEADER;
            messageLength = length - HEADER;
            alignedLength = aligned;
            records = t == ShmLayout.MSG_CHUNK && !ChunkDescriptor.isMoca(buffer.getInt(messageIndex + ChunkDescriptor.FLAGS))
                ? buffer.getInt(messageIndex + ChunkDescriptor.COUNT) : 0;
            record = 0;
            present = true;
            if (t == ShmLayout.MSG_CHUNK && records == 0 && !isMoca())
            {
                // an empty plain chunk carries nothing: pass over it
                take();
                continue;
            }
            return true;
        }
    }

    /** The message is a plain chunk: {@link #take()} takes one of its records. */
    boolean isRecord()
    {
        return records > 0;
    }

    boolean isMoca()
    {
        return type == ShmLayout.MSG_CHUNK && ChunkDescriptor.isMoca(buffer.getInt(messageIndex + ChunkDescriptor.FLAGS));
    }

    int type()
    {
        return type;
    }

    /** The merge key of what is next (see the class comment); peek first. */
    long key()
    {
        if (records > 0)
        {
            return 2 * buffer.getLong(recordOffset() + ChunkDescriptor.RECORD_SEQ) + 1;
        }
        if (type == ShmLayout.MSG_EVENT)
        {
            return 2 * buffer.getLong(messageIndex + EventDescriptor.SEQ);
        }
        return 2 * buffer.getLong(messageIndex + ChunkDescriptor.MOCA_CLOSE_SEQ);
    }

    /** An event's time, to order events with the same seq; peek first. */
    long timeNs()
    {
        if (records > 0)
        {
            return buffer.getLong(recordOffset() + ChunkDescriptor.RECORD_TIME_NS);
        }
        return type == ShmLayout.MSG_EVENT ? buffer.getLong(messageIndex + EventDescriptor.TIME_NS)
            : buffer.getLong(messageIndex + ChunkDescriptor.MOCA_CLOSE_NS);
    }

    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** Where the message starts (an event, a Moca chunk, or the chunk whose record is next). */
    int messageIndex()
    {
        return messageIndex;
    }

    int messageLength()
    {
        return messageLength;
    }

    /** The offset of the chunk's next record. */
    int recordOffset()
    {
        return messageIndex + ChunkDescriptor.HEADER_SIZE + record * ChunkDescriptor.RECORD_SIZE;
    }

    /** Takes what is next: one record of a chunk, or the whole message. */
    void take()
    {
        if (records > 0 && ++record < records)
        {
            return;
        }
        head += alignedLength;
        present = false;
        if (head - committed >= capacity / 4)
        {
            commit();
        }
    }

    /** Zeroes what was taken and publishes the head, so that the producer has the room. */
    void commit()
    {
        if (head == committed)
        {
            return;
        }
        // the message being taken (a chunk partly taken) stays whole until it is all taken
        final long upTo = present ? head : head;
        long from = committed;
        while (from < upTo)
        {
            final int index = (int)from & (capacity - 1);
            final int length = (int)Math.min(upTo - from, capacity - index);
            buffer.setMemory(index, length, (byte)0);
            from += length;
        }
        buffer.putLongOrdered(headPositionIndex, upTo);
        committed = upTo;
    }

    /** Nothing is taken but not yet committed, and nothing is there now. */
    boolean drained()
    {
        return !peek() && head == committed;
    }
}
