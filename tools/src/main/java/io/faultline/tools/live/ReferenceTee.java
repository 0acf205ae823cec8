package io.faultline.tools.live;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.TraceLayout;
import io.faultline.sim.trace.PageKey;
import io.faultline.tracer.ExcerptTee;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * The recorder's side of a live replay: on the drain thread, copies each reference record of
 * every chunk the logger writes into the {@link Backlog}, as (seq, page, time), and publishes it
 * per chunk. Events are not replayed (mrc and simulate read references only). The page is the
 * key {@code mrc} and {@code simulate} give a faultline trace's reference ({@link PageKey}): the
 * process and the address over the trace's page size (a power of two, so a shift).
 */
final class ReferenceTee implements ExcerptTee
{
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final Backlog backlog;
    private final int pageShift;

    ReferenceTee(final Backlog backlog, final int pageSize)
    {
        if (Integer.bitCount(pageSize) != 1)
        {
            throw new IllegalArgumentException("page size must be a power of two: pageSize=" + pageSize);
        }
        this.backlog = backlog;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
    }

    @Override
    public void onExcerpt(final int kind, final DirectBuffer buffer, final int offset, final int length)
    {
        if (kind != TraceLayout.EXCERPT_CHUNK || ChunkDescriptor.isMoca(buffer.getInt(offset + ChunkDescriptor.FLAGS, LE)))
        {
            return;
        }
        final int count = buffer.getInt(offset + ChunkDescriptor.COUNT, LE);
        final int pid = buffer.getInt(offset + ChunkDescriptor.PID, LE);
        for (int i = 0; i < count; i++)
        {
            final int record = offset + ChunkDescriptor.recordOffset(i);
            backlog.add(buffer.getLong(record + ChunkDescriptor.RECORD_SEQ, LE),
                PageKey.ofShift(pid, buffer.getLong(record + ChunkDescriptor.RECORD_ADDRESS, LE), pageShift),
                buffer.getLong(record + ChunkDescriptor.RECORD_TIME_NS, LE));
        }
        backlog.publish();
    }
}
