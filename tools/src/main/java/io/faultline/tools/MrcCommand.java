package io.faultline.tools;

import io.faultline.sim.mrc.MissRatioCurve;
import io.faultline.sim.mrc.MissRatioCurves;
import io.faultline.sim.report.CsvReports;
import io.faultline.sim.report.Progress;
import io.faultline.sim.report.Written;
import io.faultline.sim.trace.KeyTrace;
import io.faultline.sim.trace.TraceFormats;
import io.faultline.sim.trace.TraceInput;
import io.faultline.tools.chart.MissRatioChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code faultline mrc}: the LRU miss-ratio curve of a trace at every size in one pass, exact
 * or SHARDS-sampled, as CSV and a chart.
 */
@Command(name = "mrc", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    synopsisHeading = "usage: ", customSynopsis = {
        "faultline mrc [--format F] [--max-size N] [--sample R] [--csv OUT] [--plot OUT]",
        "                     [--per-thread] TRACE"},
    descriptionHeading = "%n", description = {
        MrcCommand.SUMMARY, "",
        "Computes LRU misses at every cache size from 1 page to the number of distinct pages in one",
        "pass over the trace (Mattson stack distances) and writes " + CsvReports.MRC_HEADER + ".", ""},
    modelTransformer = MrcCommand.Wording.class)
final class MrcCommand extends ConsoleCommand
{
    /** The curve goes to standard output unless --csv names a file. */
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
                {"csv", "write the CSV here instead of to standard output"},
                {"plot", "miss ratio against size; PNG or SVG by extension"}};
        }
    }

    /** What {@code faultline --help} lists for this command: the first line of its description. */
    static final String SUMMARY = "Exact or sampled (SHARDS) LRU miss-ratio curve of a trace in one pass.";

    @Option(names = "--max-size", paramLabel = "N",
        description = "largest size reported, in pages (or bytes with K, M, G); default and most: the distinct pages, "
            + "beyond which every page fits and the curve is flat")
    Size maxSize;

    @Option(names = "--sample", paramLabel = "R", description = {"estimate with SHARDS at rate R in (0, 1], e.g. 0.1: "
        + "about R of the time and memory; mean absolute miss-ratio error measured at R = 0.1: 0.015 and 0.002 on "
        + "traces of ~40,000 pages; unreliable below 1/R pages"})
    String sample;

    @Mixin
    CsvAndPlot files;

    @Option(names = "--per-thread", description = {"faultline traces: one curve per thread; the CSV gains a first "
        + "column, " + CsvReports.MRC_PER_THREAD_HEADER})
    boolean perThread;

    @Mixin
    TraceInputOptions inputOptions;

    @Parameters(paramLabel = "TRACE", arity = "0..*", description = "a trace file or directory")
    List<Path> traces = new ArrayList<>();

    MrcCommand(final PrintStream out, final PrintStream err, final boolean terminal)
    {
        super(out, err, terminal);
    }

    @Override
    public Integer call() throws Exception
    {
        final TraceInput input = inputOptions.input();
        final OptionalDouble rate = sample == null ? OptionalDouble.empty() : OptionalDouble.of(rate(sample));
        if (traces.size() != 1)
        {
            throw new CliException(traces.isEmpty() ? "missing TRACE; give one trace file or directory"
                : "one TRACE at a time, got " + traces.size() + "; run faultline mrc once per trace");
        }
        files.checkPlot();
        if (maxSize != null)
        {
            SimulationGrid.cacheSize(maxSize, input.options().pageSizeOrDefault(), "--max-size");
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
            err.println("note: this trace was reduced by an EVMS (" + trace.evmsDescription()
                + "): the curve below " + trace.evmsPages() + " pages cannot tell hits from misses");
        }
        final OptionalInt maxPages = maxSize == null ? OptionalInt.empty()
            : OptionalInt.of(SimulationGrid.cacheSize(maxSize, trace.pageSize(), "--max-size"));

        final long start = System.nanoTime();
        final List<Integer> tids = new ArrayList<>();
        final List<MissRatioCurve> curves = new ArrayList<>();
        final LongAdder done = new LongAdder();
        try (Progress progress = Progress.start(err, terminal, "Computing the curve", trace.size(), done::sum))
        {
            if (perThread)
            {
                for (final Map.Entry<Integer, long[]> thread : trace.byTag().entrySet())
                {
                    tids.add(thread.getKey());
                    curves.add(curve(thread.getValue(), rate, maxPages, done).withLabel("tid " + thread.getKey()));
                }
            }
            else
            {
                curves.add(curve(trace.toArray(), rate, maxPages, done));
            }
        }
        long distinct = 0;
        int longest = 0;
        for (final MissRatioCurve curve : curves)
        {
            distinct += curve.distinct();
            longest = Math.max(longest, curve.maxSize());
        }
        if (maxPages.isPresent() && maxPages.getAsInt() > longest)
        {
            final String estimated = rate.isPresent() ? "estimated " : "";
            err.println(curves.size() == 1
                ? String.format(Locale.ROOT, "note: --max-size %s is beyond the trace's %s%,d distinct pages; the "
                    + "curve ends at %,d, where every page fits: larger sizes miss only first references",
                    maxSize.text(), estimated, longest, longest)
                : String.format(Locale.ROOT, "note: --max-size %s is beyond each thread's %sdistinct pages (at "
                    + "most %,d); each curve ends at its thread's, where every page fits: larger sizes miss only "
                    + "first references", maxSize.text(), estimated, longest));
        }
        err.printf(Locale.ROOT, "Computed %d %s curve%s over %,d references (%s%,d distinct pages) in %s%n",
            curves.size(), rate.isPresent() ? "SHARDS" : "exact", curves.size() == 1 ? "" : "s",
            trace.size(), rate.isPresent() ? "about " : "", distinct,
            Written.seconds(System.nanoTime() - start));

        if (files.csv == null)
        {
            final PrintWriter writer = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
            writeCsv(perThread, tids, curves, writer);
            writer.flush();
        }
        files.writeCsv(err, "miss-ratio curve as CSV", writer -> writeCsv(perThread, tids, curves, writer));
        files.writePlot(err, plot ->
        {
            final List<MissRatioChart.Series> series = new ArrayList<>();
            for (final MissRatioCurve curve : curves)
            {
                series.add(MissRatioChart.Series.of(curve));
            }
            MissRatioChart.write(plot, "LRU miss-ratio curve of " + tracePath.getFileName(), series);
        });
        return 0;
    }

    private static MissRatioCurve curve(final long[] keys, final OptionalDouble sample, final OptionalInt maxSize,
        final LongAdder done)
    {
        return sample.isPresent() ? MissRatioCurves.shards(keys, sample.getAsDouble(), maxSize, done)
            : MissRatioCurves.exact(keys, maxSize, done);
    }

    private static void writeCsv(final boolean perThread, final List<Integer> tids, final List<MissRatioCurve> curves,
        final PrintWriter writer)
    {
        if (perThread)
        {
            CsvReports.writeMrcPerThread(tids, curves, writer);
        }
        else
        {
            CsvReports.writeMrc(curves.get(0), writer);
        }
    }

    private static double rate(final String text)
    {
        try
        {
            final double rate = Double.parseDouble(text);
            if (rate > 0 && rate <= 1)
            {
                return rate;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // Reported below.
        }
        throw new CliException("--sample takes a rate in (0, 1], e.g. 0.1, not '" + text + "'");
    }
}
