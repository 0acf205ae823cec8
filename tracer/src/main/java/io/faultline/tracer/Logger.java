package io.faultline.tracer;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.ShmLayout;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Moca's logger as an Agrona {@link Agent}: drains every process image's rings into the trace so
 * the agents never wait on a full ring for long. Single writer of the trace and of the
 * statistics while it runs.
 * <p>
 * A process image writes into several rings (faultline_shm.h, "Producers and rings"): its slot's
 * own ring, written under the agent lock, and one ring per thread that resolved faults without it.
 * Each ring is in seq order; the logger merges an image's rings by seq, record by record, so that
 * the trace keeps one order per process (trace-format/FORMAT.md, "Order"). It takes the next item
 * (the lowest {@link RingCursor#key()} of the rings' next items) only when no producer can still
 * write a lower one: an empty ring's producer writes nothing below its watermark (1 + the lowest
 * seq it may still write, or 0: nothing below the clock as it was read before the watermark). So
 * every pass reads the clock first, then the watermarks, then the rings. An image that is gone
 * (its process exited, or exec'd into a newer image) is merged to the end without bounds.
 * <p>
 * The agent publishes each record before it resolves its fault, so a single-threaded program
 * yields one-record chunks. The logger joins consecutive records of the same thread (up to the
 * configured chunk size) into one excerpt: the trace keeps the meaning of a chunk, consecutive
 * references of one thread, with far fewer excerpts. An event, another thread's record or an
 * image with nothing more to give now ends the chunk being joined.
 */
public final class Logger implements Agent
{
    private static final int READ_LIMIT = 4096;
    private static final long EXIT_CHECK_INTERVAL_NS = 50_000_000L;
    private static final long UNBOUNDED = Long.MAX_VALUE / 4;

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
    /** Each slot's current image: its rings, found as the agents claim them. */
    private final Image[] images;
    /** Each thread ring's image, or null while the logger knows of no claim of it. */
    private final Image[] threadRingImage;

    /** One process image: the rings it writes into and their merge. */
    private final class Image
    {
        final int slot;
        final long claim;
        RingCursor[] rings;
        /** For each ring, -1 for the slot's own, else the thread ring's index. */
        int[] ringIndex;
        int n;
        /** Per ring, the lowest seq its producer may still write when the ring is empty (this pass). */
        long[] floor;
        /** The counters of thread rings given back already (THREAD_COUNTERS order). */
        final long[] released = new long[THREAD_COUNTERS.length];

        Image(final int slot, final long claim)
        {
            this.slot = slot;
            this.claim = claim;
            rings = new RingCursor[4];
            ringIndex = new int[4];
            floor = new long[4];
            add(shm.slotCursor(slot), -1);
        }

        void add(final RingCursor ring, final int index)
        {
            if (n == rings.length)
            {
                rings = java.util.Arrays.copyOf(rings, n * 2);
                ringIndex = java.util.Arrays.copyOf(ringIndex, n * 2);
                floor = java.util.Arrays.copyOf(floor, n * 2);
            }
            rings[n] = ring;
            ringIndex[n] = index;
            n++;
        }

        /**
         * Takes, in seq order, what no producer can still undercut; with {@code unbounded}, all
         * there is (the image is gone). {@code clock}: the clock as read before the thread rings
         * were last looked for ({@link #findThreadRings}): a ring claimed since takes no seq
         * below it. Returns the items taken.
         */
        int merge(final boolean unbounded, final int limit, final long clock)
        {
            long bound = UNBOUNDED;
            if (!unbounded)
            {
                // the order of the reads is the protocol's: clock, thread rings, watermarks, rings
                bound = clock;
                for (int i = 0; i < n; i++)
                {
                    final long low = ringIndex[i] < 0 ? shm.slotLong(slot, ShmLayout.SLOT_RING_LOW)
                        : shm.threadRingLong(ringIndex[i], ShmLayout.TRING_LOW);
                    floor[i] = low == 0 ? clock : low - 1;
                }
            }
            for (int i = 0; i < n; i++)
            {
                if (!rings[i].peek() && !unbounded)
                {
                    bound = Math.min(bound, floor[i]);
                }
            }
            int taken = 0;
            while (taken < limit)
            {
                int best = lowest();
                if (best >= 0 && (bestKey & 1) == 0)
                {
                    // an event: a ring that was empty when it was looked at may have taken, since, an event
                    // of the same seq published before this one and to come first by time (a code map
                    // before the stack that names it, native-shims stacks.c): all are looked at again
                    best = lowest();
                }
                if (best < 0 || (!unbounded && bestKey > 2 * bound))
                {
                    break;
                }
                deliver(rings[best]);
                rings[best].take();
                taken++;
                if (!rings[best].peek() && !unbounded)
                {
                    bound = Math.min(bound, floor[best]);
                }
            }
            for (int i = 0; i < n; i++)
            {
                rings[i].commit();
            }
            return taken;
        }

        /** The lowest key of the rings' next items (an event's: with its time). */
        private long bestKey;

        /** @return the ring whose next item comes first (its key in {@link #bestKey}), or -1: all are empty */
        private int lowest()
        {
            int best = -1;
            long bestTime = 0;
            for (int i = 0; i < n; i++)
            {
                final RingCursor r = rings[i];
                if (!r.peek())
                {
                    continue;
                }
                final long key = r.key();
                if (best < 0 || key < bestKey || (key == bestKey && (key & 1) == 0 && r.timeNs() < bestTime))
                {
                    best = i;
                    bestKey = key;
                    bestTime = (key & 1) == 0 ? r.timeNs() : 0;
                }
            }
            return best;
        }

        boolean drained()
        {
            for (int i = 0; i < n; i++)
            {
                if (!rings[i].drained())
                {
                    return false;
                }
            }
            return true;
        }

        /** The image is gone and merged to the end: its thread rings go back to the pool. */
        void release()
        {
            for (int i = 0; i < n; i++)
            {
                if (ringIndex[i] >= 0)
                {
                    addCounters(ringIndex[i], released);
                    threadRingImage[ringIndex[i]] = null;
                    shm.freeThreadRing(ringIndex[i]);
                }
            }
            n = Math.min(n, 1);
        }
    }

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
        this.images = new Image[shm.slotCount()];
        this.threadRingImage = new Image[shm.threadRings()];
    }

    /** The slot's current image (its claim read now), or null if the slot is free. */
    private Image image(final int slot)
    {
        final long claim = shm.slotLong(slot, ShmLayout.SLOT_CLAIM);
        Image image = images[slot];
        if (image == null || image.claim != claim)
        {
            if (claim == 0 && shm.slotState(slot) == ShmLayout.SLOT_FREE)
            {
                return null;
            }
            image = new Image(slot, claim);
            images[slot] = image;
        }
        return image;
    }

    /** Thread rings claimed since the last look join their images. */
    private void findThreadRings()
    {
        for (int i = 0; i < threadRingImage.length; i++)
        {
            if (threadRingImage[i] != null || shm.threadRingInt(i, ShmLayout.TRING_STATE) != ShmLayout.TRING_ACTIVE)
            {
                continue;
            }
            final int slot = shm.threadRingInt(i, ShmLayout.TRING_SLOT);
            final long claim = shm.threadRingLong(i, ShmLayout.TRING_CLAIM);
            if (slot < 0 || slot >= images.length)
            {
                continue;
            }
            final Image image = image(slot);
            if (image != null && image.claim == claim)
            {
                image.add(shm.threadCursor(i), i);
                threadRingImage[i] = image;
            }
        }
    }

    /** One item of a ring, in merge order: a record joins the chunk being built, the rest go out whole. */
    private void deliver(final RingCursor r)
    {
        final UnsafeBuffer b = r.buffer();
        if (r.isRecord())
        {
            final int chunk = r.messageIndex();
            final int tid = b.getInt(chunk + ChunkDescriptor.TID);
            final int pid = b.getInt(chunk + ChunkDescriptor.PID);
            if (joinedRecords > 0 && (joinedRecords == maxRecords || tid != joined.getInt(ChunkDescriptor.TID)
                || pid != joined.getInt(ChunkDescriptor.PID)))
            {
                flushJoined();
            }
            if (joinedRecords == 0)
            {
                joined.putBytes(0, b, chunk, ChunkDescriptor.HEADER_SIZE);
            }
            joined.putBytes(ChunkDescriptor.recordOffset(joinedRecords), b, r.recordOffset(), ChunkDescriptor.RECORD_SIZE);
            joinedRecords++;
        }
        else if (r.type() == ShmLayout.MSG_CHUNK)
        {
            // a Moca chunk is one thread's interval, whole: never joined with another
            flushJoined();
            write(TraceLayout.EXCERPT_CHUNK, b, r.messageIndex(), r.messageLength());
            stats.onChunk(b, r.messageIndex());
        }
        else if (r.type() == ShmLayout.MSG_EVENT)
        {
            flushJoined();
            write(TraceLayout.EXCERPT_EVENT, b, r.messageIndex(), r.messageLength());
            stats.onEvent(b, r.messageIndex());
        }
        else
        {
            throw new IllegalStateException("unknown ring message type " + r.type() + " from the agent");
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
        final long clock = shm.clock();
        findThreadRings();
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
            final Image image = image(slot);
            if (image == null)
            {
                continue;
            }
            final int read = image.merge(false, READ_LIMIT, clock);
            if (read < READ_LIMIT)
            {
                // nothing more to take now: do not hold records back waiting for more
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
     * new image's rings are read only after the old image's rings are empty. The old image wrote
     * its last message before exec (its other threads are gone with it), so once empty they stay
     * empty, and they are merged without bounds.
     *
     * @return false if the slot's pid is not set yet: its rings are read on a later pass
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
            findThreadRings(); // every ring the old image claimed, before it is merged to its end
            final Image image = image(older);
            if (image != null)
            {
                if (image.merge(true, Integer.MAX_VALUE, 0) > 0)
                {
                    flushJoined();
                }
                image.release();
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
            findThreadRings();
            final Image image = image(slot);
            if (image != null)
            {
                work += image.merge(true, Integer.MAX_VALUE, 0);
            }
            flushJoined();
            if (reuse)
            {
                if (image != null)
                {
                    image.release();
                }
                retired.add(shm.retire(slot, threadRingTotals(slot)));
                images[slot] = null;
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

    /**
     * Reads until every ring is empty; for the end of a recording, after the targets exited, so
     * that no producer writes any more: whatever a watermark still says (a process killed while
     * it wrote), each image is merged to its end.
     */
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
        findThreadRings();
        for (int slot = 0; slot < slotsInUse; slot++)
        {
            final Image image = image(slot);
            if (image != null && image.merge(true, Integer.MAX_VALUE, 0) > 0)
            {
                flushJoined();
            }
        }
        flushJoined();
    }

    /** The thread-ring counters that count in a slot's totals (SlotCounters), in this order. */
    static final int[] THREAD_COUNTERS = {ShmLayout.TRING_RECORDS, ShmLayout.TRING_RING_WAITS, ShmLayout.TRING_WAIT_NS,
        ShmLayout.TRING_EVICTIONS, ShmLayout.TRING_RACES};

    private void addCounters(final int ring, final long[] into)
    {
        for (int k = 0; k < THREAD_COUNTERS.length; k++)
        {
            into[k] += shm.threadRingLong(ring, THREAD_COUNTERS[k]);
        }
    }

    /**
     * What the thread rings of the slot's image counted (THREAD_COUNTERS order), those given back
     * and those it still holds: the agent's counts of its lock-free path, to add to the slot's.
     */
    long[] threadRingTotals(final int slot)
    {
        final long[] totals = new long[THREAD_COUNTERS.length];
        final Image image = images[slot];
        if (image == null)
        {
            return totals;
        }
        System.arraycopy(image.released, 0, totals, 0, totals.length);
        for (int i = 0; i < image.n; i++)
        {
            if (image.ringIndex[i] >= 0)
            {
                addCounters(image.ringIndex[i], totals);
            }
        }
        return totals;
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
