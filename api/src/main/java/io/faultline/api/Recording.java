package io.faultline.api;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.faultline.format.ShmLayout;

/**
 * One recording of this JVM's memory, started by {@link Faultline#record}: the ranges passed to
 * {@link #trace} are traced (every reference that misses the EVMS is recorded with its thread,
 * address and kind) until {@link #close}, which brings every page back and completes the trace.
 * <p>
 * Thread-safe: any thread may call {@link #trace}; references from every thread are recorded.
 */
public final class Recording implements AutoCloseable
{
    /**
     * Totals of a completed recording, as {@code faultline info} shows them.
     *
     * @param references    trapped references: faults on disabled pages, one record each
     * @param readFaults    of those, the faults that were reads
     * @param writeFaults   of those, the faults that were writes; a page first read and then
     *                      written is a read fault (its write, while it is enabled, is no fault)
     * @param distinctPages pages referenced
     * @param writtenPages  pages the program wrote, by the dirty tags of their eviction records
     *                      (every traced page leaves when {@link #close} stops tracing): what
     *                      is usually meant by the pages a program writes
     * @param ringWaits     times the agent found its ring full and waited for the recorder
     */
    public record Summary(Path directory, long references, long readFaults, long writeFaults, long distinctPages,
        long writtenPages, long ringWaits)
    {
    }

    private final Path directory;
    private final RecordOptions options;
    private final RecorderProcess recorder;
    /** The agent's counters, read as it publishes them (release stores): no Agrona here, the user's JVM lacks its flags. */
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer slot;
    private boolean closed;
    private Summary summary;

    Recording(final Path directory, final RecordOptions options, final RecorderProcess recorder, final Path shm)
    {
        this.directory = directory;
        this.options = options;
        this.recorder = recorder;
        this.slot = mapSlot(shm);
    }

    /** The agent's counters of slot 0, read live (the JVM maps the recorder's shared memory read-only). */
    private static ByteBuffer mapSlot(final Path shm)
    {
        try (FileChannel channel = FileChannel.open(shm, StandardOpenOption.READ))
        {
            return channel.map(FileChannel.MapMode.READ_ONLY, ShmLayout.slotOffset(0), ShmLayout.SLOT_SIZE);
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /**
     * Traces the pages of a direct buffer (its whole capacity): every page that overlaps it is
     * disabled now, so its next reference is recorded. The first and last page may hold other
     * data of the JVM's native heap, whose references are recorded too; a buffer made with
     * {@code ByteBuffer.allocateDirect(n + 4096).alignedSlice(4096)} owns whole pages.
     */
    public void trace(final ByteBuffer buffer)
    {
        if (!buffer.isDirect())
        {
            throw new FaultlineException("trace(ByteBuffer) needs a direct buffer: this one lives on the Java heap, "
                + "where the GC moves it; allocate it with ByteBuffer.allocateDirect");
        }
        final Pointer pointer = Native.getDirectBufferPointer(buffer);
        trace(Pointer.nativeValue(pointer), buffer.capacity());
    }

    /**
     * Traces the pages overlapping [address, address + length): memory this JVM allocated
     * privately and anonymously (ByteBuffer.allocateDirect, Unsafe.allocateMemory, malloc,
     * anonymous mmap). Memory mapped from a file (FileChannel.map) cannot be traced.
     */
    public synchronized void trace(final long address, final long length)
    {
        if (closed)
        {
            throw new FaultlineException("this recording into " + directory + " is closed; start a new one with "
                + "Faultline.record to trace more");
        }
        if (length <= 0 || address == 0)
        {
            throw new FaultlineException("cannot trace " + length + " bytes at 0x" + Long.toHexString(address)
                + ": give the address and a positive length of memory this JVM allocated");
        }
        if (Agent.calls().faultline_trace_range(address, length) == 0)
        {
            return;
        }
        final int errno = Agent.errno();
        final String range = "[0x" + Long.toHexString(address) + ", 0x" + Long.toHexString(address + length) + ")";
        if (errno == Agent.EINVAL)
        {
            throw new FaultlineException("cannot trace " + range + ": it is not private anonymous writable memory; "
                + "trace direct buffers (ByteBuffer.allocateDirect) or Unsafe/malloc memory, not file mappings");
        }
        if (errno == Agent.ENOSYS)
        {
            throw new FaultlineException("cannot trace " + range + ": the agent stopped tracing because "
                + recorderState() + "; close this recording and start a new one");
        }
        throw new FaultlineException("cannot trace " + range + ": the agent answered errno " + errno);
    }

    /** References recorded so far (published by the agent after each batch of faults). */
    public long trappedReferences()
    {
        return slot == null ? -1 : (long)LONGS.getAcquire(slot, ShmLayout.SLOT_RECORDS);
    }

    /** Times the agent waited for room in the ring so far. */
    public long ringWaits()
    {
        return slot == null ? -1 : (long)LONGS.getAcquire(slot, ShmLayout.SLOT_RING_WAITS);
    }

    public Path directory()
    {
        return directory;
    }

    public RecordOptions options()
    {
        return options;
    }

    /** The totals, once {@link #close} completed the trace; null before. */
    public synchronized Summary summary()
    {
        return summary;
    }

    /**
     * Stops tracing: every traced page comes back enabled, then the recorder completes the
     * trace. When this returns, {@code faultline info} reads the directory. Idempotent.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            final boolean detached = Agent.calls().faultline_detach() == 0;
            final int errno = detached ? 0 : Agent.errno();
            if (!detached && errno == Agent.EPIPE)
            {
                recorder.abandon();
                throw new FaultlineException("the recorder process (pid " + recorder.pid() + ") died during the "
                    + "recording (exit status " + recorder.exitStatus() + "): tracing stopped then, every page came "
                    + "back and the JVM ran on; the trace in " + directory + " is incomplete, record again");
            }
            final String done = recorder.finish();
            if (!detached)
            {
                throw new FaultlineException("the agent stopped tracing early (errno " + errno + "); the trace in "
                    + directory + " is incomplete");
            }
            summary = parse(done);
        }
        finally
        {
            Faultline.ended(this);
        }
    }

    private String recorderState()
    {
        return recorder.isAlive() ? "of an error" : "the recorder process (pid " + recorder.pid()
            + ") exited with status " + recorder.exitStatus();
    }

    private Summary parse(final String done)
    {
        final java.util.Map<String, Long> fields = new java.util.HashMap<>();
        for (final String field : done.split(" "))
        {
            final int eq = field.indexOf('=');
            fields.put(field.substring(0, eq), Long.parseLong(field.substring(eq + 1)));
        }
        return new Summary(directory, fields.getOrDefault("references", 0L), fields.getOrDefault("read_faults", 0L),
            fields.getOrDefault("write_faults", 0L), fields.getOrDefault("pages", 0L),
            fields.getOrDefault("written_pages", 0L), fields.getOrDefault("ring_waits", 0L));
    }

    @Override
    public String toString()
    {
        return "Recording[" + directory + ", " + options + (closed ? ", closed]" : "]");
    }
}
