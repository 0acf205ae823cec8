package io.faultline.tools.sql;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

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
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBFunctions;


/**
 * A trace's tables in a DuckDB schema, what {@code faultline sql} queries (docs/SQL.md documents
 * every column; {@code export --to parquet} writes the same tables itself, {@link ParquetTables},
 * and ParquetAgreementTest holds the two equal). The reader
 * delivers references and events in trace order with times from the program's start
 * ({@link TraceReader}); references and evictions go to DuckDB a column-major batch at a time
 * ({@link RowBatches}), the other events, call stacks and Moca pages through its appender, and
 * threads, processes and each mapping's counts are then derived in SQL.
 */
public final class TraceTables
{
    /** The tables of a trace's schema, in the order the documentation and the export list them. */
    public static final List<String> TABLES = List.of("refs", "evictions", "events", "threads", "processes", "mappings",
        "stacks", "moca", "header");

    /**
     * The rows the reader's thread hands over ({@link RowBatches}), packed: ids = pid << 32 | tid;
     * a reference's meta = stack << 32 | mapping << 2 | kernel << 1 | write; an eviction's meta =
     * mapping << 3 | deleted << 2 | referenced << 1 | dirty.
     */
    private static final String[] PACKED = {"seq", "time_ns", "ids", "address", "meta"};
    private static final String IDS = "CAST(ids >> 32 AS INTEGER) AS pid, CAST(ids & 4294967295 AS INTEGER) AS tid";

    private static final String[] DDL = {
        "CREATE TABLE %s.events (seq BIGINT, time_ns BIGINT, pid INTEGER, tid INTEGER, type VARCHAR, code INTEGER, "
            + "kernel BOOLEAN, a BIGINT, b BIGINT, c BIGINT, d BIGINT, text VARCHAR)",
        "CREATE TABLE %s.stacks (pid INTEGER, stack_id INTEGER, depth INTEGER, frames VARCHAR, names VARCHAR)",
        "CREATE TABLE %s.moca (pid INTEGER, tid INTEGER, chunk_id BIGINT, interval BIGINT, close_seq BIGINT, "
            + "close_ns BIGINT, seq BIGINT, time_ns BIGINT, address BIGINT, page BIGINT, write BOOLEAN, reads BIGINT, "
            + "writes BIGINT)",
        "CREATE TABLE %s.mapping_names (mapping_id INTEGER, name VARCHAR)",
        "CREATE TABLE %s.header (key VARCHAR, value VARCHAR)"};

    /**
     * Views over the tables loaded: computed when a query reads them (the load does not wait for
     * three more passes over the references), written whole by the export.
     */
    private static final String[] DERIVED = {
        "CREATE VIEW %1$s.mappings AS SELECT n.mapping_id, n.name, coalesce(r.refs, 0) AS refs, "
            + "coalesce(r.reads, 0) AS reads, coalesce(r.writes, 0) AS writes, coalesce(r.pages, 0) AS pages, "
            + "coalesce(e.evictions, 0) AS evictions, coalesce(e.dirty, 0) AS dirty_evictions "
            + "FROM %1$s.mapping_names n "
            + "LEFT JOIN (SELECT mapping_id, count(*) AS refs, count(*) FILTER (NOT write) AS reads, "
            + "count(*) FILTER (write) AS writes, count(DISTINCT (pid, page)) AS pages FROM %1$s.refs GROUP BY mapping_id) r "
            + "USING (mapping_id) "
            + "LEFT JOIN (SELECT mapping_id, count(*) AS evictions, count(*) FILTER (dirty) AS dirty FROM %1$s.evictions "
            + "GROUP BY mapping_id) e USING (mapping_id) ORDER BY mapping_id",
        "CREATE VIEW %1$s.processes AS WITH ev AS (SELECT pid, "
            + "min(time_ns) FILTER (type = 'process-start') AS start_ns, "
            + "arg_min(a, rowid) FILTER (type = 'process-start') AS ppid, "
            + "arg_min(text, rowid) FILTER (type = 'process-start') AS executable, "
            + "arg_max(text, rowid) FILTER (type = 'exec') AS exec, "
            + "max(time_ns) FILTER (type = 'process-exit') AS exit_ns, "
            + "arg_max(a, rowid) FILTER (type = 'process-exit') AS exit_status FROM %1$s.events GROUP BY pid), "
            + "r AS (SELECT pid, count(*) AS refs, count(*) FILTER (write) AS writes, count(DISTINCT page) AS pages, "
            + "count(DISTINCT tid) AS threads FROM %1$s.refs GROUP BY pid), "
            + "ids AS (SELECT pid FROM ev UNION SELECT pid FROM r) "
            + "SELECT ids.pid, CAST(ev.ppid AS INTEGER) AS ppid, coalesce(ev.exec, ev.executable) AS executable, "
            + "ev.start_ns, ev.exit_ns, CAST(ev.exit_status AS INTEGER) AS exit_status, coalesce(r.threads, 0) AS threads, "
            + "coalesce(r.refs, 0) AS refs, coalesce(r.writes, 0) AS writes, coalesce(r.pages, 0) AS pages "
            + "FROM ids LEFT JOIN ev USING (pid) LEFT JOIN r USING (pid) ORDER BY ev.start_ns NULLS LAST, ids.pid",
        "CREATE VIEW %1$s.threads AS WITH ev AS (SELECT pid, tid, "
            + "min(time_ns) FILTER (type IN ('thread-start', 'process-start')) AS start_ns, "
            + "arg_min(a, rowid) FILTER (type = 'thread-start') AS creator_tid, "
            + "arg_max(text, rowid) FILTER (type = 'thread-name') AS name, "
            + "max(time_ns) FILTER (type IN ('thread-exit', 'process-exit')) AS exit_ns FROM %1$s.events GROUP BY pid, tid), "
            + "r AS (SELECT pid, tid, count(*) AS refs, count(*) FILTER (write) AS writes, count(DISTINCT page) AS pages, "
            + "min(time_ns) AS first_ns, max(time_ns) AS last_ns FROM %1$s.refs GROUP BY pid, tid), "
            + "ids AS (SELECT pid, tid FROM ev WHERE start_ns IS NOT NULL OR name IS NOT NULL UNION SELECT pid, tid FROM r) "
            + "SELECT ids.pid, ids.tid, ev.name, ev.start_ns, ev.exit_ns, CAST(ev.creator_tid AS INTEGER) AS creator_tid, "
            + "coalesce(r.refs, 0) AS refs, coalesce(r.writes, 0) AS writes, coalesce(r.pages, 0) AS pages, r.first_ns, "
            + "r.last_ns FROM ids LEFT JOIN ev USING (pid, tid) LEFT JOIN r USING (pid, tid) ORDER BY ids.pid, ids.tid"};

    private TraceTables()
    {
    }

    /**
     * Creates {@code schema} and fills its tables from {@code reader}: the reader runs on a thread
     * of its own, DuckDB takes its references on this thread and its evictions on another.
     *
     * @param done the references loaded so far, for a progress line (set now and then)
     * @return what the reader says of the read (partial, excerpts skipped)
     * @throws SQLException from the engine (out of memory, a full temporary directory)
     * @throws io.faultline.format.TraceFormatException for a trace that cannot be read
     */
    public static ReadSummary load(final DuckDBConnection connection, final String schema, final TraceReader reader,
        final AtomicLong done) throws SQLException
    {
        try (Statement statement = connection.createStatement())
        {
            statement.execute("CREATE SCHEMA " + schema);
            for (final String ddl : DDL)
            {
                statement.execute(String.format(ddl, schema));
            }
        }
        final int pageShift = Long.numberOfTrailingZeros(reader.header().pageSize());
        final MappingIds mappings = new MappingIds();
        final RowBatches refs = new RowBatches(PACKED);
        final RowBatches evictions = new RowBatches(PACKED);
        final String refsFunction = "faultline_refs_" + schema;
        final String evictionsFunction = "faultline_evictions_" + schema;
        DuckDBFunctions.tableFunction().withName(refsFunction).withFunction(refs.function()).register(connection);
        DuckDBFunctions.tableFunction().withName(evictionsFunction).withFunction(evictions.function()).register(connection);
        final Object[] outcome = new Object[1]; // the reader's summary, or what it threw
        final Thread reading = new Thread(() -> {
            try (DuckDBConnection side = connection.duplicate();
                DuckDBAppender events = side.createAppender(schema, "events");
                DuckDBAppender stacks = side.createAppender(schema, "stacks");
                DuckDBAppender moca = side.createAppender(schema, "moca"))
            {
                final Loader loader = new Loader(refs, evictions, events, stacks, moca, mappings, pageShift, done);
                final ReadSummary summary = reader.forEach(loader);
                loader.publish();
                outcome[0] = summary;
                refs.finish();
                evictions.finish();
            }
            catch (final Throwable ex)
            {
                outcome[0] = ex instanceof Failed failed ? failed.cause : ex;
                refs.fail(ex);
                evictions.fail(ex);
            }
        }, "faultline-sql-reader");
        final SQLException[] evictionsFailure = new SQLException[1];
        final Thread evicting = new Thread(() -> {
            try (DuckDBConnection side = connection.duplicate(); Statement statement = side.createStatement())
            {
                statement.execute("CREATE TABLE " + schema + ".evictions AS SELECT seq, time_ns, " + IDS + ", address, "
                    + "address >> " + pageShift + " AS page, ['r', 'w', 'R', 'W'][(meta & 3) + 1] AS tag, "
                    + "(meta & 1) <> 0 AS dirty, (meta & 2) <> 0 AS referenced, (meta & 4) <> 0 AS deleted, "
                    + "CAST(meta >> 3 AS INTEGER) AS mapping_id FROM " + evictionsFunction + "()");
            }
            catch (final SQLException ex)
            {
                evictionsFailure[0] = ex;
                evictions.abandon();
            }
        }, "faultline-sql-evictions");
        reading.setDaemon(true);
        evicting.setDaemon(true);
        reading.start();
        evicting.start();
        SQLException failure = null;
        try (Statement statement = connection.createStatement())
        {
            statement.execute("CREATE TABLE " + schema + ".refs AS SELECT seq, time_ns, " + IDS + ", address, address >> "
                + pageShift + " AS page, (meta & 1) <> 0 AS write, (meta & 2) <> 0 AS kernel, "
                + "CAST(nullif(meta >> 32, 0) AS INTEGER) AS stack_id, CAST((meta >> 2) & 1073741823 AS INTEGER) AS mapping_id "
                + "FROM " + refsFunction + "()");
        }
        catch (final SQLException ex)
        {
            failure = ex;
            refs.abandon();
            evictions.abandon();
        }
        Tasks.join(reading);
        Tasks.join(evicting);
        if (outcome[0] instanceof RuntimeException ex && !(ex instanceof RowBatches.Abandoned))
        {
            throw ex; // the reader's own error comes first: the engine's is its consequence
        }
        if (outcome[0] instanceof Error ex)
        {
            throw ex;
        }
        if (outcome[0] instanceof SQLException ex)
        {
            throw ex;
        }
        if (failure != null)
        {
            throw failure;
        }
        if (evictionsFailure[0] != null)
        {
            throw evictionsFailure[0];
        }
        final ReadSummary summary = (ReadSummary)outcome[0];
        try (DuckDBAppender names = connection.createAppender(schema, "mapping_names");
            DuckDBAppender header = connection.createAppender(schema, "header"))
        {
            final List<String> byId = mappings.names();
            for (int id = 0; id < byId.size(); id++)
            {
                names.beginRow().append(id).append(byId.get(id)).endRow();
            }
            for (final Map.Entry<String, String> entry : reader.header().values().entrySet())
            {
                header.beginRow().append(entry.getKey()).append(entry.getValue()).endRow();
            }
        }
        try (Statement statement = connection.createStatement())
        {
            for (final String sql : DERIVED)
            {
                statement.execute(String.format(sql, schema));
            }
        }
        return summary;
    }

    /** An engine error inside the reader's callbacks, carried out of them. */
    private static final class Failed extends RuntimeException
    {
        private final SQLException cause;

        Failed(final SQLException cause)
        {
            super(null, null, false, false);
            this.cause = cause;
        }
    }

    /** Puts each reference and eviction into its batch and each other event into its table, as the reader delivers them. */
    private static final class Loader implements TraceVisitor
    {
        private static final int PROGRESS_BLOCK = 1 << 14;

        private final RowBatches refs;
        private final RowBatches evictions;
        private final DuckDBAppender events;
        private final DuckDBAppender stacks;
        private final DuckDBAppender moca;
        private final MappingIds mappings;
        private final FrameNames frameNames = new FrameNames();
        private final int pageShift;
        private final AtomicLong done;
        private long count;

        Loader(final RowBatches refs, final RowBatches evictions, final DuckDBAppender events,
            final DuckDBAppender stacks, final DuckDBAppender moca, final MappingIds mappings, final int pageShift,
            final AtomicLong done)
        {
            this.refs = refs;
            this.evictions = evictions;
            this.events = events;
            this.stacks = stacks;
            this.moca = moca;
            this.mappings = mappings;
            this.pageShift = pageShift;
            this.done = done;
        }

        void publish()
        {
            done.set(count);
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
            final RowBatches.Batch b = refs.row();
            final int r = b.size;
            b.columns[0][r] = seq;
            b.columns[1][r] = timeNs;
            b.columns[2][r] = (long)pid << 32 | (tid & 0xFFFFFFFFL);
            b.columns[3][r] = address;
            b.columns[4][r] = (long)stack << 32 | (long)mappings.id(pid, address) << 2 | (kernel ? 2 : 0) | (write ? 1 : 0);
            refs.rowDone();
            if ((++count & (PROGRESS_BLOCK - 1)) == 0)
            {
                done.lazySet(count);
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
            try
            {
                if (e.type() == EventType.STACK)
                {
                    stacks.beginRow().append(e.pid()).append((int)e.a()).append((int)e.b()).append(e.text())
                        .append(frameNames.names(e.pid(), e.text())).endRow();
                }
                events.beginRow().append(e.seq()).append(e.timeNs()).append(e.pid()).append(e.tid())
                    .append(e.label()).append(e.code())
                    .append(KernelEvents.is(e)).append(e.a()).append(e.b()).append(e.c()).append(e.d()).append(e.text())
                    .endRow();
            }
            catch (final SQLException ex)
            {
                throw new Failed(ex);
            }
        }

        @Override
        public void onEviction(final long seq, final long timeNs, final int pid, final int tid, final long address,
            final long tagValue, final long deleted)
        {
            final char tag = (char)tagValue;
            final RowBatches.Batch b = evictions.row();
            final int r = b.size;
            b.columns[0][r] = seq;
            b.columns[1][r] = timeNs;
            b.columns[2][r] = (long)pid << 32 | (tid & 0xFFFFFFFFL);
            b.columns[3][r] = address;
            b.columns[4][r] = (long)mappings.evictedId(pid, address) << 3 | (deleted == 1 ? 4 : 0)
                | (tag == 'R' || tag == 'W' ? 2 : 0) | (tag == 'w' || tag == 'W' ? 1 : 0);
            evictions.rowDone();
        }

        @Override
        public void onMocaChunk(final MocaChunk c)
        {
            try
            {
                for (int i = 0; i < c.pages(); i++)
                {
                    final long address = c.address(i);
                    moca.beginRow().append(c.pid()).append(c.tid()).append(c.chunkId()).append(c.interval())
                        .append(c.closeSeq()).append(c.closeNs()).append(c.seq(i)).append(c.timeNs(i)).append(address)
                        .append(address >>> pageShift).append((c.flags(i) & ChunkDescriptor.REC_WRITE) != 0)
                        .append((long)c.reads(i)).append((long)c.writes(i)).endRow();
                }
            }
            catch (final SQLException ex)
            {
                throw new Failed(ex);
            }
        }
    }
}
