package io.faultline.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A finished queue's files cut to their content. Chronicle Queue extends a cycle file one block
 * at a time (64 MiB by default, {@link TraceWriter#BLOCK_SIZE} here) and its table store to
 * 128 KiB, as sparse files: a 72-reference trace took 36 KiB on disk and 81 MiB when copied by
 * a tool that does not keep holes (cp to another file system, tar without --sparse, scp).
 * Both files are sequences of documents, each after a u32 header word (bit 31 not complete, bit
 * 30 metadata, the rest the length; 4-byte aligned; 0: nothing written there; Chronicle's
 * end-of-file marker 0xC0000000), and nothing is written past the last document once the queue
 * is closed; so a file is cut after its last document, leaving room for the next header word
 * (which readers read, and find 0), rounded up to a page. Not after its last non-zero byte: a
 * document may end in zeros, and Chronicle writes no end-of-file marker when it closes a queue,
 * only when it rolls to the next cycle. Readers read such files whole (TraceFilesTest,
 * KnownMappingsTest, the monitoring record tests). BENCHMARKS.md, "Trace files".
 */
public final class QueueFiles
{
    /** Files are cut at a page boundary: what a mapping of the file covers anyway. */
    private static final long PAGE = 4096;
    private static final int WINDOW = 64 * 1024;

    private QueueFiles()
    {
    }

    /**
     * Cuts every file of the closed queue in {@code queueDir} after its last document (and the
     * header word after it), rounded up to a page.
     *
     * @return the bytes the files hold now, in all
     */
    public static long trim(final Path queueDir) throws IOException
    {
        long total = 0;
        for (final Path file : files(queueDir))
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                final long end = Math.min(channel.size(), (contentEnd(channel) + PAGE - 1) / PAGE * PAGE);
                if (end < channel.size())
                {
                    channel.truncate(end);
                }
                total += end;
            }
        }
        return total;
    }

    /** The queue's files: its cycle files (.cq4) and its table store (.cq4t). */
    static List<Path> files(final Path queueDir) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(queueDir))
        {
            return files;
        }
        try (Stream<Path> list = Files.list(queueDir))
        {
            list.filter(p -> Files.isRegularFile(p) && (p.toString().endsWith(".cq4") || p.toString().endsWith(".cq4t")))
                .sorted().forEach(files::add);
        }
        return files;
    }

    private static final int HEADER_WORD = 4;
    private static final int LENGTH_MASK = 0x3fff_ffff;
    private static final int NOT_COMPLETE = 0x8000_0000;
    private static final int END_OF_FILE = 0xc000_0000;

    /**
     * One past the header word that follows the file's last document (where a reader finds 0 or
     * the end-of-file marker), or the file's length if its documents reach it (nothing to cut).
     */
    static long contentEnd(final FileChannel channel) throws IOException
    {
        final long size = channel.size();
        final ByteBuffer window = ByteBuffer.allocate(WINDOW).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long windowStart = 0;
        int windowLength = 0;
        long h = 0;
        while (h + HEADER_WORD <= size)
        {
            if (h < windowStart || h + HEADER_WORD > windowStart + windowLength)
            {
                windowStart = h;
                window.clear();
                windowLength = 0;
                int n;
                while (window.hasRemaining() && (n = channel.read(window, windowStart + windowLength)) > 0)
                {
                    windowLength += n;
                }
                if (windowLength < HEADER_WORD)
                {
                    return size;
                }
            }
            final int word = window.getInt((int)(h - windowStart));
            if (word == 0 || word == END_OF_FILE)
            {
                return h + HEADER_WORD;
            }
            final long end = h + HEADER_WORD + (word & LENGTH_MASK);
            if ((word & NOT_COMPLETE) != 0 || end > size)
            {
                return size; // a document being written when the writer stopped: leave the file as it is
            }
            h = (end + HEADER_WORD - 1) & ~(long)(HEADER_WORD - 1);
        }
        return size;
    }
}
