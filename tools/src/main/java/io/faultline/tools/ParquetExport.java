package io.faultline.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.faultline.format.ReadSummary;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.Written;
import io.faultline.tools.sql.TraceDatabase;
import io.faultline.tools.sql.TraceTables;

/**
 * {@code export --to parquet -o DIR}: every table of {@code faultline sql} ({@link TraceTables})
 * as a zstd-compressed Parquet file in DIR ({@code refs.parquet}, {@code evictions.parquet},
 * ...), for pandas (pyarrow), polars, DuckDB and Spark. DuckDB both holds the tables and writes
 * the files: one definition of the tables for both commands. refs and evictions are written
 * while the trace is read ({@link TraceTables#load(org.duckdb.DuckDBConnection, String,
 * TraceReader, AtomicLong, Path)}), the other tables and the views after.
 */
final class ParquetExport
{
    static final String NAME = "parquet";

    private ParquetExport()
    {
    }

    static int export(final String path, final Path output, final boolean skipCorrupt, final PrintStream err,
        final boolean terminal)
    {
        if (output == null)
        {
            throw new CliException("--to " + NAME + " writes one file per table: give -o DIR, a new or empty directory");
        }
        try (TraceReader reader = TraceArguments.open(path, skipCorrupt))
        {
            try (Stream<Path> existing = Files.isDirectory(output) ? Files.list(output) : Stream.empty())
            {
                if (Files.exists(output) && (!Files.isDirectory(output) || existing.findAny().isPresent()))
                {
                    throw new CliException("-o " + output + " is not a new or empty directory; give one for the "
                        + "Parquet files");
                }
                Files.createDirectories(output);
            }
            catch (final IOException ex)
            {
                throw new CliException("cannot write " + output + ": " + io.faultline.format.InputProblem.reason(ex),
                    ExitStatus.ACCESS);
            }
            final long start = System.nanoTime();
            final TraceHeader header = reader.header();
            final AtomicLong done = new AtomicLong();
            try (TraceDatabase db = TraceDatabase.open())
            {
                final String schema = TraceDatabase.schema(1);
                final ReadSummary summary;
                try (Progress progress = Progress.start(err, terminal, "Exporting", header.isComplete()
                    ? header.longValue(TraceHeader.REFERENCES) : -1, done::get))
                {
                    // refs and evictions are written as the trace is read; the rest after
                    summary = TraceTables.load(db.connection(), schema, reader, done, output);
                    for (final String table : TraceTables.TABLES)
                    {
                        if (!table.equals("refs") && !table.equals("evictions"))
                        {
                            db.copyToParquet("SELECT * FROM " + schema + "." + table, output.resolve(table + ".parquet"));
                        }
                    }
                }
                summary.notes(reader.dir()).stream().filter(n -> !n.startsWith("trace ")).forEach(err::println);
                if (reader.isPartial())
                {
                    err.println("faultline export: " + path + (reader.isLive() ? " is still being recorded: exported "
                        + "what it held" : " is a partial trace (its recorder stopped before finishing): exported every "
                        + "complete excerpt"));
                }
                err.printf(Locale.ROOT, "Wrote %,d references, %,d evictions and %,d other events as %d Parquet tables "
                    + "(zstd) to %s in %s%n", summary.references(), count(db, schema, "evictions"),
                    count(db, schema, "events"), TraceTables.TABLES.size(), output,
                    Written.seconds(System.nanoTime() - start));
            }
            catch (final TraceDatabase.Unavailable ex)
            {
                throw new CliException(ex.getMessage(), ExitStatus.USAGE);
            }
            catch (final SQLException ex)
            {
                throw new CliException("cannot write " + output + ": " + TraceDatabase.message(ex), ExitStatus.ACCESS);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
        }
        return 0;
    }

    private static long count(final TraceDatabase db, final String schema, final String table) throws SQLException
    {
        try (var statement = db.connection().createStatement();
            var rows = statement.executeQuery("SELECT count(*) FROM " + schema + "." + table))
        {
            rows.next();
            return rows.getLong(1);
        }
    }
}
