package io.faultline.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Reads a trace directory written by {@link TraceWriter}: validates the header, then streams
 * references and events in trace order. Every inconsistency (incomplete recording, unknown
 * version, bad excerpt, fewer references than the header counts) is a
 * {@link TraceFormatException} with one line that names it.
 */
public final class TraceReader implements AutoCloseable
{
    private final Path dir;
    private final TraceHeader header;
    private final ChronicleQueue queue;
    /** True while a visitor runs: its exceptions are its own, not signs of a corrupt trace. */
    private boolean inVisitor;

    private TraceReader(final Path dir, final TraceHeader header, final ChronicleQueue queue)
    {
        this.dir = dir;
        this.header = header;
        this.queue = queue;
    }

    public static TraceReader open(final Path dir)
    {
        final TraceHeader header = TraceHeader.readDirectory(dir, "trace");
        if (TraceLayout.CONTENT_MONITOR.equals(header.get(TraceHeader.CONTENT)))
        {
            throw new TraceFormatException(dir + " is a DAMON monitoring record (written by faultline monitor), not a trace;"
                + " give a trace written by faultline record (faultline report reads monitoring records)");
        }
        final long version = header.longValue(TraceHeader.FORMAT_VERSION);
        if (version != TraceLayout.FORMAT_VERSION)
        {
            throw new TraceFormatException("trace " + dir + " has format version " + version
                + " but this faultline reads version " + TraceLayout.FORMAT_VERSION + "; use a matching faultline");
        }
        if (!header.isComplete())
        {
            throw new TraceFormatException("trace " + dir + " is incomplete (state=" + header.get(TraceHeader.STATE)
                + "): its recorder stopped before finishing; record it again");
        }
        header.longValue(TraceHeader.REFERENCES);
        header.pageSize();
        final Path queueDir = dir.resolve(TraceLayout.QUEUE_DIR);
        try (Stream<Path> files = Files.isDirectory(queueDir) ? Files.list(queueDir) : Stream.empty())
        {
            final boolean hasData = files.anyMatch(p -> p.getFileName().toString().endsWith(".cq4"));
            if (!hasData && header.longValue(TraceHeader.REFERENCES) + header.longValue(TraceHeader.EVENTS) > 0)
            {
                throw new TraceFormatException("truncated trace " + dir + ": the queue files are missing");
            }
        }
        catch (final IOException ex)
        {
            throw new TraceFormatException("cannot read trace " + dir + ": " + ex.getMessage());
        }
        final ChronicleQueue queue;
        try
        {
            queue = SingleChronicleQueueBuilder.binary(queueDir.toFile()).readOnly(true).build();
        }
        catch (final RuntimeException ex)
        {
            throw new TraceFormatException("corrupt trace " + dir + ": cannot open its queue: " + ex.getMessage(), ex);
        }
        return new TraceReader(dir, header, queue);
    }

    public TraceHeader header()
    {
        return header;
    }

    public Path dir()
    {
        return dir;
    }

    public void forEachReference(final ReferenceVisitor visitor)
    {
        forEach(new TraceVisitor()
        {
            @Override
            public void onReference(final long seq, final long timeNs, final int pid, final int tid,
                final long address, final boolean write)
            {
                visitor.onReference(seq, timeNs, pid, tid, address, write);
            }
        });
    }

    /**
     * Streams every excerpt. Checks each excerpt's length against its own counts and, at the end,
     * the number of references against the header's total.
     */
    public void forEach(final TraceVisitor visitor)
    {
        long references = 0;
        long excerpt = 0;
        final long expected = header.longValue(TraceHeader.REFERENCES);
        try (ExcerptTailer tailer = queue.createTailer())
        {
            while (true)
            {
                try (DocumentContext dc = tailer.readingDocument())
                {
                    if (!dc.isPresent())
                    {
                        break;
                    }
                    final Bytes<?> bytes = dc.wire().bytes();
                    final long length = bytes.readRemaining();
                    if (length < TraceLayout.EXCERPT_KIND_SIZE)
                    {
                        throw corrupt(excerpt, "it is " + length + " bytes long");
                    }
                    final int kind = bytes.readInt();
                    final long base = bytes.readPosition();
                    if (kind == TraceLayout.EXCERPT_CHUNK)
                    {
                        references += readChunk(bytes, base, length - TraceLayout.EXCERPT_KIND_SIZE, excerpt, visitor);
                    }
                    else if (kind == TraceLayout.EXCERPT_EVENT)
                    {
                        final TraceEvent event = readEvent(bytes, base, length - TraceLayout.EXCERPT_KIND_SIZE, excerpt);
                        inVisitor = true;
                        visitor.onEvent(event);
                        inVisitor = false;
                    }
                    else
                    {
                        throw corrupt(excerpt, "unknown excerpt kind " + kind);
                    }
                    excerpt++;
                }
            }
        }
        catch (final TraceFormatException ex)
        {
            throw ex;
        }
        catch (final RuntimeException | InternalError ex)
        {
            // InternalError: Chronicle maps the queue files; a truncated file faults (SIGBUS) on read.
            if (inVisitor)
            {
                inVisitor = false;
                throw ex;
            }
            throw new TraceFormatException("corrupt trace " + dir + " at excerpt " + excerpt + ": " + ex, ex);
        }
        if (references != expected)
        {
            throw new TraceFormatException("truncated trace " + dir + ": the header counts " + expected
                + " references but the queue holds " + references);
        }
    }

    private long readChunk(final Bytes<?> bytes, final long base, final long length, final long excerpt,
        final TraceVisitor visitor)
    {
        if (length < ChunkDescriptor.HEADER_SIZE)
        {
            throw corrupt(excerpt, "chunk of " + length + " bytes is shorter than its header");
        }
        final int pid = bytes.readInt(base + ChunkDescriptor.PID);
        final int tid = bytes.readInt(base + ChunkDescriptor.TID);
        final int count = bytes.readInt(base + ChunkDescriptor.COUNT);
        if (count < 0 || ChunkDescriptor.length(count) != length)
        {
            throw corrupt(excerpt, "chunk says " + count + " records but holds " + length + " bytes");
        }
        for (int i = 0; i < count; i++)
        {
            final long r = base + ChunkDescriptor.recordOffset(i);
            final int flags = bytes.readInt(r + ChunkDescriptor.RECORD_FLAGS);
            final long seq = bytes.readLong(r + ChunkDescriptor.RECORD_SEQ);
            final long timeNs = bytes.readLong(r + ChunkDescriptor.RECORD_TIME_NS);
            final long address = bytes.readLong(r + ChunkDescriptor.RECORD_ADDRESS);
            inVisitor = true;
            visitor.onReference(seq, timeNs, pid, tid, address, (flags & ChunkDescriptor.REC_WRITE) != 0);
            inVisitor = false;
        }
        return count;
    }

    private TraceEvent readEvent(final Bytes<?> bytes, final long base, final long length, final long excerpt)
    {
        if (length < EventDescriptor.HEADER_SIZE)
        {
            throw corrupt(excerpt, "event of " + length + " bytes is shorter than its header");
        }
        final int code = bytes.readInt(base + EventDescriptor.TYPE);
        final int textLength = bytes.readInt(base + EventDescriptor.TEXT_LENGTH);
        if (textLength < 0 || EventDescriptor.HEADER_SIZE + (long)textLength != length)
        {
            throw corrupt(excerpt, "event says " + textLength + " bytes of text but holds " + length + " bytes");
        }
        final byte[] text = new byte[textLength];
        for (int i = 0; i < textLength; i++)
        {
            text[i] = bytes.readByte(base + EventDescriptor.HEADER_SIZE + i);
        }
        return new TraceEvent(
            code,
            EventType.of(code),
            bytes.readInt(base + EventDescriptor.PID),
            bytes.readInt(base + EventDescriptor.TID),
            bytes.readLong(base + EventDescriptor.SEQ),
            bytes.readLong(base + EventDescriptor.TIME_NS),
            bytes.readLong(base + EventDescriptor.A),
            bytes.readLong(base + EventDescriptor.B),
            bytes.readLong(base + EventDescriptor.C),
            bytes.readLong(base + EventDescriptor.D),
            new String(text, StandardCharsets.UTF_8));
    }

    private TraceFormatException corrupt(final long excerpt, final String what)
    {
        return new TraceFormatException("corrupt trace " + dir + ": excerpt " + excerpt + ": " + what);
    }

    @Override
    public void close()
    {
        queue.close();
    }
}
