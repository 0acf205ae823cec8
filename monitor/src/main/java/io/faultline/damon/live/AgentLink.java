package io.faultline.damon.live;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.faultline.tracer.Libc;
import io.faultline.damon.AddressRange;
import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.ShmLayout;
import io.faultline.tracer.SharedMemory;
import org.agrona.DirectBuffer;

/**
 * The monitor's side of the shared memory with the agents of a monitored program (monitor
 * mode: the agents record nothing): reads their rings, which in this mode carry only events,
 * to follow which memory each process's agent traces, and hands out each process's
 * {@link SamplingBoard}. Used from the monitoring thread only.
 */
final class AgentLink implements AutoCloseable
{
    private final SharedMemory shm;
    private final Map<Integer, Process> processes = new HashMap<>();
    private final Map<Integer, Integer> slotOfPid = new HashMap<>();
    private final Map<Integer, SamplingBoard> boards = new HashMap<>();
    private final Map<Integer, RangeSet> traced = new HashMap<>();
    private final Map<Integer, Integer> pidfds = new HashMap<>();
    private int slotsSeen;
    private long retiredRequests;
    private long retiredRequestNs;
    private long retiredChecks;

    /** Access checks over the whole run, every image's board included. */
    record CheckStats(long requests, long requestNs, long checkFaults, long faults)
    {
    }

    AgentLink(final SharedMemory shm)
    {
        this.shm = shm;
    }

    /** A process of the program the monitor started (its liveness is the Process's). */
    void watch(final Process process)
    {
        processes.put((int)process.pid(), process);
    }

    /** Reads every claimed slot's ring: events change the traced ranges. */
    void poll()
    {
        for (int slot = 0; slot < shm.slotCount(); slot++)
        {
            final int state = shm.slotState(slot);
            if (state == ShmLayout.SLOT_FREE)
            {
                if (slot >= slotsSeen)
                {
                    break; // slots are claimed lowest first
                }
                continue;
            }
            slotsSeen = Math.max(slotsSeen, slot + 1);
            final int pid = shm.slotInt(slot, ShmLayout.SLOT_PID);
            if (state == ShmLayout.SLOT_ACTIVE && !Integer.valueOf(slot).equals(slotOfPid.get(pid)))
            {
                // a new agent for this pid (first start, or the image after an exec)
                final SamplingBoard old = boards.remove(pid);
                if (old != null)
                {
                    retire(old);
                }
                slotOfPid.put(pid, slot);
                traced.put(pid, new RangeSet());
            }
            shm.ring(slot).read((type, buffer, index, length) -> onMessage(type, buffer, index), Integer.MAX_VALUE);
        }
    }

    private void onMessage(final int type, final DirectBuffer buffer, final int index)
    {
        if (type != ShmLayout.MSG_EVENT)
        {
            return; // monitor mode publishes no records
        }
        final int pid = buffer.getInt(index + EventDescriptor.PID);
        final RangeSet ranges = traced.get(pid);
        if (ranges == null)
        {
            return;
        }
        final long a = buffer.getLong(index + EventDescriptor.A);
        final long b = buffer.getLong(index + EventDescriptor.B);
        final int code = buffer.getInt(index + EventDescriptor.TYPE);
        if (code == EventType.TRACE_RANGE.code())
        {
            ranges.add(a, a + b);
        }
        else if (code == EventType.UNTRACE_RANGE.code() || code == EventType.MUNMAP.code())
        {
            ranges.remove(a, a + b);
        }
        else if (code == EventType.MREMAP.code())
        {
            ranges.move(a, b, buffer.getLong(index + EventDescriptor.C));
        }
    }

    /** The ranges pid's agent traces now, in address order (empty before it starts). */
    List<AddressRange> traced(final int pid)
    {
        final RangeSet ranges = traced.get(pid);
        return ranges == null ? List.of() : ranges.list();
    }

    /** How many times pid's traced memory grew (starts again at 0 for the image after an exec). */
    long growth(final int pid)
    {
        final RangeSet ranges = traced.get(pid);
        return ranges == null ? 0 : ranges.additions();
    }

    /** Whether pid's agent is tracing: its slot active and the process alive. */
    boolean alive(final int pid)
    {
        final Integer slot = slotOfPid.get(pid);
        final Process process = processes.get(pid);
        return slot != null && shm.slotState(slot) == ShmLayout.SLOT_ACTIVE && (process == null || process.isAlive());
    }

    /** Whether pid has ended (or its agent stopped for good). */
    boolean gone(final int pid)
    {
        final Process process = processes.get(pid);
        if (process != null && !process.isAlive())
        {
            return true;
        }
        final Integer slot = slotOfPid.get(pid);
        return slot != null && shm.slotState(slot) == ShmLayout.SLOT_STOPPED
            && shm.slotInt(slot, ShmLayout.SLOT_STOP_REASON) != ShmLayout.STOP_EXEC;
    }

    /** pid's sampling board, or null before its agent has claimed a slot. */
    SamplingBoard board(final int pid)
    {
        final Integer slot = slotOfPid.get(pid);
        if (slot == null)
        {
            return null;
        }
        return boards.computeIfAbsent(pid, p -> new SamplingBoard(shm.buffer(), shm.boardOffset(slot), shm.boardEntries(), p));
    }

    private void retire(final SamplingBoard board)
    {
        retiredRequests += board.requests();
        retiredRequestNs += board.requestNs();
        retiredChecks += board.checks();
        board.close();
    }

    CheckStats stats()
    {
        long requests = retiredRequests;
        long ns = retiredRequestNs;
        long checks = retiredChecks;
        for (final SamplingBoard b : boards.values())
        {
            requests += b.requests();
            ns += b.requestNs();
            checks += b.checks();
        }
        long faults = 0; // every fault the agents handled
        for (int slot = 0; slot < slotsSeen; slot++)
        {
            faults += shm.slotLong(slot, ShmLayout.SLOT_FAULTS);
        }
        return new CheckStats(requests, ns, checks, faults);
    }

    /** A pidfd of pid (for process_madvise), or -1 if it is gone. */
    int pidfd(final int pid)
    {
        return pidfds.computeIfAbsent(pid, p -> (int)Libc.INSTANCE.syscall(Libc.SYS_PIDFD_OPEN, p, 0));
    }

    @Override
    public void close()
    {
        boards.values().forEach(SamplingBoard::close);
        boards.clear();
        pidfds.values().stream().filter(fd -> fd >= 0).forEach(Libc.INSTANCE::close);
        pidfds.clear();
    }
}
