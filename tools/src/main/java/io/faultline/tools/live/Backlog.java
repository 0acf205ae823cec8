package io.faultline.tools.live;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The references the recorder has handed over and the live replay has not taken yet: one
 * producer (the recorder's drain thread, through {@link ReferenceTee}) and one consumer (the
 * replay thread). The producer never waits: a replay that falls behind makes the backlog grow,
 * never the program's rings fill.
 * <p>
 * The backlog is a chain of segments, each read up to what its producer has published (a
 * release store of a count, an acquire load on the other side) and then, once sealed, left for
 * the next. While fewer than {@code memoryRecords} references wait, segments are arrays in the
 * heap. Beyond that the producer opens a spill segment, a file under {@code spillDir} to which it
 * appends the records (24 bytes each) instead, and goes back to the heap once the replay has
 * caught up to half the bound; the consumer deletes each spill file once read. So the heap holds
 * at most about {@code memoryRecords} references and the disk about as many as the replay lags
 * behind beyond them: what the program has done but the replay has not yet seen, never a trace.
 * A spill file that cannot be written (a full disk) breaks the backlog: what the producer is
 * given from then on is dropped and counted, and {@link #failure} says why.
 */
final class Backlog
{
    /** Longs per record: seq, page, time_ns. */
    static final int FIELDS = 3;
    /** Records per heap array of a memory segment. */
    static final int BLOCK = 4096;
    private static final int RECORD_BYTES = FIELDS * Long.BYTES;
    private static final int SPILL_BUFFER_RECORDS = 2730; // 64 KiB

    private final long memoryRecords;
    private final Path spillDir;

    // producer's
    private Segment tail;
    private long produced;
    private long dropped;
    // consumer's
    private Segment head;
    private volatile long consumed;
    private volatile long publishedTotal;
    private volatile String failure;
    private volatile long spilledTotal;

    Backlog(final long memoryRecords, final Path spillDir)
    {
        this.memoryRecords = Math.max(BLOCK, memoryRecords);
        this.spillDir = spillDir;
        this.tail = new MemorySegment();
        this.head = tail;
    }

    // ---- producer

    /** Appends one reference; seen by the consumer after the next {@link #publish}. */
    void add(final long seq, final long page, final long timeNs)
    {
        if (failure != null)
        {
            dropped++;
            return;
        }
        produced++;
        try
        {
            tail.append(seq, page, timeNs);
        }
        catch (final UncheckedIOException ex)
        {
            fail(ex.getCause());
        }
    }

    /** Makes what was added visible to the consumer, and moves between heap and disk as the lag says. */
    void publish()
    {
        if (failure != null)
        {
            return;
        }
        try
        {
            tail.publish();
            publishedTotal = produced;
            final long lag = produced - consumed;
            if (tail instanceof MemorySegment && lag > memoryRecords)
            {
                next(new SpillSegment(Files.createTempFile(spillDir, "faultline-live-", ".spill")));
            }
            else if (tail instanceof SpillSegment && lag < memoryRecords / 2)
            {
                next(new MemorySegment());
            }
        }
        catch (final IOException ex)
        {
            fail(ex);
        }
        catch (final UncheckedIOException ex)
        {
            fail(ex.getCause());
        }
    }

    private void next(final Segment segment)
    {
        final Segment old = tail;
        old.next = segment;
        tail = segment;
        old.sealed = true; // after next: the consumer that sees it sealed finds the next segment
    }

    private void fail(final IOException ex)
    {
        dropped++;
        failure = "the replay fell more than " + memoryRecords + " references behind and its spill file under "
            + spillDir + " could not be written (" + ex.getMessage() + ")";
    }

    /** The consumer gives up (the replay failed): the producer drops everything from now on. */
    void abandon(final String reason)
    {
        failure = reason;
    }

    /** References given to the producer and dropped because the backlog broke. */
    long dropped()
    {
        return dropped;
    }

    // ---- consumer

    /**
     * Takes up to {@code into.length / FIELDS} records into {@code into} (seq, page, time_ns each).
     *
     * @return how many, 0 if none is waiting now
     */
    int poll(final long[] into)
    {
        if (failure != null)
        {
            return 0;
        }
        while (true)
        {
            final boolean sealed = head.sealed; // before the read: a sealed segment's count is final
            final int n;
            try
            {
                n = head.read(into);
            }
            catch (final UncheckedIOException ex)
            {
                failure = "the replay's spill file could not be read back (" + ex.getCause().getMessage() + ")";
                return 0;
            }
            if (n > 0)
            {
                consumed += n;
                return n;
            }
            if (!sealed)
            {
                return 0;
            }
            final Segment done = head;
            head = head.next;
            done.close();
        }
    }

    /** References published and not yet taken: how far the replay is behind. */
    long lag()
    {
        return publishedTotal - consumed;
    }

    /** References that went through a spill file so far. */
    long spilled()
    {
        return spilledTotal;
    }

    /** Why the backlog broke, or null. */
    String failure()
    {
        return failure;
    }

    /** Deletes any spill file left (the consumer stopped before the end). */
    void discard()
    {
        for (Segment s = head; s != null; s = s.next)
        {
            s.close();
        }
    }

    private abstract static class Segment
    {
        volatile boolean sealed;
        volatile Segment next;

        abstract void append(long seq, long page, long timeNs);

        abstract void publish();

        abstract int read(long[] into);

        void close()
        {
        }
    }

    private static final VarHandle PUBLISHED;

    static
    {
        try
        {
            PUBLISHED = MethodHandles.lookup().findVarHandle(MemorySegment.class, "published", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** Heap arrays of {@link #BLOCK} records, linked; each dropped by the consumer once read. */
    private static final class MemorySegment extends Segment
    {
        private static final class Block
        {
            final long[] data = new long[BLOCK * FIELDS];
            volatile Block next;
        }

        @SuppressWarnings("unused") // through PUBLISHED
        private long published;
        private long written;
        private Block writeBlock = new Block();
        private Block readBlock = writeBlock;
        private long read;

        @Override
        void append(final long seq, final long page, final long timeNs)
        {
            int at = (int)(written % BLOCK);
            if (at == 0 && written > 0)
            {
                final Block block = new Block();
                writeBlock.next = block;
                writeBlock = block;
            }
            at *= FIELDS;
            writeBlock.data[at] = seq;
            writeBlock.data[at + 1] = page;
            writeBlock.data[at + 2] = timeNs;
            written++;
        }

        @Override
        void publish()
        {
            PUBLISHED.setRelease(this, written);
        }

        @Override
        int read(final long[] into)
        {
            final long available = (long)PUBLISHED.getAcquire(this) - read;
            if (available <= 0)
            {
                return 0;
            }
            int at = (int)(read % BLOCK);
            if (at == 0 && read > 0)
            {
                readBlock = readBlock.next;
            }
            final int n = (int)Math.min(Math.min(available, BLOCK - at), into.length / FIELDS);
            System.arraycopy(readBlock.data, at * FIELDS, into, 0, n * FIELDS);
            read += n;
            return n;
        }
    }

    /** A file of records appended by the producer and read back by the consumer, deleted once read. */
    private final class SpillSegment extends Segment
    {
        private final Path file;
        private final FileChannel channel;
        private final ByteBuffer out = ByteBuffer.allocateDirect(SPILL_BUFFER_RECORDS * RECORD_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
        private final ByteBuffer in = ByteBuffer.allocateDirect(SPILL_BUFFER_RECORDS * RECORD_BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
        private volatile long publishedBytes;
        private long writtenBytes;
        private long readBytes;

        SpillSegment(final Path file) throws IOException
        {
            this.file = file;
            this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }

        @Override
        void append(final long seq, final long page, final long timeNs)
        {
            if (!out.hasRemaining())
            {
                flush();
            }
            out.putLong(seq).putLong(page).putLong(timeNs);
        }

        private void flush()
        {
            out.flip();
            try
            {
                while (out.hasRemaining())
                {
                    writtenBytes += channel.write(out, writtenBytes);
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            finally
            {
                out.clear();
            }
        }

        @Override
        void publish()
        {
            if (out.position() > 0)
            {
                flush();
            }
            spilledTotal = spilledTotal + (writtenBytes - publishedBytes) / RECORD_BYTES;
            publishedBytes = writtenBytes;
        }

        @Override
        int read(final long[] into)
        {
            final long available = publishedBytes - readBytes;
            if (available <= 0)
            {
                return 0;
            }
            final int n = (int)Math.min(Math.min(available / RECORD_BYTES, SPILL_BUFFER_RECORDS), into.length / FIELDS);
            in.clear().limit(n * RECORD_BYTES);
            try
            {
                while (in.hasRemaining())
                {
                    final int got = channel.read(in, readBytes + in.position());
                    if (got < 0)
                    {
                        throw new IOException("spill file " + file + " ended early");
                    }
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            in.flip();
            for (int i = 0; i < n * FIELDS; i++)
            {
                into[i] = in.getLong();
            }
            readBytes += (long)n * RECORD_BYTES;
            return n;
        }

        @Override
        void close()
        {
            try
            {
                channel.close();
                Files.deleteIfExists(file);
            }
            catch (final IOException ignored)
            {
                // best effort: a temporary file
            }
        }
    }
}
