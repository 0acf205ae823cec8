package io.faultline.tools;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.DeflaterOutputStream;

import io.faultline.damon.report.DamoJson;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceReader;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.Compression;
import io.faultline.sim.trace.ExportFormat;
import io.faultline.sim.trace.ExportFormats;
import io.faultline.sim.trace.MocaTaskFiles;
import io.faultline.format.EventType;
import io.faultline.format.MocaChunk;
import io.faultline.format.ReadSummary;
import io.faultline.format.TraceEvent;
import io.faultline.format.TraceVisitor;
import io.faultline.sim.trace.TraceException;
import io.faultline.sim.stacks.CallStacks;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline export --to FORMAT [-o FILE] TRACE_DIR}: a faultline trace's references in
 * another tool's format, each reference's key its page; compressed by the output file's
 * extension. Like async-profiler's converters it says what it wrote and how long it took.
 * {@code --to damo-json} writes DAMON's regions instead ({@link DamoJson}): a monitoring
 * record's, or a trace's exact ones, as {@code faultline report} reads them.
 */
@Command(name = "export", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = ExportCommand.USAGE_LINE,
    descriptionHeading = "%n", description = {
        ExportCommand.SUMMARY, "",
        "Each reference becomes its page (address / the trace's page size). Formats:",
        "  lcs-oracle  libCacheSim oracleGeneral: time (s), page, page size, next access (1-based index",
        "              of the next reference to the page, -1 if none): cachesim FILE oracleGeneral ...",
        "  lcs         libCacheSim lcs version 2: as lcs-oracle, with read or write as the operation and the",
        "              thread id as the tenant, after an 8 KiB header of trace statistics: cachesim FILE lcs ...",
        "  lcs-txt     libCacheSim text, one page per line: cachesim FILE txt ...",
        "  lirs        LIRS block trace, one page per line",
        "  csv         the columns of faultline dump --format csv: seq,time_ns,pid,tid,kind,address,tag",
        "  kvmtrace    kVMTrace's reduced trace: TAG TIME_NS PID VPAGE per eviction record, in eviction order,",
        "              and its kernel records (open, close, read, write, truncate, unlink, shmat, shmdt)",
        "  moca        of a trace recorded with --mode moca: Moca's per-task trace files (Moca-taskX.log:",
        "              T, C and A lines, its module's format of 2015) in the directory -o DIR",
        "Every export reads back with faultline simulate/mrc --format FORMAT to the same pages.",
        "  damo-json   DAMON's regions of every aggregation as damo's JSON record: of a monitoring",
        "              record (faultline monitor), or the exact ones of a trace, cut into --sample and",
        "              --aggr intervals (default 5ms, 100ms). Compressed with zlib as damo record writes",
        "              it (damo report wss --input damon.data) unless -o ends in .json",
        "  folded      of a trace recorded with --stacks N: collapsed stacks, one line per distinct call",
        "              stack, frames root first joined by ';', a space, its trapped references: what",
        "              flamegraph.pl and speedscope read (flamegraph.pl out.folded > misses.svg)",
        "  parquet     faultline sql's tables (refs, evictions, events, threads, processes,",
        "              mappings, stacks, moca, header) as zstd Parquet files, TABLE.parquet in the",
        "              directory -o DIR, for pandas, polars, DuckDB and Spark (docs/SQL.md)", ""})
final class ExportCommand extends ConsoleCommand
{
    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "Write a trace's references in another tool's format.";

    static final String USAGE_LINE = "faultline export --to FORMAT [-o FILE] [--pid N] [--tid N] TRACE_DIR\n"
        + "       faultline export --to damo-json [-o FILE] [--sample T] [--aggr T] RECORD_OR_TRACE_DIR\n"
        + "       faultline export --to moca -o DIR [--pid N] [--tid N] TRACE_DIR\n"
        + "       faultline export --to folded [-o FILE] [--pid N] [--tid N] TRACE_DIR\n"
        + "       faultline export --to parquet -o DIR TRACE_DIR";
    /** damo's JSON record: from DAMON's regions, not from the references, so not one of {@link ExportFormats}. */
    static final String DAMO_JSON = "damo-json";
    /** Moca's per-task files: a directory of them, from a Moca trace's chunks ({@link MocaTaskFiles}). */
    static final String MOCA = "moca";
    /** Collapsed stacks (flamegraph.pl, speedscope): from a trace's call stacks, not per reference. */
    static final String FOLDED = "folded";
    private static final String USAGE = "usage: " + USAGE_LINE;
    /** References between two updates of the progress count. */
    private static final int PROGRESS_BLOCK = 1 << 12;

    /** The export format names, for the help text and shell completion. */
    static final class FormatNames implements Iterable<String>
    {
        @Override
        public Iterator<String> iterator()
        {
            final List<String> names = new ArrayList<>();
            ExportFormats.all().forEach(f -> names.add(f.name()));
            names.add(DAMO_JSON);
            names.add(MOCA);
            names.add(FOLDED);
            names.add(ParquetExport.NAME);
            return names.iterator();
        }
    }

    @Option(names = "--to", paramLabel = "FORMAT", completionCandidates = FormatNames.class,
        description = "the format to write: ${COMPLETION-CANDIDATES}")
    String to;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = {"the file to write, compressed if its name "
        + "ends in .gz, .xz or .zst; default: standard output, uncompressed"})
    Path output;

    @Mixin
    SkipCorrupt corrupt;

    @Mixin
    ProcessFilter filter;

    @Option(names = "--sample", paramLabel = "T", converter = Durations.class,
        description = "damo-json of a trace: sampling interval of the exact counts (default 5ms)")
    Long sampleUs;

    @Option(names = "--aggr", paramLabel = "T", converter = Durations.class,
        description = "damo-json of a trace: aggregation interval (default 100ms)")
    Long aggrUs;

    @Parameters(paramLabel = "TRACE_DIR", arity = "0..*", description = "a trace directory written by faultline record")
    List<String> operands = new ArrayList<>();

    ExportCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        super(out, err, terminal);
    }

    @Override
    public Integer call()
    {
        if (to == null)
        {
            throw new CliException("missing --to FORMAT; known formats: " + ExportFormats.names() + ", " + DAMO_JSON
                + ", " + MOCA + ", " + FOLDED + ", " + ParquetExport.NAME);
        }
        if (MOCA.equals(to))
        {
            return exportMoca();
        }
        if (ParquetExport.NAME.equals(to))
        {
            if (sampleUs != null || aggrUs != null || filter.given())
            {
                throw new CliException("--to " + ParquetExport.NAME + " writes every table whole: leave out --pid, --tid, "
                    + "--sample and --aggr, and filter in SQL (WHERE pid = N)");
            }
            return ParquetExport.export(TraceArguments.single(operands, USAGE), output, corrupt.skip, err, terminal);
        }
        if (FOLDED.equals(to))
        {
            return exportFolded();
        }
        if (DAMO_JSON.equals(to))
        {
            return exportDamoJson();
        }
        if (sampleUs != null || aggrUs != null)
        {
            throw new CliException("--sample and --aggr apply to --to " + DAMO_JSON + "; leave them out for " + to);
        }
        final ExportFormat format;
        try
        {
            format = ExportFormats.get(to);
        }
        catch (final TraceException ex)
        {
            throw new CliException(ex.getMessage() + ", " + DAMO_JSON + ", " + MOCA + ", " + FOLDED + ", "
                + ParquetExport.NAME);
        }
        final int pid = filter.pid();
        final int tid = filter.tid();
        final String path = TraceArguments.single(operands, USAGE);
        // The trace is opened first: a trace that is not there leaves no output file behind.
        try (TraceReader reader = TraceArguments.open(path, corrupt.skip))
        {
            final long start = System.nanoTime();
            final long written = export(reader, format, pid, tid);
            if (reader.isPartial())
            {
                err.println("faultline export: " + path + (reader.isLive() ? " is still being recorded: exported what it held"
                    : " is a partial trace (its recorder stopped before finishing): exported every complete excerpt"));
            }
            final String what = String.format(Locale.ROOT, "%,d references as %s", written, format.name());
            if (output == null)
            {
                err.printf(Locale.ROOT, "Wrote %s to standard output in %s%n", what,
                    Written.seconds(System.nanoTime() - start));
            }
            else
            {
                Written.report(err, what, output, start);
            }
        }
        return 0;
    }

    /** Collapsed stacks for flame graphs, of a trace recorded with --stacks. */
    private Integer exportFolded()
    {
        if (sampleUs != null || aggrUs != null)
        {
            throw new CliException("--sample and --aggr apply to --to " + DAMO_JSON + "; leave them out for " + FOLDED);
        }
        final int pid = filter.pid();
        final int tid = filter.tid();
        final String path = TraceArguments.single(operands, USAGE);
        try (TraceReader reader = TraceArguments.open(path, corrupt.skip))
        {
            final long start = System.nanoTime();
            final CallStacks stacks = CallSitesCommand.read(reader, path, err, pid, tid);
            final long lines;
            try (OutputStream stream = open(); Writer writer = new OutputStreamWriter(stream, StandardCharsets.UTF_8))
            {
                lines = stacks.writeFolded(writer);
            }
            catch (final IOException ex)
            {
                deletePartialOutput();
                throw new CliException("cannot write " + (output == null ? "standard output" : output) + ": " + reason(ex));
            }
            final String what = String.format(Locale.ROOT, "%,d stacks of %,d trapped references as %s", lines,
                stacks.references(), FOLDED);
            if (output == null)
            {
                err.printf(Locale.ROOT, "Wrote %s to standard output in %s%n", what, Written.seconds(System.nanoTime() - start));
            }
            else
            {
                Written.report(err, what, output, start);
            }
        }
        return 0;
    }

    private Integer exportMoca()
    {
        if (sampleUs != null || aggrUs != null)
        {
            throw new CliException("--sample and --aggr apply to --to " + DAMO_JSON + "; leave them out for " + MOCA);
        }
        if (output == null)
        {
            throw new CliException("--to " + MOCA + " writes one file per thread: give -o DIR, a new or empty directory");
        }
        final int pid = filter.pid();
        final int tid = filter.tid();
        final String path = TraceArguments.single(operands, USAGE);
        try (TraceReader reader = TraceArguments.open(path, corrupt.skip))
        {
            if (!reader.header().isMoca())
            {
                throw new CliException(path + " was recorded with --mode trace: Moca's files hold per-interval page "
                    + "sets, which only a trace recorded with --mode moca has; record with --mode moca");
            }
            try (Stream<Path> existing = Files.isDirectory(output) ? Files.list(output) : Stream.empty())
            {
                if (Files.exists(output) && (!Files.isDirectory(output) || existing.findAny().isPresent()))
                {
                    throw new CliException("-o " + output + " is not a new or empty directory; give one for Moca's files");
                }
                Files.createDirectories(output);
            }
            final long start = System.nanoTime();
            final MocaTaskFiles files = new MocaTaskFiles(output, reader.header().pageSize());
            try (files)
            {
                reader.forEach(new TraceVisitor()
                {
                    @Override
                    public void onReference(final long seq, final long timeNs, final int p, final int t,
                        final long address, final boolean write)
                    {
                    }

                    @Override
                    public void onMocaChunk(final MocaChunk chunk)
                    {
                        if ((pid < 0 || chunk.pid() == pid) && (tid < 0 || chunk.tid() == tid))
                        {
                            files.add(chunk);
                        }
                    }
                });
            }
            if (reader.isPartial())
            {
                err.println("faultline export: " + path + (reader.isLive() ? " is still being recorded: exported what it held"
                    : " is a partial trace (its recorder stopped before finishing): exported every complete excerpt"));
            }
            err.printf(Locale.ROOT, "Wrote %,d pages of %,d threads as Moca's task files to %s (%s to %s) in %s%n",
                files.pages(), files.tasks(), output, MocaTaskFiles.fileName(0),
                MocaTaskFiles.fileName(Math.max(0, files.tasks() - 1)), Written.seconds(System.nanoTime() - start));
        }
        catch (final TraceFormatException ex)
        {
            throw CliException.of(ex);
        }
        catch (final IOException | UncheckedIOException ex)
        {
            final IOException cause = ex instanceof UncheckedIOException unchecked ? unchecked.getCause() : (IOException)ex;
            throw new CliException("cannot write " + output + ": " + reason(cause), ExitStatus.ACCESS);
        }
        return 0;
    }

    private Integer exportDamoJson()
    {
        if (filter.given())
        {
            throw new CliException("--pid and --tid apply to reference formats; --to " + DAMO_JSON + " writes every "
                + "target of the record, leave them out");
        }
        if (output != null && Compression.byExtension(output) != Compression.NONE)
        {
            throw new CliException("--to " + DAMO_JSON + " writes plain JSON, the form damo reads; give -o a name that "
                + "does not end in .gz, .xz or .zst");
        }
        final Path dir = Path.of(TraceArguments.single(operands, USAGE));
        final long start = System.nanoTime();
        final ReportCommand.Input.Monitored monitored = ReportCommand.Input.read(dir, sampleUs, aggrUs,
            "--sample and --aggr", null, corrupt.skip);
        monitored.notes().forEach(err::println);
        final OutputStream file = open();
        // damo record's default file type is json_compressed, a zlib stream, and damo's reports
        // tell its plain JSON by `file -b` saying "JSON data", which newer libmagic does not say
        final boolean plain = output == null || output.getFileName().toString().endsWith(".json");
        final OutputStream stream = plain ? file : new DeflaterOutputStream(file);
        try (stream; Writer writer = new OutputStreamWriter(stream, StandardCharsets.UTF_8))
        {
            DamoJson.write(monitored.snapshots(), monitored.attributes(), writer);
        }
        catch (final IOException ex)
        {
            deletePartialOutput();
            throw new CliException("cannot write " + (output == null ? "standard output" : output) + ": " + reason(ex));
        }
        final String what = String.format(Locale.ROOT, "%,d aggregations as %s%s", monitored.snapshots().size(),
            DAMO_JSON, plain ? "" : " (zlib)");
        if (output == null)
        {
            err.printf(Locale.ROOT, "Wrote %s to standard output in %s%n", what, Written.seconds(System.nanoTime() - start));
        }
        else
        {
            Written.report(err, what, output, start);
        }
        return 0;
    }

    private long export(final TraceReader reader, final ExportFormat format, final int pid, final int tid)
    {
        final AtomicLong done = new AtomicLong();
        final TraceHeader header = reader.header();
        try
        {
            reader.requireReferences("export --to " + format.name());
        }
        catch (final TraceFormatException ex)
        {
            throw CliException.of(ex);
        }
        final long total = pid < 0 && tid < 0 && header.isComplete() ? header.longValue(TraceHeader.REFERENCES) : -1;
        final OutputStream stream = open();
        try
        {
            try (stream; Progress progress = Progress.start(err, terminal, "Exporting", total, done::get))
            {
                final ExportFormat.Writer writer = format.open(stream, header.pageSize());
                final long[] count = new long[1];
                final ReadSummary summary = reader.forEach(new TraceVisitor()
                {
                    @Override
                    public void onReference(final long seq, final long timeNs, final int p, final int t,
                        final long address, final boolean write)
                    {
                        if ((pid >= 0 && p != pid) || (tid >= 0 && t != tid))
                        {
                            return;
                        }
                        try
                        {
                            writer.reference(seq, timeNs, p, t, address, write);
                        }
                        catch (final IOException ex)
                        {
                            throw new UncheckedIOException(ex);
                        }
                        if (++count[0] % PROGRESS_BLOCK == 0)
                        {
                            done.lazySet(count[0]);
                        }
                    }

                    @Override
                    public void onEvent(final TraceEvent e)
                    {
                        if ((pid >= 0 && e.pid() != pid) || (tid >= 0 && e.tid() != tid))
                        {
                            return;
                        }
                        try
                        {
                            if (e.type() == EventType.EVICT)
                            {
                                writer.eviction(e.seq(), e.timeNs(), e.pid(), e.tid(), e.a(), (char)e.b());
                            }
                            else
                            {
                                writer.event(e);
                            }
                        }
                        catch (final IOException ex)
                        {
                            throw new UncheckedIOException(ex);
                        }
                    }
                });
                writer.finish();
                // excerpts --skip-corrupt skipped, where a broken queue stopped the reading (partial
                // traces: the caller says so)
                summary.notes(reader.dir()).stream().filter(n -> !n.startsWith("trace ")).forEach(err::println);
                return count[0];
            }
        }
        catch (final TraceFormatException ex)
        {
            deletePartialOutput();
            throw CliException.of(ex);
        }
        catch (final IOException | UncheckedIOException ex)
        {
            deletePartialOutput();
            final IOException cause = ex instanceof UncheckedIOException unchecked ? unchecked.getCause() : (IOException)ex;
            throw new CliException("cannot write " + (output == null ? "standard output" : output) + ": " + reason(cause),
                ExitStatus.ACCESS);
        }
    }

    /** The output stream: the file, compressed by its extension, or standard output left open. */
    private OutputStream open()
    {
        if (output == null)
        {
            final PrintStream stdout = out;
            return new OutputStream()
            {
                @Override
                public void write(final int b)
                {
                    stdout.write(b);
                }

                @Override
                public void write(final byte[] b, final int off, final int len)
                {
                    stdout.write(b, off, len);
                }

                @Override
                public void close()
                {
                    // Main flushes and closes standard output.
                    stdout.flush();
                }
            };
        }
        try
        {
            return Compression.create(output);
        }
        catch (final IOException ex)
        {
            throw new CliException("cannot write " + output + ": " + reason(ex) + "; give -o a file in a writable "
                + "directory", ExitStatus.ACCESS);
        }
    }

    private void deletePartialOutput()
    {
        if (output != null)
        {
            try
            {
                Files.deleteIfExists(output);
            }
            catch (final IOException ignored)
            {
                // The error being reported matters more than the partial file.
            }
        }
    }

    /** What went wrong, without Java's exception class names. */
    private static String reason(final IOException ex)
    {
        // the output file need not exist: what is missing is its directory
        return ex instanceof java.nio.file.NoSuchFileException ? "no such directory"
            : io.faultline.format.InputProblem.reason(ex);
    }
}
