package io.faultline.format;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;

/**
 * The checks a reader makes on one excerpt before it hands any of its records or its event to
 * anyone (trace-format/FORMAT.md, "Checks a reader makes"): its kind, its length against its own
 * record count or text length, and what a record may hold. Random bytes, a flipped length field
 * or a cut excerpt fail one of them; the excerpt is then reported whole, never half delivered.
 */
final class ExcerptCheck
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int KNOWN_RECORD_FLAGS = ChunkDescriptor.REC_WRITE | ChunkDescriptor.REC_FIRST_TOUCH
            | ChunkDescriptor.REC_KERNEL;
    private static final int KNOWN_CHUNK_FLAGS = ChunkDescriptor.MOCA;

    private ExcerptCheck()
    {
    }

    /**
     * @param excerpt the excerpt's bytes from offset 0: u32 kind, then the payload
     * @return null if the excerpt is sound, else what is wrong with it, in a few words
     */
    static String problem(final DirectBuffer excerpt, final int length)
    {
        if (length < TraceLayout.EXCERPT_KIND_SIZE)
        {
            return "it is " + length + " bytes long, shorter than its kind field";
        }
        final int kind = excerpt.getInt(0, LE);
        final int base = TraceLayout.EXCERPT_KIND_SIZE;
        final int payload = length - base;
        if (kind == TraceLayout.EXCERPT_CHUNK)
        {
            if (payload < ChunkDescriptor.HEADER_SIZE)
            {
                return "chunk of " + payload + " bytes is shorter than its header";
            }
            final int chunkFlags = excerpt.getInt(base + ChunkDescriptor.FLAGS, LE);
            if ((chunkFlags & ~KNOWN_CHUNK_FLAGS) != 0)
            {
                return "chunk flags are 0x" + Integer.toHexString(chunkFlags) + ", not 0 or 0x1 (Moca)";
            }
            final boolean moca = ChunkDescriptor.isMoca(chunkFlags);
            if (moca && payload < ChunkDescriptor.MOCA_HEADER_SIZE)
            {
                return "Moca chunk of " + payload + " bytes is shorter than its header";
            }
            final long count = excerpt.getInt(base + ChunkDescriptor.COUNT, LE) & 0xffffffffL;
            if (ChunkDescriptor.length(chunkFlags, count) != payload)
            {
                return "chunk says " + count + " records but holds " + payload + " bytes";
            }
            if (excerpt.getInt(base + ChunkDescriptor.PID, LE) <= 0 || excerpt.getInt(base + ChunkDescriptor.TID, LE) <= 0)
            {
                return "chunk has pid " + excerpt.getInt(base + ChunkDescriptor.PID, LE) + " and tid "
                    + excerpt.getInt(base + ChunkDescriptor.TID, LE) + "; both must be positive";
            }
            if (moca && count == 0)
            {
                return "Moca chunk holds no pages";
            }
            long previous = -1;
            for (int i = 0; i < count; i++)
            {
                final int r = base + ChunkDescriptor.recordOffset(chunkFlags, i);
                final long seq = excerpt.getLong(r + ChunkDescriptor.RECORD_SEQ, LE);
                if (i > 0 && Long.compareUnsigned(seq, previous) <= 0)
                {
                    return "record " + i + " has seq " + Long.toUnsignedString(seq) + " after seq "
                        + Long.toUnsignedString(previous) + "; a chunk's seq increases";
                }
                previous = seq;
                final int flags = excerpt.getInt(r + ChunkDescriptor.RECORD_FLAGS, LE);
                // a record's stack id (record --stacks) is any u32; a Moca record's is reserved, 0
                if ((flags & ~KNOWN_RECORD_FLAGS) != 0 || moca && excerpt.getInt(r + ChunkDescriptor.RECORD_STACK, LE) != 0)
                {
                    return "record " + i + " has unknown flags 0x" + Integer.toHexString(flags) + " or a reserved field that is not 0";
                }
                if (moca && excerpt.getInt(r + ChunkDescriptor.RECORD_MOCA_READS, LE)
                    + (long)excerpt.getInt(r + ChunkDescriptor.RECORD_MOCA_WRITES, LE) == 0)
                {
                    return "Moca record " + i + " counts no fault";
                }
            }
            if (moca)
            {
                return mocaProblem(excerpt, base, count);
            }
            return null;
        }
        if (kind == TraceLayout.EXCERPT_EVENT)
        {
            if (payload < EventDescriptor.HEADER_SIZE)
            {
                return "event of " + payload + " bytes is shorter than its header";
            }
            final long text = excerpt.getInt(base + EventDescriptor.TEXT_LENGTH, LE) & 0xffffffffL;
            if (EventDescriptor.HEADER_SIZE + text != payload)
            {
                return "event says " + text + " bytes of text but holds " + payload + " bytes";
            }
            if (excerpt.getInt(base + EventDescriptor.PID, LE) <= 0)
            {
                return "event has pid " + excerpt.getInt(base + EventDescriptor.PID, LE) + "; it must be positive";
            }
            return null;
        }
        return "unknown excerpt kind " + (kind & 0xffffffffL) + " (1 = chunk, 2 = event)";
    }

    /** A Moca chunk's clocks against its records: start is the first's, end one past the last's, close after both. */
    private static String mocaProblem(final DirectBuffer excerpt, final int base, final long count)
    {
        final long first = excerpt.getLong(base + ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, 0)
            + ChunkDescriptor.RECORD_SEQ, LE);
        final long last = excerpt.getLong(base + ChunkDescriptor.recordOffset(ChunkDescriptor.MOCA, (int)count - 1)
            + ChunkDescriptor.RECORD_SEQ, LE);
        final long start = excerpt.getLong(base + ChunkDescriptor.MOCA_START_SEQ, LE);
        final long end = excerpt.getLong(base + ChunkDescriptor.MOCA_END_SEQ, LE);
        final long close = excerpt.getLong(base + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
        if (start != first || end != last + 1 || Long.compareUnsigned(close, end) < 0)
        {
            return "Moca chunk's clocks (start " + Long.toUnsignedString(start) + ", end " + Long.toUnsignedString(end)
                + ", close " + Long.toUnsignedString(close) + ") do not match its records' seq "
                + Long.toUnsignedString(first) + " to " + Long.toUnsignedString(last);
        }
        return null;
    }

    /** The pid of a sound excerpt. */
    static int pid(final DirectBuffer excerpt)
    {
        final int kind = excerpt.getInt(0, LE);
        return excerpt.getInt(TraceLayout.EXCERPT_KIND_SIZE
            + (kind == TraceLayout.EXCERPT_CHUNK ? ChunkDescriptor.PID : EventDescriptor.PID), LE);
    }
}
