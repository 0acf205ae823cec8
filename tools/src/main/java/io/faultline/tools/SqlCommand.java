package io.faultline.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import io.faultline.format.ReadSummary;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.Written;
import io.faultline.tools.sql.ResultWriter;
import io.faultline.tools.sql.SessionInput;
import io.faultline.tools.sql.Statements;
import io.faultline.tools.sql.TraceDatabase;
import io.faultline.tools.sql.TraceTables;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline sql TRACE... [QUERY]}: SQL over traces, as Perfetto's trace processor offers
 * it over its traces, with DuckDB embedded: each trace's tables ({@link TraceTables}, docs/SQL.md)
 * in its own schema, {@code t1}, {@code t2}, ... in the order named, the first also unqualified.
 * Without a query it reads them from standard input, with a prompt on a terminal.
 */
@Command(name = "sql", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = SqlCommand.USAGE_LINE,
    descriptionHeading = "%n", description = {
        SqlCommand.SUMMARY, "",
        "Each trace's tables are in a schema of its own, t1 for the first trace named, t2 for the",
        "second, ...; t1's are also the unqualified names. Times are ns from the program's start.",
        "  refs       every reference: seq, time_ns, pid, tid, address, page, write, kernel,",
        "             stack_id, mapping_id",
        "  evictions  every eviction record: seq, time_ns, pid, tid, address, page, tag (r w R W),",
        "             dirty, referenced, deleted, mapping_id",
        "  events     every other event: seq, time_ns, pid, tid, type, code, kernel, a, b, c, d, text",
        "  threads    pid, tid, name, start_ns, exit_ns, creator_tid, refs, writes, pages,",
        "             first_ns, last_ns",
        "  processes  pid, ppid, executable, start_ns, exit_ns, exit_status, threads, refs, writes,",
        "             pages",
        "  mappings   mapping_id, name (as faultline info names it), refs, reads, writes, pages,",
        "             evictions, dirty_evictions",
        "  stacks     pid, stack_id, depth, frames, names (record --stacks: return addresses and their",
        "             functions, innermost first)",
        "  moca       a --mode moca trace's pages per interval",
        "  header     the trace header's key and value",
        "main.traces lists each schema's trace; docs/SQL.md documents every column.",
        "QUERY is the last operand (one or more statements, each ended by ;); without it, statements",
        "are read from standard input, with a prompt on a terminal. Example:",
        "  faultline sql t \"SELECT m.name, count(*) FROM refs JOIN mappings m USING (mapping_id)",
        "  GROUP BY 1\"",
        ""})
final class SqlCommand extends ConsoleCommand
{
    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "Query traces with SQL (DuckDB): references, evictions, events, threads, mappings.";

    static final String USAGE_LINE = "faultline sql [--csv | --parquet FILE] [--timer] TRACE_DIR... [QUERY]";
    private static final String USAGE = "usage: " + USAGE_LINE;
    private static final String PROMPT = "sql> ";
    private static final String MORE = "...> ";

    @Option(names = "--csv", description = "print results as CSV (a header line, then a line per row)")
    boolean csv;

    @Option(names = "--parquet", paramLabel = "FILE", description = "write QUERY's result to FILE as Parquet (zstd)")
    Path parquet;

    @Option(names = "--timer", description = "print each load's and each query's wall time on stderr")
    boolean timer;

    @Mixin
    SkipCorrupt corrupt;

    @Parameters(paramLabel = "TRACE_DIR", arity = "0..*",
        description = "traces written by faultline record, then QUERY (SQL, DuckDB's dialect)")
    List<String> operands = new ArrayList<>();

    private final InputStream in;
    private final boolean interactive;

    SqlCommand(final PrintStream out, final PrintStream err, final boolean terminal, final InputStream in,
        final boolean interactive)
    {
        super(out, err, terminal);
        this.in = in;
        this.interactive = interactive;
    }

    @Override
    public Integer call()
    {
        if (operands.isEmpty())
        {
            throw new CliException("missing trace directory; " + USAGE);
        }
        if (csv && parquet != null)
        {
            throw new CliException("--csv and --parquet both choose the output; give one");
        }
        final List<String> traces = new ArrayList<>(operands);
        String query = null;
        if (traces.size() > 1 && isQuery(traces.get(traces.size() - 1)))
        {
            query = traces.remove(traces.size() - 1);
        }
        if (parquet != null && query == null)
        {
            throw new CliException("--parquet writes one query's result: give the query after the traces");
        }
        // the traces are opened before the engine starts: a trace that is not there fails fast
        final List<TraceReader> readers = new ArrayList<>();
        try
        {
            for (final String trace : traces)
            {
                readers.add(TraceArguments.open(trace, corrupt.skip));
            }
            try (TraceDatabase db = TraceDatabase.open())
            {
                for (int i = 0; i < readers.size(); i++)
                {
                    try
                    {
                        load(db, TraceDatabase.schema(i + 1), traces.get(i), readers.get(i));
                    }
                    catch (final SQLException ex)
                    {
                        throw loadFailed(traces.get(i), ex);
                    }
                }
                db.useFirst();
                return query != null ? runOne(db, query) : runScript(db);
            }
            catch (final TraceDatabase.Unavailable ex)
            {
                throw new CliException(ex.getMessage(), ExitStatus.USAGE);
            }
            catch (final SQLException ex)
            {
                throw new CliException(TraceDatabase.message(ex), ExitStatus.USAGE);
            }
        }
        finally
        {
            readers.forEach(TraceReader::close);
        }
    }

    /**
     * The engine failed while it loaded a trace: no query's fault, so not the usage status. Its
     * message starts with DuckDB's error type: memory is a limit (ExitStatus.LIMIT), a file it
     * could not write (its spill to disk) is access, anything else a bug of ours or the engine's.
     */
    static CliException loadFailed(final String trace, final SQLException ex)
    {
        final String message = TraceDatabase.message(ex);
        if (message.startsWith("Out of Memory"))
        {
            return new CliException("cannot load " + trace + ": the SQL engine ran out of memory (" + message
                + "); free memory, or query fewer traces at once", ExitStatus.LIMIT);
        }
        if (message.startsWith("IO Error"))
        {
            return new CliException("cannot load " + trace + ": the SQL engine could not write its files (" + message
                + "); check the space and permissions of the temporary directory", ExitStatus.ACCESS);
        }
        return new CliException("internal error (the SQL engine failed to load " + trace + ": " + message
            + "); this is a bug in faultline or its SQL engine", ExitStatus.INTERNAL);
    }

    /** The last operand is the query: not a file or directory, and more than one word (a trace's name is one). */
    private static boolean isQuery(final String operand)
    {
        return !Files.exists(Path.of(operand)) && operand.strip().matches("(?s).*\\s.*");
    }

    private void load(final TraceDatabase db, final String schema, final String path, final TraceReader reader)
        throws SQLException
    {
        final long start = System.nanoTime();
        final TraceHeader header = reader.header();
        final AtomicLong done = new AtomicLong();
        final long total = header.isComplete() ? header.longValue(TraceHeader.REFERENCES) : -1;
        final ReadSummary summary;
        try (Progress progress = Progress.start(err, terminal, "Loading " + path, total, done::get))
        {
            summary = TraceTables.load(db.connection(), schema, reader, done);
        }
        catch (final TraceFormatException ex)
        {
            throw CliException.of(ex);
        }
        db.describe(schema, path, header);
        summary.notes(reader.dir()).forEach(n -> err.println("faultline sql: " + n));
        if (timer || terminal)
        {
            err.printf(Locale.ROOT, "Loaded %s as %s: %,d references in %s%n", path, schema, summary.references(),
                Written.seconds(System.nanoTime() - start));
        }
    }

    private int runOne(final TraceDatabase db, final String query) throws SQLException
    {
        final List<String> statements = Statements.split(query);
        if (parquet != null)
        {
            if (statements.size() != 1)
            {
                throw new CliException("--parquet writes one query's result: give one statement, not "
                    + statements.size());
            }
            final long start = System.nanoTime();
            db.copyToParquet(statements.get(0), parquet);
            Written.report(err, "the query's result as Parquet", parquet, start);
            return 0;
        }
        for (final String statement : statements)
        {
            execute(db, statement);
        }
        return 0;
    }

    /** Statements from standard input, each ended by a ; at a line's end (or by the input's end). */
    private int runScript(final TraceDatabase db)
    {
        if (interactive)
        {
            out.println("faultline sql: tables refs, evictions, events, threads, processes, mappings, stacks, moca, "
                + "header (faultline sql --help; docs/SQL.md); end each statement with ;, .quit to leave");
            out.flush(); // before the line editor, which writes to the terminal itself
        }
        final StringBuilder statement = new StringBuilder();
        try (SessionInput lines = SessionInput.of(in, out, interactive))
        {
            while (true)
            {
                final String line = lines.readLine(statement.length() == 0 ? PROMPT : MORE);
                if (line == null)
                {
                    break;
                }
                if (line == SessionInput.DROPPED)
                {
                    statement.setLength(0); // Ctrl-C: the statement being typed goes, the session stays
                    continue;
                }
                if (statement.length() == 0 && (line.strip().equals(".quit") || line.strip().equals(".exit")))
                {
                    return 0;
                }
                statement.append(line).append('\n');
                if (line.strip().endsWith(";"))
                {
                    if (!runStatement(db, statement.toString()))
                    {
                        return ExitStatus.USAGE;
                    }
                    statement.setLength(0);
                }
            }
            if (interactive)
            {
                out.println();
            }
            if (!statement.toString().isBlank() && !runStatement(db, statement.toString()))
            {
                return ExitStatus.USAGE;
            }
            return 0;
        }
        catch (final IOException ex)
        {
            throw new CliException("cannot read standard input: " + io.faultline.format.InputProblem.reason(ex),
                ExitStatus.ACCESS);
        }
    }

    /** Runs one statement of a script; a failed one ends a script read from a pipe, not a terminal's session. */
    private boolean runStatement(final TraceDatabase db, final String text)
    {
        try
        {
            for (final String statement : Statements.split(text))
            {
                execute(db, statement);
            }
            return true;
        }
        catch (final SQLException ex)
        {
            err.println("faultline sql: " + TraceDatabase.message(ex));
            return interactive;
        }
    }

    private void execute(final TraceDatabase db, final String sql) throws SQLException
    {
        final long start = System.nanoTime();
        try (Statement statement = db.connection().createStatement())
        {
            if (statement.execute(sql))
            {
                try (ResultSet rows = statement.getResultSet())
                {
                    ResultWriter.write(rows, out, csv);
                }
            }
        }
        out.flush();
        if (timer)
        {
            err.printf(Locale.ROOT, "Query took %s%n", Written.seconds(System.nanoTime() - start));
        }
    }
}
