package io.faultline.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One process's blocks read, checked and decoded ahead of their delivery, on threads of their
 * own, and handed over in queue order: blocks are independent once the survey has found them
 * (FORMAT.md, "Blocks": each block reads alone), so that decoding them, most of what reading a
 * trace costs, goes on beside what the reader's caller does with the last. A block's outcome
 * (sound, changed since the survey, undecodable) reaches the delivery in its turn, as if it had
 * been decoded there.
 */
final class DecodeAhead implements AutoCloseable
{
    /**
     * Threads that decode ahead: one less than the CPUs, at most three, none on one CPU (then the
     * delivery decodes). {@code -Dfaultline.read.threads=N} sets it (0: none).
     */
    static int threads()
    {
        final Integer set = Integer.getInteger("faultline.read.threads");
        if (set != null)
        {
            return Math.max(0, set);
        }
        return Math.min(3, Runtime.getRuntime().availableProcessors() - 1);
    }

    /** One block's outcome. */
    static final class Decoded
    {
        final BlockRef block;
        ItemBatch batch;
        /** What its checks found wrong now that the survey found it sound: the queue changed. */
        String changed;
        /** What was wrong with its items (checksums matching): a faulty writer's block. */
        String undecodable;

        Decoded(final BlockRef block)
        {
            this.block = block;
        }
    }

    /** A decoding thread's decoder and buffer, taken by each task in turn. */
    private static final class Worker
    {
        final BlockDecoder decoder = new BlockDecoder();
        byte[] buffer = new byte[0];
    }

    private final List<BlockRef> blocks;
    private final List<Path> files;
    private final FileChannel[] channels;
    private final boolean referencesOnly;
    private final ExecutorService pool;
    private final int lookahead;
    private final ArrayDeque<Future<Decoded>> ahead = new ArrayDeque<>();
    private final ConcurrentLinkedQueue<ItemBatch> free = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Worker> workers = new ConcurrentLinkedQueue<>();
    private final List<Worker> made = new java.util.concurrent.CopyOnWriteArrayList<>();
    private int next;

    DecodeAhead(final List<BlockRef> blocks, final List<Path> files, final boolean referencesOnly, final int threads)
    {
        this.blocks = blocks;
        this.files = files;
        this.channels = new FileChannel[files.size()];
        this.referencesOnly = referencesOnly;
        this.lookahead = 2 * threads + 1;
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            final Thread t = new Thread(r, "faultline-decode");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The next block's outcome, null after the last; {@code done}, the batch of the one before
     * (null if none), is no longer read and is decoded into again.
     */
    Decoded take(final ItemBatch done) throws IOException
    {
        if (done != null)
        {
            free.add(done);
        }
        while (next < blocks.size() && ahead.size() < lookahead)
        {
            final BlockRef b = blocks.get(next++);
            final FileChannel channel = channel(b.file);
            ahead.add(pool.submit(() -> decode(b, channel)));
        }
        final Future<Decoded> head = ahead.poll();
        if (head == null)
        {
            return null;
        }
        try
        {
            return head.get();
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof IOException io)
            {
                throw io;
            }
            throw Tasks.unchecked(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the trace", ex);
        }
    }

    private FileChannel channel(final int file) throws IOException
    {
        if (channels[file] == null)
        {
            channels[file] = FileChannel.open(files.get(file), StandardOpenOption.READ);
        }
        return channels[file];
    }

    private Decoded decode(final BlockRef b, final FileChannel channel) throws IOException
    {
        Worker w = workers.poll();
        if (w == null)
        {
            w = new Worker();
            made.add(w);
        }
        try
        {
            if (w.buffer.length < b.length)
            {
                w.buffer = new byte[Math.max(b.length, w.buffer.length * 2)];
            }
            // positional reads: safe on one channel from several threads at once
            final ByteBuffer into = ByteBuffer.wrap(w.buffer, 0, b.length);
            while (into.hasRemaining())
            {
                if (channel.read(into, b.start + into.position()) < 0)
                {
                    throw new IOException("the queue file ends before the block");
                }
            }
            final Decoded d = new Decoded(b);
            if (!w.decoder.header(w.buffer, 0, b.length) || !w.decoder.body(w.buffer, 0, b.length))
            {
                d.changed = w.decoder.problem();
                return d;
            }
            ItemBatch batch = free.poll();
            if (batch == null)
            {
                batch = new ItemBatch();
            }
            if (!w.decoder.decode(w.buffer, 0, b.length, batch, referencesOnly))
            {
                d.undecodable = w.decoder.problem();
                free.add(batch);
                return d;
            }
            d.batch = batch;
            return d;
        }
        finally
        {
            workers.add(w);
        }
    }

    @Override
    public void close()
    {
        pool.shutdownNow();
        try
        {
            pool.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        for (final Worker w : made)
        {
            w.decoder.close();
        }
        for (final FileChannel c : channels)
        {
            if (c != null)
            {
                try
                {
                    c.close();
                }
                catch (final IOException ignored)
                {
                    // read only
                }
            }
        }
    }
}
