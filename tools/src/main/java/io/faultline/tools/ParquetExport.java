package io.faultline.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.Written;
import io.faultline.tools.sql.ParquetTables;
import io.faultline.tools.sql.TraceTables;

/**
 * {@code export --to parquet -o DIR}: every table of {@code faultline sql} ({@link TraceTables})
 * as a zstd-compressed Parquet file in DIR ({@code refs.parquet}, {@code evictions.parquet},
 * ...), for pandas (pyarrow), polars, DuckDB and Spark, written in one pass over the trace by
 * {@link ParquetTables}, with no database between (DuckDB's start and its per-row path cost
 * the export more than reading the trace: BENCHMARKS.md, "SQL and Parquet").
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
            final ParquetTables.Written written;
            try (Progress progress = Progress.start(err, terminal, "Exporting", header.isComplete()
                ? header.longValue(TraceHeader.REFERENCES) : -1, done::get))
            {
                written = ParquetTables.export(reader, output, done);
            }
            catch (final IOException ex)
            {
                throw new CliException("cannot write " + output + ": " + io.faultline.format.InputProblem.reason(ex),
                    ExitStatus.ACCESS);
            }
            catch (final TraceFormatException ex)
            {
                throw CliException.of(ex);
            }
            written.summary().notes(reader.dir()).stream().filter(n -> !n.startsWith("trace ")).forEach(err::println);
            if (reader.isPartial())
            {
                err.println("faultline export: " + path + (reader.isLive() ? " is still being recorded: exported "
                    + "what it held" : " is a partial trace (its recorder stopped before finishing): exported every "
                    + "complete excerpt"));
            }
            err.printf(Locale.ROOT, "Wrote %,d references, %,d evictions and %,d other events as %d Parquet tables "
                + "(zstd) to %s in %s%n", written.references(), written.evictions(), written.events(),
                TraceTables.TABLES.size(), output, Written.seconds(System.nanoTime() - start));
        }
        return 0;
    }
}
