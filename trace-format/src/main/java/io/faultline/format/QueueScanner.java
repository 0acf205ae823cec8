package io.faultline.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Walks a trace's queue files as Chronicle Queue lays them out, without Chronicle: each cycle
 * file (named so that they sort in cycle order) is a run of documents, each a u32 header word
 * (bit 31: not complete; bit 30: metadata; bits 0 to 29: the length) and its bytes, the next
 * header at the next 4-byte boundary. A word of 0 is where nothing was written yet, a word with
 * bit 31 set a document being written (or torn by a crash), and 0xC0000000 the end-of-file
 * marker Chronicle writes when it rolls to the next cycle. Metadata documents (Chronicle's own
 * header and its index arrays) are passed over; data documents are the trace's excerpts.
 * <p>
 * Files are read with positional reads into a window of our own, never through a mapping, so
 * that a file cut short or a length word sent past its end is a {@link Step#BROKEN} step and not
 * a SIGBUS (which the JVM turns into an InternalError at some later access). After damage,
 * {@link #findBlock} searches on for the next format-4 block by its magic and its header's
 * checksum, so that a reader reads on past a damaged length word.
 */
final class QueueScanner implements AutoCloseable
{
    /** Outcome of {@link #next}. */
    enum Step
    {
        /** A data document: {@link #bytes} from {@link #offset}, {@link #length} bytes. */
        DOCUMENT,
        /** The framing cannot be followed at {@link #position}: {@link #problem} says why. */
        BROKEN,
        /** The current file holds nothing more from {@link #position}: {@link #endKind} says how it ends. */
        END_OF_FILE,
        /** No file is left. */
        END
    }

    /** How a file's written part ended. */
    enum EndKind
    {
        /** Chronicle's end-of-file marker: the queue rolled on to the next cycle's file. */
        MARKER,
        /** A word of 0: nothing was written from here (yet). */
        UNWRITTEN,
        /** A document whose header still says it is being written: a live writer's, or torn. */
        INCOMPLETE,
        /** The file itself ends. */
        LENGTH
    }

    static final int HEADER_WORD = 4;
    private static final int NOT_COMPLETE = 0x80000000;
    private static final int META_DATA = 0x40000000;
    private static final int LENGTH_MASK = 0x3fffffff;
    static final int END_OF_FILE = NOT_COMPLETE | META_DATA;
    private static final int WINDOW = 1 << 20;

    private final List<Path> files;
    private int fileIndex = -1;
    private FileChannel channel;
    private long fileLength;
    private long next;
    private long position;
    private String problem;
    private EndKind endKind;
    private byte[] window = new byte[WINDOW];
    private ByteBuffer windowBuffer = ByteBuffer.wrap(window).order(ByteOrder.LITTLE_ENDIAN);
    private long windowStart;
    private int windowLength;
    private int offset;
    private int length;
    /** A block found by {@link #findBlock}, returned by the next {@link #next}: its start, or -1. */
    private long found = -1;
    private int foundLength;

    QueueScanner(final Path queueDir) throws IOException
    {
        try (Stream<Path> listed = Files.list(queueDir))
        {
            files = new ArrayList<>(listed.filter(p -> p.getFileName().toString().endsWith(".cq4")).sorted().toList());
        }
    }

    List<Path> files()
    {
        return files;
    }

    Step next() throws IOException
    {
        problem = null;
        endKind = null;
        if (fileIndex < 0 || next < 0)
        {
            if (fileIndex + 1 >= files.size())
            {
                fileIndex = files.size();
                return Step.END;
            }
            open(fileIndex + 1);
        }
        if (found >= 0)
        {
            position = found - HEADER_WORD;
            length = foundLength;
            load(found, length);
            offset = (int)(found - windowStart);
            next = align(found + length);
            found = -1;
            return Step.DOCUMENT;
        }
        for (long documents = 0;; documents++)
        {
            position = next;
            if (next + HEADER_WORD > fileLength && next + HEADER_WORD > (fileLength = channel.size()))
            {
                endKind = EndKind.LENGTH;
                next = -1;
                return Step.END_OF_FILE;
            }
            final int word = readInt(next);
            if (word == 0 || (word & NOT_COMPLETE) != 0)
            {
                endKind = word == 0 ? EndKind.UNWRITTEN : word == END_OF_FILE ? EndKind.MARKER : EndKind.INCOMPLETE;
                next = -1;
                return Step.END_OF_FILE;
            }
            final long end = next + HEADER_WORD + (word & LENGTH_MASK);
            if (end > fileLength && end > (fileLength = channel.size()))
            {
                problem = "its Chronicle header says " + (word & LENGTH_MASK) + " bytes, past the end of the queue file ("
                    + fileLength + " bytes)";
                next = -1;
                return Step.BROKEN;
            }
            if ((word & META_DATA) == 0)
            {
                length = (int)(end - next - HEADER_WORD);
                load(next + HEADER_WORD, length);
                offset = (int)(next + HEADER_WORD - windowStart);
                next = align(end);
                return Step.DOCUMENT;
            }
            next = align(end);
        }
    }

    /**
     * Searches the current file from {@code from} on, at 4-byte boundaries, for a format-4 block
     * whose header is sound ({@link BlockDecoder#header}) and lies inside the file. If one is
     * found, the next {@link #next} returns it, whatever the Chronicle word before it says, and
     * the walk goes on after it; if none is, the next {@link #next} opens the next file.
     *
     * @return the block's start, or -1
     */
    long findBlock(final long from, final BlockDecoder decoder) throws IOException
    {
        found = -1;
        fileLength = channel.size();
        long p = align(Math.max(0, from));
        final byte[] header = new byte[BlockDescriptor.HEADER_SIZE];
        while (p + BlockDescriptor.HEADER_SIZE <= fileLength)
        {
            load(p, (int)Math.min(WINDOW, fileLength - p));
            final int base = (int)(p - windowStart);
            final int last = windowLength - BlockDescriptor.HEADER_SIZE;
            int i = base;
            for (; i <= last; i += HEADER_WORD)
            {
                if (windowBuffer.getInt(i) == BlockDescriptor.MAGIC)
                {
                    System.arraycopy(window, i, header, 0, BlockDescriptor.HEADER_SIZE);
                    final long bodyLength = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN)
                        .getInt(BlockDescriptor.BODY_LENGTH) & 0xffffffffL;
                    final long start = windowStart + i;
                    final long blockLength = BlockDescriptor.HEADER_SIZE + bodyLength;
                    if (blockLength <= fileLength - start && blockLength <= Integer.MAX_VALUE
                        && decoder.header(header, 0, (int)blockLength))
                    {
                        found = start;
                        foundLength = (int)blockLength;
                        next = 0; // not -1: the next call returns the block in this file
                        return start;
                    }
                }
            }
            p = windowStart + i;
            if (windowStart + windowLength >= fileLength)
            {
                break;
            }
        }
        next = -1;
        return -1;
    }

    /** Reads {@code count} bytes at {@code at} of file {@code file} into {@code into} (a block the survey found). */
    void read(final int file, final long at, final byte[] into, final int count) throws IOException
    {
        if (file != fileIndex)
        {
            open(file);
        }
        final ByteBuffer b = ByteBuffer.wrap(into, 0, count);
        while (b.hasRemaining())
        {
            if (channel.read(b, at + b.position()) < 0)
            {
                throw new IOException("the queue file ends before the block");
            }
        }
    }

    private void open(final int index) throws IOException
    {
        if (channel != null)
        {
            channel.close();
        }
        fileIndex = index;
        channel = FileChannel.open(files.get(index), StandardOpenOption.READ);
        fileLength = channel.size();
        next = 0;
        windowStart = 0;
        windowLength = 0;
    }

    /** Makes the window hold [at, at + count), reading from {@code at}; grows it for a longer document. */
    private void load(final long at, final int count) throws IOException
    {
        if (at >= windowStart && at + count <= windowStart + windowLength)
        {
            return;
        }
        if (count > window.length)
        {
            window = new byte[Math.max(count, window.length * 2)];
            windowBuffer = ByteBuffer.wrap(window).order(ByteOrder.LITTLE_ENDIAN);
        }
        windowStart = at;
        windowLength = 0;
        final ByteBuffer b = ByteBuffer.wrap(window);
        while (b.hasRemaining())
        {
            final int n = channel.read(b, at + b.position());
            if (n <= 0)
            {
                break;
            }
        }
        windowLength = b.position();
        if (windowLength < count)
        {
            throw new IOException("the queue file is shorter than it said");
        }
    }

    /**
     * A header word. One that says the written part ends (0, or not complete) is read again from
     * the file: the window may hold what was there before a live writer got that far.
     */
    private int readInt(final long at) throws IOException
    {
        load(at, HEADER_WORD);
        final int word = windowBuffer.getInt((int)(at - windowStart));
        if (word != 0 && (word & NOT_COMPLETE) == 0)
        {
            return word;
        }
        windowLength = 0;
        load(at, HEADER_WORD);
        return windowBuffer.getInt((int)(at - windowStart));
    }

    private static long align(final long at)
    {
        return (at + HEADER_WORD - 1) & ~(long)(HEADER_WORD - 1);
    }

    /** The current document's bytes ({@link #offset}, {@link #length}), valid until the next call. */
    byte[] bytes()
    {
        return window;
    }

    int offset()
    {
        return offset;
    }

    int length()
    {
        return length;
    }

    /** Where in its file the current step is: a document's header word, the break, the end of the written part. */
    long position()
    {
        return position;
    }

    String problem()
    {
        return problem;
    }

    EndKind endKind()
    {
        return endKind;
    }

    int fileIndex()
    {
        return fileIndex;
    }

    /** The current queue file. */
    Path file()
    {
        return fileIndex >= 0 && fileIndex < files.size() ? files.get(fileIndex) : null;
    }

    long fileLength()
    {
        return fileLength;
    }

    boolean isLastFile()
    {
        return fileIndex >= files.size() - 1;
    }

    @Override
    public void close()
    {
        if (channel != null)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // read only: nothing is lost
            }
        }
    }
}
