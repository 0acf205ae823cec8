package io.faultline.tracer;

import java.util.HashMap;
import java.util.Map;

import io.faultline.format.ShmLayout;

/**
 * What one process slot reported (faultline_shm.h, FL_SLOT_* and its thread ledger), read once:
 * from a live slot at the end of a recording, or from a slot given back for reuse when its
 * process was gone.
 *
 * @param published records the agent published per thread (tid); key 0: those of threads that
 *                  found no ledger entry (an image that ran more threads than a ledger holds)
 */
record SlotCounters(int pid, int ppid, int state, int stopReason, int error, long records, long ringWaits,
    long ringWaitNs, long evictions, long races, long disableNs, long stoppedMs, Map<Integer, Long> published)
{
    /**
     * @param threads what the image's thread rings counted (Logger.THREAD_COUNTERS: records, ring
     *                waits, their time, evictions, races), added to the slot's own
     */
    static SlotCounters read(final SharedMemory shm, final int slot, final long[] threads)
    {
        return new SlotCounters(
            shm.slotInt(slot, ShmLayout.SLOT_PID),
            shm.slotInt(slot, ShmLayout.SLOT_PPID),
            shm.slotState(slot),
            shm.slotInt(slot, ShmLayout.SLOT_STOP_REASON),
            shm.slotInt(slot, ShmLayout.SLOT_ERROR),
            shm.slotLong(slot, ShmLayout.SLOT_RECORDS) + threads[0],
            shm.slotLong(slot, ShmLayout.SLOT_RING_WAITS) + threads[1],
            shm.slotLong(slot, ShmLayout.SLOT_WAIT_NS) + threads[2],
            shm.slotLong(slot, ShmLayout.SLOT_EVICTIONS) + threads[3],
            shm.slotLong(slot, ShmLayout.SLOT_RACES) + threads[4],
            shm.slotLong(slot, ShmLayout.SLOT_DISABLE_NS),
            Integer.toUnsignedLong(shm.slotInt(slot, ShmLayout.SLOT_STOPPED_MS)),
            ledger(shm, slot));
    }

    private static Map<Integer, Long> ledger(final SharedMemory shm, final int slot)
    {
        final Map<Integer, Long> published = new HashMap<>();
        final int base = (int)shm.ledgerOffset(slot);
        for (int i = 0; i < ShmLayout.LEDGER_ENTRIES; i++)
        {
            final int entry = base + i * ShmLayout.LEDGER_ENTRY_SIZE;
            final int tid = shm.buffer().getIntVolatile(entry + ShmLayout.LEDGER_TID);
            final long records = shm.buffer().getLongVolatile(entry + ShmLayout.LEDGER_RECORDS);
            if ((i == 0 || tid != 0) && records != 0)
            {
                published.merge(i == 0 ? 0 : tid, records, Long::sum);
            }
        }
        return published;
    }

    boolean stoppedOnError()
    {
        return state == ShmLayout.SLOT_STOPPED && stopReason == ShmLayout.STOP_ERROR;
    }

    /**
     * The agent took the recorder for gone while it was not: the recorder drained nothing from
     * this process's ring for 10 s (it was stopped, or starved), and the agent stopped tracing
     * so that the program would not wait on it (native-shims, ring_put).
     */
    boolean gaveUpOnTheRecorder()
    {
        return state == ShmLayout.SLOT_STOPPED && stopReason == ShmLayout.STOP_RECORDER_GONE;
    }
}
