package io.faultline.tools.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.faultline.format.ChunkDescriptor;
import io.faultline.format.EventType;
import io.faultline.format.KernelEvents;
import io.faultline.format.MocaChunk;
import io.faultline.format.ReadSummary;
import io.faultline.format.Tasks;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceReader;
import io.faultline.format.TraceVisitor;
import io.faultline.sim.stacks.FrameNames;
import io.faultline.tools.sql.parquet.ParquetFile;
import io.faultline.tools.sql.parquet.ParquetFile.Column;
import io.faultline.tools.sql.parquet.ParquetFile.Rows;
import io.faultline.tools.sql.parquet.ParquetFile.Type;

/**
 * {@code export --to parquet}'s tables, written in one pass over the trace straight from the
 * reader's values ({@link ParquetFile}): the same tables, columns, types and rows as
 * {@link TraceTables} gives {@code faultline sql} (docs/SQL.md; SqlCommandTest reads both and
 * compares every row), without a database between. The reading thread puts each reference and
 * event into a row group's arrays; when one is full, a pool of a thread per CPU counts it into
 * the threads, processes and mappings tables ({@link TraceSummary}) and encodes and compresses
 * it, while the reading goes on; the row groups are written in trace order. The reading thread is
 * the bound (BENCHMARKS.md, "SQL and Parquet").
 */
public final class ParquetTables
{
    /** Rows a row group: near DuckDB's 122,880, so that readers split a file as finely. */
    static final int ROWS = 1 << 17;
    private static final int FIRST_ROWS = 1 << 8;
    /** Row groups of one table between the reading and the file: filled, being encoded, written. */
    private static final int IN_FLIGHT = 4;

    private static final Type I64 = Type.INT64;
    private static final Type I32 = Type.INT32;
    private static final Type BOOL = Type.BOOLEAN;
    private static final Type STR = Type.STRING;

    static final List<Column> REFS = List.of(new Column("seq", I64), new Column("time_ns", I64), new Column("pid", I32),
        new Column("tid", I32), new Column("address", I64), new Column("page", I64), new Column("write", BOOL),
        new Column("kernel", BOOL), new Column("stack_id", I32), new Column("mapping_id", I32));
    /** Evictions' tags, by index: bit 0 dirty (written while resident), bit 1 referenced (FORMAT.md, event 16). */
    private static final String[] TAGS = {"r", "w", "R", "W"};
    static final List<Column> EVICTIONS = List.of(new Column("seq", I64), new Column("time_ns", I64),
        new Column("pid", I32), new Column("tid", I32), new Column("address", I64), new Column("page", I64),
        new Column("tag", STR, TAGS), new Column("dirty", BOOL), new Column("referenced", BOOL),
        new Column("deleted", BOOL), new Column("mapping_id", I32));
    static final List<Column> EVENTS = List.of(new Column("seq", I64), new Column("time_ns", I64), new Column("pid", I32),
        new Column("tid", I32), new Column("type", STR), new Column("code", I32), new Column("kernel", BOOL),
        new Column("a", I64), new Column("b", I64), new Column("c", I64), new Column("d", I64), new Column("text", STR));
    static final List<Column> THREADS = List.of(new Column("pid", I32), new Column("tid", I32), new Column("name", STR),
        new Column("start_ns", I64), new Column("exit_ns", I64), new Column("creator_tid", I32), new Column("refs", I64),
        new Column("writes", I64), new Column("pages", I64), new Column("first_ns", I64), new Column("last_ns", I64));
    static final List<Column> PROCESSES = List.of(new Column("pid", I32), new Column("ppid", I32),
        new Column("executable", STR), new Column("start_ns", I64), new Column("exit_ns", I64),
        new Column("exit_status", I32), new Column("threads", I64), new Column("refs", I64), new Column("writes", I64),
        new Column("pages", I64));
    static final List<Column> MAPPINGS = List.of(new Column("mapping_id", I32), new Column("name", STR),
        new Column("refs", I64), new Column("reads", I64), new Column("writes", I64), new Column("pages", I64),
        new Column("evictions", I64), new Column("dirty_evictions", I64));
    static final List<Column> STACKS = List.of(new Column("pid", I32), new Column("stack_id", I32),
        new Column("depth", I32), new Column("frames", STR), new Column("names", STR));
    static final List<Column> MOCA = List.of(new Column("pid", I32), new Column("tid", I32), new Column("chunk_id", I64),
        new Column("interval", I64), new Column("close_seq", I64), new Column("close_ns", I64), new Column("seq", I64),
        new Column("time_ns", I64), new Column("address", I64), new Column("page", I64), new Column("write", BOOL),
        new Column("reads", I64), new Column("writes", I64));
    static final List<Column> HEADER = List.of(new Column("key", STR), new Column("value", STR));

    /** What the export wrote. */
    public record Written(ReadSummary summary, long references, long evictions, long events)
    {
    }

    private ParquetTables()
    {
    }

    /**
     * Writes every table of {@link TraceTables#TABLES} as {@code dir/TABLE.parquet}.
     *
     * @param done the references read so far, for a progress line (set now and then)
     * @throws IOException where a file cannot be written
     * @throws io.faultline.format.TraceFormatException for a trace that cannot be read
     */
    public static Written export(final TraceReader reader, final Path dir, final AtomicLong done) throws IOException
    {
        final int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        final ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            final Thread t = new Thread(r, "faultline-parquet");
            t.setDaemon(true);
            return t;
        });
        final int pageShift = Long.numberOfTrailingZeros(reader.header().pageSize());
        final TraceSummary summary = new TraceSummary();
        final Table refs = new Table(pool, dir, "refs", REFS, rows -> {
            final long[] address = rows.longs[4];
            final long[] page = rows.longs[5];
            final long[] stack = rows.longs[8];
            final boolean[] noStack = rows.nulls(8);
            for (int i = 0; i < rows.rows; i++)
            {
                page[i] = address[i] >>> pageShift;
                noStack[i] = stack[i] == 0;
            }
            summary.onReferences(rows.longs[2], rows.longs[3], page, rows.longs[6], rows.longs[1], rows.longs[9],
                rows.rows);
        });
        final Table evictions = new Table(pool, dir, "evictions", EVICTIONS, rows -> {
            final long[] address = rows.longs[4];
            final long[] page = rows.longs[5];
            final long[] tag = rows.longs[6];
            final long[] dirty = rows.longs[7];
            final long[] referenced = rows.longs[8];
            for (int i = 0; i < rows.rows; i++)
            {
                page[i] = address[i] >>> pageShift;
                dirty[i] = tag[i] & 1;
                referenced[i] = tag[i] >> 1;
            }
            summary.onEvictions(rows.longs[10], dirty, rows.rows);
        });
        final Table events = new Table(pool, dir, "events", EVENTS, null);
        final Table stacks = new Table(pool, dir, "stacks", STACKS, null);
        final Table moca = new Table(pool, dir, "moca", MOCA, null);
        final List<Table> all = List.of(refs, evictions, events, stacks, moca);
        try
        {
            final MappingIds mappings = new MappingIds();
            final Loader loader = new Loader(refs, evictions, events, stacks, moca, mappings, summary, pageShift, done);
            final ReadSummary read;
            try
            {
                read = reader.forEach(loader);
            }
            catch (final UncheckedIOException ex)
            {
                throw ex.getCause();
            }
            loader.publish();
            for (final Table t : all)
            {
                t.finish();
            }
            small(pool, dir, "threads", THREADS, summary::threads);
            small(pool, dir, "processes", PROCESSES, summary::processes);
            small(pool, dir, "mappings", MAPPINGS, sink -> summary.mappings(mappings.names(), sink));
            small(pool, dir, "header", HEADER, sink -> {
                for (final Map.Entry<String, String> entry : reader.header().values().entrySet())
                {
                    sink.row(entry.getKey(), entry.getValue());
                }
            });
            return new Written(read, loader.references, loader.evictionCount, loader.eventCount);
        }
        finally
        {
            for (final Table t : all)
            {
                t.abandon();
            }
            pool.shutdownNow();
        }
    }

    /** A small table: its rows from {@code rows}, one row group (or more) written here. */
    private static void small(final ExecutorService pool, final Path dir, final String name, final List<Column> columns,
        final Consumer<TraceSummary.RowSink> rows) throws IOException
    {
        final Table table = new Table(pool, dir, name, columns, null);
        try
        {
            rows.accept(table::row);
            table.finish();
        }
        finally
        {
            table.abandon();
        }
    }

    /**
     * One table's file and the row groups on their way into it: filled here, encoded by the pool
     * ({@code before} first: what else the rows are counted into), written in order.
     */
    private static final class Table
    {
        private final ExecutorService pool;
        private final ParquetFile file;
        private final List<Column> columns;
        private final Consumer<Rows> before;
        private final BlockingQueue<Rows> free = new ArrayBlockingQueue<>(IN_FLIGHT);
        private final ArrayDeque<Future<ParquetFile.Encoded>> pending = new ArrayDeque<>();
        private int made;
        private Rows filling;
        private boolean closed;

        Table(final ExecutorService pool, final Path dir, final String name, final List<Column> columns,
            final Consumer<Rows> before) throws IOException
        {
            this.pool = pool;
            this.columns = columns;
            this.before = before;
            this.file = new ParquetFile(dir.resolve(name + ".parquet"), columns);
        }

        /** The rows to fill the next row of, at index {@code rows}; then {@link #rowDone}. */
        Rows rows()
        {
            if (filling == null)
            {
                Rows r = free.poll();
                if (r == null && made < IN_FLIGHT)
                {
                    made++;
                    // a table's first row groups start small and grow: most tables but refs and
                    // evictions hold a few rows
                    r = new Rows(columns, made == 1 ? FIRST_ROWS : ROWS);
                }
                while (r == null)
                {
                    drainOne();
                    r = free.poll();
                }
                r.rows = 0;
                filling = r;
            }
            else if (filling.rows == filling.capacity())
            {
                filling.grow(Math.min(ROWS, filling.capacity() * 8));
            }
            return filling;
        }

        void rowDone()
        {
            if (++filling.rows == ROWS)
            {
                submit();
            }
        }

        /** A row of values in column order (Integer, Long, Boolean, String; null for NULL). */
        void row(final Object... values)
        {
            final Rows r = rows();
            final int i = r.rows;
            for (int c = 0; c < values.length; c++)
            {
                final Object v = values[c];
                if (v == null)
                {
                    r.nulls(c)[i] = true;
                    if (r.strings[c] != null)
                    {
                        r.strings[c][i] = null;
                    }
                    continue;
                }
                if (r.nulls[c] != null)
                {
                    r.nulls[c][i] = false;
                }
                if (v instanceof String s)
                {
                    r.strings[c][i] = s;
                }
                else if (v instanceof Boolean b)
                {
                    r.longs[c][i] = b ? 1 : 0;
                }
                else
                {
                    r.longs[c][i] = ((Number)v).longValue();
                }
            }
            rowDone();
        }

        private void submit()
        {
            final Rows r = filling;
            filling = null;
            pending.add(pool.submit(() -> {
                if (before != null)
                {
                    before.accept(r);
                }
                final ParquetFile.Encoded encoded = file.encode(r);
                free.add(r);
                return encoded;
            }));
            while (!pending.isEmpty() && pending.peek().isDone())
            {
                drainOne();
            }
        }

        /** Writes the oldest row group in flight once it is encoded. */
        private void drainOne()
        {
            final Future<ParquetFile.Encoded> next = pending.poll();
            if (next == null)
            {
                throw new IllegalStateException("no row group in flight");
            }
            try
            {
                file.append(next.get());
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            catch (final ExecutionException ex)
            {
                throw Tasks.unchecked(ex);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", ex);
            }
        }

        /** Writes what is left and the footer. */
        void finish() throws IOException
        {
            try
            {
                if (filling != null && filling.rows > 0)
                {
                    submit();
                }
                while (!pending.isEmpty())
                {
                    drainOne();
                }
            }
            catch (final UncheckedIOException ex)
            {
                throw ex.getCause();
            }
            closed = true;
            file.close();
        }

        /** After a failure: the file closed, what is in flight dropped. */
        void abandon()
        {
            if (!closed)
            {
                closed = true;
                pending.forEach(f -> f.cancel(true));
                try
                {
                    file.close();
                }
                catch (final IOException | RuntimeException ex)
                {
                    // the export failed already: its own error is the one to say
                }
            }
        }
    }

    /** Puts each reference, eviction, event, stack and Moca page into its table's row group, as the reader delivers them. */
    private static final class Loader implements TraceVisitor
    {
        private static final int PROGRESS_BLOCK = 1 << 14;

        private final Table refs;
        private final Table evictions;
        private final Table events;
        private final Table stacks;
        private final Table moca;
        private final MappingIds mappings;
        private final FrameNames frameNames = new FrameNames();
        private final TraceSummary summary;
        private final int pageShift;
        private final AtomicLong done;
        long references;
        long evictionCount;
        long eventCount;

        Loader(final Table refs, final Table evictions, final Table events, final Table stacks, final Table moca,
            final MappingIds mappings, final TraceSummary summary, final int pageShift, final AtomicLong done)
        {
            this.refs = refs;
            this.evictions = evictions;
            this.events = events;
            this.stacks = stacks;
            this.moca = moca;
            this.mappings = mappings;
            this.summary = summary;
            this.pageShift = pageShift;
            this.done = done;
        }

        void publish()
        {
            done.set(references);
        }

        @Override
        public void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
            final boolean write)
        {
            onReference(seq, timeNs, pid, tid, address, write, false, 0);
        }

        @Override
        public void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
            final boolean write, final boolean kernel)
        {
            onReference(seq, timeNs, pid, tid, address, write, kernel, 0);
        }

        @Override
        public void onReference(final long seq, final long timeNs, final int pid, final int tid, final long address,
            final boolean write, final boolean kernel, final int stack)
        {
            final Rows r = refs.rows();
            final long[][] c = r.longs;
            final int i = r.rows;
            c[0][i] = seq;
            c[1][i] = timeNs;
            c[2][i] = pid;
            c[3][i] = tid;
            c[4][i] = address;
            c[6][i] = write ? 1 : 0;
            c[7][i] = kernel ? 1 : 0;
            c[8][i] = stack;
            c[9][i] = mappings.id(pid, address);
            refs.rowDone();
            if ((++references & (PROGRESS_BLOCK - 1)) == 0)
            {
                done.lazySet(references);
            }
        }

        @Override
        public void onEvent(final TraceEvent e)
        {
            if (e.type() == EventType.EVICT)
            {
                onEviction(e.seq(), e.timeNs(), e.pid(), e.tid(), e.a(), e.b(), e.c());
                return;
            }
            mappings.onEvent(e);
            frameNames.onEvent(e);
            eventCount++;
            summary.onEvent(e);
            if (e.type() == EventType.STACK)
            {
                stacks.row(e.pid(), (int)e.a(), (int)e.b(), e.text(), frameNames.names(e.pid(), e.text()));
            }
            events.row(e.seq(), e.timeNs(), e.pid(), e.tid(), e.label(),
                e.code(), KernelEvents.is(e), e.a(), e.b(), e.c(), e.d(), e.text());
        }

        @Override
        public void onEviction(final long seq, final long timeNs, final int pid, final int tid, final long address,
            final long tagValue, final long deleted)
        {
            final char tag = (char)tagValue;
            final Rows r = evictions.rows();
            final long[][] c = r.longs;
            final int i = r.rows;
            c[0][i] = seq;
            c[1][i] = timeNs;
            c[2][i] = pid;
            c[3][i] = tid;
            c[4][i] = address;
            c[6][i] = (tag == 'w' || tag == 'W' ? 1 : 0) | (tag == 'R' || tag == 'W' ? 2 : 0);
            c[9][i] = deleted == 1 ? 1 : 0;
            c[10][i] = mappings.evictedId(pid, address);
            evictions.rowDone();
            evictionCount++;
        }

        @Override
        public void onMocaChunk(final MocaChunk c)
        {
            for (int i = 0; i < c.pages(); i++)
            {
                final long address = c.address(i);
                moca.row(c.pid(), c.tid(), c.chunkId(), c.interval(), c.closeSeq(), c.closeNs(), c.seq(i), c.timeNs(i),
                    address, address >>> pageShift, (c.flags(i) & ChunkDescriptor.REC_WRITE) != 0, (long)c.reads(i),
                    (long)c.writes(i));
            }
        }
    }
}
