package io.faultline.tools;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.faultline.sim.mrc.ReuseHistograms;
import io.faultline.sim.report.ReuseScope;
import io.faultline.sim.report.ReuseTable;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceInput;
import io.faultline.tools.chart.ReuseChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code faultline report reuse}: the reuse distance and reuse time histograms of a trace
 * ({@link ReuseHistograms}, whose distances are the LRU stack distances {@code mrc} computes),
 * of the whole trace and, with {@code --per-thread}, of each thread's own references: as text in
 * power-of-two buckets, as CSV of the same buckets and as a chart of their cumulative
 * distributions. It follows DynamoRIO drmemtrace's {@code reuse_distance} and {@code reuse_time}
 * tools (github.com/DynamoRIO/dynamorio, clients/drcachesim/tools/reuse_distance.cpp and
 * reuse_time.cpp) and libCacheSim's traceAnalyzer ({@code --reuse}, github.com/1a1a11a/libCacheSim,
 * libCacheSim/bin/traceAnalyzer); here the keys are pages, and a page's first reference is counted
 * apart as a cold miss.
 */
@Command(name = "reuse", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {
        "faultline report reuse [--format F] [--per-thread] [--csv OUT] [--plot OUT.png|OUT.svg] TRACE"},
    descriptionHeading = "%n", description = {
        "Reuse distance and reuse time histograms of a trace, exact, in one pass.", "",
        "Reuse distance: the distinct pages referenced between two references to a page (0: twice in a",
        "row; an LRU memory of c pages hits the references whose distance is below c). Reuse time: the",
        "references from the previous reference to the page to this one (1: in a row). A page's first",
        "reference has neither: it is counted apart, as cold.", "",
        "Buckets are powers of two: 0, 1, 2-3, 4-7, 8-15, ...; the cumulative distance share through",
        "2^k-1 is the LRU hit ratio of 2^k pages. Standard output gets a table per scope (counts and",
        "shares of all references); --csv writes the same buckets:",
        "  " + ReuseCommand.HEADER,
        "scope is all or a thread id (--per-thread), metric distance or time, from and to the bucket's",
        "bounds (-1,-1: first references), count the references in it.", ""},
    modelTransformer = ReuseCommand.Wording.class)
final class ReuseCommand extends ConsoleCommand
{
    /** What the CSV and the chart hold. */
    static final class Wording extends OptionWording
    {
        Wording()
        {
            super(new TraceInputOptions.Wording());
        }

        @Override
        protected Object[][] getContents()
        {
            return new Object[][] {
                {"csv", "also write the buckets as CSV to this file"},
                {"plot", "cumulative distributions of the exact reuse distances and times, PNG or SVG by extension"}};
        }
    }

    static final String HEADER = "scope,metric,from,to,count";

    @Option(names = "--per-thread", description = {"faultline traces: each thread's own references too, after the "
        + "whole trace's (scope = the thread id)"})
    boolean perThread;

    @Mixin
    CsvAndPlot files;

    @Mixin
    TraceInputOptions inputOptions;

    @Parameters(paramLabel = "TRACE", arity = "0..*", description = "a trace file or directory")
    List<Path> traces = new ArrayList<>();

    ReuseCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        super(out, err, terminal);
    }

    @Override
    public Integer call() throws Exception
    {
        final TraceInput input = inputOptions.input();
        if (traces.size() != 1)
        {
            throw new CliException(traces.isEmpty() ? "missing TRACE; give one trace file or directory"
                : "one TRACE at a time, got " + traces.size() + "; run faultline report reuse once per trace");
        }
        files.checkPlot();
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
        final List<ReuseScope> scopes = new ArrayList<>();
        scopes.add(new ReuseScope("all", ReuseHistograms.of(trace.toArray())));
        if (perThread)
        {
            for (final Map.Entry<Integer, long[]> thread : trace.byTag().entrySet())
            {
                scopes.add(new ReuseScope(String.valueOf(thread.getKey()), ReuseHistograms.of(thread.getValue())));
            }
        }
        err.printf(Locale.ROOT, "Computed reuse histograms of %d scope%s over %,d references in %s%n", scopes.size(),
            scopes.size() == 1 ? "" : "s", trace.size(), Written.seconds(System.nanoTime() - start));
        for (int i = 0; i < scopes.size(); i++)
        {
            if (i > 0)
            {
                out.println();
            }
            ReuseTable.print(scopes.get(i), out);
        }
        out.flush();
        files.writeCsv(err, "reuse histograms as CSV", writer -> writeCsv(scopes, writer));
        files.writePlot(err, plot -> ReuseChart.write(plot, "Reuse of " + tracePath.getFileName(), scopes));
        return 0;
    }

    static void writeCsv(final List<ReuseScope> scopes, final PrintWriter writer)
    {
        writer.print(HEADER + "\n");
        final StringBuilder line = new StringBuilder();
        for (final ReuseScope scope : scopes)
        {
            writeRows(scope.name(), "distance", scope.histograms().distances(), writer, line);
            writeRows(scope.name(), "time", scope.histograms().times(), writer, line);
        }
        writer.flush();
    }

    /** The first references, then every bucket from the metric's smallest (distance 0, time 1) to its largest. */
    private static void writeRows(final String scope, final String metric, final ReuseHistograms.Histogram histogram,
        final PrintWriter writer, final StringBuilder line)
    {
        final String prefix = scope + "," + metric + ",";
        writer.append(prefix).append(String.valueOf(ReuseHistograms.FIRST)).append(',')
            .append(String.valueOf(ReuseHistograms.FIRST)).append(',')
            .append(String.valueOf(histogram.count(ReuseHistograms.FIRST))).append('\n');
        final long[] buckets = histogram.buckets();
        for (int k = metric.equals("time") ? 1 : 0; k < buckets.length; k++)
        {
            line.setLength(0);
            line.append(prefix).append(ReuseHistograms.bucketFrom(k)).append(',').append(ReuseHistograms.bucketTo(k))
                .append(',').append(buckets[k]).append('\n');
            writer.append(line);
        }
    }
}
