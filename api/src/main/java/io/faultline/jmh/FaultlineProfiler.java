package io.faultline.jmh;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.faultline.format.ShmLayout;
import io.faultline.format.TraceFormatException;
import io.faultline.format.TraceHeader;
import io.faultline.format.TraceLayout;
import io.faultline.format.TraceWriter;
import io.faultline.tracer.RecordOptions;
import io.faultline.tracer.Recorder;
import io.faultline.tracer.RecorderJvm;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.ExternalProfiler;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.BenchmarkResultMetaData;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.results.TextResult;
import org.openjdk.jmh.runner.IterationType;

/**
 * A JMH profiler that runs every fork of a benchmark under {@code faultline record}, as a
 * prefix of the fork's command line (as JMH's perf profilers run it under perf), and adds what
 * the fork's measurement iterations referenced to the benchmark's secondary results: trapped
 * references per operation, references, distinct pages, reads, writes, and the fork's ring waits
 * and trace directory.
 * <pre>
 *   java -jar benchmarks.jar Scan -prof "io.faultline.jmh.FaultlineProfiler:evms=512;scope=all;dir=traces"
 *   new OptionsBuilder().addProfiler(FaultlineProfiler.class, "evms=512;dir=traces")
 * </pre>
 * Options, separated by ';': {@code evms} (enabled pages, default 512), {@code scope} ({@code all},
 * the default: the whole fork JVM; {@code api}: only ranges its native code registers with
 * faultline_trace_range), {@code dir} (where each fork's trace goes, as
 * {@code BENCHMARK-forkN}; default faultline-jmh-TIME in the working directory), {@code warmup}
 * ({@code false}, the default: count the measurement iterations only; {@code true}: warmup
 * iterations too).
 * <p>
 * Only the measurement iterations count, as in async-profiler's JMH integration (JMH's
 * {@code -prof async}, org.openjdk.jmh.profile.AsyncProfiler), which samples the warmup only to
 * warm itself up and throws those samples away when the first measurement iteration starts; it
 * has no option to keep them, so the one here has its own name, {@code warmup}. This class is
 * also the fork's internal profiler, which reads the recording's global clock at the start and
 * end of every iteration ({@link IterationWindows}); the references of JVM start, JMH's set-up
 * and, by default, the warmup fall outside. What the JVM's other threads (compiler, GC) reference
 * during an iteration is counted with it. References per operation divide the counted references
 * by the operations of the counted iterations ({@link #refsPerOp}), so by default they are per
 * operation measured.
 */
public final class FaultlineProfiler implements ExternalProfiler, InternalProfiler
{
    private static final String USAGE = "options: evms=N (" + RecordOptions.MIN_EVMS_PAGES + " to "
        + RecordOptions.MAX_EVMS_PAGES + ", default 512); scope=all|api (default all); dir=DIRECTORY (default "
        + "faultline-jmh-TIME); warmup=true|false (default false: measurement iterations only), separated by ';'";
    /** The fork's file of iteration windows, a system property the recorder's side gives the fork. */
    static final String WINDOWS_PROPERTY = "faultline.jmh.iterations";

    private final int evmsPages;
    private final String scope;
    private final Path dir;
    private final boolean warmup;
    private int forks;
    private Path trace;
    /** In the fork: the recording's clock and where the iterations go; null outside a recording. */
    private IterationWindows.Clock clock;
    private Path windows;
    private long iterationStart;

    public FaultlineProfiler() throws ProfilerException
    {
        this("");
    }

    public FaultlineProfiler(final String initLine) throws ProfilerException
    {
        final Map<String, String> options = new TreeMap<>();
        for (final String option : initLine.split("[;,]"))
        {
            if (option.isBlank())
            {
                continue;
            }
            final int eq = option.indexOf('=');
            if (eq <= 0)
            {
                throw new ProfilerException("faultline profiler: '" + option + "' is not key=value; " + USAGE);
            }
            options.put(option.substring(0, eq).trim(), option.substring(eq + 1).trim());
        }
        int evms = 512;
        String scopeName = "all";
        boolean countWarmup = false;
        Path traces = Path.of("faultline-jmh-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        for (final Map.Entry<String, String> option : options.entrySet())
        {
            switch (option.getKey())
            {
                case "evms" -> {
                    try
                    {
                        evms = Integer.parseInt(option.getValue());
                    }
                    catch (final NumberFormatException ex)
                    {
                        evms = -1;
                    }
                    if (evms < RecordOptions.MIN_EVMS_PAGES || evms > RecordOptions.MAX_EVMS_PAGES)
                    {
                        throw new ProfilerException("faultline profiler: evms must be a whole number of "
                            + RecordOptions.EVMS_RANGE + ": " + option.getValue());
                    }
                }
                case "scope" -> {
                    scopeName = option.getValue();
                    if (!scopeName.equals("all") && !scopeName.equals("api"))
                    {
                        throw new ProfilerException("faultline profiler: unknown scope '" + scopeName + "'; use scope=all "
                            + "or scope=api");
                    }
                }
                case "dir" -> traces = Path.of(option.getValue());
                case "warmup" -> {
                    if (!option.getValue().equals("true") && !option.getValue().equals("false"))
                    {
                        throw new ProfilerException("faultline profiler: warmup takes true or false, not '"
                            + option.getValue() + "'");
                    }
                    countWarmup = Boolean.parseBoolean(option.getValue());
                }
                default -> throw new ProfilerException("faultline profiler: unknown option '" + option.getKey() + "'; "
                    + USAGE);
            }
        }
        this.evmsPages = evms;
        this.scope = scopeName;
        this.dir = traces.toAbsolutePath();
        this.warmup = countWarmup;
    }

    @Override
    public String getDescription()
    {
        return "faultline: record each fork's page reference trace (faultline record); trapped references per op "
            + "of the measurement iterations";
    }

    @Override
    public Collection<String> addJVMInvokeOptions(final BenchmarkParams params)
    {
        forks++;
        trace = dir.resolve(name(params) + "-fork" + forks);
        try
        {
            Files.createDirectories(dir);
            TraceWriter.checkUsable(trace, "dir= of the faultline profiler");
        }
        catch (final TraceFormatException | IOException ex)
        {
            throw new IllegalStateException("faultline profiler: " + ex.getMessage());
        }
        return RecorderJvm.command(Recorder.class, List.of("-q", "-o", trace.toString(), "--evms",
            String.valueOf(evmsPages), "--scope", scope, "--"));
    }

    /** The benchmark's method name and parameters, as a file name. */
    private static String name(final BenchmarkParams params)
    {
        final StringBuilder name = new StringBuilder(params.getBenchmark());
        for (final String key : params.getParamsKeys())
        {
            name.append('-').append(key).append('=').append(params.getParam(key));
        }
        return name.toString().replaceAll("[^A-Za-z0-9._=-]", "_");
    }

    /** JMH asks for these after {@link #addJVMInvokeOptions}, for the same fork. */
    @Override
    public Collection<String> addJVMOptions(final BenchmarkParams params)
    {
        return List.of("-D" + WINDOWS_PROPERTY + "=" + windowsFile(trace));
    }

    private static Path windowsFile(final Path trace)
    {
        return trace.resolveSibling(trace.getFileName() + ".iterations");
    }

    /** In the fork: the clock at the iteration's start. */
    @Override
    public void beforeIteration(final BenchmarkParams params, final IterationParams iteration)
    {
        if (clock == null && System.getProperty(WINDOWS_PROPERTY) != null && System.getenv(ShmLayout.ENV_SHM) != null)
        {
            try
            {
                clock = new IterationWindows.Clock(Path.of(System.getenv(ShmLayout.ENV_SHM)));
                windows = Path.of(System.getProperty(WINDOWS_PROPERTY));
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("faultline profiler: cannot read the recording's clock: " + ex.getMessage());
            }
        }
        if (clock != null)
        {
            iterationStart = clock.now();
        }
    }

    /** In the fork: the iteration's window, appended to the file the recorder's side reads. */
    @Override
    public Collection<? extends Result> afterIteration(final BenchmarkParams params, final IterationParams iteration,
        final IterationResult result)
    {
        if (clock != null)
        {
            final long end = clock.now();
            final String kind = iteration.getType() == IterationType.WARMUP ? IterationWindows.WARMUP
                : IterationWindows.MEASUREMENT;
            try
            {
                IterationWindows.append(windows, new IterationWindows.Window(kind, iterationStart, end));
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("faultline profiler: cannot write " + windows + ": " + ex.getMessage());
            }
        }
        return List.of();
    }

    @Override
    public void beforeTrial(final BenchmarkParams params)
    {
        // the trace directory is chosen with the fork's command line
    }

    @Override
    public Collection<? extends Result> afterTrial(final BenchmarkResult result, final long pid, final File stdOut,
        final File stdErr)
    {
        final List<Result> results = new ArrayList<>();
        final TraceHeader header;
        try
        {
            header = TraceHeader.read(trace.resolve(TraceLayout.HEADER_FILE));
        }
        catch (final IOException | RuntimeException ex)
        {
            results.add(new TextResult("no trace in " + trace + ": " + ex.getMessage()
                + "; the fork's output above says why", "faultline"));
            return results;
        }
        if (!header.isComplete())
        {
            results.add(new TextResult("the trace in " + trace + " is not complete; the fork's output above says why",
                "faultline"));
            return results;
        }
        final IterationWindows.Counts counts;
        try
        {
            counts = countIterations(trace, windowsFile(trace), warmup);
        }
        catch (final IOException | RuntimeException ex)
        {
            results.add(new TextResult("cannot count the iterations of " + trace + ": " + ex.getMessage(), "faultline"));
            return results;
        }
        results.add(new ScalarResult("faultline.refs/op", refsPerOp(counts.references(), result.getMetadata(), warmup),
            "refs/op", AggregationPolicy.AVG));
        results.add(new ScalarResult("faultline.references", counts.references(), "refs", AggregationPolicy.AVG));
        results.add(new ScalarResult("faultline.pages", counts.pages(), "pages", AggregationPolicy.AVG));
        results.add(new ScalarResult("faultline.read_faults", counts.readFaults(), "refs", AggregationPolicy.AVG));
        results.add(new ScalarResult("faultline.write_faults", counts.writeFaults(), "refs", AggregationPolicy.AVG));
        results.add(new ScalarResult("faultline.written_pages", counts.writtenPages(), "pages", AggregationPolicy.AVG));
        results.add(new ScalarResult("faultline.ring_waits", header.longValue(TraceHeader.RING_WAITS), "waits",
            AggregationPolicy.AVG));
        results.add(new TextResult(trace.toString(), "faultline.trace"));
        return results;
    }

    /**
     * {@link IterationWindows#count} in a JVM of its own with Chronicle Queue's flags
     * ({@link RecorderJvm}): the JVM running JMH has not got them (a user's {@code java -jar
     * benchmarks.jar}), and Chronicle fails to initialise without them.
     */
    private static IterationWindows.Counts countIterations(final Path trace, final Path windows, final boolean warmup)
        throws IOException
    {
        final List<String> command = RecorderJvm.command(IterationWindows.class, List.of(trace.toString(),
            windows.toString(), String.valueOf(warmup)));
        final Path errors = Files.createTempFile("faultline-jmh-count", ".err");
        try
        {
            final Process process = new ProcessBuilder(command).redirectInput(new File("/dev/null"))
                .redirectError(errors.toFile()).start();
            final String out;
            try (var stdout = process.getInputStream())
            {
                out = new String(stdout.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (process.waitFor() != 0)
            {
                final String err = Files.readString(errors).trim();
                throw new IOException(err.isEmpty() ? "the counting JVM exited with status " + process.exitValue()
                    : err.lines().reduce((first, last) -> last).orElse(err));
            }
            return IterationWindows.Counts.parse(out);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while counting");
        }
        finally
        {
            Files.deleteIfExists(errors);
        }
    }

    /**
     * The counted references per operation of the iterations they were counted in: the measurement
     * iterations', and the warmup's too if {@code warmup}; NaN without operations.
     */
    static double refsPerOp(final long references, final BenchmarkResultMetaData metadata, final boolean warmup)
    {
        final long ops = metadata == null ? 0 : metadata.getMeasurementOps() + (warmup ? metadata.getWarmupOps() : 0);
        return ops > 0 ? (double)references / ops : Double.NaN;
    }

    @Override
    public boolean allowPrintOut()
    {
        return true;
    }

    @Override
    public boolean allowPrintErr()
    {
        return true;
    }
}
