package io.faultline.format;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.agrona.DirectBuffer;

/**
 * The items of one sound excerpt of a version 1 to 3 trace (a chunk, an event, a Moca chunk:
 * FORMAT.md, "Version 3"), as an {@link ItemBatch}: what the reader delivers from, whichever the
 * version.
 */
final class ExcerptItems
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final int KIND = TraceLayout.EXCERPT_KIND_SIZE;

    private ExcerptItems()
    {
    }

    /** Fills {@code out} from an excerpt that passed {@link ExcerptCheck}: u32 kind, then the payload. */
    static void fill(final DirectBuffer e, final int length, final ItemBatch out)
    {
        final int kind = e.getInt(0, LE);
        if (kind == TraceLayout.EXCERPT_CHUNK && !ChunkDescriptor.isMoca(e.getInt(KIND + ChunkDescriptor.FLAGS, LE)))
        {
            final int count = e.getInt(KIND + ChunkDescriptor.COUNT, LE);
            final int tid = e.getInt(KIND + ChunkDescriptor.TID, LE);
            out.clear(e.getInt(KIND + ChunkDescriptor.PID, LE), count);
            for (int i = 0; i < count; i++)
            {
                final int r = KIND + ChunkDescriptor.recordOffset(i);
                out.kind[i] = ItemBatch.RECORD;
                out.seq[i] = e.getLong(r + ChunkDescriptor.RECORD_SEQ, LE);
                out.time[i] = e.getLong(r + ChunkDescriptor.RECORD_TIME_NS, LE);
                out.tid[i] = tid;
                out.address[i] = e.getLong(r + ChunkDescriptor.RECORD_ADDRESS, LE);
                out.flags[i] = e.getInt(r + ChunkDescriptor.RECORD_FLAGS, LE);
                out.stack[i] = e.getInt(r + ChunkDescriptor.RECORD_STACK, LE);
            }
            out.size = count;
        }
        else if (kind == TraceLayout.EXCERPT_CHUNK)
        {
            out.clear(e.getInt(KIND + ChunkDescriptor.PID, LE), 1);
            final byte[] payload = new byte[length];
            e.getBytes(0, payload);
            out.kind[0] = ItemBatch.MOCA;
            out.seq[0] = e.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_SEQ, LE);
            out.time[0] = e.getLong(KIND + ChunkDescriptor.MOCA_CLOSE_NS, LE);
            out.tid[0] = e.getInt(KIND + ChunkDescriptor.TID, LE);
            out.moca[0] = payload;
            out.size = 1;
        }
        else
        {
            out.clear(e.getInt(KIND + EventDescriptor.PID, LE), 1);
            final int textLength = e.getInt(KIND + EventDescriptor.TEXT_LENGTH, LE);
            final byte[] text = new byte[textLength];
            e.getBytes(KIND + EventDescriptor.HEADER_SIZE, text);
            out.kind[0] = ItemBatch.EVENT;
            out.flags[0] = e.getInt(KIND + EventDescriptor.TYPE, LE);
            out.tid[0] = e.getInt(KIND + EventDescriptor.TID, LE);
            out.seq[0] = e.getLong(KIND + EventDescriptor.SEQ, LE);
            out.time[0] = e.getLong(KIND + EventDescriptor.TIME_NS, LE);
            out.address[0] = e.getLong(KIND + EventDescriptor.A, LE);
            out.b[0] = e.getLong(KIND + EventDescriptor.B, LE);
            out.c[0] = e.getLong(KIND + EventDescriptor.C, LE);
            out.d[0] = e.getLong(KIND + EventDescriptor.D, LE);
            out.text[0] = textLength == 0 ? null : new String(text, StandardCharsets.UTF_8);
            out.size = 1;
        }
    }
}
