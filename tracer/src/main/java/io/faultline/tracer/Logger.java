package io.faultline.tracer;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.ShmLayout;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * Moca's logger as an Agrona {@link Agent}: drains every claimed slot's ring into the trace so
 * the agents never wait on a full ring for long. Single writer of the trace and of the
 * statistics while it runs.
 * <p>
 * The agent must publish each batch of records before it resolves their faults, so a
 * single-threaded program yields one-record chunks. The logger joins consecutive chunks of the
 * same thread (up to the configured chunk size) into one excerpt: the trace keeps the meaning
 * of a chunk, consecutive references of one thread, with far fewer excerpts. An event, another
 * thread's chunk or an empty ring ends the chunk being joined.
 */
public final class Logger implements Agent
{
    private static final int READ_LIMIT = 1024;
    private static final long EXIT_CHECK_INTERVAL_NS = 50_000_000L;

    private final SharedMemory shm;
    /** Null when the recording keeps no trace (record --live without -o): excerpts go to the tee only. */
    private final TraceWriter writer;
    private ExcerptTee tee;
    private final TraceStats stats;
    private final int maxRecords;
    private final UnsafeBuffer joined;
    private int joinedRecords;
    private int slotsInUse;
    private int mainPid = -1;
    private long nextExitCheckNs;
    private final org.agrona.collections.IntHashSet exited = new org.agrona.collections.IntHashSet();
    private final java.util.List<SlotCounters> retired = new java.util.ArrayList<>();
    private RecordingCounts counts;
    private final UnsafeBuffer exitEvent = new UnsafeBuffer(new byte[EventDescriptor.HEADER_SIZE]);
    /**
     * For each slot, the older slot of the same pid (the image it exec'd from), -1 if none,
     * UNKNOWN until the slot's pid is known.
     */
    private final int[] execPredecessor;
    private static final int UNKNOWN = -2;

    /** @param writer the trace, or null to keep none (the excerpts then reach only a {@link #tee}) */
    public Logger(final SharedMemory shm, final TraceWriter writer, final TraceStats stats, final int chunkRecords)
    {
        this.shm = shm;
        this.writer = writer;
        this.stats = stats;
        this.maxRecords = chunkRecords;
        this.joined = new UnsafeBuffer(new byte[ChunkDescriptor.length(chunkRecords)]);
        this.execPredecessor = new int[shm.slotCount()];
        java.util.Arrays.fill(execPredecessor, UNKNOWN);
    }

    private void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (type == ShmLayout.MSG_CHUNK && ChunkDescriptor.isMoca(buffer.getInt(index + ChunkDescriptor.FLAGS)))
        {
            // a Moca chunk is one thread's interval, whole: never joined with another
            flushJoined();
            write(TraceLayout.EXCERPT_CHUNK, buffer, index, length);
            stats.onChunk(buffer, index);
        }
        else if (type == ShmLayout.MSG_CHUNK)
        {
            final int count = buffer.getInt(index + ChunkDescriptor.COUNT);
            if (joinedRecords > 0 && (joinedRecords + count > maxRecords
                || buffer.getInt(index + ChunkDescriptor.TID) != joined.getInt(ChunkDescriptor.TID)
                || buffer.getInt(index + ChunkDescriptor.PID) != joined.getInt(ChunkDescriptor.PID)))
            {
                flushJoined();
            }
            if (count > maxRecords)
            {
                write(TraceLayout.EXCERPT_CHUNK, buffer, index, length);
                stats.onChunk(buffer, index);
            }
            else if (joinedRecords == 0)
            {
                joined.putBytes(0, buffer, index, length);
                joinedRecords = count;
            }
            else
            {
                joined.putBytes(ChunkDescriptor.recordOffset(joinedRecords), buffer,
                    index + ChunkDescriptor.HEADER_SIZE, length - ChunkDescriptor.HEADER_SIZE);
                joinedRecords += count;
            }
        }
        else if (type == ShmLayout.MSG_EVENT)
        {
            flushJoined();
            write(TraceLayout.EXCERPT_EVENT, buffer, index, length);
            stats.onEvent(buffer, index);
        }
        else
        {
            throw new IllegalStateException("unknown ring message type " + type + " from the agent");
        }
    }

    private volatile boolean halted;

    /**
     * The trace cannot be written (the writer failed): no more reading, so what the rings still
     * hold stays there, and the agents, told to stop, give up waiting for room (ring_put).
     */
    public void halt()
    {
        halted = true;
    }

    @Override
    public int doWork()
    {
        if (halted)
        {
            return 0;
        }
        // Slots are claimed in order, so the first FREE one ends the scan.
        int work = 0;
        int slot = 0;
        for (; slot < shm.slotCount(); slot++)
        {
            if (slot >= slotsInUse && shm.slotState(slot) == ShmLayout.SLOT_FREE)
            {
                break;
            }
            if (!drainExecPredecessor(slot))
            {
                continue;
            }
            final OneToOneRingBuffer ring = shm.ring(slot);
            final int read = ring.read(this::onMessage, READ_LIMIT);
            if (read < READ_LIMIT)
            {
                // the ring is empty for now: do not hold records back waiting for more
                flushJoined();
            }
            work += read;
        }
        slotsInUse = Math.max(slotsInUse, slot);
        final long now = System.nanoTime();
        if (now >= nextExitCheckNs)
        {
            nextExitCheckNs = now + EXIT_CHECK_INTERVAL_NS;
            work += noteExits(now);
            if (counts != null)
            {
                counts.publish(stats);
            }
        }
        return work;
    }

    /**
     * Keeps one pid's excerpts in seq order across an exec (trace-format/FORMAT.md, Order): the
     * new image's ring is read only after the old image's ring is empty. The old image wrote
     * its last message before exec, so once empty it stays empty.
     *
     * @return false if the slot's pid is not set yet: its ring is read on a later pass
     */
    private boolean drainExecPredecessor(final int slot)
    {
        if (execPredecessor[slot] == UNKNOWN)
        {
            final int pid = shm.slotInt(slot, ShmLayout.SLOT_PID);
            final long claim = shm.slotLong(slot, ShmLayout.SLOT_CLAIM);
            if (pid <= 0 || claim == 0)
            {
                return false;
            }
            // the image this one replaced: the same pid's latest claim before ours (slots are
            // reused, so the index says nothing about order)
            int older = -1;
            long olderClaim = 0;
            for (int s = 0; s < shm.slotCount(); s++)
            {
                final long c = shm.slotLong(s, ShmLayout.SLOT_CLAIM);
                if (s != slot && shm.slotInt(s, ShmLayout.SLOT_PID) == pid && c < claim && c > olderClaim
                    && shm.slotState(s) != ShmLayout.SLOT_FREE)
                {
                    older = s;
                    olderClaim = c;
                }
            }
            execPredecessor[slot] = older;
        }
        final int older = execPredecessor[slot];
        if (older >= 0)
        {
            drainExecPredecessor(older);
            if (shm.ring(older).read(this::onMessage, Integer.MAX_VALUE) > 0)
            {
                flushJoined();
            }
        }
        return true;
    }

    /** Where the drain loop publishes its statistics for a progress line, every exit check. */
    public void publishTo(final RecordingCounts counts)
    {
        this.counts = counts;
    }

    /** The program's own pid: its exit, with its status, is written by the recorder. */
    public void mainPid(final int pid)
    {
        this.mainPid = pid;
    }

    /**
     * Writes a process-exit event (status unknown: a = -1) for each traced process other than
     * the program that is gone, after everything its rings held. Its parent, not the recorder,
     * collects its status. A pid that exec'd lives on in a newer slot and has not exited. When
     * the agents follow forks, the slots of a process that is gone (every image of it) are then
     * given back, their counters kept in {@link #retired()}, so a long script needs only as many
     * slots as it runs processes at once.
     * <p>
     * Every slot is looked at, not only those {@link #doWork} has seen: an image claimed since
     * may already be gone too.
     */
    private int noteExits(final long now)
    {
        int work = 0;
        final org.agrona.collections.IntHashSet absentNow = absentBefore == absentA ? absentB : absentA;
        absentNow.clear();
        for (int slot = 0; slot < shm.slotCount(); slot++)
        {
            final int pid = shm.slotInt(slot, ShmLayout.SLOT_PID);
            if (pid > 0 && pid != mainPid && shm.slotState(slot) != ShmLayout.SLOT_FREE && !absentNow.contains(pid)
                && !alive(pid))
            {
                absentNow.add(pid);
                if (absentBefore.contains(pid))
                {
                    work += processGone(pid, System.nanoTime());
                }
            }
        }
        absentBefore = absentNow;
        return work;
    }

    /**
     * Whether the process lives (a zombie does: it writes nothing more, and is gone once reaped).
     * kill(pid, 0) and not ProcessHandle.of, which reads /proc/PID/stat and once said "absent"
     * for a process of a pipeline that then exec'd and went on writing: the logger wrote its
     * exit event 0.6 s before the process's own start event, and its later records came after
     * that exit, a trace every reader refuses (bench: pipeline.c, 1 of 36 recordings under load).
     */
    private static boolean alive(final int pid)
    {
        return Libc.INSTANCE.kill(pid, 0) == 0 || com.sun.jna.Native.getLastError() != ESRCH;
    }

    private static final int ESRCH = 3;
    /** The two sets absentBefore alternates between, so that an exit check allocates nothing. */
    private final org.agrona.collections.IntHashSet absentA = new org.agrona.collections.IntHashSet();
    private final org.agrona.collections.IntHashSet absentB = new org.agrona.collections.IntHashSet();
    /**
     * The pids absent at the last exit check: a process counts as gone only when absent at two
     * checks in a row (EXIT_CHECK_INTERVAL_NS apart), so that no transient answer of the kernel
     * (a task in the middle of fork or exec) ends it in the trace.
     */
    private org.agrona.collections.IntHashSet absentBefore = absentB;

    /**
     * One process is gone, so none of its images writes any more: drains the rings of all its
     * images, oldest claim first (an exec's new image may hold a lower slot index than the image
     * it replaced), then writes its exit event, whose seq, the clock now, is above every seq
     * they held; then gives the slots back when following forks. Writing the event after the
     * first slot found and draining the others after it put a new image's records (and its
     * process-start) behind the exit event in the queue: a process whose excerpts went back in
     * seq, which every reader refuses (issue 24).
     */
    private int processGone(final int pid, final long now)
    {
        final boolean reuse = shm.followsForks();
        int work = 0;
        // The cursor is the claim read before the slot is given back: a slot given back may be
        // claimed by a new process at once, and its new claim, above this pid's later images',
        // would end the walk before them (their slots then outlived the process: a second exit
        // event for it 50 ms later, ProcessOrderTest under load).
        long after = -1;
        for (int slot = nextImage(pid, after); slot >= 0; slot = nextImage(pid, after))
        {
            after = shm.slotLong(slot, ShmLayout.SLOT_CLAIM);
            work += shm.ring(slot).read(this::onMessage, Integer.MAX_VALUE);
            flushJoined();
            if (reuse)
            {
                retired.add(shm.retire(slot));
                java.util.Arrays.fill(execPredecessor, UNKNOWN); // a slot's meaning changed: ask again
            }
        }
        // without reuse the slots stay, and the pid is seen gone again at every check; with it a
        // later process given the same pid by the kernel is another process with its own exit
        if (reuse || exited.add(pid))
        {
            exitEvent.setMemory(0, EventDescriptor.HEADER_SIZE, (byte)0);
            exitEvent.putInt(EventDescriptor.TYPE, EventType.PROCESS_EXIT.code());
            exitEvent.putInt(EventDescriptor.PID, pid);
            exitEvent.putInt(EventDescriptor.TID, pid);
            exitEvent.putLong(EventDescriptor.SEQ, shm.clock());
            exitEvent.putLong(EventDescriptor.TIME_NS, now - shm.startMonoNs());
            exitEvent.putLong(EventDescriptor.A, -1);
            write(TraceLayout.EXCERPT_EVENT, exitEvent, 0, EventDescriptor.HEADER_SIZE);
            stats.onEvent(exitEvent, 0);
            work++;
        }
        return work;
    }

    /** The slot of pid's oldest image claimed after {@code after}, or -1. */
    private int nextImage(final int pid, final long after)
    {
        int next = -1;
        long nextClaim = Long.MAX_VALUE;
        for (int s = 0; s < shm.slotCount(); s++)
        {
            final long c = shm.slotLong(s, ShmLayout.SLOT_CLAIM);
            if (shm.slotInt(s, ShmLayout.SLOT_PID) == pid && shm.slotState(s) != ShmLayout.SLOT_FREE
                && c > after && c < nextClaim)
            {
                next = s;
                nextClaim = c;
            }
        }
        return next;
    }

    /** What the slots given back for reuse reported, in the order they were given back. */
    public java.util.List<SlotCounters> retired()
    {
        return retired;
    }

    /** Also hands every excerpt to {@code tee}, after the trace has it; set before the logger runs. */
    public void tee(final ExcerptTee tee)
    {
        this.tee = tee;
    }

    private void write(final int kind, final org.agrona.DirectBuffer buffer, final int offset, final int length)
    {
        if (writer != null)
        {
            writer.write(kind, buffer, offset, length);
        }
        if (tee != null)
        {
            tee.onExcerpt(kind, buffer, offset, length);
        }
    }

    private void flushJoined()
    {
        if (joinedRecords > 0)
        {
            joined.putInt(ChunkDescriptor.COUNT, joinedRecords);
            final int length = ChunkDescriptor.length(joinedRecords);
            write(TraceLayout.EXCERPT_CHUNK, joined, 0, length);
            stats.onChunk(joined, 0);
            joinedRecords = 0;
        }
    }

    /** Reads until every ring is empty; for the end of a recording, after the targets exited. */
    public void drain()
    {
        nextExitCheckNs = 0;
        while (doWork() > 0)
        {
            Thread.onSpinWait();
        }
        // the processes that pass saw absent for the first time are gone for sure now (noteExits
        // wants two checks in a row)
        noteExits(System.nanoTime());
        while (doWork() > 0)
        {
            Thread.onSpinWait();
        }
        flushJoined();
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
