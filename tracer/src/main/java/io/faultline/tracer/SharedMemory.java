package io.faultline.tracer;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import io.faultline.format.ShmLayout;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * The recorder's side of the shared memory (layout in {@link ShmLayout}): a sparse file under
 * /dev/shm holding the control block, the slot table, one ring per traced process image and a
 * pool of thread rings. Only the pages the agents touch take memory.
 */
public final class SharedMemory implements AutoCloseable
{
    private static final Path SHM_DIR = Path.of("/dev/shm");
    private static final String PREFIX = "faultline-";

    private final Path file;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;
    private final int slotCount;
    private final int ringCapacity;
    private final long ringOffset;
    private final long ringStride;
    private final OneToOneRingBuffer[] rings;
    private final RingCursor[] slotCursors;
    private final int threadRings;
    private final int threadRingCapacity;
    private final long threadRingOffset;
    private final long threadRingStride;
    private final long threadDescOffset;
    private final RingCursor[] threadCursors;
    private ShmGuard guard;

    private SharedMemory(final Path file, final MappedByteBuffer mapped, final RecordOptions options, final int pageSize)
    {
        this.file = file;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
        this.slotCount = options.slots;
        this.ringCapacity = options.ringCapacity;
        this.ringOffset = ShmLayout.ringOffset(slotCount, pageSize);
        this.ringStride = ShmLayout.ringStride(ringCapacity, pageSize);
        this.rings = new OneToOneRingBuffer[slotCount];
        this.slotCursors = new RingCursor[slotCount];
        this.threadRings = options.threadRings;
        this.threadRingCapacity = options.threadRingCapacity();
        this.threadDescOffset = ShmLayout.threadDescOffset(slotCount, ringCapacity, pageSize, options.boardEntries);
        this.threadRingOffset = ShmLayout.threadRingOffset(slotCount, ringCapacity, pageSize, options.boardEntries,
            threadRings);
        this.threadRingStride = ShmLayout.threadRingStride(threadRingCapacity, pageSize);
        this.threadCursors = new RingCursor[threadRings];
    }

    public static SharedMemory create(final RecordOptions options, final int pageSize, final long startMonoNs)
        throws IOException
    {
        removeStale();
        final Path dir = Files.isDirectory(SHM_DIR) ? SHM_DIR : Path.of(System.getProperty("java.io.tmpdir"));
        final Path file = dir.resolve(PREFIX + ProcessHandle.current().pid() + "-"
            + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        final long size = options.sharedMemorySize(pageSize);
        if (size > Integer.MAX_VALUE)
        {
            throw new RecordException("shared memory of " + size + " bytes is too large; lower --ring-size");
        }
        // The guard first: from the file's creation on, a recorder killed at any moment leaves it to the guard.
        final ShmGuard guard = ShmGuard.start(file);
        final MappedByteBuffer mapped;
        try
        {
            // 0600: the rings carry every address the program touches; only its own user may read them
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
            {
                raf.setLength(size); // sparse: zero pages cost nothing until touched
                mapped = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            Files.deleteIfExists(file);
            if (guard != null)
            {
                guard.close();
            }
            throw ex;
        }
        final SharedMemory shm = new SharedMemory(file, mapped, options, pageSize);
        shm.guard = guard;
        shm.writeControlBlock(options, pageSize, startMonoNs);
        return shm;
    }

    private void writeControlBlock(final RecordOptions options, final int pageSize, final long startMonoNs)
    {
        buffer.putInt(ShmLayout.CTL_VERSION, ShmLayout.VERSION);
        buffer.putInt(ShmLayout.CTL_PAGE_SIZE, pageSize);
        buffer.putInt(ShmLayout.CTL_SLOT_COUNT, slotCount);
        buffer.putInt(ShmLayout.CTL_RING_CAPACITY, ringCapacity);
        buffer.putLong(ShmLayout.CTL_RING_OFFSET, ringOffset);
        buffer.putLong(ShmLayout.CTL_RING_STRIDE, ringStride);
        buffer.putInt(ShmLayout.CTL_EVMS_PAGES, options.evmsPages);
        buffer.putInt(ShmLayout.CTL_SCOPE, options.scope);
        buffer.putInt(ShmLayout.CTL_POLICY, options.policy);
        buffer.putInt(ShmLayout.CTL_ENGINE, options.engine);
        buffer.putInt(ShmLayout.CTL_LEAD_PAGES, options.effectiveLeadPages());
        buffer.putInt(ShmLayout.CTL_STACK_FRAMES, options.stackFrames);
        buffer.putInt(ShmLayout.CTL_FLAGS, (options.follow ? ShmLayout.FLAG_FOLLOW_FORKS : 0)
            | (options.followExec ? ShmLayout.FLAG_FOLLOW_EXEC : 0) | (options.dirtyTracking ? 0 : ShmLayout.FLAG_NO_DIRTY)
            | (options.kernelEvents ? 0 : ShmLayout.FLAG_NO_KERNEL_EVENTS));
        buffer.putInt(ShmLayout.CTL_RECORDER_PID, (int)ProcessHandle.current().pid());
        buffer.putInt(ShmLayout.CTL_CHUNK_RECORDS, options.chunkRecords);
        buffer.putLong(ShmLayout.CTL_CLOCK, 0);
        buffer.putInt(ShmLayout.CTL_STOP, 0);
        buffer.putLong(ShmLayout.CTL_START_MONO_NS, startMonoNs);
        if (options.mocaIntervalNs > 0)
        {
            buffer.putInt(ShmLayout.CTL_MODE, ShmLayout.MODE_MOCA);
            buffer.putLong(ShmLayout.CTL_INTERVAL_NS, options.mocaIntervalNs);
        }
        if (options.boardEntries > 0)
        {
            buffer.putInt(ShmLayout.CTL_MODE, ShmLayout.MODE_MONITOR);
            buffer.putInt(ShmLayout.CTL_BOARD_ENTRIES, options.boardEntries);
            buffer.putLong(ShmLayout.CTL_BOARD_OFFSET, ShmLayout.boardOffset(slotCount, ringCapacity, pageSize));
            buffer.putLong(ShmLayout.CTL_BOARD_STRIDE, ShmLayout.boardStride(options.boardEntries, pageSize));
        }
        buffer.putLong(ShmLayout.CTL_LEDGER_OFFSET,
            ShmLayout.ledgerOffset(slotCount, ringCapacity, pageSize, options.boardEntries));
        buffer.putInt(ShmLayout.CTL_THREAD_RINGS, threadRings);
        buffer.putInt(ShmLayout.CTL_THREAD_RING_CAPACITY, threadRingCapacity);
        buffer.putLong(ShmLayout.CTL_THREAD_RING_OFFSET, threadRingOffset);
        buffer.putLong(ShmLayout.CTL_THREAD_RING_STRIDE, threadRingStride);
        buffer.putLong(ShmLayout.CTL_THREAD_DESC_OFFSET, threadDescOffset);
        // The magic goes last, with release semantics: an agent that sees it sees the rest.
        buffer.putLongOrdered(ShmLayout.CTL_MAGIC, ShmLayout.MAGIC);
    }

    /**
     * Deletes shared-memory files left by recorders that were killed when their guard could not
     * run ({@link ShmGuard}: killed with it, or no shell).
     */
    private static void removeStale()
    {
        if (!Files.isDirectory(SHM_DIR))
        {
            return;
        }
        try (Stream<Path> files = Files.list(SHM_DIR))
        {
            files.filter(p -> p.getFileName().toString().startsWith(PREFIX)).forEach(p ->
            {
                final String name = p.getFileName().toString();
                final int dash = name.indexOf('-', PREFIX.length());
                try
                {
                    final long pid = Long.parseLong(name.substring(PREFIX.length(), dash));
                    if (ProcessHandle.of(pid).isEmpty())
                    {
                        Files.deleteIfExists(p);
                    }
                }
                catch (final RuntimeException | IOException ignored)
                {
                    // not ours or already gone
                }
            });
        }
        catch (final IOException ignored)
        {
            // nothing to clean
        }
    }

    public Path file()
    {
        return file;
    }

    public int slotCount()
    {
        return slotCount;
    }

    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    public int slotInt(final int slot, final int field)
    {
        return buffer.getIntVolatile((int)(ShmLayout.slotOffset(slot) + field));
    }

    public long slotLong(final int slot, final int field)
    {
        return buffer.getLongVolatile((int)(ShmLayout.slotOffset(slot) + field));
    }

    public int slotState(final int slot)
    {
        return slotInt(slot, ShmLayout.SLOT_STATE);
    }

    /** The consumer side of a slot's ring, created when the slot is first claimed. */
    public OneToOneRingBuffer ring(final int slot)
    {
        OneToOneRingBuffer ring = rings[slot];
        if (ring == null)
        {
            final long offset = ringOffset + slot * ringStride;
            ring = new OneToOneRingBuffer(new UnsafeBuffer(buffer.addressOffset() + offset,
                ringCapacity + ShmLayout.RING_TRAILER_LENGTH));
            rings[slot] = ring;
        }
        return ring;
    }

    /** The slot ring's consumer for the logger's merge (RingCursor). */
    RingCursor slotCursor(final int slot)
    {
        RingCursor cursor = slotCursors[slot];
        if (cursor == null)
        {
            final long offset = ringOffset + slot * ringStride;
            cursor = new RingCursor(new UnsafeBuffer(buffer.addressOffset() + offset,
                ringCapacity + ShmLayout.RING_TRAILER_LENGTH), ringCapacity);
            slotCursors[slot] = cursor;
        }
        return cursor;
    }

    /** Thread rings in the pool (faultline_shm.h, "Producers and rings"). */
    public int threadRings()
    {
        return threadRings;
    }

    public int threadRingInt(final int ring, final int field)
    {
        return buffer.getIntVolatile((int)(threadDescOffset + (long)ring * ShmLayout.TRING_SIZE + field));
    }

    public long threadRingLong(final int ring, final int field)
    {
        return buffer.getLongVolatile((int)(threadDescOffset + (long)ring * ShmLayout.TRING_SIZE + field));
    }

    /** A thread ring's consumer for the logger's merge. */
    RingCursor threadCursor(final int ring)
    {
        RingCursor cursor = threadCursors[ring];
        if (cursor == null)
        {
            cursor = new RingCursor(new UnsafeBuffer(buffer.addressOffset() + threadRingOffset + ring * threadRingStride,
                threadRingCapacity + ShmLayout.RING_TRAILER_LENGTH), threadRingCapacity);
            threadCursors[ring] = cursor;
        }
        return cursor;
    }

    /**
     * Gives a thread ring back to the pool: its image is gone and the caller merged it to the end.
     * Ring and descriptor are zeroed before the state becomes FREE, with release semantics, so an
     * agent that claims it finds a fresh ring.
     */
    void freeThreadRing(final int ring)
    {
        final long at = threadRingOffset + ring * threadRingStride;
        buffer.setMemory((int)at, threadRingCapacity + ShmLayout.RING_TRAILER_LENGTH, (byte)0);
        final int desc = (int)(threadDescOffset + (long)ring * ShmLayout.TRING_SIZE);
        buffer.setMemory(desc + 4, ShmLayout.TRING_SIZE - 4, (byte)0);
        threadCursors[ring] = null;
        buffer.putIntOrdered(desc + ShmLayout.TRING_STATE, ShmLayout.TRING_FREE);
    }

    /** True when the agents follow forks (and so may need more slots over time than there are). */
    public boolean followsForks()
    {
        return (buffer.getInt(ShmLayout.CTL_FLAGS) & ShmLayout.FLAG_FOLLOW_FORKS) != 0;
    }

    /**
     * Gives a slot back for a new process: its process is gone and its ring was read to the end
     * by the caller. Returns what the slot reported; its counters, its ring (data and trailer),
     * its thread ledger and its fields are zeroed before its state becomes FREE, with release semantics, so an
     * agent that claims it (CAS FREE to ACTIVE) finds a fresh slot.
     */
    public SlotCounters retire(final int slot, final long[] threadRingTotals)
    {
        final SlotCounters counters = SlotCounters.read(this, slot, threadRingTotals);
        final long ring = ringOffset + slot * ringStride;
        buffer.setMemory((int)ring, ringCapacity + ShmLayout.RING_TRAILER_LENGTH, (byte)0);
        buffer.setMemory((int)ledgerOffset(slot), ShmLayout.LEDGER_SIZE, (byte)0);
        final int base = (int)ShmLayout.slotOffset(slot);
        buffer.setMemory(base + 4, ShmLayout.SLOT_SIZE - 4, (byte)0);
        rings[slot] = null;
        slotCursors[slot] = null;
        buffer.putIntOrdered(base + ShmLayout.SLOT_STATE, ShmLayout.SLOT_FREE);
        return counters;
    }

    /** The file offset of a slot's thread ledger (faultline_shm.h). */
    public long ledgerOffset(final int slot)
    {
        return buffer.getLong(ShmLayout.CTL_LEDGER_OFFSET) + (long)slot * ShmLayout.LEDGER_SIZE;
    }

    /** Monitor mode: the file offset of a slot's sampling board (faultline_shm.h). */
    public long boardOffset(final int slot)
    {
        return buffer.getLong(ShmLayout.CTL_BOARD_OFFSET) + slot * buffer.getLong(ShmLayout.CTL_BOARD_STRIDE);
    }

    /** Monitor mode: entries of each sampling board. */
    public int boardEntries()
    {
        return buffer.getInt(ShmLayout.CTL_BOARD_ENTRIES);
    }

    /** Asks every agent to restore its pages and stop tracing. */
    public void requestStop()
    {
        buffer.putIntVolatile(ShmLayout.CTL_STOP, 1);
    }

    public long startMonoNs()
    {
        return buffer.getLong(ShmLayout.CTL_START_MONO_NS);
    }

    public long clock()
    {
        return buffer.getLongVolatile(ShmLayout.CTL_CLOCK);
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapped);
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignored)
        {
            // a stale file is removed by its guard or the next recording
        }
        if (guard != null)
        {
            guard.close();
        }
    }
}
