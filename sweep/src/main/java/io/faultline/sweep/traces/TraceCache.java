package io.faultline.sweep.traces;

import io.faultline.sim.mrc.MissRatioCurves;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkFiles;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The keys of the traces an executor replays, read once per executor JVM and shared by its
 * tasks: a sweep's tasks come trace by trace, and many run on the same trace at once. Reading is
 * a stream of the whole {@link KeysFile}; a task that finds the trace being read waits for it.
 * Holds traces (and MINISIM's samples of them) up to a quarter of the heap, the oldest dropped
 * first; a task still replaying a dropped trace keeps its own reference.
 */
public final class TraceCache
{
    private static final long BUDGET_BYTES = Runtime.getRuntime().maxMemory() / 4;
    private static final int STREAM_BUFFER = 1 << 20;

    /** By location (and sampling rate): insertion order is the order of eviction. */
    private static final Map<String, CompletableFuture<long[]>> ENTRIES = new LinkedHashMap<>();

    private TraceCache()
    {
    }

    /** The keys of {@code trace}, and in {@code readNanos[0]} the time spent reading them here (0 if cached). */
    public static long[] keys(final StagedTrace trace, final long[] readNanos) throws IOException
    {
        return get(trace.location(), () -> read(trace), readNanos);
    }

    /**
     * SHARDS's spatial sample of {@code trace} at {@code rate} ({@link MissRatioCurves#spatialSample}),
     * and in {@code effectiveRate[0]} the rate the hash gives.
     */
    public static long[] sample(final StagedTrace trace, final double rate, final double[] effectiveRate,
        final long[] readNanos) throws IOException
    {
        final long[] keys = keys(trace, readNanos);
        final long[] sample = get(trace.location() + "@" + rate,
            () -> MissRatioCurves.spatialSample(keys, rate, new double[1]), new long[1]);
        // The rate depends on the rate asked for alone, so a cached sample's is had by sampling nothing.
        MissRatioCurves.spatialSample(new long[0], rate, effectiveRate);
        return sample;
    }

    private interface Loader
    {
        long[] load() throws IOException;
    }

    private static long[] get(final String key, final Loader loader, final long[] readNanos) throws IOException
    {
        final CompletableFuture<long[]> mine = new CompletableFuture<>();
        final CompletableFuture<long[]> entry;
        synchronized (ENTRIES)
        {
            entry = ENTRIES.putIfAbsent(key, mine) == null ? mine : ENTRIES.get(key);
        }
        if (entry == mine)
        {
            final long start = System.nanoTime();
            try
            {
                mine.complete(loader.load());
            }
            catch (final IOException | RuntimeException | Error ex)
            {
                synchronized (ENTRIES)
                {
                    ENTRIES.remove(key, mine);
                }
                mine.completeExceptionally(ex);
                throw ex;
            }
            readNanos[0] = System.nanoTime() - start;
            trim();
        }
        try
        {
            return entry.get();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while another task read " + key, ex);
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        }
    }

    /** Drops the oldest entries while those done hold more than the budget; the newest stays. */
    private static void trim()
    {
        synchronized (ENTRIES)
        {
            long bytes = 0;
            for (final CompletableFuture<long[]> entry : ENTRIES.values())
            {
                bytes += entry.isDone() && !entry.isCompletedExceptionally() ? 8L * entry.join().length : 0;
            }
            final Iterator<CompletableFuture<long[]>> oldest = ENTRIES.values().iterator();
            while (bytes > BUDGET_BYTES && ENTRIES.size() > 1 && oldest.hasNext())
            {
                final CompletableFuture<long[]> entry = oldest.next();
                if (entry.isDone())
                {
                    bytes -= entry.isCompletedExceptionally() ? 0 : 8L * entry.join().length;
                    oldest.remove();
                }
            }
        }
    }

    private static long[] read(final StagedTrace trace) throws IOException
    {
        try (InputStream in = open(trace))
        {
            return KeysFile.readAll(in, trace.location());
        }
    }

    /** The keys file as a stream: shipped with the job, or at its URI through Hadoop's file systems. */
    static InputStream open(final StagedTrace trace) throws IOException
    {
        if (trace.shipped())
        {
            return new BufferedInputStream(Files.newInputStream(java.nio.file.Path.of(SparkFiles.get(trace.location()))),
                STREAM_BUFFER);
        }
        final Path path = new Path(trace.location());
        final FileSystem fs = path.getFileSystem(new Configuration());
        return new BufferedInputStream(fs.open(path, STREAM_BUFFER), STREAM_BUFFER);
    }
}
