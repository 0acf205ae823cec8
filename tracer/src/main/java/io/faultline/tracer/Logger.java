package io.faultline.tracer;

import io.faultline.format.ShmLayout;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * Moca's logger as an Agrona {@link Agent}: drains every claimed slot's ring into the trace,
 * chunk by chunk, so the agents never wait on a full ring for long. Single writer of the trace
 * and of the statistics while it runs.
 */
public final class Logger implements Agent
{
    private static final int READ_LIMIT = 1024;

    private final SharedMemory shm;
    private final TraceWriter writer;
    private final TraceStats stats;
    private int slotsInUse;

    public Logger(final SharedMemory shm, final TraceWriter writer, final TraceStats stats)
    {
        this.shm = shm;
        this.writer = writer;
        this.stats = stats;
    }

    private void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (type == ShmLayout.MSG_CHUNK)
        {
            writer.write(TraceLayout.EXCERPT_CHUNK, buffer, index, length);
            stats.onChunk(buffer, index);
        }
        else if (type == ShmLayout.MSG_EVENT)
        {
            writer.write(TraceLayout.EXCERPT_EVENT, buffer, index, length);
            stats.onEvent(buffer, index);
        }
        else
        {
            throw new IllegalStateException("unknown ring message type " + type + " from the agent");
        }
    }

    @Override
    public int doWork()
    {
        // Slots are claimed in order, so the first FREE one ends the scan.
        int work = 0;
        int slot = 0;
        for (; slot < shm.slotCount(); slot++)
        {
            if (slot >= slotsInUse && shm.slotState(slot) == ShmLayout.SLOT_FREE)
            {
                break;
            }
            final OneToOneRingBuffer ring = shm.ring(slot);
            work += ring.read(this::onMessage, READ_LIMIT);
        }
        slotsInUse = Math.max(slotsInUse, slot);
        return work;
    }

    /** Reads until every ring is empty; for the end of a recording, after the targets exited. */
    public void drain()
    {
        while (doWork() > 0)
        {
            Thread.onSpinWait();
        }
    }

    public int slotsInUse()
    {
        return slotsInUse;
    }

    @Override
    public String roleName()
    {
        return "faultline-logger";
    }

}
