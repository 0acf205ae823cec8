package io.faultline.tools;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.faultline.sim.mrc.ReuseHistograms;
import io.faultline.sim.report.MissRatioChart;
import io.faultline.sim.report.ReuseChart;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceException;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceInput;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline report reuse}: the reuse distance and reuse time histograms of a trace
 * ({@link ReuseHistograms}), of the whole trace and, with {@code --per-thread}, of each thread's
 * own references, as CSV and as a chart of their cumulative distributions.
 */
@Command(name = "reuse", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {
        "faultline report reuse [--format F] [--per-thread] [--csv OUT] [--plot OUT.png|OUT.svg] TRACE"},
    descriptionHeading = "%n", description = {
        "Reuse distance and reuse time histograms of a trace, exact, in one pass.", "",
        "Reuse distance: the distinct pages referenced between two references to a page (0: twice in a",
        "row; an LRU cache of c pages hits the references whose distance is below c). Reuse time: the",
        "references from the previous reference to the page to this one (1: in a row). CSV:",
        "  " + ReuseCommand.HEADER,
        "scope is all or a thread id (--per-thread), metric distance or time, count the references with",
        "that reuse; a page's first reference is counted under reuse " + ReuseHistograms.FIRST + ".", ""})
final class ReuseCommand implements Callable<Integer>
{
    static final String HEADER = "scope,metric,reuse,count";

    @Option(names = "--per-thread", description = {"faultline traces: each thread's own references too, after the "
        + "whole trace's (scope = the thread id)"})
    boolean perThread;

    @Option(names = "--csv", paramLabel = "OUT", description = "write the CSV here instead of to standard output")
    Path csv;

    @Option(names = "--plot", paramLabel = "OUT", description = "cumulative distributions of reuse distance and time, "
        + "PNG or SVG by extension")
    Path plot;

    @Mixin
    TraceInputOptions inputOptions;

    @Parameters(paramLabel = "TRACE", arity = "0..*", description = "a trace file or directory")
    List<Path> traces = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;

    ReuseCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        this.out = out;
        this.err = err;
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws Exception
    {
        try
        {
            final TraceInput input = inputOptions.input();
            if (traces.size() != 1)
            {
                throw new CliException(traces.isEmpty() ? "missing TRACE; give one trace file or directory"
                    : "one TRACE at a time, got " + traces.size() + "; run faultline report reuse once per trace");
            }
            if (plot != null)
            {
                MissRatioChart.checkExtension(plot);
            }
            final Path tracePath = traces.get(0);
            if (perThread && !input.formatOf(tracePath).name().equals(TraceFormats.FAULTLINE))
            {
                throw new CliException("--per-thread needs a faultline trace, which records threads; "
                    + tracePath + " is read as " + input.formatOf(tracePath).name());
            }
            final KeyTrace trace = input.read(tracePath, err, terminal);
            if (trace.evmsPages() > 1)
            {
                err.println("note: this trace was reduced by an EVMS (" + trace.evmsDescription() + "): references "
                    + "the EVMS absorbed are missing, so reuse distances below " + trace.evmsPages()
                    + " pages and short reuse times are undercounted");
            }
            final long start = System.nanoTime();
            final List<ReuseChart.Scope> scopes = new ArrayList<>();
            scopes.add(new ReuseChart.Scope("all", ReuseHistograms.of(trace.toArray())));
            if (perThread)
            {
                for (final Map.Entry<Integer, long[]> thread : trace.byTag().entrySet())
                {
                    scopes.add(new ReuseChart.Scope(String.valueOf(thread.getKey()), ReuseHistograms.of(thread.getValue())));
                }
            }
            err.printf(Locale.ROOT, "Computed reuse histograms of %d scope%s over %,d references in %s%n", scopes.size(),
                scopes.size() == 1 ? "" : "s", trace.size(), Written.seconds(System.nanoTime() - start));
            for (final ReuseChart.Scope scope : scopes)
            {
                err.println(summary(scope));
            }
            if (csv == null)
            {
                final PrintWriter writer = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
                writeCsv(scopes, writer);
                writer.flush();
            }
            else
            {
                final long csvStart = System.nanoTime();
                try (PrintWriter writer = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8)))
                {
                    writeCsv(scopes, writer);
                }
                Written.report(err, "reuse histograms as CSV", csv, csvStart);
            }
            if (plot != null)
            {
                final long plotStart = System.nanoTime();
                ReuseChart.write(plot, "Reuse of " + tracePath.getFileName(), scopes);
                Written.report(err, "chart", plot, plotStart);
            }
            return 0;
        }
        catch (final TraceException ex)
        {
            throw CliException.of(ex);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException(ex.getMessage());
        }
    }

    static void writeCsv(final List<ReuseChart.Scope> scopes, final PrintWriter writer)
    {
        writer.print(HEADER + "\n");
        final StringBuilder line = new StringBuilder();
        for (final ReuseChart.Scope scope : scopes)
        {
            writeRows(scope.name(), "distance", scope.histograms().distances(), writer, line);
            writeRows(scope.name(), "time", scope.histograms().times(), writer, line);
        }
        writer.flush();
    }

    private static void writeRows(final String scope, final String metric, final ReuseHistograms.Histogram histogram,
        final PrintWriter writer, final StringBuilder line)
    {
        for (final long value : histogram.values())
        {
            line.setLength(0);
            line.append(scope).append(',').append(metric).append(',').append(value).append(',')
                .append(histogram.count(value)).append('\n');
            writer.append(line);
        }
    }

    /** One line: references, first references, median reuse distance and time of the re-references. */
    static String summary(final ReuseChart.Scope scope)
    {
        final ReuseHistograms h = scope.histograms();
        return String.format(Locale.ROOT, "%s: %,d references, %,d first; median reuse distance %s pages, time %s"
            + " references", scope.name(), h.references(), h.firstReferences(), median(h.distances()),
            median(h.times()));
    }

    /** The median of the re-references' values, or "-" if there is none. */
    private static String median(final ReuseHistograms.Histogram histogram)
    {
        final long reused = histogram.total() - histogram.count(ReuseHistograms.FIRST);
        if (reused == 0)
        {
            return "-";
        }
        long seen = 0;
        for (final long value : histogram.values())
        {
            if (value == ReuseHistograms.FIRST)
            {
                continue;
            }
            seen += histogram.count(value);
            if (2 * seen >= reused)
            {
                return String.format(Locale.ROOT, "%,d", value);
            }
        }
        throw new IllegalStateException("unreachable: the counts add up to " + seen + " of " + reused);
    }
}
