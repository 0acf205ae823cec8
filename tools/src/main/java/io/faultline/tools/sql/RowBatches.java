package io.faultline.tools.sql;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBTableFunction;
import org.duckdb.DuckDBTableFunctionBindInfo;
import org.duckdb.DuckDBTableFunctionCallInfo;
import org.duckdb.DuckDBTableFunctionInitInfo;
import org.duckdb.DuckDBWritableVector;

/**
 * Rows handed from the thread that reads a trace to DuckDB, a column-major batch at a time,
 * through a table function that DuckDB pulls them from ({@code CREATE TABLE ... AS SELECT * FROM
 * f()}): the engine's vectors are filled from arrays, with no call per row into its appender
 * (which cost about 2.3 times as much per row, measured on 10 M rows of ten columns). Every value
 * set costs a lock in the driver, so a row is few BIGINTs that the query taking them splits
 * into the table's columns. The reader and the engine run on two threads; a few batches in
 * flight between them bound the memory.
 */
final class RowBatches
{
    /** DuckDB's vector size (STANDARD_VECTOR_SIZE), a batch's rows. */
    static final int ROWS = 2048;
    private static final int IN_FLIGHT = 16;

    /** One batch: a long[] per column, of which {@code size} rows are filled. */
    static final class Batch
    {
        final long[][] columns;
        int size;

        Batch(final int columns)
        {
            this.columns = new long[columns][ROWS];
        }
    }

    /** Says the producer is done, or failed with {@link #failure}. */
    private static final Batch END = null;

    private final String[] names;
    private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(IN_FLIGHT);
    private final BlockingQueue<Batch> free = new ArrayBlockingQueue<>(IN_FLIGHT + 2);
    private volatile boolean ended;
    private volatile boolean abandoned;
    private volatile Throwable failure;
    private Batch filling;
    private Batch draining;
    private int drained;

    /** @param names the table function's columns, all BIGINT */
    RowBatches(final String... names)
    {
        this.names = names;
        for (int i = 0; i < IN_FLIGHT + 2; i++)
        {
            free.add(new Batch(names.length));
        }
    }

    // --- the producer's side (the reading thread) ---

    /** The batch to write the next row into, at index {@code size}; call {@link #rowDone} after. */
    Batch row()
    {
        if (filling == null)
        {
            filling = take(free);
            filling.size = 0;
        }
        return filling;
    }

    void rowDone()
    {
        if (++filling.size == ROWS)
        {
            put(filling);
            filling = null;
        }
    }

    /** The producer is done: what is filled goes, then the end. */
    void finish()
    {
        if (filling != null && filling.size > 0)
        {
            put(filling);
        }
        filling = null;
        ended = true;
    }

    /** The producer failed: the consumer stops with {@code cause}. */
    void fail(final Throwable cause)
    {
        failure = cause;
        ended = true;
    }

    /** The consumer failed or stopped: the producer stops waiting for room. */
    void abandon()
    {
        abandoned = true;
    }

    private void put(final Batch batch)
    {
        try
        {
            while (!full.offer(batch, 50, TimeUnit.MILLISECONDS))
            {
                if (abandoned)
                {
                    throw new Abandoned();
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new Abandoned();
        }
    }

    private Batch take(final BlockingQueue<Batch> queue)
    {
        try
        {
            Batch batch;
            while ((batch = queue.poll(50, TimeUnit.MILLISECONDS)) == null)
            {
                if (abandoned)
                {
                    throw new Abandoned();
                }
            }
            return batch;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new Abandoned();
        }
    }

    /** Thrown on the producer's side when no one takes its rows any more. */
    static final class Abandoned extends RuntimeException
    {
        Abandoned()
        {
            super(null, null, false, false);
        }
    }

    // --- the consumer's side (DuckDB's thread, through the table function) ---

    /** The table function that yields these rows; one scan, on one thread. */
    DuckDBTableFunction<Object, Object, Object> function()
    {
        return new DuckDBTableFunction<>()
        {
            @Override
            public Object bind(final DuckDBTableFunctionBindInfo info)
            {
                for (final String name : names)
                {
                    info.addResultColumn(name, DuckDBColumnType.BIGINT);
                }
                return null;
            }

            @Override
            public Object init(final DuckDBTableFunctionInitInfo info)
            {
                info.setMaxThreads(1);
                return null;
            }

            @Override
            public long apply(final DuckDBTableFunctionCallInfo info, final DuckDBDataChunkWriter out) throws Exception
            {
                return fill(out);
            }
        };
    }

    /**
     * The driver's view of a vector's memory, where the driver has one by the name this version
     * gives it (checked once): the batch's column is copied into it whole, where setLong takes a
     * lock for each value (its validity mask's). Null where it is not there: then setLong.
     */
    private static final Field DATA = field("data");
    /** The vector's validity mask, a bit per row (set: not null), which the copy sets too. */
    private static final Field VALIDITY = field("validity");
    private static final long[] ALL_VALID = filled(ROWS / Long.SIZE);

    private static Field field(final String name)
    {
        if (Boolean.getBoolean("faultline.sql.setters"))
        {
            return null;
        }
        try
        {
            final Field field = DuckDBWritableVector.class.getDeclaredField(name);
            field.setAccessible(true);
            return field.getType() == ByteBuffer.class ? field : null;
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return null;
        }
    }

    private static long[] filled(final int words)
    {
        final long[] words64 = new long[words];
        java.util.Arrays.fill(words64, -1L);
        return words64;
    }

    /** Copies {@code n} values from {@code from} into the vector's memory, all valid; false where the driver has no such memory. */
    private static boolean copy(final DuckDBWritableVector vector, final long[] values, final int from, final int n)
    {
        if (DATA == null || VALIDITY == null || vector.getType() != DuckDBColumnType.BIGINT || n > ROWS)
        {
            return false;
        }
        try
        {
            final ByteBuffer data = (ByteBuffer)DATA.get(vector);
            final ByteBuffer validity = (ByteBuffer)VALIDITY.get(vector);
            if (data == null || validity == null || !data.isDirect() || data.capacity() < n * Long.BYTES
                || validity.capacity() < ROWS / Byte.SIZE)
            {
                return false;
            }
            data.duplicate().order(ByteOrder.nativeOrder()).asLongBuffer().put(values, from, n);
            validity.duplicate().order(ByteOrder.nativeOrder()).asLongBuffer().put(ALL_VALID, 0, (n + 63) / 64);
            return true;
        }
        catch (final IllegalAccessException ex)
        {
            return false;
        }
    }

    private long fill(final DuckDBDataChunkWriter out) throws Exception
    {
        if (draining == null || drained == draining.size)
        {
            if (draining != null)
            {
                free.offer(draining);
                draining = null;
            }
            Batch next = END;
            while (next == END)
            {
                next = full.poll(50, TimeUnit.MILLISECONDS);
                if (next == END && ended && full.isEmpty())
                {
                    if (failure != null)
                    {
                        throw new IllegalStateException("the trace's reading failed", failure);
                    }
                    return 0;
                }
            }
            draining = next;
            drained = 0;
        }
        final int n = (int)Math.min(out.capacity(), draining.size - drained);
        for (int c = 0; c < names.length; c++)
        {
            final DuckDBWritableVector vector = out.vector(c);
            final long[] values = draining.columns[c];
            if (copy(vector, values, drained, n))
            {
                continue;
            }
            for (int r = 0; r < n; r++)
            {
                vector.setLong(r, values[drained + r]);
            }
        }
        drained += n;
        return n;
    }
}
