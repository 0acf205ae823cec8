package io.faultline.tools.sql;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;

import org.duckdb.DuckDBConnection;

/**
 * An in-memory DuckDB database that holds traces' tables, one schema per trace
 * ({@link TraceTables}): {@code t1} for the first trace named, {@code t2} for the second, and so
 * on, the first also the default (the search path), so that {@code refs} means {@code t1.refs}.
 * {@code main.traces} lists each schema with the trace it holds.
 */
public final class TraceDatabase implements AutoCloseable
{
    private final DuckDBConnection connection;

    private TraceDatabase(final DuckDBConnection connection)
    {
        this.connection = connection;
    }

    /**
     * Starts the engine.
     *
     * @throws Unavailable where DuckDB's native library does not load (another platform than the
     *                     one this build carries it for, a temporary directory that forbids running code)
     */
    public static TraceDatabase open() throws SQLException
    {
        final String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        final String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64")))
        {
            // DuckDB's loader prints a stack trace before it throws: not asked to load at all here
            throw new Unavailable(new UnsatisfiedLinkError("no engine for this platform"));
        }
        final String missing = missingEngine();
        if (missing != null)
        {
            // DuckDB's loader prints a stack trace before it throws: not asked to load what is not there
            throw new Unavailable(missing);
        }
        final Connection connection;
        try
        {
            Class.forName("org.duckdb.DuckDBDriver");
            final Properties properties = new Properties();
            connection = DriverManager.getConnection("jdbc:duckdb:", properties);
        }
        catch (final ClassNotFoundException | LinkageError | IllegalStateException ex)
        {
            throw new Unavailable(ex);
        }
        catch (final SQLException ex)
        {
            if (ex.getCause() instanceof LinkageError linkage)
            {
                throw new Unavailable(linkage);
            }
            throw ex;
        }
        final TraceDatabase db = new TraceDatabase(connection.unwrap(DuckDBConnection.class));
        try (Statement statement = connection.createStatement())
        {
            // an in-memory database spills into ./.tmp by default: the user's directory is not ours
            statement.execute("SET temp_directory = " + literal(Path.of(System.getProperty("java.io.tmpdir"),
                "faultline-duckdb-" + ProcessHandle.current().pid()).toString()));
            statement.execute("CREATE TABLE main.traces (schema VARCHAR, trace VARCHAR, format_version INTEGER, "
                + "page_size INTEGER, refs BIGINT, evictions BIGINT, events BIGINT, state VARCHAR, command VARCHAR)");
        }
        return db;
    }

    /** The file DuckDB's loader looks for on the class path and then beside the jar that holds its classes. */
    static final String ENGINE_FILE = "libduckdb_java.so_linux_amd64";

    /**
     * Where the engine should be and is not, or null if DuckDB will find it. faultline's jar
     * leaves the engine out and the build puts it beside the jar (tools/pom.xml), where DuckDB
     * loads it in place; a class path that holds DuckDB's own jar (the build's tests, a user's
     * program) has it inside, and DuckDB copies it out to java.io.tmpdir first.
     */
    static String missingEngine()
    {
        if (TraceDatabase.class.getResource("/" + ENGINE_FILE) != null)
        {
            return null;
        }
        try
        {
            final CodeSource source = DuckDBConnection.class.getProtectionDomain().getCodeSource();
            final Path jar = Path.of(source.getLocation().toURI());
            final Path beside = jar.resolveSibling(ENGINE_FILE);
            return Files.isRegularFile(beside) ? null : beside.toString();
        }
        catch (final URISyntaxException | RuntimeException ex)
        {
            return null; // no location to look in: DuckDB's loader says what it finds
        }
    }

    /** DuckDB's engine cannot run here. */
    public static final class Unavailable extends SQLException
    {
        Unavailable(final Throwable cause)
        {
            super("DuckDB's native engine does not load here (" + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + ": " + firstLine(cause) + "); faultline carries it for x86-64 "
                + "Linux only", cause);
        }

        Unavailable(final String missing)
        {
            super("DuckDB's native engine is missing: " + missing + " is not there; the build puts it beside "
                + "faultline.jar (mvn -q package -DskipTests), so keep the two together");
        }

        private static String firstLine(final Throwable t)
        {
            final String m = t.getMessage();
            return m == null ? t.getClass().getSimpleName() : m.lines().findFirst().orElse("");
        }
    }

    public DuckDBConnection connection()
    {
        return connection;
    }

    /** The schema of the {@code n}th trace, from 1. */
    public static String schema(final int n)
    {
        return "t" + n;
    }

    /** Records in {@code main.traces} that {@code schema} holds {@code trace}, with its counts. */
    public void describe(final String schema, final String trace, final io.faultline.format.TraceHeader header)
        throws SQLException
    {
        try (var insert = connection.prepareStatement("INSERT INTO main.traces SELECT ?, ?, ?, ?, "
            + "(SELECT count(*) FROM " + schema + ".refs), (SELECT count(*) FROM " + schema + ".evictions), "
            + "(SELECT count(*) FROM " + schema + ".events), ?, ?"))
        {
            insert.setString(1, schema);
            insert.setString(2, trace);
            insert.setInt(3, (int)header.longValue(io.faultline.format.TraceHeader.FORMAT_VERSION));
            insert.setInt(4, header.pageSize());
            insert.setString(5, header.get(io.faultline.format.TraceHeader.STATE));
            insert.setString(6, header.get(io.faultline.format.TraceHeader.COMMAND));
            insert.execute();
        }
    }

    /** Makes the first trace's tables the ones an unqualified name means. */
    public void useFirst() throws SQLException
    {
        try (Statement statement = connection.createStatement())
        {
            statement.execute("SET search_path = '" + schema(1) + ",main'");
        }
    }

    /**
     * The engine's message as one line: DuckDB's runs over several (the error, then "LINE 1:" and
     * a caret under the place); the lines before the first blank one say what is wrong.
     */
    public static String message(final SQLException ex)
    {
        final String m = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
        final StringBuilder line = new StringBuilder();
        for (final String part : m.split("\\R"))
        {
            if (part.isBlank())
            {
                if (line.length() > 0)
                {
                    break;
                }
                continue;
            }
            line.append(line.length() == 0 ? "" : " ").append(part.strip());
        }
        return line.toString();
    }

    /** Quotes a file name as a SQL string literal. */
    public static String literal(final String text)
    {
        return "'" + text.replace("'", "''") + "'";
    }

    /** COPY's options for a Parquet file: zstd at level 1 (1.4 times as fast as its default, 4 % more bytes). */
    public static final String PARQUET = "(FORMAT PARQUET, COMPRESSION ZSTD, COMPRESSION_LEVEL 1)";

    /** Writes a query's result, or a table, as a zstd Parquet file. */
    public void copyToParquet(final String query, final Path file) throws SQLException
    {
        try (Statement statement = connection.createStatement())
        {
            statement.execute(String.format(Locale.ROOT, "COPY (%s) TO %s %s", query, literal(file.toString()), PARQUET));
        }
    }

    @Override
    public void close() throws SQLException
    {
        connection.close();
    }
}
