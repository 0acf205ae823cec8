package io.faultline.damon.live;

import java.util.function.BooleanSupplier;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.faultline.tracer.Libc;
import io.faultline.format.ShmLayout;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One process's sampling board (faultline_shm.h, "Sampling board"): the recorder side of the
 * access checks that DAMON's {@code vaddr} and {@code fvaddr} operations sets ask of the agent.
 * A request is posted by writing its entries, op and count, then bumping {@code request} and
 * writing the agent guard's eventfd (taken from the agent's process with pidfd_getfd(2), since
 * the guard sleeps in poll(2)); the answer is complete when {@code done} equals the request,
 * which the recorder sleeps on as a shared futex. One request at a time, from one thread. An
 * ARM opens a sampling window that the agent's deadline loop closes one sampling interval later
 * ({@code closed}, another shared futex word): the recorder posts nothing to end it.
 */
final class SamplingBoard implements AutoCloseable
{
    /** The agent answers within a few ms; past this it is stopped, gone, or not answering. */
    private static final long ANSWER_TIMEOUT_NS = 2_000_000_000L;

    private final UnsafeBuffer board;
    private final int capacity;
    private final int pid;
    private final Memory one = new Memory(8);
    private final Memory timeout = new Memory(16);
    private static final int NONE = Integer.MIN_VALUE;

    private int wakeFd = -1;
    private static final int EBADF = 9;
    private static final int ESRCH = 3;
    private int request;
    /** The request posted last while its answer has not been seen, or NONE. */
    private int pending = NONE;
    /** The ARM whose window the next {@link #awaitClosed} waits for, or NONE. */
    private int window = NONE;
    private long windowUs;
    private long windowStartNs;
    private long requests;
    private long requestNs;

    SamplingBoard(final UnsafeBuffer shm, final long offset, final int capacity, final int pid)
    {
        this.board = new UnsafeBuffer(shm.addressOffset() + offset,
            ShmLayout.BOARD_HEADER_SIZE + capacity * ShmLayout.BOARD_ENTRY_SIZE);
        this.capacity = capacity;
        this.pid = pid;
        this.request = board.getIntVolatile(ShmLayout.BOARD_REQUEST);
        one.setLong(0, 1);
        timeout.setLong(0, 0);
        timeout.setLong(8, 20_000_000L); // futex waits of 20 ms: liveness is checked between them
    }

    int capacity()
    {
        return capacity;
    }

    /**
     * Disables the pages of {@code addresses[0..n)} for a window of {@code sampleUs}, which the
     * agent closes itself ({@link #awaitClosed}). Returns false if the agent did not answer.
     */
    boolean arm(final long[] addresses, final int n, final long sampleUs, final BooleanSupplier alive)
        throws InterruptedException
    {
        if (!awaitPending(alive) || wakeFd < 0 && !openWakeFd())
        {
            return false;
        }
        for (int i = 0; i < n; i++)
        {
            board.putLong(entry(i) + ShmLayout.BOARD_ENTRY_ADDRESS, addresses[i]);
        }
        board.putInt(ShmLayout.BOARD_SAMPLE_US, (int)Math.min(sampleUs, Integer.MAX_VALUE));
        // not awaited: the window runs from when the agent has armed; awaitClosed waits for its end
        postOnly(ShmLayout.SAMPLE_ARM, n);
        window = pending;
        windowUs = sampleUs;
        windowStartNs = System.nanoTime();
        return true;
    }

    /**
     * Waits until the agent has closed the window of the last arm: then {@link #accessed} says
     * which entries were accessed in it. False if the agent did not answer, or nothing was armed.
     */
    boolean awaitClosed(final BooleanSupplier alive) throws InterruptedException
    {
        if (window == NONE)
        {
            return false;
        }
        final int awaited = window;
        window = NONE;
        if (!awaitWord(ShmLayout.BOARD_CLOSED, awaited, windowUs * 1000 + ANSWER_TIMEOUT_NS, alive))
        {
            return false;
        }
        pending = NONE; // the arm was answered before its window could close
        requests++;
        requestNs += System.nanoTime() - windowStartNs;
        return true;
    }

    /**
     * Applies madvise(2) advice to [start, start + len) from inside the program, through the agent
     * (only hugepage and nohugepage, which process_madvise refuses). Returns 0 or -errno, or
     * Integer.MIN_VALUE if the agent did not answer.
     */
    int madvise(final long start, final long len, final int advice, final BooleanSupplier alive)
        throws InterruptedException
    {
        board.putLong(ShmLayout.BOARD_MADV_START, start);
        board.putLong(ShmLayout.BOARD_MADV_LEN, len);
        board.putInt(ShmLayout.BOARD_MADV_ADVICE, advice);
        return post(ShmLayout.SAMPLE_MADVISE, 0, alive) ? board.getInt(ShmLayout.BOARD_MADV_RESULT) : Integer.MIN_VALUE;
    }

    /** After a check: whether entry i's page was accessed since the arm. */
    boolean accessed(final int i)
    {
        return board.getInt(entry(i) + ShmLayout.BOARD_ENTRY_ACCESSED) != 0;
    }

    /** After an arm: FL_SAMPLE_* of entry i. */
    int state(final int i)
    {
        return board.getInt(entry(i) + ShmLayout.BOARD_ENTRY_STATE);
    }

    /** After a check: the entries the last arm could disable (the others are outside traced memory, or busy). */
    int armed()
    {
        return board.getInt(ShmLayout.BOARD_ARMED);
    }

    /** Requests and windows awaited and answered so far (an arm is answered when its window closes). */
    long requests()
    {
        return requests;
    }

    /** Time from posting a request to its answer (an arm: to its window's close), summed over {@link #requests()}. */
    long requestNs()
    {
        return requestNs;
    }

    /** Access-check faults the agent has resolved so far. */
    long checks()
    {
        return board.getLongVolatile(ShmLayout.BOARD_CHECKS);
    }

    private static int entry(final int i)
    {
        return ShmLayout.BOARD_HEADER_SIZE + i * ShmLayout.BOARD_ENTRY_SIZE;
    }

    /** Posts a request and waits for its answer; false if the agent did not answer. */
    private boolean post(final int op, final int n, final BooleanSupplier alive) throws InterruptedException
    {
        if (!awaitPending(alive) || wakeFd < 0 && !openWakeFd())
        {
            return false;
        }
        final long posted = System.nanoTime();
        postOnly(op, n);
        if (!awaitPending(alive))
        {
            return false;
        }
        requests++;
        requestNs += System.nanoTime() - posted;
        return true;
    }

    /** The agent reads op, count and entries once it sees the new request number. */
    private void postOnly(final int op, final int n)
    {
        board.putInt(ShmLayout.BOARD_OP, op);
        board.putInt(ShmLayout.BOARD_COUNT, Math.min(n, capacity));
        pending = ++request;
        board.putIntVolatile(ShmLayout.BOARD_REQUEST, pending);
        Libc.INSTANCE.write(wakeFd, one, 8);
    }

    /** Waits until the agent has answered the request posted last, if not yet seen. */
    private boolean awaitPending(final BooleanSupplier alive) throws InterruptedException
    {
        if (pending == NONE)
        {
            return true;
        }
        if (!awaitWord(ShmLayout.BOARD_DONE, pending, ANSWER_TIMEOUT_NS, alive))
        {
            return false; // still pending: a later request waits for it again, or gives up the same way
        }
        pending = NONE;
        return true;
    }

    /** Waits until the agent's word at {@code offset} equals {@code value}; false past {@code timeoutNs} or the program's end. */
    private boolean awaitWord(final int offset, final int value, final long timeoutNs, final BooleanSupplier alive)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutNs;
        final Pointer word = new Pointer(board.addressOffset() + offset);
        int seen;
        while ((seen = board.getIntVolatile(offset)) != value)
        {
            if (Thread.interrupted())
            {
                throw new InterruptedException();
            }
            if (System.nanoTime() > deadline || !alive.getAsBoolean())
            {
                return false;
            }
            // a shared (not private) futex: the waker is the agent, in another process
            Libc.INSTANCE.syscall(Libc.SYS_FUTEX, word, Libc.FUTEX_WAIT, seen, timeout, null, 0);
        }
        return true;
    }

    /** The guard's eventfd, duplicated into this process: pidfd_open + pidfd_getfd (Linux 5.6). */
    private boolean openWakeFd()
    {
        final int target = board.getIntVolatile(ShmLayout.BOARD_WAKE_FD);
        final int pidfd = (int)Libc.INSTANCE.syscall(Libc.SYS_PIDFD_OPEN, pid, 0);
        if (pidfd < 0)
        {
            return false; // the process is gone
        }
        try
        {
            final int fd = (int)Libc.INSTANCE.syscall(Libc.SYS_PIDFD_GETFD, pidfd, target, 0);
            if (fd < 0)
            {
                final int errno = Native.getLastError();
                if (errno == EBADF)
                {
                    // the image that said the number exec'd (its descriptors closed) and the new
                    // one has not opened its own yet: not answered now, asked again next time
                    return false;
                }
                if (errno == ESRCH)
                {
                    // exiting between pidfd_open and pidfd_getfd (its files already closed): gone,
                    // as when pidfd_open finds no process; a program of a few milliseconds did
                    return false;
                }
                throw new MonitorException("cannot reach the agent in pid " + pid + ": pidfd_getfd: "
                    + Libc.INSTANCE.strerror(errno) + " (it needs ptrace access to the program: run as its"
                    + " user with kernel.yama.ptrace_scope at most 1, or as root)");
            }
            wakeFd = fd;
            return true;
        }
        finally
        {
            Libc.INSTANCE.close(pidfd);
        }
    }

    @Override
    public void close()
    {
        if (wakeFd >= 0)
        {
            Libc.INSTANCE.close(wakeFd);
            wakeFd = -1;
        }
    }

}
