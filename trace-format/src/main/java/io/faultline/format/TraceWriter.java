package io.faultline.format;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import com.github.luben.zstd.ZstdCompressCtx;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * Writes a trace directory: the header (state=recording at once, state=complete at
 * {@link #finish}) and a Chronicle Queue of blocks (format 4, trace-format/FORMAT.md "Blocks"):
 * it is handed the chunks and events of the agents' rings, exactly as the agent wrote them, one
 * process's in seq order, and codes each process's items into blocks of its own
 * ({@link BlockEncoder}) with their checksums. One thread writes (the recorder's logger, or the
 * thread that takes over from it); the writer's own flusher thread writes the blocks that the
 * time bound makes due.
 * <p>
 * A block is written when it holds {@link #BLOCK_ITEMS} items (or nearly as many bytes as
 * Chronicle takes in one excerpt), when its process's exit event has come, when the trace is
 * finished or closed, and at the latest {@link #FLUSH_NS} after its first item came, so that a
 * recorder that dies loses at most the last 100 ms of what its writer was handed (what reached
 * the queue is in the page cache, and outlives the process).
 * <p>
 * A header whose format_version is 3, and a DAMON monitoring record (header key content), are
 * written as they always were: one excerpt per {@link #write}, its kind and the payload
 * unchanged (version-3 traces for the tests of the readers that still read them).
 * <p>
 * While it writes, the writer holds a write lock (fcntl, through {@link FileChannel#tryLock}) on
 * the starting header, so that a reader in another process can tell a trace still being
 * recorded from one whose recorder died, both state=recording ({@link #isBeingWritten}). The
 * kernel drops the lock with the process, so a killed recorder leaves no lock behind.
 */
public final class TraceWriter implements AutoCloseable
{
    /**
     * The trace directories this JVM is writing. A reader here must not test the lock itself:
     * fcntl locks belong to the process, so the reader's test would succeed against its own
     * writer's lock, and closing the reader's channel would drop that lock.
     */
    private static final Set<Path> WRITING = ConcurrentHashMap.newKeySet();

    /**
     * Chronicle's block for a trace recorded with the default 4 MiB rings: its cycle file grows
     * by a block at a time (64 MiB by default on a 64-bit JVM), and a partial trace, which no
     * writer trims ({@link QueueFiles}), keeps up to a block of zeros. Writing took as long with
     * 4 MiB blocks as with 64 MiB, trimming 3 to 37 ms instead of 213 to 946 (BENCHMARKS.md,
     * "Trace files").
     */
    public static final long BLOCK_SIZE = 4L << 20;
    /** Chronicle's own default block, for what is not a trace (a monitoring record's larger snapshots). */
    private static final long CHRONICLE_BLOCK_SIZE = 64L << 20;

    /**
     * Bytes written between two reopenings of the queue ({@link #reopen}): Chronicle's default
     * block on 64-bit, so that at most a few blocks' index arrays stay mapped besides the one
     * being written.
     */
    static final long REOPEN_BYTES = 64L << 20;

    /**
     * How the queue is laid out: blocks of {@link #blockSize(String)} and Chronicle's index arrays
     * for a trace (0: Chronicle's default); a test shrinks the blocks and the index arrays, which
     * are a queue file's own header fields, to reach in thousands of excerpts what a recording
     * reaches in millions, or gives the queue a clock of its own (null: the wall clock), to cross
     * midnight UTC, where the daily roll cycle starts a new file.
     */
    record QueueShape(long blockSize, int indexCount, long reopenBytes, TimeProvider time, int blockItems, long flushNs)
    {
        QueueShape(final long blockSize, final int indexCount, final long reopenBytes)
        {
            this(blockSize, indexCount, reopenBytes, null, BLOCK_ITEMS, FLUSH_NS);
        }

        QueueShape(final long blockSize, final int indexCount, final long reopenBytes, final TimeProvider time)
        {
            this(blockSize, indexCount, reopenBytes, time, BLOCK_ITEMS, FLUSH_NS);
        }

        /** The same, with blocks of at most {@code items} items (a test's many blocks from a small trace). */
        QueueShape withBlockItems(final int items)
        {
            return new QueueShape(blockSize, indexCount, reopenBytes, time, items, flushNs);
        }

        /** The same, with another time bound (a test that fills a block whatever the machine's load). */
        QueueShape withFlushNs(final long ns)
        {
            return new QueueShape(blockSize, indexCount, reopenBytes, time, blockItems, ns);
        }
    }

    /** Items of one process in one block at most: the block size BENCHMARKS.md ("Compact traces") chose. */
    static final int BLOCK_ITEMS = 65_536;
    /** How long the first item of a block may wait for the block to be written: the most a dying recorder loses. */
    public static final long FLUSH_NS = 100_000_000L;

    private final Path dir;
    /** The identity (device and inode) of the directory {@link #create} made or found, or null where there is none. */
    private final Object dirKey;
    /**
     * The directory held open while the writer is: a removed directory's inode is not freed, and so
     * not given to a directory made again at its path, while a descriptor holds it (ext4 gives a new
     * directory the inode just freed). Null where it cannot be opened.
     */
    private final FileChannel dirPin;
    /** {@link #directoryReplaced}'s answer as the end of writing found it, before the pin let the directory go. */
    private Boolean replacedAtClose;
    private final QueueShape shape;
    private ChronicleQueue queue;
    private ExcerptAppender appender;
    private long sinceReopen;
    private byte[] scratch = new byte[64 * 1024];
    private boolean finished;
    private final FileChannel lockChannel;

    /** Null when the writer writes excerpts as they come (version 3, monitoring records). */
    private final Int2ObjectHashMap<BlockEncoder> encoders;
    /** The processes whose block holds items, oldest first item first. */
    private final ArrayDeque<BlockEncoder> pending = new ArrayDeque<>();
    private final BlockEncoder.Output block = new BlockEncoder.Output();
    /** Null until the first block: a version-3 trace or a monitoring record needs none. */
    private ZstdCompressCtx zstd;
    private final CRC32C crc = new CRC32C();
    /** Bytes of body a block may hold: with its header, less than the quarter block Chronicle takes in one excerpt. */
    private final int blockRawLimit;
    /** The earliest process-start event's time and the earliest time of all, of the blocks written. */
    private long processStartNs = Long.MAX_VALUE;
    private long firstTimeNs = Long.MAX_VALUE;
    /** References in what reached the queue: less than what the writer was handed while blocks wait. */
    private long referencesWritten;
    private Thread flusher;
    /** What the flusher thread met writing, thrown at the next write: the trace's writer must hear of it. */
    private RuntimeException flushFailure;
    private boolean closed;

    private TraceWriter(final Path dir, final QueueShape shape, final ChronicleQueue queue, final FileChannel lockChannel,
        final boolean blocks)
    {
        this.dir = dir;
        this.dirPin = pin(dir);
        this.dirKey = fileKey(dir);
        this.shape = shape;
        this.queue = queue;
        this.appender = queue.createAppender();
        this.lockChannel = lockChannel;
        this.encoders = blocks ? new Int2ObjectHashMap<>() : null;
        final long chronicleBlock = shape.blockSize() > 0 ? shape.blockSize() : CHRONICLE_BLOCK_SIZE;
        this.blockRawLimit = (int)Math.min(16L << 20, chronicleBlock / 4 - 4 - BlockDescriptor.HEADER_SIZE - 4096);
        if (blocks)
        {
            // the flusher writes too: Chronicle's appender checks that one thread uses it, and the
            // writer's lock makes the two take turns
            appender.singleThreadedCheckDisabled(true);
            flusher = new Thread(this::flushLoop, "faultline-trace-flusher");
            flusher.setDaemon(true);
            // what escapes flushLoop's own catch (an asynchronous fault raised inside it) goes the same way
            flusher.setUncaughtExceptionHandler((thread, ex) -> flushFailed(ex));
            flusher.start();
        }
    }

    /** Whether a trace with this starting header is written in blocks (format 4): not for version 3, nor for a monitoring record. */
    private static boolean inBlocks(final TraceHeader start)
    {
        final String version = start.get(TraceHeader.FORMAT_VERSION);
        return start.get(TraceHeader.CONTENT) == null && (version == null || !version.trim().equals("3"));
    }

    private static ChronicleQueue openQueue(final Path dir, final QueueShape shape)
    {
        final SingleChronicleQueueBuilder builder = SingleChronicleQueueBuilder.binary(dir.resolve(TraceLayout.QUEUE_DIR).toFile());
        if (shape.blockSize() > 0)
        {
            builder.blockSize(shape.blockSize());
        }
        if (shape.indexCount() > 0)
        {
            builder.indexCount(shape.indexCount());
        }
        if (shape.time() != null)
        {
            builder.timeProvider(shape.time());
        }
        return builder.build();
    }

    /**
     * Creates the trace directory (which may exist only if empty) and writes the starting header.
     *
     * @throws TraceFormatException if the directory holds anything or cannot be written
     */
    public static TraceWriter create(final Path dir, final TraceHeader start) throws IOException
    {
        return create(dir, start, shape(start));
    }

    /**
     * The block for a queue whose largest excerpt is a ring message: Chronicle takes excerpts of up
     * to a quarter block less 4 bytes (1,048,572 bytes in 4 MiB blocks, checked), and a ring
     * message (Agrona) is at most an eighth of the ring, plus the excerpt's kind; so blocks of the
     * ring's size, at least {@link #BLOCK_SIZE}. Without a ring (a monitoring record), Chronicle's.
     */
    static long blockSize(final String ringCapacity)
    {
        if (ringCapacity == null)
        {
            return CHRONICLE_BLOCK_SIZE;
        }
        try
        {
            return Math.max(BLOCK_SIZE, Long.highestOneBit(Math.max(1, Long.parseLong(ringCapacity.trim()) - 1)) << 1);
        }
        catch (final NumberFormatException ex)
        {
            return CHRONICLE_BLOCK_SIZE;
        }
    }

    /** The shape {@link #create(Path, TraceHeader)} gives a trace with this starting header. */
    static QueueShape shape(final TraceHeader start)
    {
        return new QueueShape(blockSize(start.get(TraceHeader.RING_CAPACITY)), 0, REOPEN_BYTES);
    }

    /** As {@link #create(Path, TraceHeader)}, with Chronicle blocks of {@code blockSize} bytes (benchmarks). */
    public static TraceWriter create(final Path dir, final TraceHeader start, final long blockSize) throws IOException
    {
        return create(dir, start, new QueueShape(blockSize, 0, REOPEN_BYTES));
    }

    static TraceWriter create(final Path dir, final TraceHeader start, final QueueShape shape) throws IOException
    {
        checkUsable(dir);
        try
        {
            Files.createDirectories(dir);
        }
        catch (final IOException ex)
        {
            // /proc/foo: the parent is writable to root, yet mkdir fails; say the OS's reason
            throw new TraceFormatException("cannot create output directory " + dir + ": " + InputProblem.reason(ex)
                + "; choose another -o", InputProblem.UNREADABLE);
        }
        start.put(TraceHeader.STATE, TraceLayout.STATE_RECORDING);
        final Path headerFile = dir.resolve(TraceLayout.HEADER_FILE);
        start.write(headerFile);
        final FileChannel lockChannel = lockWhileWriting(headerFile);
        final ChronicleQueue queue = openQueue(dir, shape);
        WRITING.add(dir.toAbsolutePath().normalize());
        return new TraceWriter(dir, shape, queue, lockChannel, inBlocks(start));
    }

    /**
     * The starting header's channel, write-locked; null where the file system takes no locks
     * (readers then cannot tell a live recording from a dead one, and say it stopped).
     */
    private static FileChannel lockWhileWriting(final Path headerFile)
    {
        try
        {
            final FileChannel channel = FileChannel.open(headerFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
            try
            {
                if (channel.tryLock() != null)
                {
                    return channel;
                }
            }
            catch (final IOException | OverlappingFileLockException ex)
            {
                // no lock: as below
            }
            channel.close();
        }
        catch (final IOException ex)
        {
            // the header was just written, so this is a file system without locks: as above
        }
        return null;
    }

    private static FileChannel pin(final Path dir)
    {
        try
        {
            return FileChannel.open(dir, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return null;
        }
    }

    private static Object fileKey(final Path dir)
    {
        try
        {
            return Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /**
     * Whether the trace's directory is no longer the one this writer began in: removed, or
     * removed and made again. Chronicle makes a queue's directory, parents included, when it
     * creates a file there, so a trace directory removed before the queue's first file (or a
     * reopening) comes back with only the writes made since; the path alone cannot tell.
     */
    public synchronized boolean directoryReplaced()
    {
        if (replacedAtClose != null)
        {
            return replacedAtClose;
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS))
        {
            return true;
        }
        final Object now = fileKey(dir);
        return dirPin != null && dirKey != null && now != null && !dirKey.equals(now);
    }

    /**
     * After {@link #directoryReplaced} and {@link #close}: removes what this writer's queue made
     * at the trace's path since (the queue's files and directory, and the trace directory if that
     * leaves it empty), so that a directory the user removed stays removed. Anything else found
     * there is left alone. Best effort: what cannot be removed stays.
     */
    public void removeRemade()
    {
        final Path queueDir = dir.resolve(TraceLayout.QUEUE_DIR);
        try
        {
            if (Files.isDirectory(queueDir, LinkOption.NOFOLLOW_LINKS))
            {
                try (Stream<Path> files = Files.list(queueDir))
                {
                    for (final Path file : (Iterable<Path>)files::iterator)
                    {
                        final String name = file.getFileName().toString();
                        if (name.endsWith(".cq4") || name.endsWith(".cq4t"))
                        {
                            Files.deleteIfExists(file);
                        }
                    }
                }
                Files.deleteIfExists(queueDir);
            }
            Files.deleteIfExists(dir);
        }
        catch (final IOException ex)
        {
            // a file of someone else's in either directory (DirectoryNotEmptyException): it stays
        }
    }

    /**
     * Whether a recorder is writing the trace in {@code dir} now: its header is state=recording
     * and a live process (this one or another) holds the write lock on it. False for a trace
     * whose recorder died, and where the file system takes no locks.
     */
    public static boolean isBeingWritten(final Path dir)
    {
        if (WRITING.contains(dir.toAbsolutePath().normalize()))
        {
            return true;
        }
        try (FileChannel channel = FileChannel.open(dir.resolve(TraceLayout.HEADER_FILE), StandardOpenOption.READ))
        {
            final FileLock lock = channel.tryLock(0, Long.MAX_VALUE, true);
            if (lock == null)
            {
                return true; // another process holds the writer's lock
            }
            lock.release();
            return false;
        }
        catch (final IOException | OverlappingFileLockException ex)
        {
            return false;
        }
    }

    /** Fails with a one-line reason if {@code dir} cannot receive a new trace. */
    public static void checkUsable(final Path dir) throws IOException
    {
        checkUsable(dir, "-o");
    }

    /**
     * As {@link #checkUsable(Path)}; {@code option} names where the user gave the directory
     * (the fix in the message says to change it).
     */
    public static void checkUsable(final Path dir, final String option) throws IOException
    {
        if (Files.exists(dir))
        {
            if (!Files.isDirectory(dir))
            {
                throw new TraceFormatException("output " + dir + " exists and is not a directory; choose another " + option,
                    InputProblem.MISUSED);
            }
            if (holdsTrace(dir))
            {
                throw new TraceFormatException("output " + dir + " already holds a trace; choose another " + option
                    + " or delete it", InputProblem.MISUSED);
            }
            try (Stream<Path> entries = Files.list(dir))
            {
                if (entries.findAny().isPresent())
                {
                    throw new TraceFormatException("output directory " + dir + " is not empty; choose a new or empty "
                        + "directory", InputProblem.MISUSED);
                }
            }
            if (!Files.isWritable(dir))
            {
                throw new TraceFormatException("cannot write to output directory " + dir + ": permission denied; choose a "
                    + "writable " + option, InputProblem.UNREADABLE);
            }
        }
        else
        {
            Path parent = dir.toAbsolutePath().getParent();
            while (parent != null && !Files.exists(parent))
            {
                parent = parent.getParent();
            }
            if (parent != null && !Files.isDirectory(parent))
            {
                throw new TraceFormatException("cannot create output directory " + dir + ": " + parent
                    + " is not a directory; choose another " + option, InputProblem.MISUSED);
            }
            if (parent == null || !Files.isWritable(parent))
            {
                throw new TraceFormatException("cannot create output directory " + dir + ": " + parent
                    + " is not writable; choose a writable " + option, InputProblem.UNREADABLE);
            }
        }
    }

    /** {@code dir} holds a trace's header or queue (perhaps of an incomplete trace, or a monitoring record). */
    public static boolean holdsTrace(final Path dir)
    {
        return Files.exists(dir.resolve(TraceLayout.HEADER_FILE)) || Files.exists(dir.resolve(TraceLayout.QUEUE_DIR));
    }

    /**
     * Empties {@code dir} of the trace it holds, so that a new one can be written there
     * ({@code record --force}). Only a trace is removed: a directory holding anything besides a
     * trace's header and its queue's files (a monitoring record, other files, a header that is not
     * a trace's) is refused with a one-line reason and left as it was. A missing or empty directory
     * is left alone.
     *
     * @throws TraceFormatException naming what makes {@code dir} not a trace
     */
    public static void removeTrace(final Path dir, final String option) throws IOException
    {
        if (!Files.isDirectory(dir) || isEmpty(dir))
        {
            return; // checkUsable says what is wrong with a file in its place
        }
        final String notTrace = notATrace(dir);
        if (notTrace != null)
        {
            throw new TraceFormatException("output " + dir + " is not a trace (" + notTrace + "), and --force replaces "
                + "only a trace; choose another " + option);
        }
        final Path queueDir = dir.resolve(TraceLayout.QUEUE_DIR);
        if (Files.isDirectory(queueDir, LinkOption.NOFOLLOW_LINKS))
        {
            try (Stream<Path> files = Files.list(queueDir))
            {
                for (final Path file : (Iterable<Path>)files::iterator)
                {
                    Files.delete(file);
                }
            }
            Files.delete(queueDir);
        }
        Files.delete(dir.resolve(TraceLayout.HEADER_FILE));
    }

    /** Why {@code dir} is not a trace that {@link #removeTrace} may delete, or null if it is one. */
    private static String notATrace(final Path dir) throws IOException
    {
        try (Stream<Path> entries = Files.list(dir))
        {
            for (final Path entry : (Iterable<Path>)entries::iterator)
            {
                final String name = entry.getFileName().toString();
                if (!name.equals(TraceLayout.HEADER_FILE) && !name.equals(TraceLayout.QUEUE_DIR))
                {
                    return "it holds " + name + ", which no trace has";
                }
            }
        }
        final Path headerFile = dir.resolve(TraceLayout.HEADER_FILE);
        if (!Files.isRegularFile(headerFile, LinkOption.NOFOLLOW_LINKS))
        {
            return "it has no " + TraceLayout.HEADER_FILE;
        }
        final TraceHeader header = TraceHeader.read(headerFile);
        if (TraceLayout.CONTENT_MONITOR.equals(header.get(TraceHeader.CONTENT)))
        {
            return "it is a DAMON monitoring record";
        }
        if (header.get(TraceHeader.CONTENT) != null)
        {
            return "its header says it holds " + header.get(TraceHeader.CONTENT);
        }
        if (header.get(TraceHeader.FORMAT_VERSION) == null)
        {
            return "its " + TraceLayout.HEADER_FILE + " has no " + TraceHeader.FORMAT_VERSION;
        }
        final Path queueDir = dir.resolve(TraceLayout.QUEUE_DIR);
        if (Files.exists(queueDir, LinkOption.NOFOLLOW_LINKS))
        {
            if (!Files.isDirectory(queueDir, LinkOption.NOFOLLOW_LINKS))
            {
                return "its " + TraceLayout.QUEUE_DIR + " is not a directory";
            }
            try (Stream<Path> files = Files.list(queueDir))
            {
                for (final Path file : (Iterable<Path>)files::iterator)
                {
                    final String name = file.getFileName().toString();
                    // Chronicle Queue's roll files and its metadata file (queue/metadata.cq4t)
                    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                        || !(name.endsWith(".cq4") || name.endsWith(".cq4t")))
                    {
                        return "its " + TraceLayout.QUEUE_DIR + " holds " + name + ", which no trace has";
                    }
                }
            }
        }
        return null;
    }

    private static boolean isEmpty(final Path dir) throws IOException
    {
        try (Stream<Path> entries = Files.list(dir))
        {
            return entries.findAny().isEmpty();
        }
    }

    public Path dir()
    {
        return dir;
    }

    /**
     * Hands the writer one chunk or event of the agents' rings ({@code kind}
     * {@link TraceLayout#EXCERPT_CHUNK} or {@link TraceLayout#EXCERPT_EVENT}, {@code length} bytes
     * of {@code buffer} at {@code offset}: FORMAT.md, "Ring messages"), in seq order within its
     * process. A monitoring record's excerpts, and a version-3 trace's, are appended as they come.
     */
    public synchronized void write(final int kind, final DirectBuffer buffer, final int offset, final int length)
    {
        if (flushFailure != null)
        {
            final RuntimeException failure = flushFailure;
            flushFailure = null;
            throw failure;
        }
        if (encoders == null)
        {
            append(kind, buffer, offset, length);
            return;
        }
        if (kind != TraceLayout.EXCERPT_CHUNK && kind != TraceLayout.EXCERPT_EVENT)
        {
            throw new IllegalArgumentException("excerpt kind " + kind + " is neither a chunk nor an event");
        }
        final int pid = buffer.getInt(offset + (kind == TraceLayout.EXCERPT_CHUNK ? ChunkDescriptor.PID : EventDescriptor.PID),
            ByteOrder.LITTLE_ENDIAN);
        BlockEncoder encoder = encoders.get(pid);
        if (encoder == null)
        {
            encoder = new BlockEncoder(pid);
            encoders.put(pid, encoder);
        }
        if (encoder.items() > 0 && (encoder.rawLength() + length + 64 > blockRawLimit
            || encoder.wouldGoBack(firstKey(kind, buffer, offset))))
        {
            writeBlock(encoder);
        }
        final long now = System.nanoTime();
        if (encoder.items() == 0)
        {
            encoder.openedNs = now;
            pending.addLast(encoder);
        }
        if (kind == TraceLayout.EXCERPT_CHUNK)
        {
            encoder.addChunk(buffer, offset, length);
        }
        else
        {
            encoder.addEvent(buffer, offset, length);
        }
        if (encoder.items() >= shape.blockItems() || kind == TraceLayout.EXCERPT_EVENT
            && buffer.getInt(offset + EventDescriptor.TYPE, ByteOrder.LITTLE_ENDIAN) == EventType.PROCESS_EXIT.code())
        {
            // a process that exited writes no more: its block need not wait
            writeBlock(encoder);
        }
        writeDue(now);
    }

    /** The order key of the first item of a chunk or event (FORMAT.md, "Order"). */
    private static long firstKey(final int kind, final DirectBuffer buffer, final int offset)
    {
        if (kind == TraceLayout.EXCERPT_EVENT)
        {
            return buffer.getLong(offset + EventDescriptor.SEQ, ByteOrder.LITTLE_ENDIAN);
        }
        if (ChunkDescriptor.isMoca(buffer.getInt(offset + ChunkDescriptor.FLAGS, ByteOrder.LITTLE_ENDIAN)))
        {
            return buffer.getLong(offset + ChunkDescriptor.MOCA_CLOSE_SEQ, ByteOrder.LITTLE_ENDIAN);
        }
        return buffer.getInt(offset + ChunkDescriptor.COUNT, ByteOrder.LITTLE_ENDIAN) == 0 ? Long.MAX_VALUE
            : buffer.getLong(offset + ChunkDescriptor.recordOffset(0) + ChunkDescriptor.RECORD_SEQ, ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Writes every block that holds items now, whatever its age: what the writer was handed so
     * far is then in the queue, where a reader in another process sees it.
     */
    public synchronized void flush()
    {
        if (encoders != null && !queue.isClosed())
        {
            writeAll();
        }
    }

    /** Writes the blocks whose first item came {@link #FLUSH_NS} or more before {@code now}. */
    private void writeDue(final long now)
    {
        BlockEncoder oldest;
        while ((oldest = pending.peekFirst()) != null && now - oldest.openedNs >= shape.flushNs())
        {
            writeBlock(oldest);
        }
    }

    /** Writes every block that holds items, oldest first. */
    private void writeAll()
    {
        BlockEncoder oldest;
        while ((oldest = pending.peekFirst()) != null)
        {
            writeBlock(oldest);
        }
    }

    private void writeBlock(final BlockEncoder encoder)
    {
        pending.remove(encoder);
        if (zstd == null)
        {
            zstd = BlockEncoder.compressor();
        }
        if (encoder.items() > 0)
        {
            firstTimeNs = Math.min(firstTimeNs, encoder.minTime());
            if (encoder.startTime() != BlockDescriptor.NO_TIME)
            {
                processStartNs = Math.min(processStartNs, encoder.startTime());
            }
        }
        final int records = encoder.records();
        if (encoder.block(block, zstd, crc))
        {
            sinceReopen += block.length + 8;
            if (sinceReopen > shape.reopenBytes())
            {
                reopen();
            }
            try (DocumentContext dc = appender.writingDocument())
            {
                dc.wire().bytes().write(block.bytes, 0, block.length);
            }
            referencesWritten += records;
        }
    }

    /**
     * References in the blocks (or, in version 3, the chunks) that reached the queue: what a trace
     * that stopped early holds, where the recorder's own count is what it handed over.
     */
    public synchronized long referencesWritten()
    {
        return referencesWritten;
    }

    private void flushLoop()
    {
        try
        {
            while (true)
            {
                Thread.sleep(Math.max(1, Math.min(FLUSH_NS, shape.flushNs()) / 4_000_000L));
                synchronized (this)
                {
                    if (closed)
                    {
                        return;
                    }
                    writeDue(System.nanoTime());
                }
            }
        }
        catch (final InterruptedException ex)
        {
            // closed
        }
        catch (final RuntimeException | Error ex)
        {
            // a full file system, a removed directory: the next write throws it to the logger. The whole
            // loop, the sleep included: the JVM raises a fault of a store into the mapped queue file
            // (InternalError, "a fault occurred in a recent unsafe memory access operation") at the
            // thread's next safepoint, which can come after the write returned, in the sleep; uncaught,
            // it would end the thread with a stack trace on the traced program's stderr
            flushFailed(ex);
        }
    }

    private synchronized void flushFailed(final Throwable ex)
    {
        if (flushFailure == null)
        {
            flushFailure = ex instanceof RuntimeException ? (RuntimeException)ex
                : new IllegalStateException("the trace cannot be written", ex);
        }
    }

    /** Appends one excerpt of {@code kind} holding {@code length} bytes of {@code buffer} at {@code offset}. */
    private void append(final int kind, final DirectBuffer buffer, final int offset, final int length)
    {
        sinceReopen += length + 8;
        if (sinceReopen > shape.reopenBytes())
        {
            reopen();
        }
        if (scratch.length < length)
        {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        buffer.getBytes(offset, scratch, 0, length);
        try (DocumentContext dc = appender.writingDocument())
        {
            final Bytes<?> bytes = dc.wire().bytes();
            bytes.writeInt(kind);
            bytes.write(scratch, 0, length);
        }
        if (kind == TraceLayout.EXCERPT_CHUNK && length >= ChunkDescriptor.HEADER_SIZE)
        {
            referencesWritten += buffer.getInt(offset + ChunkDescriptor.COUNT, ByteOrder.LITTLE_ENDIAN);
        }
    }

    /**
     * Closes the queue and opens it again, appending where it ended. Chronicle Queue (5.27ea5)
     * keeps the queue file's 80 MiB mappings of every index array it used across a garbage
     * collection: its SCQIndexing holds each thread's index arrays through a weak reference, and a
     * collection makes it bind a new one while the old stays in its list of closeables, reserving
     * its chunk, until the queue is closed. A recorder collects every few minutes, so its resident
     * set grew with the trace (BENCHMARKS.md, "Long runs": 0.5 GiB of mapped queue file after
     * 40 minutes); closing frees them all, and the new appender finds the queue's end through its
     * index (a scan of at most 64 excerpts).
     */
    private void reopen()
    {
        sinceReopen = 0;
        appender.close();
        queue.close();
        queue = openQueue(dir, shape);
        appender = queue.createAppender();
        if (encoders != null)
        {
            appender.singleThreadedCheckDisabled(true);
        }
    }

    /**
     * The calling thread takes over writing from the thread that wrote until now, which has
     * stopped. Chronicle's appender is single-threaded and checks it: it refuses a second thread
     * while the first is still alive, and a thread that has finished its work can still be
     * alive for a moment (Agrona's AgentRunner.close returns once the agent is closed, before its
     * thread ends).
     */
    public synchronized void takeOver()
    {
        appender.singleThreadedCheckReset();
    }

    /**
     * The program's start, which readers count times from (FORMAT.md, "Time"), in the final
     * header of a trace in blocks: readers take it from there, so that damage that takes the
     * process-start event's block does not move every time they deliver.
     */
    private void programStart(final TraceHeader end)
    {
        if (encoders != null)
        {
            end.put(TraceHeader.PROGRAM_START_NS, processStartNs == Long.MAX_VALUE ? 0
                : Math.min(processStartNs, firstTimeNs));
        }
    }

    /** Writes the final header (state=complete) after every excerpt, then closes the queue. */
    public synchronized void finish(final TraceHeader end) throws IOException
    {
        if (encoders != null)
        {
            writeAll();
        }
        programStart(end);
        closeQueue();
        QueueFiles.trim(dir.resolve(TraceLayout.QUEUE_DIR));
        end.put(TraceHeader.STATE, TraceLayout.STATE_COMPLETE);
        end.write(dir.resolve(TraceLayout.HEADER_FILE));
        finished = true;
        // only now: a reader between the queue's close and the new header would call the trace dead
        unlock();
    }

    /**
     * Marks a trace whose recording stopped early (state=incomplete, with the cause and when):
     * the blocks that wait are written if the queue still takes them, the queue is closed as it
     * is, every excerpt written so far kept, and the header's {@code references}, where it has
     * one, made what the queue holds. The header is small, but on a full file system even it may
     * not fit: then the trace keeps state=recording, which readers also take as partial.
     */
    public synchronized void finishIncomplete(final TraceHeader end) throws IOException
    {
        try
        {
            if (encoders != null)
            {
                writeAll();
            }
            settle();
        }
        catch (final RuntimeException | InternalError ex)
        {
            // what did not fit is lost with the stop; the blocks before it are whole
        }
        programStart(end);
        if (encoders != null && end.get(TraceHeader.REFERENCES) != null)
        {
            end.put(TraceHeader.REFERENCES, referencesWritten); // what the queue holds, blocks that did not fit not counted
        }
        try
        {
            closeQueue();
            settle();
            QueueFiles.trim(dir.resolve(TraceLayout.QUEUE_DIR));
        }
        catch (final RuntimeException | InternalError | IOException ex)
        {
            // the queue's own end-of-file marker could not be written (or the files not cut to it, a full
            // file system): readers stop at the last whole excerpt
        }
        try
        {
            end.put(TraceHeader.STATE, TraceLayout.STATE_INCOMPLETE);
            end.write(dir.resolve(TraceLayout.HEADER_FILE));
            finished = true;
        }
        finally
        {
            unlock();
        }
    }

    public boolean isFinished()
    {
        return finished;
    }

    /**
     * Writes the blocks that hold items and closes the queue; the trace is no longer written (its
     * lock goes too).
     */
    @Override
    public synchronized void close()
    {
        try
        {
            if (encoders != null && !queue.isClosed())
            {
                writeAll();
            }
            settle();
        }
        catch (final RuntimeException | InternalError ex)
        {
            // the queue cannot take them (a full file system): what it holds stays readable
        }
        try
        {
            closeQueue();
            settle();
        }
        catch (final RuntimeException | InternalError ex)
        {
            // the queue's end-of-file marker did not fit: readers stop at the last whole excerpt
        }
        finally
        {
            unlock();
        }
    }

    /**
     * Takes delivery, here, of a fault of a store into the mapped queue file (a full file system).
     * HotSpot raises it as an InternalError not at the store but when this thread next comes back
     * from native code or the VM (the thread's pending unsafe-access error): a native call inside
     * the try that expects it keeps it from surfacing in whatever code comes next.
     */
    private static void settle()
    {
        Thread.yield();
    }

    private void closeQueue()
    {
        closed = true;
        if (zstd != null)
        {
            zstd.close();
            zstd = null;
        }
        if (flusher != null)
        {
            flusher.interrupt();
            flusher = null;
        }
        if (!queue.isClosed())
        {
            appender.close();
            queue.close();
        }
    }

    /** The end of writing: the header's lock goes, and the directory's pin once it has said whether it was replaced. */
    private void unlock()
    {
        WRITING.remove(dir.toAbsolutePath().normalize());
        if (lockChannel != null && lockChannel.isOpen())
        {
            try
            {
                lockChannel.close(); // releases the lock
            }
            catch (final IOException ex)
            {
                // the process's lock goes with it at the latest
            }
        }
        if (replacedAtClose == null)
        {
            replacedAtClose = directoryReplaced();
        }
        if (dirPin != null)
        {
            try
            {
                dirPin.close();
            }
            catch (final IOException ex)
            {
                // the process's descriptor goes with it at the latest
            }
        }
    }
}
