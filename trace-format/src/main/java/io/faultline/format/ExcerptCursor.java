package io.faultline.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads a trace's queue one excerpt at a time, safely: each excerpt is copied out of the
 * mapped queue file into a buffer of our own and checked ({@link ExcerptCheck}) before anyone
 * sees it.
 * <p>
 * Chronicle reads its files through mapped memory. Touching a mapped page that lies past the
 * end of a file (a queue file cut short by a crash or a copy, or a damaged length word that
 * sends Chronicle past the end) raises SIGBUS. In compiled code the JVM lets the read return
 * garbage and throws {@code InternalError: a fault occurred in a recent unsafe memory access
 * operation} later, wherever the thread happens to be: it cannot be caught where it happened.
 * So the cursor never lets Chronicle go where the file does not reach: before each
 * {@code readingDocument} it walks the Chronicle header words Chronicle is about to read (each
 * a u32: bit 31 not complete, bit 30 metadata, the rest the length; metadata documents are
 * skipped, each header on a 4-byte boundary), reading them with positional file reads rather
 * than through the mapping, and checks that every document it will touch ends inside the file.
 */
final class ExcerptCursor implements AutoCloseable
{
    /** Outcome of {@link #next}. */
    enum Step { EXCERPT, OTHER, CORRUPT, BROKEN, END }

    private static final int HEADER_WORD = 4;
    private static final int NOT_COMPLETE = 0x80000000;
    private static final int META_DATA = 0x40000000;
    private static final int LENGTH_MASK = 0x3fffffff;
    private static final int END_OF_FILE = NOT_COMPLETE | META_DATA;

    private final SingleChronicleQueue queue;
    private final ExcerptTailer tailer;
    private final DateTimeFormatter fileNames;
    private final long cycleMillis;
    private byte[] data = new byte[4096];
    private final UnsafeBuffer view = new UnsafeBuffer(data);
    private int length;
    private long index = -1;
    private long ordinal = -1;
    private String problem;
    private int cycle = Integer.MIN_VALUE;
    private Path file;
    private long fileLength;
    /** File position of the next Chronicle header word; -1 when not known. */
    private long nextHeader = -1;
    private FileChannel channel;
    private final ByteBuffer window = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    private long windowStart = -1;

    ExcerptCursor(final SingleChronicleQueue queue)
    {
        this.queue = queue;
        this.tailer = queue.createTailer();
        final RollCycle roll = queue.rollCycle();
        this.fileNames = DateTimeFormatter.ofPattern(roll.format()).withZone(ZoneOffset.UTC);
        this.cycleMillis = roll.lengthInMillis();
    }


    /**
     * Reads the next excerpt.
     *
     * @param pid copy and check only excerpts of this process (others come back as
     *            {@link Step#OTHER}, checked only as far as their pid), or 0 for every excerpt
     */
    Step next(final int pid)
    {
        ordinal++;
        problem = null;
        try
        {
            if (nextHeader < 0 && ordinal == 0)
            {
                // Chronicle starts at its first cycle's file, whose name sorts first.
                final Path first = firstFile();
                if (first != null)
                {
                    open(first);
                    nextHeader = 0;
                }
            }
            if (nextHeader >= 0)
            {
                problem = walk();
                if (problem != null)
                {
                    return Step.BROKEN;
                }
            }
            try (DocumentContext dc = tailer.readingDocument())
            {
                if (!dc.isPresent())
                {
                    return Step.END;
                }
                index = dc.index();
                locate(tailer.cycle());
                final Bytes<?> bytes = dc.wire().bytes();
                final long start = bytes.readPosition();
                final long end = bytes.readLimit();
                nextHeader = (end + HEADER_WORD - 1) & ~(long)(HEADER_WORD - 1);
                if (end > fileLength && end > (fileLength = channel.size()))
                {
                    problem = "the queue file ends inside it (" + fileLength + " bytes, the excerpt ends at " + end + ")";
                    return Step.BROKEN;
                }
                final long size = end - start;
                if (size > Integer.MAX_VALUE - 8)
                {
                    problem = "it is " + size + " bytes long";
                    return Step.CORRUPT;
                }
                length = (int)size;
                if (pid != 0 && length >= 12)
                {
                    final int kind = bytes.readInt(start);
                    final int owner = bytes.readInt(start + TraceLayout.EXCERPT_KIND_SIZE
                        + (kind == TraceLayout.EXCERPT_EVENT ? EventDescriptor.PID : ChunkDescriptor.PID));
                    if (owner != pid && (kind == TraceLayout.EXCERPT_CHUNK || kind == TraceLayout.EXCERPT_EVENT))
                    {
                        return Step.OTHER;
                    }
                }
                if (data.length < length)
                {
                    data = new byte[Math.max(length, data.length * 2)];
                    view.wrap(data);
                }
                bytes.read(data, 0, length);
            }
        }
        catch (final IOException ex)
        {
            problem = "the queue file cannot be read (" + QueueFaults.describe(ex) + ")";
            return Step.BROKEN;
        }
        catch (final InternalError | RuntimeException ex)
        {
            // The one fault left unguarded: see the class comment. Its text says nothing to a user.
            problem = "the queue cannot be read there (" + QueueFaults.describe(ex) + ")";
            return Step.BROKEN;
        }
        problem = ExcerptCheck.problem(view, length);
        return problem == null ? Step.EXCERPT : Step.CORRUPT;
    }

    /**
     * Checks the header words from {@link #nextHeader} up to the next data document: null if
     * Chronicle may read on, else what is wrong. Leaves {@code nextHeader} unknown (-1) at the end
     * of a cycle's file: the next file's first document is then read unguarded.
     */
    private String walk() throws IOException
    {
        long h = nextHeader;
        for (int documents = 0; documents < 1 << 20; documents++)
        {
            if (h + HEADER_WORD > fileLength && h + HEADER_WORD > (fileLength = channel.size()))
            {
                // (a live writer extends the file as it goes: the length is read again first)
                return "the queue file ends inside it (" + fileLength + " bytes)";
            }
            final int word = headerWord(h);
            if (word == 0 || (word & NOT_COMPLETE) != 0)
            {
                // 0: nothing written yet; not complete: being written, or the end-of-file marker
                if (word == END_OF_FILE)
                {
                    nextHeader = -1;
                }
                return null;
            }
            final long end = h + HEADER_WORD + (word & LENGTH_MASK);
            if (end > fileLength && end > (fileLength = channel.size()))
            {
                return "its Chronicle header says " + (word & LENGTH_MASK) + " bytes, past the end of the queue file ("
                    + fileLength + " bytes)";
            }
            if ((word & META_DATA) == 0)
            {
                return null;
            }
            h = (end + HEADER_WORD - 1) & ~(long)(HEADER_WORD - 1);
        }
        return "more than a million metadata documents in a row";
    }

    private int headerWord(final long position) throws IOException
    {
        if (windowStart < 0 || position < windowStart || position + HEADER_WORD > windowStart + window.limit())
        {
            window.clear();
            windowStart = position;
            while (window.hasRemaining() && channel.read(window, windowStart + window.position()) > 0)
            {
                // fill the window
            }
            window.flip();
            if (window.limit() < HEADER_WORD)
            {
                return 0;
            }
        }
        return window.getInt((int)(position - windowStart));
    }

    private void locate(final int excerptCycle) throws IOException
    {
        if (excerptCycle != cycle)
        {
            cycle = excerptCycle;
            final Path cycleFile = queue.file().toPath().resolve(
                fileNames.format(Instant.ofEpochMilli(excerptCycle * cycleMillis + queue.epoch())) + ".cq4");
            if (!cycleFile.equals(file))
            {
                open(cycleFile);
            }
        }
    }

    private void open(final Path queueFile) throws IOException
    {
        file = queueFile;
        if (channel != null)
        {
            channel.close();
        }
        channel = FileChannel.open(file, StandardOpenOption.READ);
        fileLength = channel.size();
        windowStart = -1;
    }

    private Path firstFile() throws IOException
    {
        try (Stream<Path> files = Files.list(queue.file().toPath()))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".cq4")).sorted().findFirst().orElse(null);
        }
    }

    /** The current excerpt: u32 kind, then its payload. */
    UnsafeBuffer excerpt()
    {
        return view;
    }

    int length()
    {
        return length;
    }

    /** Chronicle's index of the current excerpt. */
    long index()
    {
        return index;
    }

    /** Position of the current excerpt in the queue, from 0. */
    long ordinal()
    {
        return ordinal;
    }

    /** What is wrong with the current excerpt after {@link Step#CORRUPT} or {@link Step#BROKEN}. */
    String problem()
    {
        return problem;
    }

    /** The queue file of the current excerpt, or the queue directory before the first. */
    Path file()
    {
        return file != null ? file : queue.file().toPath();
    }

    @Override
    public void close()
    {
        tailer.close();
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // read-only: nothing is lost
            }
        }
    }
}
