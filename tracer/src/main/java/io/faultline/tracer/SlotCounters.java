package io.faultline.tracer;

import io.faultline.format.ShmLayout;

/**
 * What one process slot reported (faultline_shm.h, FL_SLOT_*), read once: from a live slot at
 * the end of a recording, or from a slot given back for reuse when its process was gone.
 */
record SlotCounters(int pid, int ppid, int state, int stopReason, int error, long records, long ringWaits,
    long ringWaitNs, long evictions, long races, long disableNs, long stoppedMs)
{
    static SlotCounters read(final SharedMemory shm, final int slot)
    {
        return new SlotCounters(
            shm.slotInt(slot, ShmLayout.SLOT_PID),
            shm.slotInt(slot, ShmLayout.SLOT_PPID),
            shm.slotState(slot),
            shm.slotInt(slot, ShmLayout.SLOT_STOP_REASON),
            shm.slotInt(slot, ShmLayout.SLOT_ERROR),
            shm.slotLong(slot, ShmLayout.SLOT_RECORDS),
            shm.slotLong(slot, ShmLayout.SLOT_RING_WAITS),
            shm.slotLong(slot, ShmLayout.SLOT_WAIT_NS),
            shm.slotLong(slot, ShmLayout.SLOT_EVICTIONS),
            shm.slotLong(slot, ShmLayout.SLOT_RACES),
            shm.slotLong(slot, ShmLayout.SLOT_DISABLE_NS),
            Integer.toUnsignedLong(shm.slotInt(slot, ShmLayout.SLOT_STOPPED_MS)));
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
