package io.faultline.tracer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.faultline.format.EventDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.ShmLayout;
import io.faultline.format.TraceLayout;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The logger's exit rules against a shared memory set up by hand, as agents leave it (slots,
 * rings) for a process that is gone: a pid counts as gone only when absent at two exit checks in
 * a row; then every image's ring is read, oldest claim first, before the one exit event, and
 * every slot of the process is given back. What the agents would write is written here with the
 * same ring messages; the trace is the logger's tee (no trace file).
 */
class LoggerExitTest
{
    private static final long CHECK_INTERVAL_MS = 60; // Logger's EXIT_CHECK_INTERVAL_NS is 50 ms

    @TempDir
    Path tmp;

    private SharedMemory shm;
    private Logger logger;
    private final List<long[]> events = new ArrayList<>(); // type, pid, a

    @BeforeEach
    void setUp() throws Exception
    {
        final RecordOptions options = RecordOptions.internal(List.of("-q", "-o", tmp.resolve("t").toString(), "--", "x"));
        shm = SharedMemory.create(options, 4096, System.nanoTime());
        logger = new Logger(shm, null, new TraceStats(4096), options.chunkRecords);
        logger.tee((kind, buffer, offset, length) ->
        {
            if (kind == TraceLayout.EXCERPT_EVENT)
            {
                events.add(new long[] {buffer.getInt(offset + EventDescriptor.TYPE),
                    buffer.getInt(offset + EventDescriptor.PID), buffer.getLong(offset + EventDescriptor.A)});
            }
        });
    }

    @AfterEach
    void tearDown()
    {
        shm.close();
    }

    /** A pid no process has: one that ran and was reaped. */
    private static int deadPid() throws Exception
    {
        final Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return (int)p.pid();
    }

    private void claim(final int slot, final int pid, final int state, final long claim)
    {
        final UnsafeBuffer b = shm.buffer();
        final int base = (int)ShmLayout.slotOffset(slot);
        b.putInt(base + ShmLayout.SLOT_PID, pid);
        b.putLong(base + ShmLayout.SLOT_CLAIM, claim);
        b.putIntVolatile(base + ShmLayout.SLOT_STATE, state);
    }

    /** An event in a slot's ring, as an agent emits it; a = a marker to tell events apart. */
    private void emit(final int slot, final int pid, final long marker)
    {
        final UnsafeBuffer event = new UnsafeBuffer(new byte[EventDescriptor.HEADER_SIZE]);
        event.putInt(EventDescriptor.TYPE, EventType.THREAD_NAME.code());
        event.putInt(EventDescriptor.PID, pid);
        event.putInt(EventDescriptor.TID, pid);
        event.putLong(EventDescriptor.A, marker);
        shm.ring(slot).write(ShmLayout.MSG_EVENT, event, 0, EventDescriptor.HEADER_SIZE);
    }

    private List<String> seen()
    {
        final List<String> out = new ArrayList<>();
        for (final long[] e : events)
        {
            out.add(EventType.of((int)e[0]).name() + " " + e[1] + (e[0] == EventType.PROCESS_EXIT.code() ? "" : " " + e[2]));
        }
        return out;
    }

    @Test
    void aGoneProcessEndsAfterTwoChecksWithEveryImageReadOldestFirstThenOneExit() throws Exception
    {
        final int pid = deadPid();
        // the exec'd image holds the lower slot index: order comes from the claims
        claim(0, pid, ShmLayout.SLOT_ACTIVE, 7);
        claim(1, pid, ShmLayout.SLOT_STOPPED, 3);
        emit(1, pid, 1);
        emit(0, pid, 2);

        logger.doWork(); // reads the rings: the new image waits for the old one's
        assertEquals(List.of("THREAD_NAME " + pid + " 1", "THREAD_NAME " + pid + " 2"), seen());
        emit(0, pid, 3); // written after the first check saw the pid absent: must come before the exit
        Thread.sleep(CHECK_INTERVAL_MS);
        logger.doWork(); // second check: the exit, after the ring's last message
        assertEquals(List.of("THREAD_NAME " + pid + " 1", "THREAD_NAME " + pid + " 2", "THREAD_NAME " + pid + " 3",
            "PROCESS_EXIT " + pid), seen());
        assertEquals(ShmLayout.SLOT_FREE, shm.slotState(0));
        assertEquals(ShmLayout.SLOT_FREE, shm.slotState(1));
        assertEquals(2, logger.retired().size());

        Thread.sleep(CHECK_INTERVAL_MS);
        logger.doWork();
        Thread.sleep(CHECK_INTERVAL_MS);
        logger.doWork();
        assertEquals(1, seen().stream().filter(s -> s.startsWith("PROCESS_EXIT")).count(), "one exit event");
    }

    @Test
    void aProcessSeenAbsentOnceIsNotGone() throws Exception
    {
        final int pid = deadPid();
        claim(0, pid, ShmLayout.SLOT_ACTIVE, 1);
        logger.doWork(); // absent at the first check only
        assertEquals(List.of(), seen());
        assertEquals(ShmLayout.SLOT_ACTIVE, shm.slotState(0));
    }

    @Test
    void aLiveProcessIsNeverGone() throws Exception
    {
        final int self = (int)ProcessHandle.current().pid();
        claim(0, self, ShmLayout.SLOT_ACTIVE, 1);
        for (int i = 0; i < 3; i++)
        {
            logger.doWork();
            Thread.sleep(CHECK_INTERVAL_MS);
        }
        assertEquals(List.of(), seen());
        assertEquals(ShmLayout.SLOT_ACTIVE, shm.slotState(0));
    }
}
